"""Opening inputs: paths, open buffers, gzip; naming the source in errors."""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from typing import IO

from anfperf.errors import ParseError
from anfperf.paths import printable_path
from anfperf.units import BYTES_PER_MIB
from anfperf.userfiles import mib_text, read_regular

PathOrBuffer = str | os.PathLike | IO[bytes] | IO[str]

GZIP_MAGIC = b"\x1f\x8b"


def source_name(path_or_buffer: PathOrBuffer) -> str:
    """The name used for `source_file` and in error messages."""
    if isinstance(path_or_buffer, str | os.PathLike):
        return printable_path(path_or_buffer)
    return str(getattr(path_or_buffer, "name", "<buffer>"))


#: Largest input read by default [MiB], as stored and after gzip decompression: a hostile or
#: mistaken file (a sparse 2 GB file, a gzip bomb) costs bounded memory and time.
MAX_INPUT_MIB = 256
_max_input_mib: contextvars.ContextVar[float] = contextvars.ContextVar(
    "anfperf_max_input_mib", default=MAX_INPUT_MIB
)


@contextlib.contextmanager
def input_limit(max_mib: float | None) -> Iterator[None]:
    """Read inputs of up to `max_mib` MiB meanwhile (None: keep the current limit)."""
    if max_mib is None:
        yield
        return
    if not max_mib > 0:
        raise ValueError(f"max_mib must be positive, got {max_mib!r}")
    token = _max_input_mib.set(max_mib)
    try:
        yield
    finally:
        _max_input_mib.reset(token)


def input_limit_bytes() -> int:
    """The largest input read now [bytes] (see :func:`input_limit`)."""
    return int(_max_input_mib.get() * BYTES_PER_MIB)


def _too_big(source: str, what: str, limit_mib: float) -> ParseError:
    if limit_mib == MAX_INPUT_MIB:
        limit = (
            f"the {limit_mib:g} MiB anfperf reads by default: not a benchmark result? (raise "
            "the limit with max_mib= / anfperf ingest --max-file-mib)"
        )
    else:  # the caller's own limit, as they gave it
        limit = f"the limit of {limit_mib:g} MiB given (max_mib= / anfperf ingest --max-file-mib)"
    return ParseError(source, f"{what} more than {limit}")


def read_bytes(path_or_buffer: PathOrBuffer) -> tuple[bytes, str]:
    """Read a whole input as bytes, un-gzipping when it is gzip (by content, not by name).

    Inputs larger than the limit (:data:`MAX_INPUT_MIB`, see :func:`input_limit`), stored or
    decompressed, are refused before they are read whole.

    Returns
    -------
    data : bytes
    source : str
        The file name (or the buffer's ``name``) for `source_file` and error messages.
    """
    source = source_name(path_or_buffer)
    limit_mib = _max_input_mib.get()
    limit = int(limit_mib * BYTES_PER_MIB)
    if isinstance(path_or_buffer, str | os.PathLike):
        # a regular file only: a named pipe would block open() for ever, a device never ends
        data = read_regular(
            path_or_buffer, limit, source=source,
            too_big=lambda size: _too_big(source, f"{mib_text(size)}:", limit_mib),
        )  # fmt: skip
    else:
        try:
            data = path_or_buffer.read(limit + 1)
        except OSError as exc:
            raise ParseError(source, f"cannot be read: {exc.strerror or exc}") from None
        if isinstance(data, str):
            data = data.encode("utf-8")
    if len(data) > limit:  # a file that grew, or a buffer
        raise _too_big(source, "it holds", limit_mib)
    if data[:2] == GZIP_MAGIC:
        data = gunzip(io.BytesIO(data), source, limit + 1)
        if len(data) > limit:
            raise _too_big(source, "it decompresses to", limit_mib)
    return data, source


def gunzip(fileobj: IO[bytes], source: str, max_bytes: int) -> bytes:
    """The first `max_bytes` bytes of gzip data decompressed (every member), never more."""
    try:
        with gzip.GzipFile(fileobj=fileobj) as fh:
            return fh.read(max_bytes)
    except (OSError, EOFError, zlib.error) as exc:
        raise ParseError(source, f"damaged gzip data: {exc}") from None


def decode_text(data: bytes, source: str) -> str:
    """Decode tool output as text: UTF-8, falling back to Latin-1 (Windows/old Solaris tools)."""
    if b"\x00" in data[:4096]:
        raise ParseError(source, "binary data, not a text report")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")
