"""Measured throughput against the ANF bandwidth model: quota x service level, capped.

One chart answers "is the volume what limits us?": the throughput each service level allows at
each quota, the volume caps, and where the run measured sits, with the binding constraint named
as :func:`anfperf.analysis.findings.quota_check` works it out (so chart and report text agree). The
measured point of a tidy frame is :func:`anfperf.analysis.findings.operating_point`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from anfperf.analysis import findings
from anfperf.errors import ModelError
from anfperf.models.limits import quota as q
from anfperf.models.limits.quota import PLANNED_LEVELS
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    MODEL_COLOR,
    SLO_COLOR,
    figure,
    fit_legend,
    log_axis,
    plot_text,
    subtitle,
)
from anfperf.plots._style import (
    rule as draw_rule,
)
from anfperf.values import format_number, format_quota

#: Colours of the level lines: the series colours without the one meaning "binds" (SLO_COLOR).
LEVEL_COLORS = tuple(c for c in COLORWAY if c != SLO_COLOR)
#: Points of the log-spaced quota grid (the lines' corners are added to it).
GRID_POINTS = 120
# how the Flexible line's cap is named: manual QoS gives one volume at most this much
_FLEXIBLE_CAP = "Flexible: manual QoS"
#: Constraint names of :func:`anfperf.models.predict_achievable` that are the volume's own.
VOLUME_CONSTRAINTS = ("volume quota", "volume type cap")


def level_line(
    quota_tib: np.ndarray, level: str, volume_type: str = "regular", rule: str = "current"
) -> np.ndarray:
    """Throughput limit of one level along quotas [MiB/s], as the chart draws it.

    Standard / Premium / Ultra: :func:`anfperf.models.limits.quota.throughput_limit` (auto QoS).
    Flexible (manual QoS only): the most one volume gets when it fills its pool, quota = pool
    size: :func:`anfperf.models.limits.quota.pool_throughput_limit`, at most the manual-QoS maximum of
    a volume (:func:`anfperf.models.limits.quota.manual_qos_range_mib_s`).

    Parameters
    ----------
    quota_tib : numpy.ndarray
        Volume quotas [TiB], inside the level's size range.
    level, volume_type, rule
        As in :func:`anfperf.models.limits.quota.throughput_limit`.
    """
    if q.level_name(level) == "Flexible":
        pool = np.asarray(q.pool_throughput_limit(quota_tib, "Flexible"), dtype=float)
        return np.minimum(pool, q.manual_qos_range_mib_s()[1])
    return np.asarray(q.throughput_limit(quota_tib, level, volume_type, rule), dtype=float)


def _corners(level: str, volume_type: str, rule: str) -> list[float]:
    """Quotas [TiB] where a level's line bends: drawn exactly, not cut short by the grid."""
    if q.level_name(level) == "Flexible":
        row = q.service_levels().set_index("level").loc["Flexible"]
        per_tib = float(row["pool_max_mib_s_per_tib"])
        return [
            float(row["pool_baseline_mib_s"]) / per_tib,
            q.manual_qos_range_mib_s()[1] / per_tib,
        ]
    return [q.volume_type_cap(level, volume_type, rule) / q.level_rate(level)]


