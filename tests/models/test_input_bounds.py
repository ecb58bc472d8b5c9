"""Planner and model inputs are checked at the boundary (issue 9, item 25): errors name the
argument instead of nonsense with exit status 0."""

from __future__ import annotations

import numpy as np
import pytest

from anfperf.cli import main
from anfperf.errors import ModelError
from anfperf.models import (
    fit_usl,
    iops_to_bw,
    nfs_inflight_limit,
    plan,
    threads_needed,
    throughput_limit,
    usl_knee,
    usl_max,
    usl_peak,
)


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


# -- issue 24, item 16: a boolean is not a number, and price keys are named --------------------


@pytest.mark.parametrize(
    "field, message",
    [("bs_kib", "bs_kib must be a number"), ("iops", "iops must be a number"),
     ("read_pct", "read_pct must be a number"), ("lat_ms", "lat_ms must be a number"),
     ("lat_slo_ms", "lat_slo_ms must be a number"),
     ("capacity_tib", "capacity_tib must be a number"), ("nconnect", "nconnect must be an integer")],
)  # fmt: skip
def test_plan_refuses_true_for_a_number(field, message):
    # before: bs_kib=True planned for 1 KiB blocks, capacity_tib=True for 1 TiB, ...
    with pytest.raises(ModelError, match=rf"^{message}.*got True$"):
        plan(**{"bs_kib": 8, "iops": 10_000, field: True})
    with pytest.raises(ModelError, match=r"^bw_mib_s must be a number.*got True$"):
        plan(bs_kib=8, bw_mib_s=True)


def test_model_functions_refuse_booleans_naming_the_argument():
    with pytest.raises(ModelError, match="^bs_kib must be a number, not true/false: got True$"):
        iops_to_bw(1000, True)  # before: 0.98 MiB/s, as if 1 KiB
    with pytest.raises(ModelError, match="^iops must be a number, not true/false"):
        threads_needed(True, 1.0)
    with pytest.raises(ModelError, match="^quota_tib must be a number, not true/false"):
        throughput_limit(True, "Premium")
    with pytest.raises(ModelError, match=r"^concurrency must be numbers, not true/false"):
        fit_usl([True, 2, 4, 8, 16], [100.0, 190.0, 350.0, 600.0, 900.0])
    with pytest.raises(ModelError, match="^nconnect must be an integer 1 .. 16, got True$"):
        nfs_inflight_limit(True)
    curve = {"lam": True, "sigma": 0.05, "kappa": 0.0001}
    with pytest.raises(ModelError, match="^curve parameter lam must be a number, got True$"):
        plan(bs_kib=8, iops=500, curve=curve)
    # numbers of every kind are still numbers
    assert iops_to_bw(np.int64(1024), np.float32(8)) == 8.0
    assert iops_to_bw(np.array([1024, 2048]), 8).tolist() == [8.0, 16.0]


def test_a_price_must_be_a_number_not_true():
    with pytest.raises(ModelError, match=r"^the price of 'Premium' must be a finite number"):
        plan(bs_kib=64, bw_mib_s=100, prices={"Premium": True})


def test_unknown_price_keys_are_named_with_the_valid_ones(capsys):
    assert main(["plan", "--bs-kib", "64", "--bw-mib-s", "100", "--price", "Nope=1"]) == 2
    err = capsys.readouterr().err.strip()
    # before: 'no service level / volume type meets the target: ... no price given for ...'
    assert err.startswith("anfperf: error: unknown price key 'Nope'") and "\n" not in err
    assert "Standard, Premium, Ultra, Flexible" in err and "'Flexible throughput'" in err
    with pytest.raises(ModelError, match="unknown price key 'Premum'"):
        plan(bs_kib=64, bw_mib_s=100, prices={"Premium": 0.0002, "Premum": 0.0003})


def test_price_keys_are_read_in_any_case():
    # before: 'premium' was no price for Premium, and the plan failed for want of one
    result = plan(bs_kib=64, bw_mib_s=100, prices={"premium": 0.0002, "ULTRA": 0.0003})
    costs = result.storage_options.set_index(["level", "volume_type"])["cost_usd_month"]
    # 100 MiB/s: Ultra 0.78125 TiB in a 1 TiB pool x 1024 GiB x 0.0003 USD x 730 h, Premium
    # 1.5625 TiB in a 2 TiB pool
    assert costs["Ultra", "regular"] == pytest.approx(1 * 1024 * 0.0003 * 730)  # 224.26
    assert costs["Premium", "regular"] == pytest.approx(2 * 1024 * 0.0002 * 730)  # 299.01
    assert (result.level, result.quota_tib) == ("Ultra", 0.78125)
    with pytest.raises(ModelError, match="the price of Premium is given twice"):
        plan(bs_kib=64, bw_mib_s=100, prices={"premium": 0.0002, "Premium": 0.0002})
