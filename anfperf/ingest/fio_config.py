"""fio job options -> the workload configuration of a job entry (pattern, mix, block sizes,
queue depth, concurrency), worked out once per distinct set of options."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache

import orjson
from msgspec import Raw

from anfperf.ingest.fio_doc import INT64_MAX, UNSET, Entry, num, text, whole_number
from anfperf.units import BYTES_PER_KIB

_NAN = math.nan

#: Position of a direction in fio's per-direction option values ("bs=4k,64k" = read 4k, write 64k).
DDIR_INDEX: dict[str, int] = {"read": 0, "write": 1, "trim": 2}

#: fio ``rw=`` -> (pattern, requested read %); None = from rwmixread/rwmixwrite (default 50).
RW_MODES: dict[str, tuple[str, float | None]] = {
    "read": ("sequential", 100.0),
    "write": ("sequential", 0.0),
    "trim": ("sequential", 0.0),
    "rw": ("sequential", None),
    "readwrite": ("sequential", None),
    "trimwrite": ("sequential", 0.0),
    "randread": ("random", 100.0),
    "randwrite": ("random", 0.0),
    "randtrim": ("random", 0.0),
    "randrw": ("random", None),
    "randtrimwrite": ("random", 0.0),
}

#: Engines that complete each I/O before issuing the next: iodepth has no effect on them.
SYNC_ENGINES = frozenset(
    {"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "falloc", "ftruncate", "e4defrag",
     "filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete", "splice"}
)  # fmt: skip

#: Engines whose I/O goes through the client's page cache unless direct=1 (buffered=0): files
#: and block devices opened by the kernel (fio's default engine is psync). Others (libnfs's
#: 'nfs', 'sg', 'rdma', 'null', 'http', spdk, ...) have no page cache to bypass or skip it.
PAGE_CACHE_ENGINES = frozenset(
    {"sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "posixaio", "io_uring", "mmap",
     "splice", "windowsaio", "solarisaio"}
)  # fmt: skip

#: fio's defaults for options a job did not set (applied only when fio reported options).
DEFAULT_OPTIONS: dict[str, str] = {"rw": "read", "bs": "4k", "iodepth": "1", "numjobs": "1"}

_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([kmgtpe]?)(i?)b?\s*$", re.IGNORECASE)


def _options(entry: Entry, global_options: object) -> tuple[dict, bool]:
    """The entry's options: job options over global options; whether fio reported any."""
    job = json_value(entry.job_options)
    if isinstance(global_options, list):
        # fio >= 3.40 client mode: one global options object per client.
        key = host_key(entry.hostname, entry.port)
        dicts = [g for g in global_options if isinstance(g, dict)]
        global_options = next(
            (g for g in dicts if host_key(g.get("hostname"), g.get("port")) == key),
            dicts[0] if dicts else None,
        )
    return _merged(json_value(global_options), job)


def _merged(*options: object) -> tuple[dict, bool]:
    """Option objects (decoded), each over the ones before; whether any was an object (fio
    reported its options)."""
    merged: dict = {}
    reported = False
    for value in options:
        if isinstance(value, dict):
            merged.update(value)
            reported = True
    return merged, reported


def entry_config(entry: Entry, global_options: object, global_key: object, n_clones: int) -> dict:
    """The workload configuration of a job entry (whose (name, group, host) has `n_clones`
    entries): its options over the document's (`global_key`: theirs as :func:`options_key`),
    worked out once per distinct set (clones and repeated runs share theirs). Shared between
    entries: never modify it."""
    if not isinstance(global_options, list):
        try:
            return _config_of(global_key, options_key(entry.job_options), n_clones == 1)
        except TypeError:  # an unhashable option value: not fio's own output
            pass
    options, reported = _options(entry, global_options)
    return _with_outstanding(_config(options, reported), n_clones)


def options_key(value: object) -> bytes | tuple | None:
    """A hashable stand-in for an options object: its JSON bytes as typed decoding left them,
    or its items; None for no object."""
    if type(value) is Raw:
        return bytes(value)
    return tuple(value.items()) if isinstance(value, dict) else None


