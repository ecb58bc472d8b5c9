"""The benchmark report's "What the volume saw" section: clients against the volume's metrics."""

from __future__ import annotations

import pandas as pd

from anfperf.analysis.server_metrics import grain_label, grain_note, join_client_server, run_windows
from anfperf.errors import AnfperfError
from anfperf.report.page import Section, table, text

__all__ = ["GAP_COLUMNS", "volume_section"]

TITLE = "What the volume saw"
#: The gap table's columns -> headers (units in brackets).
GAP_COLUMNS = {
    "grain_start": "Grain start [UTC]",
    "direction": "Direction",
    "client_s": "Client measured [s]",
    "client_bw_mib_s": "Client [MiB/s]",
    "server_bw_mib_s": "Volume [MiB/s]",
    "client_lat_ms": "Client latency [ms]",
    "server_lat_ms": "Volume latency [ms]",
    "gap_ms": "Gap: client + network [ms]",
}


def volume_section(
    client: pd.DataFrame,
    server: pd.DataFrame,
    draw,
    *,
    manifests: pd.DataFrame | None = None,
) -> Section | None:
    """Client vs server throughput and latency over the runs the volume's metrics cover.

    Parameters
    ----------
    client : pandas.DataFrame
        The report's client rows.
    server : pandas.DataFrame
        The volume's rows (``source='server'``); none: no section (None).
    draw : callable
        :func:`anfperf.plots.server.client_server_chart` (passed in: this module draws nothing).
    manifests : pandas.DataFrame, optional
        :func:`anfperf.analysis.provenance.manifests_table` of the runs: their start and end set the
        window (else each run's rows' span).

    Returns
    -------
    Section or None
        Folded like the others: a sentence (and, plainly, when the metrics' grain is too
        coarse for the runs' length), the chart, the table of the latency gap per grain.
    """
    if server.empty:
        return None
    windows = run_windows(client, manifests)
    first, last = server["timestamp"].min(), server["timestamp"].max()
    grain_s = float(server["runtime_s"].max())
    starts = first - pd.to_timedelta(grain_s, unit="s")
    covered = windows[(windows["end"] > starts) & (windows["start"] < last)]
    volumes = ", ".join(sorted(set(server["host"].dropna().astype(str)))) or "the volume"
    if covered.empty:
        return Section(
            TITLE,
            [
                text(
                    f"The metrics of {volumes} ({starts:%Y-%m-%d %H:%M} to {last:%H:%M} UTC) "
                    "cover none of the runs reported: no comparison."
                )
            ],
            key="volume",
        )
    window = (covered["start"].min(), covered["end"].max())
    runs = list(covered["run_id"].astype(str))
    rows = client[client["run_id"].astype(str).isin(runs)]
    try:
        joined = join_client_server(rows, server, window=window)
    except AnfperfError as exc:
        return Section(TITLE, [text(f"No comparison: {exc}.")], key="volume")
    by = "their manifests" if (covered["by"] == "manifest").all() else "their rows' times"
    intro = (
        f"What {volumes} measured itself (Azure Monitor, {grain_label(grain_s)} points) against what "
        f"the clients measured, run(s) {', '.join(runs)} "
        f"({window[0]:%H:%M:%S} to {window[1]:%H:%M:%S} UTC, from {by}). The client's rates are "
        "averaged over each whole point, as the volume's are; the latency gap is the time a "
        "request spends in the client and the network."
    )
    items: list = [text(intro)]
    note = grain_note(joined, window)
    if note:
        items.append(text(note))
    short = f"{grain_label(grain_s)} points for a {_span(window)} run: too coarse" if note else ""
    items.append(draw(joined, subject=", ".join(runs), note=short, window=window))
    gap = joined.assign(grain_start=joined["grain_start"].dt.strftime("%Y-%m-%d %H:%M"))
    items.append(
        table(
            gap,
            GAP_COLUMNS,
            caption="Per point of the volume's metrics and direction: client against volume.",
            drop_empty=False,
        )
    )
    return Section(TITLE, items, key="volume")


def _span(window: tuple[pd.Timestamp, pd.Timestamp]) -> str:
    seconds = (window[1] - window[0]).total_seconds()
    return f"{seconds / 60:.0f}-minute" if seconds >= 90 else f"{seconds:.0f}-second"
