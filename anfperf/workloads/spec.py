"""The workload spec: what to run, independent of the tool that runs it.

A :class:`Workload` is one I/O pattern (random or sequential, a block size, a read share) at one
or more load points: a concurrency sweep (``threads`` for Vdbench-style synchronous workers, or
``iodepth`` x ``numjobs`` for fio/DiskSpd-style asynchronous queues), a read/write sweep
(several ``read_pct``) or a load curve (``rate`` as percentages of the maximum). The renderers in
:mod:`anfperf.tools.vdbench`, :mod:`~anfperf.tools.fio` and :mod:`~anfperf.tools.diskspd` turn
it into the tools' inputs.

Users write their own workloads in YAML, either as a list or under a ``workloads:`` key::

    workloads:
      - name: RndRead
        pattern: random
        bs_kib: 8
        read_pct: 100
        threads: 25
        warmup_s: 60
        duration_s: 600
        file_size_gib: 693

Names, run names, host names and paths end up in parameter files and remote command lines, so
they are checked against conservative character sets here (:func:`check_name`,
:func:`check_host`, :func:`check_path`): nothing a shell, Vdbench's ``key=value,...`` syntax or
fio's ``:``-separated lists could misread gets through.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import IO, Any

import yaml

from anfperf.errors import ParseError, WorkloadError
from anfperf.units import KIB_PER_GIB
from anfperf.values import is_number, is_whole_number
from anfperf.yamlsafe import safe_load_bounded

#: The `sweep` of a workload whose concurrency the runner chooses as it measures, and of one
#: whose read share it chooses (:mod:`anfperf.runner.sweeps`).
ADAPTIVE = "adaptive"
ADAPTIVE_MIX = "adaptive_mix"
SWEEPS = (None, ADAPTIVE, ADAPTIVE_MIX)
#: I/O patterns a workload can have.
PATTERNS = ("random", "sequential")
#: Workload and run names: a letter or digit, then letters, digits, '_' or '-' (max 64).
#: Vdbench, fio and file systems all take these verbatim; no shell or parser can misread them.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: Host names / addresses as they appear in Vdbench ``system=`` and file names.
HOST_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,252}")
#: Remote user names.
USER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9._-]{0,31}")
#: POSIX paths (mount points, install folders): no blanks, quotes, ',', '=', ':', ';', '$' etc.
#: ':' is excluded because fio reads it as a list separator in ``directory=``.
POSIX_PATH_RE = re.compile(r"/?[A-Za-z0-9._+@-]+(/[A-Za-z0-9._+@-]+)*/?|/")
#: Windows paths for DiskSpd targets: optional drive letter or UNC prefix, '\\' or '/' separators.
WINDOWS_PATH_RE = re.compile(r"([A-Za-z]:|\\\\[A-Za-z0-9._-]+)?[\\/]?[A-Za-z0-9._+\\/-]*")
#: Upper bounds that catch typos (a 10**9 thread count) before a tool does something silly.
MAX_CONCURRENCY = 65536
#: Most steps one adaptive sweep runs (`max_steps` at most; a guard the runner keeps too).
MAX_ADAPTIVE_STEPS = 24
MAX_NUMJOBS = 4096
RATE_MAX = "max"


def check_name(value: object, field: str = "name", workload: str | None = None) -> str:
    """`value` if it is a safe workload/run name, else :class:`WorkloadError`."""
    if not isinstance(value, str) or not NAME_RE.fullmatch(value):
        raise WorkloadError(
            f"{value!r} is not a valid name: use 1-64 letters, digits, '_' or '-', "
            "starting with a letter or digit (no blanks, quotes, ';', '$' ...)",
            field=field,
            workload=workload,
        )
    return value


def check_host(value: object, field: str = "host") -> str:
    """`value` if it is a safe host name or address, else :class:`WorkloadError`."""
    if not isinstance(value, str) or not HOST_RE.fullmatch(value):
        raise WorkloadError(
            f"{value!r} is not a valid host name or address "
            "(letters, digits, '.', ':', '-' and '_' only)",
            field=field,
        )
    return value


def check_user(value: object, field: str = "user") -> str:
    """`value` if it is a safe remote user name, else :class:`WorkloadError`."""
    if not isinstance(value, str) or not USER_RE.fullmatch(value):
        raise WorkloadError(f"{value!r} is not a valid user name", field=field)
    return value


def check_path(value: object, field: str = "volume", *, windows: bool = False) -> str:
    """`value` if it is a path made of safe characters, else :class:`WorkloadError`.

    Paths go into Vdbench ``lun=``, fio ``directory=`` and command lines; rather than quoting
    for three different parsers, only characters none of them treats specially are accepted.
    A leading '-' is refused so that a path can never be taken for an option.
    """
    pattern = WINDOWS_PATH_RE if windows else POSIX_PATH_RE
    if (
        not isinstance(value, str)
        or not value
        or value.startswith("-")
        or not pattern.fullmatch(value)
    ):
        allowed = "letters, digits, '.', '_', '+', '@', '-' and '/'" + (
            ", '\\' and a drive letter" if windows else ""
        )
        raise WorkloadError(
            f"{value!r} is not a usable path: only {allowed} are accepted "
            "(no blanks, quotes, ',', '=', ';', '$' ...), and it must not start with '-'",
            field=field,
        )
    return value


def check_paths(values: Iterable[object], field: str = "volumes", *, windows: bool = False):
    """A list of safe, distinct paths (at least one)."""
    if isinstance(values, str):
        values = [values]
    paths = [check_path(v, field, windows=windows) for v in values]
    if not paths:
        raise WorkloadError("at least one volume (mount point) is needed", field=field)
    if len(set(paths)) != len(paths):
        raise WorkloadError(f"the same volume is listed twice: {paths}", field=field)
    return paths


@dataclass(frozen=True)
class Point:
    """One load point of a workload: what a single fio step or DiskSpd invocation runs.

    Exactly one of `threads` (synchronous workers) or `iodepth` (queue depth per job, with
    `numjobs` jobs) is set. `rate_pct` is a curve point in percent of the maximum; `rate_iops`
    a fixed total rate; both None means as fast as possible.
    """

    threads: int | None
    iodepth: int | None
    numjobs: int
    read_pct: int
    rate_pct: float | None = None
    rate_iops: float | None = None

    @property
    def outstanding(self) -> int:
        """Concurrent I/Os asked for: threads, or iodepth x numjobs."""
        return self.threads if self.threads is not None else self.iodepth * self.numjobs


@dataclass(frozen=True)
class Workload:
    """A benchmark workload, independent of the tool.

    Parameters
    ----------
    name : str
        Workload name: Vdbench ``wd=``, fio job name, file names. Letters, digits, '_', '-'.
    pattern : {'random', 'sequential'}
        Access pattern (Vdbench ``seekpct=100`` / ``0``; fio ``rand*`` / sequential).
    bs_kib : float
        Block (transfer) size [KiB]; a whole number of 512-byte sectors.
    read_pct : int or sequence of int, default 100
        Read share [%]. Several values make a read/write sweep (Vdbench ``forrdpct``).
    threads : int or sequence of int, optional
        Synchronous workers, each with one I/O outstanding (Vdbench ``threads``). Several values
        make a thread sweep. Give either `threads` or `iodepth`.
    iodepth : int or sequence of int, optional
        Queue depth per job (fio ``iodepth``, DiskSpd ``-o``); several values make a
        queue-depth sweep. Vdbench renders ``threads = iodepth * numjobs``.
    numjobs : int, default 1
        Jobs per volume, each with `iodepth` I/Os outstanding (fio ``numjobs``, DiskSpd ``-F``).
    warmup_s : int, default 0
        Warm-up [s], excluded from results (Vdbench ``warmup``, fio ``ramp_time``, DiskSpd
        ``-W``). 0 renders no warm-up option, leaving the tool's default.
    duration_s : int, default 60
        Measured run time per load point [s] (Vdbench ``elapsed``, fio ``runtime``, DiskSpd
        ``-d``). For a `fill` workload it is an upper bound.
    interval_s : int, default 1
        Reporting interval [s] (Vdbench ``interval``, fio ``log_avg_msec``).
    rate : 'max', float or sequence of float, default 'max'
        'max' (as fast as possible), a fixed total rate [IOPS] over all hosts and volumes, or a
        load curve: percentages of the maximum rate (fractions in (0, 1] are accepted when all
        values are <= 1). Vdbench ``iorate=curve``; fio ``rate_iops`` steps.
    file_size_gib : float, default 1.0
        Size of each data file [GiB]: per Vdbench sd (host x volume) and per DiskSpd target;
        in fio per job clone for `iodepth` workloads (as the fio seed's ``--size``), per host x
        volume, shared by the threads, for `threads` workloads (as a Vdbench sd).
    direct : bool, default True
        Bypass the client cache (Vdbench ``openflags=o_direct``, fio ``direct=1``, DiskSpd
        ``-Sh``).
    fill : bool, default False
        Write every file once from start to end and stop (Vdbench ``seekpct=eof``; fio without
        ``time_based``). Sequential writes only.
    run_name : str, optional
        Vdbench run (``rd=``) name template; may use ``{name}`` and ``{threads}``. With
        ``{threads}``, each thread count gets its own ``rd=``; without it, a thread sweep is one
        ``rd=`` with ``forthreads``. Default: ``{name}``, or ``{name}-{threads}`` for a sweep.
    sweep : {'adaptive', 'adaptive_mix'}, optional
        ``'adaptive'``: the runner chooses each next concurrency from the points measured
        (:class:`anfperf.adaptive.AdaptiveSweep`), starting at `threads` or `iodepth` (the light
        load) and going up to `max_outstanding`, until the mean latency passes `until_lat_ms`.
        ``'adaptive_mix'``: it chooses each next read share (:class:`anfperf.adaptive.MixSweep`:
        pure reads and writes, then where the mix model is least sure). Either needs one
        concurrency, one read share (the mix sweep's is not used) and no load curve.
    until_lat_ms : float, optional
        The adaptive sweep's latency objective [ms] (its SLO).
    max_outstanding : int, optional
        The adaptive sweep's highest concurrency: threads, or iodepth per job.
    max_steps : int, optional
        Most steps the adaptive sweep runs (at least 2); by default half of those of a dense
        sweep in powers of two up to `max_outstanding`, at least 4
        (:attr:`anfperf.adaptive.AdaptiveSweep.step_budget`).
    description : str, optional
        One line saying what the workload is for.
    source : str, optional
        Where it comes from (a citation of the seed script or article).
    """

    name: str
    pattern: str
    bs_kib: float
    read_pct: int | tuple[int, ...] = 100
    threads: int | tuple[int, ...] | None = None
    iodepth: int | tuple[int, ...] | None = None
    numjobs: int = 1
    warmup_s: int = 0
    duration_s: int = 60
    interval_s: int = 1
    rate: str | float | tuple[float, ...] = RATE_MAX
    file_size_gib: float = 1.0
    direct: bool = True
    fill: bool = False
    run_name: str | None = None
    sweep: str | None = None
    until_lat_ms: float | None = None
    max_outstanding: int | None = None
    max_steps: int | None = None
    description: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        # one step per concern, in this order: the first problem found is the one reported
        name = check_name(self.name, "name")
        bs = self._check_access(name)
        self._check_concurrency(name)
        self._check_timing(name)
        self._check_rate_and_file(name, bs)
        self._check_combinations(name)
        self._tidy_text(name)

    # -- validation steps of __post_init__ (frozen: each normalises its fields once) --------
    def _check_access(self, name: str) -> float:
        """Check and normalise `pattern`, `bs_kib` and `read_pct`; the block size as given."""
        if self.pattern not in PATTERNS:
            raise _error(name, "pattern", f"must be one of {PATTERNS}, got {self.pattern!r}")
        bs = _number(self.bs_kib, name, "bs_kib", minimum=0, strict=True)
        if not math.isclose(bs * 2, round(bs * 2)):
            raise _error(name, "bs_kib", f"must be a whole number of 512-byte sectors, got {bs}")
        object.__setattr__(self, "bs_kib", _tidy(round(bs * 2) / 2))

        reads = _int_tuple(self.read_pct, name, "read_pct", minimum=0)
        if any(r > 100 for r in reads):
            raise _error(name, "read_pct", f"percentages must be 0..100, got {list(reads)}")
        object.__setattr__(self, "read_pct", reads)
        return bs

    def _check_concurrency(self, name: str) -> None:
        """Check and normalise `threads`, or `iodepth` with `numjobs`."""
        set_ = object.__setattr__
        if (self.threads is None) == (self.iodepth is None):
            raise _error(
                name,
                "threads",
                "give either threads (synchronous workers) or iodepth (with numjobs)",
            )
        if self.threads is not None:
            set_(self, "threads", _int_tuple(self.threads, name, "threads", 1, MAX_CONCURRENCY))
            if self.numjobs != 1:
                raise _error(name, "numjobs", "numjobs goes with iodepth, not with threads")
        else:
            set_(self, "iodepth", _int_tuple(self.iodepth, name, "iodepth", 1, MAX_CONCURRENCY))
        set_(self, "numjobs", _int(self.numjobs, name, "numjobs", 1, MAX_NUMJOBS))

    def _check_timing(self, name: str) -> None:
        """Check and normalise `warmup_s`, `duration_s` and `interval_s`."""
        set_ = object.__setattr__
        set_(self, "warmup_s", _int(self.warmup_s, name, "warmup_s", 0))
        set_(self, "duration_s", _int(self.duration_s, name, "duration_s", 1))
        set_(self, "interval_s", _int(self.interval_s, name, "interval_s", 1))
        if self.interval_s > self.duration_s:
            raise _error(name, "interval_s", "the interval is longer than the duration")

    def _check_rate_and_file(self, name: str, bs: float) -> None:
        """Check and normalise `rate`, `file_size_gib` (one block of `bs` [KiB] at least), the
        `direct` and `fill` flags.
        """
        set_ = object.__setattr__
        set_(self, "rate", _rate(self.rate, name))
        size = _number(self.file_size_gib, name, "file_size_gib", minimum=0, strict=True)
        if size * KIB_PER_GIB < bs:
            raise _error(name, "file_size_gib", "the file is smaller than one block")
        set_(self, "file_size_gib", _tidy(size))
        for flag in ("direct", "fill"):
            if not isinstance(getattr(self, flag), bool):
                raise _error(name, flag, f"must be true or false, got {getattr(self, flag)!r}")

    def _check_combinations(self, name: str) -> None:
        """Refuse fields that are valid alone but not together; check the run name."""
        if self.fill:
            if self.pattern != "sequential" or self.read_pct != (0,) or self.rate != RATE_MAX:
                raise _error(
                    name,
                    "fill",
                    "a fill workload writes each file once: pattern sequential, read_pct 0, "
                    "rate max",
                )
        if isinstance(self.rate, tuple) and (len(self.read_pct) > 1 or len(self.concurrency) > 1):
            raise _error(
                name,
                "rate",
                "a load curve runs at one concurrency and one read_pct (no other sweep)",
            )
        if self.run_name is not None:
            _check_run_name(self.run_name, name)
        self._check_adaptive(name)

    def _check_adaptive(self, name: str) -> None:
        """`sweep` 'adaptive' with its objective and highest concurrency, 'adaptive_mix', or no
        sweep and neither of the two."""
        if self.sweep not in SWEEPS:
            raise _error(
                name, "sweep", f"must be one of {SWEEPS} (or left out), got {self.sweep!r}"
            )
        if self.sweep != ADAPTIVE:
            for key in ("until_lat_ms", "max_outstanding", "max_steps"):
                if getattr(self, key) is not None:
                    raise _error(name, key, f"goes with sweep: {ADAPTIVE}")
            if self.sweep is None:
                return
        if len(self.concurrency) > 1 or len(self.read_pct) > 1 or self.swept or self.fill:
            chooses = "concurrency" if self.sweep == ADAPTIVE else "read share"
            raise _error(
                name, "sweep", f"an adaptive sweep chooses its own {chooses}: give one threads "
                "or iodepth (the light load it starts at), one read_pct and no load curve",
            )  # fmt: skip
        if self.sweep == ADAPTIVE_MIX:
            return
        if self.until_lat_ms is None or self.max_outstanding is None:
            raise _error(
                name, "sweep", "an adaptive sweep needs until_lat_ms (the latency objective [ms]) "
                "and max_outstanding (its highest threads or iodepth)",
            )  # fmt: skip
        lat = _number(self.until_lat_ms, name, "until_lat_ms", minimum=0, strict=True)
        object.__setattr__(self, "until_lat_ms", _tidy(lat))
        top = _int(self.max_outstanding, name, "max_outstanding", self.concurrency[0],
                   MAX_CONCURRENCY)  # fmt: skip
        object.__setattr__(self, "max_outstanding", top)
        if self.max_steps is not None:
            steps = _int(self.max_steps, name, "max_steps", 2, MAX_ADAPTIVE_STEPS)
            object.__setattr__(self, "max_steps", steps)

    def _tidy_text(self, name: str) -> None:
        """`description` and `source` as one line of text each."""
        for text in ("description", "source"):
            value = getattr(self, text)
            if value is None:
                value = ""
            if not isinstance(value, str):
                raise _error(name, text, f"must be text, got {value!r}")
            # one line: it is written into parameter-file comments
            object.__setattr__(self, text, " ".join(value.split()))

    # -- derived views ---------------------------------------------------------------------
    @property
    def concurrency(self) -> tuple[int, ...]:
        """The swept concurrency values: `threads`, else `iodepth`."""
        return self.threads if self.threads is not None else self.iodepth

    @property
    def outstanding(self) -> tuple[int, ...]:
        """Concurrent I/Os per load point: threads, or iodepth x numjobs."""
        if self.threads is not None:
            return self.threads
        return tuple(q * self.numjobs for q in self.iodepth)

    @property
    def rate_kind(self) -> str:
        """'max', 'fixed' or 'curve'."""
        if self.rate == RATE_MAX:
            return "max"
        return "curve" if isinstance(self.rate, tuple) else "fixed"

    @property
    def swept(self) -> tuple[str, ...]:
        """Which dimensions are swept: any of 'concurrency', 'read_pct', 'rate'."""
        dims = []
        if len(self.concurrency) > 1:
            dims.append("concurrency")
        if len(self.read_pct) > 1:
            dims.append("read_pct")
        if self.rate_kind == "curve":
            dims.append("rate")
        return tuple(dims)

    def points(self) -> list[Point]:
        """The load points in run order: concurrency, then read share, then curve point."""
        rates: Sequence[tuple[float | None, float | None]]
        if self.rate_kind == "curve":
            rates = [(pct, None) for pct in self.rate]
        elif self.rate_kind == "fixed":
            rates = [(None, self.rate)]
        else:
            rates = [(None, None)]
        out = []
        for conc, read, (pct, iops) in product(self.concurrency, self.read_pct, rates):
            if self.threads is not None:
                out.append(Point(conc, None, 1, read, pct, iops))
            else:
                out.append(Point(None, conc, self.numjobs, read, pct, iops))
        return out

    def point_name(self, point: Point) -> str:
        """A short, unique, safe name for one load point (fio job / DiskSpd run)."""
        parts = [self.name]
        if "concurrency" in self.swept:
            parts.append(f"t{point.threads}" if point.threads is not None else f"qd{point.iodepth}")
        if "read_pct" in self.swept:
            parts.append(f"r{point.read_pct}")
        if "rate" in self.swept:
            parts.append(f"c{_fmt(point.rate_pct)}".replace(".", "_"))
        return "-".join(parts)

    def as_adaptive(self, until_lat_ms: float, max_outstanding: int | None = None) -> Workload:
        """This workload as an adaptive sweep: from its lowest concurrency (1 when it has one)
        up to `max_outstanding` (default its highest; an adaptive one keeps its own) until the
        mean latency passes `until_lat_ms` [ms].

        Raises
        ------
        WorkloadError
            It sweeps the read share or a load curve (an adaptive sweep chooses concurrency).
        """
        key = "threads" if self.threads is not None else "iodepth"
        top = max_outstanding or self.max_outstanding or max(self.concurrency)
        # a sweep starts at its lowest; one load point alone at 1, the lightest load there is
        start = min(self.concurrency) if len(self.concurrency) > 1 else 1
        return self.replace(
            sweep=ADAPTIVE, until_lat_ms=until_lat_ms, max_outstanding=top, **{key: start},
        )  # fmt: skip

    def adaptive_point(self, value: int) -> Workload:
        """One step of this adaptive sweep: the workload at one concurrency (``sweep:
        adaptive``: ``RndRead-qd24``, ``RndRead-t24``) or one read share (``adaptive_mix``:
        ``RndMix-r70``) alone, named for it."""
        if self.sweep == ADAPTIVE_MIX:
            key, tag = "read_pct", "r"
        else:
            key, tag = ("threads", "t") if self.threads is not None else ("iodepth", "qd")
        suffix = f"-{tag}{int(value)}"
        return self.replace(
            name=self.name[: 64 - len(suffix)] + suffix, sweep=None, until_lat_ms=None,
            max_outstanding=None, max_steps=None, **{key: int(value)},
        )  # fmt: skip

    def replace(self, **changes: Any) -> Workload:
        """A copy with some fields changed (validated again).

        Raises
        ------
        WorkloadError
            A field is unknown (with the closest known name) or its new value is not valid.
        """
        _check_fields(changes, self.name)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML/JSON-ready fields; single-value sweeps become scalars, defaults kept."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or (f.name in ("description", "source") and not value):
                continue
            if isinstance(value, tuple):
                value = list(value) if len(value) > 1 or f.name == "rate" else value[0]
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, workload: str | None = None) -> Workload:
        """Build a workload from plain fields, rejecting unknown ones with a suggestion."""
        if not isinstance(data, Mapping):
            raise WorkloadError(
                f"expected a mapping of fields, got {type(data).__name__}", workload=workload
            )
        label = data.get("name") if isinstance(data.get("name"), str) else workload
        _check_fields(data, label)
        for required in ("name", "pattern", "bs_kib"):
            if required not in data:
                raise WorkloadError("is required", field=required, workload=label)
        return cls(**dict(data))


# -- validation helpers -----------------------------------------------------------------------
def _check_fields(names: Iterable[Any], workload: str | None) -> None:
    """WorkloadError naming the first of `names` that is not a Workload field."""
    known = [f.name for f in dataclasses.fields(Workload)]
    for key in names:
        if key not in known:
            hint = difflib.get_close_matches(str(key), known, n=1)
            raise WorkloadError(
                "unknown field" + (f"; did you mean {hint[0]!r}?" if hint else ""),
                field=str(key),
                workload=workload,
            )


def _error(workload: str, field: str, reason: str) -> WorkloadError:
    return WorkloadError(reason, field=field, workload=workload)


def _number(value: object, workload: str, field: str, minimum: float, strict=False) -> float:
    if not is_number(value):
        raise _error(workload, field, f"must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < minimum or (strict and value == minimum):
        raise _error(workload, field, f"must be {'>' if strict else '>='} {minimum}, got {value}")
    return value


def _int(value: object, workload: str, field: str, minimum: int, maximum: int | None = None):
    if is_number(value) and not is_whole_number(value) and float(value).is_integer():
        value = int(value)  # 8.0
    if not is_whole_number(value):
        raise _error(workload, field, f"must be a whole number, got {value!r}")
    value = int(value)  # numpy's integers too: they go into parameter files as text
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
        raise _error(workload, field, f"must be {bound}, got {value}")
    return value


def _int_tuple(value, workload, field, minimum, maximum=None) -> tuple[int, ...]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    if not values:
        raise _error(workload, field, "needs at least one value")
    out = tuple(_int(v, workload, field, minimum, maximum) for v in values)
    if len(set(out)) != len(out):
        raise _error(workload, field, f"lists a value twice: {list(out)}")
    return out


def _rate(value: object, workload: str) -> str | float | tuple[float, ...]:
    if isinstance(value, str):
        if value.strip().lower() == RATE_MAX:
            return RATE_MAX
        raise _error(workload, "rate", f"must be 'max', an IOPS number or a list, got {value!r}")
    if isinstance(value, list | tuple):
        points = [_number(v, workload, "rate", minimum=0, strict=True) for v in value]
        if not points:
            raise _error(workload, "rate", "a load curve needs at least one point")
        if all(p <= 1 for p in points):  # fractions of the maximum
            points = [p * 100 for p in points]
        if any(p > 100 for p in points):
            raise _error(workload, "rate", "curve points are percentages of max: 0 < p <= 100")
        points = [_tidy(round(p, 6)) for p in points]
        if len(set(points)) != len(points):
            raise _error(workload, "rate", f"lists a curve point twice: {points}")
        return tuple(points)
    return _tidy(_number(value, workload, "rate", minimum=0, strict=True))


def _check_run_name(template: object, workload: str) -> None:
    if not isinstance(template, str):
        raise _error(workload, "run_name", f"must be text, got {template!r}")
    try:
        rendered = template.format(name=workload, threads=1)
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        raise _error(
            workload, "run_name", f"only {{name}} and {{threads}} may be used: {exc}"
        ) from None
    check_name(rendered, "run_name", workload)


def _tidy(value: float) -> int | float:
    """Whole floats as int, so YAML and parameter files show '8', not '8.0'."""
    return int(value) if float(value).is_integer() else value


def _fmt(value: float) -> str:
    return str(_tidy(value))


def size_text(kib: float) -> str:
    """A size in the largest binary unit that divides it: '8k', '256m', '693g', else bytes.

    Vdbench, fio and DiskSpd all read these suffixes as powers of 1024 (fio by default,
    ``kb_base=1024``); DiskSpd wants them upper-case, which its renderer does.
    """
    nbytes = round(kib * 1024)
    for unit, scale in (("g", 2**30), ("m", 2**20), ("k", 2**10)):
        if nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return str(nbytes)


# -- YAML -------------------------------------------------------------------------------------
def _entries(document: object, source: str) -> list[object]:
    if isinstance(document, Mapping) and set(document) == {"workloads"}:
        document = document["workloads"]
    if isinstance(document, Mapping) and "name" in document:
        document = [document]
    if not isinstance(document, list):
        raise WorkloadError(
            "expected a list of workloads (or a 'workloads:' key holding one)", source=source
        )
    if not document:
        raise WorkloadError("no workloads in the file", source=source)
    return document


def _named_buffer(data: bytes, name: str) -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name  # read_bytes names its source after it
    return buffer


def load_workloads(path_or_buffer: str | os.PathLike | IO[bytes] | IO[str]) -> list[Workload]:
    """Read workloads from a YAML file.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        A YAML file (``.gz`` too) holding a list of workloads, or a mapping with a
        ``workloads:`` key holding that list, or a single workload mapping.

    Returns
    -------
    list of Workload

    Raises
    ------
    WorkloadError
        Naming the file, the workload and the field, for anything unreadable or invalid.
    """
    from anfperf.ingest._source import read_bytes  # shared path/buffer/gzip handling
    from anfperf.paths import printable_path
    from anfperf.userfiles import read_user_file

    try:
        if isinstance(path_or_buffer, str | os.PathLike):  # bounded as a description, not a result
            source = printable_path(path_or_buffer)
            path_or_buffer = _named_buffer(
                read_user_file(path_or_buffer, what="a workloads file", source=source), source
            )
        data, source = read_bytes(path_or_buffer)
    except ParseError as exc:
        raise WorkloadError(exc.reason, source=exc.source) from None
    if not data.strip():
        raise WorkloadError("the file is empty", source=source)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"not UTF-8 text ({exc.reason})", source=source) from None
    try:
        document = safe_load_bounded(text, source)
    except ParseError as exc:
        raise WorkloadError(exc.reason, source=source) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise WorkloadError(
            f"not valid YAML: {exc.problem or exc}",
            source=source,
            line=mark.line + 1 if mark else None,
        ) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise WorkloadError(f"not valid YAML: {exc}", source=source) from None

    workloads: list[Workload] = []
    for index, entry in enumerate(_entries(document, source)):
        label = f"workloads[{index}]"
        try:
            workload = Workload.from_dict(entry, workload=label)  # type: ignore[arg-type]
        except WorkloadError as exc:
            raise WorkloadError(
                exc.reason, field=exc.field, workload=exc.workload or label, source=source
            ) from None
        except TypeError as exc:  # e.g. non-string keys
            raise WorkloadError(str(exc), workload=label, source=source) from None
        if any(w.name == workload.name for w in workloads):
            raise WorkloadError("the name is used twice", workload=workload.name, source=source)
        workloads.append(workload)
    return workloads


def dump_workloads(
    workloads: Workload | Iterable[Workload], path: str | os.PathLike | None = None
) -> str:
    """Write workloads as YAML (the format :func:`load_workloads` reads).

    Parameters
    ----------
    workloads : Workload or iterable of Workload
    path : str or path, optional
        Where to write; the text is returned either way.

    Returns
    -------
    str
        The YAML text.
    """
    if isinstance(workloads, Workload):
        workloads = [workloads]
    text = yaml.safe_dump(
        {"workloads": [w.to_dict() for w in workloads]},
        sort_keys=False,
        default_flow_style=None,
        allow_unicode=True,
        width=100,
    )
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text
