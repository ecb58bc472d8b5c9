"""Report parameters: YAML files and ``-p NAME VALUE`` pairs, the notebook's declared
parameters, the paths they name (made absolute and checked before a kernel starts), and the
SHA-256 of every input a parameter names."""

from __future__ import annotations

import ast
import glob
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError, ReportError
from anfperf.paths import is_utf8, printable_path
from anfperf.userfiles import special_file_reason

#: How a parameter's ``# help:`` says that it names files: ``[path]`` (a file or folder, or a
#: list of them), ``[path|word]`` (or one of these words, which are not paths, e.g.
#: ``[path|sample]``), ``[glob]`` (a glob pattern, ``**`` allowed).
_PATH_MARKER = re.compile(r"#\s*help:\s*\[(path|glob)((?:\|[^\]|]+)*)\]")
_ASSIGNED = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=#]*)?=")
#: Why a name or value that is not UTF-8 is refused: papermill writes it into the notebook.
_UTF8_ONLY = ", and a notebook holds UTF-8 only"


def check_utf8_values(notebook: str | os.PathLike, parameters: Mapping[str, Any]) -> None:
    """Refuse parameter values (and names) that are not UTF-8, before any kernel starts: a
    file name in another encoding, a YAML escape of a lone surrogate.

    Raises
    ------
    ReportError
        Naming the parameter and the value, its bytes that are not UTF-8 as ``\\xNN``.
    """
    for name, value in parameters.items():
        for text in (name, *_texts(value)):
            if not is_utf8(text):
                raise ReportError(
                    notebook,
                    f"{printable_path(name)}: '{printable_path(text)}' is not UTF-8 text{_UTF8_ONLY}",
                )


