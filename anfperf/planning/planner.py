"""Interactive capacity planning (what the notebook and ``anfperf plan`` show): a target in, the plan with its reasoning and what-if charts out.

The capacity-planning notebook is a thin shell over this module:

- :class:`PlanInputs` -- the target (MiB/s or IOPS), block size, read share, latency SLO and
  the client side, checked when made;
- :func:`plan_view` -- :func:`anfperf.models.plan` for those inputs, the binding constraint of
  the planned setup (:func:`anfperf.models.predict_achievable`) and what the notebook shows;
- :func:`what_if_figures` -- the charts of :mod:`anfperf.plots.planning` around the plan;
- :class:`PlannerApp` -- recomputes all of that on :meth:`PlannerApp.update`, a plain method
  that tests and papermill call without a browser; :meth:`PlannerApp.show` puts the plan on
  the page once: static in a batch report (``ANFPERF_BATCH``), in JupyterLab the ipywidgets of
  :func:`controls` above the same page, redrawn on every change.

The page leads with what to buy (:meth:`PlanView.cards`, :meth:`PlanView.verdict_text`), then
why (reasoning, limits), what if (charts), the options considered; tables are
:func:`anfperf.report.page.table`'s.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from anfperf import wrapping
from anfperf.analysis.sweep import load_sweep
from anfperf.errors import AnfperfError, ModelError
from anfperf.models.forecast.option import OptionLatency, option_latency, options_latency
from anfperf.models.limits.client import (
    nfs_client_value,
    nfs_inflight_limit,
    vm_network,
    vm_size_name,
)
from anfperf.models.limits.plan import (
    FLEXIBLE_THROUGHPUT_PRICE,
    LARGE_BLOCK_KIB,
    Plan,
    price_key,
)
from anfperf.models.limits.predict import PUBLISHED_BENCHMARK, predict_achievable
from anfperf.models.limits.prices import RetailPrices, hours_per_month, per_hour, retail_prices
from anfperf.models.limits.quota import PLANNED_LEVELS, bw_to_iops, iops_to_bw, level_name
from anfperf.paths import PathArg
from anfperf.planning.threads import SweepCurve, ThreadsBasis, plan_on_sweep, sweep_curve
from anfperf.report import page
from anfperf.report.page import Card, Section
from anfperf.values import format_number, format_quota, is_number, is_whole_number

if TYPE_CHECKING:  # plotly loads in what_if_figures: `anfperf plan` prints text, no charts
    import plotly.graph_objects as go

__all__ = [
    "BLOCK_SIZES_KIB",
    "FIGURES",
    "ABOUT",
    "ANY_VM",
    "PlanInputs",
    "PlanView",
    "what_if_figures",
    "plan_view",
    "explain_plan",
    "controls",
    "control_values",
    "convert_target",
    "DEFAULT_INPUTS",
    "PlannerApp",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


log = logging.getLogger(__name__)

#: Block sizes offered by the block-size control [KiB].
BLOCK_SIZES_KIB = (4, 8, 16, 32, 64, 128, 256, 1024)
#: Names of the figures of :func:`what_if_figures`, in the notebook's order.
FIGURES = ("quota", "clients", "threads")
#: What the capacity-planning report says about itself ("About this report", at the end).
ABOUT = (
    "The plan is anfperf.models.plan's: the quota a level needs for the target (quota x "
    "rate, within the volume type's sizes and caps and within what one such volume was seen "
    "to do), the cheapest such option (by monthly cost with prices, else the smallest quota), "
    "Little's law for the outstanding I/O (target rate x the latency sized for), and the "
    "client VMs with the fewest total vCPUs that carry it.",
    "Limits, rates and published observations come from anfperf/data/*.csv, each row with "
    "its source and date (the 'Source' column of the limits table).",
    "Run it for another target: anfperf report capacity -p "
    "target_iops 200000 -p bs_kib 8 -p read_pct 70 (add -p prices FILE -p region eastus, a "
    "file saved from the Azure Retail Prices API, or -p prices_usd_per_tib_month "
    "'{Premium: 300, Ultra: 400}' for the monthly cost). In JupyterLab the controls "
    "above the plan re-plan as you change them.",
)
#: The VM-size control's value for "let the plan choose" (a dropdown shows None as blank).
ANY_VM = "any"


@dataclass(frozen=True)
class PlanInputs:
    """What the user asks for. Exactly one of `target_mib_s` and `target_iops` is set.

    Attributes
    ----------
    target_mib_s, target_iops : float or None
        The target throughput [MiB/s] or I/O rate [1/s].
    bs_kib : float
        Block size [KiB].
    read_pct : float
        Read share [%].
    lat_slo_ms : float or None
        Latency objective [ms]; the plan sizes concurrency for it (Little's law). None: no
        objective (``anfperf plan`` without ``--lat-slo-ms``): sized for the latency
        :func:`anfperf.models.plan` assumes.
    vm_size : str or None
        Client VM size ('D32s_v5' or 'Standard_D32s_v5'); None lets the plan choose.
    clients : int or None
        Client VMs you have or want; None lets the plan choose how many. Fewer than the plan
        needs gives a note and a binding client constraint below the target.
    levels : tuple of str
        Service levels considered ('Flexible' is ranked only with prices, which the planner
        session does not take: it is drawn in the quota chart).
    nconnect : int
        NFS connections per client mount (1 .. 16; default: the recommended value of
        anfperf/data/nfs_client.csv, 8).
    capacity_tib : float
        Capacity the volume must hold [TiB] (0: sized by throughput only).
    prices_usd_per_tib_month : mapping, optional
        Prices [USD per TiB-month] of service levels, e.g. ``{"Premium": 300, "Ultra":
        400}``; ``"Flexible throughput"`` in USD per MiB/s-month. With prices the plan ranks by
        monthly cost and leaves out levels without one (Flexible is ranked only with prices);
        None: by quota, no cost shown. With `retail`, these are what-ifs over its prices.
    retail : anfperf.models.limits.prices.RetailPrices, optional
        List prices of a region from the Azure Retail Prices API
        (:func:`anfperf.models.limits.prices.retail_prices`; :meth:`from_parameters` reads them from
        its `prices` file and `region`): capacity per level, Flexible throughput and the
        client VMs, whose monthly cost is then added to each option's.

    Raises
    ------
    anfperf.ModelError
        Both targets or neither, a value out of range, an unknown level or VM size.
    """

    target_mib_s: float | None = None
    target_iops: float | None = None
    bs_kib: float = 64.0
    read_pct: float = 100.0
    lat_slo_ms: float | None = 2.0
    vm_size: str | None = None
    clients: int | None = None
    levels: tuple[str, ...] = PLANNED_LEVELS
    # the reference table's recommended value, read when the inputs are made
    nconnect: int = field(default_factory=lambda: int(nfs_client_value("nconnect_recommended")))
    capacity_tib: float = 0.0
    prices_usd_per_tib_month: Mapping[str, float] | None = None
    retail: RetailPrices | None = None

    def __post_init__(self) -> None:
        if (self.target_mib_s is None) == (self.target_iops is None):
            raise ModelError(
                "give one target: target_mib_s or target_iops (the other None), got "
                f"target_mib_s={self.target_mib_s!r}, target_iops={self.target_iops!r}"
            )
        for name in ("target_mib_s", "target_iops", "bs_kib", "lat_slo_ms"):
            value = getattr(self, name)
            if value is not None and not _number(value) > 0:
                raise ModelError(f"{name} must be a number > 0, got {value!r}")
        if not 0 <= _number(self.read_pct) <= 100:
            raise ModelError(f"read_pct must be within 0 .. 100, got {self.read_pct!r}")
        if not 0 <= _number(self.capacity_tib) < math.inf:
            raise ModelError(f"capacity_tib must be >= 0, got {self.capacity_tib!r}")
        if self.clients is not None and (not is_whole_number(self.clients) or self.clients < 1):
            raise ModelError(
                f"clients must be an integer >= 1, or None to let the plan choose; "
                f"got {self.clients!r}"
            )
        nfs_inflight_limit(self.nconnect)  # checks nconnect: an integer 1 .. 16
        # a papermill parameter `-p levels Ultra` arrives as a string: one level
        raw = (self.levels,) if isinstance(self.levels, str) else tuple(self.levels or ())
        if not raw:
            raise ModelError("give at least one service level: " + ", ".join(PLANNED_LEVELS))
        # frozen: normalise through object.__setattr__ (the table's spelling, no repeats)
        object.__setattr__(self, "levels", tuple(dict.fromkeys(level_name(n) for n in raw)))
        if self.vm_size is not None:
            object.__setattr__(self, "vm_size", vm_size_name(self.vm_size))
        if self.prices_usd_per_tib_month is not None:
            object.__setattr__(self, "prices_usd_per_tib_month", _prices(
                self.prices_usd_per_tib_month))  # fmt: skip

    @property
    def plan_prices(self) -> dict[str, float] | None:
        """The prices as :func:`anfperf.models.plan` takes them: USD per GiB-hour (and per
        MiB/s-hour for Flexible's throughput)."""
        out = self.retail.plan_prices() if self.retail is not None else {}
        out.update(per_hour(self.prices_usd_per_tib_month or {}))  # what-ifs over the file's
        return out or None

    @property
    def vm_prices(self) -> dict[str, float] | None:
        """Client VM prices as :func:`anfperf.models.plan` takes them [USD per VM-hour]."""
        return self.retail.vm_prices() if self.retail is not None else None

    def prices_text(self) -> str:
        """Where the plan's prices come from, in one line (or that it ranked without)."""
        parts = []
        if self.retail is not None:
            parts.append(f"Prices: {self.retail.describe()}")
            if not self.retail.levels_usd_per_tib_month and not self.prices_usd_per_tib_month:
                parts.append("no Azure NetApp Files capacity price among them: the storage "
                             "options are ranked without prices (smallest quota, then the lower "
                             "level)")  # fmt: skip
        if self.prices_usd_per_tib_month:
            whatif = ", ".join(
                f"{k} {v:,.2f} USD per {'MiB/s' if k == FLEXIBLE_THROUGHPUT_PRICE else 'TiB'}"
                "-month" for k, v in self.prices_usd_per_tib_month.items())  # fmt: skip
            parts.append(f"What-if prices: {whatif}")
        if not parts:
            return ("Ranked without prices (smallest quota, then the lower level): give a file "
                    "saved from the Azure Retail Prices API and its region for monthly costs")  # fmt: skip
        return "; ".join(parts) + "."

    @classmethod
    def from_parameters(
        cls,
        *,
        target_mib_s: float | None = None,
        target_iops: float | None = None,
        prices: PathArg | None = None,
        region: str | None = None,
        **rest: Any,
    ) -> PlanInputs:
        """Inputs from a notebook's parameters: `target_iops`, when given, wins.

        A report run with ``-p target_iops 200000`` need not also unset the notebook's default
        `target_mib_s`. `prices` (files saved from the Azure Retail Prices API) and `region`
        become `retail` (:func:`anfperf.models.limits.prices.retail_prices`). Other keywords are
        :class:`PlanInputs` fields.

        Raises
        ------
        anfperf.AnfperfError
            `prices` without `region` or the other way round; a prices file that is not one.
        """
        if target_iops is not None:
            target_mib_s = None
        if (prices is None) != (region is None):
            raise ModelError("give prices (a file saved from the Azure Retail Prices API) and "
                             f"region together, got prices={prices!r}, region={region!r}")  # fmt: skip
        if prices is not None:
            rest["retail"] = retail_prices(prices, region)
        return cls(target_mib_s=target_mib_s, target_iops=target_iops, **rest)

    @property
    def bw_mib_s(self) -> float:
        """The target as throughput [MiB/s]."""
        if self.target_mib_s is not None:
            return float(self.target_mib_s)
        return float(iops_to_bw(self.target_iops, self.bs_kib))

    @property
    def iops(self) -> float:
        """The target as I/O rate [1/s]."""
        if self.target_iops is not None:
            return float(self.target_iops)
        return float(bw_to_iops(self.target_mib_s, self.bs_kib))

    @property
    def pattern(self) -> str:
        """Access pattern assumed from the block size, as :func:`anfperf.models.plan` does."""
        return "sequential" if self.bs_kib >= LARGE_BLOCK_KIB else "random"


def _prices(prices: object) -> dict[str, float]:
    """Prices keyed by the levels' spelling (and 'Flexible throughput'), checked."""
    if not isinstance(prices, Mapping):
        raise ModelError(
            "prices_usd_per_tib_month must be a mapping of service level to USD per TiB-month, "
            f'e.g. {{"Premium": 300}}; got {prices!r}'
        )
    out = {}
    for key, value in prices.items():
        name = price_key(key)
        if not _number(value) >= 0 or not math.isfinite(_number(value)):
            raise ModelError(f"the price of {key!r} must be a number >= 0, got {value!r}")
        out[name] = float(value)
    return out


def _number(value: object) -> float:
    """`value` as a float for range checks; NaN (fails every check) when it is not a number."""
    if not is_number(value):
        return math.nan
    return float(value)


# --------------------------------------------------------------------------------------------
# The concurrency sweep behind the threads-vs-latency chart


# --------------------------------------------------------------------------------------------
# The plan and what the notebook shows of it


@dataclass
class PlanView:
    """A plan, the binding constraint of the planned setup, and what the notebook shows.

    Attributes
    ----------
    inputs : PlanInputs
        What was asked for.
    plan : anfperf.models.Plan
        :func:`anfperf.models.plan`'s choice, reasoning and options.
    constraints : pandas.DataFrame
        :func:`anfperf.models.predict_achievable` of the planned volume and clients (storage
        and client limits; the concurrency is sized by Little's law, so it is left out).
    notes : list of str
        What the user should know beyond the plan (too few clients, NFS in-flight limits).
    figures : dict of str to plotly.graph_objects.Figure
        :func:`what_if_figures`, empty when not drawn.
    threads_basis : ThreadsBasis, optional
        How the threads per VM were sized: on a measured sweep's fitted curve, or by Little's
        law at the SLO (:func:`anfperf.planning.threads.plan_on_sweep`).
    """

    inputs: PlanInputs
    plan: Plan
    constraints: pd.DataFrame = field(repr=False)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, go.Figure] = field(default_factory=dict, repr=False)
    threads_basis: ThreadsBasis | None = None

    @functools.cached_property
    def latency(self) -> OptionLatency:
        """Expected mean latency of the planned volume at the target, with its band
        (:func:`anfperf.models.forecast.option_latency` at its own limit)."""
        p = self.plan
        return option_latency(p.bw_mib_s, p.throughput_limit_mib_s, self.inputs.bs_kib,
                              volume_type=p.volume_type, objective_ms=self.inputs.lat_slo_ms)  # fmt: skip

    @functools.cached_property
    def storage_options(self) -> pd.DataFrame:
        """Every storage option of the plan with the mean latency it gives at the target
        (:func:`anfperf.models.forecast.options_latency`: lat_ms, lat_low_ms, lat_high_ms,
        bw_at_objective_mib_s, latency)."""
        p = self.plan
        return options_latency(p.storage_options, p.bw_mib_s, self.inputs.bs_kib,
                               objective_ms=self.inputs.lat_slo_ms)  # fmt: skip

    def _options_shown(self) -> pd.DataFrame:
        """The storage options with their quota as the cards write it (50 GiB, 15.63 TiB)."""
        options = self.storage_options
        quota = [format_quota(q) if q == q else "" for q in options["quota_tib"]]
        return options.assign(quota=quota)

    def _latency_card(self) -> Card:
        lat = self.latency
        if not lat.predictable:
            return Card("Expected latency", "not predictable", lat.why, "warn",
                        key="lat_expected_ms", number=None)  # fmt: skip
        if lat.at_limit:
            return Card("Expected latency", "at the limit",
                        f"no finite mean at {format_number(lat.bw_mib_s)} MiB/s, its limit; within "
                        f"{lat.objective_ms:g} ms up to "
                        f"{format_number(lat.bw_at_objective_mib_s)} MiB/s; "
                        f"{lat.objective_ms:g} ms at the target needs a "
                        f"{format_number(lat.limit_for_objective_mib_s)} MiB/s limit",
                        "warn", key="lat_expected_ms", number=None)  # fmt: skip
        return Card("Expected latency", f"{lat.lat_ms:.2f} ms",
                    f"{lat.lat_low_ms:.2f} .. {lat.lat_high_ms:.2f} ms at "
                    f"{format_number(lat.bw_mib_s)} MiB/s (queueing at the limit, SPECstorage 2020 "
                    "curves of ANF)", key="lat_expected_ms", number=lat.lat_ms)  # fmt: skip

    @property
    def vm_count(self) -> int:
        """Client VMs: the user's `clients`, else the plan's count."""
        return int(self.inputs.clients or self.plan.vm_count)

    @property
    def threads_per_vm(self) -> int:
        """Outstanding I/O per client VM [-] (threads, or iodepth x numjobs)."""
        return math.ceil(self.plan.outstanding / self.vm_count)

    @property
    def binding(self) -> str:
        """Name of the limit that binds the planned setup (e.g. 'volume quota')."""
        return str(self.constraints.attrs["binding"])

    @property
    def binding_mib_s(self) -> float:
        """Throughput the binding limit allows [MiB/s]."""
        return float(self.constraints.attrs["bw_mib_s"])

    @property
    def headroom_pct(self) -> float:
        """How far the binding limit is above the target [%]; negative: it falls short."""
        return 100.0 * (self.binding_mib_s / self.plan.bw_mib_s - 1.0)

    def summary(self) -> str:
        """The plan in one Markdown paragraph."""
        p, i = self.plan, self.inputs
        return (
            f"**{p.level} {p.volume_type} volume of {format_quota(p.quota_tib)}** "
            f"({format_number(p.throughput_limit_mib_s)} MiB/s), **{self.vm_count} x "
            f"{p.vm_size}**, "
            f"**{self.threads_per_vm} outstanding I/O per VM** for "
            f"{format_number(p.bw_mib_s)} MiB/s = {format_number(p.iops)} IOPS of {i.bs_kib:g} KiB "
            f"at {i.read_pct:g} % reads, sized for {p.lat_ms:g} ms."
        )

    def binding_text(self) -> str:
        """The binding constraint in a sentence (Markdown)."""
        row = self.constraints[self.constraints["binding"]].iloc[0]
        if abs(self.headroom_pct) < 0.5:
            sized = row["kind"] == "limit"  # the plan sizes limits; observations are given
            margin = "just the target" + (": the plan sized it so" if sized else "")
        elif self.headroom_pct > 0:
            margin = f"{self.headroom_pct:.0f} % above the target"
        else:
            margin = f"{-self.headroom_pct:.0f} % short of the target"
        return (
            f"Binding constraint: **{self.binding}**, {format_number(self.binding_mib_s)} MiB/s "
            f"({margin}): {row['detail']}."
        )

    @property
    def reasoning(self) -> pd.DataFrame:
        """The plan's decisions in order: step, decision, value, why."""
        return self.plan.reasoning

    @property
    def options(self) -> pd.DataFrame:
        """Every service level and volume type considered, feasible or not, and why."""
        cols = ["level", "volume_type", "quota_tib", "limit_mib_s", "feasible", "why"]
        return self.plan.storage_options[cols]

    @property
    def client_options(self) -> pd.DataFrame:
        """Every client VM size considered: VMs needed, total vCPUs, and why."""
        return self.plan.client_options

    @property
    def pool_cost_usd_month(self) -> float:
        """Monthly cost of the planned volume's capacity pool [USD]; NaN without prices."""
        chosen = self.plan.storage_options
        chosen = chosen[
            (chosen["level"] == self.plan.level) & (chosen["volume_type"] == self.plan.volume_type)
        ]
        return float(chosen["cost_usd_month"].iloc[0]) if len(chosen) else math.nan

    @property
    def pool_tib(self) -> float:
        """The planned volume's capacity pool [TiB] (whole steps, at least the smallest)."""
        from anfperf.models.limits.plan import pool_size_tib

        opts = self.plan.storage_options
        row = opts[(opts["level"] == self.plan.level)
                   & (opts["volume_type"] == self.plan.volume_type)]  # fmt: skip
        return float(row["pool_tib"].iloc[0]) if len(row) else pool_size_tib(self.plan.quota_tib)

    @property
    def clients_cost_usd_month(self) -> float:
        """Monthly cost of the client VMs [USD] (:attr:`vm_count` of them); NaN: not priced."""
        prices = {k.lower(): v for k, v in (self.inputs.vm_prices or {}).items()}
        price = prices.get(self.plan.vm_size.lower(), math.nan)
        return price * hours_per_month() * self.vm_count

    @property
    def cost_usd_month(self) -> float:
        """Monthly cost [USD]: the capacity pool, plus the client VMs when they are priced;
        NaN without prices."""
        clients = self.clients_cost_usd_month
        return self.pool_cost_usd_month + (clients if math.isfinite(clients) else 0.0)

    def _cost_note(self) -> str:
        pool = f"{self.pool_tib:g} TiB pool {self.pool_cost_usd_month:,.0f}"
        if math.isfinite(self.clients_cost_usd_month):
            vm = self.plan.vm_size.removeprefix("Standard_")
            return f"{pool} + {self.vm_count} x {vm} {self.clients_cost_usd_month:,.0f} USD"
        return f"{pool} USD (client VMs not priced)"

    # --- what the page shows ----------------------------------------------------------------

    def cards(self) -> list[Card]:
        """What to buy, as headline cards: level, volume, quota, limit, cost, VMs, threads,
        what binds."""
        p, i = self.plan, self.inputs
        vm = p.vm_size.removeprefix("Standard_")
        vcpus = self.client_options.set_index("vm_size")["vcpus"].get(p.vm_size)
        short = self.headroom_pct < -0.5
        cards = [
            Card("Service level", p.level, _level_note(p.level), key="level", number=p.level),
            Card("Volume type", p.volume_type, f"sized for {format_number(p.bw_mib_s)} MiB/s",
                 key="volume_type", number=p.volume_type),
            Card("Quota", format_quota(p.quota_tib),
                 f"at least {i.capacity_tib:g} TiB asked" if i.capacity_tib else
                 "sized by throughput", key="quota_tib", number=p.quota_tib),
            Card("Throughput limit", f"{format_number(p.throughput_limit_mib_s)} MiB/s",
                 f"target {format_number(p.bw_mib_s)} MiB/s = {format_number(p.iops)} IOPS of "
                 f"{i.bs_kib:g} KiB",
                 key="throughput_limit_mib_s", number=p.throughput_limit_mib_s),
            self._latency_card(),
        ]  # fmt: skip
        if math.isfinite(self.cost_usd_month):
            cards.append(Card("Monthly cost", f"{self.cost_usd_month:,.0f} USD",
                              self._cost_note(), key="cost_usd_month",
                              number=self.cost_usd_month))  # fmt: skip
        cards += [
            Card("Client VMs", f"{self.vm_count} x {vm}",
                 f"{vcpus} vCPUs each, nconnect={i.nconnect}" if vcpus else
                 f"nconnect={i.nconnect}", "bad" if self.vm_count < p.vm_count else "",
                 key="vm_count", number=self.vm_count),
            Card("Threads per VM", f"{self.threads_per_vm:,}",
                 f"or iodepth x numjobs; {format_number(p.iops)} IOPS x {p.lat_ms:.3g} ms over "
                 f"{_count(self.vm_count, 'VM')}{self._threads_source()}", key="threads_per_vm",
                 number=self.threads_per_vm),
            Card("Binds", self.binding, self._margin(), "bad" if short else "", key="binding",
                 number=self.binding),
        ]  # fmt: skip
        return cards

    def _margin(self) -> str:
        if abs(self.headroom_pct) < 0.5:
            return f"{format_number(self.binding_mib_s)} MiB/s: just the target"
        binding = format_number(self.binding_mib_s)
        if self.headroom_pct > 0:
            return f"{binding} MiB/s: {self.headroom_pct:.0f} % above the target"
        return f"{binding} MiB/s: {-self.headroom_pct:.0f} % short of the target"

    def _threads_source(self) -> str:
        """Where the card's latency comes from, in a few words."""
        on_sweep = self.threads_basis is not None and self.threads_basis.from_sweep
        return " (the sweep's curve)" if on_sweep else " (Little's law)"

    def verdict_text(self) -> str:
        """What to buy in one sentence (``**bold**`` for :func:`anfperf.report.page.verdict`)."""
        p, i = self.plan, self.inputs
        cost = (
            f" for {self.cost_usd_month:,.0f} USD a month"
            if math.isfinite(self.cost_usd_month)
            else ""
        )
        article = "an" if p.level[:1] in "AEIOU" else "a"
        lat = self.latency
        if i.lat_slo_ms is not None and lat.predictable and lat.at_limit:
            # Little's law sizes the clients for the objective; the volume, at its limit, does
            # not hold it: say so rather than promise it
            within = (
                f", at the volume's limit (a mean within {i.lat_slo_ms:g} ms needs a "
                f"{format_number(lat.limit_for_objective_mib_s)} MiB/s limit)"
            )
        elif i.lat_slo_ms is not None:
            within = f" within {i.lat_slo_ms:g} ms"
        else:
            within = f" (sized for {p.lat_ms:g} ms: no latency objective given)"
        return (
            f"Buy {article} **{p.level} {p.volume_type} volume of {format_quota(p.quota_tib)}**"
            f" ({format_number(p.throughput_limit_mib_s)} MiB/s){cost} and drive it from "
            f"**{self.vm_count} x {p.vm_size}** with **{self.threads_per_vm:,} outstanding I/O "
            f"per VM**: {format_number(p.bw_mib_s)} MiB/s = {format_number(p.iops)} IOPS of "
            f"{i.bs_kib:g} KiB at {i.read_pct:g} % reads{within}; what binds: the {self.binding} "
            f"({self._margin().split(': ', 1)[1]})."
        )

    def headline(self) -> list:
        """The first screen: the cards, the verdict and the notes."""
        items: list = [page.cards(self.cards()), page.verdict(self.verdict_text())]
        basis = [wrapping.sentence(self.threads_basis.text)] if self.threads_basis else []
        notes = [*self.notes, *basis]
        if notes:
            items.append(page.bullets(notes))
        return items

    def text(self, *, all_options: bool = False, width: int = 100) -> str:
        """The plan for a terminal (``anfperf plan``): what to buy first, then the options.

        Parameters
        ----------
        all_options : bool
            Also the reasoning, every limit of the planned setup, and why each option is or
            is not feasible (the tables of :meth:`sections`).
        width : int
            Characters per line; tables wrap their prose to fit.
        """
        cards = self.cards()
        buy = page.Table(
            pd.DataFrame(
                {
                    "label": [c.label for c in cards],
                    "value": [c.value for c in cards],
                    "note": [c.note for c in cards],
                }
            ),  # fmt: skip
            [False, False, False],
        )
        parts = [
            "What to buy",
            buy.to_text(width, header=False, indent=2),
            "",
            wrapping.fill(self.verdict_text().replace("**", ""), width),
            "",
            wrapping.fill(wrapping.sentence(self.latency.text()), width),
        ]
        if self.threads_basis:
            parts += ["", wrapping.fill(wrapping.sentence(self.threads_basis.text), width)]
        if self.notes:
            parts.append("")
            parts += [wrapping.fill(f"- {n}", width, subsequent_indent="  ") for n in self.notes]
        parts += ["", wrapping.fill(self.inputs.prices_text(), width)]
        storage = ["level", "volume_type", "quota", "limit_mib_s", *self._cost_columns(),
                   "latency", "feasible"]  # fmt: skip
        clients = ["vm_size", "vcpus", "egress_mib_s", "vm_count", "total_vcpus", "vm_usd_month"]
        tables = []
        if all_options:
            # the limits' sources are in --json and the report; here their room goes to prose
            tables += [self.reasoning_table(), self.constraints_table(source=False)]
            storage.remove("limit_mib_s")  # in the why's words, as the pool's cost is in the total
            if "cost_usd_month" in storage:
                storage.remove("cost_usd_month")
            storage.append("why")
            clients.remove("egress_mib_s")  # the why says it
            clients.append("why")
        tables += [
            page.table(self._options_shown(), storage, labels=_OPTION_LABELS,
                       caption="Storage options (first: the plan), with the expected mean latency "
                       "at the target and its band"),
            page.table(self.client_options, clients, labels=_OPTION_LABELS,
                       caption=f"Client VM sizes (first: the plan, {self._clients_ranked()})"),
        ]  # fmt: skip
        for t in tables:
            parts += ["", t.to_text(width)]
        return "\n".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """The plan for machine readers (``anfperf plan --json``): keys with units, JSON's
        types (:func:`anfperf.jsonable.jsonable`), None for what has no value."""
        from anfperf.jsonable import jsonable

        p, i = self.plan, self.inputs
        vcpus = self.client_options.set_index("vm_size")["vcpus"].get(p.vm_size)
        return jsonable({
            "target": {
                "bw_mib_s": p.bw_mib_s, "iops": p.iops, "bs_kib": i.bs_kib,
                "read_pct": i.read_pct, "lat_slo_ms": i.lat_slo_ms,
                "capacity_tib": i.capacity_tib,
            },
            "buy": {
                "level": p.level, "volume_type": p.volume_type, "quota_tib": p.quota_tib,
                "throughput_limit_mib_s": p.throughput_limit_mib_s,
                "cost_usd_month": self.cost_usd_month, "pool_tib": self.pool_tib,
                "pool_cost_usd_month": self.pool_cost_usd_month,
                "clients_cost_usd_month": self.clients_cost_usd_month, "vm_size": p.vm_size,
                "vm_count": self.vm_count, "vcpus_per_vm": vcpus,
                "threads_per_vm": self.threads_per_vm, "outstanding_io": p.outstanding,
                "threads_basis": self.threads_basis.text if self.threads_basis else None,
                "lat_ms": p.lat_ms, "nconnect": i.nconnect, "binding": self.binding,
                "binding_mib_s": self.binding_mib_s, "headroom_pct": self.headroom_pct,
                "lat_expected_ms": self.latency.lat_ms,
                "lat_expected_low_ms": self.latency.lat_low_ms,
                "lat_expected_high_ms": self.latency.lat_high_ms,
                "bw_within_objective_mib_s": self.latency.bw_at_objective_mib_s,
                "latency_objective_ms": self.latency.objective_ms,
                "latency_predictable": self.latency.predictable,
                "at_limit": self.latency.at_limit,
            },
            "latency": wrapping.sentence(self.latency.text()),
            "verdict": self.verdict_text().replace("**", ""),
            "prices": self.inputs.prices_text(),
            "notes": self.notes,
            "reasoning": p.reasoning[["step", "decision", "why"]],
            "constraints": self.constraints,
            "storage_options": self.storage_options,
            "client_options": p.client_options,
        })  # fmt: skip

    def reasoning_table(self) -> page.Table:
        """The reasoning for people: step, decision, why."""
        return page.table(self.reasoning, ["step", "decision", "why"],
                          caption="Each decision in the order the planner made it.")  # fmt: skip

    def constraints_table(self, *, source: bool = True) -> page.Table:
        """Every limit of the planned setup; the least binds (`source`: with each limit's
        source article)."""
        cols = [c for c in ("constraint", "bw_mib_s", "iops", "kind", "binding", "detail",
                            "source") if c in self.constraints and (source or c != "source")]  # fmt: skip
        return page.table(
            self.constraints, cols,
            caption="Every limit the planned volume and clients put on the workload; the least "
            "binds (concurrency is sized by Little's law for the SLO, so it is not among them).",
        )  # fmt: skip

    def options_table(self) -> page.Table:
        """Every service level and volume type considered, with the cost when priced."""
        cols = ["level", "volume_type", "quota", "limit_mib_s", *self._cost_columns(),
                "latency", "feasible", "why"]  # fmt: skip
        return page.table(self._options_shown(), cols, labels=_OPTION_LABELS,
                          caption="Every service level and volume type considered, feasible "
                          "or not, and why (first: the plan), with the mean latency each "
                          "gives at the target (queueing at its own limit, the light-load "
                          "latency and shape of ANF's SPECstorage 2020 curves). "
                          + self.inputs.prices_text())  # fmt: skip

    def client_options_table(self) -> page.Table:
        """Every client VM size considered, with the VMs it would need."""
        cols = ["vm_size", "vcpus", "egress_mib_s", "vm_count", "total_vcpus", "vm_usd_month",
                "why"]  # fmt: skip
        return page.table(self.client_options, cols, labels=_OPTION_LABELS,
                          caption="Every client VM size, with the VMs it would need (first: "
                          f"the plan, {self._clients_ranked()}).")  # fmt: skip

    def _cost_columns(self) -> list[str]:
        """The pool and its costs, when priced (without prices the pool says nothing new)."""
        if self.plan.storage_options["cost_usd_month"].notna().any():
            return ["pool_tib", "cost_usd_month", "total_usd_month"]
        return []

    def _clients_ranked(self) -> str:
        priced = self.client_options.get("vm_usd_month")
        if priced is not None and priced.notna().any():
            return "the lowest monthly cost of those priced"
        return "fewest total vCPUs"

    def sections(self) -> list[Section]:
        """Why (reasoning, limits), what if (the charts), and the options considered."""
        out = [Section("Why this plan", [self.reasoning_table(), self.constraints_table()],
                       open=True)]  # fmt: skip
        leads = {
            "quota": "What each service level allows at each quota (Flexible: one volume "
            "filling its pool), the volume caps and the smallest quota meeting the target.",
            "clients": "What 1, 2, ... client VMs of the planned size can drive per client "
            "limit, against the volume's limit and the target.",
            "threads": "Outstanding I/O and latency at the target rate: Little's law ties them; "
            "the plan's point is where the line meets the latency it sized for.",
            "cost": "What the capacity pool of each service level costs a month for each "
            "throughput (whole pool steps, so stairs; Flexible pays for its throughput beyond "
            "the baseline too), at the prices of the plan. " + self.inputs.prices_text(),
        }
        titles = {"quota": "What if: quota and service level", "clients": "What if: client VMs",
                  "threads": "What if: outstanding I/O and latency",
                  "cost": "What if: monthly cost and throughput"}  # fmt: skip
        for name, fig in self.figures.items():
            out.append(Section(titles[name], [page.text(leads[name]), fig], open=True))
        out.append(Section("Options considered",
                           [self.options_table(), self.client_options_table()]))  # fmt: skip
        return out


_OPTION_LABELS = {
    "level": "Service level",
    "volume_type": "Volume type",
    "quota": "Quota",
    "limit_mib_s": "Throughput limit [MiB/s]",
    "pool_tib": "Pool [TiB]",
    "cost_usd_month": "Pool cost [USD/month]",
    "total_usd_month": "Monthly cost [USD]",
    "latency": "Expected mean latency at the target",
    "vm_usd_month": "VMs [USD/month]",
    "feasible": "Feasible",
    "vm_size": "VM size",
    "vcpus": "vCPUs",
    "egress_mib_s": "Egress per VM [MiB/s]",
    "vm_count": "VMs needed",
    "total_vcpus": "Total vCPUs",
}


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _level_note(level: str) -> str:
    if level == "Flexible":
        return "manual QoS: throughput bought apart"
    from anfperf.models.limits.quota import auto_qos_rate

    return f"auto QoS, {auto_qos_rate(level):g} MiB/s per TiB"


def _view(inputs: PlanInputs, sweep: SweepCurve | None = None) -> PlanView:
    """The plan and its binding constraint, without charts; threads on `sweep`'s curve."""
    chosen, basis = plan_on_sweep(
        sweep, bs_kib=inputs.bs_kib, bw_mib_s=inputs.target_mib_s, iops=inputs.target_iops,
        read_pct=inputs.read_pct, lat_slo_ms=inputs.lat_slo_ms, levels=list(inputs.levels),
        vm_sizes=[inputs.vm_size] if inputs.vm_size else None, nconnect=inputs.nconnect,
        capacity_tib=inputs.capacity_tib, prices=inputs.plan_prices, vm_prices=inputs.vm_prices,
    )  # fmt: skip
    return explain_plan(inputs, chosen, threads_basis=basis)


def explain_plan(
    inputs: PlanInputs,
    chosen: Plan,
    *,
    pattern: str | None = None,
    rule: str = "current",
    nfs_version: str = "3",
    threads_basis: ThreadsBasis | None = None,
) -> PlanView:
    """The view of a plan made already: its binding constraint and what the user should know.

    :func:`plan_view` plans and explains in one; ``anfperf plan``, which takes more of
    :func:`anfperf.models.plan`'s options than :class:`PlanInputs` has, plans first and
    explains the plan here, so that the command and the notebook say the same.

    Parameters
    ----------
    inputs : PlanInputs
        What was asked for (the target, block size, read share, SLO, clients, nconnect).
    chosen : anfperf.models.Plan
        :func:`anfperf.models.plan` of `inputs`.
    pattern : {'sequential', 'random'}, optional
        The access pattern the plan was made for; default: assumed from the block size, as
        :func:`anfperf.models.plan` does.
    rule : str
        Volume-limit rules the plan was made with.
    nfs_version : {'3', '4.1'}
        NFS version of the clients.
    threads_basis : ThreadsBasis, optional
        How its threads were sized (:func:`anfperf.planning.threads.plan_on_sweep`).

    Returns
    -------
    PlanView
        Without charts (:func:`what_if_figures` draws them).
    """
    vm_count = int(inputs.clients or chosen.vm_count)
    # Flexible has no auto-QoS limit: the throughput bought is the volume's (manual QoS) limit
    volume = ({"level": chosen.level, "quota_tib": chosen.quota_tib}
              if chosen.level != "Flexible" else
              {"level": chosen.level, "manual_bw_mib_s": chosen.throughput_limit_mib_s,
               "qos_type": "manual"})  # fmt: skip
    constraints = predict_achievable(
        bs_kib=inputs.bs_kib, read_pct=inputs.read_pct, volume_type=chosen.volume_type,
        rule=rule, pattern=pattern or inputs.pattern, vm_size=chosen.vm_size, vm_count=vm_count,
        nconnect=inputs.nconnect, nfs_version=nfs_version, **volume,
    )  # fmt: skip
    notes = []
    seen = constraints[constraints["constraint"] == PUBLISHED_BENCHMARK]
    if not seen.empty and seen["bw_mib_s"].iloc[0] < chosen.bw_mib_s * (1 - 1e-9):
        notes.append(
            f"the target is {100 * (chosen.bw_mib_s / seen['bw_mib_s'].iloc[0] - 1):.1f} % "
            "above what one such volume was seen to do "
            f"({format_number(seen['bw_mib_s'].iloc[0])} MiB/s, published): within the volume's "
            "limits, but not measured"
        )
    if vm_count < chosen.vm_count:
        why = chosen.client_options.iloc[0]["why"]
        notes.append(
            f"with {vm_count} x {chosen.vm_size} the clients fall short of the target: the "
            f"plan needs {chosen.vm_count} ({why})"
        )
    threads = math.ceil(chosen.outstanding / vm_count)
    inflight = nfs_inflight_limit(inputs.nconnect, nfs_version)
    if threads > inflight:
        notes.append(
            f"{threads} outstanding I/O per VM is more than NFSv{nfs_version} with nconnect="
            f"{inputs.nconnect} keeps in flight ({inflight}): add clients or connections"
        )
    return PlanView(inputs, chosen, constraints, notes, threads_basis=threads_basis)


def what_if_figures(
    inputs: PlanInputs,
    *,
    curve: Mapping[str, float] | pd.DataFrame | None = None,
    source: str | None = None,
    view: PlanView | None = None,
) -> dict[str, go.Figure]:
    """The what-if charts of a plan: quota per level, client VMs, threads against latency.

    Parameters
    ----------
    inputs : PlanInputs
        The target.
    curve : mapping, pandas.DataFrame or None
        For the outstanding-I/O chart: a USL fit or the tidy frame of a concurrency sweep,
        drawn against the plan's Little's-law line; None: the plan alone (see
        :func:`anfperf.plots.planning.concurrency_for_target`).
    source : str, optional
        Name of the curve's data, for its chart title.
    view : PlanView, optional
        The plan of `inputs` when already made (:func:`plan_view`); else made here.

    Returns
    -------
    dict of str to plotly.graph_objects.Figure
        Keys :data:`FIGURES`: 'quota', 'clients', 'threads'; and 'cost' with prices (the
        monthly cost of the capacity pool against the throughput per level,
        :func:`anfperf.plots.planning.cost_vs_throughput`).

    Raises
    ------
    anfperf.ModelError
        No plan meets the target (the error says why).
    """
    from anfperf.plots.planning import (
        clients_vs_throughput,
        concurrency_for_target,
        cost_vs_throughput,
        quota_vs_throughput,
    )

    view = view or _view(inputs)
    p = view.plan
    priced = inputs.plan_prices
    cost = {}
    if priced:
        cost["cost"] = cost_vs_throughput(
            priced, inputs.levels, p.bw_mib_s, volume_type=p.volume_type,
            capacity_tib=inputs.capacity_tib,
            region=inputs.retail.region if inputs.retail is not None else None,
        )  # fmt: skip
    return {
        "quota": quota_vs_throughput(
            inputs.levels, inputs.bs_kib, p.bw_mib_s, read_pct=inputs.read_pct,
            volume_type=p.volume_type, level=p.level if p.level != "Flexible" else None,
            quota_tib=p.quota_tib if p.level != "Flexible" else None,
        ),
        "clients": clients_vs_throughput(
            p.vm_size, p.bw_mib_s, bs_kib=inputs.bs_kib, read_pct=inputs.read_pct,
            pattern=inputs.pattern, nconnect=inputs.nconnect,
            volume_limit_mib_s=p.throughput_limit_mib_s, vm_count=view.vm_count,
            max_vms=max(8, 2 * p.vm_count, view.vm_count),
        ),
        "threads": concurrency_for_target(
            p.iops, inputs.lat_slo_ms or p.lat_ms, outstanding=p.outstanding, lat_ms=p.lat_ms,
            vm_count=view.vm_count, curve=curve, source=source,
        ),
        **cost,
    }  # fmt: skip


def plan_view(
    inputs: PlanInputs,
    *,
    curve: Mapping[str, float] | pd.DataFrame | None = None,
    source: str | None = None,
    figures: bool = True,
) -> PlanView:
    """The plan for `inputs`, its binding constraint, reasoning, options and what-if charts.

    The plan is :func:`anfperf.models.plan`'s; the binding constraint is the least of
    :func:`anfperf.models.predict_achievable` for the planned volume and clients.

    Parameters
    ----------
    inputs : PlanInputs
        The target.
    curve, source
        For the threads-vs-latency chart, as in :func:`what_if_figures`.
    figures : bool
        Draw the charts (False: the numbers only, quicker).

    Raises
    ------
    anfperf.ModelError
        No level, quota or client meets the target (the error says why).
    """
    sweep = sweep_curve(curve, source or "the sweep") if isinstance(curve, pd.DataFrame) else None
    view = _view(inputs, sweep)
    if figures:
        view.figures = what_if_figures(inputs, curve=curve, source=source, view=view)
    return view


# --------------------------------------------------------------------------------------------
# Widgets: the same functions behind ipywidgets controls


def controls(defaults: PlanInputs | None = None) -> dict[str, Any]:
    """ipywidgets controls of the planner, set to `defaults`.

    Returns
    -------
    dict of str to ipywidgets.Widget
        'unit' (MiB/s or IOPS), 'target', 'bs_kib', 'read_pct', 'lat_slo_ms', 'levels',
        'vm_size' (:data:`ANY_VM`: the plan chooses), 'clients' (0: as many as the plan needs),
        'nconnect'. :func:`control_values` reads them back as :class:`PlanInputs` fields.
    """
    import ipywidgets as w

    i = defaults or DEFAULT_INPUTS
    unit = "IOPS" if i.target_iops is not None else "MiB/s"
    # a value of None shows as a blank dropdown: "any" is a value of its own
    sizes = [(ANY_VM, ANY_VM), *((s, s) for s in vm_network()["vm_size"])]
    blocks = sorted({*BLOCK_SIZES_KIB, i.bs_kib})
    style = {"description_width": "initial"}
    return {
        "unit": w.ToggleButtons(options=["MiB/s", "IOPS"], value=unit, description="Target"),
        "target": w.FloatText(value=i.target_iops or i.target_mib_s,
                              description=f"Value [{unit}]", style=style),
        "bs_kib": w.Dropdown(options=[(f"{b:g}", b) for b in blocks], value=i.bs_kib,
                             description="Block [KiB]", style=style),
        "read_pct": w.IntSlider(value=round(i.read_pct), min=0, max=100, step=5,
                                description="Read [%]", style=style),
        "lat_slo_ms": w.BoundedFloatText(value=i.lat_slo_ms, min=0.01, max=1000.0, step=0.1,
                                         description="SLO [ms]", style=style),
        "levels": w.SelectMultiple(options=PLANNED_LEVELS, value=tuple(i.levels), rows=4,
                                   description="Levels", style=style),
        "vm_size": w.Dropdown(options=sizes, value=i.vm_size or ANY_VM, description="VM size",
                              style=style),
        "clients": w.BoundedIntText(value=i.clients or 0, min=0, max=1000,
                                    description="Client VMs (0: as needed)", style=style),
        "nconnect": w.IntSlider(value=i.nconnect, min=1, max=int(nfs_client_value("nconnect_max")),
                                description="nconnect", style=style),
    }  # fmt: skip


def control_values(widgets: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`PlanInputs` fields the controls of :func:`controls` are set to."""
    value = float(widgets["target"].value)
    iops = widgets["unit"].value == "IOPS"
    vm_size = widgets["vm_size"].value
    return {
        "target_mib_s": None if iops else value,
        "target_iops": value if iops else None,
        "bs_kib": float(widgets["bs_kib"].value),
        "read_pct": float(widgets["read_pct"].value),
        "lat_slo_ms": float(widgets["lat_slo_ms"].value),
        "levels": tuple(widgets["levels"].value),
        "vm_size": None if vm_size in (None, ANY_VM) else vm_size,
        "clients": int(widgets["clients"].value) or None,
        "nconnect": int(widgets["nconnect"].value),
    }


def convert_target(value: float, from_unit: str, to_unit: str, bs_kib: float) -> float:
    """A target in the other unit at a block size: IOPS = MiB/s x 1024 / block [KiB].

    Rounded to 3 decimals (what the control shows); the same unit returns `value`.
    """
    if from_unit == to_unit:
        return float(value)
    if to_unit == "IOPS":
        return round(float(bw_to_iops(value, bs_kib)), 3)
    return round(float(iops_to_bw(value, bs_kib)), 3)


#: Starting inputs of :class:`PlannerApp` and :func:`controls` when none are given.
DEFAULT_INPUTS = PlanInputs(target_mib_s=1000.0)


def _batch() -> bool:
    """A report kernel (``ANFPERF_BATCH`` set by :mod:`anfperf.report`): no one to click."""
    return bool(os.environ.get("ANFPERF_BATCH"))


class PlannerApp:
    """The capacity planner: inputs -> plan, reasoning and charts, redrawn on every change.

    Parameters
    ----------
    inputs : PlanInputs, optional
        Starting values (default :data:`DEFAULT_INPUTS`).
    curve : mapping, pandas.DataFrame or None
        For the outstanding-I/O chart: a USL fit or a sweep's tidy frame (:func:`load_sweep`),
        drawn against the plan; None: the plan alone.
    source : str, optional
        Name of the curve's data.

    Attributes
    ----------
    view : PlanView or None
        The current plan; None when the inputs have none (see `error`).
    error : str or None
        Why there is no plan.
    controls : dict of str to ipywidgets.Widget
        Set by :meth:`widget`; :meth:`on_change` reads them.
    outputs : dict of str to ipywidgets.Output
        Set by :meth:`widget`: 'headline' (what to buy, or why there is no plan) and
        'details' (reasoning, charts, options), rewritten whole on every change.
    """

    def __init__(
        self,
        inputs: PlanInputs | None = None,
        *,
        curve: Mapping[str, float] | pd.DataFrame | None = None,
        source: str | None = None,
    ):
        self.inputs = inputs or DEFAULT_INPUTS
        self.curve = curve
        self.source = source
        self.view: PlanView | None = None
        self.error: str | None = None
        self.controls: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self._holding = False

    @classmethod
    def from_parameters(
        cls,
        *,
        sweep: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
        **parameters: Any,
    ) -> PlannerApp:
        """The app of a notebook's parameters (:meth:`PlanInputs.from_parameters`).

        `sweep`: raw outputs of a concurrency sweep drawn against the plan, ``"sample"`` for
        the bundled one (a local disk), None for none.
        """
        inputs = PlanInputs.from_parameters(**parameters)
        if sweep is None:
            return cls(inputs)
        frame, source = load_sweep(None if sweep == "sample" else sweep)
        return cls(inputs, curve=frame, source=source)

    def update(self, **changes: Any) -> PlanView | None:
        """Apply changes to the inputs (fields of :class:`PlanInputs`) and re-plan.

        A change to ``target_mib_s`` clears ``target_iops`` and the other way round. Inputs
        without a plan (out of range, or no option meets the target) set :attr:`error`
        instead of raising: in an interactive session the user just moves a control back.

        Returns
        -------
        PlanView or None
            The new plan view, None when there is no plan (see :attr:`error`).

        Raises
        ------
        anfperf.AnfperfError
            A change names no field of :class:`PlanInputs` (a programming error, not an input).
        """
        unknown = set(changes) - {f.name for f in dataclasses.fields(PlanInputs)}
        if unknown:
            raise AnfperfError(f"no such planner input: {sorted(unknown)}")
        if changes.get("target_mib_s") is not None:
            changes.setdefault("target_iops", None)
        if changes.get("target_iops") is not None:
            changes.setdefault("target_mib_s", None)
        try:
            self.inputs = dataclasses.replace(self.inputs, **changes)
            self.view = plan_view(self.inputs, curve=self.curve, source=self.source)
            self.error = None
        except AnfperfError as exc:
            self.view, self.error = None, str(exc)
            log.info("no plan: %s", exc)
        self._render()
        return self.view

    def on_change(self, change: object = None) -> PlanView | None:
        """Observer of every control: re-plan from their values (:func:`control_values`)."""
        if self._holding:
            return self.view  # a control set by another's observer: one re-plan, after it
        return self.update(**control_values(self.controls))

    def on_unit(self, change: Mapping[str, Any]) -> PlanView | None:
        """Observer of the unit toggle: the target keeps its meaning in the other unit.

        5,000 MiB/s of 64 KiB becomes 80,000 IOPS (IOPS = MiB/s x 1024 / block [KiB]), and back.
        """
        c = self.controls
        self._holding = True
        try:
            c["target"].value = convert_target(
                c["target"].value, change["old"], change["new"], float(c["bs_kib"].value)
            )
            c["target"].description = f"Value [{change['new']}]"
        finally:
            self._holding = False
        return self.on_change()

    def page_items(self) -> list:
        """What the page shows: what to buy (or why there is none), then the sections."""
        if self.view is None and self.error is None:
            self.update()
        if self.view is None:
            return [page.verdict(f"**No plan:** {self.error}")]
        return [*self.view.headline(), *self.view.sections()]

    def show(self) -> None:
        """Put the plan on the page, once.

        In a batch report (``ANFPERF_BATCH``): the page itself, static. In a live kernel: the
        controls and the page in outputs they redraw (:meth:`widget`).
        """
        from IPython.display import display

        if _batch():
            for item in self.page_items():
                page.show(item)
            return
        display(self.widget())

    def widget(self) -> Any:
        """What to buy, the controls under it, and the details; every change re-plans.

        Returns None in a batch report (``ANFPERF_BATCH`` set by :mod:`anfperf.report`): a
        static HTML page has no kernel for the controls to talk to.
        """
        if _batch():
            return None
        import ipywidgets as w

        self.controls = controls(self.inputs)
        self.outputs = {"headline": w.Output(), "details": w.Output()}
        for name, control in self.controls.items():
            control.observe(self.on_unit if name == "unit" else self.on_change, names="value")
        self.on_change()
        c = self.controls
        rows = [
            w.HBox([c["unit"], c["target"], c["bs_kib"], c["read_pct"]]),
            w.HBox([c["lat_slo_ms"], c["vm_size"], c["clients"], c["nconnect"]]),
            w.HBox([c["levels"]]),
        ]
        return w.VBox([self.outputs["headline"], *rows, self.outputs["details"]])

    def _render(self) -> None:
        """Rewrite the outputs whole: the plan, or the reason there is none and nothing else."""
        if not self.outputs:
            return  # no widgets: nothing to redraw (tests, papermill)
        if self.view is None:
            self.outputs["headline"].outputs = (
                _output(page.verdict(f"**No plan:** {self.error}")),
            )
            self.outputs["details"].outputs = ()  # no charts of a plan that is gone
            return
        self.outputs["headline"].outputs = tuple(_output(i) for i in self.view.headline())
        details = []
        for section in self.view.sections():
            details.append(_output(page.heading(section.title, 2)))
            details += [_output(item) for item in section.items]
        self.outputs["details"].outputs = tuple(details)


def _output(item: Any) -> dict:
    """One display_data output of a page item (an Output widget's `outputs` entry)."""
    import plotly.graph_objects as go

    from anfperf.report.display import figure_bundle

    if isinstance(item, go.Figure):
        data = {**figure_bundle(item), "text/plain": item.layout.title.text or "figure"}
    elif hasattr(item, "_repr_html_"):
        data = {"text/html": item._repr_html_(), "text/plain": repr(item)}
    else:
        data = {"text/plain": str(item)}
    return {"output_type": "display_data", "data": data, "metadata": {}}
