"""Vdbench companion reports: parmfile, summary, logfile and host reports.

A Vdbench output folder holds, next to ``flatfile.html``, the run's parameter file
(``parmfile.html``), the summary (``summary.html``), the log (``logfile.html``) and one report per
host (``<host>.html``, in the summary layout). :func:`anfperf.ingest.vdbench.read_vdbench` uses
them, when they are there, for what the flatfile does not say: the workload names, the loop
values of each run definition, the hosts, the date and time zone, the Vdbench version and the
per-host numbers. Every function here is lenient: a damaged companion is skipped with a warning
or gives ``None``, never an error, because the flatfile alone is a complete result.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from anfperf.errors import ParseError
from anfperf.ingest._source import decode_text, read_bytes

log = logging.getLogger(__name__)

#: Companion file names (after the flatfile's prefix, usually empty).
COMPANIONS = ("parmfile.html", "summary.html", "logfile.html")

#: Parameter-file statement types that define named things (``sd=name,...``).
_PARM_TYPES = ("hd", "sd", "wd", "fsd", "fwd", "rd")
#: Keyword abbreviations Vdbench accepts and the corpus uses (``seek=100``, ``xf=1k``).
_PARM_ALIASES = {"seek": "seekpct", "xf": "xfersize", "th": "threads", "rdp": "rdpct"}

#: UTC offsets [h] of time-zone abbreviations that mean one zone only. Ambiguous ones (CST:
#: China or US Central, IST, BST, AST) are left out on purpose: Vdbench 50407 prints the UTC
#: time next to the local one in summary.html, which settles them; older versions do not.
TZ_OFFSETS_H: dict[str, float] = {
    "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "CET": 1, "CEST": 2, "MET": 1, "MEST": 2,
    "EET": 2, "EEST": 3, "MSK": 3, "PKT": 5, "ICT": 7, "WIB": 7, "SGT": 8, "HKT": 8, "AWST": 8,
    "JST": 9, "KST": 9, "ACST": 9.5, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    "HST": -10, "AKST": -9, "AKDT": -8, "PST": -8, "PDT": -7, "MST": -7, "MDT": -6,
    "CDT": -5, "EST": -5, "EDT": -4,
}  # fmt: skip

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}

_HREF = re.compile(r'<A HREF="([^"]*)">([^<]*)</A>', re.I)
_CREATED = re.compile(
    r"created (\d\d:\d\d:\d\d) (\S+ \d{1,2},? \d{4}) (\S+)"
    r"(?: \((\d\d:\d\d:\d\d) (\S+ \d{1,2},? \d{4}) UTC\))?"
)
_STARTING = re.compile(r"Starting RD=([^;<\s]+)(?:[^<]*?For loops: ([^<]*))?")
_DISTRIBUTION = re.compile(r"Vdbench distribution: (\S+)")
_HOST_NAME = re.compile(r"^[\w.:-]+$")
_REPORT_ROW = re.compile(r"^\d\d:\d\d:\d\d\.\d+\s+(?:\d+|avg_\d+-\d+)\s")


@dataclass
class RunDef:
    """What the parameter file says about one run definition (rd=)."""

    workload: str | None = None  # the rd's wd= or fwd= value as written, e.g. 'wd*'
    filesystem: bool = False  # fwd= (file system) rather than wd= (raw / block)
    n_targets: int | None = None  # SDs (raw) or FWDs (file system) the rd drives
    #: SDs the rd drives per host, when every one of them names its host (``sd=...,host=``)
    targets_by_host: dict[str, int] | None = None
    pattern: str | None = None  # from seekpct= / fileio= of its workloads
    read_pct: float | None = None  # from rdpct= / operation= of its FWDs
    threads: int | None = None  # rd or fwd threads=, when not a loop
    #: openflags=o_direct / directio on every SD (FSD) the rd drives, or on the rd or its
    #: workloads; False when on none (buffered I/O); None when some only, or on Windows luns
    direct_io: bool | None = None


@dataclass
class Companions:
    """What the companion reports of one flatfile add (each part optional)."""

    hosts: list[str] = field(default_factory=list)
    single_host: str | None = None
    run_defs: dict[str, RunDef] = field(default_factory=dict)
    loops: list[tuple[str, str | None]] = field(default_factory=list)  # (rd name, loop text)
    version: str | None = None
    created_local: dt.datetime | None = None  # when the run started, local clock
    utc_offset: dt.timedelta | None = None  # of that local clock
    zone: str | None = None
    paths: dict[str, Path] = field(default_factory=dict)
    #: Folder and file-name prefix of the run's reports: host reports are '<prefix><host>.html'.
    prefix: str | None = None


# --------------------------------------------------------------------------- reading


def companion_paths(flatfile: Path) -> dict[str, Path]:
    """Companion files next to `flatfile`, sharing its prefix (``v01_flatfile.html`` ->
    ``v01_summary.html``); only those that exist."""
    name = flatfile.name
    low = name.lower()
    cut = low.rfind("flatfile.html")
    if cut < 0:
        return {}
    prefix = name[:cut]
    found = {}
    for comp in COMPANIONS:
        for candidate in (
            flatfile.with_name(prefix + comp),
            flatfile.with_name(prefix + comp + ".gz"),
        ):
            if candidate.is_file():
                found[comp] = candidate
                break
    return found


def _read_text(path: Path) -> str | None:
    try:
        data, source = read_bytes(path)
        return decode_text(data, source)
    except ParseError as exc:
        log.warning("skipping companion %s: %s", path, exc.reason)
        return None


def load_companions(flatfile: Path) -> Companions:
    """Read what the companions of `flatfile` say; missing or damaged ones are skipped."""
    paths = companion_paths(flatfile)
    comp = Companions(paths=paths)
    cut = flatfile.name.lower().rfind("flatfile.html")
    if cut >= 0:
        comp.prefix = os.path.join(flatfile.parent, flatfile.name[:cut])
    parm = _read_text(paths["parmfile.html"]) if "parmfile.html" in paths else None
    summary = _read_text(paths["summary.html"]) if "summary.html" in paths else None
    logfile = _read_text(paths["logfile.html"]) if "logfile.html" in paths else None

    hd_names: list[str] = []
    if parm is not None:
        try:
            hd_names, comp.run_defs = parse_parmfile(parm)
        except (ValueError, KeyError, IndexError, TypeError) as exc:  # damaged: carry on
            log.warning("cannot use %s: %s", paths["parmfile.html"], exc)
    for text in (summary, logfile):
        if text is None:
            continue
        if not comp.hosts:
            # Host names become file names (<host>.html): plain names only.
            comp.hosts = [
                h for h in report_links(text, "Link to HOST reports:") if _HOST_NAME.match(h)
            ]
        if not comp.loops:
            comp.loops = run_definition_links(text) or starting_lines(text)
        if comp.created_local is None:
            _parse_created(text, comp)
        if comp.version is None:
            m = _DISTRIBUTION.search(text[:20000])
            comp.version = m.group(1) if m else None
    if not comp.hosts and parm is not None:
        # No summary: the parameter file's hosts; none given means Vdbench's 'localhost'.
        comp.hosts = hd_names or ["localhost"]
    if len(comp.hosts) == 1:
        comp.single_host = comp.hosts[0]
    return comp


# --------------------------------------------------------------------------- summary / logfile


def report_links(text: str, label: str) -> list[str]:
    """Names of the reports linked on the line starting with `label` (e.g. the hosts)."""
    for line in text.splitlines():
        if line.startswith(label):
            return [m.group(2).strip() for m in _HREF.finditer(line) if m.group(2).strip()]
    return []


def run_definition_links(text: str) -> list[tuple[str, str | None]]:
    """The 'Link to Run Definitions' list: one (rd name, loop text) per RD instance, in order.

    Vdbench writes ``<A ...>threads For loops: threads=1 rdpct=100</A>`` for the first instance
    of a name and only what changed (``<A ...>rdpct=70</A>``) for the following for-loop
    instances of the same name: each instance gets every loop value (``threads=1 rdpct=70``).
    """
    out: list[tuple[str, str | None]] = []
    lines = text.splitlines()
    start = next(
        (i for i, ln in enumerate(lines) if ln.startswith("Link to Run Definitions:")), None
    )
    if start is None:
        return out
    name: str | None = None
    for line in lines[start:]:
        if out and not line.strip():
            break
        for m in _HREF.finditer(line):
            label = m.group(2).strip()
            if " For loops: " in label or label.endswith(" For loops:"):
                name, _, loop = label.partition(" For loops:")
                name = name.strip()
                loop = loop.strip()
            elif name is None:
                continue
            else:
                loop = _merge_loop(out[-1][1] if out else None, label)
            out.append((name, None if loop in ("", "None") else loop))
    return out


def _merge_loop(previous: str | None, changed: str) -> str:
    """The loop values of `previous` (``k=v k=v``) with those in `changed` replaced."""
    values = dict(p.partition("=")[::2] for p in (previous or "").split() if "=" in p)
    for part in changed.split():
        key, _, value = part.partition("=")
        values[key] = value
    return " ".join(f"{k}={v}" for k, v in values.items())


def rd_instance(line: str, seen: dict[str, int]) -> tuple[str, int] | None:
    """The run definition a 'Starting RD=' line opens and its 0-based instance.

    For-loops repeat an rd name, one instance each; `seen` counts the instances so far and is
    updated. None when the line opens no run definition.
    """
    if "Starting RD=" not in line:
        return None
    m = _STARTING.search(line)
    if not m:
        return None
    job = m.group(1)
    seen[job] = seen.get(job, -1) + 1
    return job, seen[job]


def starting_lines(text: str) -> list[tuple[str, str | None]]:
    """(rd name, loop text) from the 'Starting RD=' lines, for reports without the link list."""
    out = []
    for line in text.splitlines():
        if "Starting RD=" not in line or "<a name" not in line.lower():
            continue
        m = _STARTING.search(line)
        if m:
            loop = (m.group(2) or "").strip()
            out.append((m.group(1), None if loop in ("", "None") else loop))
    return out


def _parse_datetime(date_text: str, time_text: str) -> dt.datetime | None:
    """'Nov 21 2026', 'Apr 08, 2016' or a localized '5月 10 2023', and 'HH:MM:SS'; None when
    it is no real date (or one outside what datetime64[ns] holds)."""
    parts = date_text.replace(",", " ").split()
    if len(parts) != 3:
        return None
    month_s, day_s, year_s = parts
    month = _MONTHS.get(month_s[:3].lower())
    if month is None:
        digits = re.match(r"(\d{1,2})\D", month_s)  # CJK: '5月'
        month = int(digits.group(1)) if digits else None
    try:
        when = dt.datetime.combine(
            dt.date(int(year_s), month or 0, int(day_s)), dt.time.fromisoformat(time_text)
        )
    except ValueError:
        return None
    return when if 1970 <= when.year <= 2200 else None


def _parse_created(text: str, comp: Companions) -> None:
    m = _CREATED.search(text[:5000])
    local = _parse_datetime(m.group(2), m.group(1)) if m else None
    if local is None:
        return
    comp.created_local = local
    comp.zone = m.group(3)
    utc = _parse_datetime(m.group(5), m.group(4)) if m.group(4) else None
    if utc is not None:  # 50407: '(13:16:03 5月 10 2023 UTC)' settles any zone name
        minutes = round((local - utc).total_seconds() / 900) * 15
        if abs(minutes) <= 14 * 60:  # real zones are within UTC-12..UTC+14
            comp.utc_offset = dt.timedelta(minutes=minutes)
        return
    hours = TZ_OFFSETS_H.get(comp.zone.upper())
    if hours is not None:
        comp.utc_offset = dt.timedelta(hours=hours)


def utc_offset_for(zone: str, comp: Companions | None) -> dt.timedelta | None:
    """UTC offset of a zone abbreviation as printed in flatfile timestamps, or None if unknown."""
    if comp is not None and comp.utc_offset is not None and comp.zone == zone:
        return comp.utc_offset
    hours = TZ_OFFSETS_H.get(zone.upper())
    return None if hours is None else dt.timedelta(hours=hours)


# --------------------------------------------------------------------------- parameter file


def _split_params(statement: str) -> list[tuple[str, str]]:
    """'sd=a,lun=/x,xf=(4k,8k)' -> [('sd','a'), ('lun','/x'), ('xfersize','(4k,8k)')]."""
    parts, depth, quote, cur = [], 0, False, []
    for ch in statement:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth = max(depth - 1, 0)
        if ch == "," and depth == 0 and not quote:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    out = []
    for part in parts:
        key, sep, value = part.strip().partition("=")
        if sep:
            key = key.strip().lower()
            out.append((_PARM_ALIASES.get(key, key), value.strip()))
    return out


def _values(value: str) -> list[str]:
    """'("sd*")' or '(wd1,wd2)' or 'wd*' -> ['sd*'] / ['wd1', 'wd2'] / ['wd*']."""
    value = value.strip()
    if value.startswith("(") and value.endswith(")"):
        value = value[1:-1]
    return [v.strip().strip('"').strip() for v in value.split(",") if v.strip().strip('"')]


def _statements(text: str) -> list[str]:
    text = re.sub(r"<title>.*?</title>", "", text, flags=re.I | re.S)
    text = re.sub(r"</?pre>", "", text, flags=re.I)
    statements: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped[0] in "*#/":
            continue
        starts_new = re.match(r"[A-Za-z_]+\s*=", line) is not None and line[0] not in " \t,"
        if statements and (not starts_new or statements[-1].endswith(",")):
            statements[-1] = statements[-1].rstrip(",") + "," + stripped.lstrip(",")
        else:
            statements.append(stripped)
    return statements


def parse_parmfile(text: str) -> tuple[list[str], dict[str, RunDef]]:
    """Hosts and run definitions of a Vdbench parameter file (``parmfile.html``).

    ``xx=default,...`` statements give defaults to the following ``xx=`` statements, as in
    Vdbench. Returns the host names (``hd=``, without ``default``) and a :class:`RunDef` per rd.
    """
    defaults: dict[str, dict[str, str]] = {t: {} for t in _PARM_TYPES}
    named: dict[str, dict[str, dict[str, str]]] = {t: {} for t in _PARM_TYPES}
    for statement in _statements(text):
        params = _split_params(statement)
        if not params or params[0][0] not in _PARM_TYPES:
            continue
        kind, name = params[0]
        own = dict(params[1:])
        if name.lower() == "default":
            defaults[kind].update(own)
        else:
            named[kind][name] = {**defaults[kind], **own}

    run_defs = {}
    for rd_name, rd in named["rd"].items():
        run_defs[rd_name] = _run_def(rd, named)
    return list(named["hd"]), run_defs


def _matching(patterns: list[str], names: list[str]) -> list[str]:
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def _int(value: str | None) -> int | None:
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None


def _run_def(rd: dict[str, str], named: dict[str, dict[str, dict[str, str]]]) -> RunDef:
    out = RunDef()
    out.threads = _int(rd.get("threads"))
    if "fwd" in rd:
        out.filesystem = True
        out.workload = ",".join(_values(rd["fwd"]))
        fwds = [
            f
            for f in _matching(_values(rd["fwd"]), list(named["fwd"]))
            if f.lower() != "format"  # 'fwd=format' only sets how the format runs
        ]
        if fwds:
            out.n_targets = len(fwds)
            defs = [named["fwd"][f] for f in fwds]
            fsds = _matching(
                [p for d in defs for p in _values(d.get("fsd", ""))], list(named["fsd"])
            )
            out.direct_io = _direct_io(rd, defs, [named["fsd"][f] for f in fsds], "anchor")
            out.pattern = _agree([_fileio_pattern(d.get("fileio")) for d in defs])
            out.read_pct = _agree([_fwd_read_pct(d) for d in defs])
            if out.threads is None:
                out.threads = _agree([_int(d.get("threads")) for d in defs])
        return out
    if "wd" not in rd:
        return out
    out.workload = ",".join(_values(rd["wd"]))
    wds = _matching(_values(rd["wd"]), list(named["wd"]))
    defs = [named["wd"][w] for w in wds]
    if defs:
        out.pattern = _agree([_seek_pattern(d.get("seekpct")) for d in defs])
    sd_patterns = (
        _values(rd["sd"]) if "sd" in rd else [p for d in defs for p in _values(d.get("sd", ""))]
    )
    sds = _matching(sd_patterns, list(named["sd"]))
    out.n_targets = len(sds) or None
    out.direct_io = _direct_io(rd, defs, [named["sd"][sd] for sd in sds], "lun")
    hosts = [_values(named["sd"][sd].get("host", "")) for sd in sds]
    if sds and all(hosts):
        out.targets_by_host = {}
        for hd in named["hd"]:
            count = sum(any(fnmatch.fnmatchcase(hd, p) for p in h) for h in hosts)
            out.targets_by_host[hd] = count
    return out


#: Vdbench openflags= values that bypass the page cache (Linux o_direct, Solaris directio).
DIRECT_OPENFLAGS = ("o_direct", "directio")
# A Windows lun (\\.\PhysicalDrive1, C:\file): what Vdbench's default there is, is not ours to say
_WINDOWS_LUN = re.compile(r"^(\\\\|[A-Za-z]:[\\/])")


def _direct_io(
    rd: dict[str, str], workloads: list[dict[str, str]], targets: list[dict[str, str]], where: str
) -> bool | None:
    """Whether the rd's I/O bypassed the page cache (openflags=o_direct / directio on the rd, on
    all its workloads or on all its targets); False when none says so; None when unknown."""

    def direct(params: dict[str, str]) -> bool:
        flags = [v.lower() for v in _values(params.get("openflags", ""))]
        return any(f in DIRECT_OPENFLAGS for f in flags)

    if not targets:
        return None
    if direct(rd) or (workloads and all(map(direct, workloads))) or all(map(direct, targets)):
        return True
    if any(map(direct, workloads)) or any(map(direct, targets)):
        return None  # some targets direct, some not
    if any(_WINDOWS_LUN.match(t.get(where, "")) for t in targets):
        return None
    return False


def _agree(values: list):
    """The common value, 'mixed' for patterns that differ, else None."""
    distinct = {v for v in values}
    if len(distinct) == 1:
        return distinct.pop()
    if distinct and distinct <= {"random", "sequential", "mixed"}:
        return "mixed"
    return None


def _seek_pattern(value: str | None) -> str | None:
    if value is None:
        return "random"  # Vdbench's default seekpct is 100 (random)
    v = value.strip().lower()
    if v in ("eof", "seq", "sequential"):
        return "sequential"
    if v in ("random", "rand"):
        return "random"
    try:
        pct = float(v)
    except ValueError:
        return None
    return pattern_from_seekpct(pct)


def pattern_from_seekpct(pct: float) -> str | None:
    """Vdbench seekpct [%] (share of random seeks) -> 'random' / 'sequential' / 'mixed'."""
    if np.isnan(pct):
        return None
    if pct >= 100:
        return "random"
    if pct <= 0:
        return "sequential"  # seekpct=0 and the seekpct=-1 / eof forms: sequential
    return "mixed"


def _fileio_pattern(value: str | None) -> str | None:
    if value is None:
        return "random"  # Vdbench's default fileio is random
    v = ",".join(_values(value)).lower()
    if v.startswith("seq"):
        return "sequential"
    if v.startswith("rand"):
        return "random"
    return None


def _fwd_read_pct(fwd: dict[str, str]) -> float | None:
    if "rdpct" in fwd:
        try:
            return float(fwd["rdpct"])
        except ValueError:
            return None
    operation = ",".join(_values(fwd.get("operation", ""))).lower()
    return {"read": 100.0, "write": 0.0}.get(operation)


# --------------------------------------------------------------------------- host reports

# Summary-layout column (header group + sub-header) -> tidy name; SD and FWD layouts.
HOST_REPORT_COLUMNS = {
    "i/o rate": "iops", "mb/sec 1024**2": "bw_mib_s", "read pct": "read_obs_pct",
    "resp time": "lat_mean_ms", "read resp": "read_lat_ms", "write resp": "write_lat_ms",
    "resp max": "lat_max_ms", "read max": "read_max_ms", "write max": "write_max_ms",
    "resp stddev": "lat_std_ms", "queue depth": "queue_depth", "cpu% sys+u": "cpu_total_pct",
    "cpu% sys": "cpu_sys_pct",
    # file-system (FWD) layout
    "reqstdops rate": "iops", "reqstdops resp": "lat_mean_ms", "cpu% total": "cpu_total_pct",
    "read rate": "read_iops", "write rate": "write_iops", "mb/sec read": "read_bw_mib_s",
    "mb/sec write": "write_bw_mib_s", "mb/sec total": "bw_mib_s",
}  # fmt: skip


def _header_columns(line1: str, line2: str) -> list[str] | None:
    """Column names of a two-line summary header, pairing tokens by the columns they cover.

    Raw-I/O reports right-align each sub-header under its header word ('i/o' over 'rate');
    file-system reports put a dotted group ('.ReqstdOps...') over several sub-headers.
    """
    top = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line1)]
    low = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line2)]
    i_interval = next((i for i, t in enumerate(top) if t[2].strip(".").lower() == "interval"), None)
    if i_interval is None:
        return None
    top = top[i_interval:]
    used = set()
    cols: list[tuple[int, str]] = [(top[0][0], "interval")]
    for s, e, word in low:
        best, best_overlap = None, 0
        for j, (ts, te, _tw) in enumerate(top):
            overlap = min(e, te) - max(s, ts)
            if overlap > best_overlap:
                best, best_overlap = j, overlap
        if best is None or best == 0:
            return None
        used.add(best)
        group = top[best][2].strip(".").lower()
        cols.append((s, f"{group} {word.lower()}"))
    for j, (ts, _te, tw) in enumerate(top[1:], 1):
        if j not in used:
            cols.append((ts, tw.strip(".").lower()))
    cols.sort()
    return ["tod"] + [c for _s, c in cols]


def parse_host_report(text: str, source: str) -> pd.DataFrame | None:
    """Rows of a host report (summary layout): one per RD instance x interval (and avg_).

    Returns columns job, step, interval (int or <NA>), avg_first (first interval of the avg_
    range on avg_ rows), is_summary and the tidy names of :data:`HOST_REPORT_COLUMNS`; None
    (with a warning) when the report cannot be read.
    """
    lines = text.splitlines()
    rows: list[dict] = []
    columns: list[str] | None = None
    job: str | None = None
    steps: dict[str, int] = {}
    step = 0
    for k, line in enumerate(lines):
        if "Starting RD=" in line:
            started = rd_instance(line, steps)
            if started:
                job, step = started
                columns = None
            continue
        if job is None:
            continue
        if (
            columns is None
            and re.search(r"(?i)(^|\s)\.*interval\.*\s", line)
            and k + 1 < len(lines)
        ):
            columns = _header_columns(line, lines[k + 1])
            continue
        if columns is None or not _REPORT_ROW.match(line):
            continue
        tokens = line.split()
        if len(tokens) != len(columns):
            log.debug("%s: line %d does not fit its header", source, k + 1)
            return None
        row: dict = {"job": job, "step": step}
        for name, tok in zip(columns, tokens, strict=True):
            if name == "interval":
                if tok.startswith("avg_"):
                    row["interval"] = None
                    row["is_summary"] = True
                    row["avg_first"] = int(tok[4:].split("-")[0])
                else:
                    row["interval"] = int(tok)
                    row["is_summary"] = False
            elif name in HOST_REPORT_COLUMNS:
                try:
                    row[HOST_REPORT_COLUMNS[name]] = float(tok)
                except ValueError:
                    row[HOST_REPORT_COLUMNS[name]] = np.nan  # 'n/a', '?'
        rows.append(row)
    if not rows:
        return None
    return pd.DataFrame.from_records(rows)
