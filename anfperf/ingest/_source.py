"""Opening inputs: paths, open buffers, gzip; naming the source in errors."""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import IO

from anfperf.errors import ParseError

PathOrBuffer = str | os.PathLike | IO[bytes] | IO[str]

GZIP_MAGIC = b"\x1f\x8b"


def printable_path(path: str | os.PathLike) -> str:
    """A path as text that can be stored and printed: bytes that are not UTF-8 (a file system
    allows any) become ``\\xNN`` escapes instead of lone surrogates no encoder accepts."""
    text = os.fsdecode(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def source_name(path_or_buffer: PathOrBuffer) -> str:
    """The name used for `source_file` and in error messages."""
    if isinstance(path_or_buffer, str | os.PathLike):
        return printable_path(path_or_buffer)
    return str(getattr(path_or_buffer, "name", "<buffer>"))


def read_bytes(path_or_buffer: PathOrBuffer) -> tuple[bytes, str]:
    """Read a whole input as bytes, un-gzipping when it is gzip (by content, not by name).

    Returns
    -------
    data : bytes
    source : str
        The file name (or the buffer's ``name``) for `source_file` and error messages.
    """
    source = source_name(path_or_buffer)
    try:
        if isinstance(path_or_buffer, str | os.PathLike):
            data = Path(path_or_buffer).read_bytes()
        else:
            data = path_or_buffer.read()
            if isinstance(data, str):
                data = data.encode("utf-8")
    except IsADirectoryError:
        raise ParseError(source, "is a folder, not a file") from None
    except FileNotFoundError:
        raise ParseError(source, "no such file") from None
    except OSError as exc:
        raise ParseError(source, f"cannot be read: {exc.strerror or exc}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(source, f"damaged gzip data: {exc}") from None
    return data, source


def decode_text(data: bytes, source: str) -> str:
    """Decode tool output as text: UTF-8, falling back to Latin-1 (Windows/old Solaris tools)."""
    if b"\x00" in data[:4096]:
        raise ParseError(source, "binary data, not a text report")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")
