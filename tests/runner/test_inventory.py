"""Inventories from YAML and ~/.ssh/config, the host-key policy, and bad inventory files."""

from __future__ import annotations

import os

import paramiko
import pytest
from fabric import Connection

from anfperf.errors import ParseError
from anfperf.runner import LocalConnection, load_inventory, local_inventory
from anfperf.runner.security import TrustOnFirstUse

FULL = """
user: azureuser
key: ~/.ssh/anf_bench
jump: bastion
known_hosts: {known}
workdir: /scratch/anfperf
vdbench: /opt/vdbench/vdbench
volumes:
  vol1: /mnt/vdb1
  vol2: /mnt/vdb2
hosts:
  bastion: 20.1.2.3
  vm1: 10.0.0.4
  vm2:
    hostname: 10.0.0.5
    port: 2222
    user: other
    volumes: {{vol2: /mnt/other}}
  demo: {{local: true}}
"""


def test_yaml_inventory_defaults_and_overrides(tmp_path):
    path = tmp_path / "inv.yml"
    path.write_text(FULL.format(known=tmp_path / "kh"))
    inv = load_inventory(path)
    assert inv.names == ["bastion", "vm1", "vm2", "demo"]
    vm1, vm2 = inv["vm1"], inv["vm2"]
    assert (vm1.hostname, vm1.port, vm1.user, vm1.jump) == ("10.0.0.4", 22, "azureuser", "bastion")
    assert vm1.key == "~/.ssh/anf_bench" and vm1.workdir == "/scratch/anfperf"
    assert vm1.volumes == {"vol1": "/mnt/vdb1", "vol2": "/mnt/vdb2"}
    # a host's volumes are merged over the defaults, name by name
    assert vm2.volumes == {"vol1": "/mnt/vdb1", "vol2": "/mnt/other"}
    assert (vm2.port, vm2.user) == (2222, "other")
    assert inv["bastion"].jump == "bastion"  # the default; ignored for the jump host itself
    assert inv["demo"].local
    assert inv.known_hosts == str(tmp_path / "kh") and not inv.trust_on_first_use


def test_connections_check_host_keys_and_use_the_jump_host(tmp_path):
    path = tmp_path / "inv.yml"
    path.write_text(FULL.format(known=tmp_path / "kh"))
    conns = load_inventory(path).connect()
    vm1 = conns["vm1"]
    assert isinstance(vm1, Connection) and vm1.original_host == "vm1"
    # Fabric accepts any host key by default; anfperf must not
    assert isinstance(vm1.client._policy, paramiko.RejectPolicy)
    assert vm1.gateway.host == "20.1.2.3" and vm1.gateway.gateway is None
    assert vm1.connect_kwargs["look_for_keys"] is False
    assert isinstance(conns["demo"], LocalConnection)


def test_trust_on_first_use_is_explicit(tmp_path):
    path = tmp_path / "inv.yml"
    known = tmp_path / "sub" / "known_hosts"
    path.write_text(f"known_hosts: {known}\ntrust_on_first_use: true\nhosts: {{vm1: 10.0.0.4}}\n")
    conn = load_inventory(path).connect()["vm1"]
    assert isinstance(conn.client._policy, TrustOnFirstUse)
    assert known.exists()  # created, empty, ready to record keys


def test_hosts_from_ssh_config(tmp_path):
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host vm*\n  User azureuser\n  IdentityFile ~/.ssh/bench\n  ProxyJump jump.example.com\n"
        "Host vm1\n  HostName 10.1.0.4\n  Port 2200\n"
        "Host vm2\n  HostName 10.1.0.5\n"
    )
    inv = load_inventory(ssh_config=config, hosts=["vm1", "vm2"])
    vm1, vm2 = inv["vm1"], inv["vm2"]
    assert (vm1.hostname, vm1.port, vm1.user) == ("10.1.0.4", 2200, "azureuser")
    assert vm1.key == os.path.expanduser("~/.ssh/bench") and vm1.jump == "jump.example.com"
    assert (vm2.hostname, vm2.port) == ("10.1.0.5", 22)
    # a YAML inventory may leave addresses to the ssh config
    yml = tmp_path / "inv.yml"
    yml.write_text(f"ssh_config: {config}\nhosts: [vm2, {{vm3: 10.9.9.9}}]\n")
    inv = load_inventory(yml)
    assert inv["vm2"].hostname == "10.1.0.5" and inv["vm3"].hostname == "10.9.9.9"


