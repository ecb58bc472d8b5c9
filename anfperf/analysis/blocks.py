"""Block-size sweeps: what each I/O costs, and where the byte path peaks.

A run whose points differ only in their block size (one read share, access pattern and
outstanding I/O) is a block-size sweep (:data:`~anfperf.analysis.findings.KIND_BLOCK`), what
``for bs in 4k 8k ... 1m; do fio ...`` or Vdbench's ``xfersize=(4k,8k,...)`` makes.
:func:`block_reading` reads one: each I/O's fixed cost and its cost per byte
(:func:`~anfperf.models.curves.op_cost.fit_op_cost`), so where operations bind (small blocks,
an IOPS ceiling) and where bytes do (large blocks, a MiB/s ceiling), and the block size between
the two; and whether the MiB/s fell past its peak (more bytes in flight over-drive the path):
the costs are fitted up to the peak only, as the line they are does not hold past it.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anfperf.analysis.sweep import alike
from anfperf.errors import ModelError
from anfperf.models.curves.op_cost import fit_op_cost
from anfperf.models.curves.result import FitResult
from anfperf.units import KIB_PER_MIB, US_PER_S

__all__ = ["BlockReading", "BlockSweep", "block_notes", "block_reading", "block_sweeps", "FELL"]

#: Share of the peak MiB/s the largest block size must lose to count as a fall past the peak.
FELL = 0.05
#: What the points of one block-size sweep share.
SHARED = ("pattern", "read_pct", "configured")
#: Fewest block sizes that make a sweep (as findings.MIN_SWEEP_POINTS).
MIN_SIZES = 3


@dataclass(frozen=True)
class BlockSweep:
    """The rows of one block-size sweep within a run, and how to name it.

    Attributes
    ----------
    label : str
        What sets it apart from the run's other sweeps ('sequential, 0 % read'); "" when the
        run holds one.
    rows : pandas.DataFrame
        Its whole-run rows.
    """

    label: str
    rows: pd.DataFrame


def block_sweeps(rows: pd.DataFrame) -> list[BlockSweep]:
    """The block-size sweeps of one run's whole-run rows: points alike in access pattern, read
    share and outstanding I/O (:data:`SHARED`) at :data:`MIN_SIZES` or more block sizes.

    Parameters
    ----------
    rows : pandas.DataFrame
        One run's rows of :func:`anfperf.analysis.summary_rows`.

    Returns
    -------
    list of BlockSweep
        In the order of their first row; empty when the run holds none.
    """
    keys = [c for c in SHARED if c in rows]
    found = []
    for key, group in alike(rows, keys):
        sizes = pd.to_numeric(group["bs_kib"], errors="coerce")
        if sizes[sizes > 0].nunique() >= MIN_SIZES:
            found.append((dict(zip(keys, key, strict=True)), group))
    if len(found) < 2:
        return [BlockSweep("", group) for _, group in found]
    differ = [k for k in keys if len({str(f[k]) for f, _ in found}) > 1]
    return [BlockSweep(_label(fields, differ), group) for fields, group in found]


def _label(fields: dict, differ: list[str]) -> str:
    parts = []
    for key in differ:
        value = fields[key]
        if key == "read_pct":
            parts.append(f"{float(value):g} % read" if value != "" else "read share unknown")
        elif key == "configured":
            parts.append(f"{float(value):g} in flight" if value != "" else "load unknown")
        else:
            parts.append(str(value) or "pattern unknown")
    return ", ".join(parts)


@dataclass(frozen=True)
class BlockReading:
    """A block-size sweep read as each I/O's costs.

    Attributes
    ----------
    bs_kib : numpy.ndarray
        The block sizes measured [KiB], ascending.
    iops : numpy.ndarray
        IOPS at each (the median of a size's points) [1/s].
    fit : FitResult or None
        The per-operation and per-byte cost (``op_us`` [us], ``bw_mib_s`` [MiB/s]) fitted up
        to `peak_bs_kib`; None when it cannot be (the reason in `notes`).
    peak_bs_kib : float
        The block size with the most MiB/s [KiB].
    fall : float
        Share of the peak MiB/s the largest block size lost [-] (0 when it did not fall).
    notes : tuple of str
        What the sweep says, in words.
    """

    bs_kib: np.ndarray
    iops: np.ndarray
    fit: FitResult | None
    peak_bs_kib: float
    fall: float
    notes: tuple[str, ...]

    @property
    def mib_s(self) -> np.ndarray:
        """MiB/s at each block size [MiB/s]."""
        return self.iops * self.bs_kib / KIB_PER_MIB

    @property
    def per_kib_us(self) -> float:
        """Time each KiB moved adds to an I/O [us] (NaN without a fit)."""
        if self.fit is None:
            return float("nan")
        return float(US_PER_S / (self.fit["bw_mib_s"] * KIB_PER_MIB))

    def costs_text(self, *, brief: bool = False) -> str:
        """Each I/O's costs in a few words: 'each I/O 9.31 us + 0.785 us per KiB: operations
        bind below 11.9 KiB, bytes above' (`brief`: up to the colon); "" without a fit."""
        if self.fit is None:
            return ""
        op_us = float(self.fit["op_us"])
        text = f"each I/O {_num(op_us)} us + {_num(self.per_kib_us)} us per KiB"
        if brief or op_us <= 0:
            return text
        return f"{text}: operations bind below {_num(self.crossover_kib)} KiB, bytes above"

    @property
    def crossover_kib(self) -> float:
        """The block size whose bytes take as long as its operation [KiB] (NaN without a
        fit, inf with no per-operation cost): below it operations bind, above it bytes."""
        if self.fit is None:
            return float("nan")
        return float(self.fit["op_us"] / US_PER_S * self.fit["bw_mib_s"] * KIB_PER_MIB)


def block_reading(rows: pd.DataFrame) -> BlockReading:
    """Read a block-size sweep's whole-run rows (one run's, of one workload).

    Parameters
    ----------
    rows : pandas.DataFrame
        The run's rows of :func:`anfperf.analysis.summary_rows`: bs_kib and iops.

    Returns
    -------
    BlockReading

    Raises
    ------
    anfperf.ModelError
        Fewer than two block sizes with a positive IOPS.
    """
    bs = pd.to_numeric(rows["bs_kib"], errors="coerce")
    iops = pd.to_numeric(rows["iops"], errors="coerce")
    ok = bs.gt(0) & iops.gt(0)
    per = iops[ok].groupby(bs[ok]).median().sort_index()
    if per.size < 2:
        raise ModelError(f"a block-size sweep needs two or more block sizes, got {per.size}")
    sizes, rates = per.index.to_numpy(float), per.to_numpy(float)
    mib_s = rates * sizes / KIB_PER_MIB
    top = int(np.argmax(mib_s))
    fall = max(0.0, 1.0 - float(mib_s[-1] / mib_s[top]))
    # past the peak the path is over-driven: its costs are the line up to the peak
    upto = slice(0, top + 1) if fall >= FELL and top >= 1 else slice(None)
    reading = BlockReading(sizes, rates, None, float(sizes[top]), fall, ())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reading = dataclasses.replace(reading, fit=fit_op_cost(sizes[upto], rates[upto]))
    except ModelError as exc:
        notes = [f"no per-operation cost fitted: {exc}"]
    else:
        notes = [_costs_note(reading)]
    if fall >= FELL:
        notes.append(
            f"the MiB/s peaked at {mib_s[top]:,.0f} at {sizes[top]:g} KiB and fell {fall:.0%} "
            f"by {sizes[-1]:g} KiB: more bytes in flight over-drive the byte path (the costs "
            f"are fitted up to {sizes[top]:g} KiB)"
        )
    return dataclasses.replace(reading, notes=tuple(notes))


def _costs_note(reading: BlockReading) -> str:
    op_us, bw = float(reading.fit["op_us"]), float(reading.fit["bw_mib_s"])
    per_kib_us = reading.per_kib_us
    if op_us <= 0:
        return (
            f"no fixed cost per operation shows: bytes bind at every size measured, "
            f"{bw:,.0f} MiB/s ({_num(per_kib_us)} us per KiB)"
        )
    return (
        f"each I/O costs {_num(op_us)} us plus {_num(per_kib_us)} us per KiB (at most "
        f"{US_PER_S / op_us:,.0f} IOPS however small the blocks, {bw:,.0f} MiB/s however "
        f"large), so operations take most of the time below {_num(reading.crossover_kib)} KiB "
        "and bytes above"
    )


def _num(value: float) -> str:
    """Three significant digits, in plain digits ('1,520', '30.8', '0.926')."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def block_notes(rows: pd.DataFrame) -> list[str]:
    """What each block-size sweep of a run says (:func:`block_reading`'s notes), each named by
    its label when the run holds several."""
    out = []
    for sweep in block_sweeps(rows):
        prefix = f"{sweep.label}: " if sweep.label else ""
        try:
            notes = block_reading(sweep.rows).notes
        except ModelError as exc:
            notes = (f"no block-size reading: {exc}",)
        out += [prefix + note for note in notes]
    return out
