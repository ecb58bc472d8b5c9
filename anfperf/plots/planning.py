"""What-if charts of a capacity plan: quota per level, client VMs, threads against latency.

Each chart draws a model of :mod:`anfperf.models` around a target, so that a planner sees how
far the plan is from the next limit:

- :func:`quota_vs_throughput` -- throughput against quota per service level (Flexible too),
  the volume caps, the target, and the smallest quota at which each level meets it;
- :func:`clients_vs_throughput` -- what 1, 2, ... client VMs of a size can drive (network
  egress, NFS connections), the volume's limit and the target;
- :func:`concurrency_for_target` -- the plan's outstanding I/O on the target's Little's-law
  line (latency = outstanding I/O / target rate), the SLO, and -- when a concurrency sweep is
  given -- the latency measured on it, named after its source;
- :func:`threads_vs_latency` -- mean latency against outstanding I/O from a USL fitted on a
  concurrency sweep (by default the bundled sample, which the title says).

Reference lines (target, limits, the plan) are legend entries, not text on the plot: labels
written beside lines collide when two lines lie close (a 2,000 MiB/s target over a 1,600 MiB/s
cap, the plan's VM count on the volume limit).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf import models
from anfperf.analysis.sweep import sweep_points, sweep_xy
from anfperf.errors import ModelError
from anfperf.models.limits import quota as q
from anfperf.models.limits.client import client_constraints, nfs_client_value, vm_size_name
from anfperf.models.limits.quota import PLANNED_LEVELS
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    MODEL_COLOR,
    SLO_COLOR,
    figure,
    log_axis,
    subtitle,
)
from anfperf.plots.quota import LEVEL_COLORS, level_line, quota_model
from anfperf.values import format_number, format_quota

#: Keys of a USL fit (:func:`anfperf.models.fit_usl`), the curve :func:`threads_vs_latency` draws.
USL_KEYS = ("lam", "sigma", "kappa")


def _hline(
    fig: go.Figure,
    y: float,
    x_range: tuple[float, float],
    name: str,
    *,
    color: str,
    dash: str = "dash",
    width: float = 1.5,
    hover: str | None = None,
) -> None:
    """A horizontal reference line as a trace: its name is in the legend, never on the plot."""
    fig.add_scatter(
        x=list(x_range), y=[y, y], mode="lines", name=name,
        line={"color": color, "dash": dash, "width": width},
        hovertemplate=(hover or name) + "<extra></extra>",
    )  # fmt: skip


def _vline(
    fig: go.Figure, x: float, y_range: tuple[float, float], name: str, *, color: str
) -> None:
    """A vertical reference line as a trace (legend entry), from y_range[0] to y_range[1]."""
    fig.add_scatter(
        x=[x, x], y=list(y_range), mode="lines", name=name,
        line={"color": color, "dash": "dot", "width": 1.5},
        hovertemplate=name + "<extra></extra>",
    )  # fmt: skip


def _target_name(target_mib_s: float) -> str:
    return f"target {format_number(target_mib_s)} MiB/s"


def _vms(n: int) -> str:
    return f"{n} VM" if n == 1 else f"{n} VMs"


def _check_target(target_mib_s: float) -> float:
    if not isinstance(target_mib_s, int | float) or not 0 < target_mib_s < math.inf:
        raise ModelError(f"target_mib_s must be a number > 0, got {target_mib_s!r}")
    return float(target_mib_s)


def quota_meeting(
    level: str,
    target_mib_s: float,
    volume_type: str = "regular",
    rule: str = "current",
    size_range_tib: tuple[float, float] | None = None,
) -> float:
    """Smallest quota at which a level's line of :func:`quota_vs_throughput` reaches a target.

    Standard / Premium / Ultra: :func:`anfperf.models.limits.quota.quota_needed`. Flexible: the
    smallest pool (one volume filling it) whose manual-QoS throughput reaches the target
    (:func:`anfperf.plots.quota.level_line`, by bisection: the line is flat at its cap).

    Parameters
    ----------
    level : str
        Service level.
    target_mib_s : float
        Target throughput [MiB/s].
    volume_type, rule : str
        As in :func:`anfperf.models.limits.quota.throughput_limit`.
    size_range_tib : (float, float), optional
        Quotas the Flexible line spans [TiB] (default: Ultra's range of the volume type, as
        the chart draws it).

    Returns
    -------
    float
        Quota [TiB].

    Raises
    ------
    anfperf.ModelError
        The level cannot reach the target with this volume type (the message says why).
    """
    target = _check_target(target_mib_s)
    name = q.level_name(level)
    if name != "Flexible":
        return float(q.quota_needed(target, name, volume_type, rule))
    lo, hi = size_range_tib or q.volume_size_range("Ultra", volume_type, rule)
    top = float(level_line(np.array([hi]), name)[0])
    if target > top * (1 + 1e-12):
        raise ModelError(
            f"{format_number(target)} MiB/s is above the {format_number(top)} MiB/s one Flexible "
            "volume can be given (manual QoS)"
        )
    if float(level_line(np.array([lo]), name)[0]) >= target:
        return float(lo)
    # bisection for the leftmost crossing (a root finder may land on the flat part at the cap)
    below, above = float(lo), float(hi)
    for _ in range(60):
        mid = 0.5 * (below + above)
        if float(level_line(np.array([mid]), name)[0]) >= target:
            above = mid
        else:
            below = mid
    return above


def quota_vs_throughput(
    levels: Sequence[str] = PLANNED_LEVELS,
    bs_kib: float = 64.0,
    target_mib_s: float = 1000.0,
    *,
    read_pct: float = 100.0,
    volume_type: str = "regular",
    rule: str = "current",
    level: str | None = None,
    quota_tib: float | None = None,
) -> go.Figure:
    """Throughput against quota per service level, the target, and where each level meets it.

    The lines, caps and the marked volume are :func:`anfperf.plots.quota_model`'s (one chart
    of the ANF bandwidth model in anfperf); this adds the target as a horizontal line and, on
    each level's line, a marker at the smallest quota that meets it (:func:`quota_meeting`).
    Levels that cannot meet it are named under the title with the reason.

    Parameters
    ----------
    levels : sequence of str
        Service levels drawn; 'Flexible' is drawn as one volume filling its pool.
    bs_kib : float
        Block size [KiB] (in the title: the limits are in MiB/s whatever the block size).
    target_mib_s : float
        Target throughput [MiB/s].
    read_pct : float
        Read share [%].
    volume_type, rule : str
        As in :func:`anfperf.models.limits.quota.throughput_limit`.
    level, quota_tib : optional
        The planned volume, marked (thick line, vertical line at its quota). Default: the
        auto-QoS level in `levels` that meets the target with the smallest quota, at that quota.

    Returns
    -------
    plotly.graph_objects.Figure
        Log-log axes. One line per level (named after the level), the caps, the target
        (annotated 'target <n> MiB/s'), and one marker per level meeting it, named
        ``'<level> meets the target at <q> TiB' (below 1 TiB: GiB)`` with x = that quota [TiB].

    Raises
    ------
    anfperf.ModelError
        Unknown level, volume type or rule; no level given; a target not > 0.
    """
    target = _check_target(target_mib_s)
    names = list(dict.fromkeys(q.level_name(n) for n in levels))
    if not names:
        raise ModelError("give at least one service level")
    auto = [n for n in names if n != "Flexible"]
    needs: dict[str, float] = {}
    notes: list[str] = []
    for name in auto:
        try:
            needs[name] = quota_meeting(name, target, volume_type, rule)
        except ModelError as exc:
            notes.append(f"{name} cannot: {exc}")
    if level is None:
        # the chart needs an auto-QoS volume to mark (quota_model's size range and thick line)
        level = min(needs, key=needs.__getitem__) if needs else (auto or ["Ultra"])[0]
    level = q.level_name(level)
    lo, hi = q.volume_size_range(level, volume_type, rule)
    if quota_tib is None:
        quota_tib = needs.get(level, hi)
    if "Flexible" in names:
        try:
            needs["Flexible"] = quota_meeting("Flexible", target, volume_type, rule, (lo, hi))
        except ModelError as exc:
            notes.append(f"Flexible cannot: {exc}")
    fig = quota_model(
        quota_tib=quota_tib, level=level, bs_kib=bs_kib, read_pct=read_pct,
        volume_type=volume_type, rule=rule, levels=names,
    )  # fmt: skip
    fig.update_layout(
        title_text=f"Quota vs throughput per level: what meets {format_number(target)} MiB/s "
        f"({volume_type} volume, {bs_kib:g} KiB, {read_pct:g} % read)"
    )
    lo_x, hi_x = q.volume_size_range(level, volume_type, rule)
    _hline(fig, target, (lo_x, hi_x), _target_name(target), color=SLO_COLOR)
    for i, name in enumerate(names):
        if name not in needs:
            continue
        need = needs[name]
        # in the legend, not as text: the levels' points crowd each other on the target line
        fig.add_scatter(
            x=[need], y=[target], mode="markers",
            name=f"{name} meets the target at {format_quota(need)}",
            marker={"symbol": "circle", "size": 10, "color": LEVEL_COLORS[i % len(LEVEL_COLORS)],
                    "line": {"color": "#333", "width": 1}},
            hovertemplate=f"{name}: {format_quota(need)} for {format_number(target)} MiB/s"
                          "<extra></extra>",
        )  # fmt: skip
    # every line, the caps (legend entries, not text on the plot) and the target on the chart
    ys = [v for t in fig.data for v in np.asarray(t.y, float) if np.isfinite(v) and v > 0]
    log_axis(fig, "y", [min(ys), max([target, *ys])])
    subtitle(fig, *notes)
    return fig


def clients_vs_throughput(
    vm_size: str,
    target_mib_s: float,
    *,
    bs_kib: float,
    read_pct: float = 100.0,
    pattern: str | None = None,
    nconnect: int | None = None,
    volume_limit_mib_s: float | None = None,
    vm_count: int | None = None,
    max_vms: int = 16,
) -> go.Figure:
    """Aggregate throughput 1 .. `max_vms` client VMs of a size can drive, per limit.

    One line per client constraint of :func:`anfperf.models.client_constraints` -- the VMs'
    network egress (it meters the write share only: NFS reads arrive as ingress) and, with a
    `pattern`, what one client was observed to do over its NFS connections -- and the least of
    those and the volume's limit ('achievable'). The volume's limit and the target are
    horizontal lines.

    Parameters
    ----------
    vm_size : str
        Client VM size (:func:`anfperf.models.vm_network`).
    target_mib_s : float
        Target throughput [MiB/s].
    bs_kib : float
        Block size [KiB].
    read_pct : float
        Read share [%].
    pattern : {'sequential', 'random'}, optional
        Access pattern; adds the observed NFS-connection line.
    nconnect : int, optional
        NFS connections per mount (default: the recommended value of
        anfperf/data/nfs_client.csv).
    volume_limit_mib_s : float, optional
        The volume's throughput limit [MiB/s] (its quota x rate, capped).
    vm_count : int, optional
        The plan's client VMs, marked with a vertical line.
    max_vms : int
        Right end of the axis.

    Returns
    -------
    plotly.graph_objects.Figure
        x: client VMs, y: throughput [MiB/s] on a log axis; traces 'client network egress',
        'client NFS connections' (where finite), 'volume limit <n> MiB/s', 'achievable (least
        of the limits)', 'target reached with <n> VMs' (where it does), 'target <n> MiB/s' and
        'plan: <n> VMs' (legend entries, no text on the plot).

    Raises
    ------
    anfperf.ModelError
        Unknown VM size, bad block size, read share or nconnect, `max_vms` < 1.
    """
    target = _check_target(target_mib_s)
    if not isinstance(max_vms, int | np.integer) or max_vms < 1:
        raise ModelError(f"max_vms must be an integer >= 1, got {max_vms!r}")
    if nconnect is None:
        nconnect = int(nfs_client_value("nconnect_recommended"))
    counts = np.arange(1, int(max_vms) + 1)
    clients = QuotaScenario(bs_kib=bs_kib, read_pct=read_pct, pattern=pattern, vm_size=vm_size,
                            nconnect=nconnect)  # fmt: skip
    rows = [client_constraints(clients, vm_count=int(n)) for n in counts]
    name = vm_size_name(vm_size)
    fig = figure(
        f"Client VMs vs throughput ({name}, {bs_kib:g} KiB, {read_pct:g} % read, "
        f"nconnect={nconnect})", "Client VMs [count]", "Throughput [MiB/s]",
    )  # fmt: skip
    achievable, notes = _client_lines(fig, counts, rows)
    if pattern is None:
        notes.append("no NFS-connection line: give the access pattern")
    x_range = (0.5, max_vms + 0.5)
    if volume_limit_mib_s is not None:
        achievable = np.fmin(achievable, float(volume_limit_mib_s))
        _hline(fig, float(volume_limit_mib_s), x_range,
               f"volume limit {format_number(volume_limit_mib_s)} MiB/s", color=LIMIT_COLOR,
               dash="dot", width=2)  # fmt: skip
    if np.isfinite(achievable).any():
        notes += _achievable_line(fig, counts, achievable, target, max_vms)
    if volume_limit_mib_s is not None:
        capped = np.flatnonzero(achievable >= float(volume_limit_mib_s) * (1 - 1e-9))
        if capped.size:
            notes.append(
                f"the volume limit binds from {_vms(int(counts[capped[0]]))} on: more VMs add "
                "no throughput"
            )
    _hline(fig, target, x_range, _target_name(target), color=SLO_COLOR)
    # log y: the per-VM limits rise with the VM count far above a volume limit; the whole
    # of each line stays on the chart (an egress line of a write-light mix included)
    ys = [v for t in fig.data for v in np.asarray(t.y, float) if np.isfinite(v) and v > 0]
    y_range = (min([target, *ys]) / 1.6, max([target, *ys]) * 1.6)
    if vm_count:
        _vline(fig, vm_count, y_range, f"plan: {_vms(vm_count)}", color=LIMIT_COLOR)
    fig.update_xaxes(dtick=1 if max_vms <= 16 else None, range=list(x_range))
    log_axis(fig, "y", list(y_range), pad=0.0)
    fig.update_layout(showlegend=True)
    subtitle(fig, *notes)
    return fig


def _client_lines(
    fig: go.Figure, counts: np.ndarray, rows: list[pd.DataFrame]
) -> tuple[np.ndarray, list[str]]:
    """One line per client constraint over the VM counts; the least of them, and notes."""
    notes = []
    achievable = np.full(len(counts), math.inf)
    for i, constraint in enumerate(dict.fromkeys(rows[0]["constraint"])):
        y = np.array([float(r.set_index("constraint").loc[constraint, "bw_mib_s"]) for r in rows])
        if not np.isfinite(y).any():
            notes.append(f"no {constraint} line: reads are ingress, which Azure does not meter")
            continue
        achievable = np.fmin(achievable, y)
        fig.add_scatter(
            x=counts, y=y, mode="lines+markers", name=constraint,
            line={"color": COLORWAY[i % len(COLORWAY)]}, marker={"size": 5},
            hovertemplate=f"{constraint}: %{{y:,.4~r}} MiB/s with %{{x}} VMs<extra></extra>",
        )  # fmt: skip
    return achievable, notes


def _achievable_line(
    fig: go.Figure, counts: np.ndarray, achievable: np.ndarray, target: float, max_vms: int
) -> list[str]:
    """The least of the limits, and where it reaches the target (a note when it does not)."""
    fig.add_scatter(
        x=counts, y=achievable, mode="lines", name="achievable (least of the limits)",
        line={"color": MODEL_COLOR, "width": 3},
        hovertemplate="achievable: %{y:,.4~r} MiB/s with %{x} VMs<extra></extra>",
    )  # fmt: skip
    reached = np.flatnonzero(achievable >= target * (1 - 1e-9))
    if not reached.size:
        return [f"{_vms(max_vms)} do not reach the target: the volume or the VMs bind"]
    n = int(counts[reached[0]])
    fig.add_scatter(
        x=[n], y=[target], mode="markers", name=f"target reached with {_vms(n)}",
        marker={"color": SLO_COLOR, "size": 11, "symbol": "diamond"},
        hovertemplate=f"{_vms(n)} reach {format_number(target)} MiB/s<extra></extra>",
    )  # fmt: skip
    return []


def _usl_lines(fig: go.Figure, n: np.ndarray, lat: np.ndarray, rate: np.ndarray) -> None:
    """The USL's latency (left axis) and throughput (right axis) against the threads."""
    fig.add_scatter(
        x=n, y=lat, mode="lines", name="latency (USL)", line={"color": MODEL_COLOR, "width": 2},
        customdata=rate, hovertemplate="%{x:.0f} threads: %{y:.3f} ms, %{customdata:,.0f} IOPS"
        "<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=n, y=rate, mode="lines", name="throughput (USL) [IOPS]", yaxis="y2",
        line={"color": COLORWAY[0], "dash": "dot"},
        hovertemplate="%{x:.0f} threads: %{y:,.0f} IOPS<extra></extra>",
    )  # fmt: skip
    fig.update_layout(
        yaxis2={"title": "Throughput [IOPS]", "overlaying": "y", "side": "right",
                "showgrid": False, "rangemode": "tozero"},
        legend={"x": 0.02, "y": 0.98, "xanchor": "left"},
    )  # fmt: skip


