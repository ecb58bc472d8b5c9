"""Response-time and scalability curves fitted to measured runs, gathered under one name.

Each model lives in a module of its own (:mod:`~anfperf.models.usl`,
:mod:`~anfperf.models.mva`, :mod:`~anfperf.models.queueing`, :mod:`~anfperf.models.blend`);
this module re-exports them. Each is a pure function with a paired fit taking arrays
(``model(x, **fit_model(x, y))``; from a tidy frame, ``fit_model(*sweep_xy(frame, ...))``):

- :func:`queueing_latency` -- the response time of a queueing centre as load grows,
  ``R = lat_min_ms / (1 - U**servers)`` with utilisation ``U = iops / iops_max``: M/M/1 for one
  server, the usual approximation of M/M/m for more. Fitted to (load, latency) points such as
  a Vdbench ``iorate=curve`` run. Predicts the IOPS at a latency SLO ("IOPS at 2 ms", as the
  SPEC SFS tables quote) and the knee (where R = 2 x the unloaded latency, by default).
- :func:`usl` -- Gunther's Universal Scalability Law, ``X(N) = lam N / (1 + sigma (N - 1) +
  kappa N (N - 1))``, fitted to (concurrency, throughput) points such as a Vdbench
  ``forthreads=`` or fio iodepth sweep. The fit needs no N = 1 point: it starts from
  ``lam = max(X / N)`` and several (sigma, kappa) pairs and keeps the best. Predicts throughput
  at a concurrency, at a latency SLO (through Little's law, R = N / X), the knee (Kneedle) and
  the maximum at ``N = floor(sqrt((1 - sigma) / kappa))``.

- :func:`mva_throughput` -- a closed queueing network (mean value analysis): flat latency until
  a bottleneck saturates; :func:`throughput_curve` -- the default curve, the USL, Amdahl's law
  and the MVA network weighted by how well each extrapolated within the sweep.

The fits weight points by their relative error (a sweep spans orders of magnitude), bound the
parameters, report covariance-based standard errors or bootstrap intervals with a fixed seed
(:func:`anfperf.models.predict_band` gives any fit's prediction band), and give
R^2 and the median absolute percentage error. Too few points is an error (fewer than the
parameters) or a :class:`FewPointsWarning` (fewer than 6); data that never saturate give a
:class:`SaturationWarning`, and the maximum is then an extrapolation.
"""

from anfperf.models._common import FewPointsWarning, SaturationWarning
from anfperf.models._fitting import kneedle
from anfperf.models.blend import fit_throughput_curve, throughput_curve
from anfperf.models.mva import fit_mva_throughput, mva_throughput
from anfperf.models.queueing import (
    fit_queueing_latency,
    queueing_closed_max,
    queueing_iops_at_latency,
    queueing_knee,
    queueing_latency,
)
from anfperf.models.usl import (
    fit_usl,
    usl,
    usl_concurrency_at_latency,
    usl_knee,
    usl_latency_ms,
    usl_max,
    usl_peak,
    usl_throughput_at_latency,
)

__all__ = [
    "FewPointsWarning",
    "SaturationWarning",
    "fit_mva_throughput",
    "fit_queueing_latency",
    "fit_throughput_curve",
    "fit_usl",
    "kneedle",
    "mva_throughput",
    "queueing_closed_max",
    "queueing_iops_at_latency",
    "queueing_knee",
    "queueing_latency",
    "throughput_curve",
    "usl",
    "usl_concurrency_at_latency",
    "usl_knee",
    "usl_latency_ms",
    "usl_max",
    "usl_peak",
    "usl_throughput_at_latency",
]
