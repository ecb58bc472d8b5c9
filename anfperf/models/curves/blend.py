"""The default throughput curve: the USL, Amdahl's law and the MVA network, stacked.

Three physical readings of a concurrency sweep extrapolate differently past its last point:

- Amdahl's law (the USL with kappa = 0): contention only; throughput keeps rising toward
  ``lam / sigma``;
- the USL with kappa: coherency delays too; throughput peaks and falls (an over-driven device
  or client CPU);
- the closed queueing network (:func:`~anfperf.models.curves.mva.mva_throughput`): flat latency
  until a bottleneck saturates, then a plateau at ``1000 / demand_ms``.

Below saturation the data rarely tell them apart, yet they part ways beyond it. The default
curve is their weighted average, with weights from prequential stacking
(:mod:`anfperf.models.curves.selection`): how well the combination predicted the points past each
prefix of the sweep from that prefix. :func:`anfperf.models.predict_band` draws from the three models in those
proportions, so the band spans their disagreement where the data run out.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from anfperf.errors import ModelError, warn
from anfperf.models.curves._fitting import RECOMMENDED_POINTS, _scalar
from anfperf.models.curves.curve_reading import SEARCH_MAX_N, throughput_readers
from anfperf.models.curves.mva import fit_mva_throughput, mva_throughput
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, SaturationWarning, check_points, fit_inputs
from anfperf.models.curves.selection import (
    mixed_predictions,
    prequential_predictions,
    stacking_weights,
)
from anfperf.models.curves.usl import fit_usl, usl
from anfperf.values import format_number

#: Candidates of the default curve: name -> (fit, model).
CANDIDATES = {
    "usl": (lambda x, y: fit_usl(x, y, kappa="fit"), usl),
    "amdahl": (lambda x, y: fit_usl(x, y, kappa=0.0), usl),
    "mva": (fit_mva_throughput, mva_throughput),
}
#: Past the largest concurrency measured by this factor, the candidates' spread is reported.
LOOKAHEAD = 2.0
#: Spread of the candidates (largest / smallest - 1) at the lookahead that earns a note.
DISAGREEMENT = 0.25
#: How that note begins (charts look for it in ``FitResult.notes``).
PARTING_NOTE = "the data do not show where throughput stops growing"


def throughput_curve(
    n: object,
    lam: float,
    sigma: float,
    kappa: float,
    demand_ms: float,
    delay_ms: float,
    usl_weight: float,
    amdahl_lam: float = math.nan,
    amdahl_sigma: float = math.nan,
    amdahl_weight: float = 0.0,
) -> np.ndarray | float:
    """Weighted throughput of the USL, Amdahl's law and the MVA network.

    ``usl_weight usl(N) + amdahl_weight usl(N; amdahl_lam, amdahl_sigma, 0)
    + (1 - usl_weight - amdahl_weight) mva_throughput(N)``.

    Parameters
    ----------
    n : array-like
        Concurrency [-].
    lam, sigma, kappa
        USL parameters (see :func:`~anfperf.models.curves.usl.usl`), fitted to IOPS.
    demand_ms, delay_ms
        MVA parameters (see :func:`~anfperf.models.curves.mva.mva_throughput`) [ms].
    usl_weight : float
        Weight of the USL [-], 0 .. 1.
    amdahl_lam, amdahl_sigma : float
        Amdahl's law (USL with kappa = 0) [1/s], [-]; needed when `amdahl_weight` > 0.
    amdahl_weight : float
        Weight of Amdahl's law [-]; the MVA network has the rest.

    Returns
    -------
    float or numpy.ndarray
        Throughput [1/s].
    """
    mva_weight = 1.0 - usl_weight - amdahl_weight
    for name, w in (("usl_weight", usl_weight), ("amdahl_weight", amdahl_weight)):
        if not 0.0 <= w <= 1.0:
            raise ModelError(f"{name} must be within 0 .. 1, got {w!r}")
    if mva_weight < -1e-9:
        raise ModelError(f"usl_weight + amdahl_weight must be at most 1, got {1 - mva_weight:g}")
    n_arr = np.asarray(n, dtype=float)
    out = usl_weight * np.asarray(usl(n_arr, lam, sigma, kappa))
    if amdahl_weight > 0:
        out = out + amdahl_weight * np.asarray(usl(n_arr, amdahl_lam, amdahl_sigma, 0.0))
    if mva_weight > 1e-12:
        out = out + mva_weight * np.asarray(mva_throughput(n_arr, demand_ms, delay_ms))
    return _scalar(out)


def fit_throughput_curve(concurrency: object, throughput: object) -> FitResult:
    """Fit :func:`throughput_curve`: three models, weighted by how well they extrapolate.

    Each candidate (the USL, Amdahl's law, the MVA network) is fitted to all points; the
    weights come from stacking their prequential predictions (fits to each prefix of the sweep
    predict every point past it; :mod:`anfperf.models.curves.selection`), shrunk toward equal
    weights when few points were predicted.

    Parameters
    ----------
    concurrency : array-like
        Concurrency of each run [-]; from a tidy frame: ``*sweep_xy(frame)``.
    throughput : array-like
        IOPS of each run [1/s].

    Returns
    -------
    FitResult
        ``{'lam', 'sigma', 'kappa', 'demand_ms', 'delay_ms', 'usl_weight', 'amdahl_lam',
        'amdahl_sigma', 'amdahl_weight'}``; `fits` holds the three fits, `weights` the weights,
        `aicc` each fit's AICc (for reference), `selected` the candidate of largest weight.
        `prequential` the average's predictions past each prefix. No covariance (NaN): the
        uncertainty of an average comes from :func:`anfperf.models.predict_band`.

    Raises
    ------
    anfperf.ModelError
        Fewer than 2 distinct concurrencies, NaN, non-positive values, constant throughput,
        or no candidate converging.

    Warns
    -----
    SaturationWarning
        Past the largest concurrency measured the candidates disagree by more than 25 %, or
        the curve still rises there: the data do not show where throughput stops growing.
    """
    x, y = fit_inputs(
        concurrency, throughput, x_name="concurrency", y_name="throughput",
        example="fit_throughput_curve(*sweep_xy(frame, 'outstanding', 'iops'))",
    )  # fmt: skip
    x, y = check_points(
        x, y, x_name="concurrency", y_name="throughput", n_params=2, recommended=RECOMMENDED_POINTS
    )
    fits = _candidate_fits(x, y)
    predictions = {
        name: prequential_predictions(x, y, *CANDIDATES[name]) for name in fits
    }  # fmt: skip
    weights, scored = stacking_weights(predictions, y)
    params = _blend_params(fits, weights)
    notes = [
        "stacking weights "
        + ", ".join(f"{k} {v:.2f}" for k, v in weights.items())
        + (f" from {scored} predictions past each prefix" if scored else ": equal, too few points")
    ]
    notes += _extrapolation_notes(fits, params, x, y)
    for note in notes[1:]:
        warn(note, SaturationWarning)
    return FitResult(
        params,
        model="throughput_curve",
        x=x,
        y=y,
        y_fit=np.asarray(throughput_curve(x, **params)),
        cov=np.full((len(params), len(params)), np.nan),
        notes=notes,
        aicc={name: next(iter(f.aicc.values())) for name, f in fits.items() if f.aicc},
        selected=max(weights, key=weights.get),
        fits=fits,
        weights=weights,
        prequential=mixed_predictions(predictions, weights),
    )


def _candidate_fits(x: np.ndarray, y: np.ndarray) -> dict[str, FitResult]:
    """Each candidate fitted to all points; those that cannot be fitted are left out."""
    fits, errors = {}, []
    for name, (fit, _) in CANDIDATES.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[name] = fit(x, y)
        except ModelError as exc:
            errors.append(f"{name}: {exc}")
    if not fits:
        raise ModelError("no throughput model could be fitted: " + "; ".join(errors))
    return fits


def _blend_params(fits: dict[str, FitResult], weights: dict[str, float]) -> dict[str, float]:
    """The parameters of :func:`throughput_curve` from the candidates and their weights."""
    usl_fit = fits.get("usl") or fits.get("amdahl")
    amdahl = fits.get("amdahl") or usl_fit
    mva = fits.get("mva")
    w = {k: weights.get(k, 0.0) if k in fits else 0.0 for k in CANDIDATES}
    total = sum(w.values())
    w = {k: v / total for k, v in w.items()}
    return {
        "lam": usl_fit["lam"] if usl_fit else math.nan,
        "sigma": usl_fit["sigma"] if usl_fit else math.nan,
        "kappa": usl_fit["kappa"] if usl_fit else math.nan,
        "demand_ms": mva["demand_ms"] if mva else math.nan,
        "delay_ms": mva["delay_ms"] if mva else math.nan,
        "usl_weight": w["usl"],
        "amdahl_lam": amdahl["lam"] if amdahl else math.nan,
        "amdahl_sigma": amdahl["sigma"] if amdahl else math.nan,
        "amdahl_weight": w["amdahl"],
    }


def _extrapolation_notes(
    fits: dict[str, FitResult], params: dict[str, float], x: np.ndarray, y: np.ndarray
) -> list[str]:
    """What the data leave open past the largest concurrency measured."""
    ahead = LOOKAHEAD * float(np.max(x))
    at = {name: float(CANDIDATES[name][1](ahead, **fit)) for name, fit in fits.items()}
    notes = []
    spread = max(at.values()) / min(at.values()) - 1.0
    if spread > DISAGREEMENT:
        notes.append(
            f"{PARTING_NOTE}: at N={ahead:g} the models "
            "part by "
            + f"{spread:.0%} ("
            + ", ".join(f"{k} {format_number(v)}" for k, v in at.items())
            + "); the band of predict_band spans them"
        )
    blended = float(throughput_curve(ahead, **params))
    if blended > 1.1 * float(np.max(y)):
        notes.append(
            f"no saturation seen: the curve still rises to {format_number(blended)} at N={ahead:g} "
            f"({blended / float(np.max(y)) - 1:+.0%} over the best rate measured)"
        )
    return notes


#: Parameters of :func:`throughput_curve` after the concurrency, required or not.
_PARAMS = ("lam", "sigma", "kappa", "demand_ms", "delay_ms", "usl_weight", "amdahl_lam",
           "amdahl_sigma", "amdahl_weight")  # fmt: skip


def _curve(values: dict[str, float]):
    """X(N) of a blend's parameters (those of :func:`throughput_curve` only)."""
    kw = {k: float(values[k]) for k in _PARAMS if k in values}
    return lambda n: throughput_curve(n, **kw)


def _rises_to(values: dict[str, float]) -> float:
    """The average rises as long as its weighted models do: its own peak, not the USL's."""
    grid = np.unique(np.geomspace(1.0, SEARCH_MAX_N, 2000).round())
    return float(grid[int(np.argmax(np.asarray(_curve(values)(grid))))])


_read_rate, _read_latency = throughput_readers("BLEND", _curve, _rises_to)

# a model average: no refit of its own, its bands draw from its component fits by weight
SPEC = register_model(
    ModelSpec(
        "throughput_curve",
        throughput_curve,
        fit=fit_throughput_curve,
        rate_at=_read_rate,
        latency_at_rate_ms=_read_latency,
    )
)
