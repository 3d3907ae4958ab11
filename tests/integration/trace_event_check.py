#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a file against the rules of the Trace Event Format (the JSON that
chrome://tracing and the Perfetto UI load), as `ktrace report --perfetto`
writes it, and print what it holds for the test to compare.

Rules taken from the format's public description (Google's "Trace Event
Format" document) and from what its two viewers require:
 - JSON object form: "traceEvents" is a list of event objects;
   "displayTimeUnit" is "ms" or "ns"; "stackFrames" maps ids to
   {"name", "category", optional "parent"}; any other key ("otherData") is
   metadata;
 - every event has "ph" and "pid"/"tid" (integers); all but metadata have
   "ts" (microseconds, a number >= 0) and a "name";
 - "X" (complete) events have "dur" >= 0; on one thread they nest or do not
   touch (a slice never ends inside another one it started after);
 - "i"/"I" (instant) events have scope "s" of "g", "p" or "t";
 - "M" (metadata) events are process_name/thread_name with args.name, or
   process_sort_index/thread_sort_index with an integer args.sort_index;
 - "sf" names an id of "stackFrames"; frame parents exist and form no
   cycle; "args" is an object.

Usage: trace_event_check.py FILE  -> exit 1 with the first broken rule, or
prints "ok" and then one line per fact: "count PH NAME N", "thread PID TID
NAME", "slice CPU-TID NAME", "late CPU-TID NAME" (a slice whose start is
a task's first record, its switch-in not recorded), "stack NAME
outer;...;inner".
"""
import json
import sys
from collections import Counter


def die(msg):
    print("trace_event_check: " + msg)
    sys.exit(1)


def isnum(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def main():
    path = sys.argv[1]
    with open(path) as f:
        try:
            doc = json.load(f)
        except json.JSONDecodeError as e:
            die("not JSON: %s" % e)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        die("no traceEvents list in a top-level object")
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        die("displayTimeUnit %r" % doc["displayTimeUnit"])
    frames = doc.get("stackFrames", {})
    if not isinstance(frames, dict):
        die("stackFrames is not an object")
    for k, fr in frames.items():
        if not isinstance(fr, dict) or not isinstance(fr.get("name"), str):
            die("stack frame %s has no name" % k)
        if "parent" in fr and str(fr["parent"]) not in frames:
            die("stack frame %s: parent %s missing" % (k, fr["parent"]))

    def chain(sf):
        out, seen = [], set()
        while sf is not None:
            sf = str(sf)
            if sf in seen:
                die("stack frame cycle at %s" % sf)
            seen.add(sf)
            out.append(frames[sf]["name"])
            sf = frames[sf].get("parent")
        return out[::-1]

    counts = Counter()
    slices = {}
    facts = []
    for i, ev in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        if not isinstance(ev, dict):
            die(where + " is not an object")
        ph = ev.get("ph")
        if ph not in ("B", "E", "X", "i", "I", "C", "M", "b", "e", "n", "s", "t", "f"):
            die("%s: phase %r" % (where, ph))
        for k in ("pid", "tid"):
            if not isinstance(ev.get(k), int):
                die("%s: %s is not an integer" % (where, k))
        if "args" in ev and not isinstance(ev["args"], dict):
            die(where + ": args is not an object")
        if ph == "M":
            name, args = ev.get("name"), ev.get("args", {})
            if name in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str):
                    die(where + ": %s without args.name" % name)
                if name == "thread_name":
                    facts.append("thread %d %d %s" % (ev["pid"], ev["tid"], args["name"]))
            elif name in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    die(where + ": %s without an integer sort_index" % name)
            else:
                die(where + ": metadata %r" % name)
            continue
        if not isnum(ev.get("ts")) or ev["ts"] < 0:
            die(where + ": ts %r" % ev.get("ts"))
        if not isinstance(ev.get("name"), str):
            die(where + ": no name")
        if ph == "X":
            if not isnum(ev.get("dur")) or ev["dur"] < 0:
                die(where + ": dur %r" % ev.get("dur"))
            slices.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["ts"] + ev["dur"], i))
            facts.append("slice %d %s" % (ev["tid"], ev["name"]))
            if str(ev.get("args", {}).get("not_recorded", "")).startswith("its start"):
                facts.append("late %d %s" % (ev["tid"], ev["name"]))
        if ph in ("i", "I") and ev.get("s", "t") not in ("g", "p", "t"):
            die(where + ": instant scope %r" % ev.get("s"))
        if "sf" in ev:
            if str(ev["sf"]) not in frames:
                die(where + ": sf %r not in stackFrames" % ev["sf"])
            facts.append("stack %s %s" % (ev["name"], ";".join(chain(ev["sf"]))))
        counts[(ph, ev["name"])] += 1
    for track, v in slices.items():
        v.sort()
        open_ends = []
        for start, end, i in v:
            while open_ends and open_ends[-1] <= start + 0.0005:
                open_ends.pop()
            # (a microsecond's thousandth of slack: float sums)
            if open_ends and end > open_ends[-1] + 0.0005:
                die("event %d on %s overlaps the slice before it" % (i, track))
            open_ends.append(end)
    print("ok")
    for (ph, name), n in sorted(counts.items()):
        print("count %s %s %d" % (ph, name, n))
    for f in facts:
        print(f)


main()
