"""fio's latency histogram buckets (``stat.h``/``stat.c``), shared by the JSON and log readers."""

from __future__ import annotations

import numpy as np

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
