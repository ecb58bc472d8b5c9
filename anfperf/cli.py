"""The ``anfperf`` command: a thin layer over the library."""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Sequence

from anfperf import __version__
from anfperf.errors import AnfperfError


def _ingest(args: argparse.Namespace) -> int:
    from anfperf.ingest import read_many
    from anfperf.store import save_frame
    from anfperf.summary import format_table, summary_table

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_many(args.paths, run_id=args.run_id, errors="warn")
    for w in caught:
        print(f"anfperf: warning: {w.message}", file=sys.stderr)
    skipped = sum(str(w.message).startswith("skipped ") for w in caught)
    if frame.empty:
        print("anfperf: no results found in " + " ".join(args.paths), file=sys.stderr)
        return 1
    print(format_table(summary_table(frame)))
    print(
        f"\n{len(frame)} rows from {frame['source_file'].nunique()} files, "
        f"{frame['run_id'].nunique()} runs"
    )
    if args.out:
        path = save_frame(frame, args.out)
        print(f"saved to {path}")
    return 1 if skipped else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anfperf",
        description="Run, ingest, model and report storage benchmarks for Azure NetApp Files.",
    )
    parser.add_argument("--version", action="version", version=f"anfperf {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what anfperf does")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser(
        "ingest",
        help="read fio / Vdbench / DiskSpd outputs, print a summary, save the tidy frame",
        description="Read benchmark outputs (files or folders, .gz too) into the tidy frame. "
        "Unreadable files are reported and skipped; the rest is kept (exit status 1).",
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument(
        "--out",
        metavar="FILE|DIR",
        help="save the frame: *.csv, *.parquet, or a folder = Parquet dataset partitioned by "
        "run_id that grows run by run",
    )
    ingest.add_argument("--run-id", help="run identifier for all rows (default: from the paths)")
    ingest.set_defaults(func=_ingest)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    try:
        return args.func(args)
    except AnfperfError as exc:
        print(f"anfperf: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("anfperf: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
