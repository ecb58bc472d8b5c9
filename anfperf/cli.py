"""The ``anfperf`` command: a thin layer over the library."""

from __future__ import annotations

import argparse
import enum
import logging
import math
import os
import signal
import sys
from collections.abc import Callable, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import asdict
from typing import Any

from anfperf import __version__
from anfperf.errors import AnfperfError, WorkloadError


class ExitCode(enum.IntEnum):
    """The exit statuses of ``anfperf``, for scripts and CI gates: the one place they are
    defined (the README's table and ``anfperf --help`` show :data:`EXIT_MEANINGS`)."""

    OK = 0
    PARTIAL = 1
    ERROR = 2
    INTERNAL = 3
    INTERRUPTED = 130


#: What each exit status means, in the words of the README and ``anfperf --help``.
EXIT_MEANINGS = {
    ExitCode.OK: "done: everything asked for",
    ExitCode.PARTIAL: "done in part: files skipped, hosts or reports failed, damaged store parts "
    "left out, preflight problems; what was done is kept and said",
    ExitCode.ERROR: "usage or input error: a bad option or value, a file or path anfperf cannot "
    "use, no plan meeting the target; one line 'anfperf: error: ...' says what",
    ExitCode.INTERNAL: "an unexpected error, a bug in anfperf: its traceback is printed",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C, SIGTERM); what was collected is kept",
}


def _exit_status_help() -> str:
    """The epilog of ``anfperf --help``: every exit status and its meaning."""
    from anfperf import wrapping

    lines = ["exit status:"]
    for code, meaning in EXIT_MEANINGS.items():
        lines.append(wrapping.fill(f"{int(code):<4} {meaning}", 78, initial_indent="  ",
                                   subsequent_indent=" " * 7))  # fmt: skip
    return "\n".join(lines)


#: The ranges of the options that take a count, a duration or a size (both ends included, but
#: a size's 0): beyond them a value is a typo (a digit too many), and would overflow what it
#: feeds (the open-files limit, a timer, a buffer) or run for ever.
#: run --parallel: 4 open files a host at once, under the open-files limit.
PARALLEL_HOSTS = (1, 4096)
#: report --jobs: report processes at once, each with its kernel.
REPORT_JOBS = (1, 256)
#: demo --point-s: measured seconds per load point (an hour at most).
POINT_S = (1, 3600)
#: demo --file-size-mib: each data file on the local disk (64 GiB at most).
DEMO_FILE_MIB = (1, 65536)
#: ingest / runs --max-rows: rows printed (0: the totals line alone).
MAX_ROWS = (0, 10**9)
#: ingest --max-file-mib: the largest file read whole into memory (1 TiB), above 0.
MAX_FILE_MIB = (0, 2**20)
#: plan --capacity-tib: what the volume must hold (1 EiB: far above every ANF volume's maximum,
#: so that too large a capacity is the planner's "above the maximum", never an overflow).
CAPACITY_TIB = (0, 2**20)


def _shown(bound: float) -> str:
    """A range's end as people write it: 4096, 0.5, 1e+10."""
    return str(int(bound)) if float(bound).is_integer() and abs(bound) < 1e9 else f"{bound:g}"


def _whole(text: str) -> float:
    """`text` as a whole number (``8``, ``1e3``, ``8.0``), NaN when it is not one."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return int(value) if value.is_integer() else math.nan  # (inf, nan: not whole)


def _number_in(
    bounds: Callable[[], tuple[float, float]] | tuple[float, float],
    *,
    whole: bool = False,
    above: bool = False,
) -> Callable[[str], float]:
    """argparse type: a number within ``bounds`` (both included; `above`: the low end
    excluded), so that an error names the option, the range and the value as typed. `bounds`
    may be a function, called when a value is given: the library's ranges (pandas behind them)
    are not loaded for ``anfperf --version``."""

    def parse(text: str) -> float:
        low, high = bounds() if callable(bounds) else bounds
        if whole:
            value = _whole(text)
        else:
            try:
                value = float(text)
            except ValueError:
                value = math.nan
        if not (low < value if above else low <= value) or not value <= high:
            kind = "a whole number" if whole else "a number"
            if not above:
                wanted = f"{kind} within {_shown(low)} .. {_shown(high)}"
            elif low == 0:  # a size
                wanted = f"a positive {kind[2:]} up to {_shown(high)}"
            else:
                wanted = f"{kind} above {_shown(low)} up to {_shown(high)}"
            raise argparse.ArgumentTypeError(f"not {wanted}: {text!r}")
        return value

    return parse


def _plausible(name: str) -> Callable[[], tuple[float, float]]:
    """The planner's plausible range of its input `name` (:data:`anfperf.models.limits.plan.PLAUSIBLE`)."""

    def bounds() -> tuple[float, float]:
        from anfperf.models.limits.plan import PLAUSIBLE

        return PLAUSIBLE[name]

    return bounds


def _nconnect_range() -> tuple[float, float]:
    from anfperf.models import nfs_client_value

    return 1, nfs_client_value("nconnect_max")