def _usl_from(
    curve: Mapping[str, float] | pd.DataFrame | None, source: str | None
) -> tuple[dict[str, float], str, pd.DataFrame | None]:
    """(USL parameters, source text, measured points or None) of what the caller passed."""
    if curve is None:
        from anfperf.analysis.sweep import load_sweep

        curve, sample = load_sweep()
        source = source or sample
    if isinstance(curve, pd.DataFrame):
        frame = curve
        if source is None:
            runs = (
                sorted(frame["run_id"].dropna().astype(str).unique()) if "run_id" in frame else []
            )
            source = ", ".join(runs) or "the sweep given"
        with warnings.catch_warnings():
            # few points / no saturation: the fit keeps them in its notes; the chart shows data
            warnings.simplefilter("ignore")
            fit = models.fit_usl(*sweep_xy(frame))
            if "rate_limit_iops" in frame:
                limited = pd.to_numeric(frame["rate_limit_iops"], errors="coerce").notna()
                frame = frame[~limited]
            points = sweep_points(frame, "outstanding", "lat_mean_ms")
        return dict(fit), source, points
    if not isinstance(curve, Mapping) or not set(USL_KEYS) <= set(curve):
        keys = sorted(curve) if isinstance(curve, Mapping) else type(curve).__name__
        raise ModelError(
            f"threads_vs_latency needs a USL fit (lam, sigma, kappa: anfperf.models.fit_usl on "
            f"a concurrency sweep fitted to IOPS), a tidy frame of one, or None; got {keys}"
        )
    return {k: float(curve[k]) for k in USL_KEYS}, source or "a fitted USL curve", None


