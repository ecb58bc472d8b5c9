"""Fixtures of the runner tests: real sshd servers on loopback addresses, real fio, and real
sshd servers in network namespaces with addresses of their own (tests/runner/netns.py).

With CI=true a missing sshd or fio, or namespaces that cannot be made, fail the tests that need
them; elsewhere they are skipped.
"""

from __future__ import annotations

import pytest

from tests.conftest import require
from tests.runner.netns import NetnsError, NetnsFleet, netns_missing
from tests.runner.sshd import SshFleet, sshd_missing


@pytest.fixture(scope="session")
def ssh_fleet(tmp_path_factory) -> SshFleet:
    """Two real sshd (127.0.0.2, 127.0.0.3) for the whole session; never crashed by tests."""
    require(sshd_missing())
    fleet = SshFleet(tmp_path_factory.mktemp("sshd"), 2).start()
    yield fleet
    fleet.stop()


@pytest.fixture
def own_fleet(tmp_path) -> SshFleet:
    """Two sshd of the test's own (127.0.0.4, 127.0.0.5), for tests that crash one."""
    require(sshd_missing())
    fleet = SshFleet(tmp_path / "sshd", 2, first=4).start()
    yield fleet
    fleet.stop()


@pytest.fixture(scope="module")
def netns_fleet(tmp_path_factory) -> NetnsFleet:
    """Two network namespaces (e.g. 10.250.0.2, 10.250.0.3) with a real sshd each on port 22."""
    require(sshd_missing() or netns_missing())
    fleet = NetnsFleet(tmp_path_factory.mktemp("netns"), 2)
    try:
        fleet.start()
    except NetnsError as exc:
        require(f"cannot make network namespaces here: {exc}")
    yield fleet
    fleet.stop()  # raises (an error of the last test) if anything is left behind
