"""Fixtures of the runner tests: real sshd servers on loopback addresses, real fio.

With CI=true a missing sshd or fio fails the tests that need them; elsewhere they are skipped.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.runner.sshd import SshFleet, sshd_missing


def _require(reason: str | None) -> None:
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def fio_bin() -> str:
    _require(None if shutil.which("fio") else "fio is not installed (Debian package fio)")
    return shutil.which("fio")


@pytest.fixture(scope="session")
def ssh_fleet(tmp_path_factory) -> SshFleet:
    """Two real sshd (127.0.0.2, 127.0.0.3) for the whole session; never crashed by tests."""
    _require(sshd_missing())
    fleet = SshFleet(tmp_path_factory.mktemp("sshd"), 2).start()
    yield fleet
    fleet.stop()


@pytest.fixture
def own_fleet(tmp_path) -> SshFleet:
    """Two sshd of the test's own (127.0.0.4, 127.0.0.5), for tests that crash one."""
    _require(sshd_missing())
    fleet = SshFleet(tmp_path / "sshd", 2, first=4).start()
    yield fleet
    fleet.stop()
