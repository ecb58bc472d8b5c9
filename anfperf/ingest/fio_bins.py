"""fio's latency histograms: json+ ``bins`` as arrays, and the bucket values of ``stat.h``/``stat.c``
(shared by the JSON and log readers)."""

from __future__ import annotations

import numpy as np
import orjson
from msgspec import Raw

from anfperf.ingest.fio_doc import INT64_MAX

#: 2**PLAT_BITS buckets per group (``FIO_IO_U_PLAT_BITS``, ``FIO_IO_U_PLAT_VAL``).
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS


def plat_idx_to_val(idx: np.ndarray, bits: int = PLAT_BITS, val: int = PLAT_VAL) -> np.ndarray:
    """fio's histogram bucket index -> the bucket's value (fio ``stat.c:plat_idx_to_val``).

    Buckets below ``2 * val`` hold one value each; above, group ``g`` spans ``2**(g+bits)`` values
    split into `val` buckets, each represented by its middle (an integer: fio's own rounding).

    Parameters
    ----------
    idx : numpy.ndarray
        Bucket indexes.
    bits, val : int
        fio's ``FIO_IO_U_PLAT_BITS`` and ``FIO_IO_U_PLAT_VAL`` (``val == 2**bits``).

    Returns
    -------
    numpy.ndarray
        int64 values, in the histogram's unit (ns in fio >= 3.0, us in fio 2.x).
    """
    idx = np.asarray(idx, dtype=np.int64)
    if not 0 < bits < 16 or val != 1 << bits or (idx < 0).any() or (idx >= 64 * val).any():
        raise ValueError("histogram bucket constants out of range")
    error_bits = np.maximum((idx >> bits) - 1, 1)
    base = np.left_shift(1, error_bits + bits)
    k = idx % val
    grouped = base + k * np.left_shift(1, error_bits) + np.left_shift(1, error_bits - 1)
    return np.where(idx < (val << 1), idx, grouped)


def histogram(raw: object, ns_per_unit: int) -> dict | None:
    """A json+ histogram as ``{'ns': int64 array, 'count': int64 array}``; None if unusable.

    `raw` is the decoded JSON value, or its JSON bytes (:class:`msgspec.Raw` or bytes, as
    :func:`anfperf.ingest.fio_doc.decode` left it).
    """
    if type(raw) is bytes or type(raw) is Raw:  # left undecoded by fio_doc.decode
        data = bytes(raw)  # type: ignore[arg-type]
        if ns_per_unit == 1:
            fast = decimal_histogram(data)
            if fast is not NOT_DECIMAL:
                return fast
        try:
            raw = orjson.loads(data)
        except orjson.JSONDecodeError:  # integers beyond 64 bits: not a usable histogram
            return None
    if not isinstance(raw, dict) or not raw:
        return None
    try:
        if "FIO_IO_U_PLAT_NR" in raw:  # fio 2.x: bucket index -> count, usec buckets
            bits = int(raw["FIO_IO_U_PLAT_BITS"])
            val = int(raw["FIO_IO_U_PLAT_VAL"])
            pairs = [(int(k), v) for k, v in raw.items() if not k.startswith("FIO_")]
            idx = np.array([k for k, _ in pairs], dtype=np.int64)
            count = np.fromiter((v for _, v in pairs), dtype=np.int64, count=len(pairs))
            keep = count > 0
            ns = plat_idx_to_val(idx[keep], bits, val) * ns_per_unit
            count = count[keep]
        else:
            keys = " ".join(raw)
            if keys.isascii() and keys.replace(" ", "").isdigit():
                # fio's plain decimal keys: numpy parses them in one go, not int() one by one
                ns = np.fromstring(keys, dtype=np.int64, sep=" ")
            else:
                ns = np.array(list(raw), dtype=np.int64)
            if len(ns) != len(raw) or (ns >= INT64_MAX).any():  # fromstring saturates
                return None
            if ns_per_unit != 1:
                ns = ns * ns_per_unit
            count = np.fromiter(raw.values(), dtype=np.int64, count=len(raw))
    except (TypeError, ValueError, OverflowError, KeyError):
        return None
    if count.size == 0 or (count < 0).any() or (ns < 0).any() or count.sum() <= 0:
        return None
    return {"ns": ns, "count": count}


NOT_DECIMAL = object()
#: The bytes of a JSON object of decimal keys and counts, and their punctuation as separators.
_DECIMAL_JSON = b'0123456789{}":, \t\r\n'
_DIGITS_AND_WHITESPACE = b"0123456789 \t\r\n"


def decimal_histogram(data: bytes) -> dict | None | object:
    """:func:`histogram` of fio 3.x's own histograms (``{"<ns>": count, ...}`` in increasing ns)
    straight from the JSON bytes: json+ files hold several of ~300 bins each, too many to make
    dicts first and arrays after.
    `NOT_DECIMAL` for anything else (read as a dict then)."""
    return decimal_histograms([data])[0]


def decimal_histograms(datas: list) -> list:
    """:func:`decimal_histogram` of many histograms (JSON text: bytes or :class:`msgspec.Raw`),
    parsed in one pass: the per-call cost of numpy was most of the cost of each. When the
    checks fail for them together, each is parsed alone."""
    together = _parsed_together(datas)
    if together is not None:
        return together
    if len(datas) == 1:
        return [NOT_DECIMAL]
    return [decimal_histogram(data) for data in datas]


def _parsed_together(datas: list) -> list | None:
    """The histograms of `datas`, or None when they are not all fio's plain decimal ones."""
    if not datas:
        return []
    joined = b",".join(datas)
    punctuation = joined.translate(None, _DIGITS_AND_WHITESPACE)  # a fifth of the bytes
    n_bins = punctuation.count(b":")
    # (one object each, none nested: the marks below count them)
    if punctuation.count(b'"') != 2 * n_bins or punctuation.translate(None, _DECIMAL_JSON):
        return None  # a value quoted, or anything but digits and punctuation
    # '{' becomes a minus sign: each histogram's first key is negative, marking where it starts.
    # numpy reads numbers between commas (skipping whitespace around them) faster than
    # numbers between whitespace, and stops at whitespace inside a key ("1 2").
    try:
        numbers = np.fromstring(joined.translate(_BRACE_TO_MINUS, b'}"'), np.int64, sep=",")
    except ValueError:  # text numpy cannot read to its end ('{}' gives a lone '-', "1 2")
        return None
    starts = np.flatnonzero(numbers < 0)
    if (
        len(numbers) != 2 * n_bins
        or len(starts) != len(datas)  # a key '0' stays 0: no mark
        or (starts % 2).any()
        or numbers.max() >= INT64_MAX  # fromstring saturates
        or numbers.min() <= -INT64_MAX
    ):
        return None
    numbers[starts] = -numbers[starts]
    ns, count = numbers[0::2].copy(), numbers[1::2].copy()
    first = np.zeros(len(ns), dtype=bool)
    first[starts // 2] = True
    if not ((ns[1:] > ns[:-1]) | first[1:]).all():  # repeated keys: a dict keeps the last
        return None
    bounds = [*(starts // 2).tolist(), len(ns)]
    sums = np.add.reduceat(count, starts // 2).tolist()
    return [
        {"ns": ns[a:b], "count": count[a:b]} if counted > 0 else None
        for a, b, counted in zip(bounds[:-1], bounds[1:], sums, strict=True)
    ]


_BRACE_TO_MINUS = bytes.maketrans(b"{:", b"-,")
