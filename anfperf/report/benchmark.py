"""What the benchmark report shows, worked out from the findings: verdict, cards, tables.

The notebook ``benchmark_report.ipynb`` is a thin shell over this module and
:mod:`anfperf.report.page`: :func:`main_run` picks the run the page leads with, :func:`headline`
says what the data mean in one paragraph and a row of cards, :func:`runs_table` and
:func:`steps_table` are the tables a person reads. Every number comes from
:mod:`anfperf.analysis.findings` (never typed into the notebook).
"""

from __future__ import annotations

import math
import os
import re

import pandas as pd

from anfperf.analysis import findings
from anfperf.analysis.loops import loop_hints, loop_sweeps
from anfperf.analysis.mixes import mix_check_text, mix_checks
from anfperf.models import QuotaScenario
from anfperf.models.forecast.result import NOT_PREDICTABLE, gist
from anfperf.models.limits.predict import constraint_phrase
from anfperf.report.page import Card, Table, format_number, table
from anfperf.values import format_quota, natural_key

#: Kinds of run that have a load curve, most telling first.
SWEEP_KINDS = (findings.KIND_CONCURRENCY, findings.KIND_RATE)


def main_run(numbers: pd.DataFrame, run_id: str | None = None) -> str | None:
    """The run the page leads with: `run_id`, else the load curve with the highest peak.

    Load curves (concurrency sweeps, rate-limited curves) with a knee come first, then any load
    curve, then any run; runs served from a client cache only when nothing else is there.
    """
    if run_id is not None:
        return run_id
    if numbers.empty:
        return None
    pool = findings.trusted(numbers)
    pool = pool if not pool.empty else numbers
    sweeps = pool[pool["kind"].isin(SWEEP_KINDS)]
    with_knee = sweeps[sweeps["knee_iops"].notna()]
    for candidates in (with_knee, sweeps, pool):
        if not candidates.empty:
            peak = pd.to_numeric(candidates["peak_iops"], errors="coerce").fillna(-1.0)
            return str(candidates.loc[peak.idxmax(), "run_id"])
    return None


def _row(numbers: pd.DataFrame, run_id: str) -> pd.Series:
    return numbers[numbers["run_id"] == run_id].iloc[0]


def _ms(value: float) -> str:
    return f"{format_number(value)} ms"


