# TEMPORARY stand-in until the helper's record.py is merged (not committed)
import json, threading, time, math
from dataclasses import asdict
from pathlib import Path

LIVE_LOG_NAME = "live.jsonl"


class LiveLog:
    def __init__(self, run_dir):
        self.path = Path(run_dir) / LIVE_LOG_NAME
        self._lock = threading.Lock()

    def _w(self, rec):
        rec = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}
        with self._lock, open(self.path, "a") as fh:
            fh.write(json.dumps(rec) + "\n")

    def step(self, index, name, event):
        self._w({"kind": "step", "event": event, "step": index, "name": name, "wall": time.time()})

    def interval(self, step, iv):
        self._w({"kind": "interval", "step": step, "wall": time.time(), **asdict(iv)})

    def alarm(self, step, a):
        self._w({"kind": "alarm", "step": step, "wall": time.time(), **a.as_dict()})

    def end(self, status):
        self._w({"kind": "run", "event": "end", "status": status, "wall": time.time()})

    def close(self):
        pass