class _ToolChoices(SequenceABC):
    """The registered tools (:mod:`anfperf.tools`) as argparse choices, looked up when argparse
    first needs them: the tools load the workload spec and YAML, which ``anfperf --version`` must
    not wait for (argparse reads choices given to add_argument at once, hence set after).
    """

    def __init__(self, *, runnable: bool = False, extra: Sequence[str] = ()):
        self.runnable = runnable
        self.extra = tuple(extra)

    def _names(self) -> tuple[str, ...]:
        from anfperf.tools import tool_names

        return (*tool_names(runnable=self.runnable), *self.extra)

    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that may add its last arguments when it is first used (to parse,
    or for its help or usage) rather than when it is built: ``anfperf workloads`` offers the
    registered tools' own options, and loading the tools waits until that command runs, as for
    :class:`_ToolChoices`.
    """

    #: What adds the arguments still to come (None: each is added at once).
    _later: list[Callable[[], object]] | None = None

    def later(self, add: Callable[[argparse.ArgumentParser], None]) -> None:
        """Call `add(self)` on first use; arguments added after this call follow its own."""
        self._later = [lambda: add(self)]

    def add_argument(self, *args: Any, **kwargs: Any) -> Any:
        if self._later is None:
            return super().add_argument(*args, **kwargs)
        self._later.append(lambda: super(_CommandParser, self).add_argument(*args, **kwargs))
        return None

    def _complete(self) -> None:
        later, self._later = self._later, None
        for add in later or ():
            add()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._complete()
        return super().format_help()

    def format_usage(self) -> str:
        self._complete()
        return super().format_usage()


def _print_json(data: object) -> None:
    """`data` as standard JSON on stdout, alone there (progress and warnings go to stderr)."""
    import json

    from anfperf.jsonable import jsonable

    print(json.dumps(jsonable(data), indent=2, allow_nan=False))


def _ingest(args: argparse.Namespace) -> int:
    from pathlib import Path

    import pandas as pd

    from anfperf.analysis.summary import format_table, summary_table
    from anfperf.errors import ParseError
    from anfperf.folders import output_folder
    from anfperf.ingest import Skipped, read_all
    from anfperf.schema import conform
    from anfperf.store import is_store, load_store
    from anfperf.userfiles import special_file_reason

    if args.out:  # before reading what may be thousands of files: a file's folder, or the store
        out = Path(args.out)
        output_folder(out.parent if out.suffix else out, what="the frame", make=False)
    stores = [path for path in args.paths if is_store(path)]
    raw = [path for path in args.paths if path not in stores]
    for path in raw:  # named: refused (exit 2); met in a folder: skipped with a warning
        if (reason := special_file_reason(path)) is not None:
            raise ParseError(path, reason)
    frame, skipped, notes = read_all(raw, run_id=args.run_id, max_mib=args.max_file_mib)
    if stores:  # read back whole: saved again, a store is rewritten in this version's types
        damaged: list = []  # a damaged part file leaves its run out, named
        frames = [frame, *(load_store(store, damaged=damaged) for store in stores)]
        frames = [f.assign(run_id=args.run_id) if args.run_id else f for f in frames if len(f)]
        frame = conform(pd.concat(frames, ignore_index=True)) if frames else frame
        skipped += [Skipped(part.path, part.left_out) for part in damaged]
    for note in notes:
        print(f"anfperf: warning: {note}", file=sys.stderr)
    for item in skipped:
        print(f"anfperf: warning: skipped {item}", file=sys.stderr)
    said = {  # --json: what the text says, with units in the keys
        "paths": args.paths, "rows": len(frame), "files": 0, "runs": [], "job_steps": 0,
        "summary": [], "skipped": [{"path": i.path, "line": i.line, "reason": i.reason}
                                   for i in skipped],
        "warnings": list(notes), "out": None,
    }  # fmt: skip
    if frame.empty:
        print("anfperf: no results found in " + " ".join(args.paths), file=sys.stderr)
        if args.json:
            _print_json(said)
        return ExitCode.PARTIAL
    table = summary_table(frame)
    said.update(files=frame["source_file"].nunique(), runs=sorted(frame["run_id"].unique()),
                job_steps=len(table), summary=table)  # fmt: skip
    if not args.json:
        if table.empty:
            print("no whole-run rows (interval rows only): no summary to show")
        elif text := format_table(table, max_rows=args.max_rows):
            print(text)
        print(f"\n{len(frame)} rows from {said['files']} files, {len(said['runs'])} runs, "
              f"{len(table)} job steps")  # fmt: skip
    status = ExitCode.PARTIAL if skipped else ExitCode.OK
    if args.out:
        said["out"] = _save(frame, args.out, said["runs"], quiet=args.json)
        if said["out"]["error"] is not None:
            status = ExitCode.PARTIAL
        # the store written into: its damaged parts (not named above already) leave runs out
        named = {item.path for item in skipped}
        for part in said["out"]["damaged_parts"]:
            if part.path not in named:
                print(f"anfperf: warning: {part}", file=sys.stderr)
                status = ExitCode.PARTIAL
        said["out"]["damaged_parts"] = [asdict(p) for p in said["out"]["damaged_parts"]]
    if args.json:
        _print_json(said)
    return status


def _save(frame, out: str, runs: list[str], *, quiet: bool) -> dict:
    """Save an ingested frame; what was saved: path, runs saved and not, the error if any, and
    the store's damaged part files (:func:`anfperf.store.check_parts`, a store folder only)."""
    from anfperf.errors import StoreWriteError
    from anfperf.store import check_parts, is_store, save_frame

    try:
        path = save_frame(frame, out)
    except StoreWriteError as exc:
        if not exc.saved:
            raise
        # some runs are in the store, whole: say which, and which to ingest again
        print(f"anfperf: error: {exc}", file=sys.stderr)
        print(f"  saved: {', '.join(map(repr, exc.saved))}", file=sys.stderr)
        print(f"  not saved: {', '.join(map(repr, exc.unsaved))}", file=sys.stderr)
        return {"path": exc.store, "runs_saved": exc.saved, "runs_not_saved": exc.unsaved,
                "error": str(exc), "damaged_parts": check_parts(exc.store).damaged}  # fmt: skip
    if not quiet:
        print(f"saved to {path}")
    # the runs saved read whole; the store's other runs may not
    damaged = check_parts(path).damaged if is_store(path) else []
    return {"path": path, "runs_saved": runs, "runs_not_saved": [], "error": None,
            "damaged_parts": damaged}  # fmt: skip


def _demo(args: argparse.Namespace) -> int:
    from anfperf.demo import run_demo

    # a kill (not only Ctrl-C) still removes the demo's temporary files
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    def say(phase: str) -> None:  # where the demo is, also in a log or a pipe
        print(phase, file=sys.stderr, flush=True)

    result = run_demo(
        args.out, measure_here=not args.no_measure, directory=args.dir, point_s=args.point_s,
        file_size_mib=args.file_size_mib, progress=sys.stderr.isatty(), on_phase=say,
    )  # fmt: skip
    if args.json:
        _print_json({
            "report": result.report, "store": result.store, "run_dirs": result.run_dirs,
            "headline": result.headline, "runs": result.numbers,
        })  # fmt: skip
        return ExitCode.OK
    print("\n".join(result.headline))
    print(f"store: {result.store}")
    print(f"report: {result.report}")
    return ExitCode.OK


