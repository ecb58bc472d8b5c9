"""Inventories: which client hosts to drive, how to reach them, which volumes they mount.

An inventory is a YAML file (or ``~/.ssh/config`` alone). Top-level keys are defaults for every
host; ``hosts`` lists the hosts, each a name with an optional mapping (or just an address)::

    user: azureuser                 # defaults for every host
    key: ~/.ssh/anf_bench           # private key file (read by SSH, never copied or logged)
    jump: bastion                   # optional ProxyJump: a host of this file or user@host:port
    known_hosts: ~/.ssh/known_hosts # host keys are checked against it ...
    trust_on_first_use: false       # ... and unknown hosts refused unless this is true
    workdir: /tmp/anfperf           # where runs keep their files on the hosts
    vdbench: /opt/vdbench/vdbench   # the user's own Vdbench install (a tool's inventory_key)
    volumes:                        # name: mount point (the same on every host)
      vol1: /mnt/vdb1
      vol2: /mnt/vdb2
    volume_json:                    # optional: a volume as Azure describes it (az netappfiles
      vol1: azure/vol1.json         # volume show), relative to this file; in the manifest
    ssh_config: ~/.ssh/config       # hosts without an address are looked up here
    hosts:
      vm1: 10.0.0.4
      vm2: {hostname: 10.0.0.5, port: 2222, volumes: {vol1: /mnt/a}}
      vm3: {}                       # address, user, port, key, jump from ssh_config
      demo: {local: true}           # this machine, without SSH

Passwords are never written in an inventory: ``password_env`` / ``passphrase_env`` name
environment variables that hold them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from anfperf.errors import ParseError
from anfperf.runner.inventory_fields import (
    MAX_PORT,
    InventoryLines,
    check_host_name,
    check_setting,
    check_volumes,
    shown,
)
from anfperf.runner.local import LocalConnection
from anfperf.runner.manifest import check_host_folder_name
from anfperf.runner.security import DEFAULT_KNOWN_HOSTS, host_key_policy
from anfperf.tools import inventory_keys
from anfperf.userfiles import read_user_file
from anfperf.yamlsafe import load_yaml

#: Default remote folder for runs (one sub-folder per run id and host below it).
DEFAULT_WORKDIR = "/tmp/anfperf"
#: Seconds to wait for a TCP connection and the SSH handshake.
DEFAULT_CONNECT_TIMEOUT_S = 10
#: Largest inventory read [MiB], for its size: a host with hostname, user and a volume takes
#: about 100 bytes of YAML (30,000 hosts: 2.8 MiB), so 16 MiB admits 30,000 hosts with several
#: settings each; a file far larger is no inventory and is refused before it is read.
MAX_INVENTORY_MIB = 16
#: Largest SSH private key read to keep its text out of outputs [MiB] (a key is a few KiB).
MAX_KEY_MIB = 1

#: Keys allowed for a host (and, as defaults, at the top level), besides the registered tools'
#: own (:func:`host_keys`).
HOST_KEYS = {
    "hostname", "user", "port", "key", "jump", "workdir", "volumes", "local",
    "password_env", "passphrase_env", "connect_timeout_s", "agent", "volume_json",
}  # fmt: skip
#: Keys allowed only at the top level.
TOP_KEYS = {"hosts", "known_hosts", "trust_on_first_use", "ssh_config"}


def host_keys() -> set[str]:
    """Keys allowed for a host: the inventory's own and each registered tool's program
    (:func:`anfperf.tools.inventory_keys`)."""
    return HOST_KEYS | set(inventory_keys())


_JUMP = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>[^:@\s]+)(?::(?P<port>\d+))?$")


@dataclass(frozen=True)
class Host:
    """One client host of an inventory.

    Attributes
    ----------
    name : str
        Name in results and folder names (``data/raw/<run_id>/<name>/``).
    hostname : str
        Address or DNS name to connect to.
    port : int
        SSH port.
    user : str or None
        Login user; None = the local user name.
    key : str or None
        Private key file; None = SSH agent and default keys.
    jump : str or None
        ProxyJump host: another host's name in the inventory or ``user@host:port``.
    workdir : str
        Remote folder for the run's files.
    launchers : dict
        Tool name -> its program on the host, from the setting the tool's adapter names
        (``ToolAdapter.inventory_key``: ``vdbench: /opt/vdbench/vdbench``).
    volumes : dict
        Volume name -> mount point on the host.
    volume_json : dict
        Volume name -> the volume as Azure describes it (the inventory's ``volume_json``
        files, read when the inventory is loaded): the fields of
        :class:`anfperf.azure.AnfVolume` (``source`` the file, absolute). Recorded in the
        manifest, where reports find it (:meth:`anfperf.azure.AnfVolume.from_dict`).
    local : bool
        This machine, run without SSH.
    """

    name: str
    hostname: str
    port: int = 22
    user: str | None = None
    key: str | None = None
    jump: str | None = None
    workdir: str = DEFAULT_WORKDIR
    launchers: dict[str, str] = field(default_factory=dict)
    volumes: dict[str, str] = field(default_factory=dict)
    volume_json: dict[str, dict] = field(default_factory=dict)
    local: bool = False
    password_env: str | None = None
    passphrase_env: str | None = None
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    agent: bool = True

    def describe(self) -> dict[str, Any]:
        """What a manifest records about the host: never keys, passwords or their paths."""
        return {
            "hostname": "localhost" if self.local else self.hostname,
            "port": None if self.local else self.port,
            "user": self.user,
            "jump": self.jump,
            "local": self.local,
            "volumes": dict(self.volumes),
            **({"volume_json": dict(self.volume_json)} if self.volume_json else {}),
            "workdir": self.workdir,
        }

    def secrets(self) -> list[str]:
        """Secret values this host's connection uses (to keep them out of any text written)."""
        values = [os.environ.get(v or "", "") for v in (self.password_env, self.passphrase_env)]
        if self.key:
            try:  # bounded, and only a regular file: a FIFO would block open() for ever
                path = os.path.expanduser(self.key)
                key = read_user_file(path, what="an SSH key", max_mib=MAX_KEY_MIB)
                values.append(key.decode().strip())
            except (ParseError, UnicodeDecodeError):
                pass
        return [v for v in values if v]