def threads_vs_latency(
    curve: Mapping[str, float] | pd.DataFrame | None = None,
    lat_slo_ms: float = 2.0,
    *,
    source: str | None = None,
    threads_planned: int | None = None,
    max_threads: int | None = None,
) -> go.Figure:
    """Mean latency and throughput against outstanding I/O, from a fitted USL curve.

    Latency follows from the USL by Little's law (:func:`anfperf.models.usl_latency_ms`): a
    curve fitted on one system holds for that system only, so the title names its source.

    Parameters
    ----------
    curve : mapping, pandas.DataFrame or None
        A USL fit to IOPS (:func:`anfperf.models.fit_usl`: lam, sigma, kappa); or the tidy
        frame of a concurrency sweep (fitted here, its measured latencies drawn too); None:
        the bundled sample sweep (:data:`anfperf.analysis.sweep.SAMPLE_SWEEP`, a local disk, not ANF:
        the title says so).
    lat_slo_ms : float
        Latency objective [ms]: a horizontal line and the concurrency where the curve reaches it.
    source : str, optional
        Where the curve comes from, for the title (default: the runs' ids, or the sample's name).
    threads_planned : int, optional
        The plan's outstanding I/O per client, marked.
    max_threads : int, optional
        Right end of the axis; default: past the SLO point and the plan, at least 128.

    Returns
    -------
    plotly.graph_objects.Figure
        Log x axis [threads]; traces 'latency (USL)' [ms], 'throughput (USL) [IOPS]' on a
        second axis, 'measured' (a frame's runs), 'SLO reached' (where finite).

    Raises
    ------
    anfperf.ModelError
        Not a USL fit, a frame without a sweep to fit, or `lat_slo_ms` not > 0.
    """
    if not isinstance(lat_slo_ms, int | float) or not lat_slo_ms > 0:
        raise ModelError(f"lat_slo_ms must be > 0, got {lat_slo_ms!r}")
    params, source, points = _usl_from(curve, source)
    at_slo = float(models.usl_concurrency_at_latency(lat_slo_ms, **params))
    seen = float(points["outstanding"].max()) if points is not None else 0.0
    top = max_threads or int(max(128, 1.5 * at_slo if math.isfinite(at_slo) else 0,
                                 2 * (threads_planned or 0), 1.5 * seen))  # fmt: skip
    n = np.unique(np.geomspace(1, top, 200).round())
    lat = np.asarray(models.usl_latency_ms(n, **params), float)
    rate = np.asarray(models.usl(n, **params), float)
    fig = figure(
        f"Threads vs latency: USL fitted on {source}", "Outstanding I/O [threads]",
        "Mean latency [ms]",
    )  # fmt: skip
    _usl_lines(fig, n, lat, rate)
    top_lat = 3 * lat_slo_ms
    if points is not None:
        fig.add_scatter(
            x=points["outstanding"], y=points["lat_mean_ms"], mode="markers", name="measured",
            marker={"color": COLORWAY[1], "size": 8},
            customdata=points["iops"],
            hovertemplate="measured: %{x:.0f} outstanding, %{y:.3f} ms, %{customdata:,.0f} IOPS"
            "<extra></extra>",
        )  # fmt: skip
        top_lat = max(top_lat, 1.1 * float(points["lat_mean_ms"].max()))
    fig.add_hline(y=lat_slo_ms, line={"color": SLO_COLOR, "dash": "dash", "width": 1.5})
    if math.isfinite(at_slo):
        fig.add_scatter(
            x=[at_slo], y=[lat_slo_ms], mode="markers+text", name="SLO reached",
            text=[f"{at_slo:.0f} threads at {lat_slo_ms:g} ms"], textposition="top left",
            marker={"color": SLO_COLOR, "size": 11, "symbol": "diamond"},
            hovertemplate="SLO reached at %{x:.0f} threads<extra></extra>",
        )  # fmt: skip
    else:
        subtitle(fig, f"the curve's unloaded latency ({lat[0]:.3f} ms) is above the SLO")
        top_lat = max(top_lat, 1.5 * float(lat[0]))
    if threads_planned:
        fig.add_vline(x=threads_planned, line={"color": LIMIT_COLOR, "dash": "dot"})
        fig.add_annotation(
            x=math.log10(threads_planned), xref="x", y=1.0, yref="paper", showarrow=False,
            xanchor="left", yanchor="top", text=f" plan: {threads_planned} threads",
            font={"color": LIMIT_COLOR},
        )  # fmt: skip
    fig.update_xaxes(type="log")
    # the latency axis only (update_yaxes would also fix the throughput axis)
    fig.update_layout(yaxis_range=[0, top_lat])
    return fig