def _runs(args: argparse.Namespace) -> int:
    from anfperf.analysis.summary import format_table
    from anfperf.store import list_runs

    damaged: list = []  # damaged part files: their runs are left out
    runs = list_runs(args.store, damaged=damaged)
    for part in damaged:
        print(f"anfperf: warning: {part}", file=sys.stderr)
    status = ExitCode.PARTIAL if damaged else ExitCode.OK
    if args.json:
        listed = runs.rename(columns={"start": "start_utc", "end": "end_utc"})
        _print_json({"store": args.store, "runs": listed, "rows": int(runs["rows"].sum()),
                     "warnings": [str(part) for part in damaged],
                     "damaged_parts": [asdict(part) for part in damaged]})  # fmt: skip
        return status
    for col in ("start", "end"):
        runs[col] = runs[col].dt.strftime("%Y-%m-%d %H:%M:%S")
    if text := format_table(runs, max_rows=args.max_rows):
        print(text + "\n")
    print(f"{len(runs)} runs, {int(runs['rows'].sum())} rows in {args.store}")
    return status


def _workloads(args: argparse.Namespace) -> int:
    import shlex

    from anfperf.tools import render_files, tool_options, write_files
    from anfperf.workloads import CATALOGUE, catalogue_table, get_workload, load_workloads

    extra = {w.name: w for path in args.file for w in load_workloads(path)}
    if args.names:
        chosen = [get_workload(name, extra) for name in args.names]
    else:
        chosen = list({**CATALOGUE, **extra}.values())
    if not args.names and not args.out and args.tool is None:
        table = catalogue_table(chosen)
        rows = [list(table.columns), *table.astype(str).to_numpy().tolist()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            print("  ".join(v.ljust(n) for v, n in zip(row, widths, strict=True)).rstrip())
        print(f"\n{len(chosen)} workloads; render with --tool vdbench|fio|diskspd [--out DIR]")
        return ExitCode.OK
    _check_mount_points(args.volume or [], args.tool or "vdbench")
    files, errors = render_files(
        chosen, args.tool or "vdbench", args.volume or ["/mnt/vdb1"], args.host or [],
        max_iops=args.max_iops, **{o.name: getattr(args, o.name) for o in tool_options()},
    )  # fmt: skip
    if errors and args.names:  # asked for by name: its failure is the answer
        raise next(iter(errors.values()))
    for name, exc in errors.items():
        print(f"anfperf: skipped {name}: {exc.reason}", file=sys.stderr)
    if args.out:
        for path in write_files(files, args.out):
            print(f"wrote {shlex.quote(str(path))}")
    else:
        for name, text in files.items():
            if len(files) > 1:
                print(f"# ---- {name}")
            print(text, end="")
    return ExitCode.PARTIAL if errors else ExitCode.OK


def _check_mount_points(volumes: Sequence[str], tool: str) -> None:
    """``--volume`` checked once, naming the option, before any workload is rendered: paths of
    safe characters (else every workload was skipped with the same sentence, exit 1), and for
    a tool ``anfperf run`` launches, absolute mount points as run takes them (a relative one
    would land in whatever folder the tool starts in)."""
    from anfperf.runner.inventory_fields import check_volumes
    from anfperf.tools import tool_names
    from anfperf.workloads.spec import check_path

    runnable = tool in tool_names(runnable=True)  # DiskSpd takes drives (T:); yaml, no volume
    for mount in volumes:
        try:
            check_path(mount, "--volume", windows=not runnable)
        except WorkloadError as exc:
            raise AnfperfError(f"--volume: {exc.reason}") from None
        if not runnable:
            continue
        try:
            check_volumes([mount])
        except ValueError:
            raise AnfperfError(
                f"--volume {mount!r}: not an absolute path (the mount point on the clients, "
                "e.g. /mnt/vdb1, as anfperf run takes it)"
            ) from None


def _plan(args: argparse.Namespace) -> int:
    from anfperf.analysis.sweep import load_sweep
    from anfperf.errors import ModelError
    from anfperf.models import nfs_client_value
    from anfperf.models.limits.plan import checked_prices
    from anfperf.models.limits.prices import per_month, retail_prices
    from anfperf.models.limits.quota import PLANNED_LEVELS
    from anfperf.planning import PlanInputs, explain_plan
    from anfperf.planning.threads import plan_on_sweep, sweep_curve

    if bool(args.prices) != bool(args.region):
        raise ModelError("--prices FILE and --region REGION go together (the region's "
                         "armRegionName, e.g. eastus)")  # fmt: skip
    retail = retail_prices(args.prices, args.region) if args.prices else None
    prices = {}
    for item in args.price or []:
        level, sep, value = item.partition("=")
        try:
            prices[level.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ModelError(f"--price wants LEVEL=USD_PER_GIB_HOUR, got {item!r}")
    nconnect = args.nconnect
    if nconnect is None:  # read here, not at parser time: `anfperf --version` loads no tables
        nconnect = int(nfs_client_value("nconnect_recommended"))
    whatif = checked_prices(prices) or {}
    # --price LEVEL=USD are what-ifs over the file's prices
    plan_prices = {**(retail.plan_prices() if retail else {}), **whatif}
    if args.volume is not None:
        return _plan_volume(args, nconnect, plan_prices or None, whatif, retail)
    for option, given in (("--volume-name", args.volume_name), ("--volume-pool", args.volume_pool)):
        if given is not None:
            raise ModelError(f"{option} goes with --volume FILE (which volume, and its pool)")
    if args.bw_mib_s is None and args.iops is None:
        raise ModelError("anfperf plan needs a target (--bw-mib-s or --iops) or --volume FILE")
    levels = args.level or PLANNED_LEVELS
    sweep = None
    if args.sweep:
        sweep = sweep_curve(*load_sweep(args.sweep))
    result, threads_basis = plan_on_sweep(
        sweep,
        bs_kib=args.bs_kib,
        bw_mib_s=args.bw_mib_s,
        iops=args.iops,
        read_pct=args.read_pct,
        lat_slo_ms=args.lat_slo_ms,
        lat_ms=args.lat_ms,
        capacity_tib=args.capacity_tib,
        pattern=args.pattern,
        levels=levels,
        vm_sizes=args.vm_size,
        prices=plan_prices or None,
        rule=args.rule,
        nconnect=nconnect,
        nfs_version=args.nfs_version,
        vm_prices=retail.vm_prices() if retail else None,
    )
    # the notebook's view of the plan: what to buy, what binds, the options, in its words
    asked = PlanInputs(
        target_mib_s=args.bw_mib_s, target_iops=args.iops, bs_kib=args.bs_kib,
        read_pct=args.read_pct, lat_slo_ms=args.lat_slo_ms, levels=tuple(levels),
        vm_size=args.vm_size[0] if args.vm_size and len(args.vm_size) == 1 else None,
        nconnect=nconnect, capacity_tib=args.capacity_tib, retail=retail,
        prices_usd_per_tib_month=per_month(whatif) or None,
    )  # fmt: skip
    view = explain_plan(asked, result, pattern=args.pattern, rule=args.rule,
                        nfs_version=args.nfs_version, threads_basis=threads_basis)  # fmt: skip
    if args.json:
        _print_json(view.as_dict())
        return ExitCode.OK
    print(view.text(all_options=args.all_options))
    if not args.all_options:
        print("\n(--all: the reasoning, every limit of the plan, and why each option is or is "
              "not feasible)")  # fmt: skip
    return ExitCode.OK


def _plan_volume(
    args: argparse.Namespace, nconnect: int, prices: dict | None, given: dict, retail
) -> int:
    """``anfperf plan --volume FILE``: what that volume would do, and the clients it needs."""
    from anfperf.azure import read_volume
    from anfperf.errors import collected_warnings
    from anfperf.planning.volume import plan_volume

    with collected_warnings():  # what does not add up is in the volume's notes, printed below
        volume = read_volume(args.volume, name=args.volume_name, pool_path=args.volume_pool)
    answer = plan_volume(
        volume, bs_kib=args.bs_kib, read_pct=args.read_pct, bw_mib_s=args.bw_mib_s,
        iops=args.iops, pattern=args.pattern, vm_sizes=args.vm_size, lat_ms=args.lat_ms,
        lat_slo_ms=args.lat_slo_ms, rule=args.rule, nconnect=nconnect,
        nfs_version=args.nfs_version, prices=prices, prices_given=list(given),
        price_notes=retail.notes if retail else (),
        prices_region=retail.region if retail else None,
    )  # fmt: skip
    if args.json:
        _print_json(answer.as_dict())
    else:
        print(answer.text())
    return ExitCode.OK


def _add_plan_parser(sub: argparse._SubParsersAction) -> None:
    planner = sub.add_parser(
        "plan",
        help="service level, quota, client VMs and threads for a throughput target",
        description="From a target (MiB/s or IOPS at a block size, read %, latency SLO) to what "
        "to buy: the cheapest service level and quota (with its monthly cost when --prices "
        "FILE --region R or --price is given), the client VMs and their size, the threads per VM and what binds; then the "
        "options considered (--all: with the reasoning and why each option is or is not "
        "feasible; --json: all of it for scripts). With --volume FILE: what that volume would "
        "do (its limit, what binds, the clients it needs).",
    )
    # a target, or --volume alone (then the target is all the volume allows)
    target = planner.add_mutually_exclusive_group()
    target.add_argument("--bw-mib-s", type=_number_in(_plausible("bw_mib_s")),
                        metavar="MIB_S", help="target throughput [MiB/s]")  # fmt: skip
    target.add_argument("--iops", type=_number_in(_plausible("iops")), metavar="IOPS",
                        help="target I/O rate [1/s]")  # fmt: skip
    planner.add_argument("--bs-kib", type=_number_in(_plausible("bs_kib")), required=True,
                         metavar="KIB", help="block size [KiB]")  # fmt: skip
    planner.add_argument("--read-pct", type=_number_in(lambda: (0, 100)), default=100.0,
                         metavar="PCT", help="read share [%%] (default 100)")  # fmt: skip
    planner.add_argument("--lat-slo-ms", type=_number_in(_plausible("lat_slo_ms")),
                         metavar="MS", help="latency objective [ms]")  # fmt: skip
    planner.add_argument("--lat-ms", type=_number_in(_plausible("lat_ms")), metavar="MS",
                         help="latency expected at the target [ms]")  # fmt: skip
    planner.add_argument(
        "--sweep", action="append", metavar="PATH", help="raw outputs of a concurrency sweep "
        "of the system (repeat for more): threads per VM from its fitted curve at the target "
        "instead of Little's law at the SLO",
    )  # fmt: skip
    planner.add_argument(
        "--capacity-tib", type=_number_in(CAPACITY_TIB), default=0.0, metavar="TIB",
        help="capacity the volume must hold [TiB]",
    )  # fmt: skip
    planner.add_argument("--pattern", choices=["sequential", "random"], help="access pattern")
    planner.add_argument(
        "--level", action="append", help="service level to consider (repeat; default: all)"
    )
    planner.add_argument(
        "--vm-size", action="append", help="client VM size to consider (repeat; default: all)"
    )
    planner.add_argument(
        "--price",
        action="append",
        metavar="LEVEL=USD",
        help="price per GiB-hour of a level, or 'Flexible throughput=USD' per MiB/s-hour "
        "(repeat); ranks by monthly cost instead of quota; with --prices, a what-if over "
        "the file's price of that level",
    )
    planner.add_argument(
        "--prices",
        action="append",
        metavar="FILE",
        help="a file saved from the Azure Retail Prices API (pages of Items, one after the "
        "other or a list; repeat for more files): ranks by the monthly cost of the capacity "
        "pool plus the client VMs at the list prices of --region",
    )
    planner.add_argument("--region", metavar="REGION",
                         help="the prices' region (armRegionName, e.g. eastus)")  # fmt: skip
    planner.add_argument(
        "--volume", metavar="FILE", help="what this volume would do: az netappfiles volume "
        "show/list or ARM JSON of it (its level, quota, limit; a target is then optional)",
    )  # fmt: skip
    planner.add_argument("--volume-name", metavar="NAME",
                         help="which volume of --volume's file, when it holds several")  # fmt: skip
    planner.add_argument("--volume-pool", metavar="FILE",
                         help="its capacity pool (az netappfiles pool show/list or ARM JSON), "
                              "when --volume's file does not hold it: its QoS type")  # fmt: skip
    planner.add_argument("--rule", default="current", help="volume-limit rules (default current)")
    planner.add_argument(
        "--nconnect", type=_number_in(_nconnect_range, whole=True), metavar="N",
        help="NFS connections per mount (default: the recommended value of the NFS client table, 8)",
    )  # fmt: skip
    planner.add_argument("--nfs-version", default="3", choices=["3", "4.1"])
    planner.add_argument(
        "--all",
        dest="all_options",
        action="store_true",
        help="also print the reasoning, every limit of the plan and why each option is or is "
        "not feasible",
    )
    _add_json_argument(planner, "the plan, its reasoning and every option")
    planner.set_defaults(func=_plan)


def _inventory(args: argparse.Namespace):
    """The hosts of --hosts (YAML file, or names from ~/.ssh/config), else this machine."""
    import os
    from dataclasses import replace

    from anfperf.runner import load_inventory, local_inventory

    if not args.hosts:
        return local_inventory(args.volume or None)
    if os.path.exists(args.hosts) or args.hosts.endswith((".yml", ".yaml")):
        inventory = load_inventory(args.hosts)
    else:
        inventory = load_inventory(hosts=[h for h in args.hosts.split(",") if h])
    if args.volume:  # the same mount points on every host
        volumes = {os.path.basename(v.rstrip("/")) or v: v for v in args.volume}
        inventory = replace(
            inventory, hosts=tuple(replace(h, volumes=volumes) for h in inventory.hosts)
        )
    if args.trust_on_first_use:
        inventory = replace(inventory, trust_on_first_use=True)
    return inventory


def _preflight(args: argparse.Namespace) -> int:
    from anfperf.runner import close_all, format_reports, preflight_inventory

    inventory = _inventory(args)
    conns = inventory.connect()
    try:
        reports = preflight_inventory(inventory, conns, tool=args.tool)
    finally:
        close_all(conns)
    print(format_reports(reports))
    bad = [name for name, r in reports.items() if not r.ok]
    print(f"\n{len(reports) - len(bad)} of {len(reports)} hosts ready" + (
        f"; problems on {', '.join(bad)}" if bad else ""))  # fmt: skip
    return ExitCode.PARTIAL if bad else ExitCode.OK


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from anfperf.errors import RemoteError
    from anfperf.runner import format_reports
    from anfperf.runner.progress import format_duration
    from anfperf.runner.workflow import resume_workloads, run_workloads

    if args.resume and (args.workloads or args.set or args.file or args.run_id):
        print("anfperf: --resume runs the recorded run as it was planned: no workloads, "
              "--set, --file or --run-id with it", file=sys.stderr)  # fmt: skip
        return ExitCode.ERROR
    if not args.resume and not args.workloads:
        print("anfperf: name the workloads to run (see `anfperf workloads`)", file=sys.stderr)
        return ExitCode.ERROR
    if args.dry_run:
        return _dry_run(args)
    started = []

    def on_preflight(plan, reports) -> None:
        print(format_reports(reports))

    def on_start(plan) -> None:
        started.append(plan.run_id)
        print(f"\nrun {plan.run_id}: {len(plan.steps)} workloads on {len(plan.hosts)} hosts, "
              f"about {format_duration(plan.duration_s)} of workload time")  # fmt: skip

    progress = not args.no_progress and sys.stderr.isatty()
    common = {
        "force": args.force, "on_preflight": on_preflight, "on_start": on_start,
        "progress": progress, "retry_unreachable": args.retry_unreachable,
    }  # fmt: skip
    if not progress:  # the bar shows the live line and writes alarms above itself
        common["on_live_line"] = lambda line: print(line, flush=True)
        common["on_alarm"] = lambda a: print(f"anfperf: alarm: {a.text}", file=sys.stderr,
                                             flush=True)  # fmt: skip
    if args.parallel:
        common["max_parallel_hosts"] = args.parallel
    inventory = _inventory(args)
    try:
        if args.resume:
            manifest = resume_workloads(args.resume, inventory, args.out, **common)
        else:
            manifest = run_workloads(
                args.workloads, inventory, args.out, files=args.file, changes=args.set or [],
                tool=args.tool, run_id=args.run_id, max_iops=args.max_iops, **_plan_args(args),
                **common,
            )  # fmt: skip
    except RemoteError as exc:
        print(f"\nanfperf: {exc} (or --force)", file=sys.stderr)
        return ExitCode.PARTIAL
    except KeyboardInterrupt:
        if started:
            (run_id,) = started
            print(f"anfperf: stopped; what was collected is in {Path(args.out) / run_id}; "
                  f"continue with: anfperf run --resume {run_id} ...", file=sys.stderr)  # fmt: skip
        raise
    from anfperf.runner.sweeps import sweep_lines

    for line in sweep_lines(manifest.data):  # why each adaptive step ran
        print(line)
    for step, host, status, reason in manifest.failures():
        print(f"{step} on {host}: {status}: {reason}", file=sys.stderr)
    print(f"{manifest.status}: raw outputs and manifest.json in {manifest.run_dir}")
    if manifest.status != "complete":
        print(f"re-run what is missing with: anfperf run --resume {manifest.run_id} ...")
    return ExitCode.OK if manifest.status == "complete" else ExitCode.PARTIAL


def _plan_args(args: argparse.Namespace) -> dict:
    """`anfperf run`'s adaptive and live options as :func:`anfperf.runner.plan_run`'s."""
    return {
        "adaptive_ms": args.adaptive, "slo_ms": args.slo_ms,
        "live_interval_s": None if args.no_live else args.live_interval,
    }  # fmt: skip


def _dry_run(args: argparse.Namespace) -> int:
    from anfperf.runner.dryrun import dry_run, format_dry_run
    from anfperf.runner.manifest import Manifest
    from anfperf.runner.steps import plan_from_manifest
    from anfperf.runner.workflow import checked_run_id, plan_run

    inventory = _inventory(args)
    if args.resume:
        from pathlib import Path

        data = Manifest.load(Path(args.out) / checked_run_id(args.resume)).data
        plan = plan_from_manifest(data, inventory)
    else:
        plan = plan_run(
            args.workloads, inventory, files=args.file, changes=args.set or [], tool=args.tool,
            run_id=args.run_id, max_iops=args.max_iops, **_plan_args(args),
        )  # fmt: skip
    print(format_dry_run(dry_run(plan, inventory.select(plan.hosts))))
    return ExitCode.OK


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from anfperf.report import (
        ReportError,
        merge_parameters,
        parse_value,
        read_parameters,
        render_reports,
        report_notebook,
        resolve_path_parameters,
    )
    from anfperf.report._params import check_utf8_values

    given = {name: parse_value(value, name) for name, value in args.parameter or []}
    notebook = report_notebook(args.notebook)  # a report's name, or a path
    stem = notebook.stem
    if args.file:  # one report per file; -p values apply to each
        sets = [merge_parameters(read_parameters(f), given) for f in args.file]
        names = [f"{stem}-{Path(f).stem}" for f in args.file]
    else:
        sets, names = [given], [stem]
    if notebook.is_file():  # else the report says "no such notebook"
        try:  # every input of every report is there, before any kernel starts
            sets = [resolve_path_parameters(notebook, s) for s in sets]
            for s in sets:  # (what -f files give: -p values are checked as they are parsed)
                check_utf8_values(notebook, s)
        except ReportError as exc:
            print(f"anfperf: error: report {args.notebook}: {exc.reason}", file=sys.stderr)
            return 2
    bar = len(sets) > 1 and sys.stderr.isatty()

    def said(k: int, n: int, r) -> None:  # a batch in a log or a pipe: a line per report
        state = f"done in {r.duration_s:.1f} s" if r.ok else "failed"
        print(f"report {k}/{n} {state}: {r.name}", file=sys.stderr, flush=True)

    results = render_reports(
        notebook, sets, names=names, out_dir=args.out, show_code=args.show_code,
        cwd=args.cwd, processes=args.jobs, progress=bar,
        on_done=said if len(sets) > 1 and not bar else None,
    )  # fmt: skip
    for r in results:
        if r.ok:
            if not args.json:
                print(f"wrote {r.html} ({r.duration_s:.1f} s)")
            continue
        print(f"anfperf: report {r.name} failed: {r.error}", file=sys.stderr)
        if r.error.html:
            print(f"anfperf: partial report: {r.error.html}", file=sys.stderr)
    if args.json:
        _print_json({"reports": [_report_json(r) for r in results]})
    return ExitCode.OK if all(r.ok for r in results) else ExitCode.PARTIAL


def _report_json(result) -> dict:
    """One report for ``anfperf report --json``: its files, what it was given, its headline
    (read back from the executed notebook: what the page showed first)."""
    from anfperf.report.page import read_headline

    headline = None
    if result.ipynb is not None and result.ipynb.exists():
        headline = read_headline(result.ipynb)
    return {
        "name": result.name, "ok": result.ok, "html": result.html, "ipynb": result.ipynb,
        "notebook": result.notebook, "duration_s": result.duration_s,
        "error": None if result.error is None else str(result.error),
        "parameters": result.parameters, "inputs": result.inputs, "headline": headline,
    }  # fmt: skip


def _add_report_parser(sub: argparse._SubParsersAction) -> None:
    from anfperf._bundled import REPORTS

    rep = sub.add_parser(
        "report",
        help="run a parameterized notebook into a self-contained HTML report",
        description="Run a report's notebook with papermill and write the executed notebook "
        "and one HTML file to --out: plotly.js inside (works offline), code hidden unless "
        "--show-code, the anfperf version, parameters and SHA-256 of every input file at the "
        "top. Several -f files make one report each, in parallel. Exit status 2 when an input "
        "is missing (before any kernel starts), 1 when a report fails (its partial notebook "
        "and HTML are kept).",
    )
    rep.add_argument(
        "notebook",
        metavar="REPORT",
        help=f"a report by name ({', '.join(REPORTS)}: the notebooks anfperf carries) or a "
        "path to a notebook",
    )
    rep.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        metavar=("NAME", "VALUE"),
        help="a parameter; VALUE is parsed as YAML (8, 0.5, [a, b], null); the paths of path "
        "parameters are relative to the current folder (repeatable)",
    )
    rep.add_argument(
        "-f",
        "--file",
        action="append",
        metavar="YAML",
        help="parameters from a YAML mapping; several files make one report each (repeatable)",
    )
    rep.add_argument("--out", default="reports", metavar="DIR", help="default reports/")
    rep.add_argument("--show-code", action="store_true", help="show the code cells")
    rep.add_argument("--jobs", type=_number_in(REPORT_JOBS, whole=True), metavar="N",
                     help="reports at once (default: CPUs)")  # fmt: skip
    rep.add_argument(
        "--cwd", metavar="DIR", help="folder the notebook runs in (default: its own folder)"
    )
    _add_json_argument(rep, "per report: its files, parameters, inputs and headline")
    rep.set_defaults(func=_report)


def _add_json_argument(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json", action="store_true",
        help=f"print {what} as JSON on stdout instead of text (progress and warnings stay on "
        "stderr)",
    )  # fmt: skip


def _add_hosts_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--hosts",
        metavar="INVENTORY",
        help="inventory YAML, or host names of ~/.ssh/config (vm1,vm2); default: this machine, "
        "without SSH",
    )
    p.add_argument(
        "--volume",
        action="append",
        metavar="PATH",
        help="mount point to use on every host (repeatable; overrides the inventory's volumes)",
    )
    p.add_argument(
        "--trust-on-first-use",
        action="store_true",
        help="accept and record the host keys of hosts not yet in known_hosts",
    )
    tool = p.add_argument("--tool", default="fio", help="benchmark tool (default fio)")
    tool.choices = _ToolChoices(runnable=True)  # set after add_argument: see _ToolChoices


