"""The reference tables shipped as package data (``anfperf/data/*.csv``, a source and a date per row)."""

from __future__ import annotations

import functools
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import pandas as pd

from anfperf.errors import ModelError

#: Reference tables shipped with anfperf as package data (``anfperf/data/*.csv``).
DATA_FILES = {
    "service_levels": "service_levels.csv",
    "volume_limits": "volume_limits.csv",
    "vm_network": "vm_network.csv",
    "nfs_client": "nfs_client.csv",
    "anf_benchmarks": "anf_benchmarks.csv",
    "cool_access": "cool_access.csv",
    "planning": "planning.csv",
    "anf_latency": "anf_latency.csv",
}


# Found through the import system, not a path into the source tree: editable installs, wheels
# and zipped installs read the same files.
_TABLES: Traversable = resources.files("anfperf") / "data"


def data_dir() -> Path:
    """The folder of anfperf's reference tables on disk (``anfperf/data`` of the install).

    :func:`load_table` reads the tables; this is for looking at the files themselves.

    Raises
    ------
    ModelError
        anfperf is installed in a form whose files are not on disk (a zip), or without its
        tables.
    """
    if not isinstance(_TABLES, Path) or not (_TABLES / DATA_FILES["service_levels"]).is_file():
        raise ModelError(
            f"anfperf's reference tables (service_levels.csv, ...) are not files in {_TABLES}; "
            "reinstall anfperf (pip install anfperf, or pip install -e . in a checkout)"
        )
    return _TABLES


@functools.cache
def _load(name: str) -> pd.DataFrame:
    table = _TABLES / DATA_FILES[name]
    if not table.is_file():
        raise ModelError(
            f"anfperf's reference table {DATA_FILES[name]} is missing from {_TABLES}; "
            "reinstall anfperf (pip install anfperf, or pip install -e . in a checkout)"
        )
    with table.open("rb") as fh:
        return pd.read_csv(fh, dtype={"date": "string", "source": "string"}, keep_default_na=True)


def load_table(name: str) -> pd.DataFrame:
    """One reference table as a fresh frame (callers may change it freely).

    Parameters
    ----------
    name : {'service_levels', 'volume_limits', 'vm_network', 'nfs_client', 'anf_benchmarks',
            'cool_access', 'planning', 'anf_latency'}
        Table name; every table has a `source` (article file name) and a `date` column.
    """
    return _table(name).copy()


def _table(name: str) -> pd.DataFrame:
    """The cached table `name` (not to be changed), or a ModelError naming the known ones."""
    if name not in DATA_FILES:
        raise ModelError(f"no reference table {name!r}; known: {sorted(DATA_FILES)}")
    return _load(name)


def table_value(name: str, key: str) -> float:
    """One fact of a key/value reference table ('nfs_client', 'planning'), by its key.

    Raises
    ------
    anfperf.ModelError
        No such table or key.
    """
    table = _table(name)
    made = _key_values.get(name)
    if made is None or made[0] is not table:  # (made again when the table is loaded again)
        values = dict(zip(table["key"], table["value"].astype(float), strict=True))
        made = _key_values[name] = (table, values)
    values = made[1]
    if key not in values:
        raise ModelError(f"no {key!r} in {DATA_FILES[name]}; known: {sorted(values)}")
    return values[key]


# table name -> (the loaded table, its key -> value): a plan asks for some 35 facts by key
_key_values: dict[str, tuple[pd.DataFrame, dict[str, float]]] = {}
