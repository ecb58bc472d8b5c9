"""Files of anfperf's source repository that an installed wheel does not carry.

The bundled samples (``data/samples``) and the report notebooks (``notebooks/``) sit at the top
of the repository (the product card's layout), next to the ``anfperf`` package: a checkout and
an editable install have them, a wheel installed into site-packages does not. The reference
tables the models need are package data instead (``anfperf/data``, :mod:`anfperf.models`).
"""

from __future__ import annotations

from pathlib import Path

from anfperf.errors import AnfperfError

#: The top of the source repository when anfperf runs from a checkout.
ROOT = Path(__file__).resolve().parent.parent


def repo_path(*parts: str, what: str) -> Path:
    """A file or folder of the source repository, or a clear error where the install lacks it.

    Parameters
    ----------
    *parts : str
        Path under the repository's top, e.g. ``"notebooks", "benchmark_report.ipynb"``.
    what : str
        What it is, for the error message.

    Raises
    ------
    anfperf.AnfperfError
        The path does not exist: anfperf is installed from a wheel, not run from a checkout.
    """
    path = ROOT.joinpath(*parts)
    # pyproject.toml next to the package tells a checkout from site-packages, where an
    # unrelated distribution might own a top-level data/ folder
    if not (ROOT / "pyproject.toml").is_file() or not path.exists():
        raise AnfperfError(
            f"{what} ({'/'.join(parts)}) is part of anfperf's source repository, not of an "
            "installed wheel: run from a checkout (git clone, then pip install -e .)"
        )
    return path
