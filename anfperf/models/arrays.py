"""Numbers given to the models, checked: float arrays, never booleans read as 0 and 1."""

from __future__ import annotations

import numpy as np

from anfperf.errors import ModelError


def float_values(values: object, name: str) -> np.ndarray:
    """`values` (a number or array-like) as a float array of its own shape, or a ModelError.

    Booleans are refused, not read as 0 and 1: ``True`` passed for a block size or a latency
    is a slip (a flag in the wrong place), and 1 KiB or 1 ms would make a plausible answer.
    """
    if _holds_bool(values):
        what = "a number" if np.ndim(values) == 0 else "numbers"
        raise ModelError(f"{name} must be {what}, not true/false: got {_short(values)}")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{name} must be numbers: {exc}") from None


def _holds_bool(values: object) -> bool:
    """Whether `values` is a boolean or holds one."""
    if isinstance(values, bool | np.bool_):
        return True
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind is not None and kind != "O":
        return kind == "b"  # an array or a Series: its dtype says it
    if kind == "O" or isinstance(values, list | tuple):
        items = np.ravel(np.asarray(values, dtype=object))
        return any(isinstance(v, bool | np.bool_) for v in items)
    return False


def _short(values: object) -> str:
    text = repr(values)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(values: object, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """`values` as a 1-D float array, or a ModelError saying why not (booleans too)."""
    arr = np.atleast_1d(float_values(values, name))
    if arr.ndim != 1:
        raise ModelError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not allow_nan and not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ModelError(f"{name} has {bad} NaN or infinite value(s): drop or fill them first")
    return arr