def _with_slo_band(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `iops_at_slo_band`: the 95 % band of a forecast's IOPS at the SLO, in
    words ('68,933 .. 91,270'), where one has a band."""
    out = frame.copy()
    out["iops_at_slo_band"] = [
        findings.band_words(*band, number=format_number) if band is not None else math.nan
        for _, _, band in (findings.stated_iops_at_slo(row) for _, row in frame.iterrows())
    ]
    return out


def headline(numbers: pd.DataFrame, quota: dict | None, *, run_id: str | None = None) -> dict:
    """The verdict paragraph and the headline cards of a benchmark report.

    Parameters
    ----------
    numbers : pandas.DataFrame
        :func:`anfperf.analysis.findings.key_numbers` (its `cached` flag sets runs apart).
    quota : dict or None
        :func:`quota_verdict`: the operating point against the ANF model, or
        ``{"skipped": reason}``; None leaves the ANF model out.
    run_id : str, optional
        The run to lead with (:func:`main_run`).

    Returns
    -------
    dict
        ``verdict`` (str, ``**bold**`` for the key numbers), ``cards`` (list of
        :class:`anfperf.report.page.Card`) and ``main_run``.
    """
    main = main_run(numbers, run_id)
    sentences: list[str] = []
    out_cards: list[Card] = []
    # None when every run was served from a client cache: no peak of the storage to state
    peak = findings.peak_run(numbers)
    bw = findings.peak_run(numbers, by="peak_bw_mib_s")
    if peak is not None:
        out_cards.append(
            Card(
                "Peak IOPS",
                format_number(peak["peak_iops"]),
                f"{peak['run_id']} · {_ms(peak['lat_at_peak_ms'])} mean",
                key="peak_iops",
                number=peak["peak_iops"],
            )
        )
    if bw is not None:
        out_cards.append(
            Card(
                "Peak throughput",
                f"{format_number(bw['peak_bw_mib_s'])} MiB/s",
                str(bw["run_id"]),
                key="peak_bw_mib_s",
                number=bw["peak_bw_mib_s"],
            )
        )
    if peak is not None and bw is not None:
        sentences.append(
            f"Peak **{format_number(peak['peak_iops'])} IOPS** ({peak['run_id']}, "
            f"{_ms(peak['lat_at_peak_ms'])} mean) and **{format_number(bw['peak_bw_mib_s'])} "
            f"MiB/s** ({bw['run_id']})."
        )
    if main is not None:
        _curve_cards(_row(numbers, main), out_cards, sentences)
    _quota_card(quota, out_cards, sentences)
    cached = numbers[findings.cached_runs(numbers)]
    if not cached.empty:
        names = ", ".join(cached["run_id"].astype(str))
        sentences.append(f"Set apart as served from a client cache: {names}.")
    return {"verdict": " ".join(sentences), "cards": out_cards, "main_run": main}


def _curve_cards(row: pd.Series, out_cards: list[Card], sentences: list[str]) -> None:
    """Knee and IOPS at the SLO of the run the page leads with."""
    run = str(row["run_id"])
    slo = float(row["lat_slo_ms"])
    parts = []
    if pd.notna(row.get("knee_iops")):
        out_cards.append(
            Card(
                "Knee",
                f"{format_number(row['knee_iops'])} IOPS",
                f"{run} · latency doubles at {_ms(row['knee_lat_ms'])}",
                key="knee_iops",
                number=row["knee_iops"],
            )
        )
        parts.append(f"latency doubles past {format_number(row['knee_iops'])} IOPS (knee)")
    value, how, band = findings.stated_iops_at_slo(row)
    how = findings.slo_source_words(how, band, number=format_number)
    why = gist(str(row.get("iops_at_slo_why") or ""))
    if not math.isnan(value):
        out_cards.append(Card(f"IOPS at {slo:g} ms", format_number(value), f"{run} · {how}",
                              key="iops_at_slo", number=value))  # fmt: skip
        parts.append(f"**{format_number(value)} IOPS** at the {slo:g} ms objective ({how})")
    elif why and float(row.get("lat_min_ms", math.nan)) > slo:  # faster than anything measured
        lowest = f"the lowest latency measured is {_ms(row['lat_min_ms'])}"
        out_cards.append(Card(f"IOPS at {slo:g} ms", "not met", f"{run} · {lowest}", "bad",
                              key="iops_at_slo"))  # fmt: skip
        parts.append(f"the {slo:g} ms objective was not met: {lowest}")
    elif why:  # past the measured latencies and no model can tell: say so, not a number
        out_cards.append(Card(f"IOPS at {slo:g} ms", "not predictable", f"{run} · {why}", "warn",
                              key="iops_at_slo"))  # fmt: skip
        parts.append(f"the IOPS at the {slo:g} ms objective is {NOT_PREDICTABLE} ({why})")
    if parts:
        sentences.append(f"{run}: " + "; ".join(parts) + ".")


def _quota_card(quota: dict | None, out_cards: list[Card], sentences: list[str]) -> None:
    if quota is None:
        return
    if quota.get("skipped"):
        out_cards.append(Card("What binds", "no ANF verdict", quota["skipped"], "warn",
                              key="binding"))  # fmt: skip
        sentences.append(f"No verdict against the ANF bandwidth model: {quota['skipped']}.")
        return
    share = quota["share_pct"]
    allowed = (
        f"{format_number(quota['predicted_bw_mib_s'])} MiB/s "
        f"{constraint_phrase(quota['binding'])} allows on {quota['volume']}"
    )
    if share > findings.OVER_MODEL_PCT:
        # far above every limit of the volume: nothing of it binds, the data are from elsewhere
        out_cards.append(Card("ANF verdict", "not this volume", f"measured {format_number(share)}"
                              f" % of the {allowed}: the data cannot come from such a volume",
                              "bad", key="binding"))  # fmt: skip
        sentences.append(
            f"{quota['run_id']}'s {format_number(quota['measured_bw_mib_s'])} MiB/s is "
            f"{format_number(share)} % of the {allowed}: these data cannot come from such a "
            "volume, so no ANF verdict."
        )
        return
    out_cards.append(
        Card(
            "What binds",
            f"{quota['binding']}",
            f"{format_number(quota['predicted_bw_mib_s'])} MiB/s on {quota['volume']}; "
            f"measured {format_number(share)} %",
            key="binding",
            number=str(quota["binding"]),
        )
    )
    sentences.append(
        f"On {quota['volume']} {constraint_phrase(quota['binding'])} binds at "
        f"{format_number(quota['predicted_bw_mib_s'])} MiB/s; {quota['run_id']}'s "
        f"{format_number(quota['measured_bw_mib_s'])} MiB/s is {format_number(share)} % of it."
    )


#: Columns of the runs table, in order.
RUN_COLUMNS = [
    "run_id", "tool", "kind", "points", "peak_iops", "peak_bw_mib_s", "lat_at_peak_ms",
    "lat_min_ms", "knee_iops", "knee_lat_ms", "iops_at_slo_measured", "iops_at_slo_model",
    "iops_at_slo_band",
]  # fmt: skip


def runs_table(numbers: pd.DataFrame, *, caption: str = "") -> Table:
    """One row per run: what it is and its headline numbers (runs from a cache marked)."""
    shown = _with_slo_band(numbers)
    cached = findings.cached_runs(shown)
    shown["run_id"] = shown["run_id"].astype(str).where(~cached, shown["run_id"] + " (cache)")
    slo = numbers["lat_slo_ms"].dropna()
    at = f" {slo.iloc[0]:g} ms" if len(slo) else ""
    labels = {
        "iops_at_slo_measured": f"IOPS at{at} (measured)",
        "iops_at_slo_model": f"IOPS at{at} (model)",
        "iops_at_slo_band": f"IOPS at{at}: 95 % band",
    }
    return table(shown, [c for c in RUN_COLUMNS if c in shown], labels=labels, caption=caption)


#: Columns of a run's job-step table, in order; empty ones are left out.
STEP_COLUMNS = [
    "job", "pattern", "bs_kib", "read_pct", "outstanding", "rate_limit_iops", "hosts", "iops",
    "bw_mib_s", "lat_mean_ms", "lat_p99_ms",
]  # fmt: skip


def steps_table(rows: pd.DataFrame, run_id: str, *, caption: str = "") -> Table:
    """A run's job steps (whole-run numbers, all hosts together) as a table for people.

    Parameters
    ----------
    rows : pandas.DataFrame
        :func:`anfperf.analysis.summary_rows` (or :func:`anfperf.analysis.summary.summary_table`) of the
        report's frame.
    run_id : str
        The run.
    """
    from anfperf.analysis.summary import job_labels

    run = rows[rows["run_id"] == run_id].copy()
    run["job"] = job_labels(run) if not run.empty else run["job"]
    # a sweep's steps as the load grows: a load curve's by requested rate (its files sort as
    # text: r10, r100, r20); else labels that differ in their numbers only: an adaptive sweep
    # ran qd 1, 64, 5, 23 and a loop's files (bs4 .. bs1024, one job name) sort as text too;
    # named workloads keep their order
    rate = pd.to_numeric(run.get("rate_limit_iops", pd.Series(dtype=float)), errors="coerce")
    same = all(
        run[c].nunique(dropna=False) <= 1 for c in ("pattern", "bs_kib", "read_pct") if c in run
    )
    if rate.nunique() > 1 and same:  # a load curve: uncontrolled first, as Vdbench's curve runs
        run = run.iloc[rate.fillna(-math.inf).to_numpy().argsort(kind="stable")]
    elif run["job"].astype(str).str.replace(r"\d+", "#", regex=True).nunique() == 1:
        files = run.get("source_file", pd.Series("", index=run.index)).astype(str)
        keys = [(natural_key(j), natural_key(os.path.basename(f)))
                for j, f in zip(run["job"].astype(str), files, strict=True)]  # fmt: skip
        run = run.iloc[sorted(range(len(run)), key=keys.__getitem__)]
    if "hosts" in run and pd.to_numeric(run["hosts"], errors="coerce").fillna(1).le(1).all():
        run = run.drop(columns="hosts")
    return table(
        run,
        [c for c in STEP_COLUMNS if c in run],
        labels={"rate_limit_iops": "Requested rate [IOPS]"},
        caption=caption,
    )


def grid_table(rows: pd.DataFrame, run_id: str, *, lat_slo_ms: float) -> Table:
    """Each read share of a grid run as a concurrency sweep (:mod:`anfperf.analysis.grids`):
    its peak and the count in flight that gave it, knee and IOPS at the latency objective."""
    from anfperf.analysis.grids import grid_numbers

    per_mix = _with_slo_band(grid_numbers(rows[rows["run_id"] == run_id], lat_slo_ms=lat_slo_ms))
    return table(
        per_mix,
        ["read_pct", "bs_kib", "peak_iops", "outstanding_at_peak", "lat_at_peak_ms",
         "knee_iops", "iops_at_slo_measured", "iops_at_slo_model", "iops_at_slo_band"],
        labels={"outstanding_at_peak": "In flight at peak",
                "iops_at_slo_measured": f"IOPS at {lat_slo_ms:g} ms (measured)",
                "iops_at_slo_model": f"IOPS at {lat_slo_ms:g} ms (model)",
                "iops_at_slo_band": f"IOPS at {lat_slo_ms:g} ms: 95 % band"},
        caption="Each read share as a concurrency sweep",
    )  # fmt: skip


# --- the ANF verdict ---------------------------------------------------------------------------

#: The volume assumed when neither the parameters nor the manifests describe it.
ASSUMED_LEVEL, ASSUMED_QUOTA_TIB = "Premium", 4.0


def quota_verdict(
    analysis,
    prov: dict,
    *,
    level: str | None = None,
    quota_tib: float | None = None,
    volume_type: str = "regular",
    vm_size: str | None = None,
    vm_count: int = 1,
    run_id: str | None = None,
    volume=None,
) -> dict:
    """The operating point against the ANF bandwidth model, or why there is no verdict.

    Parameters
    ----------
    analysis : anfperf.analysis.findings.Analysis
        The report's analysis.
    prov : dict
        :func:`anfperf.analysis.provenance.run_provenance` of the inputs (its hosts say where runs ran).
    level, quota_tib : str and float, optional
        The volume measured; None where not given: a run whose manifest shows no NFS mount then
        gets no verdict, others are set against :data:`ASSUMED_LEVEL` / :data:`ASSUMED_QUOTA_TIB`
        (said so in ``volume``).
    volume_type, vm_size, vm_count
        As in :func:`anfperf.analysis.findings.quota_check`.
    run_id : str, optional
        The run set against the model; None: the one with the highest MiB/s not served from a
        client cache.
    volume : anfperf.azure.AnfVolume, optional
        The volume measured as Azure describes it (:func:`measured_volume`): its level, quota,
        type, cool access and throughput limit replace `level`, `quota_tib` and
        `volume_type`, and its name names the volume.

    Returns
    -------
    dict
        :func:`anfperf.analysis.findings.quota_check`'s dict with ``run_id``, ``label``, ``point`` (the
        operating point), ``volume`` (e.g. "Premium, 4 TiB (assumed)", or the volume's label),
        ``volume_name`` (None without `volume`) and ``scenario`` (the
        :class:`anfperf.models.QuotaScenario` set against the model, which the chart draws);
        or ``{"skipped": reason}``.
    """
    from anfperf.errors import AnfperfError

    try:
        point = analysis.operating_point(run_id)
    except AnfperfError as exc:
        return {"skipped": str(exc)}
    extra: dict = {}
    if volume is not None:
        extra = volume.model_args()
        level, volume_type = extra.pop("level"), extra.pop("volume_type")
        quota_tib = volume.quota_tib
        extra.pop("quota_tib", None)
    given = level is not None and quota_tib is not None
    applies, reason = findings.anf_verdict_applies(prov, level, quota_tib, run_id=point["run_id"])
    if not applies:
        return {"skipped": _short(reason), "reason": reason}
    assumed = not given
    level = level or ASSUMED_LEVEL
    quota_tib = float(quota_tib if quota_tib is not None else ASSUMED_QUOTA_TIB)
    scenario = QuotaScenario(
        bs_kib=point["bs_kib"], read_pct=point["read_pct"], pattern=point["pattern"],
        level=level, quota_tib=quota_tib, volume_type=volume_type, vm_size=vm_size,
        vm_count=vm_count, **extra,
    )  # fmt: skip
    check = findings.quota_check(point["bw_mib_s"], scenario)
    described = f"{level}, {format_quota(quota_tib)}" + (" (assumed)" if assumed else "")
    return {
        **check, "run_id": point["run_id"], "label": point["label"], "point": point,
        "volume": volume.label if volume is not None else described,
        "volume_name": volume.name if volume is not None else None, "scenario": scenario,
        "assumed": assumed, "reason": reason,
    }  # fmt: skip


def known_limits_of_runs(quota: dict, rows: pd.DataFrame) -> dict:
    """The volume's and clients' limit for each run, at the run's own block size.

    The scenario :func:`quota_verdict` set against the model (the volume given, its clients)
    with each run's block size, read pattern and read share: the least documented limit
    (:func:`anfperf.models.forecast.known_limits`) in IOPS at that block size, which the
    latency and scaling charts draw their forecasts up to (``report_charts(known=...)``).

    Parameters
    ----------
    quota : dict
        :func:`quota_verdict`'s dict.
    rows : pandas.DataFrame
        The report's summary rows (``analysis.rows``): run_id, bs_kib, read_pct, pattern.

    Returns
    -------
    dict of str to anfperf.models.forecast.KnownLimits
        Per run id. Empty when there is no verdict or the volume is assumed (an assumed limit
        is no limit known); a run of several block sizes is left out (nothing known: one limit
        in IOPS cannot hold for all of them) unless it is one block-size sweep (the limit at
        its largest size: its MiB/s is what the block-size chart draws).
    """
    scenario = volume_scenario(quota)
    if scenario is None or rows.empty:
        return {}
    out = {}
    for run_id, run in rows.groupby(rows["run_id"].astype(str), sort=False):
        known = findings.run_known_limits(run, scenario)
        if known.known:
            out[str(run_id)] = known
    return out


def volume_scenario(quota: dict) -> QuotaScenario | None:
    """The volume measured as :func:`quota_verdict` set it against the model; None when there
    is no verdict or the volume is only assumed (an assumed limit is no limit known)."""
    if quota.get("skipped") or quota.get("assumed"):
        return None
    return quota.get("scenario")


def measured_volume(
    path=None,
    name: str | None = None,
    notes: list[str] | None = None,
    prov: dict | None = None,
    pool_path=None,
):
    """The volume measured as Azure describes it, or None.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The report's `volume` parameter: ``az netappfiles volume show`` (or list, or ARM)
        JSON (:func:`anfperf.azure.read_volume`).
    name : str, optional
        Which volume, when the file (or the manifests) describe several.
    notes : list of str, optional
        Where what did not add up in the file goes (the report's notes), instead of warnings;
        also where it says that the volume came from the runs' manifests.
    prov : dict, optional
        :func:`anfperf.analysis.provenance.run_provenance`: without `path`, the volume the runs'
        manifests record (the inventory's ``volume_json``), when they record one (or `name`).
    pool_path : str or os.PathLike, optional
        The report's `volume_pool` parameter: its capacity pool's JSON, when `path` does not
        hold it (its QoS type).

    Returns
    -------
    anfperf.azure.AnfVolume or None
        None without `path` and without a volume recorded in the manifests.
    """
    from anfperf.azure import read_volume
    from anfperf.errors import collected_warnings

    if path is None:
        return _manifest_volume(prov, name, notes)
    if notes is None:
        return read_volume(path, name=name, pool_path=pool_path)
    with collected_warnings() as said:
        volume = read_volume(path, name=name, pool_path=pool_path)
    notes.extend(message for message, _ in said)
    return volume


def _manifest_volume(prov: dict | None, name: str | None, notes: list[str] | None):
    """The one volume the runs' manifests describe (``volume_json``), or None (said why)."""
    from anfperf.azure import AnfVolume
    from anfperf.schema import read_manifest

    table = (prov or {}).get("manifests")
    found: dict[tuple[str, str], AnfVolume] = {}
    for manifest in [] if table is None or table.empty else table["manifest"]:
        data = read_manifest(manifest)
        for host in data.get("hosts", {}).values() if isinstance(data, dict) else []:
            for fields in (host.get("volume_json") or {}).values():
                volume = AnfVolume.from_dict(fields)
                if name is None or name in (volume.name, volume.resource_name):
                    found[(volume.resource_id or volume.resource_name, volume.source)] = volume
    said = notes if notes is not None else []
    if len(found) > 1:
        names = ", ".join(sorted(v.resource_id or v.name for v in found.values()))
        said.append(f"the runs' manifests describe {len(found)} volumes ({names}): pass "
                    "volume_name to set one against the model")  # fmt: skip
        return None
    if not found:
        return None
    volume = next(iter(found.values()))
    said.append(f"the volume measured, {volume.label}, is from the runs' manifests "
                f"(inventory volume_json {volume.source})")  # fmt: skip
    said.extend(volume.notes)
    return volume


def _short(reason: str) -> str:
    """A reason without its parenthesised detail (paths), for a card and the verdict."""
    short = re.sub(r"\s*\([^)]*\)", "", reason)
    return short.split(": no ANF quota verdict")[0].strip()


def quota_section(quota: dict, draw) -> object:
    """The "Measured against the ANF bandwidth model" section: chart and limits, or a line.

    `draw` is :func:`anfperf.plots.quota_model` (passed in: this module draws nothing).
    """
    from anfperf.report.page import Section, text

    title = "Measured against the ANF bandwidth model"
    if quota.get("skipped"):
        why = quota.get("reason") or quota["skipped"]
        return Section(title, [text(f"No verdict: {why}.")], open=True, key="anf")
    point = quota["point"]
    against = quota["volume"] if quota.get("volume_name") else f"a {quota['volume']} volume"
    note = (
        f"The run with the highest throughput not served from a client cache, {point['label']}, "
        f"against {against}."
    )
    limits = table(
        quota["constraints"],
        [c for c in ("constraint", "bw_mib_s", "binding", "detail", "source")
         if c in quota["constraints"]],
        labels={"bw_mib_s": "Allows [MiB/s]"},
        caption="Every limit of this scenario; the least of them binds.",
    )  # fmt: skip
    if quota["scenario"].level == "Flexible":  # no throughput-vs-quota line to set it against
        note += (" A Flexible volume's throughput is assigned, not set by its quota: no "
                 "throughput-vs-quota chart.")  # fmt: skip
        return Section(title, [text(note), limits], open=True, key="anf")
    figure = draw(
        quota["scenario"],
        measured_bw_mib_s=point["bw_mib_s"],
        measured_label=point["label"],
        volume_name=quota.get("volume_name"),
    )
    if quota.get("assumed"):
        note += (" The volume is assumed: pass volume (its az netappfiles JSON), or level and "
                 "quota_tib, to describe the one measured.")  # fmt: skip
    return Section(title, [text(note), figure, limits], open=True, key="anf")


# --- charts and sections --------------------------------------------------------------------


#: Height of the chart the page leads with [px]: title, verdict, cards and it fit a 768 px screen.
KEY_CHART_HEIGHT_PX = 400


def key_chart(charts: list, run_id: str | None):
    """The chart the page leads with: the main run's first drawn chart (its latency curve),
    made :data:`KEY_CHART_HEIGHT_PX` high."""
    for chart in charts:
        if chart.run_id == run_id and chart.figure is not None:
            chart.figure.update_layout(height=KEY_CHART_HEIGHT_PX)
            return chart
    return None


def runs_caption(analysis) -> str:
    """What the runs table holds, in one line; and how to read a loop's single runs (one file
    per load point) as the sweep they are (:mod:`anfperf.analysis.loops`)."""
    n = len(analysis.numbers)
    tools = sorted(analysis.frame["tool"].dropna().astype(str).unique())
    hints = [f" {hint}." for hint in loop_hints(loop_sweeps(analysis.rows, analysis.kinds))]
    return (
        f"{n} run{'s' if n != 1 else ''} ({', '.join(tools)}): whole-run rates, all hosts "
        "together, warm-up excluded. Knee: where the fitted latency doubles its unloaded value."
        + "".join(hints)
    )


def run_sections(
    analysis, charts: list, main: str | None, shown=None, adaptive: pd.DataFrame | None = None
) -> list:
    """One folding section per run, most telling first: its charts, steps and notes.

    The chart already shown at the top of the page (`shown`) is not repeated; a chart with
    nothing to draw is one line of text. A mixed step of a run without pure ends of its own is
    set against the pure runs beside it (:mod:`anfperf.analysis.mixes`). A run whose load
    points an adaptive sweep chose (`adaptive`:
    :func:`anfperf.analysis.provenance.adaptive_table`) lists why each one ran.
    """
    from anfperf.report.page import Section, text

    order = _run_order(analysis.numbers, main)
    by_run: dict[str, list] = {r: [] for r in order}
    for chart in charts:
        if chart is shown:
            continue
        by_run.setdefault(chart.run_id, []).append(chart)
    sections = []
    numbers = analysis.numbers.set_index("run_id")
    kinds = analysis.kinds.set_index("run_id")
    checks = mix_checks(analysis.rows, analysis.kinds)
    for run_id, run_charts in by_run.items():
        if run_id not in numbers.index:  # charts of no one run (fio logs)
            title, items = "fio interval logs", []
        else:
            row = numbers.loc[run_id]
            n = int(row["points"])
            if row["kind"] == findings.KIND_SINGLE:
                title = f"{run_id}: {n} job step{'s' if n != 1 else ''}"
            else:
                title = f"{run_id}: {row['kind']} of {n} points"
            if "cached" in kinds and bool(kinds.loc[run_id].get("cached", False)):
                reason = kinds.loc[run_id].get("cache_reason") or "served from a client cache"
                title += " — client cache"
                items = [text(f"Not the storage's numbers: {reason}.")]
            else:
                items = []
        # what the pure runs beside it predict: the first thing a mixed step's section says
        for _, check in checks[checks["run_id"] == run_id].iterrows():
            items.append(text(mix_check_text(check) + "."))
        for chart in run_charts:
            if chart.figure is None:
                items.append(text(f"{chart.heading}: not drawn ({chart.note})."))
            else:
                items.append(chart.figure)
        if run_id in numbers.index:
            if numbers.loc[run_id, "kind"] == findings.KIND_GRID:
                items.append(grid_table(analysis.rows, run_id, lat_slo_ms=analysis.lat_slo_ms))
            items.append(steps_table(analysis.rows, run_id, caption="Job steps"))
            if adaptive is not None and (adaptive["run_id"] == run_id).any():
                items.append(adaptive_steps_table(adaptive, run_id))
            notes = str(numbers.loc[run_id].get("notes") or "")
            if notes:
                items.append(text("Fit notes: " + notes))
        sections.append(Section(title, items, open=run_id == main, key=f"run-{run_id}"))
    return sections


def adaptive_steps_table(adaptive: pd.DataFrame, run_id: str) -> Table:
    """Why each load point of a run's adaptive sweeps ran, and why each sweep stopped."""
    run = adaptive[adaptive["run_id"] == run_id]
    rows = []
    for workload, chosen, reason, stop in zip(
        run["workload"], run["chosen"], run["reason"], run["stop"], strict=True
    ):
        rows.append({"workload": workload, "chosen": chosen, "why": reason})
        if isinstance(stop, str) and stop:  # a row of its own under the sweep's last step
            rows.append({"workload": "", "chosen": math.nan, "why": f"Stopped: {stop}"})
    return table(
        pd.DataFrame(rows, columns=["workload", "chosen", "why"]), ["workload", "chosen", "why"],
        labels={"workload": "Step", "chosen": "Load point", "why": "Why it ran"},
        caption="Load points chosen by the adaptive sweep (anfperf run --adaptive)",
    )  # fmt: skip


def _run_order(numbers: pd.DataFrame, main: str | None) -> list[str]:
    """Runs in order of importance: the main run, load curves, mix and block-size sweeps,
    single points, runs served from a client cache last; by peak IOPS within each."""
    rank = {findings.KIND_CONCURRENCY: 0, findings.KIND_RATE: 0, findings.KIND_GRID: 0,
            findings.KIND_MIX: 1, findings.KIND_BLOCK: 1}  # fmt: skip
    key = numbers.assign(
        _main=numbers["run_id"].ne(main).astype(int),
        _cache=findings.cached_runs(numbers).astype(int),
        _kind=numbers["kind"].map(rank).fillna(2),
        _peak=-pd.to_numeric(numbers["peak_iops"], errors="coerce").fillna(0.0),
    )
    key = key.sort_values(["_main", "_cache", "_kind", "_peak"], kind="stable")
    return key["run_id"].astype(str).tolist()


def _bundled_samples(paths) -> bool:
    """All of `paths` (at least one) lie among anfperf's bundled samples."""
    from pathlib import Path

    from anfperf._bundled import SAMPLES

    samples = Path(str(SAMPLES)).resolve()
    resolved = [Path(p).resolve() for p in paths]
    return bool(resolved) and all(p.is_relative_to(samples) for p in resolved)


def about_items(
    frame: pd.DataFrame,
    prov: dict,
    notes: list[str],
    *,
    kinds: pd.DataFrame | None = None,
    render_command: str = "",
) -> list:
    """What goes into "About this report": what was read, notes, provenance, how to render."""
    from anfperf.report.page import HTML, text

    files = prov["inputs"]
    # the report's provenance block lists the SHA-256 of the inputs its parameters name; the
    # samples a notebook reads by default (paths None) are anfperf's own, named by its version
    where = (
        f"the samples bundled with anfperf {prov['anfperf_version']}"
        if _bundled_samples(files["path"] if len(files) else [])
        else "SHA-256 of each below"
    )
    items: list = [
        text(
            f"{frame['run_id'].nunique()} runs, {len(frame):,} rows from "
            f"{frame['source_file'].nunique()} result files; {len(files)} input files, "
            f"{int(files['bytes'].sum()) if len(files) else 0:,} bytes ({where})."
        )
    ]
    if notes:
        from anfperf.analysis.inputs import Notes

        items.append(Notes("Notes from reading the inputs", notes))
    runs = prov["runs"]
    if kinds is not None:
        runs = runs.merge(kinds[["run_id", "kind"]], on="run_id", how="left")
    items.append(table(runs, caption="Runs, from the result files"))
    if prov["hosts"].empty:
        items.append(
            text(
                "No runner manifest among the inputs: hosts and mounts are not recorded (only "
                "what the result files say)."
            )
        )
    else:
        items.append(table(prov["hosts"], caption="Hosts, from the runner's manifests"))
        items.append(table(prov["workloads"], caption="Workloads, from the runner's manifests"))
    if render_command:
        import html

        items.append(
            HTML(
                "<p>Render this report again with:</p>"
                f"<pre><code>{html.escape(render_command)}</code></pre>"
            )
        )
    return items
