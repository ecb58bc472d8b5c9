"""YAML from users (inventories, workload files, parameters) read at a bounded cost.

``yaml.safe_load`` builds aliases as shared objects, so a "billion laughs" document (each level
refers to the level below ten times) loads small -- and then takes minutes and gigabytes to
walk, print or copy. :func:`load_yaml` counts the nodes the document stands for, aliases
expanded, before building anything, and refuses documents past a limit or referring to
themselves.
"""

from __future__ import annotations

import os

import yaml

from anfperf.errors import ParseError

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
        Not valid YAML, nested too deeply, referring to itself, or past `max_nodes`.
    """
    try:
        return safe_load_bounded(text, source, max_nodes=max_nodes)
    except yaml.YAMLError as exc:
        raise ParseError(source, f"not valid YAML: {exc}") from None


def safe_load_bounded(text: str, source: str | os.PathLike, *, max_nodes: int = MAX_NODES):
    """:func:`load_yaml`, but YAML syntax errors raise ``yaml.YAMLError`` as ``safe_load`` does
    (for callers that report their marks); the bounds raise :class:`anfperf.ParseError`."""
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


def _check_size(root: yaml.Node, source: str | os.PathLike, max_nodes: int) -> None:
    """Count the nodes `root` stands for (each alias as often as it is used), without expanding."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being counted: the current path
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            if sizes[key] > max_nodes:
                raise ParseError(
                    source,
                    f"YAML stands for more than {max_nodes:,} values once its aliases (*name) "
                    "are expanded: refused (an alias bomb?)",
                )
            continue
        if key in sizes:
            continue
        if key in open_:
            raise ParseError(source, "YAML refers to itself through an alias")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
