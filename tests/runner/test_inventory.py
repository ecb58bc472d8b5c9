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


def test_unreadable_inventories(tmp_path):
    with pytest.raises(ParseError, match="cannot be read"):
        load_inventory(tmp_path / "missing.yml")
    binary = tmp_path / "bin.yml"
    binary.write_bytes(b"\xff\xfe\x00garbage\x80")
    with pytest.raises(ParseError, match="cannot be read"):
        load_inventory(binary)