@dataclass(frozen=True)
class Inventory:
    """Hosts and how to reach them; see the module docstring for the YAML layout.

    Attributes
    ----------
    hosts : tuple of Host
        In file order.
    known_hosts : str
        Host-key file checked on every connection.
    trust_on_first_use : bool
        Accept (and record) keys of hosts not yet in `known_hosts`.
    source : str
        The file the inventory came from.
    """

    hosts: tuple[Host, ...]
    known_hosts: str = DEFAULT_KNOWN_HOSTS
    trust_on_first_use: bool = False
    source: str = "<inventory>"

    @property
    def names(self) -> list[str]:
        return [h.name for h in self.hosts]

    @cached_property
    def _by_name(self) -> dict[str, Host]:
        """Host name -> host: a look-up costs the same for 30,000 hosts as for 3."""
        return {h.name: h for h in self.hosts}

    def __getitem__(self, name: str) -> Host:
        return self._by_name[name]

    def select(self, names: Sequence[str]) -> Inventory:
        """The inventory restricted to `names` (in that order)."""
        by_name = self._by_name
        return replace(self, hosts=tuple(by_name[n] for n in names))

    def secrets(self) -> list[str]:
        return [s for h in self.hosts for s in h.secrets()]

    def connect(self) -> dict[str, Any]:
        """A connection per host (not yet opened): Fabric Connections, or LocalConnection.

        Returns
        -------
        dict
            Host name -> :class:`fabric.Connection` (host keys checked as configured) or
            :class:`~anfperf.runner.local.LocalConnection`.
        """
        return {h.name: self._connection(h) for h in self.hosts}

    def _connection(self, host: Host, _seen: tuple[str, ...] = ()):
        if host.local:
            return LocalConnection(host.name)
        from fabric import Config, Connection
        from paramiko import SSHConfig

        gateway = None
        if host.jump and host.jump != host.name:  # a top-level jump default skips the jump host
            if host.jump in _seen:
                raise ParseError(self.source, f"jump hosts loop: {' -> '.join(_seen)}")
            gateway = self._connection(self._jump_host(host), (*_seen, host.name))
        # a host whose sshd hangs accepts the TCP connection but never greets: bound that too
        connect_kwargs: dict[str, Any] = {
            "allow_agent": host.agent,
            "banner_timeout": host.connect_timeout_s,
        }
        if host.key:
            connect_kwargs["key_filename"] = [os.path.expanduser(host.key)]
            connect_kwargs["look_for_keys"] = False
        if host.password_env:
            connect_kwargs["password"] = os.environ.get(host.password_env, "")
        if host.passphrase_env:
            connect_kwargs["passphrase"] = os.environ.get(host.passphrase_env, "")
        conn = Connection(
            host.hostname,
            user=host.user,
            port=host.port,
            gateway=gateway,
            connect_timeout=host.connect_timeout_s,
            connect_kwargs=connect_kwargs,
            # The inventory has resolved ~/.ssh/config already: an explicit empty SSHConfig
            # keeps Fabric from applying it a second time behind our back.
            config=Config(ssh_config=SSHConfig()),
        )
        conn.original_host = host.name
        host_key_policy(conn.client, self.known_hosts, self.trust_on_first_use)
        return conn

    def _jump_host(self, host: Host) -> Host:
        try:
            jump = self[host.jump]
            return jump
        except KeyError:
            pass
        m = _JUMP.match(host.jump or "")
        if not m:
            raise ParseError(
                self.source, f"host {host.name}: jump {host.jump!r} is not user@host:port"
            )
        port = int(m["port"] or 22)
        if not 0 < port <= MAX_PORT:
            raise ParseError(
                self.source, f"host {host.name}: jump {host.jump!r}: port out of range"
            )
        return replace(
            host,
            name=m["host"],
            hostname=m["host"],
            user=m["user"] or host.user,
            port=port,
            jump=None,
            volumes={},
        )


