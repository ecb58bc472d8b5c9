"""Azure Monitor metrics files of an Azure NetApp Files volume, built by the documented schema.

No real capture of a NetApp volume's metrics was found (../shared/corpus/azure/PROVENANCE.md):
these files follow the ``Metrics - List`` response of the REST API (the shape of the corpus's
m01 example: ``cost``, ``timespan``, ``interval``, ``value[].id/type/name/unit/errorCode/
timeseries[].metadatavalues/data[].timeStamp/average/...``) with the volume metrics' names and
units of Azure Monitor's supported-metrics table for
``Microsoft.NetApp/netAppAccounts/capacityPools/volumes`` (ReadIops CountPerSecond,
ReadThroughput BytesPerSecond, AverageReadLatency MilliSeconds, ...). They are NOT captures.

``metrics_document`` is also what tests use to build a file for a real run's time window.
Run ``python tests/data/azure/make_metrics.py`` to write the files of this folder again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).parent
VOLUME_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/myRG/providers/"
    "Microsoft.NetApp/netAppAccounts/account1/capacityPools/pool1/volumes/volume1"
)
UNITS = {
    "ReadIops": "CountPerSecond", "WriteIops": "CountPerSecond", "TotalIops": "CountPerSecond",
    "OtherIops": "CountPerSecond", "ReadThroughput": "BytesPerSecond",
    "WriteThroughput": "BytesPerSecond", "TotalThroughput": "BytesPerSecond",
    "AverageReadLatency": "MilliSeconds", "AverageWriteLatency": "MilliSeconds",
    "VolumeLogicalSize": "Bytes",
}  # fmt: skip
_ISO = "%Y-%m-%dT%H:%M:%SZ"


def metrics_document(
    series: dict[str, list[float | None]],
    *,
    start: datetime,
    grain_s: int,
    style: str = "rest",
    resource_id: str = VOLUME_ID,
) -> dict:
    """A metrics response: `series` maps a metric name to one average per grain from `start`.

    ``style='rest'`` writes the REST body (``Z`` times, only ``average``); ``'az'`` what
    ``az monitor metrics list`` prints (keys sorted, every aggregation key, unset ones null,
    ``+00:00`` times, ``resourceGroup``). None is a grain without data (the time alone).
    """
    n = max(len(v) for v in series.values())
    end = start + timedelta(seconds=grain_s * n)
    minutes = grain_s // 60
    values = []
    for name, averages in series.items():
        data = []
        for i, average in enumerate(averages):
            t = start + timedelta(seconds=grain_s * i)
            if style == "az":
                point = {"average": average, "count": None, "maximum": None, "minimum": None,
                         "timeStamp": t.isoformat(), "total": None}  # fmt: skip
            else:
                point = {"timeStamp": t.strftime(_ISO)}
                if average is not None:
                    point["average"] = average
            data.append(point)
        entry = {
            "id": f"{resource_id}/providers/Microsoft.Insights/metrics/{name}",
            "type": "Microsoft.Insights/metrics",
            "name": {"value": name, "localizedValue": name},
            "displayDescription": f"{name} of the volume",
            "unit": UNITS[name],
            "timeseries": [{"metadatavalues": [], "data": data}],
            "errorCode": "Success",
        }
        if style == "az":
            entry["resourceGroup"] = "myRG"
        values.append(entry)
    doc = {
        "cost": 0,
        "timespan": f"{start.strftime(_ISO)}/{end.strftime(_ISO)}",
        "interval": f"PT{minutes}M" if grain_s % 3600 else f"PT{grain_s // 3600}H",
        "value": values,
        "namespace": "Microsoft.NetApp/netAppAccounts/capacityPools/volumes",
        "resourceregion": "eastus2",
    }
    return json.loads(json.dumps(doc, sort_keys=style == "az"))


def write(doc: dict, path: Path) -> Path:
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


MIB = 2**20
#: volume_rest_pt5m.json: a 1-hour sequential read then write at 5-minute grain
REST_SERIES = {
    "ReadIops": [1600.0] * 6 + [0.0] * 6,
    "WriteIops": [0.0] * 6 + [800.0] * 6,
    "ReadThroughput": [100.0 * MIB] * 6 + [0.0] * 6,
    "WriteThroughput": [0.0] * 6 + [50.0 * MIB] * 6,
    "AverageReadLatency": [1.25] * 6 + [0.0] * 6,
    "AverageWriteLatency": [0.0] * 6 + [2.5] * 6,
    "VolumeLogicalSize": [107374182400.0] * 12,  # a size: left out of the tidy frame
}
#: volume_az_pt1m.json: 5 minutes of a mixed workload at 1-minute grain, one empty grain
AZ_SERIES = {
    "ReadIops": [300.0, 300.0, None, 300.0, 300.0],
    "WriteIops": [100.0, 100.0, None, 100.0, 100.0],
    "TotalIops": [410.0, 410.0, None, 410.0, 410.0],  # + 10 other (metadata) operations
    "ReadThroughput": [75.0 * MIB, 75.0 * MIB, None, 75.0 * MIB, 75.0 * MIB],
    "WriteThroughput": [25.0 * MIB, 25.0 * MIB, None, 25.0 * MIB, 25.0 * MIB],
    "AverageReadLatency": [0.8, 0.8, None, 0.8, 0.8],
    "AverageWriteLatency": [2.0, 2.0, None, 2.0, 2.0],
}

if __name__ == "__main__":
    write(
        metrics_document(REST_SERIES, start=datetime(2024, 3, 25, 14, 0, tzinfo=UTC), grain_s=300),
        HERE / "volume_rest_pt5m.json",
    )
    write(
        metrics_document(
            AZ_SERIES, start=datetime(2024, 3, 26, 9, 0, tzinfo=UTC), grain_s=60, style="az"
        ),
        HERE / "volume_az_pt1m.json",
    )