def _add_ingest_parser(sub: argparse._SubParsersAction) -> None:
    """The ``ingest`` subcommand: read benchmark outputs, print the summary, save the frame."""
    ingest = sub.add_parser(
        "ingest",
        help="read fio / Vdbench / DiskSpd outputs, print a summary, save the tidy frame",
        description="Read benchmark outputs (files or folders, .gz too) into the tidy frame and "
        "print the headline table: one row per run x job step, hosts together. Unreadable files "
        "are reported and skipped; the rest is kept (exit status 1). A store (a folder written "
        "by --out) is read back whole: saved again, it is rewritten in this version's types.",
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument(
        "--out",
        metavar="FILE|DIR",
        help="save the frame: *.csv, *.parquet, or a folder = Parquet dataset partitioned by "
        "run_id that grows run by run",
    )
    ingest.add_argument("--run-id", help="run identifier for all rows (default: from the paths)")
    ingest.add_argument(
        "--max-rows", type=_number_in(MAX_ROWS, whole=True), metavar="N",
        help="summary rows shown at most (default: all; 0: the totals line alone)",
    )  # fmt: skip
    ingest.add_argument(
        "--max-file-mib", type=_number_in(MAX_FILE_MIB, above=True), metavar="MIB",
        help="largest file read, stored or decompressed (default: 256; a larger one is skipped "
        "with a warning)",
    )  # fmt: skip
    _add_json_argument(ingest, "the summary, the files skipped and what was saved")
    ingest.set_defaults(func=_ingest)


def _add_demo_parser(sub: argparse._SubParsersAction) -> None:
    """The ``demo`` subcommand: measure this machine with fio, model it and report."""
    demo = sub.add_parser(
        "demo",
        help="measure this machine with fio, model it and render a report (about 2 minutes)",
        description="A short real sweep with fio on a temporary folder of the local disk (4 KiB "
        "random reads at queue depth 1..64, an 8 KiB read/write mix in 10 % steps, 64 KiB "
        "sequential read and write), ingested into a store, modelled and reported. "
        "--no-measure reports the bundled real samples instead.",
    )
    demo.add_argument("--no-measure", action="store_true",
                      help="report the bundled samples (anfperf/samples); no fio, nothing written "
                      "but the report and its store")  # fmt: skip
    demo.add_argument(
        "--dir",
        metavar="DIR",
        help="folder to measure in (default: the "
        "system's temporary folder); a temporary folder inside it is removed after",
    )
    demo.add_argument(
        "--point-s",
        type=_number_in(POINT_S, whole=True),
        default=2,
        metavar="S",
        help="measured seconds per load point (default 2; 1 s warm-up each)",
    )
    demo.add_argument(
        "--file-size-mib",
        type=_number_in(DEMO_FILE_MIB, whole=True),
        default=64,
        metavar="MIB",
        help="size of each data file (default 64)",
    )
    demo.add_argument(
        "--out",
        default="reports/demo",
        metavar="DIR",
        help="where raw/, store/ and report.html go (default reports/demo)",
    )
    _add_json_argument(demo, "the paths made and each run's headline numbers")
    demo.set_defaults(func=_demo)


def _add_runs_parser(sub: argparse._SubParsersAction) -> None:
    """The ``runs`` subcommand: list the runs of a store."""
    runs = sub.add_parser(
        "runs",
        help="list the runs of a store: run id, tool, workloads, hosts, start, rows",
        description="List the runs of a Parquet store (anfperf ingest --out DIR) without "
        "loading their rows (DuckDB reads the store).",
    )
    runs.add_argument("store", metavar="STORE")
    runs.add_argument("--max-rows", type=_number_in(MAX_ROWS, whole=True), default=200,
                      metavar="N", help="rows shown at most (default 200; 0: the totals line "
                      "alone)")  # fmt: skip
    _add_json_argument(runs, "every run: run_id, tool, workloads, hosts, start_utc, end_utc, rows")
    runs.set_defaults(func=_runs)


def _add_preflight_parser(sub: argparse._SubParsersAction) -> None:
    """The ``preflight`` subcommand: check every host before a run."""
    pre = sub.add_parser(
        "preflight",
        help="check every host before a run: tools, NFS mounts and options, space, sysctls",
        description="Check every host of the inventory in parallel: fio / Vdbench / Java "
        "versions, kernel, CPUs, NFS mounts with their options, free space, TCP sysctls, Azure VM "
        "size. Problems are listed per host (exit status 1 when any).",
    )
    _add_hosts_arguments(pre)
    pre.set_defaults(func=_preflight)


def _add_run_parser(sub: argparse._SubParsersAction) -> None:
    """The ``run`` subcommand: run workloads on every host at once."""
    run = sub.add_parser(
        "run",
        help="run workloads on every host at once; raw outputs and manifest in data/raw/<run_id>",
        description="Preflight, then run each workload on every host with a synchronized start. "
        "Raw outputs and manifest.json land in OUT/<run_id>/<host>/, ready for `anfperf ingest`. "
        "Hosts that fail are recorded with the reason, the others' results kept; Ctrl-C stops the "
        "remote runs and keeps what was collected; --resume re-runs only what is missing.",
    )
    run.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="catalogue or --file names")
    _add_hosts_arguments(run)
    run.add_argument("--resume", metavar="RUN_ID", help="re-run what run RUN_ID is missing")
    run.add_argument(
        "--run-id", metavar="RUN_ID", help="name of the run (default: UTC time and workload)"
    )
    run.add_argument("--out", default="data/raw", metavar="DIR", help="default data/raw")
    run.add_argument(
        "--file", action="append", default=[], metavar="YAML", help="your own workloads (YAML)"
    )
    run.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="change a workload field for this run, e.g. --set duration_s=30 (repeatable)",
    )
    run.add_argument("--max-iops", type=_number_in(_plausible("iops")), metavar="IOPS",
                     help="maximum for fio load curves")  # fmt: skip
    run.add_argument(
        "--force",
        action="store_true",
        help="run despite preflight problems; hosts preflight could not reach are recorded "
        "as unreachable with its reason, not connected to again",
    )
    run.add_argument(
        "--retry-unreachable",
        action="store_true",
        help="with --force, connect again in the run to the hosts preflight could not reach "
        "(each costs its connect timeout twice)",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (hosts, workloads, files and space per volume, duration) and stop",
    )
    run.add_argument(
        "--adaptive", nargs="?", const=1.0, type=_number_in(_plausible("lat_ms")),
        metavar="MS", help="an adaptive sweep of each workload: anfperf chooses each next "
        "concurrency from what it measured (light load, heavy load, the MS latency "
        "crossing, past it, the knee), up to its highest (or --set max_outstanding=N), in at "
        "most half a dense sweep's steps (or --set max_steps=N); "
        "MS default 1",
    )  # fmt: skip
    run.add_argument("--slo-ms", type=_number_in(_plausible("lat_ms")), metavar="MS",
                     help="latency objective the live alarms judge by")  # fmt: skip
    run.add_argument(
        "--live-interval", type=_number_in((1, 3600)), default=5.0,
        metavar="S", help="live figures every S seconds from every host (default 5)",
    )  # fmt: skip
    run.add_argument("--no-live", action="store_true",
                     help="no live figures: the tools report at the end only")  # fmt: skip
    run.add_argument("--no-progress", action="store_true", help="no live progress bar")
    run.add_argument(
        "--parallel",
        type=_number_in(PARALLEL_HOSTS, whole=True),
        metavar="N",
        help="hosts that connect, or send their results, at once (default 32); all hosts "
        "still start each workload together",
    )
    run.set_defaults(func=_run)


