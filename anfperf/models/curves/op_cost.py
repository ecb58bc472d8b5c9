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


def op_cost_iops(
    bs_kib: object,
    op_us: float,
    bw_mib_s: float,
    limit_mib_s: float = math.inf,
    client_mib_s: float = math.inf,
    max_iops: float = math.inf,
) -> np.ndarray | float:
    """I/O rate at a block size when each operation costs ``op_us + bs / bw_mib_s``.

    The time-shared path's rate is then held to the separate ceilings: the volume's throughput
    limit and the clients' egress (byte rates, divided by the block size) and a published
    operation-rate ceiling.

    Parameters
    ----------
    bs_kib : array-like
        Block (transfer) size [KiB].
    op_us : float
        Fixed cost of one operation [us] (``1e6 / op_us`` is the small-block IOPS ceiling).
    bw_mib_s : float
        Byte rate the transfers share [MiB/s] (the large-block ceiling).
    limit_mib_s : float
        The volume's throughput limit [MiB/s]; inf (default) for none.
    client_mib_s : float
        What the clients can move [MiB/s] (their egress, for writes); inf for none.
    max_iops : float
        A published operation-rate ceiling [1/s]; inf for none.

    Returns
    -------
    float or numpy.ndarray
        IOPS [1/s].
    """
    if not (op_us >= 0 and bw_mib_s > 0 and math.isfinite(op_us)):
        raise ModelError(f"op_us must be >= 0 and bw_mib_s > 0, got {op_us!r}, {bw_mib_s!r}")
    caps = {"limit_mib_s": limit_mib_s, "client_mib_s": client_mib_s, "max_iops": max_iops}
    for name, value in caps.items():
        if not float(value) > 0:
            raise ModelError(f"{name} must be > 0 (inf for none), got {value!r}")
    bs = np.asarray(bs_kib, dtype=float)
    if np.any(~(bs > 0)):
        raise ModelError("bs_kib must be > 0")
    t_s = op_us / US_PER_S + bs / KIB_PER_MIB / bw_mib_s
    byte_cap = min(float(limit_mib_s), float(client_mib_s)) * KIB_PER_MIB / bs
    out = np.minimum(np.minimum(1.0 / t_s, byte_cap), float(max_iops))
    return float(out) if out.ndim == 0 else out


def op_share(bs_kib: float, op_us: float, bw_mib_s: float) -> float:
    """Share of each operation's time that is the fixed cost [-]: > 0.5 means op-rate bound."""
    fixed = op_us / US_PER_S
    return fixed / (fixed + bs_kib / KIB_PER_MIB / bw_mib_s)


def binding_rate(bs_kib: float, op_us: float, bw_mib_s: float) -> str:
    """'operation rate' or 'byte rate': which cost dominates at `bs_kib`."""
    return "operation rate" if op_share(bs_kib, op_us, bw_mib_s) > 0.5 else "byte rate"