@lru_cache(maxsize=512)
def _config_of(global_key: bytes | tuple | None, job_key: bytes | tuple | None, lone: bool) -> dict:
    merged, reported = _merged(_from_key(global_key), _from_key(job_key))
    return _with_outstanding(_config(merged, reported), 1 if lone else 2)


def _from_key(key: bytes | tuple | None) -> object:
    """The options object an :func:`options_key` stands for."""
    if key is None:
        return None
    return json_value(key) if isinstance(key, bytes) else dict(key)


def json_value(value: object) -> object:
    """JSON bytes (or a :class:`msgspec.Raw`) decoded; anything else as it is."""
    if type(value) is Raw or isinstance(value, bytes):
        data = bytes(value)  # type: ignore[arg-type]
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:  # what orjson refuses: integers beyond 64 bits, and
            # bytes that are not UTF-8 (typed decoding leaves them in skipped text): replaced
            return json.loads(data.decode("utf-8", "replace"))
    return None if value is UNSET else value


def _config(options: dict, reported: bool) -> dict:
    """Workload configuration of a job entry from its (merged) options.

    The result is shared between rows (and cached): never modify it.
    """

    def opt(*names: str) -> str | None:
        for name in names:
            value = options.get(name)
            if isinstance(value, str):
                return value.strip()
            if isinstance(value, int | float) and not isinstance(value, bool):
                return str(value)
        if reported:
            return DEFAULT_OPTIONS.get(names[0])
        return None

    config: dict = {
        "pattern": None, "read_pct": _NAN, "iodepth": None, "numjobs": None,
        "outstanding": None, "bs_kib": {}, "rate_iops": {}, "per_clone_depth": None,
        "group_reporting": False, "direct_io": None,
    }  # fmt: skip
    rw = opt("rw", "readwrite")
    mode = RW_MODES.get(rw.split(":")[0].strip().lower()) if rw else None
    if mode is not None:
        pattern, read_pct = mode
        if read_pct is None:
            mix_read = num(opt("rwmixread"))
            mix_write = num(opt("rwmixwrite"))
            if 0 <= mix_read <= 100:
                read_pct = mix_read
            elif 0 <= mix_write <= 100:
                read_pct = 100.0 - mix_write
            else:
                read_pct = 50.0
        if pattern == "random":
            random_pct = num(_first(opt("percentage_random")))
            if random_pct == 0:
                pattern = "sequential"
            elif 0 < random_pct < 100:
                pattern = "mixed"
        config["pattern"] = pattern
        config["read_pct"] = read_pct

    kb_base = 1000 if opt("kb_base") == "1000" else 1024
    bs = _per_direction(opt("bs", "blocksize"), DEFAULT_OPTIONS["bs"] if reported else None)
    config["bs_kib"] = {d: _size_bytes(v, kb_base) / BYTES_PER_KIB for d, v in bs.items()}
    rates = _per_direction(opt("rate_iops"), None)
    config["rate_iops"] = {d: v for d, v in ((d, num(v)) for d, v in rates.items()) if v > 0}
    _same_for_total(config["bs_kib"])
    _same_for_total(config["rate_iops"])

    iodepth = whole_number(opt("iodepth"))
    config["iodepth"] = iodepth
    config["numjobs"] = whole_number(opt("numjobs"))
    engine = (opt("ioengine") or "").split(":")[0].strip().lower()
    if iodepth is not None:
        config["per_clone_depth"] = 1 if engine in SYNC_ENGINES else iodepth
    config["group_reporting"] = _flag(opt("group_reporting"))
    config["direct_io"] = _direct_io(opt("direct"), opt("buffered"), engine, reported)
    return config


def _direct_io(
    direct: str | None, buffered: str | None, engine: str, reported: bool
) -> bool | None:
    """Whether the job bypassed the page cache (direct=1, buffered=0); False for buffered I/O
    of an engine that has one; None where fio reported no options or the engine has none."""
    if not reported or (engine or "psync") not in PAGE_CACHE_ENGINES:
        return None
    if direct is not None:
        return _flag(direct)
    if buffered is not None:
        return not _flag(buffered)
    return False  # fio's default: direct=0, buffered=1


