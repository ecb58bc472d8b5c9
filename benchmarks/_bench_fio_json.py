"""Speed of reading many fio JSON files against ``orjson.loads`` of the same bytes.

``bench(workdir, n_files)`` writes `n_files` copies of the real fio outputs in ``tests/data/fio``
that are one JSON document (json+ included) into `workdir`; every `prefixed_every`-th copy gets
fio's own text before the JSON (warnings and the normal output of ``--output-format=normal,json``,
taken from ``normal_and_json.txt``), as fio writes when run that way. Then, paired and
interleaved (each round times both, in alternating order, so that both see the same machine
load):

- baseline: read each file's bytes and ``orjson.loads`` its JSON (after the known text prefix);
- anfperf: ``anfperf.ingest.read_many(paths)``: detection, parsing and the tidy frame.

The figure is the median over rounds of the per-round ratio anfperf / baseline.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import warnings
from pathlib import Path

import orjson

from benchmarks._paired import paired_ratio

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "fio"
ROUNDS = 7


def _fixtures() -> list[Path]:
    """Fixtures that are one plain JSON document."""
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        try:
            json.loads(path.read_bytes())
        except ValueError:
            continue
        out.append(path)
    return out


def _prefix() -> bytes:
    """fio's text before the JSON in a real ``--output-format=normal,json`` output."""
    data = (FIXTURES / "normal_and_json.txt").read_bytes()
    return data[: data.index(b"{")]


def _make_files(workdir: Path, n_files: int, prefixed_every: int) -> tuple[list[Path], list[int]]:
    """The files, and where the JSON starts in each."""
    sources = _fixtures()
    prefix = _prefix()
    workdir.mkdir(parents=True, exist_ok=True)
    paths, offsets = [], []
    for i in range(n_files):
        src = sources[i % len(sources)]
        dst = workdir / f"{i:05d}_{src.name}"
        if prefixed_every and i % prefixed_every == 0:
            dst.write_bytes(prefix + src.read_bytes())
            offsets.append(len(prefix))
        else:
            shutil.copyfile(src, dst)
            offsets.append(0)
        paths.append(dst)
    return paths, offsets


def _baseline(paths: list[Path], offsets: list[int]) -> int:
    n = 0
    for path, offset in zip(paths, offsets, strict=True):
        with open(path, "rb") as fh:
            data = fh.read()
        n += len(orjson.loads(data[offset:] if offset else data))
    return n


def _anfperf(paths: list[Path], offsets: list[int]) -> int:
    from anfperf.ingest import read_many

    return len(read_many(paths))


def bench(
    workdir: Path, n_files: int = 1000, prefixed_every: int = 4, rounds: int = ROUNDS
) -> dict:
    """Time reading `n_files` fio JSON files, paired against orjson.loads of the same bytes.

    Returns
    -------
    dict
        ``baseline_s`` (read + orjson.loads, median), ``anfperf_s`` (read_many, median),
        ``ratio`` (median of the paired ratios, with ``ratio_min`` and ``ratio_max``) and
        ``mb`` (MiB of files read).
    """
    paths, offsets = _make_files(Path(workdir), n_files, prefixed_every)
    mb = sum(p.stat().st_size for p in paths) / 2**20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the text before the JSON is reported, by design
        _anfperf(paths[:20], offsets[:20])  # imports and first-call costs out of the timing
        _baseline(paths[:20], offsets[:20])
        result = paired_ratio(
            lambda: _baseline(paths, offsets), lambda: _anfperf(paths, offsets), rounds
        )
    return {**result, "mb": mb}


if __name__ == "__main__":
    for n in (1000, 10_000):
        with tempfile.TemporaryDirectory() as tmp:
            result = bench(Path(tmp), n_files=n)
        print(
            f"fio json x{n}: {result['mb']:.1f} MiB: orjson.loads {result['baseline_s']:.3f} s, "
            f"read_many {result['anfperf_s']:.3f} s, paired ratio {result['ratio']:.2f} "
            "(target <= 2)"
        )
