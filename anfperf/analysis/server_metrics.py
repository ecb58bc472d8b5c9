"""What the volume saw: client rows and the volume's own metrics side by side, per time grain.

The server's metrics (``source='server'`` rows, :mod:`anfperf.ingest.azure_monitor`) come as
averages over a time grain of 1 or 5 minutes; the client's rows cover their own spans (an
interval, or a whole job). :func:`join_client_server` puts both on the server's grain inside a
run's time window (its manifest's task start and end, else the client rows' span:
:func:`run_windows`): per grain and direction, the client's rate averaged over the whole grain (what
the server's average means), the server's, and the latency gap, the time a request spends in
the client and the network (client latency - server latency).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anfperf.errors import AnfperfError
from anfperf.schema import AGGREGATE_HOST

__all__ = [
    "JOIN_COLUMNS",
    "client_window",
    "grain_label",
    "grain_note",
    "join_client_server",
    "run_windows",
    "split_sources",
]


def __dir__() -> list[str]:
    return __all__


#: The columns of :func:`join_client_server`'s frame (units in the names).
JOIN_COLUMNS = [
    "grain_start", "grain_end", "grain_s", "direction", "client_s",
    "client_iops", "server_iops", "client_bw_mib_s", "server_bw_mib_s",
    "client_lat_ms", "server_lat_ms", "gap_ms",
]  # fmt: skip

#: A run shorter than this many of the server's grains is too short for its points: each
#: point then mixes the run with idle time before or after it.
MIN_GRAINS = 2


def split_sources(frame: pd.DataFrame, *more: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(client rows, server rows) of tidy frames (e.g. a report's inputs and the volume's
    metrics files), each with a fresh index."""
    if more:
        frame = pd.concat([frame, *more], ignore_index=True)
    server = (frame["source"] == "server").to_numpy(dtype=bool, na_value=False)
    return frame[~server].reset_index(drop=True), frame[server].reset_index(drop=True)


def run_windows(client: pd.DataFrame, manifests: pd.DataFrame | None = None) -> pd.DataFrame:
    """Start and end [UTC] of each run of `client`: from its manifest where there is one
    (:func:`anfperf.analysis.provenance.manifests_table`'s rows), else its rows' span
    (:func:`client_window`).

    Returns
    -------
    pandas.DataFrame
        Columns run_id, start, end, by ('manifest' or 'rows').
    """
    known = {}
    if manifests is not None and not manifests.empty:
        for row in manifests.dropna(subset=["start", "end"]).itertuples(index=False):
            known[row.run_id] = (row.start, row.end)
    out = []
    for run_id, rows in client.groupby("run_id", sort=False, observed=True):
        if run_id in known:
            out.append((run_id, *known[run_id], "manifest"))
        elif not _spans(rows).empty:
            out.append((run_id, *client_window(rows), "rows"))
    return pd.DataFrame(out, columns=["run_id", "start", "end", "by"])


def client_window(client: pd.DataFrame) -> tuple[pd.Timestamp, pd.Timestamp]:
    """(start, end) of the client rows' measurements [UTC]: from each row's timestamp (its end)
    minus its runtime.

    Raises
    ------
    anfperf.AnfperfError
        No client row has a timestamp and a runtime.
    """
    spans = _spans(client)
    if spans.empty:
        raise AnfperfError("no client row has a timestamp and a runtime: the run's time is unknown")
    return spans["start"].min(), spans["end"].max()


def join_client_server(
    client: pd.DataFrame,
    server: pd.DataFrame,
    *,
    window: tuple[pd.Timestamp, pd.Timestamp] | None = None,
) -> pd.DataFrame:
    """Client and server per server grain and direction, inside the run's window.

    Parameters
    ----------
    client : pandas.DataFrame
        Tidy rows of the run as the clients measured them. Interval rows are used where a job
        has them, else its whole-run rows; the tool's aggregate host ('all') only where no
        host's own rows are there.
    server : pandas.DataFrame
        Tidy ``source='server'`` rows of the volume (one grain each: timestamp = its end,
        ``runtime_s`` = the grain).
    window : (Timestamp, Timestamp), optional
        The run's start and end [UTC] (:func:`run_windows`); default
        :func:`client_window`.

    Returns
    -------
    pandas.DataFrame
        :data:`JOIN_COLUMNS`, one row per grain overlapping the window x direction ('read',
        'write', 'total'): ``client_s`` [s] of the grain the client measured in; client rates
        [1/s, MiB/s] are its I/O in the grain over the whole grain (as the server averages);
        latencies [ms] are means weighted by I/O; ``gap_ms`` = client - server latency.

    Raises
    ------
    anfperf.AnfperfError
        No server row, or none of the server's grains overlaps the run (both spans named).
    """
    if server.empty:
        raise AnfperfError("no server rows (Azure Monitor metrics of the volume) to join")
    start, end = window if window is not None else client_window(client)
    start, end = _utc(start), _utc(end)
    grains = server.assign(
        grain_end=server["timestamp"],
        grain_start=server["timestamp"] - pd.to_timedelta(server["runtime_s"], unit="s"),
    )
    inside = grains[(grains["grain_end"] > start) & (grains["grain_start"] < end)]
    if inside.empty:
        raise AnfperfError(
            f"the volume's metrics ({grains['grain_start'].min():%Y-%m-%d %H:%M} to "
            f"{grains['grain_end'].max():%Y-%m-%d %H:%M} UTC) do not overlap the run "
            f"({start:%Y-%m-%d %H:%M:%S} to {end:%Y-%m-%d %H:%M:%S} UTC)"
        )
    spans = _spans(client)
    out = []
    for row in inside.sort_values(["grain_start", "direction"]).itertuples(index=False):
        g0, g1 = row.grain_start, row.grain_end
        grain_s = (g1 - g0).total_seconds()
        mine = spans[spans["direction"] == row.direction]
        lo = np.maximum(mine["start"], g0)
        hi = np.minimum(mine["end"], g1)
        overlap_s = np.clip((hi - lo).dt.total_seconds().to_numpy(dtype=float), 0.0, None)
        ops = mine["iops"].to_numpy(dtype=float) * overlap_s
        covered = overlap_s > 0
        client_lat = _weighted(mine["lat_mean_ms"].to_numpy(dtype=float), ops, covered)
        out.append(
            {
                "grain_start": g0,
                "grain_end": g1,
                "grain_s": grain_s,
                "direction": row.direction,
                "client_s": _covered_s(lo[covered], hi[covered]),
                "client_iops": _sum_or_nan(ops, covered) / grain_s,
                "server_iops": row.iops,
                "client_bw_mib_s": _sum_or_nan(
                    mine["bw_mib_s"].to_numpy(dtype=float) * overlap_s, covered
                )
                / grain_s,
                "server_bw_mib_s": row.bw_mib_s,
                "client_lat_ms": client_lat,
                "server_lat_ms": row.lat_mean_ms,
                "gap_ms": client_lat - row.lat_mean_ms,
            }
        )
    return pd.DataFrame(out, columns=JOIN_COLUMNS)