def test_manifest_view_of_a_host_holds_no_key_or_password(tmp_path, monkeypatch):
    key = tmp_path / "id"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAsecretkeytext\n")
    monkeypatch.setenv("BENCH_PW", "hunter2-very-secret")
    path = tmp_path / "inv.yml"
    path.write_text(f"key: {key}\npassword_env: BENCH_PW\nhosts: {{vm1: 10.0.0.4}}\n")
    inv = load_inventory(path)
    described = repr(inv["vm1"].describe())
    assert str(key) not in described and "hunter2" not in described
    assert "hunter2-very-secret" in inv.secrets()
    assert any("AAAAsecretkeytext" in s for s in inv.secrets())


def test_local_inventory(tmp_path):
    inv = local_inventory([str(tmp_path)], name="demo")
    assert inv.names == ["demo"] and inv["demo"].local
    assert inv["demo"].volumes == {tmp_path.name: str(tmp_path)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "YAML mapping"),
        ("hosts: [vm1\n", "not valid YAML"),
        ("<html><body>502 Bad Gateway</body></html>", "YAML mapping"),
        ("hosts: {vm1: 10.0.0.4}\nsurprise: 1\n", "unknown keys"),
        ("hosts: {vm1: {hostnme: x}}\n", "unknown keys"),
        ("hosts: {'../etc': 10.0.0.4}\n", "not usable as a folder name"),
        ("hosts: {'vm1; rm -rf /': 10.0.0.4}\n", "not usable as a folder name"),
        ("hosts: {vm1: {port: 70000}}\n", "out of range"),
        ("hosts: {vm1: {port: twenty}}\n", "vm1"),
        ("hosts: {vm1: {workdir: relative/dir}}\n", "absolute"),
        ("hosts: {vm1: {volumes: {v: mnt/x}}}\n", "not absolute"),
        ("hosts: {}\n", "no hosts"),
        ("hosts: 5\n", "'hosts' must list"),
        ("trust_on_first_use: yes please\nhosts: [vm1]\n", "true or false"),
    ],
)
def test_bad_inventories_are_parse_errors(tmp_path, text, message):
    path = tmp_path / "inv.yml"
    path.write_text(text)
    with pytest.raises(ParseError, match=message) as info:
        load_inventory(path)
    assert info.value.source == str(path)


@pytest.mark.parametrize(
    ("text", "line", "host"),
    [
        ("user: azureuser\nhosts:\n  all: 10.0.0.4\n  vm2: 10.0.0.5\n", 3, "all"),
        ("hosts:\n  vm1: 10.0.0.4\n  ALL: {hostname: 10.0.0.5}\n", 3, "ALL"),
        ("# all hosts\nhosts:\n  - vm1\n  - All\n", 4, "All"),
        ("hosts:\n  - name: vm1\n  - name: all\n    hostname: 10.0.0.5\n", 3, "all"),
        ("hosts: {vm1: 10.0.0.4, manifest.json: 10.0.0.5}\n", 1, "manifest.json"),
        # issue 33, item 5: the run folder's own files (run.log became the host's folder)
        ("hosts:\n  vm1: 10.0.0.4\n  run.log: {local: true}\n", 3, "run.log"),
        ("hosts:\n  - vm1\n  - Run.LOG\n", 3, "Run.LOG"),
        ("hosts:\n  vm1: {}\n  MANIFEST.JSON: {}\n", 3, "MANIFEST.JSON"),
    ],
)
def test_reserved_host_names_are_refused_with_their_line(tmp_path, text, line, host):
    # issue 24: a host named 'all' was taken for the aggregate across hosts in the results
    path = tmp_path / "inv.yml"
    path.write_text(text)
    with pytest.raises(
        ParseError, match=rf"^{path}:{line}: host name '{host}' is reserved"
    ) as info:
        load_inventory(path)
    assert "\n" not in str(info.value) and info.value.line == line


