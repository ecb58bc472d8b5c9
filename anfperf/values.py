"""What counts as a number in anfperf's inputs, and how a number is written for people.

Python counts ``True`` as the int 1, so a YAML ``bs_kib: true``, a ``--set threads=yes`` or a
notebook's ``capacity_tib=True`` would pass every range check as 1 KiB, one thread or 1 TiB.
Workload specs, model inputs and recorded plan options refuse booleans with these checks,
naming the field; numpy's numbers are numbers.

:func:`format_number` is the one rule by which text, tables, cards and chart labels write a
quantity: thousands separators and three significant digits, whole digits never cut, so a
6.25 MiB/s limit reads 6.25 (not 6) and 4,500 MiB/s reads 4,500.
"""

from __future__ import annotations

import math
import numbers
import re

from anfperf.units import GIB_PER_TIB


def is_number(value: object) -> bool:
    """True for a real number (int, float, numpy's), False for a boolean or anything else."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_whole_number(value: object) -> bool:
    """True for an integer (int, numpy's), False for a boolean, a float or anything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_positive_number(value: object) -> bool:
    """True for a finite real number above zero (:func:`is_number`)."""
    return is_number(value) and math.isfinite(value) and value > 0


#: Significant digits numbers are written with (a whole number is never cut).
SIGNIFICANT_DIGITS = 3
#: How a missing number is written.
BLANK = ""
#: How an infinite limit is written.
UNBOUNDED = "no limit"


def format_number(value: float, digits: int = SIGNIFICANT_DIGITS) -> str:
    """A number as a person reads it: thousands separators, `digits` significant digits.

    Whole digits are never cut (59,418 stays 59,418, not 59,400); 476.837158 becomes 477,
    6.25 stays 6.25, 0.26471 becomes 0.265. NaN is :data:`BLANK`, infinities :data:`UNBOUNDED`.
    """
    x = float(value)
    if math.isnan(x):
        return BLANK
    if math.isinf(x):
        return UNBOUNDED if x > 0 else "−" + UNBOUNDED
    if is_whole_number(value) or x == 0 or abs(x) >= 10 ** (digits - 1):
        return f"{round(x):,}"
    decimals = digits - 1 - math.floor(math.log10(abs(x)))
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_quota(quota_tib: float, *, exact: bool = False) -> str:
    """A volume's or pool's size as Azure shows it: GiB below 1 TiB (100 GiB, not 0.09766 TiB),
    else TiB to two decimals rounded up (31.25 TiB; 15.625 is 15.63: a size to buy is never
    written smaller than it is); `exact`: six significant digits, for a formula's operand
    (35.1562 TiB x 128 MiB/s per TiB)."""
    if exact:
        if quota_tib < 1:
            return f"{quota_tib * GIB_PER_TIB:,.6g} GiB"
        return f"{quota_tib:,.6g} TiB"
    if quota_tib < 1:
        gib = math.ceil(quota_tib * GIB_PER_TIB - 1e-9)
        return f"{gib:,} GiB"
    text = f"{math.ceil(quota_tib * 100 - 1e-9) / 100:,.2f}".rstrip("0").rstrip(".")
    return f"{text} TiB"


def natural_key(text: str) -> list:
    """Sort key of names holding numbers: 'qd5' before 'qd23' (not as strings: 'qd23', 'qd5')."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]