def load_inventory(
    path: str | os.PathLike | None = None,
    *,
    ssh_config: str | os.PathLike | None = None,
    hosts: Sequence[str] | None = None,
) -> Inventory:
    """Read an inventory from YAML, or build one from ``~/.ssh/config`` entries.

    Parameters
    ----------
    path : path, optional
        Inventory YAML file (layout in the module docstring). Without it, `hosts` are looked up
        in `ssh_config`.
    ssh_config : path, optional
        OpenSSH client config used for hosts without an address (default: the file's
        ``ssh_config`` key, else ``~/.ssh/config``). HostName, User, Port, IdentityFile and
        ProxyJump are taken from it.
    hosts : sequence of str, optional
        Host names (``Host`` aliases of `ssh_config`) when no YAML file is given.

    Raises
    ------
    anfperf.ParseError
        The file cannot be read, is not YAML, or holds unknown keys or bad values.
    """
    if path is None:
        if not hosts:
            raise ParseError("<inventory>", "give an inventory file or host names")
        doc: dict[str, Any] = {"hosts": {name: {} for name in hosts}}
        source = os.fspath(ssh_config or "~/.ssh/config")
    else:
        source = os.fspath(path)
        data = read_user_file(source, what="an inventory", max_mib=MAX_INVENTORY_MIB)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(source, f"cannot be read: {exc}") from None
        doc = load_yaml(text, source)  # aliases bounded: an alias bomb costs nothing
        if not isinstance(doc, dict):
            raise ParseError(source, "an inventory is a YAML mapping with a 'hosts' key")
        return _build(doc, source, ssh_config, text)
    return _build(doc, source, ssh_config)


