"""Planner and model inputs are checked at the boundary (issue 9, item 25): errors name the
argument instead of nonsense with exit status 0."""

from __future__ import annotations

import pytest

from anfperf.cli import main
from anfperf.errors import ModelError
from anfperf.models import threads_needed, usl_knee, usl_max, usl_peak


@pytest.mark.parametrize(
    "args, message",
    # the command names its option and the value as typed (issue 25, item 7); the library
    # its argument (tests/models/test_plan.py)
    [(["--bs-kib", "inf", "--bw-mib-s", "100"],
      "argument --bs-kib: not a number within 0.5 .. 16384: 'inf'"),
     (["--bs-kib", "64", "--iops", "1e-9"], "argument --iops: not a number within 1 .. 1e+10"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--lat-ms", "1e12"], "argument --lat-ms: not a"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--lat-slo-ms", "1e-9"], "--lat-slo-ms: not a"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=-1"], "price of 'Ultra'"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=nan"], "price of 'Ultra'"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=inf"], "price of 'Ultra'")],
    ids=["bs-inf", "iops-tiny", "lat-huge", "slo-tiny", "price-negative", "price-nan", "price-inf"],
)  # fmt: skip
def test_plan_command_refuses_nonsense(args, message, capsys):
    try:
        status = main(["plan", *args])
    except SystemExit as exc:  # argparse refuses an option's value itself
        status = exc.code
    assert status == 2
    assert message in capsys.readouterr().err


def test_models_refuse_values_outside_their_domain():
    with pytest.raises(ModelError, match="I/Os in flight: check the units"):
        threads_needed(1e308, 1.14)
    assert threads_needed(3500, 1.14) == 4
    for fn in (usl_peak, usl_max, usl_knee):
        with pytest.raises(ModelError, match="USL parameter sigma must be a finite number"):
            fn(1000, float("nan"), 0.001)
    with pytest.raises(ModelError, match="USL parameter lam must be > 0"):
        usl_peak(0, 0.1, 0.001)
