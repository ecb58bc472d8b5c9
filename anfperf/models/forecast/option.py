"""The latency of a volume before buying it: the mean latency a planned option gives at the
target, with its band, from its throughput limit and ANF's published light-load latency.

:func:`option_latency` is :func:`~anfperf.models.forecast.latency.planned_latency` at one
option's own limit (MiB/s -> operations per second at the target's block size): the
queueing curve ``R = lat_light_ms / (1 - U**shape)`` of ANF's SPECstorage 2020 curves
(:func:`~anfperf.models.forecast.known.published_shape`, the light-load latency of the
option's volume type). Two cases give no mean latency at the target, and say so:

- breakthrough mode has no QoS throughput limit (its "up to 50 GiB/s" is an achievable figure,
  not a cap): there is no limit to place the rise at (:data:`NOT_PREDICTABLE`);
- an option sized to the target exactly (auto QoS quota = target / rate; Flexible's bought
  throughput) is at its limit there: the queueing curve has no finite mean latency at
  ``U = 1`` (a closed loop's latency is then its outstanding I/O over the rate, whatever is
  driven), so the option says instead how much throughput it carries within the objective.

:func:`options_latency` does it for every option of a plan's table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.forecast.known import KnownLimits, published_shape
from anfperf.models.forecast.latency import iops_at_latency, planned_latency
from anfperf.models.forecast.result import NOT_PREDICTABLE
from anfperf.models.limits.quota import bw_to_iops, iops_to_bw
from anfperf.values import is_number

#: Volume types without a QoS throughput limit (anfperf/data/volume_limits.csv: breakthrough
#: mode's max_mib_s is the stated achievable 'up to 50 GiB/s', not a cap).
NO_QOS_LIMIT = ("breakthrough",)
#: Latency objective the options are read at when the plan has none [ms] (SPEC's and the EDA
#: article's "ops at 2 ms").
DEFAULT_OBJECTIVE_MS = 2.0
#: A load within this share of the limit is at the limit.
_AT_LIMIT = 1e-9

#: Columns :func:`options_latency` adds to a plan's options.
LATENCY_COLUMNS = ("lat_ms", "lat_low_ms", "lat_high_ms", "bw_at_objective_mib_s", "latency")


@dataclass(frozen=True)
class OptionLatency:
    """The mean latency an option gives at the target, or why there is none.

    Attributes
    ----------
    bw_mib_s : float
        The target [MiB/s].
    limit_mib_s : float
        The option's throughput limit [MiB/s] (NaN: none documented).
    lat_ms, lat_low_ms, lat_high_ms : float
        Expected mean latency at the target and its band [ms]; NaN when there is none.
    objective_ms : float
        The latency objective the option is read at [ms].
    bw_at_objective_mib_s, bw_at_objective_low_mib_s, bw_at_objective_high_mib_s : float
        Throughput at which the mean latency reaches the objective, and its band [MiB/s]; NaN
        when not predictable.
    predictable : bool
        False when the data give no number (no QoS limit); the reason is in `why`.
    at_limit : bool
        The target is at (or above) the option's limit: no finite mean latency there.
    why : str
        What the numbers rest on, or why there are none.
    """

    bw_mib_s: float
    limit_mib_s: float
    lat_ms: float
    lat_low_ms: float
    lat_high_ms: float
    objective_ms: float
    bw_at_objective_mib_s: float
    bw_at_objective_low_mib_s: float
    bw_at_objective_high_mib_s: float
    predictable: bool
    at_limit: bool
    why: str

    def short(self) -> str:
        """For a table cell: '0.45 ms (0.38 .. 0.61)', 'at the limit: 2 ms up to 1,890 MiB/s',
        or :data:`NOT_PREDICTABLE`."""
        if not self.predictable:
            return NOT_PREDICTABLE
        if self.at_limit:
            return (f"at the limit; {self.objective_ms:g} ms up to "
                    f"{_mib_s(self.bw_at_objective_mib_s)} MiB/s")  # fmt: skip
        return f"{_ms(self.lat_ms)} ms ({_ms(self.lat_low_ms)} .. {_ms(self.lat_high_ms)})"

    @property
    def limit_for_objective_mib_s(self) -> float:
        """The limit an option needs for the objective at the target [MiB/s]: the load at the
        objective is a fixed share of the limit, so the limit scales by target / that load."""
        return self.limit_mib_s * self.bw_mib_s / self.bw_at_objective_mib_s

    def text(self) -> str:
        """In a sentence: 'expected mean latency at 3,000 MiB/s: 0.45 ms (0.38 .. 0.61 ms)'."""
        at = f"expected mean latency at {_mib_s(self.bw_mib_s)} MiB/s"
        if not self.predictable:
            return f"{at}: {NOT_PREDICTABLE}: {self.why}"
        if self.at_limit:
            needed = self.limit_for_objective_mib_s
            return (
                f"{at}: none finite, the target is at the {_mib_s(self.limit_mib_s)} MiB/s limit "
                f"(latency is then the outstanding I/O over the rate); within "
                f"{self.objective_ms:g} ms up to {_mib_s(self.bw_at_objective_mib_s)} MiB/s "
                f"({_mib_s(self.bw_at_objective_low_mib_s)} .. "
                f"{_mib_s(self.bw_at_objective_high_mib_s)} MiB/s): {self.objective_ms:g} ms at "
                f"the target needs a limit of {_mib_s(needed)} MiB/s "
                f"({needed / self.limit_mib_s - 1:+.0%})"
            )
        return (f"{at}: {_ms(self.lat_ms)} ms ({_ms(self.lat_low_ms)} .. "
                f"{_ms(self.lat_high_ms)} ms)")  # fmt: skip


def _ms(value: float) -> str:
    """A latency to what the published curves support (SPEC prints 0.1 ms; two digits)."""
    return f"{value:.2f}"


def _positive(name: str, value: object) -> float:
    if not is_number(value) or not (0 < float(value) < math.inf):
        raise ModelError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _mib_s(value: float) -> str:
    """A throughput as written for people [MiB/s]: whole MiB/s from 100 up (1,890), three
    significant digits below, so a small volume's limit reads as Azure gives it (6.25, 6.4)."""
    return f"{value:,.0f}" if not abs(value) < 100 else f"{value:.3g}"


