"""fio's status documents read whole, independently of the stream parser: what the tests check
the live intervals against."""

from __future__ import annotations

import json
import re

_START = re.compile(r'\{\s*"fio version"')


def documents(data: bytes) -> list[dict]:
    """Every fio JSON document of a captured stdout, in order."""
    text, decoder, docs, at = data.decode(), json.JSONDecoder(), [], 0
    while (match := _START.search(text, at)) is not None:
        doc, at = decoder.raw_decode(text, match.start())
        docs.append(doc)
    return docs


def total(doc: dict, key: str) -> float:
    """`key` of every direction block (read, write, trim) summed over the document's jobs."""
    return sum(job[d][key] for job in doc["jobs"] for d in ("read", "write", "trim"))


def lat_totals(doc: dict) -> tuple[float, int]:
    """The document's total latency sum [ns] and count over its jobs and directions."""
    blocks = [job[d]["lat_ns"] for job in doc["jobs"] for d in ("read", "write", "trim")]
    return sum(b["mean"] * b["N"] for b in blocks), sum(b["N"] for b in blocks)
