"""Block size past the sizes measured: the per-operation and per-byte cost, within bounds.

Each I/O costs a fixed time and a time per byte (:mod:`anfperf.models.curves.op_cost`), so
a sweep of block sizes is a line in ``1 / IOPS``. Past the sizes measured two bounds hold
whatever the line says:

- larger blocks: an operation never gets cheaper for carrying more bytes (IOPS at most those
  of the largest size measured), and the byte rate does not collapse (MiB/s at least that of
  the largest size, less the fall an over-driven byte path shows: :data:`BYTE_FALL_PER_DOUBLING`
  per doubling, at most :data:`~anfperf.models.forecast.throughput.FALL_CAP`); the volume's
  limit and the clients' egress cap the byte rate;
- smaller blocks: IOPS at least those of the smallest size measured, and the byte rate at most
  its MiB/s (small transfers move fewer bytes a second), under a published operation ceiling.

Past the sizes measured the estimate is the slowest line the measured points admit within a
point's repeat scatter (:data:`NOISE_FLOOR`; :func:`slowest_line`): the largest per-byte cost
for larger blocks, the largest fixed cost for smaller ones. The cost that binds out there is
the one the measured sizes show least, and more of it hides in their scatter than a
least-squares line puts there. ANF's reads without cache (Microsoft Learn,
tests/data/anf_calculator): 3,600 and 3,500 MiB/s at 64 and 256 KiB, where the line through 4
and 8 KiB said 4,133 and 4,500 (the limit) and the slowest line within 5 % of them says 3,223
and 3,398; 388,000 IOPS at 4 KiB, where the line through 64 and 256 KiB with the published
ceiling's fixed cost said 300,250 and the slowest line says 374,914. On 16 block-size sweeps
of a VM's disk recorded to judge it (tests/data/fio_sweeps/bs_grid.csv), four times and more
past 4 .. 64 KiB: median error 37.6 -> 33.3 % (the disk's byte path over-drives there: holding
the MiB/s does better); below 64 .. 1024 KiB: unchanged. Where no line passes every point
within that scatter (the MiB/s fell, or the time per I/O is no line in the block size), larger
blocks get the MiB/s of the largest size measured, held (the byte rate is what binds there and
the sizes measured show no cost that grows it: on the same sweeps 33.3 -> 15.8 %, largest
184.6 -> 54.6 %; the geometric middle of that and the least-squares line, 24.4 %), smaller
ones the geometric middle of the least-squares line and the smallest size's IOPS held, the two
readings that bracket them when the fixed cost is not in the data (21.6 -> 17.8 %, largest
140.5 -> 37.7 %; the IOPS held alone, 46.4 %).

:func:`forecast_block_size` gives that estimate inside those bounds. Far past the sizes
measured (more than :data:`FAR` times) into a regime the data do not show (large blocks from a
sweep bound by its operation rate, and no byte ceiling known; small blocks from one bound by
its byte rate, and no operation ceiling known) it gives no number: the cost that will bind
there is not in the data.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import linprog

from anfperf.errors import ModelError
from anfperf.models.curves.op_cost import cost_points, fit_op_cost, op_cost_iops, op_share
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.result import NOT_PREDICTABLE, Forecast
from anfperf.models.forecast.throughput import over_driven_fall
from anfperf.units import KIB_PER_MIB

#: Past the sizes measured by more than this factor, the regime there must be in the data.
FAR = 4.0
#: A measured point's repeat scatter the band allows at least [-].
NOISE_FLOOR = 0.05
#: How a forecast's note begins when no cost line passes the sizes measured.
NO_LINE = "no per-operation + per-byte line passes the sizes measured"

#: Fall of the byte rate past the largest size measured, per doubling of the block size [-]:
#: more bytes in flight over-drive the path. Real sweeps of a VM disk at queue depth 16 .. 64
#: keep 0.77 .. 0.89 of their peak MiB/s at twice the peak's size and 0.64 at four times
#: (tests/data/fio_sweeps/bs_randwrite, bs_qd32): 18 % per doubling; the 8 % of a concurrency
#: sweep's fall left them below the band.
BYTE_FALL_PER_DOUBLING = 0.18


def forecast_block_size(
    bs_kib: object,
    iops: object,
    at: object,
    *,
    limit_mib_s: float | None = None,
    client_mib_s: float | None = None,
    max_iops: float | None = None,
) -> Forecast:
    """IOPS at new block sizes from a measured block-size sweep and what is known.

    Parameters
    ----------
    bs_kib, iops : array-like
        Measured block sizes [KiB] (two or more) and the IOPS at each [1/s].
    at : array-like
        Block sizes to predict at [KiB].
    limit_mib_s, client_mib_s : float, optional
        The volume's throughput limit and the clients' egress [MiB/s].
    max_iops : float, optional
        A published operation-rate ceiling [1/s].

    Returns
    -------
    Forecast
        Estimate and band [IOPS]; at sizes far past the measured ones into a regime the data
        do not show, NaN with the reason in `notes` (then `predictable` is False when no
        size can be given).

    Raises
    ------
    anfperf.ModelError
        Fewer than two block sizes, or a sweep that does not slow down with block size.
    """
    caps = {k: v for k, v in (("limit_mib_s", limit_mib_s), ("client_mib_s", client_mib_s),
                              ("max_iops", max_iops)) if v is not None}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_op_cost(bs_kib, iops, **caps)
        caps, passed = _caps_not_passed(fit)
        if passed:  # fitted again without them
            fit = fit_op_cost(bs_kib, iops, **caps)
    bs, x = fit.x, fit.y
    at_arr = np.atleast_1d(np.asarray(at, float))
    if np.any(~(at_arr > 0)):
        raise ModelError("block sizes to predict at must be > 0 KiB")
    lo, hi = float(bs.min()), float(bs.max())
    x_lo, x_hi = float(np.median(x[bs == lo])), float(np.median(x[bs == hi]))
    byte_cap = min(caps.get("limit_mib_s", math.inf), caps.get("client_mib_s", math.inf))
    op_cap = caps.get("max_iops", math.inf)
    scatter = max(NOISE_FLOOR, float(np.max(np.abs(fit.y_fit / x - 1.0))))
    est = np.asarray(op_cost_iops(at_arr, **fit), float)
    free = cost_points(bs, x, **caps)
    held: list[str] = []
    for past, per_byte in ((at_arr > bs.max(), True), (at_arr < bs.min(), False)):
        if not np.any(past):
            continue
        line = slowest_line(bs[free], x[free], NOISE_FLOOR, per_byte=per_byte)
        if line is not None:
            costs = {**fit, "op_us": line[0], "bw_mib_s": line[1]}
            est = np.where(past, np.asarray(op_cost_iops(at_arr, **costs), float), est)
        elif per_byte:  # no cost line: the byte rate the largest size reached binds
            est = np.where(at_arr >= hi, x_hi * hi / at_arr, est)
            held.append(
                f"larger blocks hold the {x_hi * hi / KIB_PER_MIB:,.0f} MiB/s of {hi:g} KiB"
            )
        else:  # no cost line: between the fit's fixed cost and the smallest size's IOPS held
            est = np.where(past, np.sqrt(np.maximum(est, x_lo) * x_lo), est)
            held.append(f"smaller blocks take the geometric middle of the least-squares line and "
                        f"the {x_lo:,.0f} IOPS of {lo:g} KiB held")  # fmt: skip
    # a relative scatter as a factor either way: a poor fit's band stays above zero
    lower, upper = est / (1 + scatter), est * (1 + scatter)
    notes = [*fit.notes, *passed]
    if held:
        notes.append(f"{NO_LINE} within {NOISE_FLOOR * 100:g} %: {'; '.join(held)}")
    up, down = at_arr > hi, at_arr < lo
    ratio_up, ratio_down = at_arr / hi, lo / at_arr
    # larger blocks: IOPS no more than at the largest size, MiB/s no less (less a fall)
    upper = np.where(up, np.minimum(x_hi * (1 + scatter), byte_cap * KIB_PER_MIB / at_arr), upper)
    fall = over_driven_fall(ratio_up, BYTE_FALL_PER_DOUBLING)
    lower = np.where(up, x_hi * hi / at_arr / (1 + scatter) * (1 - fall), lower)
    # smaller blocks: IOPS no fewer than at the smallest size, MiB/s no more
    upper = np.where(down, np.minimum(x_lo * lo / at_arr * (1 + scatter), op_cap), upper)
    lower = np.where(down, np.minimum(x_lo / (1 + scatter), op_cap), lower)
    est = np.clip(est, lower, upper)
    share_hi = op_share(hi, fit["op_us"], fit["bw_mib_s"])
    share_lo = op_share(lo, fit["op_us"], fit["bw_mib_s"])
    blind = np.zeros(at_arr.size, bool)
    if share_hi > 0.5 and not math.isfinite(byte_cap):
        blind |= up & (ratio_up > FAR)
        if np.any(blind):
            notes.append(
                f"{NOT_PREDICTABLE} past {FAR * hi:g} KiB: at {hi:g} KiB {share_hi:.0%} of each "
                "I/O's time is its fixed cost, so the byte rate larger blocks meet is not in "
                "the data, and no volume or client limit is known"
            )
    if share_lo < 0.5 and not math.isfinite(op_cap):
        far_down = down & (ratio_down > FAR)
        if np.any(far_down):
            notes.append(
                f"{NOT_PREDICTABLE} below {lo / FAR:g} KiB: at {lo:g} KiB {1 - share_lo:.0%} "
                "of each I/O's time moves bytes, so the fixed cost small blocks meet is not "
                "in the data, and no operation ceiling is known"
            )
        blind |= far_down
    est = np.where(blind, np.nan, est)
    upper = np.where(blind, np.inf, upper)
    return Forecast(
        x=at_arr, estimate=est, lower=lower, upper=upper,
        basis="per-operation and per-byte cost within the bounds of the sizes measured",
        predictable=not blind.all(), notes=tuple(notes), params=dict(fit),
        bound="the volume's or clients' byte rate" if math.isfinite(byte_cap) else None,
    )  # fmt: skip


def _caps_not_passed(fit) -> tuple[dict[str, float], list[str]]:
    """The ceilings of an :func:`~anfperf.models.curves.op_cost.fit_op_cost` fit that its
    sizes stay under, and why each one they pass is left out
    (:meth:`~anfperf.models.forecast.known.KnownLimits.unless_passed_by`: something else was
    measured, that ceiling does not bind there)."""
    kept, notes = {}, []
    for name in ("limit_mib_s", "client_mib_s", "max_iops"):
        if name not in fit.fixed:
            continue
        rates, unit = (fit.y, "IOPS") if name == "max_iops" else (
            fit.x * fit.y / KIB_PER_MIB, "MiB/s")  # fmt: skip
        given = KnownLimits.of_iops(fit.fixed[name], f"{name}, {unit}")
        why = given.unless_passed_by(rates)[1]
        if why:
            notes.append(why)
        else:
            kept[name] = fit.fixed[name]
    return kept, notes


def slowest_line(
    bs_kib: np.ndarray, iops: np.ndarray, scatter: float, *, per_byte: bool
) -> tuple[float, float] | None:
    """The slowest per-operation and per-byte cost within `scatter` of every measured point.

    Each I/O takes ``a + c bs`` (``a, c >= 0``); every point's time per I/O may be off by the
    factor ``1 + scatter`` either way. Of those lines, the one with the largest per-KiB cost
    ``c`` (`per_byte`: what larger blocks meet) or the largest fixed cost ``a`` (what smaller
    blocks meet), by a linear programme.

    Returns
    -------
    (float, float) or None
        op_us [us] and bw_mib_s [MiB/s] (inf when ``c`` is 0) of that line; None when no line
        passes every point.
    """
    a_ub, b_ub = admitted_lines(bs_kib, iops, scatter)
    objective = [0.0, -1.0] if per_byte else [-1.0, 0.0]
    res = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=[(0, None), (0, None)])
    if not res.success:
        return None
    a_us, c_us_per_kib = (float(v) for v in res.x)
    # c us per KiB: 1e6 / c KiB a second
    bw_mib_s = 1e6 / (KIB_PER_MIB * c_us_per_kib) if c_us_per_kib > 0 else math.inf
    return a_us, bw_mib_s


def admitted_lines(
    bs_kib: np.ndarray, iops: np.ndarray, scatter: float
) -> tuple[np.ndarray, np.ndarray]:
    """The lines a time per I/O ``a + c bs`` [us] (``a, c >= 0``) may take to pass every
    measured point within the factor ``1 + scatter`` either way, as the inequalities
    ``A_ub @ (a, c) <= b_ub`` of :func:`scipy.optimize.linprog`."""
    t_us = 1e6 / np.asarray(iops, float)
    design = np.column_stack([np.ones_like(t_us), np.asarray(bs_kib, float)])
    return np.vstack([design, -design]), np.r_[t_us * (1 + scatter), -t_us / (1 + scatter)]
