"""The fleet's figures and alarms from hosts' intervals, on a clock the test turns."""

from __future__ import annotations

import math

import pytest

from anfperf.live.fio_stream import Interval
from anfperf.live.fleet import ALARM_KINDS, LINE_WIDTH, FleetFigures, live_line


def iv(host: str, iops: float, t_s: float = 1.0, lat_ms: float = 0.5, span_s: float = 1.0):
    return Interval(host, t_s, span_s, int(iops * span_s), iops, iops * 4 / 1024, lat_ms,
                    iops, 0.0, iops * 4 / 1024, 0.0)  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fleet_of(hosts=("vm01", "vm02", "vm03"), **kw) -> tuple[FleetFigures, Clock]:
    clock = Clock()
    return FleetFigures(hosts, clock=clock, **kw), clock


def feed(fleet, clock, rates: dict[str, float], t_s: float, lat_ms: float = 0.5):
    """One interval of every host, a second later; the alarms it raised."""
    clock.now += 1
    for host, rate in rates.items():
        fleet.add(iv(host, rate, t_s=t_s, lat_ms=lat_ms))
    return fleet.alarms()


def test_totals_sum_the_rates_and_weigh_the_latency_by_iops():
    fleet, _ = fleet_of()
    fleet.add(iv("vm01", 3000, lat_ms=1.0))
    fleet.add(iv("vm02", 1000, lat_ms=3.0))
    fleet.add(iv("vm03", 0, lat_ms=math.nan))  # measured none
    t = fleet.totals()
    assert (t.hosts, t.iops) == (3, 4000)
    assert t.bw_mib_s == pytest.approx(4000 * 4 / 1024)
    assert t.lat_mean_ms == pytest.approx((3000 * 1.0 + 1000 * 3.0) / 4000)  # not (1 + 3) / 2
    assert t.slowest.host == "vm03" and t.silent == ()


def test_a_host_below_the_median_for_two_intervals_is_flagged_once_naming_its_figures():
    fleet, clock = fleet_of()
    rates = {"vm01": 3000, "vm02": 3100, "vm03": 1000}
    assert feed(fleet, clock, rates, 1) == []  # one interval is not yet an alarm
    (alarm,) = feed(fleet, clock, rates, 2)
    assert (alarm.kind, alarm.host, alarm.value) == ("slow", "vm03", 1000)
    assert alarm.threshold == pytest.approx(0.7 * 3000)
    assert alarm.at_s == 2
    assert alarm.text == (
        "vm03: 1,000 IOPS, 67% below the fleet median 3,000 IOPS for 2 intervals (t=2 s)"
    )
    assert feed(fleet, clock, rates, 3) == []  # once, while it lasts
    assert feed(fleet, clock, {**rates, "vm03": 2900}, 4) == []  # it recovers
    feed(fleet, clock, rates, 5)
    assert [a.kind for a in feed(fleet, clock, rates, 6)] == ["slow"]  # and falls again
    assert fleet.events[-1].as_dict()["host"] == "vm03"


def test_a_host_within_30_percent_of_the_median_is_not_slow():
    fleet, clock = fleet_of()
    for t in range(1, 6):
        assert feed(fleet, clock, {"vm01": 3000, "vm02": 3000, "vm03": 2200}, t) == []


def test_a_lone_host_is_never_slow():
    fleet, clock = fleet_of(hosts=("vm01",))
    for t in range(1, 4):
        assert feed(fleet, clock, {"vm01": 1}, t) == []


def test_latency_above_the_objective_names_the_host_then_the_fleet():
    fleet, clock = fleet_of(hosts=("vm01", "vm02"), slo_ms=2.0)
    assert feed(fleet, clock, {"vm01": 1000, "vm02": 1000}, 1, lat_ms=1.5) == []
    clock.now += 1
    fleet.add(iv("vm01", 1000, t_s=2, lat_ms=2.5))
    (host_alarm,) = fleet.alarms()
    assert host_alarm.kind == "latency" and host_alarm.host == "vm01"
    assert "2.50 ms above the objective 2 ms" in host_alarm.text
    fleet.add(iv("vm02", 1000, t_s=2, lat_ms=2.5))  # the round closes: the fleet's too
    assert [(a.host, a.kind) for a in fleet.alarms()] == [("vm02", "latency"), ("fleet", "latency")]
    assert fleet.events[-1].text == (
        "fleet: mean latency 2.50 ms above the objective 2 ms at 2,000 IOPS over 2 hosts"
    )


def test_a_lone_hosts_latency_is_said_once_not_again_for_the_fleet():
    fleet, clock = fleet_of(hosts=("vm01",), slo_ms=2.0)
    (alarm,) = feed(fleet, clock, {"vm01": 1000}, 1, lat_ms=2.5)
    assert (alarm.host, alarm.kind) == ("vm01", "latency")


