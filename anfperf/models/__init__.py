"""Models that predict achievable throughput, fitted to real runs and explained.

- :mod:`~anfperf.models.littles_law`: concurrency = throughput x latency; threads needed,
  TCP windows, and a consistency check of ingested runs.
- :mod:`~anfperf.models.limits.quota`: ANF service levels, volume types, QoS and the inverse.
- :mod:`~anfperf.models.limits.client`: VM network egress, NFS in-flight limits, nconnect.
- :mod:`~anfperf.models.curves.usl`, :mod:`~anfperf.models.curves.mva`, :mod:`~anfperf.models.curves.queueing`:
  the Universal Scalability Law, the closed queueing network, the queueing response-time curve
  (the sub-package :mod:`~anfperf.models.curves`); :mod:`~anfperf.models.curves.blend`: the default
  throughput curve, their stacked average (:mod:`~anfperf.models.curves.selection`).
- :mod:`~anfperf.models.curves.registry`: one spec per curve model, registered once;
  :mod:`~anfperf.models.curves.curve_reading`: the rate N I/Os in flight reach and the latency
  at a rate, read off any fitted curve.
- :mod:`~anfperf.models.curves.band`: prediction bands of every fit, from a seeded bootstrap;
  :mod:`~anfperf.models.curves.validation`: how well a fit predicts the upper half of a sweep.
- :mod:`~anfperf.models.curves.mix`: throughput across read/write ratios.
- :mod:`~anfperf.models.limits.predict`: the least of all limits, and which one binds, for a
  :class:`~anfperf.models.limits.scenario.QuotaScenario` (volume, clients, I/O).
- :mod:`~anfperf.models.forecast`: predictions past the data bounded by the volume's known
  limit, Little's law and ANF's published load-latency shape, with honest bands (no number
  where the data cannot tell), judged against holding the last value flat.
- :mod:`~anfperf.models.limits.plan`: from a target to a service level, quota, VMs and threads;
  :mod:`~anfperf.models.limits.prices`: what they cost, from files of the Azure Retail Prices API.

Models are pure functions with paired fit functions returning the model's own parameter names,
so ``usl(n, **fit_usl(n, x))`` predicts. Reference tables are package data,
``anfperf/data/*.csv`` (:func:`load_table`), with a source and a date per row.
"""

from anfperf.models.curves._fitting import kneedle
from anfperf.models.curves.band import band_draws, predict_band
from anfperf.models.curves.blend import fit_throughput_curve, throughput_curve
from anfperf.models.curves.bootstrap import bootstrap_params
from anfperf.models.curves.mix import fit_mix, mix_band, mix_sweep, mix_throughput
from anfperf.models.curves.mva import fit_mva_throughput, mva_throughput
from anfperf.models.curves.queueing import (
    fit_queueing_latency,
    queueing_closed_max,
    queueing_iops_at_latency,
    queueing_knee,
    queueing_latency,
)
from anfperf.models.curves.result import FewPointsWarning, FitResult, SaturationWarning, mdape_pct
from anfperf.models.curves.usl import (
    fit_usl,
    usl,
    usl_concurrency_at_latency,
    usl_concurrency_at_rate,
    usl_knee,
    usl_latency_at_rate_ms,
    usl_latency_ms,
    usl_max,
    usl_peak,
    usl_throughput_at_latency,
)
from anfperf.models.curves.validation import holdout_check
from anfperf.models.forecast import (
    Forecast,
    KnownLimits,
    forecast_latency,
    forecast_throughput,
    judge_forecast,
    known_limits,
    planned_latency,
)
from anfperf.models.limits.client import (
    client_constraints,
    nconnect_ceiling,
    nfs_client_value,
    nfs_inflight_limit,
    vm_egress_mib_s,
    vm_network,
)
from anfperf.models.limits.plan import Plan, plan
from anfperf.models.limits.predict import littles_law_iops, predict_achievable, published_ceiling
from anfperf.models.limits.quota import (
    bw_to_iops,
    flexible_pool_throughput,
    gib_to_tib,
    iops_to_bw,
    level_rate,
    manual_qos,
    manual_qos_range_mib_s,
    mbps_to_mib_s,
    pool_throughput_limit,
    quota_needed,
    service_levels,
    throughput_limit,
    volume_limits,
    volume_size_range,
    volume_type_cap,
)
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.models.littles_law import (
    bandwidth_delay_kib,
    bw_for_window,
    iops_at_concurrency,
    latency_at_concurrency,
    outstanding_io,
    threads_needed,
)
from anfperf.models.tables import data_dir, load_table

__all__ = [
    "FewPointsWarning",
    "FitResult",
    "Forecast",
    "KnownLimits",
    "Plan",
    "QuotaScenario",
    "SaturationWarning",
    "band_draws",
    "bandwidth_delay_kib",
    "bootstrap_params",
    "bw_for_window",
    "bw_to_iops",
    "client_constraints",
    "data_dir",
    "fit_mix",
    "fit_mva_throughput",
    "fit_queueing_latency",
    "fit_throughput_curve",
    "fit_usl",
    "flexible_pool_throughput",
    "forecast_latency",
    "forecast_throughput",
    "gib_to_tib",
    "holdout_check",
    "iops_at_concurrency",
    "iops_to_bw",
    "judge_forecast",
    "kneedle",
    "known_limits",
    "latency_at_concurrency",
    "level_rate",
    "littles_law_iops",
    "load_table",
    "manual_qos",
    "manual_qos_range_mib_s",
    "mbps_to_mib_s",
    "mdape_pct",
    "mix_band",
    "mix_sweep",
    "mix_throughput",
    "mva_throughput",
    "nconnect_ceiling",
    "nfs_client_value",
    "nfs_inflight_limit",
    "outstanding_io",
    "plan",
    "planned_latency",
    "pool_throughput_limit",
    "predict_achievable",
    "predict_band",
    "published_ceiling",
    "queueing_closed_max",
    "queueing_iops_at_latency",
    "queueing_knee",
    "queueing_latency",
    "quota_needed",
    "service_levels",
    "threads_needed",
    "throughput_curve",
    "throughput_limit",
    "usl",
    "usl_concurrency_at_latency",
    "usl_concurrency_at_rate",
    "usl_knee",
    "usl_latency_at_rate_ms",
    "usl_latency_ms",
    "usl_max",
    "usl_peak",
    "usl_throughput_at_latency",
    "vm_egress_mib_s",
    "vm_network",
    "volume_limits",
    "volume_size_range",
    "volume_type_cap",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