def test_reserved_host_names_are_refused_without_a_file(tmp_path):
    with pytest.raises(ParseError, match="host name 'all' is reserved"):
        load_inventory(hosts=["vm1", "all"], ssh_config=tmp_path / "none")
    with pytest.raises(ParseError, match="host name 'all' is reserved"):
        local_inventory([str(tmp_path)], name="all")
    # issue 33, item 5: --hosts vm1,run.log and this machine by a reserved name
    with pytest.raises(ParseError, match="host name 'run.log' is reserved"):
        load_inventory(hosts=["vm1", "run.log"], ssh_config=tmp_path / "none")
    with pytest.raises(ParseError, match="host name 'Run.Log' is reserved"):
        local_inventory([str(tmp_path)], name="Run.Log")


def test_every_name_of_the_run_folder_is_reserved():
    # derived from the constants the runner writes under: a new file there is reserved too
    from anfperf.runner.manifest import RESERVE_NAME, RUN_FOLDER_NAMES
    from anfperf.runner.runlock import LOCK_NAME
    from anfperf.runner.runlog import RUN_LOG_NAME
    from anfperf.schema import (
        AGGREGATE_HOST,
        LIVE_LOG_NAME,
        MANIFEST_JOURNAL_NAME,
        MANIFEST_NAME,
    )

    own = {RUN_LOG_NAME, LIVE_LOG_NAME, MANIFEST_NAME, MANIFEST_JOURNAL_NAME, LOCK_NAME,
           RESERVE_NAME}  # fmt: skip
    assert set(RUN_FOLDER_NAMES) == {*own, AGGREGATE_HOST}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("hosts:\n  vm1: 10.0.0.4\n  VM1: 10.0.0.5\n", 3,
         "host names 'vm1' and 'VM1' differ only in case"),
        ("hosts:\n  - Vm2\n  - vm1\n  - vM2\n", 4, "host names 'Vm2' and 'vM2' differ"),
    ],
)  # fmt: skip
def test_host_names_that_differ_only_in_case_are_refused(tmp_path, text, line, message):
    # one folder <run_id>/vm1 on a case-insensitive file system: the hosts' outputs mixed
    path = tmp_path / "inv.yml"
    path.write_text(text)
    with pytest.raises(ParseError, match=rf"^{path}:{line}: {message}"):
        load_inventory(path)


def test_unreadable_inventories(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        load_inventory(tmp_path / "missing.yml")
    binary = tmp_path / "bin.yml"
    binary.write_bytes(b"\xff\xfe\x00garbage\x80")
    with pytest.raises(ParseError, match="cannot be read"):
        load_inventory(binary)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        # issue 24, item 13: each was accepted before (port 1, the last vm1, address "5", -1 s)
        ("hosts:\n  vm1:\n    hostname: 10.0.0.4\n    port: true\n", 4,
         "host vm1: port must be a whole number from 1 to 65535, not true"),
        ("hosts:\n  vm1: 10.0.0.4\n  vm2: 10.0.0.5\n  vm1: 10.0.0.6\n", 4,
         "key 'vm1' is written twice (first on line 2): YAML would keep only the last"),
        ("hosts:\n  vm1: 5\n", 2, "host vm1: 5 is a number, not an address"),
        ("connect_timeout_s: -1\nhosts:\n  vm1: 10.0.0.4\n", 1,
         "connect_timeout_s must be a number of seconds above 0, not -1"),
        # the same pass over the other settings: booleans, fractions, NaN, zero, wrong types
        ("hosts:\n  vm1: {hostname: 10.0.0.4}\n  vm2:\n    connect_timeout_s: .nan\n", 4,
         "host vm2: connect_timeout_s must be a number of seconds above 0, not .nan"),
        ("hosts: [vm1]\nconnect_timeout_s: true\n", 2, "not true"),
        ("hosts: [vm1]\nconnect_timeout_s: 0\n", 2, "not 0"),
        ("hosts:\n  vm1:\n    port: 22.7\n", 3, "port must be a whole number"),
        ("port: 0\nhosts: [vm1]\n", 1, "port 0 out of range"),
        ("hosts:\n  vm1:\n    agent: 'no'\n", 3, "host vm1: agent must be true or false, not 'no'"),
        ("hosts:\n  vm1:\n    local: 1\n", 3, "host vm1: local must be true or false, not 1"),
        ("hosts:\n  vm1:\n    hostname: 5\n", 3, "host vm1: hostname must be text, not the number 5"),
        ("user: [a, b]\nhosts: [vm1]\n", 1, "user must be text, not a list"),
        ("hosts:\n  vm1:\n    vdbench: true\n", 3, "vdbench must be text, not the boolean true"),
        ("hosts:\n  vm1: 10.0.0.4\n  1.10: 10.0.0.5\n", 3,
         "host name 1.1 is a number, not text: put it in quotes"),
        ("hosts:\n  - vm1\n  - vm2\n  - name: vm1\n", 4, "host name 'vm1' repeats"),
        ("user: a\nuser: b\nhosts: [vm1]\n", 2, "key 'user' is written twice"),
        ("hosts:\n  vm1:\n    volumes: {v: 5}\n", 3, "host vm1: volume v: mount point 5 is not absolute"),
        ("hosts:\n  vm1:\n    user: me\n    hostnme: x\n", 4, "host vm1: unknown keys ['hostnme']"),
        ("hosts:\n  vm1:\n    workdir: rel/dir\n", 3, "workdir must be an absolute path"),
        ("trust_on_first_use: 'yes'\nhosts: [vm1]\n", 1, "trust_on_first_use must be true or false"),
    ],
)  # fmt: skip
def test_lenient_values_are_refused_naming_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "inv.yml"
    path.write_text(text)
    with pytest.raises(ParseError) as info:
        load_inventory(path)
    said = str(info.value)
    assert said.startswith(f"{path}:{line}: ") and message in said, said
    assert info.value.line == line and "\n" not in said


