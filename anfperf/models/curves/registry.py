"""The curve models anfperf knows: one :class:`ModelSpec` per model, registered once.

A spec says what a model is (its function and the parameters it takes), how to fit it and how
to refit it from a fit already found (for bootstrap bands), and, where the model has them, how
to read a workload's operating point off it: the rate N I/Os in flight reach, the latency at a
rate. Bands (:mod:`~anfperf.models.curves.band`), the bootstrap
(:mod:`~anfperf.models.curves.bootstrap`), the operating point
(:mod:`~anfperf.models.curves.curve_reading`) and the charts look models up here, by
``FitResult.model`` or, for a bare mapping of parameters, by the parameter names the models
declare (:func:`spec_for_params`).

Each model module registers its own spec once, ``SPEC = register_model(ModelSpec(...))``; a new
model is its module and that one call. This module imports no model: the built-in ones are
loaded on first lookup (their modules import this one).
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.result import FitResult

#: Modules of the built-in models, each registering its spec when imported.
BUILTIN_MODELS: tuple[str, ...] = (
    "anfperf.models.curves.usl",
    "anfperf.models.curves.mva",
    "anfperf.models.curves.queueing",
    "anfperf.models.curves.mix",
    "anfperf.models.curves.op_cost",
    "anfperf.models.curves.blend",
)

#: ``reader(params, value) -> (result, how)``: an operating point read off a fitted curve.
Reader = Callable[[Mapping[str, float], float], tuple[float, str]]


@dataclass(frozen=True)
class ModelSpec:
    """One curve model: what it is, how it is fitted and refitted, and how it is read.

    Parameters
    ----------
    name : str
        The `model` its fit puts in its :class:`~anfperf.models.FitResult`, e.g. 'usl'.
    model : callable
        ``model(x, **params)``: the curve.
    refit : callable, optional
        ``refit(x, y, start) -> params``: one fit of resampled points, started from the fit
        `start`, holding the parameters in ``start.fixed`` and within ``start.bounds``. Gives
        the model's fits bootstrap draws and prediction bands. None for a model average, whose
        draws come from its component fits.
    fit : callable, optional
        ``fit(x, y) -> FitResult``: the model's fit function.
    params : tuple of str
        The parameters `model` requires (by default those of its signature without a default,
        after x): a bare mapping holding them all is read as this model.
    rate_at : callable, optional
        ``rate_at(params, outstanding) -> (rate [1/s], how)``: the I/O rate `outstanding` I/Os
        in flight reach on the curve, and a sentence saying how.
    latency_at_rate_ms : callable, optional
        ``latency_at_rate_ms(params, rate) -> (latency [ms], how)``: the mean latency at an I/O
        rate on the curve; a :class:`~anfperf.ModelError` when the curve does not reach it.
    band : callable, optional
        ``band(fit, x, level) -> (lower, upper)``: the model's own prediction band, for a model
        whose fits may have no residuals to resample (the read/write mix from its two
        endpoints); :func:`~anfperf.models.predict_band` uses it instead of the bootstrap.
    """

    name: str
    model: Callable[..., np.ndarray | float]
    refit: Callable[[np.ndarray, np.ndarray, FitResult], Mapping[str, float]] | None = None
    fit: Callable[..., FitResult] | None = None
    params: tuple[str, ...] = ()
    rate_at: Reader | None = None
    latency_at_rate_ms: Reader | None = None
    band: Callable[[FitResult, np.ndarray, float], tuple[np.ndarray, np.ndarray]] | None = None

    def __post_init__(self) -> None:
        if not self.params:
            object.__setattr__(self, "params", _required_params(self.model))


def _required_params(model: Callable) -> tuple[str, ...]:
    """Parameters of ``model(x, ...)`` after x that have no default."""
    listed = list(inspect.signature(model).parameters.values())[1:]
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(p.name for p in listed if p.kind in kinds and p.default is inspect.Parameter.empty)


_specs: dict[str, ModelSpec] = {}
_builtins: set[str] = set()
_state = {"loaded": False, "loading": False}
_lock = threading.RLock()


def _load_builtins() -> None:
    with _lock:
        if _state["loaded"] or _state["loading"]:
            return
        _state["loading"] = True  # a built-in module registering itself does not load again
        try:
            for module in BUILTIN_MODELS:
                importlib.import_module(module)
            _state["loaded"] = True
        finally:
            _state["loading"] = False


def register_model(
    spec: ModelSpec | str,
    model: Callable[..., np.ndarray | float] | None = None,
    refit: Callable[[np.ndarray, np.ndarray, FitResult], Mapping[str, float]] | None = None,
) -> ModelSpec:
    """Add a model: its fits get bands and bootstrap draws, and operating points if it reads them.

    Parameters
    ----------
    spec : ModelSpec or str
        The model's spec; or its name, with `model` and `refit` (the short form for a model
        that only needs bands).
    model, refit : callable, optional
        With a name: ``model(x, **params)`` and ``refit(x, y, start) -> params`` (see
        :class:`ModelSpec`).

    Returns
    -------
    ModelSpec
        The spec registered, so that a module can write ``SPEC = register_model(ModelSpec(...))``.

    Raises
    ------
    anfperf.ModelError
        Its name is taken.
    """
    if not isinstance(spec, ModelSpec):
        if model is None:
            raise ModelError(f"register_model({spec!r}, ...) needs the model function")
        spec = ModelSpec(str(spec), model, refit=refit)
    with _lock:
        _load_builtins()
        if spec.name in _specs:
            raise ModelError(f"a model named {spec.name!r} is registered already")
        _specs[spec.name] = spec
        if getattr(spec.model, "__module__", None) in BUILTIN_MODELS:
            _builtins.add(spec.name)
    return spec


def unregister_model(name: str) -> None:
    """Remove a model added with :func:`register_model` (built-in ones stay)."""
    with _lock:
        _load_builtins()
        if name in _builtins:
            raise ModelError(f"{name!r} is a built-in model")
        if _specs.pop(name, None) is None:
            raise ModelError(f"no model named {name!r} is registered")


def models() -> dict[str, ModelSpec]:
    """The registered models by name, built-in ones first."""
    if not _state["loaded"]:
        _load_builtins()
    return dict(_specs)


def get_model(name: str, *, purpose: str = "model") -> ModelSpec:
    """The spec of the model called `name`; a ModelError naming `purpose` when there is none.

    Parameters
    ----------
    name : str
        A ``FitResult.model``.
    purpose : str
        What it is wanted for, in the message: ``f"no {purpose} for a {name!r} fit"``.
    """
    if not _state["loaded"]:
        _load_builtins()
    spec = _specs.get(name)
    if spec is None:
        raise ModelError(f"no {purpose} for a {name!r} fit; known: {sorted(_specs)}")
    return spec


def spec_for_params(params: Mapping[str, float], *, reads: str) -> ModelSpec:
    """The model a bare mapping of parameters belongs to, among those with the reader `reads`.

    The model whose declared parameters the mapping holds, the one declaring most where
    several do (the default throughput curve holds the USL's and the MVA network's).

    Parameters
    ----------
    params : mapping
        Parameters of a fit (a :class:`~anfperf.models.FitResult` or a plain dict of one).
    reads : {'rate_at', 'latency_at_rate_ms'}
        The reader wanted.

    Raises
    ------
    anfperf.ModelError
        No model with that reader declares parameters all in `params`.
    """
    keys = set(params)
    candidates = [s for s in models().values() if getattr(s, reads) is not None]
    named = [s for s in candidates if s.name == getattr(params, "model", None)]
    if named:  # a FitResult says what it is
        return named[0]
    held = [s for s in candidates if set(s.params) <= keys]
    if not held:
        known = ", ".join(f"{s.name} ({', '.join(s.params)})" for s in candidates)
        raise ModelError(f"curve must hold the parameters of a fit: {known}; got {sorted(keys)}")
    return max(held, key=lambda s: len(s.params))  # the first registered among equals
