"""YAML from users (inventories, workload files, parameters) read at a bounded cost.

``yaml.safe_load`` builds aliases as shared objects, so a "billion laughs" document (each level
refers to the level below ten times) loads small -- and then takes minutes and gigabytes to
walk, print or copy. :func:`load_yaml` counts the nodes the document stands for, aliases
expanded, before building anything, and refuses documents past a limit or referring to
themselves. It also refuses a key written twice in one mapping, which ``safe_load`` settles
silently by keeping the last (a second ``vm1:`` under ``hosts`` would replace the first host).
"""

from __future__ import annotations

import os

import yaml

from anfperf.errors import ParseError

_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping of the document holds one key twice (``problem_mark``: the second)."""


#: Most nodes a document may stand for with its aliases expanded (an inventory of 1,000 hosts
#: with ten settings each has about 25,000).
MAX_NODES = 200_000


def load_yaml(text: str, source: str | os.PathLike, *, max_nodes: int = MAX_NODES):
    """Parse one YAML document like ``yaml.safe_load``, refusing documents that expand too far.

    Parameters
    ----------
    text : str
        The document.
    source : str or path
        Named in errors (the file, or e.g. ``'--set threads'``).
    max_nodes : int
        Limit of nodes with aliases expanded.

    Raises
    ------
    anfperf.ParseError
        Not valid YAML, a key written twice in one mapping (its line named), nested too
        deeply, referring to itself, or past `max_nodes`.
    """
    try:
        return safe_load_bounded(text, source, max_nodes=max_nodes)
    except DuplicateKeyError as exc:
        raise ParseError(source, exc.problem, exc.problem_mark.line + 1) from None
    except yaml.YAMLError as exc:
        raise ParseError(source, f"not valid YAML: {exc}") from None


def safe_load_bounded(text: str, source: str | os.PathLike, *, max_nodes: int = MAX_NODES):
    """:func:`load_yaml`, but YAML syntax errors (and :class:`DuplicateKeyError`) raise
    ``yaml.YAMLError`` as ``safe_load`` does (for callers that report their marks); the bounds
    raise :class:`anfperf.ParseError`."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_size(node, source, max_nodes)
        return loader.construct_document(node)
    except RecursionError:
        raise ParseError(source, "YAML nested too deeply") from None
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_keys(node: yaml.MappingNode, scalars: yaml.constructor.SafeConstructor) -> None:
    """Refuse a key written twice in `node` (keys merged in with ``<<`` may be overridden)."""
    seen: dict[object, yaml.Node] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            continue
        key = scalars.construct_object(key_node)  # 'vm1' and "vm1", 1 and 0x1 are one key
        try:
            first = seen.setdefault(key, key_node)
        except TypeError:  # not hashable: the constructor refuses it later
            continue
        if first is not key_node:
            raise DuplicateKeyError(
                "while reading a mapping",
                node.start_mark,
                f"key {key!r} is written twice (first on line {first.start_mark.line + 1}): "
                "YAML would keep only the last; remove one",
                key_node.start_mark,
            )


def _check_size(root: yaml.Node, source: str | os.PathLike, max_nodes: int) -> None:
    """Count the nodes `root` stands for (each alias as often as it is used), without expanding;
    refuse keys written twice (:func:`_check_keys`) on the way, each mapping once. Each node is
    visited once, so the count costs what composing cost; past `max_nodes` the message says
    whether aliases made it so (an alias bomb) or the document is just that large."""
    scalars = yaml.constructor.SafeConstructor()
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being counted: the current path
    aliased = False  # a node used more than once (*name)
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_.discard(key)
            if isinstance(node, yaml.MappingNode):
                _check_keys(node, scalars)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            if aliased and sizes[key] > max_nodes:  # stop before the numbers grow huge
                raise ParseError(
                    source,
                    f"YAML stands for more than {max_nodes:,} values once its aliases (*name) "
                    "are expanded: refused (an alias bomb?)",
                )
            continue
        if key in sizes:
            aliased = True
            continue
        if key in open_:
            raise ParseError(source, "YAML refers to itself through an alias")
        open_.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in sizes:
                aliased = True
            else:
                stack.append((child, False))
    if sizes[id(root)] > max_nodes:  # no alias: every node is written in the file
        raise ParseError(
            source,
            f"too many entries: {sizes[id(root)]:,} YAML values (keys, items and settings), "
            f"more than the {max_nodes:,} anfperf reads in one file",
        )