def _target_on_curve(params: Mapping[str, float], target_iops: float) -> float:
    """Outstanding I/O at which a USL fit reaches `target_iops` (NaN: it never does)."""
    if not models.usl_max(**params) >= target_iops:
        return math.nan
    return float(models.usl_concurrency_at_rate(target_iops, **params))


def concurrency_for_target(
    target_iops: float,
    lat_slo_ms: float,
    *,
    outstanding: int,
    lat_ms: float | None = None,
    vm_count: int = 1,
    curve: Mapping[str, float] | pd.DataFrame | None = None,
    source: str | None = None,
) -> go.Figure:
    """The plan's outstanding I/O on the target's Little's-law line, and a measured curve.

    Little's law ties outstanding I/O N, rate X and mean latency R: N = X R. At the target
    rate every N has one latency at which it delivers exactly the target, R = N / X: the
    line drawn. The plan sizes N for the latency it expects (the SLO unless told), so its
    point lies on the line where the line meets that latency: the most outstanding I/O the
    SLO allows. A sweep measured on a real system (`curve`) adds that system's latency at each
    N (a USL fit); where it crosses the line, that system delivers the target -- a curve holds
    for the system it was measured on, so its traces are named after `source`.

    Parameters
    ----------
    target_iops : float
        The target rate [1/s].
    lat_slo_ms : float
        Latency objective [ms].
    outstanding : int
        The plan's outstanding I/O, all client VMs together [-].
    lat_ms : float, optional
        The latency the plan sized for [ms] (default: the SLO).
    vm_count : int
        Client VMs the outstanding I/O is spread over (named in the plan's marker).
    curve : mapping, pandas.DataFrame or None
        A USL fit to IOPS (lam, sigma, kappa), or the tidy frame of a concurrency sweep
        (fitted here; its measured points drawn too); None: the plan alone.
    source : str, optional
        Name of the curve's data, in the title and the traces' names.

    Returns
    -------
    plotly.graph_objects.Figure
        Log-log axes, x: outstanding I/O (all VMs), y: mean latency [ms]. Traces "Little's
        law at the target", 'latency SLO <n> ms', 'plan: <N> outstanding I/O ...' (one marker
        at (outstanding, lat_ms)) and, with a curve, 'latency measured on <source> (USL
        fit)', 'measured on <source>' (a frame's points) and 'the target on <source>: ...'
        where the fit reaches the target.

    Raises
    ------
    anfperf.ModelError
        A target or SLO not > 0, `outstanding` < 1, or a curve that is not a USL fit.
    """
    if not isinstance(target_iops, int | float) or not 0 < target_iops < math.inf:
        raise ModelError(f"target_iops must be a number > 0, got {target_iops!r}")
    if not isinstance(lat_slo_ms, int | float) or not lat_slo_ms > 0:
        raise ModelError(f"lat_slo_ms must be > 0, got {lat_slo_ms!r}")
    if not isinstance(outstanding, int | np.integer) or outstanding < 1:
        raise ModelError(f"outstanding must be an integer >= 1, got {outstanding!r}")
    lat = float(lat_ms if lat_ms is not None else lat_slo_ms)
    rate = float(target_iops)
    title = f"Outstanding I/O for {format_number(rate)} IOPS: the plan by Little's law"
    params = points = None
    about = ""
    if curve is not None:
        params, source, points = _usl_from(curve, source)
        title += f", and latency measured on {source}"
        # the title says what the source is; the legend names it short
        short = source.split(" (")[0]
        about = source[len(short) + 2 : -1] if short != source else ""
        source = short
    fig = figure(title, "Outstanding I/O, all client VMs [count]", "Mean latency [ms]")
    seen = float(points["outstanding"].max()) if points is not None else 0.0
    n_hi = max(4.0 * outstanding, 1.5 * seen, 16.0)
    n = np.geomspace(1.0, n_hi, 200)
    fig.add_scatter(
        x=n, y=models.latency_at_concurrency(n, rate), mode="lines", line={"color": MODEL_COLOR, "width": 2.5},
        name=f"Little's law at the target: latency = outstanding / {format_number(rate)} IOPS",
        hovertemplate=f"%{{x:,.0f}} outstanding deliver {format_number(rate)} IOPS at %{{y:.3g}} ms"
        "<extra></extra>",
    )  # fmt: skip
    ys = [models.latency_at_concurrency(1.0, rate), models.latency_at_concurrency(n_hi, rate),
          lat_slo_ms]  # fmt: skip
    notes = [
        "on the line every outstanding I/O delivers the target; the plan sizes for "
        f"{lat:g} ms (the most outstanding I/O the SLO allows)"
    ]
    if params is not None and about:
        notes.append(f"{source} is the {about}: its latency shows a shape, not this volume's")
    if params is not None:
        lat_curve = np.asarray(models.usl_latency_ms(n, **params), float)
        fig.add_scatter(
            x=n, y=lat_curve, mode="lines", name=f"latency measured on {source} (USL fit)",
            line={"color": COLORWAY[0], "dash": "dot", "width": 2},
            customdata=np.asarray(models.usl(n, **params), float),
            hovertemplate=f"{source}: %{{x:,.0f}} outstanding, %{{y:.3g}} ms, "
            "%{customdata:,.0f} IOPS<extra></extra>",
        )  # fmt: skip
        ys += [float(lat_curve.min()), float(lat_curve.max())]
        if points is not None:
            fig.add_scatter(
                x=points["outstanding"], y=points["lat_mean_ms"], mode="markers",
                name=f"measured on {source}", marker={"color": COLORWAY[1], "size": 8},
                customdata=points["iops"],
                hovertemplate="measured: %{x:.0f} outstanding, %{y:.3g} ms, "
                "%{customdata:,.0f} IOPS<extra></extra>",
            )  # fmt: skip
            ys += [float(v) for v in points["lat_mean_ms"] if v > 0]
        n_star = _target_on_curve(params, rate)
        if math.isfinite(n_star):
            lat_star = models.latency_at_concurrency(n_star, rate)
            fig.add_scatter(
                x=[n_star], y=[lat_star], mode="markers",
                name=f"the target on {source}: {n_star:,.0f} outstanding at {lat_star:.3g} ms",
                marker={"color": COLORWAY[0], "size": 11, "symbol": "diamond"},
                hovertemplate=f"{source} delivers {format_number(rate)} IOPS with "
                              "%{x:,.1f} outstanding at %{y:.3g} ms<extra></extra>",
            )  # fmt: skip
        else:
            notes.append(
                f"{source} peaks at {format_number(models.usl_max(**params))} IOPS, below the "
                "target"
            )
    y_range = (min(ys) / 1.6, max(ys) * 1.6)
    _hline(fig, lat_slo_ms, (1.0, n_hi), f"latency SLO {lat_slo_ms:g} ms", color=SLO_COLOR)
    per_vm = math.ceil(outstanding / vm_count)
    spread = f", {per_vm:,} per VM on {_vms(vm_count)}," if vm_count > 1 else " on 1 VM,"
    fig.add_scatter(
        x=[outstanding], y=[lat], mode="markers",
        name=f"plan: {outstanding:,} outstanding I/O{spread} at {lat:g} ms",
        marker={"color": SLO_COLOR, "size": 13, "symbol": "star",
                "line": {"color": "#333", "width": 1}},
        hovertemplate=f"plan: {outstanding:,} outstanding I/O{spread} {format_number(rate)} IOPS x "
        f"{lat:g} ms<extra></extra>",
    )  # fmt: skip
    log_axis(fig, "x", [1.0, n_hi], base=2, pad=0.0)
    log_axis(fig, "y", list(y_range), pad=0.0)
    fig.update_layout(showlegend=True, legend={"x": 0.01, "y": 0.99, "xanchor": "left"})
    subtitle(fig, *notes)
    return fig


