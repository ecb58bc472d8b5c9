"""The adaptive read/write mix sweep: the endpoints first, then where the mix model is least sure.

:class:`MixSweep` asks for pure reads (100 %) and pure writes (0 %), the two points the mix model
(:func:`anfperf.models.fit_mix`) is anchored by, then, each time, the candidate mix (a multiple
of `step_pct`) not yet measured where the model's prediction band
(:func:`anfperf.models.predict_band`) is widest relative to its estimate; it stops when that
widest band is at most `until_band` wide, after `max_points` mixes, or when every candidate is
measured. Like :class:`~anfperf.adaptive.chooser.AdaptiveSweep`, a pure function of the points
measured, each choice with its reason.

The mix band of :mod:`anfperf.models.curves.mix` is log-normal about the curve, widest at 50 %
and narrowed by measured interior mixes as a whole (their scatter about the fit), not near
each: so after the endpoints the choices go outward from 50 %.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.band import predict_band
from anfperf.models.curves.mix import fit_mix

__all__ = ["MIX_BAND", "MixChoice", "MixPoint", "MixSweep"]


def __dir__() -> list[str]:
    return __all__


#: The mix model is sure enough when its 95 % band is at most this wide at every candidate
#: mix, relative to its estimate [-] (two endpoints alone: 40 % at 50 % reads).
MIX_BAND = 0.25


class MixPoint(NamedTuple):
    """One measured mix: read share [%] and its rate (IOPS or MiB/s, one unit per sweep)."""

    read_pct: float
    throughput: float


class MixChoice(NamedTuple):
    """The next mix to run: read share [%] and why."""

    read_pct: int
    reason: str


@dataclass(frozen=True)
class MixSweep:
    """Chooses the next read share of a read/write mix sweep from the mixes measured.

    Parameters
    ----------
    step_pct : int
        Candidate mixes are the multiples of this read share [%] from 0 to 100.
    max_points : int
        Most mixes the sweep runs, the two endpoints included.
    until_band : float
        Stop when the widest relative band at an unmeasured candidate is at most this [-].
    """

    step_pct: int = 10
    max_points: int = 5
    until_band: float = MIX_BAND

    def __post_init__(self) -> None:
        if (
            isinstance(self.step_pct, bool)
            or not isinstance(self.step_pct, int)
            or not (0 < self.step_pct <= 50 and 100 % self.step_pct == 0)
        ):
            raise ModelError(
                f"step_pct must be a whole divisor of 100 up to 50, got {self.step_pct!r}"
            )
        if (
            isinstance(self.max_points, bool)
            or not isinstance(self.max_points, int)
            or self.max_points < 2
        ):
            raise ModelError(f"max_points must be a whole number >= 2, got {self.max_points!r}")
        if not self.until_band > 0:
            raise ModelError(f"until_band must be > 0, got {self.until_band!r}")

    def decide(self, measured: list[MixPoint] | list[tuple]) -> MixChoice | str:
        """The next mix, or why the sweep is done (a str)."""
        pct: dict[float, list[float]] = {}
        for p in measured:
            r, y = float(p[0]), float(p[1])
            if not (0 <= r <= 100 and math.isfinite(y) and y > 0):
                raise ModelError(f"a mix needs a read % in 0..100 and a rate > 0, got {tuple(p)!r}")
            pct.setdefault(r, []).append(y)
        for end, what in ((100, "pure reads"), (0, "pure writes")):
            if end not in pct:
                return MixChoice(end, f"read {end} %: {what}, an endpoint of the mix model")
        if len(pct) >= self.max_points:
            return f"stop: max_points {self.max_points} mixes measured"
        candidates = [c for c in range(0, 101, self.step_pct) if float(c) not in pct]
        if not candidates:
            return f"stop: every multiple of {self.step_pct} % measured"
        x = np.array(sorted(pct), float)
        y = np.array([float(np.median(pct[k])) for k in sorted(pct)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = fit_mix(x, y)
            band = predict_band(fit, candidates)
        width = band["rel_width"].to_numpy(float)
        # widest band; among equal ones (to 0.1 %) the mix nearest 50 %, then the lower
        order = sorted(range(len(candidates)),
                       key=lambda i: (-round(width[i], 3), abs(candidates[i] - 50), candidates[i]))  # fmt: skip
        best = order[0]
        if width[best] <= self.until_band:
            return (
                f"stop: the mix model's 95 % band is at most {width[best] * 100:.0f} % wide at every "
                f"unmeasured mix (target {self.until_band * 100:.0f} %)"
            )
        c = candidates[best]
        return MixChoice(c, f"read {c} %: where the mix model is least sure, its 95 % band "
                         f"{width[best] * 100:.0f} % wide ({band['lower'].iloc[best]:,.0f} .. "
                         f"{band['upper'].iloc[best]:,.0f})")  # fmt: skip

    def next_point(self, measured: list[MixPoint] | list[tuple]) -> MixChoice | None:
        """The next mix, or None when the sweep is done (:meth:`stop_reason` says why)."""
        found = self.decide(measured)
        return found if isinstance(found, MixChoice) else None

    def stop_reason(self, measured: list[MixPoint] | list[tuple]) -> str | None:
        """Why the sweep stops after `measured`; None while it goes on."""
        found = self.decide(measured)
        return None if isinstance(found, MixChoice) else found