def grain_note(joined: pd.DataFrame, window: tuple[pd.Timestamp, pd.Timestamp]) -> str | None:
    """A plain sentence when the server's grain is too coarse for the run's length, else None.

    A server point averages its whole grain: a run shorter than :data:`MIN_GRAINS` grains
    shares each point with idle time, so the server's rates read low and no point is the run
    alone.
    """
    if joined.empty:
        return None
    grain_s = float(joined["grain_s"].max())
    run_s = (_utc(window[1]) - _utc(window[0])).total_seconds()
    if run_s >= MIN_GRAINS * grain_s:
        return None
    return (
        f"The volume's metrics come in {grain_label(grain_s)} points and the run lasted "
        f"{_duration(run_s)}: too coarse for this run. Each point averages the run with idle "
        "time around it, so the server's throughput and IOPS read low (the client's are shown "
        f"averaged over the same points); run at least {_duration(MIN_GRAINS * grain_s)} to "
        "compare them."
    )


def _spans(client: pd.DataFrame) -> pd.DataFrame:
    """Client rows to join: direction, start, end [UTC], iops, bw_mib_s, lat_mean_ms."""
    rows = client[client["timestamp"].notna() & client["runtime_s"].notna()]
    if "source" in rows:
        rows = rows[(rows["source"] != "server").to_numpy(dtype=bool, na_value=True)]
    own = rows["host"] != AGGREGATE_HOST
    if own.any():  # the tool's aggregate adds nothing to its hosts' own rows
        rows = rows[own.to_numpy(dtype=bool, na_value=True)]
    job = ["run_id", "source_file", "host", "job", "step"]
    has_intervals = (~rows["is_summary"]).groupby(
        [rows[c].astype(object).fillna("") for c in job]
    ).transform("any")  # fmt: skip
    rows = rows[(~rows["is_summary"]) | ~has_intervals.astype(bool)]
    end = rows["timestamp"]
    return pd.DataFrame(
        {
            "direction": rows["direction"].astype(str),
            "start": end - pd.to_timedelta(rows["runtime_s"], unit="s"),
            "end": end,
            "iops": rows["iops"],
            "bw_mib_s": rows["bw_mib_s"],
            "lat_mean_ms": rows["lat_mean_ms"],
        }
    ).reset_index(drop=True)


def _weighted(values: np.ndarray, weights: np.ndarray, use: np.ndarray) -> float:
    ok = use & ~np.isnan(values) & ~np.isnan(weights) & (weights > 0)
    return float(np.sum(values[ok] * weights[ok]) / np.sum(weights[ok])) if ok.any() else np.nan


def _sum_or_nan(values: np.ndarray, use: np.ndarray) -> float:
    """Sum of the used values; NaN when none is used or one is unknown (no silent zero)."""
    if not use.any() or np.isnan(values[use]).any():
        return np.nan
    return float(values[use].sum())


def _covered_s(lo: pd.Series, hi: pd.Series) -> float:
    """Seconds covered by the union of the spans [lo, hi]."""
    total, reach = 0.0, None
    for a, b in sorted(zip(lo, hi, strict=True)):
        if reach is None or a > reach:
            total += (b - a).total_seconds()
            reach = b
        elif b > reach:
            total += (b - reach).total_seconds()
            reach = b
    return total


def _utc(t: object) -> pd.Timestamp:
    t = pd.Timestamp(t)
    return t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")


def _duration(seconds: float) -> str:
    """'3 minutes', '1.5 minutes', '40 s'."""
    if seconds >= 60:
        minutes = seconds / 60
        return f"{minutes:.0f} minutes" if minutes == round(minutes) else f"{minutes:.1f} minutes"
    return f"{seconds:.0f} s"


def grain_label(seconds: float) -> str:
    """'5-minute', '1-minute', '1-hour'."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:.0f}-hour"
    return f"{seconds / 60:g}-minute" if seconds >= 60 else f"{seconds:g}-second"