def fit_op_cost(
    bs_kib: object,
    iops: object,
    *,
    limit_mib_s: float | None = None,
    client_mib_s: float | None = None,
    max_iops: float | None = None,
) -> FitResult:
    """Fit :func:`op_cost_iops` to a transfer-size sweep: (block size, IOPS) points.

    ``1 / IOPS = op_us / 1e6 + bs / (1024 bw_mib_s)`` is linear in the block size; the fit
    minimises the relative error of the time per operation (each point counts alike, whatever
    its size), with op_us >= 0. A point that ran at a ceiling given here (within 2 %) says only
    that the path is at least that fast, so it is left out of the two costs; where the points
    cannot show a fixed cost (large blocks alone: op_us would be 0), the published
    operation-rate ceiling `max_iops` is taken as the fixed cost, ``1e6 / max_iops``.

    Parameters
    ----------
    bs_kib, iops : array-like
        Block sizes [KiB] (at least two distinct) and the I/O rates measured at each [1/s],
        at one concurrency.
    limit_mib_s : float, optional
        The volume's throughput limit [MiB/s].
    client_mib_s : float, optional
        What the clients can move [MiB/s] (the sum of their VM egress limits, for writes).
    max_iops : float, optional
        A published operation-rate ceiling of the volume [1/s], e.g. from
        :func:`published_op_cost`'s table.

    Returns
    -------
    FitResult
        op_us [us] and bw_mib_s [MiB/s] (and the ceilings given, held fixed), with
        covariance-based intervals; notes say which points a ceiling bound and where a prior
        stood in for the data.
    """
    bs, x = check_points(
        bs_kib, iops, x_name="bs_kib", y_name="iops", n_params=2, recommended=RECOMMENDED_POINTS
    )
    caps = {
        name: _checked_cap(name, value)
        for name, value in (
            ("limit_mib_s", limit_mib_s),
            ("client_mib_s", client_mib_s),
            ("max_iops", max_iops),
        )
        if value is not None
    }
    notes: list[str] = []
    bound = at_ceiling(bs, x, **caps)
    if np.any(bound):
        notes.append(
            f"{int(bound.sum())} point(s) at a ceiling given ({', '.join(f'{b:g}' for b in bs[bound])}"
            " KiB): left out of the two costs"
        )
    free = cost_points(bs, x, **caps)
    if free.all() and np.any(bound):
        notes.append("fewer than two block sizes below the ceilings: all points fitted")
    a, b, cov_ab = _wls(bs[free], 1.0 / x[free])
    if a <= 0 and "max_iops" in caps:
        a = 1.0 / caps["max_iops"]
        rest = 1.0 / x[free] - a
        if np.all(rest > 0):
            b = float(np.exp(np.mean(np.log(rest / bs[free]))))
        notes.append(
            "the points show no fixed cost per operation: it is the published ceiling's, "
            f"1e6 / {caps['max_iops']:,.0f} IOPS = {a * US_PER_S:.2f} us"
        )
    elif a <= 0:
        notes.append(
            "the points show no fixed cost per operation (op_us 0): small blocks are not "
            "predicted; give max_iops, a published operation-rate ceiling"
        )
    if not b > 0:
        raise ModelError("the sweep does not slow down with block size: no byte rate to fit")
    params = {"op_us": max(a, 0.0) * US_PER_S, "bw_mib_s": 1.0 / (b * KIB_PER_MIB), **caps}
    fitted = op_cost_iops(bs, **params)
    # to (op_us, bw_mib_s): d op_us / da = 1e6; d bw / db = -1 / (1024 b^2)
    jac = np.diag([US_PER_S, -1.0 / (KIB_PER_MIB * b * b)])
    cov = np.zeros((len(params), len(params)))
    cov[:2, :2] = jac @ cov_ab @ jac.T
    return FitResult(
        params,
        model="op_cost_iops",
        x=bs,
        y=x,
        y_fit=np.asarray(fitted),
        cov=cov,
        notes=notes,
        fixed=dict(caps),
        bounds={"op_us": (0.0, math.inf), "bw_mib_s": (0.0, math.inf)},
    )


#: A point within this share of a ceiling ran at it [-].
AT_CEILING = 0.98


def at_ceiling(
    bs_kib: np.ndarray,
    iops: np.ndarray,
    *,
    limit_mib_s: float = math.inf,
    client_mib_s: float = math.inf,
    max_iops: float = math.inf,
) -> np.ndarray:
    """Which points ran at a ceiling given (within ``AT_CEILING``): they show only that the
    path is at least that fast, not its costs."""
    byte_cap = min(limit_mib_s, client_mib_s)
    return (iops * bs_kib / KIB_PER_MIB >= AT_CEILING * byte_cap) | (iops >= AT_CEILING * max_iops)


def cost_points(bs_kib: np.ndarray, iops: np.ndarray, **caps: float) -> np.ndarray:
    """The points the two costs come from: those not at a ceiling (:func:`at_ceiling`), or all
    of them when fewer than two block sizes are left."""
    free = ~at_ceiling(bs_kib, iops, **caps)
    return free if np.unique(bs_kib[free]).size >= 2 else np.ones_like(free)


def _checked_cap(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ModelError(f"{name} must be a number, got {value!r}")
    if not float(value) > 0:
        raise ModelError(f"{name} must be > 0, got {value!r}")
    return float(value)


def _wls(bs: np.ndarray, t: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Weighted least squares of t = a + b bs on t / t_measured - 1: a, b, cov(a, b)."""
    design = np.column_stack([np.ones_like(bs), bs]) / t[:, None]
    coef, *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    a, b = float(coef[0]), float(coef[1])
    if a < 0:  # the fixed cost cannot be negative: the byte rate alone
        a = 0.0
        b = float(np.sum(bs / t) / np.sum((bs / t) ** 2))
    resid = (a + b * bs) / t - 1.0  # relative residual of the time per op
    dof = max(len(bs) - 2, 1)
    s2 = float(resid @ resid) / dof
    try:
        cov_ab = s2 * np.linalg.inv(design.T @ design)
    except np.linalg.LinAlgError:
        cov_ab = np.full((2, 2), np.nan)
    return a, b, cov_ab


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
    return dict(fit_op_cost(x, y, **start.fixed))


SPEC = register_model(ModelSpec("op_cost_iops", op_cost_iops, refit=_refit, fit=fit_op_cost))