def _texts(value: Any, depth: int = 0) -> list[str]:
    """The strings in a parameter's value (path names too), inside lists and mappings."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        return [value]
    if depth > 100:  # a list that holds itself (from Python): deep enough to stop
        return []
    if isinstance(value, Mapping):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list | tuple | set | frozenset):
        return [t for v in value for t in _texts(v, depth + 1)]
    return []


def parse_value(text: str, name: str = "parameter") -> Any:
    """A parameter value given on the command line, parsed as YAML (like papermill's ``-y``).

    ``'8'`` -> 8, ``'0.5'`` -> 0.5, ``'[a, b]'`` -> ['a', 'b'], ``'null'`` -> None,
    ``'data/raw'`` -> 'data/raw'; other text that is not YAML is the text itself.

    Raises
    ------
    ReportError
        A value that opens a YAML list or mapping (``[`` or ``{``) and does not close it: a
        list of paths with a typo must not become one path named ``[a, b``; or text that is
        not UTF-8 (no notebook can hold it).
    """
    from anfperf.errors import ParseError
    from anfperf.yamlsafe import load_yaml

    if not is_utf8(text):  # bytes of another encoding, as the shell passed them
        raise ReportError(f"-p {name}", f"'{printable_path(text)}' is not UTF-8 text{_UTF8_ONLY}")
    try:
        return load_yaml(text, "parameter")
    except ParseError:
        if text.lstrip().startswith(("[", "{")):
            raise ReportError(
                f"-p {name}",
                f"{text!r} is not a valid YAML list or mapping (a bracket or quote not closed?); "
                "quote the whole value to pass it as text",
            ) from None
        return text  # not YAML (e.g. a colon in a name): the text itself


def read_parameters(path: str | os.PathLike) -> dict[str, Any]:
    """The parameters of one report from a YAML file (a mapping of name to value).

    Raises
    ------
    ReportError
        When the file cannot be read or is not a YAML mapping with string keys.
    """
    from anfperf.errors import ParseError
    from anfperf.userfiles import read_user_file
    from anfperf.yamlsafe import load_yaml

    try:  # bounded, and a regular file only (a FIFO would block open() for ever)
        text = read_user_file(path, what="a parameters file").decode("utf-8")
        data = load_yaml(text, path)
    except (UnicodeDecodeError, ParseError) as exc:
        raise ReportError(path, f"cannot read the parameters: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, Mapping) or not all(isinstance(k, str) for k in data):
        raise ReportError(
            path, f"parameters must be a YAML mapping of name: value, not {type(data).__name__}"
        )
    return dict(data)


def merge_parameters(*sets: Mapping[str, Any] | None) -> dict[str, Any]:
    """Later sets win: ``merge_parameters(from_file, from_command_line)``."""
    merged: dict[str, Any] = {}
    for s in sets:
        merged.update(s or {})
    return merged


def declared_parameters(notebook: str | os.PathLike) -> dict[str, dict]:
    """The parameters of a notebook's cell tagged ``parameters``, with their ``# help:``.

    Returns
    -------
    dict
        name -> {'name', 'inferred_type_name', 'default' (source text), 'help'}; empty when
        the notebook has no parameters cell.

    Raises
    ------
    ReportError
        When the notebook cannot be read, or nbformat does not take it for a notebook.
    """
    from anfperf.report._warm import defer_rfc3987_syntax

    defer_rfc3987_syntax()  # papermill imports nbformat -> jsonschema, slow to import otherwise
    import papermill

    try:
        return papermill.inspect_notebook(str(notebook))
    except OSError as exc:
        raise ReportError(notebook, f"cannot read the notebook: {exc.strerror or exc}") from None
    except Exception as exc:  # nbformat's NotJSONError, jsonschema's ValidationError, ...
        raise ReportError(notebook, f"not a Jupyter notebook: {_first_line(exc)}") from None


def _code_cells(notebook: str | os.PathLike) -> list[dict]:
    """The code cells of a notebook (read as JSON: no nbformat needed).

    Raises
    ------
    ReportError
        When the notebook cannot be read, or is not a notebook (not JSON, no cells).
    """
    import json

    try:
        document = json.loads(Path(notebook).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(notebook, f"cannot read the notebook: {exc.strerror or exc}") from None
    except ValueError as exc:  # (UnicodeDecodeError is one)
        raise ReportError(notebook, f"not a Jupyter notebook (not JSON: {exc})") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise ReportError(notebook, "not a Jupyter notebook (no list of cells)")
    return [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def code_sources(notebook: str | os.PathLike) -> list[str]:
    """The source of every code cell of a notebook.

    Raises
    ------
    ReportError
        When the notebook cannot be read as JSON.
    """
    return [_source(cell) for cell in _code_cells(notebook)]


@dataclass(frozen=True)
class PathParameter:
    """A parameter whose ``# help:`` marks it as naming files (``[path]``, ``[glob]``).

    Attributes
    ----------
    kind : str
        ``'path'``: a file or folder, or a list of them; ``'glob'``: a glob pattern.
    words : tuple of str
        Values that are not paths (``[path|sample]``: the word ``sample``).
    """

    kind: str
    words: tuple[str, ...] = ()


def path_parameters(notebook: str | os.PathLike) -> dict[str, PathParameter]:
    """The parameters of a notebook that name files, from the markers of their ``# help:``.

    Read from the notebook's JSON (the cell tagged ``parameters``, one line per parameter),
    without papermill: a wrong path fails before anything heavy is imported.

    Raises
    ------
    ReportError
        When the notebook cannot be read as JSON.
    """
    found: dict[str, PathParameter] = {}
    for cell in _code_cells(notebook):
        tags = (cell.get("metadata") or {}).get("tags") or []
        if "parameters" not in tags:
            continue
        for line in _source(cell).splitlines():
            name, marker = _ASSIGNED.match(line), _PATH_MARKER.search(line)
            if name and marker:
                words = tuple(w.strip() for w in marker.group(2).split("|") if w.strip())
                found[name.group(1)] = PathParameter(marker.group(1), words)
    return found


def resolve_path_parameters(
    notebook: str | os.PathLike,
    parameters: Mapping[str, Any],
    cwd: str | os.PathLike | None = None,
) -> dict[str, Any]:
    """The parameters with every path a ``[path]`` or ``[glob]`` parameter names made absolute.

    Relative paths are relative to `cwd`, the caller's working directory (the folder the
    command was typed in), not to the folder the notebook's kernel runs in. Values that are
    not given, None, or one of the parameter's words stay as they are; so do parameters
    without a marker.

    Parameters
    ----------
    notebook : str or os.PathLike
        The notebook, for its markers (:func:`path_parameters`) and the error message.
    parameters : mapping
        Name -> value, as given.
    cwd : str or os.PathLike, optional
        Default: the current working directory.

    Returns
    -------
    dict
        The parameters, paths absolute: one path as one ``str``, a list as a list of ``str``.

    Raises
    ------
    ReportError
        A path that does not exist or is neither a file nor a folder (a FIFO, a device), a glob
        that matches no file, an empty list, or a value that is not a path (its reason names the
        parameter: ``paths: no such file or folder: /x/y``).
    """
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    resolved = dict(parameters)
    for name, spec in path_parameters(notebook).items():
        value = parameters.get(name)
        if value is None or (isinstance(value, str) and value in spec.words):
            continue
        if spec.kind == "glob":
            if not isinstance(value, str | os.PathLike):
                raise ReportError(notebook, f"{name}: expected a glob pattern, got {value!r}")
            pattern = _absolute(base, value)
            if not glob.glob(pattern, recursive=True):
                raise ReportError(notebook, f"{name}: no file matches {pattern}")
            resolved[name] = pattern
            continue
        from anfperf.paths import path_list

        try:
            items = [_absolute(base, p) for p in path_list(value, name)]
        except AnfperfError as exc:  # an item that is not a path: path_list names it
            raise ReportError(notebook, str(exc)) from None
        if not items:  # `-p paths '[]'`: a report of nothing, which failed inside the kernel
            raise ReportError(
                notebook, f"{name}: an empty list names no file or folder (leave {name} out "
                "for its default)",
            )  # fmt: skip
        missing = [p for p in items if not os.path.exists(p)]
        if missing:
            raise ReportError(notebook, f"{name}: no such file or folder: {', '.join(missing)}")
        for item in items:  # the kernel would wait on a FIFO for ever, read a device without end
            if (reason := special_file_reason(item)) is not None:
                raise ReportError(notebook, f"{name}: {item} {reason}")
        resolved[name] = items[0] if isinstance(value, str | os.PathLike) else items
    return resolved


def _absolute(base: str, path: str | os.PathLike) -> str:
    return os.path.abspath(os.path.join(base, os.path.expanduser(os.fspath(path))))


def check_parameters(
    notebook: str | os.PathLike, parameters: Mapping[str, Any], declared: Mapping[str, dict]
) -> None:
    """Raise :class:`ReportError` for names the notebook does not declare (typos).

    papermill only logs a warning and runs the report with the default, which makes a report
    of the wrong thing; a notebook without a parameters cell accepts anything.
    """
    unknown = sorted(set(parameters) - set(declared))
    if declared and unknown:
        raise ReportError(
            notebook,
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"the notebook takes: {', '.join(declared)}",
        )


def _literal(text: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def parameter_rows(parameters: Mapping[str, Any], declared: Mapping[str, dict]) -> list[dict]:
    """Every parameter the report ran with: the given ones and the notebook's defaults.

    Returns
    -------
    list of dict
        {'name', 'value' (Python source text), 'default' (bool), 'help'}, in the notebook's
        order, then given names the notebook does not declare.
    """
    rows = []
    for name, spec in declared.items():
        if name in parameters:
            rows.append({"name": name, "value": repr(parameters[name]), "default": False})
        else:
            rows.append({"name": name, "value": str(spec.get("default")), "default": True})
        rows[-1]["help"] = _help_text(spec.get("help") or "")
    for name, value in parameters.items():
        if name not in declared:
            rows.append({"name": name, "value": repr(value), "default": False, "help": ""})
    return rows


def _help_text(comment: str) -> str:
    # papermill keeps the whole comment; the `help:` marker is notebook syntax, not meaning
    text = comment.strip()
    return text[5:].strip() if text.lower().startswith("help:") else text


def effective_values(parameters: Mapping[str, Any], declared: Mapping[str, dict]) -> dict:
    """name -> value the notebook runs with (defaults evaluated when they are literals)."""
    values = {}
    for name, spec in declared.items():
        ok, value = _literal(str(spec.get("default")))
        if ok:
            values[name] = value
    values.update(parameters)
    return values


def _path_strings(value: Any) -> list[str]:
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    if isinstance(value, list | tuple):
        return [os.fspath(v) for v in value if isinstance(v, str | os.PathLike)]
    return []


def input_checksums(values: Mapping[str, Any], cwd: str | os.PathLike) -> list[dict]:
    """SHA-256 of every file a parameter names (a file, or every file under a folder).

    Parameters
    ----------
    values : mapping
        Parameter name -> value; strings and lists of strings that are existing paths count.
    cwd : str or os.PathLike
        The folder the notebook runs in: relative paths are relative to it, as in the notebook.

    Returns
    -------
    list of dict
        {'parameter', 'path' (as the notebook sees it), 'bytes', 'sha256'}, files of a folder
        in sorted order (:func:`anfperf.analysis.provenance.input_checksums`).
    """
    from anfperf.analysis.provenance import input_checksums as checksums

    rows = []
    for name, value in values.items():
        texts = [t for t in _path_strings(value) if t]
        for r in checksums(texts, root=cwd).itertuples(index=False):
            rows.append(
                {"parameter": name, "path": r.path, "bytes": int(r.bytes), "sha256": r.sha256}
            )
    return rows


def _first_line(exc: Exception) -> str:
    """An exception's message cut to its first line (nbformat quotes the whole file after it)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
