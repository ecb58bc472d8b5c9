"""Block size: what each I/O costs, so that a ceiling holds at every transfer size.

A storage path spends a fixed time on every operation (request handling, metadata, round trip
through its queues) and a time proportional to the bytes moved::

    t(bs) = op_us + bs / bw_mib_s        ->   IOPS(bs) = 1 / t(bs),   MiB/s(bs) = bs x IOPS(bs)

Small blocks are bound by the operation rate ``1e6 / op_us``, large ones by the byte rate
``bw_mib_s``; in between both count. A MiB/s ceiling measured at 64 KiB alone would allow
4,500 MiB/s / 4 KiB = 1,152,000 IOPS at 4 KiB; ANF's own 4 KiB sweep tops at 460,000.

:func:`fit_op_cost` fits the two costs to a transfer-size sweep (``1 / IOPS`` is linear in the
block size: weighted least squares on relative errors); :func:`published_op_cost` takes them
from ANF's published results (one small-block IOPS and one large-block MiB/s figure per volume
type and direction, anfperf/data/anf_benchmarks.csv), two equations in two unknowns.
"""

from __future__ import annotations

import math

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, check_points
from anfperf.models.tables import load_table
from anfperf.units import KIB_PER_MIB, US_PER_S

#: Block sizes a sweep should have before the two costs are trusted.
RECOMMENDED_POINTS = 4


def op_cost_iops(bs_kib: object, op_us: float, bw_mib_s: float) -> np.ndarray | float:
    """I/O rate at a block size when each operation costs ``op_us + bs / bw_mib_s``.

    Parameters
    ----------
    bs_kib : array-like
        Block (transfer) size [KiB].
    op_us : float
        Fixed cost of one operation [us] (``1e6 / op_us`` is the small-block IOPS ceiling).
    bw_mib_s : float
        Byte rate the transfers share [MiB/s] (the large-block ceiling).

    Returns
    -------
    float or numpy.ndarray
        IOPS [1/s].
    """
    if not (op_us >= 0 and bw_mib_s > 0 and math.isfinite(op_us)):
        raise ModelError(f"op_us must be >= 0 and bw_mib_s > 0, got {op_us!r}, {bw_mib_s!r}")
    bs = np.asarray(bs_kib, dtype=float)
    t_s = op_us / US_PER_S + bs / KIB_PER_MIB / bw_mib_s
    out = 1.0 / t_s
    return float(out) if out.ndim == 0 else out


def op_share(bs_kib: float, op_us: float, bw_mib_s: float) -> float:
    """Share of each operation's time that is the fixed cost [-]: > 0.5 means op-rate bound."""
    fixed = op_us / US_PER_S
    return fixed / (fixed + bs_kib / KIB_PER_MIB / bw_mib_s)


def binding_rate(bs_kib: float, op_us: float, bw_mib_s: float) -> str:
    """'operation rate' or 'byte rate': which cost dominates at `bs_kib`."""
    return "operation rate" if op_share(bs_kib, op_us, bw_mib_s) > 0.5 else "byte rate"


def fit_op_cost(bs_kib: object, iops: object) -> FitResult:
    """Fit :func:`op_cost_iops` to a transfer-size sweep: (block size, IOPS) points.

    ``1 / IOPS = op_us / 1e6 + bs / (1024 bw_mib_s)`` is linear in the block size; the fit
    minimises the relative error of the time per operation (each point counts alike, whatever
    its size), with op_us >= 0.

    Parameters
    ----------
    bs_kib, iops : array-like
        Block sizes [KiB] (at least two distinct) and the I/O rates measured at each [1/s],
        at one concurrency.

    Returns
    -------
    FitResult
        op_us [us] and bw_mib_s [MiB/s], with covariance-based intervals.
    """
    bs, x = check_points(
        bs_kib, iops, x_name="bs_kib", y_name="iops", n_params=2, recommended=RECOMMENDED_POINTS
    )
    t = 1.0 / x  # seconds per operation
    # weighted least squares on t / t_measured - 1: rows divided by t
    design = np.column_stack([np.ones_like(bs), bs]) / t[:, None]
    coef, *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    a, b = float(coef[0]), float(coef[1])
    if a < 0:  # the fixed cost cannot be negative: the byte rate alone
        a = 0.0
        b = float(np.sum(bs / t) / np.sum((bs / t) ** 2))
    if not b > 0:
        raise ModelError("the sweep does not slow down with block size: no byte rate to fit")
    params = {"op_us": a * US_PER_S, "bw_mib_s": 1.0 / (b * KIB_PER_MIB)}
    fitted = op_cost_iops(bs, **params)
    resid = np.asarray(t * fitted - 1.0)  # relative residual of the time per op
    dof = max(len(bs) - 2, 1)
    s2 = float(resid @ resid) / dof
    try:
        cov_ab = s2 * np.linalg.inv(design.T @ design)
    except np.linalg.LinAlgError:
        cov_ab = np.full((2, 2), np.nan)
    # to (op_us, bw_mib_s): d op_us / da = 1e6; d bw / db = -1 / (1024 b^2)
    jac = np.diag([US_PER_S, -1.0 / (KIB_PER_MIB * b * b)])
    cov = jac @ cov_ab @ jac.T
    return FitResult(
        params,
        model="op_cost_iops",
        x=bs,
        y=x,
        y_fit=np.asarray(fitted),
        cov=cov,
        bounds={"op_us": (0.0, math.inf), "bw_mib_s": (0.0, math.inf)},
    )


def published_op_cost(volume_type: str, direction: str) -> tuple[float, float, str]:
    """Per-operation and per-byte cost of one ANF volume from its published results.

    Parameters
    ----------
    volume_type : {'regular', 'large'}
    direction : {'read', 'write'}

    Returns
    -------
    (float, float, str)
        op_us [us], bw_mib_s [MiB/s], and the figures and articles they come from.
    """
    if direction not in ("read", "write"):
        raise ModelError(f"direction must be 'read' or 'write', got {direction!r}")
    table = load_table("anf_benchmarks")
    rows = table[table["volume_type"] == volume_type]
    small = rows[rows["metric"] == "iops"]
    large = rows[rows["metric"] == "bw_mib_s"]
    if small.empty or large.empty:
        raise ModelError(f"no published small- and large-block results for {volume_type} volumes")
    s, g = small.iloc[0], large.iloc[0]
    col = f"{direction}_max"
    bs_s, iops_s = float(s["bs_kib"]), float(s[col])
    bs_g, bw_g = float(g["bs_kib"]), float(g[col])
    t_s, t_g = 1.0 / iops_s, bs_g / KIB_PER_MIB / bw_g  # seconds per op at each size
    b = (t_g - t_s) / (bs_g - bs_s)  # seconds per KiB
    if not b > 0:
        raise ModelError(f"the published {volume_type} results do not slow down with block size")
    a = max(t_s - b * bs_s, 0.0)
    where = (
        f"{iops_s:,.0f} IOPS at {bs_s:g} KiB ({s['pattern']}), {bw_g:,.0f} MiB/s at "
        f"{bs_g:g} KiB ({g['pattern']}); {s['source']} ({s['date']}), {g['source']} ({g['date']})"
    )
    return a * US_PER_S, 1.0 / (b * KIB_PER_MIB), where


def _refit(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    return dict(fit_op_cost(x, y))


SPEC = register_model(ModelSpec("op_cost_iops", op_cost_iops, refit=_refit, fit=fit_op_cost))
