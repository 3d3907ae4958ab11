#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fold `perf script`-style text into flame graph input, by the line rules
of the tools people feed perf script into, so that a test can check that
ktrace's text is read as they read it (and gives what `report --folded`
gives).

The rules, as FlameGraph's stackcollapse-perf.pl and inferno's
collapse-perf apply them (read from their public source):
  - a record starts with a line matching ^(\\S.+?)\\s+(\\d+)/*(\\d+)*\\s+
    (the command at column 0, then the pid, optionally /tid); the command
    is the stack's first frame;
  - a stack line matches ^\\s*(\\w+)\\s*(.+) \\((\\S*)\\): address, symbol,
    (binary); the symbol's +0xOFFSET is dropped and ';' becomes ':';
  - an empty line ends a stack: the frames, outermost first, joined by
    ';', count one more;
  - any other line is skipped.
Output: "frames COUNT" lines, sorted.
"""
import re
import sys

EVENT = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
STACK = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)")
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def fold(lines):
    counts = {}
    comm, frames = None, []
    for line in lines:
        line = line.rstrip("\n")
        if line == "":
            if comm is not None and frames:
                key = ";".join([comm] + frames[::-1])
                counts[key] = counts.get(key, 0) + 1
            comm, frames = None, []
            continue
        m = EVENT.match(line)
        if m and not line[0].isspace():
            comm, frames = m.group(1), []
            continue
        m = STACK.match(line)
        if m and comm is not None:
            frames.append(OFFSET.sub("", m.group(2)).replace(";", ":"))
    return counts


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        for key, n in sorted(fold(f).items()):
            print(f"{key} {n}")
