"""What counts as a number in anfperf's inputs: a real number, never a boolean.

Python counts ``True`` as the int 1, so a YAML ``bs_kib: true``, a ``--set threads=yes`` or a
notebook's ``capacity_tib=True`` would pass every range check as 1 KiB, one thread or 1 TiB.
Workload specs, model inputs and recorded plan options refuse booleans with these checks,
naming the field; numpy's numbers are numbers.
"""

from __future__ import annotations

import math
import numbers


def is_number(value: object) -> bool:
    """True for a real number (int, float, numpy's), False for a boolean or anything else."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_whole_number(value: object) -> bool:
    """True for an integer (int, numpy's), False for a boolean, a float or anything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_positive_number(value: object) -> bool:
    """True for a finite real number above zero (:func:`is_number`)."""
    return is_number(value) and math.isfinite(value) and value > 0
