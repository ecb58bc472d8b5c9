"""Capacity planning as people see it: the planner's page and app, and what a given volume would do.

- :mod:`~anfperf.planning.planner` -- a target in, the plan with its reasoning and what-if
  charts out (:class:`PlanInputs`, :func:`plan_view`, :class:`PlanView`, :class:`PlannerApp`);
  the capacity-planning notebook and ``anfperf plan`` are thin shells over it.
- :mod:`~anfperf.planning.volume` -- what a volume Azure describes would do
  (:func:`plan_volume`, ``anfperf plan --volume FILE``).

The planner itself (a pure function of the limits) is :func:`anfperf.models.plan`; its charts
are :mod:`anfperf.plots.planning`.
"""

from anfperf.planning.planner import (
    ABOUT,
    ANY_VM,
    BLOCK_SIZES_KIB,
    DEFAULT_INPUTS,
    FIGURES,
    PlanInputs,
    PlannerApp,
    PlanView,
    control_values,
    controls,
    convert_target,
    explain_plan,
    plan_view,
    what_if_figures,
)
from anfperf.planning.volume import VolumePlan, plan_volume

__all__ = [
    "ABOUT",
    "ANY_VM",
    "BLOCK_SIZES_KIB",
    "DEFAULT_INPUTS",
    "FIGURES",
    "PlanInputs",
    "PlanView",
    "PlannerApp",
    "VolumePlan",
    "control_values",
    "controls",
    "convert_target",
    "explain_plan",
    "plan_view",
    "plan_volume",
    "what_if_figures",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
