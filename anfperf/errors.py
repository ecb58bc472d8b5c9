"""Exception hierarchy of anfperf.

Every error anfperf raises on purpose derives from :class:`AnfperfError`, so callers can catch
one class. Errors carry structured fields (the file, the host, the reason) besides the message.
"""

from __future__ import annotations

import os


class AnfperfError(Exception):
    """Base class of all anfperf errors."""


class ParseError(AnfperfError, ValueError):
    """A file is not the benchmark output it claims to be, or is damaged.

    Parameters
    ----------
    source : str or os.PathLike
        The file (or a description of the buffer) that could not be read.
    reason : str
        What is wrong, in words a user can act on.
    line : int, optional
        1-based line number where the problem was found.
    """

    def __init__(self, source: str | os.PathLike | None, reason: str, line: int | None = None):
        self.source = os.fspath(source) if source is not None else "<buffer>"
        self.reason = reason
        self.line = line
        where = f"{self.source}:{line}" if line is not None else self.source
        super().__init__(f"{where}: {reason}")


class RemoteError(AnfperfError):
    """A remote host failed (unreachable, authentication, timeout, non-zero exit)."""


class ModelError(AnfperfError, ValueError):
    """A model cannot be fitted or evaluated with the data given."""