def test_a_rate_pinned_at_the_limit_for_two_rounds_is_an_alarm():
    fleet, clock = fleet_of(hosts=("vm01", "vm02"), limit_iops=4000)
    assert feed(fleet, clock, {"vm01": 2000, "vm02": 1850}, 1) == []  # 96 %: not pinned
    assert feed(fleet, clock, {"vm01": 2000, "vm02": 1900}, 2) == []  # 97.5 %: one round
    (alarm,) = feed(fleet, clock, {"vm01": 2000, "vm02": 1950}, 3)
    assert (alarm.kind, alarm.host) == ("pinned", "fleet")
    assert alarm.text == (
        "fleet: 3,950 IOPS pinned at the limit 4,000 IOPS (99%) for 2 rounds over 2 hosts"
    )
    # half a round (one host reported) judges nothing
    clock.now += 1
    fleet.add(iv("vm01", 100, t_s=4))
    assert fleet.alarms() == []


def test_a_throughput_limit_pins_too():
    fleet, clock = fleet_of(hosts=("vm01",), limit_mib_s=10, pinned_intervals=1)
    (alarm,) = feed(fleet, clock, {"vm01": 2560}, 1)  # 10 MiB/s of 4 KiB
    assert "10 MiB/s pinned at the limit 10 MiB/s" in alarm.text


def test_a_silent_host_is_reported_hung_and_leaves_the_figures():
    fleet, clock = fleet_of(silent_after_s=3)
    rates = {"vm01": 3000, "vm02": 3000, "vm03": 3000}
    feed(fleet, clock, rates, 1)
    for t in (2, 3, 4):
        assert feed(fleet, clock, {"vm01": 3000, "vm02": 3000}, t) == []
    (alarm,) = feed(fleet, clock, {"vm01": 3000, "vm02": 3000}, 5)
    assert (alarm.kind, alarm.host, alarm.value) == ("hung", "vm03", 4)
    assert alarm.text == "vm03: no interval for 4.0 s (the host hung?); last 3,000 IOPS at t=1 s"
    t = fleet.totals()
    assert (t.hosts, t.iops, t.silent) == (2, 6000, ("vm03",))
    assert "silent vm03" in live_line(fleet)
    assert feed(fleet, clock, {"vm01": 3000, "vm02": 3000}, 6) == []  # once
    feed(fleet, clock, rates, 7)  # it speaks again: back in the figures
    assert fleet.totals().silent == () and fleet.totals().hosts == 3


def test_a_host_that_never_sent_is_hung_too_and_a_finished_one_is_not():
    fleet, clock = fleet_of(silent_after_s=3)
    fleet.finish("vm02")
    clock.now += 3.5
    alarms = fleet.alarms()
    assert [a.host for a in alarms] == ["vm01", "vm03"]
    assert alarms[0].text == "vm01: no interval for 3.5 s (the host hung?); none received"
    assert fleet.alarms() == []


def test_a_short_interval_is_shown_but_not_judged():
    fleet, clock = fleet_of(hosts=("vm01", "vm02"))
    feed(fleet, clock, {"vm01": 3000, "vm02": 3000}, 1)
    for t in (2, 3):
        clock.now += 1
        fleet.add(iv("vm01", 3000, t_s=t))
        fleet.add(iv("vm02", 0, t_s=t, span_s=0.004))  # fio's final document, 4 ms on
    assert fleet.alarms() == []
    assert fleet.latest["vm02"].iops == 0


def test_the_console_line_fits_its_width():
    fleet, clock = fleet_of(hosts=[f"a-very-long-virtual-machine-name-{i:02d}" for i in range(30)],
                            silent_after_s=1)  # fmt: skip
    fleet.add(iv("vm07", 1920, lat_ms=0.71))
    fleet.add(iv("vm08", 46290, lat_ms=0.66))
    line = live_line(fleet)
    assert line.startswith(
        "fleet 48,210 IOPS 188 MiB/s 0.66 ms | 2 hosts | slowest vm07 1,920 IOPS"
    )
    clock.now += 2
    fleet.alarms()
    line = live_line(fleet)
    assert len(line) <= LINE_WIDTH and "silent a-very-long-virtual" in line
    assert live_line(FleetFigures()) == "fleet 0.0 IOPS 0.0 MiB/s - ms | 0 hosts"


def test_every_kind_is_described():
    assert set(ALARM_KINDS) == {"slow", "latency", "pinned", "hung"}


@pytest.mark.parametrize(
    "kw",
    [{"rate": "lat"}, {"slow_fraction": 1.2}, {"slow_intervals": 0}, {"silent_after_s": 0}],
)
def test_bad_settings_are_refused(kw):
    with pytest.raises(ValueError):
        FleetFigures(**kw)
