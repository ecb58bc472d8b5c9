"""The bandwidth-quota chart: model lines from anfperf.models.limits.quota, the verdict from findings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import anfperf
from anfperf.analysis import findings
from anfperf.errors import AnfperfError, ModelError
from anfperf.models.limits import quota as q
from anfperf.plots import quota_model
from anfperf.plots._style import LIMIT_COLOR, SLO_COLOR
from anfperf.plots.quota import level_line
from tests.conftest import DATA

#: Quotas [TiB] to check the drawn lines at: 50 GiB, round sizes, the corners of the lines
#: (Ultra reaches 4,500 at 35.16 TiB, Premium at 70.31, Standard 1,600 at 100) and 100 TiB.
SAMPLE_QUOTAS = [50 / 1024, 0.1, 0.2, 1.0, 4.0, 7.03125, 10.0, 35.15625, 50.0, 70.3125, 100.0]


def lines(fig):
    """Traces by the level (or point) they show: 'Premium', 'Flexible', 'model', ..."""
    return {t.name.split(" (")[0].split(":")[0]: t for t in fig.data if t.meta != "cap"}


def caps(fig):
    """{cap [MiB/s]: line colour} of the horizontal cap lines (legend entries)."""
    return {t.y[0]: t.line.color for t in fig.data if t.meta == "cap"}


def drawn(trace, x):
    """The polyline of a trace at quotas `x` (linear between its points, as plotly draws)."""
    return np.interp(x, np.asarray(trace.x, float), np.asarray(trace.y, float))


@pytest.mark.parametrize("level", ["Standard", "Premium", "Ultra"])
def test_each_level_s_line_is_the_model_at_any_quota(level):
    fig = quota_model(quota_tib=4, level="Premium", bs_kib=64)
    expected = q.throughput_limit(SAMPLE_QUOTAS, level)
    assert drawn(lines(fig)[level], SAMPLE_QUOTAS) == pytest.approx(expected, rel=1e-12)
    assert lines(fig)[level].line.width == (3 if level == "Premium" else 1.5)


def test_flexible_is_one_volume_filling_its_pool():
    fig = quota_model(quota_tib=4, level="Premium", bs_kib=64)
    flexible = lines(fig)["Flexible"]
    pool = q.pool_throughput_limit(SAMPLE_QUOTAS, "Flexible")  # 128 baseline, 640 per TiB
    expected = np.minimum(pool, q.manual_qos_range_mib_s()[1])  # a volume gets 4,500 at most
    assert drawn(flexible, SAMPLE_QUOTAS) == pytest.approx(expected, rel=1e-12)
    assert drawn(flexible, [0.1, 1.0, 10.0]) == pytest.approx([128.0, 640.0, 4500.0])
    assert flexible.line.dash == "dashdot"


@pytest.mark.parametrize(
    ("volume_type", "rule", "quota_tib", "expected"),
    [
        ("regular", "current", 4, {1600.0: ["Standard"], 4500.0: ["Premium", "Ultra"]}),
        ("large", "current", 300, {4500.0: [], 12800.0: ["Standard", "Premium", "Ultra"]}),
        ("large", "2023-11", 300, {1600.0: ["Standard"], 4500.0: [], 6400.0: ["Premium"],
                                   10240.0: ["Ultra"]}),
    ],
)  # fmt: skip
def test_caps_are_the_volume_type_s(volume_type, rule, quota_tib, expected):
    fig = quota_model(
        quota_tib=quota_tib, level="Premium", bs_kib=256, volume_type=volume_type, rule=rule
    )
    assert sorted(caps(fig)) == sorted(expected)
    for cap, levels in expected.items():
        assert all(q.volume_type_cap(lv, volume_type, rule) == cap for lv in levels)
        # named in the legend: no text on the plot for another line to run through
        (label,) = [t.name for t in fig.data if t.meta == "cap" and t.y[0] == cap]
        assert not any(f" {cap:,.0f} MiB/s" in a.text for a in fig.layout.annotations)
        if levels:
            assert label.startswith(f"{volume_type} volume cap {cap:,.0f} MiB/s ({levels[0]}")
        else:  # no auto-QoS level has it: the manual-QoS maximum of one volume
            assert label == f"volume maximum {cap:,.0f} MiB/s (Flexible: manual QoS)"
    # every line stays inside the volume type's size range and under its cap
    lo, hi = q.volume_size_range("Premium", volume_type, rule)
    premium = lines(fig)["Premium"]
    assert (premium.x[0], premium.x[-1]) == pytest.approx((lo, hi))
    assert max(premium.y) == q.volume_type_cap("Premium", volume_type, rule)


@pytest.mark.parametrize(
    ("scenario", "binding"),
    [
        ({"quota_tib": 4, "level": "Premium", "bs_kib": 64, "read_pct": 0}, "volume quota"),
        ({"quota_tib": 90, "level": "Premium", "bs_kib": 64}, "volume type cap"),
        ({"quota_tib": 300, "level": "Ultra", "bs_kib": 256, "volume_type": "large",
          "rule": "2023-11"}, "volume type cap"),
        ({"quota_tib": 50, "level": "Premium", "bs_kib": 64, "read_pct": 0,
          "vm_size": "Standard_D8ds_v4"}, "client network egress"),
        ({"quota_tib": 100, "level": "Ultra", "bs_kib": 4, "pattern": "random"},
         "published volume benchmark"),
    ],
)  # fmt: skip
def test_operating_point_and_binding_constraint_are_findings(scenario, binding):
    fig = quota_model(measured_bw_mib_s=200.0, measured_label="run / job", **scenario)
    check = findings.quota_check(200.0, **scenario)
    assert check["binding"] == binding
    point, model = lines(fig)["run / job"], lines(fig)["model"]
    assert (point.x[0], point.y[0]) == (scenario["quota_tib"], 200.0)
    assert (model.x[0], model.y[0]) == (scenario["quota_tib"], check["predicted_bw_mib_s"])
    assert model.name.endswith(f"(binding: {binding})")
    title = fig.layout.title.text
    assert f"binding: {binding}" in title and f"measured {check['share_pct']:.0f} % of it" in title
    assert ("not a volume limit" in title) == (binding not in ("volume quota", "volume type cap"))
    # the cap line turns red only where the cap is what binds
    own_cap = q.volume_type_cap(
        scenario["level"], scenario.get("volume_type", "regular"), scenario.get("rule", "current")
    )
    assert caps(fig)[own_cap] == (SLO_COLOR if binding == "volume type cap" else LIMIT_COLOR)


def test_a_real_run_s_operating_point():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([DATA / "vdbench" / "SeqWrite"])
    point = findings.operating_point(frame)
    fig = quota_model(
        quota_tib=10, level="Ultra", bs_kib=point["bs_kib"], read_pct=point["read_pct"],
        measured_bw_mib_s=point["bw_mib_s"], measured_label=point["label"],
    )  # fmt: skip
    star = lines(fig)[point["label"]]
    assert (star.x[0], star.y[0]) == (10, point["bw_mib_s"])
    assert point["bs_kib"] == 64 and "64 KiB, 0 % read" in fig.layout.title.text
    check = findings.quota_check(
        point["bw_mib_s"], bs_kib=64, read_pct=point["read_pct"], level="Ultra", quota_tib=10
    )
    assert f"binding: {check['binding']} (" in fig.layout.title.text


def test_axes_and_the_model_alone():
    fig = quota_model(quota_tib=4, level="premium", bs_kib=64)
    assert fig.layout.xaxis.title.text == "Volume quota [TiB]"
    assert fig.layout.yaxis.title.text == "Throughput [MiB/s]"
    assert (fig.layout.xaxis.type, fig.layout.yaxis.type) == ("log", "log")
    assert "binding" not in fig.layout.title.text  # nothing measured: nothing to judge
    assert set(lines(fig)) == {"Standard", "Premium", "Ultra", "Flexible"}
    only = quota_model(quota_tib=4, level="Premium", bs_kib=64, levels=["Premium"])
    assert set(lines(only)) == {"Premium"} and sorted(caps(only)) == [4500.0]
    vline = [s for s in fig.layout.shapes if s.x0 == s.x1]
    assert [s.x0 for s in vline] == [4]
    # log axes label the decades only, in plain digits; minor ticks carry no label
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.tickmode == "array" and axis.minor.ticks == "outside"
        assert all(np.log10(v) == round(np.log10(v)) for v in axis.tickvals)
    assert list(fig.layout.xaxis.ticktext) == ["0.01", "0.1", "1", "10", "100"]
    assert "1,000" in fig.layout.yaxis.ticktext


def test_the_same_inputs_give_the_same_figure():
    kwargs = {"quota_tib": 4, "level": "Premium", "bs_kib": 64, "measured_bw_mib_s": 200.0}
    assert quota_model(**kwargs).to_json() == quota_model(**kwargs).to_json()


def test_level_line_matches_the_quota_model_functions():
    x = np.array([0.1, 1.0, 50.0])
    assert level_line(x, "Ultra") == pytest.approx(q.throughput_limit(x, "Ultra"))
    assert level_line(x, "Flexible") == pytest.approx([128.0, 640.0, 4500.0])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"quota_tib": 500}, ModelError, "outside the regular range"),
        ({"quota_tib": 0.01}, ModelError, "outside the regular range"),
        ({"quota_tib": 10, "volume_type": "large"}, ModelError, "outside the large range"),
        ({"level": "Gold"}, ModelError, "unknown service level 'Gold'"),
        ({"level": "Flexible"}, ModelError, "Flexible volume's throughput is assigned"),
        ({"volume_type": "huge"}, ModelError, "volume_type must be one of"),
        ({"rule": "2019"}, ModelError, "under rule '2019'"),
        ({"levels": ["Premium", "Gold"]}, AnfperfError, "unknown service level 'Gold'"),
    ],
)
def test_bad_scenarios_are_clear_errors(kwargs, error, match):
    scenario = {"quota_tib": 4, "level": "Premium", "bs_kib": 64, **kwargs}
    with pytest.raises(error, match=match):
        quota_model(**scenario)