def _with_outstanding(config: dict, n_entries: int) -> dict:
    """`config` with ``outstanding`` for an entry whose (name, group, host) has `n_entries`.

    With group_reporting fio folds a job's numjobs clones into one entry; without it each clone
    has its own entry. fio does not list group_reporting in the options when it was given on the
    command line, so a lone entry of a numjobs > 1 job counts as folded too.
    """
    depth = config.get("per_clone_depth")
    numjobs = config["numjobs"]
    if depth is not None:
        folded = numjobs is not None and (
            config["group_reporting"] or (numjobs > 1 and n_entries == 1)
        )
        outstanding = depth * numjobs if folded else depth
        config = {**config, "outstanding": min(outstanding, INT64_MAX)}
    return _with_values(config)


#: The configuration's values in a row of a job entry (the last of fio_rows.ENTRY_COLUMNS).
ENTRY_VALUES = ("pattern", "read_pct", "iodepth", "numjobs", "outstanding", "direct_io")


def _with_values(config: dict) -> dict:
    """`config` with ``values``: those of :data:`ENTRY_VALUES` as a tuple, made once for all
    the entries that share the configuration."""
    config["values"] = tuple(config[key] for key in ENTRY_VALUES)
    return config


def common_config(configs: list[dict]) -> dict:
    """Configuration of "All clients": what its hosts agree on; concurrency adds up."""
    out: dict = {
        "pattern": None, "read_pct": _NAN, "iodepth": None, "numjobs": None,
        "outstanding": None, "bs_kib": {}, "rate_iops": {}, "per_clone_depth": None,
        "group_reporting": False, "direct_io": None,
    }  # fmt: skip
    if not configs:
        return _with_values(out)
    for key in ("pattern", "read_pct", "iodepth", "numjobs", "direct_io"):
        values = [c[key] for c in configs]
        if all(v == values[0] for v in values[1:]):
            out[key] = values[0]
    for key in ("bs_kib", "rate_iops"):
        first = configs[0][key]
        out[key] = {d: v for d, v in first.items() if all(c[key].get(d) == v for c in configs)}
    outstanding = [c["outstanding"] for c in configs]
    if all(v is not None for v in outstanding):
        out["outstanding"] = min(sum(outstanding), INT64_MAX)
    return _with_values(out)


def _per_direction(value: str | None, default: str | None) -> dict[str, str]:
    """fio's 'read,write,trim' option values: one value is all; an empty one is the default;
    missing trailing ones repeat the last."""
    if value is None:
        return {}
    if "," not in value:
        value = value or default
        return dict.fromkeys(DDIR_INDEX, value) if value else {}
    parts = [p.strip() for p in value.split(",")]
    out = {}
    for direction, i in DDIR_INDEX.items():
        part = parts[0] if len(parts) == 1 else (parts[i] if i < len(parts) else parts[-1])
        part = part or default
        if part:
            out[direction] = part
    return out


def _same_for_total(values: dict) -> None:
    # The 'mixed' (total) block gets a value only when the directions agree.
    distinct = set(values.values())
    if len(distinct) == 1 and len(values) == len(DDIR_INDEX):
        values["total"] = distinct.pop()


@lru_cache(maxsize=256)
def _size_bytes(text: str, kb_base: int) -> float:
    """fio size '4k', '64K', '1m', '4096', '8KiB' -> bytes (k = 1024 unless kb_base=1000)."""
    match = _SIZE.match(text)
    if not match:
        return _NAN
    number, prefix, binary = match.groups()
    power = "kmgtpe".find(prefix.lower()) + 1 if prefix else 0
    base = 1024 if binary else kb_base
    try:
        return float(number) * base**power
    except OverflowError:  # pragma: no cover - at most 1024**6
        return _NAN


def _first(value: str | None) -> str | None:
    return value.split(",")[0] if value else value


def _flag(value: str | None) -> bool:
    # fio prints boolean options as '1' or '' (set without a value).
    return value is not None and value.strip().lower() not in ("0", "false", "no", "off")


def host_key(hostname: object, port: object) -> tuple[str, str]:
    return text(hostname), text(port)
