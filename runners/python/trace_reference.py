"""Reads a profiler trace the way the references of `npm run bench trace` do, and prints JSON.

  trace_reference.py xplane PATH [--no-trace-viewer]
      XProf (the `xprof` package) on an XSpace: its XPlane reader (`xprof.profile_data.ProfileData`),
      every event's name, duration and stats, summed per HLO op (events that carry `hlo_op`, keyed
      by event name: the reader leaves `hlo_op`/`hlo_module` as references); its trace-viewer
      conversion (`trace_viewer`), summed per (hlo_module, hlo_op) from the events it returns; and
      how many programs its op profile (`op_profile`) holds.
  trace_reference.py json PATH
      The standard `json` module on a Chrome/Perfetto JSON trace (gzipped or not): loaded whole,
      complete events summed per (hlo_module, hlo_op).

Times are wall seconds of each step; durations in µs. XProf writes caches beside the file it
reads, so it is given a copy in a temporary folder.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
import time


def _table(totals: dict[tuple[str, str], list[float]]) -> list[dict]:
  rows = [{"module": m, "op": o, "count": int(c), "totalUs": t} for (m, o), (c, t) in totals.items()]
  return sorted(rows, key=lambda r: (-r["totalUs"], r["module"], r["op"]))


def _add(totals: dict, key: tuple[str, str], dur_us: float) -> None:
  row = totals.get(key)
  if row is None:
    totals[key] = [1, dur_us]
  else:
    row[0] += 1
    row[1] += dur_us


def read_json(path: str) -> dict:
  t0 = time.perf_counter()
  opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
  with opener(path, "rb") as f:
    doc = json.load(f)
  t1 = time.perf_counter()
  events = doc["traceEvents"] if isinstance(doc, dict) else doc
  totals: dict = {}
  for e in events:
    args = e.get("args")
    if e.get("ph") == "X" and args and "hlo_op" in args:
      _add(totals, (args.get("hlo_module", ""), args["hlo_op"]), e.get("dur", 0))
  t2 = time.perf_counter()
  return {"loadSeconds": t1 - t0, "aggregateSeconds": t2 - t1, "seconds": t2 - t0, "events": len(events), "ops": _table(totals)}


def read_xplane(path: str, trace_viewer: bool) -> dict:
  from xprof.convert import raw_to_tool_data  # pylint: disable=import-outside-toplevel
  from xprof.profile_data import ProfileData  # pylint: disable=import-outside-toplevel

  out: dict = {}
  with tempfile.TemporaryDirectory() as tmp:
    copy = os.path.join(tmp, "trace.xplane.pb")
    shutil.copyfile(path, copy)
    t0 = time.perf_counter()
    totals: dict = {}
    events = 0
    with ProfileData.from_file(copy) as pd:
      for plane in pd.planes:
        for line in plane.lines:
          for e in line.events:
            events += 1
            name, dur_ns = e.name, e.duration_ns
            if any(k == "hlo_op" for k, _ in e.stats):
              _add(totals, ("", name), dur_ns / 1000)
    out["reader"] = {"seconds": time.perf_counter() - t0, "events": events, "ops": _table(totals)}
    if trace_viewer:
      t0 = time.perf_counter()
      data, _ = raw_to_tool_data.xspace_to_tool_data([copy], "trace_viewer", {"use_saved_result": False})
      doc = json.loads(data)
      totals = {}
      for e in doc["traceEvents"]:
        args = e.get("args")
        if e.get("ph") == "X" and args and "hlo_op" in args:
          _add(totals, (args.get("hlo_module", ""), args["hlo_op"]), e.get("dur", 0))
      out["traceViewer"] = {"seconds": time.perf_counter() - t0, "events": len(doc["traceEvents"]), "ops": _table(totals)}
    t0 = time.perf_counter()
    data, _ = raw_to_tool_data.xspace_to_tool_data([copy], "op_profile", {"use_saved_result": False})
    profile = json.loads(data)
    out["opProfile"] = {"seconds": time.perf_counter() - t0, "deviceType": profile.get("deviceType"), "programs": len(profile.get("byProgram", {}).get("children", []))}
  return out


def main(argv: list[str]) -> None:
  if len(argv) < 3 or argv[1] not in ("xplane", "json"):
    sys.exit(__doc__)
  result = read_json(argv[2]) if argv[1] == "json" else read_xplane(argv[2], "--no-trace-viewer" not in argv)
  print(json.dumps(result))


if __name__ == "__main__":
  main(sys.argv)
