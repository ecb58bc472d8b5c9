"""Unit conversion factors, one home for the whole package.

Sizes are binary (KiB = 1024 bytes, MiB = 2**20 bytes, TiB = 1024 GiB), as the tidy frame's
columns are (:mod:`anfperf.schema`); times are decimal.
"""

from __future__ import annotations

#: Bytes per KiB.
BYTES_PER_KIB = 1024.0
#: Bytes per MiB.
BYTES_PER_MIB = 2.0**20
#: KiB per MiB.
KIB_PER_MIB = 1024.0
#: GiB per TiB.
GIB_PER_TIB = 1024.0
#: MiB per GiB.
MIB_PER_GIB = 1024.0
#: KiB per GiB.
KIB_PER_GIB = 2.0**20
#: Bytes per GiB.
BYTES_PER_GIB = 2.0**30
#: Milliseconds per second.
MS_PER_S = 1000.0
#: Microseconds per second.
US_PER_S = 1e6
#: Nanoseconds per second.
NS_PER_S = 1e9
#: Nanoseconds per millisecond (fio >= 3.0 reports latencies in ns).
NS_PER_MS = 1e6
#: Microseconds per millisecond (fio 2.x reports latencies in us).
US_PER_MS = 1e3
