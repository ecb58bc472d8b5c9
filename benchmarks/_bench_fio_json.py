"""Speed of the fio JSON reader against plain ``json.loads`` of the same files.

``bench(workdir)`` writes `n_files` copies of the real fio outputs in ``tests/data/fio`` (the
plain JSON ones, json+ included) into `workdir`, then times

- baseline: read every file's bytes and ``json.loads`` them;
- anfperf: ``anfperf.ingest.read_many(paths)`` when it exists, else the same reading plus
  ``_parse_fio_json`` of every file and one ``finalize`` over all rows.

The target is a ratio (anfperf / baseline) of at most 1.5. Run it directly to print the result.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
import warnings
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "fio"
REPEATS = 5


def _fixtures() -> list[Path]:
    """Fixtures that are one plain JSON document (files with text around it are left out, so
    that the baseline can be plain ``json.loads``)."""
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        try:
            json.loads(path.read_bytes())
        except ValueError:
            continue
        out.append(path)
    return out


def _make_files(workdir: Path, n_files: int) -> list[Path]:
    sources = _fixtures()
    workdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n_files):
        src = sources[i % len(sources)]
        dst = workdir / f"{i:04d}_{src.name}"
        shutil.copyfile(src, dst)
        paths.append(dst)
    return paths


def _baseline(paths: list[Path]) -> int:
    n = 0
    for path in paths:
        n += len(json.loads(path.read_bytes()))
    return n


def _anfperf(paths: list[Path]) -> int:
    from anfperf import ingest

    read_many = getattr(ingest, "read_many", None)
    if read_many is not None:
        return len(read_many(paths))
    from anfperf.ingest._frame import finalize
    from anfperf.ingest._source import read_bytes
    from anfperf.ingest.fio_json import _parse_fio_json

    rows: list[dict] = []
    for path in paths:
        data, source = read_bytes(path)
        rows.extend(_parse_fio_json(data, source))
    return len(finalize(rows, source=str(paths[0].parent), run_id="bench"))


def _best_of(funcs: list, paths: list[Path]) -> list[float]:
    """Best time of each function over REPEATS rounds, run in turn so that both see the same
    machine load."""
    best = [float("inf")] * len(funcs)
    for _ in range(REPEATS):
        for i, func in enumerate(funcs):
            start = time.perf_counter()
            func(paths)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def bench(workdir: Path, n_files: int = 1000) -> dict:
    """Time reading `n_files` fio JSON files; return seconds, their ratio and the MiB read.

    Returns
    -------
    dict
        ``baseline_s`` (read + json.loads), ``anfperf_s`` (read + parse + frame), ``ratio``
        (anfperf_s / baseline_s) and ``mb`` (MiB of JSON read).
    """
    paths = _make_files(Path(workdir), n_files)
    mb = sum(p.stat().st_size for p in paths) / 2**20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _anfperf(paths[:20])  # imports and first-call costs out of the timing
        baseline_s, anfperf_s = _best_of([_baseline, _anfperf], paths)
    return {
        "baseline_s": baseline_s,
        "anfperf_s": anfperf_s,
        "ratio": anfperf_s / baseline_s,
        "mb": mb,
    }


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        result = bench(Path(tmp))
    print(
        f"fio json: {result['mb']:.1f} MiB in 1000 files: json.loads {result['baseline_s']:.3f} s, "
        f"anfperf {result['anfperf_s']:.3f} s, ratio {result['ratio']:.2f} (target <= 1.5)"
    )
