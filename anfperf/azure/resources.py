"""Azure resources as ``az`` and the ARM REST API print them, found in the files users keep.

One reader for every shape a saved resource comes in:

- one JSON document: an ARM body (fields under ``properties``), the flattened ``az netappfiles``
  style (fields at the top level), a ``value`` list or a JSON list of them, a Resource Graph
  answer (rows in ``data``, lower-case types), or a REST API example (``{"parameters": ...,
  "responses": {"200": {"body": ...}}}``);
- text holding several JSON documents: a Markdown transcript with shell prompts before each
  ``az`` output (CRLF or LF), or ``Resource: NAME (TYPE)`` sections each followed by JSON.

Each resource comes back flattened: its ``properties`` merged into its top level (its ``id``,
``name`` and ``type`` kept over properties of those names), with the file and line it came from, so readers of a resource type ask for fields by their ARM names.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from anfperf.errors import ParseError
from anfperf.userfiles import read_user_file

__all__ = ["AzureResource", "read_resources"]

#: Top-level fields that are the resource's identity, kept over same-named properties.
_IDENTITY = ("id", "name", "type")
#: Keys of a Resource Graph query's answer beside its ``data`` rows.
_GRAPH_KEYS = {"totalRecords", "total_records", "skip_token", "$skipToken", "resultTruncated"}


@dataclass(frozen=True)
class AzureResource:
    """One Azure resource from a file, its ``properties`` merged into its top-level fields.

    Attributes
    ----------
    type : str
        ARM resource type ('Microsoft.NetApp/netAppAccounts/capacityPools/volumes'), '' if none.
    fields : dict
        Its fields by their ARM names (``properties`` merged over the top level).
    source : str
        The file it was read from.
    line : int
        1-based line of the file where its JSON document starts.
    """

    type: str
    fields: dict
    source: str
    line: int

    @property
    def name(self) -> str:
        """Its ARM name ('account/pool/volume'), or '' if it has none."""
        return str(self.fields.get("name") or "")


def read_resources(path: str | os.PathLike) -> list[AzureResource]:
    """Every Azure resource in a file saved from ``az`` or the ARM REST API.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON file (one resource, a list, a ``value`` list, a REST example), a Markdown
        transcript of ``az`` commands or a text file of ``Resource: ...`` sections.

    Returns
    -------
    list of AzureResource
        In file order; volumes of a volume group (``properties.volumes``) follow their group.

    Raises
    ------
    anfperf.ParseError
        The file is missing, not a regular file (a FIFO, a device), larger than
        :data:`anfperf.userfiles.MAX_DESCRIPTION_MIB`, not UTF-8, holds no JSON, or a JSON
        document in it is malformed or truncated (naming the file and line).
    """
    source = os.fspath(path)
    raw = read_user_file(source, what="an Azure resource's JSON")
    try:
        text = raw.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise ParseError(source, f"not UTF-8 text (byte {exc.start})") from None
    out: list[AzureResource] = []
    for line, document in _documents(text, source):
        _collect(document, source, line, out)
    return out


def _documents(text: str, source: str) -> list[tuple[int, object]]:
    """The JSON documents of a file with the line each starts on: the whole file if it starts
    as JSON, else each one that starts a line with '{' or '[' (transcripts, ``Resource:``
    sections)."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return [(text[: len(text) - len(stripped)].count("\n") + 1, json.loads(text))]
        except json.JSONDecodeError as exc:
            raise _json_error(source, exc) from None
    documents = _scan(text, source)
    if not documents:
        raise ParseError(source, "no JSON document in it (expected az or ARM REST output)")
    return documents


def _scan(text: str, source: str) -> list[tuple[int, object]]:
    """JSON documents that start at the beginning of a line, in order: a document that breaks
    after its first line is damaged (a ParseError naming the line), one that breaks on it is
    other text."""
    decoder = json.JSONDecoder()
    found: list[tuple[int, object]] = []
    pos = 0
    while True:
        start = _next_start(text, pos)
        if start < 0:
            return found
        line = text.count("\n", 0, start) + 1
        try:
            document, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if exc.lineno == line:
                # wrong on its own first line: prose or a prompt ('[root@host ~]#'), not JSON
                pos = start + 1
                continue
            raise _json_error(source, exc) from None
        found.append((line, document))
        pos = end


def _next_start(text: str, pos: int) -> int:
    """Offset of the next line at or after `pos` that starts with '{' or '['; -1 if none."""
    while pos < len(text):
        if text[pos] in "{[" and (pos == 0 or text[pos - 1] == "\n"):
            return pos
        nl = text.find("\n", pos)
        if nl < 0:
            return -1
        pos = nl + 1
    return -1


def _json_error(source: str, exc: json.JSONDecodeError) -> ParseError:
    """A malformed or truncated JSON document as a ParseError naming the file and line."""
    # a string runs to the end of the text only when the text ends inside it (JSON strings
    # cannot hold a raw newline)
    truncated = exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated string")
    what = "truncated JSON (it ends inside a value)" if truncated else f"malformed JSON: {exc.msg}"
    return ParseError(source, f"{what}, column {exc.colno}", line=exc.lineno)


def _collect(document: object, source: str, line: int, out: list[AzureResource]) -> None:
    """Resources of one document: unwraps REST examples, lists and ``value`` lists."""
    if isinstance(document, list):
        for item in document:
            _collect(item, source, line, out)
        return
    if not isinstance(document, dict):
        return
    responses = document.get("responses")
    if isinstance(responses, dict) and "parameters" in document:
        # a REST API example: the resource is the body of its first 2xx response
        for status in sorted(responses):
            body = responses[status]
            if str(status).startswith("2") and isinstance(body, dict) and "body" in body:
                _collect(_named(body["body"], document["parameters"]), source, line, out)
                return
        return
    if isinstance(document.get("value"), list) and "type" not in document:
        _collect(document["value"], source, line, out)
        return
    if isinstance(document.get("data"), list) and _GRAPH_KEYS & set(document):
        # a Resource Graph answer (REST totalRecords, az graph query total_records): its rows
        _collect(document["data"], source, line, out)
        return
    fields = dict(document)
    properties = fields.pop("properties", None)
    if isinstance(properties, dict):
        fields.update(properties)
        # the resource's own identity wins: 2020-09-01 volumes repeat a short `name`
        # ('vol1', not 'account/pool/vol1') under properties
        fields.update({k: document[k] for k in _IDENTITY if k in document})
    out.append(AzureResource(str(fields.get("type") or ""), fields, source, line))
    nested = fields.get("volumes")
    if isinstance(nested, list):  # a volume group's volumes, which have no location of their own
        where = {"location": fields["location"]} if "location" in fields else {}
        _collect([{**where, **v} if isinstance(v, dict) else v for v in nested], source, line, out)


def _named(body: object, parameters: object) -> object:
    """A REST example's body without a name (2019-06-01 examples have none) named from the
    example's parameters ('accountName/poolName/volumeName'), as ARM names it."""
    if not isinstance(body, dict) or body.get("name") or not isinstance(parameters, dict):
        return body
    parts = [parameters.get(k) for k in ("accountName", "poolName", "volumeName")]
    parts = [str(p) for p in parts if isinstance(p, str) and p]
    return {**body, "name": "/".join(parts)} if parts else body


def __dir__() -> list[str]:
    return sorted(__all__)
