"""What a forecast past the data returns: an estimate, its band, and what it rests on."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: How reports and the planner say that the data cannot give a number.
NOT_PREDICTABLE = "not predictable from these data"


@dataclass(frozen=True)
class Forecast:
    """A prediction at new x: estimate, band and the reasons behind them.

    Attributes
    ----------
    x : numpy.ndarray
        Where it was predicted (units of the fitted x).
    estimate : numpy.ndarray
        The prediction; NaN where the data cannot tell (see `predictable`).
    lower, upper : numpy.ndarray
        The band meant to hold new measurements at `level`; `upper` is inf where nothing
        known bounds it.
    basis : str
        What the estimate rests on, in words ('queueing at the known limit', 'plateau', ...).
    predictable : bool
        False when the data cannot give a number; `estimate` is then NaN and `notes` say why.
    notes : tuple of str
        Why, in words: what bounded the band, what the data could not tell.
    bound : str or None
        The known limit that caps the prediction, when one does.
    level : float
        Share of new measurements the band is meant to hold.
    """

    x: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    basis: str
    predictable: bool = True
    notes: tuple[str, ...] = ()
    bound: str | None = None
    level: float = 0.95
    params: dict = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """Columns x, estimate, lower, upper and rel_width (``(upper - lower) / estimate``)."""
        with np.errstate(all="ignore"):
            width = (self.upper - self.lower) / self.estimate
        return pd.DataFrame(
            {"x": self.x, "estimate": self.estimate, "lower": self.lower, "upper": self.upper,
             "rel_width": width}
        )  # fmt: skip

    def noted(self, *notes: str) -> Forecast:
        """The same forecast with `notes` added."""
        return dataclasses.replace(self, notes=(*self.notes, *notes))

    def says(self) -> str:
        """One line for a reader: the basis, or why there is no number."""
        if not self.predictable:
            why = "; ".join(self.notes) if self.notes else "too little data"
            return f"{NOT_PREDICTABLE}: {why}"
        return self.basis + (f" (bounded by {self.bound})" if self.bound else "")


def gist(why: str) -> str:
    """The first clause of why a model gives no number (:meth:`Forecast.says`, a note or a
    report's `iops_at_slo_why`), without the verdict, for a card or a chart's subtitle: cut
    at the first '; ', ' (' or ': '; a model's own error ('no forecast (...)') whole."""
    why = why.removeprefix(f"{NOT_PREDICTABLE}: ").strip()
    if why.startswith("no forecast ("):
        return why
    return re.split(r"; | \(|: ", why, maxsplit=1)[0]


def refused(x: np.ndarray, floor: np.ndarray | float, why: str) -> Forecast:
    """A forecast that gives no number: estimate NaN, band from `floor` to inf."""
    at = np.atleast_1d(np.asarray(x, float))
    return Forecast(
        x=at,
        estimate=np.full(at.size, np.nan),
        lower=np.broadcast_to(np.asarray(floor, float), at.shape).copy(),
        upper=np.full(at.size, np.inf),
        basis=NOT_PREDICTABLE,
        predictable=False,
        notes=(why,),
    )