def _build(
    doc: dict, source: str, ssh_config: str | os.PathLike | None, text: str | None = None
) -> Inventory:
    where = InventoryLines(source, text)
    allowed = host_keys()
    unknown = set(doc) - allowed - TOP_KEYS
    if unknown:
        first = min(unknown, key=lambda k: where.line(str(k)) or 0)
        raise where.error(f"unknown keys {sorted(map(str, unknown))}", str(first))
    for key in sorted(set(doc) - {"hosts"}):  # defaults for every host, and the top's own
        _checked(where, key, doc[key])
    entries = _host_entries(doc.get("hosts"), where)
    defaults = {k: v for k, v in doc.items() if k in allowed}
    config_path = ssh_config or doc.get("ssh_config") or "~/.ssh/config"
    lookup = _ssh_config(config_path, source)
    hosts = []
    seen: dict[str, str] = {}  # lower case -> the name as written: one folder where case is lost
    for name, entry in entries:
        _check_new_name(name, seen, where)
        unknown = set(entry) - allowed
        if unknown:
            first = str(min(unknown, key=lambda k: where.line("hosts", name, str(k)) or 0))
            raise where.error(
                f"host {name}: unknown keys {sorted(map(str, unknown))}", "hosts", name, first
            )
        for key, value in entry.items():
            _checked(where, key, value, name)
        merged = {**defaults, **entry}
        if defaults.get("volumes") and entry.get("volumes"):
            merged["volumes"] = {**_volumes(defaults["volumes"]), **_volumes(entry["volumes"])}
        if defaults.get("volume_json") and entry.get("volume_json"):
            merged["volume_json"] = {**defaults["volume_json"], **entry["volume_json"]}
        host = _host(name, merged, lookup)
        described = _volume_json(merged.get("volume_json"), host, where, "volume_json" in entry)
        hosts.append(replace(host, volume_json=described) if described else host)
    if not hosts:
        raise where.error("no hosts", "hosts")
    return Inventory(
        hosts=tuple(hosts),
        known_hosts=doc.get("known_hosts") or DEFAULT_KNOWN_HOSTS,
        trust_on_first_use=doc.get("trust_on_first_use") or False,
        source=source,
    )


def _checked(where: InventoryLines, key: str, value: Any, host: str | None = None) -> Any:
    """`value` of setting `key` (of `host`, else at the top) when valid, else a ParseError
    naming the file and the line where it is written."""
    try:
        return check_setting(key, value)
    except ValueError as exc:
        if host is None:
            raise where.error(str(exc), key) from None
        raise where.error(f"host {host}: {exc}", "hosts", host, key) from None


def _check_new_name(name: str, seen: dict[str, str], where: InventoryLines) -> None:
    """Refuse a host name that repeats one of `seen` (in any case: their folders would be one
    on a case-insensitive file system), is no safe folder name, or one the results or the run's
    folder use for something else ('all' would be taken for the aggregate across hosts, a host
    'run.log' would take the run log's place); `seen` takes `name`."""
    if seen.get(name.lower()) == name:
        raise where.error(f"host name {name!r} repeats", "hosts", name, nth=1)
    try:
        check_host_folder_name(name, seen)
    except ValueError as exc:
        raise where.error(str(exc), "hosts", name) from None


def _host_entries(hosts: Any, where: InventoryLines) -> list[tuple[str, dict]]:
    """(name, settings) pairs from a mapping or a list of names / one-key mappings."""
    if isinstance(hosts, Mapping):
        items = list(hosts.items())
    elif isinstance(hosts, list):
        items = []
        for item in hosts:
            if isinstance(item, Mapping) and "name" in item:
                items.append((item["name"], {k: v for k, v in item.items() if k != "name"}))
            elif isinstance(item, Mapping) and len(item) == 1:
                items.extend(item.items())
            elif isinstance(item, Mapping | list):
                raise where.error(f"cannot read host entry {item!r}", "hosts")
            else:
                items.append((item, {}))
    else:
        raise where.error("'hosts' must list the hosts (a mapping or a list)", "hosts")
    out = []
    for index, (name, entry) in enumerate(items):
        try:
            check_host_name(name)
        except ValueError as exc:
            raise where.error(str(exc), "hosts", index) from None
        if entry is None:
            entry = {}
        elif isinstance(entry, str):
            entry = {"hostname": entry}
        elif isinstance(entry, int | float) and not isinstance(entry, bool):
            raise where.error(
                f"host {name}: {shown(entry)} is a number, not an address (a host name or an "
                "IP address such as 10.0.0.4)",
                "hosts",
                name,
            )
        elif not isinstance(entry, Mapping):
            raise where.error(
                f"host {name}: settings must be a mapping or an address", "hosts", name
            )
        out.append((name, dict(entry)))
    return out


def _host(name: str, s: dict, lookup) -> Host:
    """The host of checked settings `s`, with what ssh_config says where they are silent."""
    local = s.get("local") or False
    found = {} if local or s.get("hostname") else lookup(name)
    identity = found.get("identityfile")
    host = Host(
        name=name,
        hostname=s.get("hostname") or found.get("hostname") or name,
        port=s.get("port") or found.get("port") or 22,
        user=s.get("user") or found.get("user"),
        key=s.get("key") or (identity[0] if identity else None),
        jump=s.get("jump") or found.get("proxyjump"),
        workdir=s.get("workdir") or DEFAULT_WORKDIR,
        launchers={tool: s[key] for key, tool in inventory_keys().items() if s.get(key)},
        volumes=_volumes(s.get("volumes") or {}),
        local=local,
        password_env=s.get("password_env"),
        passphrase_env=s.get("passphrase_env"),
        connect_timeout_s=s.get("connect_timeout_s") or DEFAULT_CONNECT_TIMEOUT_S,
        agent=s.get("agent") is not False,
    )
    return host


