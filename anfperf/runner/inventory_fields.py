"""What each inventory setting may hold, and where in the file a setting is written.

YAML types values by their look: ``port: true`` is a boolean, ``vm1: 5`` a number, ``-1`` a
negative number. Python's ``int()`` and ``str()`` would quietly turn those into port 1, a host
at address "5" or a timeout of -1 s; :func:`check_setting` refuses them instead, and
:class:`InventoryLines` names the line of the file where the refused value is written.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from anfperf.errors import ParseError
from anfperf.tools import inventory_keys

#: Settings that hold text: an address, a user, a path, a variable's name (and each registered
#: tool's program, :func:`anfperf.tools.inventory_keys`).
TEXT_KEYS = (
    "hostname", "user", "key", "jump", "workdir", "password_env", "passphrase_env",
    "known_hosts", "ssh_config",
)  # fmt: skip
#: Settings that are true or false.
FLAG_KEYS = ("local", "agent", "trust_on_first_use")
#: Highest TCP port.
MAX_PORT = 65535


def shown(value: Any) -> str:
    """`value` as YAML writes it (``true``, ``-1``, ``'text'``), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
    return repr(value)


def check_setting(key: str, value: Any) -> Any:
    """`value` when it is a valid value of inventory setting `key`, else ValueError (why).

    None (``key:`` with nothing after it) leaves the setting unset: its default applies.
    """
    if value is None:
        return None
    if key in TEXT_KEYS or key in inventory_keys():
        if isinstance(value, int | float):  # bool included: YAML's true/false
            hint = "" if isinstance(value, bool) else " (in quotes if it is meant as text)"
            raise ValueError(f"{key} must be text, not the {_kind(value)} {shown(value)}{hint}")
        if not isinstance(value, str):
            raise ValueError(f"{key} must be text, not a {_kind(value)}")
        if not value.strip():
            raise ValueError(f"{key} is empty: leave it out or give a value")
        if key == "workdir" and not value.startswith("/"):
            raise ValueError(f"workdir must be an absolute path, not {value!r}")
    elif key in FLAG_KEYS:
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, not {shown(value)}")
    elif key == "port":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(
                f"port must be a whole number from 1 to {MAX_PORT}, not {shown(value)}"
            )
        if not 0 < value <= MAX_PORT:
            raise ValueError(f"port {value} out of range (1 to {MAX_PORT})")
    elif key == "connect_timeout_s":
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
        ):
            raise ValueError(
                f"connect_timeout_s must be a number of seconds above 0, not {shown(value)}"
            )
    elif key == "volumes":
        check_volumes(value)
    elif key == "volume_json":
        check_volume_json(value)
    return value


def check_volumes(value: Any) -> dict[str, str]:
    """Volume name -> mount point, from a mapping or a list of mount points (named by folder);
    ValueError when a mount point is not an absolute path."""
    if isinstance(value, Mapping):
        pairs = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        pairs = [(os.path.basename(str(v).rstrip("/")) or str(v), v) for v in value]
    else:
        raise ValueError("volumes must map names to mount points")
    for name, mount in pairs:
        if not isinstance(mount, str) or not mount.startswith("/"):
            raise ValueError(f"volume {name}: mount point {shown(mount)} is not absolute")
    return dict(pairs)


def check_volume_json(value: Any) -> dict[str, str]:
    """Volume name -> file of ``az netappfiles volume show`` (or ARM) JSON describing it;
    ValueError when it is not a mapping of names to paths."""
    if not isinstance(value, Mapping):
        raise ValueError("volume_json must map volume names to JSON files (az netappfiles "
                         "volume show)")  # fmt: skip
    for name, path in value.items():
        if not isinstance(path, str) or not path.strip():
            raise ValueError(f"volume_json {name}: {shown(path)} is not a file path")
    return {str(k): v for k, v in value.items()}


def check_host_name(name: Any) -> str:
    """`name` when it is text (YAML reads ``1.10`` as the number 1.1), else ValueError."""
    if not isinstance(name, str):
        raise ValueError(
            f"host name {shown(name)} is a {_kind(name)}, not text: put it in quotes if it is meant"
        )
    return name


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


class InventoryLines:
    """Names the file and the line of an inventory setting in errors.

    Parameters
    ----------
    source : str
        The inventory file (or what stands for it, e.g. ``~/.ssh/config``).
    text : str, optional
        The file's text; without it, errors name the file alone.
    """

    def __init__(self, source: str, text: str | None = None):
        self.source = source
        self.text = text
        self._root: Any = None

    def error(self, reason: str, *path: str | int, nth: int = 0) -> ParseError:
        """A ParseError of `reason` at the line of `path` (see :meth:`line`)."""
        return ParseError(self.source, reason, self.line(*path, nth=nth))

    def line(self, *path: str | int, nth: int = 0) -> int | None:
        """1-based line of a setting: ``(key,)`` at the top, ``('hosts', name)`` a host (or
        ``('hosts', index)`` the host entry at that place), ``('hosts', name, key)`` a host's
        setting (else its host's line); `nth`: which of the hosts of that name. None: not
        found, or no text."""
        if self.text is None or not path:
            return None
        root = self._compose()
        top = _pairs(root)
        node = next((k for k, _ in top if _is(k, path[0])), None)
        if path[0] != "hosts" or len(path) == 1:
            return _line_of(node)
        hosts = next((v for k, v in top if _is(k, "hosts")), None)
        entries = _host_nodes(hosts)
        if isinstance(path[1], int):  # the entry at that place (a name that is not text)
            found = entries[path[1] : path[1] + 1]
        else:
            found = [pair for pair in entries if _is(pair[0], path[1])]
        if len(found) <= nth:
            return _line_of(node)
        name_node, settings = found[nth]
        key = next((k for k, _ in _pairs(settings) if len(path) > 2 and _is(k, path[2])), None)
        return _line_of(key or name_node)

    def _compose(self) -> Any:
        import yaml

        if self._root is None:
            try:  # nodes only: aliases stay shared (the text was loaded, bounded, before)
                self._root = yaml.compose(self.text, Loader=yaml.SafeLoader)
            except yaml.YAMLError:
                self._root = False
        return self._root


def _pairs(node: Any) -> list[tuple[Any, Any]]:
    """(key node, value node) pairs of a mapping node, else none."""
    import yaml

    return list(node.value) if isinstance(node, yaml.MappingNode) else []


def _is(node: Any, name: str) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode) and node.value == name


def _line_of(node: Any) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _host_nodes(hosts: Any) -> list[tuple[Any, Any]]:
    """(name node, settings node) per host entry under ``hosts``, in file order."""
    import yaml

    if isinstance(hosts, yaml.MappingNode):
        return list(hosts.value)
    out = []
    for item in hosts.value if isinstance(hosts, yaml.SequenceNode) else []:
        if isinstance(item, yaml.ScalarNode):
            out.append((item, None))
        elif isinstance(item, yaml.MappingNode):
            named = next((v for k, v in item.value if _is(k, "name")), None)
            if named is not None:  # - name: vm1 \n hostname: ...
                out.append((named, item))
            else:  # - vm1: {...}
                out.extend(item.value)
    return out
