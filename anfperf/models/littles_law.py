"""Little's law: concurrency = throughput x latency.

The law holds for any stable system, whatever the distribution of service times, which makes it
the first check of every storage benchmark: the I/Os a tool keeps in flight (its configured
outstanding I/O) must equal the measured rate times the measured mean latency. It also sizes
tests and clients -- threads needed for a rate at a latency -- and TCP windows (the
bandwidth-delay product).

Worked examples (Azure NetApp Files articles and the seed's Vdbench guidance):

- 3,500 IOPS at 1.14 ms -> 3.99 in flight -> 4 threads.
- 8 KiB at 0.5 ms and 110,000 IOPS -> 55 in flight (performance-linux-concurrency-session-slots).
- 256 KiB at 2 ms and 16,000 IOPS (4,000 MiB/s) -> 32 in flight.
"""

from __future__ import annotations

import logging

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.arrays import float_values
from anfperf.units import KIB_PER_MIB, MS_PER_S

log = logging.getLogger(__name__)

#: More I/Os in flight than any system keeps (and than an int64 holds safely): a unit slip.
MAX_OUTSTANDING = 1e15


def outstanding_io(iops: object, lat_ms: object) -> np.ndarray | float:
    """Mean I/Os in flight for a rate at a latency (Little's law).

    Parameters
    ----------
    iops : array-like
        I/O rate [1/s].
    lat_ms : array-like
        Mean response time [ms].

    Returns
    -------
    float or numpy.ndarray
        Mean outstanding I/O (concurrency) [-]: ``iops * lat_ms / 1000``.
    """
    out = float_values(iops, "iops") * float_values(lat_ms, "lat_ms") / MS_PER_S
    return float(out) if out.ndim == 0 else out


def threads_needed(iops: object, lat_ms: object) -> np.ndarray | int:
    """Threads (outstanding I/Os) needed to drive `iops` when each I/O takes `lat_ms`.

    Parameters
    ----------
    iops : array-like
        Target I/O rate [1/s].
    lat_ms : array-like
        Response time per I/O at that rate [ms] (e.g. the best latency of a 1-thread run).

    Returns
    -------
    int or numpy.ndarray
        ``ceil(iops * lat_ms / 1000)`` [-]; 3,500 IOPS at 1.14 ms -> 3.99 -> 4.
    """
    raw = np.asarray(outstanding_io(iops, lat_ms), dtype=float)
    if np.any(raw < 0) or not np.all(np.isfinite(raw)):
        raise ModelError("iops and lat_ms must be finite and >= 0")
    if np.any(raw > MAX_OUTSTANDING):
        raise ModelError(
            f"iops x lat_ms needs more than {MAX_OUTSTANDING:.0e} I/Os in flight: check the units"
        )
    # round away float noise (3.9999999999 or 4.0000000001 is 4) before the ceiling
    out = np.ceil(np.round(raw, 9)).astype(int)
    return int(out) if out.ndim == 0 else out


def iops_at_concurrency(outstanding: object, lat_ms: object) -> np.ndarray | float:
    """Achievable I/O rate with `outstanding` I/Os in flight at a mean latency.

    Parameters
    ----------
    outstanding : array-like
        I/Os kept in flight [-].
    lat_ms : array-like
        Mean response time [ms]; must be > 0.

    Returns
    -------
    float or numpy.ndarray
        I/O rate [1/s]: ``outstanding / (lat_ms / 1000)``.
    """
    lat = float_values(lat_ms, "lat_ms")
    if np.any(lat <= 0):
        raise ModelError("lat_ms must be > 0")
    out = float_values(outstanding, "outstanding") / (lat / MS_PER_S)
    return float(out) if out.ndim == 0 else out


def latency_at_concurrency(outstanding: object, iops: object) -> np.ndarray | float:
    """Mean latency implied by `outstanding` I/Os in flight at a rate [ms]."""
    rate = float_values(iops, "iops")
    if np.any(rate <= 0):
        raise ModelError("iops must be > 0")
    out = MS_PER_S * float_values(outstanding, "outstanding") / rate
    return float(out) if out.ndim == 0 else out


def bandwidth_delay_kib(bw_mib_s: object, rtt_ms: object) -> np.ndarray | float:
    """Bandwidth-delay product: bytes in flight (TCP window) to sustain a rate over a path.

    Parameters
    ----------
    bw_mib_s : array-like
        Target throughput of the connection [MiB/s].
    rtt_ms : array-like
        Round-trip time [ms].

    Returns
    -------
    float or numpy.ndarray
        Window needed [KiB]: ``bw_mib_s * 1024 * rtt_ms / 1000``. 1,000 MiB/s over a 1 ms
        round trip needs a 1,024 KiB window.
    """
    out = float_values(bw_mib_s, "bw_mib_s") * KIB_PER_MIB * float_values(rtt_ms, "rtt_ms")
    out = out / MS_PER_S
    return float(out) if out.ndim == 0 else out


def bw_for_window(window_kib: object, rtt_ms: object) -> np.ndarray | float:
    """Most one TCP connection can carry with a window over a round trip [MiB/s]."""
    rtt = float_values(rtt_ms, "rtt_ms")
    if np.any(rtt <= 0):
        raise ModelError("rtt_ms must be > 0")
    out = float_values(window_kib, "window_kib") / KIB_PER_MIB / (rtt / MS_PER_S)
    return float(out) if out.ndim == 0 else out