def quota_model(
    scenario: QuotaScenario | None = None,
    *,
    measured_bw_mib_s: float | None = None,
    measured_label: str = "measured",
    levels: Sequence[str] = PLANNED_LEVELS,
    volume_name: str | None = None,
    **fields,
) -> go.Figure:
    """Throughput against volume quota per service level, with the run's operating point.

    Parameters
    ----------
    scenario : anfperf.models.QuotaScenario, optional
        The volume measured (its `quota_tib` [TiB] and auto-QoS `level`, 'Standard', 'Premium'
        or 'Ultra'; a `manual_bw_mib_s` puts the model's point there), the clients and the I/O
        (`bs_kib` [KiB] of the measured point): the scenario of
        :func:`anfperf.analysis.findings.quota_check`, so that chart and report name the same
        binding constraint.
    measured_bw_mib_s : float, optional
        Throughput measured [MiB/s]; None draws the model alone (no binding constraint named).
    measured_label : str
        Name of the measured point (e.g. :func:`anfperf.analysis.findings.operating_point`'s label).
    levels : sequence of str
        Levels drawn (:func:`level_line`); Flexible is the most one volume of a Flexible pool
        of that size can be given (its throughput is bought, not tied to the quota).
    volume_name : str, optional
        Name of the volume measured (:attr:`anfperf.azure.AnfVolume.name`), in the title and on
        its quota line.
    **fields
        Fields of the scenario (``quota_tib=4, level="Premium", bs_kib=64``), or what to
        change in `scenario`.

    Returns
    -------
    plotly.graph_objects.Figure
        Log-log axes (decade labels): one line per level (named after the level), the volume
        caps as dashed horizontal lines named in the legend ('regular volume cap 1,600 MiB/s
        (Standard)'; red where the cap binds), the measured point (a star named
        `measured_label`) and the model's prediction at `quota_tib` (an open circle named
        ``"model: ... (binding ...)"``); the title names the binding constraint and the share
        of it measured.

    Raises
    ------
    anfperf.ModelError
        Unknown or manual-QoS-only level, unknown volume type or rule, or a quota outside the
        volume type's range.
    """
    scenario = QuotaScenario.of(scenario, **fields)
    if scenario.level is None or scenario.quota_tib is None:
        raise ModelError("quota_model needs the volume's level and quota_tib")
    name = q.level_name(scenario.level)
    if name == "Flexible":
        raise ModelError(
            "a Flexible volume's throughput is assigned (manual QoS), not set by its quota: give "
            "the measured volume's auto-QoS level (Standard, Premium or Ultra)"
        )
    quota_tib, volume_type, rule = scenario.quota_tib, scenario.volume_type, scenario.rule
    bs_kib, read_pct = scenario.bs_kib, scenario.read_pct
    lo, hi = q.volume_size_range(name, volume_type, rule)
    if not lo * (1 - 1e-9) <= quota_tib <= hi * (1 + 1e-9):
        raise ModelError(
            f"quota_tib {quota_tib:g} outside the {volume_type} range {lo:g}..{hi:g} TiB"
        )
    check = None
    if measured_bw_mib_s is not None:
        check = findings.quota_check(measured_bw_mib_s, scenario)
    named = f"{volume_name}: " if volume_name else ""
    fig = figure(
        f"Throughput vs quota ({named}{volume_type} volume, {bs_kib:g} KiB, {read_pct:g} % read)",
        "Volume quota [TiB]",
        "Throughput [MiB/s]",
    )
    caps = _level_lines(fig, levels, name, volume_type, rule, (lo, hi), quota_tib)
    binds = check is not None and check["binding"] == "volume type cap"
    _cap_lines(fig, caps, q.volume_type_cap(name, volume_type, rule) if binds else None,
               volume_type, (lo, hi))  # fmt: skip
    draw_rule(fig, x=quota_tib, color=LIMIT_COLOR, dash="dot")
    fig.add_annotation(
        x=math.log10(quota_tib), xref="x", y=0.0, yref="paper", xanchor="left",
        yanchor="bottom", text=f" {named}quota {format_quota(quota_tib)}", showarrow=False,
        font={"color": LIMIT_COLOR, "size": 11},
    )  # fmt: skip
    if check is not None:
        _operating_point(fig, check, quota_tib, measured_label)
    # log axes: a 50 GiB and a 100 TiB volume on one chart; explicit range (the caps'
    # annotations would otherwise stretch it)
    log_axis(fig, "x", [lo, hi], pad=0.0)
    drawn = [np.asarray(t.y, float) for t in fig.data if t.y is not None]
    log_axis(fig, "y", np.concatenate([*drawn, list(caps)]))
    fig.update_layout(margin={"t": 80})
    fit_legend(fig)
    return fig


