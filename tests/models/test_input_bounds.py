"""Planner and model inputs are checked at the boundary (issue 9, item 25): errors name the
argument instead of nonsense with exit status 0."""

from __future__ import annotations

import pytest

from anfperf.cli import main
from anfperf.errors import ModelError
from anfperf.models import threads_needed, usl_knee, usl_max, usl_peak


@pytest.mark.parametrize(
    "args, message",
    [(["--bs-kib", "inf", "--bw-mib-s", "100"], "bs_kib must be a number within"),
     (["--bs-kib", "64", "--iops", "1e-9"], "iops must be a number within"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--lat-ms", "1e12"], "lat_ms must be a number"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--lat-slo-ms", "1e-9"], "lat_slo_ms must be"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=-1"], "price of 'Ultra'"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=nan"], "price of 'Ultra'"),
     (["--bs-kib", "64", "--bw-mib-s", "100", "--price", "Ultra=inf"], "price of 'Ultra'")],
    ids=["bs-inf", "iops-tiny", "lat-huge", "slo-tiny", "price-negative", "price-nan", "price-inf"],
)  # fmt: skip
def test_plan_command_refuses_nonsense(args, message, capsys):
    assert main(["plan", *args]) == 2
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
