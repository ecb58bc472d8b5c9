from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anfperf.schema import COLUMN_NAMES, COLUMNS, conform, empty_frame, schema_table


def test_schema_table_documents_every_column_with_a_unit_where_it_has_one():
    table = schema_table()
    assert list(table["column"]) == COLUMN_NAMES
    assert table["column"].is_unique
    assert (table["meaning"].str.len() > 5).all()
    # Units live in the names: every *_ms column is in ms, *_mib_s in MiB/s, *_pct in %.
    for name, _dtype, unit, _ in COLUMNS:
        for suffix, expected in (
            ("_ms", "ms"),
            ("_mib_s", "MiB/s"),
            ("_pct", "%"),
            ("_kib", "KiB"),
        ):
            if name.endswith(suffix):
                assert unit == expected, name


def test_design_md_contract_columns_are_all_present():
    contract = """run_id tool tool_version source_file host job workload direction interval
    is_summary is_warmup pattern bs_kib read_pct iodepth numjobs threads outstanding
    rate_limit_iops iops bw_mib_s lat_mean_ms lat_max_ms lat_std_ms lat_p50_ms lat_p99_ms
    lat_p999_ms cpu_user_pct cpu_sys_pct""".split()
    assert set(contract) <= set(COLUMN_NAMES)


def test_conform_fills_missing_columns_with_missing_values_not_zeros():
    frame = conform(pd.DataFrame({"iops": [10.0], "tool": ["fio"], "direction": ["read"]}))
    assert list(frame.columns) == COLUMN_NAMES
    assert np.isnan(frame.at[0, "lat_mean_ms"])
    assert frame["interval"].isna().all() and frame["interval"].dtype == "Int64"
    assert not frame.at[0, "is_summary"]


def test_conform_rejects_columns_outside_the_schema():
    with pytest.raises(ValueError, match="lat_avg"):
        conform(pd.DataFrame({"lat_avg": [1.0]}))


def test_frames_of_different_tools_concatenate_without_losing_dtypes():
    a = conform(pd.DataFrame({"tool": ["fio"], "direction": ["read"], "iops": [1.0]}))
    b = conform(pd.DataFrame({"tool": ["vdbench"], "direction": ["total"], "iops": [2.0]}))
    both = pd.concat([a, b, empty_frame()], ignore_index=True)
    assert both.dtypes.equals(a.dtypes)
    assert list(both["tool"]) == ["fio", "vdbench"]


def test_every_reader_row_is_a_client_row_unless_it_says_server():
    frame = conform(pd.DataFrame({"tool": ["fio", "fio"], "source": [None, "server"]}))
    assert list(frame["source"]) == ["client", "server"]
    assert list(frame["source"].cat.categories) == ["client", "server"]
    assert list(conform(pd.DataFrame({"tool": ["fio"]}))["source"]) == ["client"]
    with pytest.raises(ValueError, match="clinet"):  # not read as missing, so not 'client'
        conform(pd.DataFrame({"source": ["clinet"]}))


_TOOLS_PROBE = """
import json, sys
from anfperf.schema import empty_frame
before = list(empty_frame()["tool"].cat.categories)
readers = sorted(m for m in sys.modules if m.startswith("anfperf.ingest"))
from anfperf.ingest.registry import formats
formats()
after = list(empty_frame()["tool"].cat.categories)
print(json.dumps([before, readers, after]))
"""


def test_the_contract_knows_the_built_in_tools_without_importing_ingest():
    # the `tool` categories are the contract's; the format registry adds to them, the contract
    # does not ask it (nor load every reader to conform a frame)
    import json
    import subprocess
    import sys

    from tests.conftest import TESTS

    out = subprocess.run(
        [sys.executable, "-c", _TOOLS_PROBE],
        capture_output=True, text=True, check=True, cwd=TESTS.parent,
    )  # fmt: skip
    before, readers, after = json.loads(out.stdout)
    assert readers == []
    assert before == after == ["fio", "vdbench", "diskspd", "azure_monitor"]
