"""Why a Vdbench run failed, in Vdbench's own words.

Vdbench ends a failed run with exit code 157 and a Java stack trace, whose last line
(``at Vdb.SlaveStarter.run(SlaveStarter.java:47)``) tells a user nothing. What it printed before
says what went wrong: ``Slave vm2-0 prematurely terminated.``, ``lun=... does not exist or is
too small``, a starred ``Slave ... aborting: ...`` box, ``Exception during reading of input
parameter file(s).``; and a slave that never started left its own output (``bash: ...: No such
file or directory``, ``ssh: connect to host ... Connection refused``) in
``<slave>.stdout.html`` of the output folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from anfperf.errors import ParseError
from anfperf.userfiles import read_user_file

#: Vdbench's console lines: ``HH:MM:SS.mmm message``.
_STAMPED = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} ?(.*)$")
#: Messages that say what failed (case-insensitive), in the order Vdbench prints them.
_TELLING = re.compile(
    r"does not exist|prematurely terminated|aborting:|abort message|exception during|"
    r"failed|not found|no such file|permission denied|refused|invalid|unknown|error",
    re.IGNORECASE,
)
_SLAVE_DIED = re.compile(r"Slave (\S+) prematurely terminated")
#: Hints and noise among the telling lines.
_NOISE = re.compile(r"^Look at file|^Slave aborted\. Abort message received", re.IGNORECASE)
#: The longest reason kept [characters].
MAX_REASON = 400


def _messages(text: str) -> list[str]:
    """Vdbench's timestamped messages, starred boxes unwrapped, blanks dropped."""
    out = []
    for line in text.splitlines():
        m = _STAMPED.match(line.strip())
        if not m:
            continue
        msg = m[1].strip().strip("*").strip()
        if msg:
            out.append(msg)
    return out


def _slave_detail(slave: str, folders: Iterable[Path]) -> str | None:
    """The last line a slave printed (``<slave>.stdout.html`` in an output folder)."""
    for folder in folders:
        path = Path(folder) / f"{slave}.stdout.html"
        try:  # bounded, and a regular file only (a FIFO would block open() for ever)
            text = read_user_file(path, what="a Vdbench stdout").decode(errors="replace")
        except ParseError:
            continue
        lines = _messages(text)
        if lines:
            return lines[-1]
    return None


def failure_reason(text: str, folders: Iterable[Path] = ()) -> str | None:
    """What Vdbench said went wrong, from its console output and collected output folders.

    Parameters
    ----------
    text : str
        Vdbench's stdout and stderr.
    folders : iterable of path
        Its collected output folders (for the slaves' own ``<slave>.stdout.html``).

    Returns
    -------
    str or None
        The telling messages joined by '; ' (repeats dropped), the failed slave's own last
        words appended; None when Vdbench said nothing telling.
    """
    picked: list[str] = []
    for msg in _messages(text):
        if not _TELLING.search(msg) or _NOISE.match(msg):
            continue
        if any(msg.rstrip(".") in p for p in picked):
            continue  # Vdbench repeats itself: the abort message, the slave's end
        picked.append(msg.rstrip("."))
    if not picked:
        return None
    died = next((m for p in picked if (m := _SLAVE_DIED.search(p))), None)
    if died and not any("abort" in p.lower() or "does not exist" in p for p in picked):
        detail = _slave_detail(died[1], folders)
        if detail:
            picked = [f"{p}: {detail}" if p.startswith(died[0]) else p for p in picked]
    reason = "; ".join(picked)
    return reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 3] + "..."