def option_latency(
    bw_mib_s: float,
    limit_mib_s: float | None,
    bs_kib: float,
    *,
    volume_type: str | None = None,
    objective_ms: float | None = None,
) -> OptionLatency:
    """Expected mean latency of an option at the target, with its band.

    Parameters
    ----------
    bw_mib_s : float
        The target [MiB/s].
    limit_mib_s : float or None
        The option's throughput limit [MiB/s]; None, NaN or inf: none documented.
    bs_kib : float
        Block size [KiB] (the limit and target become operations per second at it).
    volume_type : str, optional
        'regular', 'large' or 'breakthrough': picks the light-load latency of that type's
        published curves (:func:`~anfperf.models.forecast.known.published_shape`);
        breakthrough mode has no QoS limit and gives no number.
    objective_ms : float, optional
        Latency objective [ms] the throughput within it is read at (default 2 ms).

    Returns
    -------
    OptionLatency

    Raises
    ------
    anfperf.ModelError
        A target, block size, limit or objective that is not a finite number > 0.
    """
    bw = _positive("bw_mib_s", bw_mib_s)
    bs = _positive("bs_kib", bs_kib)
    objective = _positive("objective_ms", DEFAULT_OBJECTIVE_MS if objective_ms is None
                          else objective_ms)  # fmt: skip
    kind = None if volume_type is None else str(volume_type).strip().lower()
    nan = math.nan
    none = dict(lat_ms=nan, lat_low_ms=nan, lat_high_ms=nan, bw_at_objective_mib_s=nan,
                bw_at_objective_low_mib_s=nan, bw_at_objective_high_mib_s=nan)  # fmt: skip
    limit_none = limit_mib_s is None or (is_number(limit_mib_s) and not math.isfinite(
        float(limit_mib_s)))  # fmt: skip
    if kind in NO_QOS_LIMIT or limit_none:
        why = ("breakthrough mode has no QoS throughput limit (its 'up to 50 GiB/s' is an "
               "achievable figure, not a cap): the queueing model has no limit to place the "
               "rise at" if kind in NO_QOS_LIMIT else "no throughput limit is documented for "
               "this option")  # fmt: skip
        return OptionLatency(bw, nan, **none, objective_ms=objective, predictable=False,
                             at_limit=False, why=why)  # fmt: skip
    limit = _positive("limit_mib_s", limit_mib_s)
    shape = published_shape(kind)
    known = KnownLimits.of_iops(
        bw_to_iops(limit, bs), f"the option's {_mib_s(limit)} MiB/s limit", shape=shape
    )
    fc = planned_latency(bw_to_iops(bw, bs), known)
    at = [float(iops_to_bw(ops, bs)) for ops in iops_at_latency(fc, objective)]
    why = (f"queueing at the {_mib_s(limit)} MiB/s limit; light-load latency "
           f"{shape.lat_light_ms:.3g} ms ({shape.light_basis}), shape {shape.typical:.2f} "
           f"({shape.low:.2f} .. {shape.high:.2f}) of ANF's SPECstorage 2020 curves")  # fmt: skip
    at_limit = bw >= limit * (1 - _AT_LIMIT)
    lat = (nan, nan, nan) if at_limit else (
        float(fc.estimate[0]), float(fc.lower[0]), float(fc.upper[0]))  # fmt: skip
    return OptionLatency(
        bw, limit, *lat, objective_ms=objective, bw_at_objective_mib_s=at[0],
        bw_at_objective_low_mib_s=at[1], bw_at_objective_high_mib_s=at[2],
        predictable=True, at_limit=at_limit, why=why,
    )  # fmt: skip


def options_latency(
    options: pd.DataFrame,
    bw_mib_s: float,
    bs_kib: float,
    *,
    objective_ms: float | None = None,
) -> pd.DataFrame:
    """A plan's options with the latency each gives at the target (:func:`option_latency`).

    Parameters
    ----------
    options : pandas.DataFrame
        :attr:`anfperf.models.Plan.storage_options` (volume_type, limit_mib_s, feasible).
    bw_mib_s, bs_kib, objective_ms
        As :func:`option_latency`.

    Returns
    -------
    pandas.DataFrame
        `options` with :data:`LATENCY_COLUMNS`: lat_ms, lat_low_ms, lat_high_ms [ms],
        bw_at_objective_mib_s [MiB/s] and `latency`, the words for people; blank (NaN, '')
        for options that are not feasible.
    """
    out = options.copy()
    rows = []
    for rec in options.to_dict("records"):
        limit = rec.get("limit_mib_s")
        if (
            not rec.get("feasible", True)
            or limit is None
            or (is_number(limit) and math.isnan(float(limit)))
        ):
            rows.append((math.nan, math.nan, math.nan, math.nan, ""))
            continue
        o = option_latency(bw_mib_s, limit, bs_kib, volume_type=rec.get("volume_type"),
                           objective_ms=objective_ms)  # fmt: skip
        rows.append((o.lat_ms, o.lat_low_ms, o.lat_high_ms, o.bw_at_objective_mib_s, o.short()))
    frame = pd.DataFrame(rows, columns=list(LATENCY_COLUMNS), index=out.index)
    for col in LATENCY_COLUMNS:
        out[col] = frame[col]
    return out