def _volume_json(
    value: dict | None, host: Host, where: InventoryLines, own: bool
) -> dict[str, dict]:
    """The volumes of `host` that ``volume_json`` describes: each file read now (relative to
    the inventory's folder), so a wrong one is named before a run starts, not in its report.
    `own`: the host sets volume_json itself (else it is the top-level default)."""
    if not value:
        return {}
    from dataclasses import asdict

    from anfperf.azure import read_volumes

    at = ("hosts", host.name, "volume_json") if own else ("volume_json",)
    base = os.path.dirname(os.path.abspath(where.source))
    out = {}
    for name, path in value.items():
        if name not in host.volumes:
            raise where.error(f"host {host.name}: volume_json {name}: not one of its volumes "
                              f"{sorted(host.volumes)}", *at)  # fmt: skip
        path = os.path.join(base, os.path.expanduser(path))
        try:
            volumes = read_volumes(path)
        except (ParseError, OSError) as exc:
            raise where.error(f"host {host.name}: volume_json {name}: {exc}", *at) from None
        chosen = [v for v in volumes if len(volumes) == 1 or name in (v.name, v.resource_name)]
        if len(chosen) != 1:
            raise where.error(
                f"host {host.name}: volume_json {name}: {path} holds {len(volumes)} volumes "
                f"({', '.join(v.resource_id or v.name for v in volumes)}): name the "
                "inventory's volume as one of them", *at,
            )  # fmt: skip
        fields = asdict(chosen[0])  # its source is the file, absolute
        fields["notes"] = list(fields["notes"])
        out[name] = fields
    return out


def _volumes(value: Any, source: str | None = None) -> dict[str, str]:
    """Volume name -> mount point (checked settings; `source` names the file otherwise)."""
    try:
        return check_volumes(value)
    except ValueError as exc:
        raise ParseError(source or "<inventory>", str(exc)) from None


def _ssh_config(path: str | os.PathLike, source: str):
    """A lookup function over an OpenSSH client config (empty when the file is absent)."""
    from paramiko import SSHConfig

    full = Path(os.path.expanduser(os.fspath(path)))
    if not full.is_file():
        return lambda name: {}
    try:
        config = SSHConfig.from_path(str(full))
    except Exception as exc:  # paramiko raises various errors for bad configs
        raise ParseError(os.fspath(path), f"cannot read ssh config: {exc}") from None

    def lookup(name: str) -> dict:
        found = dict(config.lookup(name))
        if "port" in found:
            try:
                found["port"] = check_setting("port", int(found["port"]))
            except ValueError:
                raise ParseError(
                    os.fspath(path), f"Host {name}: Port {found['port']!r} is not a TCP port"
                ) from None
        return found

    return lookup


def local_inventory(
    volumes: Mapping[str, str] | Sequence[str] | None = None,
    *,
    name: str | None = None,
    workdir: str = DEFAULT_WORKDIR,
) -> Inventory:
    """This machine alone, run without SSH (the demo's default).

    Parameters
    ----------
    volumes : mapping or sequence of str, optional
        Folders to run the I/O in; default ``<workdir>/data`` (created here).
    name : str, optional
        Host name in results (default: this machine's short host name).
    workdir : str
        Folder for the runs' files.
    """
    from anfperf.runner.local import local_hostname

    if volumes is None:
        data = os.path.join(workdir, "data")
        os.makedirs(data, exist_ok=True)
        volumes = {"local": data}
    vols = _volumes(volumes if isinstance(volumes, Mapping) else list(volumes), "<local>")
    name = name or local_hostname()
    _check_new_name(name, {}, InventoryLines("<local>"))  # a machine called 'all': give a `name`
    host = Host(
        name=name,
        hostname="localhost",
        local=True,
        workdir=workdir,
        volumes=vols,
    )
    return Inventory(hosts=(host,), source="<local>")
