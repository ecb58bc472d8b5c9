"""Response-time and scalability curves fitted to measured runs: one module per model; their
public functions are offered by :mod:`anfperf.models`. Each is a pure function with a paired fit taking arrays
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

Each model module registers one :class:`~anfperf.models.curves.registry.ModelSpec` (its model,
fit, refit and, where it has them, how to read an operating point off it); bands
(:mod:`~anfperf.models.curves.band`, :mod:`~anfperf.models.curves.bootstrap`) and the
operating point (:mod:`~anfperf.models.curves.curve_reading`) look models up there.

The fits weight points by their relative error (a sweep spans orders of magnitude), bound the
parameters, report covariance-based standard errors or bootstrap intervals with a fixed seed
(:func:`anfperf.models.predict_band` gives any fit's prediction band), and give
R^2 and the median absolute percentage error. Too few points is an error (fewer than the
parameters) or a :class:`FewPointsWarning` (fewer than 6); data that never saturate give a
:class:`SaturationWarning`, and the maximum is then an extrapolation.
"""
