"""Adaptive sweeps: each next step chosen from what the steps before it measured.

- :mod:`~anfperf.adaptive.chooser`: the concurrency chooser (:class:`AdaptiveSweep`: light
  load, heavy load, the latency objective's crossing, past it, the knee, one point past the
  highest; at most half the steps of a dense sweep) and what a
  sweep's points say (:func:`answers`: peak, IOPS at the objective, knee);
- :mod:`~anfperf.adaptive.mix`: the read/write mix chooser (:class:`MixSweep`: pure reads and
  pure writes, then where the mix model's band is widest).

Pure and deterministic: the same points measured give the same next choice, so a sweep can
be resumed; the runner runs the steps and records each choice's reason in the manifest.
"""

from anfperf.adaptive.chooser import AdaptiveSweep, Choice, Point, answers
from anfperf.adaptive.mix import MixChoice, MixPoint, MixSweep

__all__ = ["AdaptiveSweep", "Choice", "MixChoice", "MixPoint", "MixSweep", "Point", "answers"]


def __dir__() -> list[str]:
    return __all__