def _add_tool_options(parser: argparse.ArgumentParser) -> None:
    """The registered tools' own render options (:func:`anfperf.tools.tool_options`)."""
    from anfperf.tools import tool_options

    for option in tool_options():
        parser.add_argument(
            option.flag, dest=option.name, metavar=option.metavar, type=option.type,
            help=option.help,
        )  # fmt: skip


def _add_workloads_parser(sub: argparse._SubParsersAction) -> None:
    """The ``workloads`` subcommand: list or render the catalogue's workloads."""
    wl = sub.add_parser(
        "workloads",
        help="list the built-in workloads, or render them for Vdbench, fio or DiskSpd",
        description="Without arguments: list the catalogue (the public Azure NetApp Files "
        "benchmark seeds). With names, --tool or --out: render Vdbench parameter files, fio job "
        "files or DiskSpd command lines (to stdout, or one file per workload in --out). DiskSpd's "
        "are rendered with -Rxml (the richer output); `anfperf ingest` reads DiskSpd's default "
        "text output too.",
    )
    wl.add_argument("names", nargs="*", metavar="NAME", help="workloads to render (default all)")
    tool = wl.add_argument(
        "--tool",
        help="what to render (default vdbench); yaml writes the specs, to edit and --file back",
    )
    tool.choices = _ToolChoices(extra=("yaml",))
    wl.add_argument("--out", metavar="DIR", help="write one file per workload into DIR")
    wl.add_argument(
        "--file",
        action="append",
        default=[],
        metavar="YAML",
        help="your own workloads (YAML); repeatable; they shadow catalogue names",
    )
    wl.add_argument(
        "--host",
        action="append",
        metavar="NAME",
        help="client host (repeatable): Vdbench hd= lines; one fio / DiskSpd file per host",
    )
    wl.add_argument(
        "--volume",
        action="append",
        metavar="PATH",
        help="mount point on the clients (repeatable; default /mnt/vdb1)",
    )
    wl.later(_add_tool_options)  # each tool's own (Vdbench's --user, ...), and what follows
    wl.add_argument(
        "--max-iops",
        type=_number_in(_plausible("iops")),
        metavar="IOPS",
        help="measured maximum over all hosts: turns a load curve into fio / DiskSpd rate steps",
    )
    wl.set_defaults(func=_workloads)