def test_valid_numbers_and_flags_are_kept(tmp_path):
    path = tmp_path / "inv.yml"
    path.write_text(
        "connect_timeout_s: 2.5\nagent: false\nhosts:\n"
        "  vm1: {hostname: '10.5', port: 2222}\n  vm2: {hostname: '5', user: '1000'}\n"
    )
    inv = load_inventory(path)
    assert (inv["vm1"].hostname, inv["vm1"].port, inv["vm1"].connect_timeout_s) == (
        "10.5",
        2222,
        2.5,
    )
    assert (inv["vm2"].hostname, inv["vm2"].user, inv["vm2"].agent) == ("5", "1000", False)


def test_a_bad_port_in_the_ssh_config_names_that_file(tmp_path):
    config = tmp_path / "ssh_config"
    config.write_text("Host vm1\n  HostName 10.1.0.4\n  Port 0x16\n")
    with pytest.raises(ParseError, match=r"Host vm1: Port '0x16' is not a TCP port") as info:
        load_inventory(ssh_config=config, hosts=["vm1"])
    assert info.value.source == str(config)


def test_an_inventory_file_past_16_mib_is_refused_before_it_is_read(tmp_path):
    # issue 33, item 8: 50 MB (a million hosts) took 211-279 s and 5 GB, then was refused as
    # "an alias bomb?" although it has none
    path = tmp_path / "huge.yml"
    line = "  vm{}: {{hostname: 10.0.0.4, port: 22}}\n"
    with path.open("w") as fh:
        fh.write("hosts:\n")
        fh.writelines(line.format(i) for i in range(450_000))
    mib = path.stat().st_size / 2**20
    assert 17 < mib < 19
    with pytest.raises(ParseError) as info:
        load_inventory(path)
    assert str(info.value) == (
        f"{path}: {mib:.0f} MiB, more than the 16 MiB anfperf reads of an inventory: not an "
        "inventory?"
    )


def test_too_many_entries_without_aliases_say_so_with_the_count_and_the_limit():
    from anfperf.yamlsafe import load_yaml

    text = "user: me\nhosts:\n" + "".join(f"  vm{i}: 10.0.0.{i}\n" for i in range(6))
    # 1 document + 2 top keys + user + the hosts mapping + 6 x (name, address) = 17
    with pytest.raises(ParseError) as info:
        load_yaml(text, "inv.yml", max_nodes=16)
    assert str(info.value) == (
        "inv.yml: too many entries: 17 YAML values (keys, items and settings), more than "
        "the 16 anfperf reads in one file"
    )
    assert load_yaml(text, "inv.yml", max_nodes=17)["hosts"]["vm5"] == "10.0.0.5"
    # with aliases it is still the expansion that is refused
    bomb = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
    with pytest.raises(ParseError, match="once its aliases .* are expanded: refused"):
        load_yaml(bomb, "bomb.yml", max_nodes=30)