def _level_lines(
    fig: go.Figure,
    levels: Sequence[str],
    name: str,
    volume_type: str,
    rule: str,
    sizes: tuple[float, float],
    quota_tib: float,
) -> dict[float, list[str]]:
    """One throughput-vs-quota line per level; returns the caps met and the levels of each."""
    caps: dict[float, list[str]] = {}
    for i, each in enumerate(levels):
        each = q.level_name(each)
        flexible = each == "Flexible"
        if flexible:
            each_lo, each_hi = sizes
            caps.setdefault(q.manual_qos_range_mib_s()[1], []).append(_FLEXIBLE_CAP)
            label = "Flexible (one volume filling its pool)"
        else:
            each_lo, each_hi = q.volume_size_range(each, volume_type, rule)
            caps.setdefault(q.volume_type_cap(each, volume_type, rule), []).append(each)
            label = f"{each} ({q.level_rate(each):g} MiB/s per TiB)"
        grid = np.geomspace(each_lo, each_hi, GRID_POINTS)
        extra = [
            x for x in [*_corners(each, volume_type, rule), quota_tib] if each_lo < x < each_hi
        ]
        # with the corners in the grid the polyline is the model exactly, also between points
        grid = np.unique(np.concatenate([grid, extra]))
        fig.add_scatter(
            x=grid, y=level_line(grid, each, volume_type, rule), mode="lines", name=label,
            line={"color": LEVEL_COLORS[i % len(LEVEL_COLORS)],
                  "width": 3 if each == name else 1.5,
                  "dash": "dashdot" if flexible else "solid"},
            hovertemplate=f"{each}: %{{y:,.4~r}} MiB/s at %{{x:.4~r}} TiB<extra></extra>",
        )  # fmt: skip
    return caps


def _cap_lines(
    fig: go.Figure,
    caps: dict[float, list[str]],
    binding_cap: float | None,
    volume_type: str,
    sizes: tuple[float, float],
) -> None:
    """A dashed line per cap, named in the legend with its levels; the binding one stands out.

    The names are legend entries, not text on the plot: caps lie close together on a log axis
    (1,600 and 4,500 MiB/s), and other lines (a plan's target) run along them.
    """
    for cap, names in sorted(caps.items()):
        binds = binding_cap is not None and cap == binding_cap
        color, width = (SLO_COLOR, 1.5) if binds else (LIMIT_COLOR, 1.0)
        what = f"{volume_type} volume cap" if names != [_FLEXIBLE_CAP] else "volume maximum"
        fig.add_scatter(
            x=list(sizes), y=[cap, cap], mode="lines", meta="cap",
            name=f"{what} {format_number(cap)} MiB/s ({', '.join(names)})",
            line={"color": color, "dash": "dash", "width": width},
            hovertemplate=f"{what}: {format_number(cap)} MiB/s<extra></extra>",
        )  # fmt: skip


def _operating_point(fig: go.Figure, check: dict, quota_tib: float, label: str) -> None:
    """The measured star, the model's circle, and the binding constraint in the title."""
    measured, predicted = check["measured_bw_mib_s"], check["predicted_bw_mib_s"]
    label = plot_text(label)
    fig.add_scatter(
        x=[quota_tib], y=[measured], mode="markers", name=label,
        marker={"symbol": "star", "size": 16, "color": SLO_COLOR,
                "line": {"color": "#333", "width": 1}},
        hovertemplate=f"{label}: %{{y:,.1f}} MiB/s<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=[quota_tib], y=[predicted], mode="markers",
        name=f"model: {predicted:,.1f} MiB/s (binding: {check['binding']})",
        marker={"symbol": "circle-open", "size": 14, "color": MODEL_COLOR, "line": {"width": 2}},
        hovertemplate=f"model: %{{y:,.1f}} MiB/s<br>binding: {check['binding']}<extra></extra>",
    )  # fmt: skip
    where = "" if check["binding"] in VOLUME_CONSTRAINTS else " (not a volume limit, not drawn)"
    subtitle(
        fig,
        f"binding: {check['binding']}{where} ({check['detail']}); measured "
        f"{check['share_pct']:.0f} % of it",
    )