def build_parser() -> argparse.ArgumentParser:
    """The ``anfperf`` parser; subcommands are added in the order ``anfperf --help`` lists."""
    parser = argparse.ArgumentParser(
        prog="anfperf",
        description="Run, ingest, model and report storage benchmarks for Azure NetApp Files.",
        epilog=_exit_status_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the epilog is a table
    )
    parser.add_argument("--version", action="version", version=f"anfperf {__version__}")
    verbose = "log what anfperf does (on run: every host's events) to stderr"
    parser.add_argument("-v", "--verbose", action="store_true", help=verbose)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)
    _add_ingest_parser(sub)
    _add_demo_parser(sub)
    _add_runs_parser(sub)
    _add_preflight_parser(sub)
    _add_run_parser(sub)
    _add_workloads_parser(sub)
    _add_plan_parser(sub)
    _add_report_parser(sub)
    for command in sub.choices.values():  # -v after the command too: `anfperf run ... -v`
        # SUPPRESS: left out after the command, -v before it still counts
        command.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=verbose
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``anfperf`` command; `argv` None means this process's command line."""
    owns_process = argv is None
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    try:
        return args.func(args)
    except AnfperfError as exc:
        print(f"anfperf: error: {exc}", file=sys.stderr)
        return ExitCode.ERROR
    except OSError as exc:  # a file anfperf did not expect to fail: still one line naming it
        from anfperf.folders import os_reason

        logging.getLogger(__name__).info("where it failed:", exc_info=True)  # with -v
        if exc.filename is None:
            print(f"anfperf: error: {exc.strerror or exc}", file=sys.stderr)
        else:
            path = os.fsdecode(exc.filename)
            print(f"anfperf: error: {path}: {os_reason(exc, path)}", file=sys.stderr)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        if owns_process:  # quick repeats of the Ctrl-C that stopped the run are the same press
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("anfperf: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug: its traceback, and a status apart from "done in part"
        import traceback

        traceback.print_exc()
        print(f"anfperf: internal error: {type(exc).__name__}: {exc} (a bug in anfperf: "
              "please report it with the traceback above)", file=sys.stderr)  # fmt: skip
        return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
