"""Values as JSON's types, for machine readers (``anfperf ... --json``, CI gates).

:func:`jsonable` turns what anfperf computes -- frames, numpy and pandas scalars, timestamps,
paths, NaN -- into what :func:`json.dumps` writes as standard JSON: a missing value is
``null`` (never ``NaN``, which JSON does not have), a time is ISO 8601 in UTC.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["jsonable"]


def __dir__() -> list[str]:
    return __all__


def jsonable(value: Any) -> Any:
    """`value` in JSON's types: dict, list, str, int, float, bool or None.

    A frame becomes a list of records (one dict per row, its index left out), a series a
    dict; NaN, infinities, None, pandas' NA and NaT become None; numpy scalars their Python
    value; a timestamp ISO 8601 (``2026-11-22T01:02:03Z`` when in UTC); a path its string.
    Anything else is its ``str``.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, float):  # numpy's float64 too
        return float(value) if math.isfinite(value) else None
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, dt.datetime | dt.date):
        return _iso(value)
    return _from_pandas_or_numpy(value)


def _iso(value: dt.date) -> str | None:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        value = value.astimezone(dt.UTC)
        return value.replace(tzinfo=None).isoformat() + "Z"
    return value.isoformat()


def _from_pandas_or_numpy(value: Any) -> Any:
    import numpy as np  # only when there is such a value: `anfperf --version` loads neither
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return [jsonable(row) for row in value.to_dict("records")]
    if isinstance(value, pd.Series):
        return jsonable(value.to_dict())
    if value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, pd.Timestamp):
        return _iso(value.to_pydatetime())
    if isinstance(value, pd.Timedelta):
        return value.total_seconds()
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    return str(value)