def cost_vs_throughput(
    prices: Mapping[str, float],
    levels: Sequence[str] = PLANNED_LEVELS,
    target_mib_s: float = 1000.0,
    *,
    volume_type: str = "regular",
    rule: str = "current",
    capacity_tib: float = 0.0,
    max_mib_s: float | None = None,
    region: str | None = None,
) -> go.Figure:
    """What-if: the monthly cost of the capacity pool against the throughput, per level.

    Each point is :func:`anfperf.models.limits.plan.pool_cost_usd_month`: the pool one volume of the
    level needs for that throughput (whole pool steps, so the lines are stairs), at `prices`;
    Flexible adds its throughput beyond the baseline. A level is drawn up to its volume
    type's cap or largest quota; levels without a price are named under the title.

    Parameters
    ----------
    prices : mapping
        As :func:`anfperf.models.plan` takes them: USD per GiB-hour per level, and per
        MiB/s-hour of ``'Flexible throughput'``.
    levels : sequence of str
        Service levels drawn.
    target_mib_s : float
        Target throughput [MiB/s], a vertical line; each level's cost there is a marker.
    volume_type, rule : str
        As in :func:`anfperf.models.plan`.
    capacity_tib : float
        Capacity the volume must hold [TiB].
    max_mib_s : float, optional
        Right end of the throughput axis [MiB/s]; default twice the target.
    region : str, optional
        Region of the prices, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per priced level (named after it), one marker per level meeting the target
        (``'<level>: <cost> USD a month at the target'``), the target line.

    Raises
    ------
    anfperf.ModelError
        A target not > 0, an unknown level, or no level priced.
    """
    from anfperf.models.limits.plan import pool_cost_usd_month

    target = _check_target(target_mib_s)
    names = list(dict.fromkeys(q.level_name(n) for n in levels))
    top = float(max_mib_s) if max_mib_s else 2 * target
    xs = np.unique(np.concatenate([np.geomspace(max(top / 200, 1.0), top, 160), [target]]))
    where = f", list prices of {region}" if region else ""
    fig = figure(
        f"Monthly cost vs throughput per level: the capacity pool of one {volume_type} volume"
        f"{where}", "Throughput [MiB/s]", "Monthly cost of the capacity pool [USD]",
    )  # fmt: skip
    notes, costs = [], []
    for i, name in enumerate(names):
        points, stop = [], ""
        for x in xs:
            try:
                points.append((x, *pool_cost_usd_month(
                    name, x, prices, capacity_tib=capacity_tib, volume_type=volume_type,
                    rule=rule)))  # fmt: skip
            except ModelError as exc:
                stop = str(exc)
                break
        if stop and (not points or points[-1][0] < target):
            try:  # the reason at the target itself, not at the first point past the cap
                pool_cost_usd_month(name, target, prices, capacity_tib=capacity_tib,
                                    volume_type=volume_type, rule=rule)  # fmt: skip
            except ModelError as exc:
                stop = str(exc)
            notes.append(f"{name} cannot meet the target: {stop}")
        if not points:
            continue
        x, pool, usd = (np.array(v) for v in zip(*points, strict=True))
        color = LEVEL_COLORS[i % len(LEVEL_COLORS)]
        fig.add_scatter(
            x=x, y=usd, mode="lines", name=name, line={"color": color, "shape": "hv"},
            customdata=pool,
            hovertemplate=f"{name}: %{{x:,.0f}} MiB/s, %{{customdata:g}} TiB pool, "
            "%{y:,.0f} USD a month<extra></extra>",
        )  # fmt: skip
        costs += list(usd)
        if x[-1] >= target:
            at = float(usd[np.searchsorted(x, target)])
            fig.add_scatter(
                x=[target], y=[at], mode="markers",
                name=f"{name}: {at:,.0f} USD a month at the target",
                marker={"size": 10, "color": color, "line": {"color": "#333", "width": 1}},
                hovertemplate=f"{name}: {at:,.2f} USD a month for {format_number(target)} MiB/s"
                "<extra></extra>",
            )  # fmt: skip
    if not costs:
        raise ModelError("no level is priced: " + "; ".join(notes))
    _vline(fig, target, (min(costs), max(costs)), _target_name(target), color=SLO_COLOR)
    log_axis(fig, "x", [float(xs[0]), top])
    log_axis(fig, "y", [min(costs), max(costs)])
    subtitle(fig, *notes)
    return fig
