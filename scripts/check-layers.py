#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The shape of the tree, checked (make check-static):

  long      no function of lib/ or cmd/ is over 100 lines, from its opening
            '{' line to its closing '}' (kernel style: both alone in column
            0, which is how bodies are found);
  cycles    no two files of one lib/ folder call each other in a circle
            (read from the objects: what one defines, another names as
            undefined);
  layers    no file includes or calls a higher layer, and no folders
            include or call each other in a circle:
            lib/base, lib/arch, lib/ktrace.h (0) <- lib/tracefs (1)
            <- lib/probe, lib/capture, lib/sym, lib/kfile (2)
            <- lib/record (3) <- cmd (4).

The few known offenders are listed, one a line, in scripts/long-functions.allow
("file:function") and scripts/file-cycles.allow ("folder: file file...",
files that may still call each other in a circle). The lists only shrink:
an entry that is no longer needed fails the check too.

Usage: check-layers.py [--src DIR] [--build DIR] [--allow DIR]
       check-layers.py --self-test FIXTURE_DIR
One line per problem and exit 1, or one summary line and exit 0.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

LIMIT = 100
LEVELS = {"lib/base": 0, "lib/arch": 0, "lib/ktrace.h": 0, "lib/tracefs": 1,
          "lib/probe": 2, "lib/capture": 2, "lib/sym": 2, "lib/kfile": 2,
          "lib/record": 3, "cmd": 4}
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "typeof",
             "__typeof__", "__attribute__", "_Alignof", "defined"}


def sources(src, exts):
    out = []
    for pat in ("lib/*", "lib/*/*", "cmd/*"):
        out += [f for f in glob.glob(os.path.join(src, pat))
                if f.endswith(exts) and os.path.isfile(f)]
    return sorted(os.path.relpath(f, src) for f in out)


def layer(path):
    """The layer a source file belongs to ('lib/probe', 'cmd'...), or None."""
    if path in LEVELS:
        return path
    d = os.path.dirname(path)
    return d if d in LEVELS else None


def read_allow(path):
    """The entries of an allowlist: {entry: line number}; '#' comments."""
    entries = {}
    if os.path.exists(path):
        for n, line in enumerate(open(path), 1):
            line = line.split("#", 1)[0].strip()
            if line:
                entries[line] = n
    return entries


def functions(text):
    """(name, first line, last line) of each body: '{' to '}' in column 0."""
    lines = text.split("\n")
    out, bad = [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"[A-Za-z_].*\)\s*\{\s*$", line):
            bad.append(i + 1)
        if line.rstrip() != "{":
            i += 1
            continue
        # the signature: back to its first line (column 0, not a ')')
        j = i - 1
        while j > 0 and (lines[j][:1] in (" ", "\t", ")")):
            j -= 1
        sig = " ".join(lines[j:i])
        names = [m for m in re.findall(r"([A-Za-z_]\w*)\s*\(", sig)
                 if m not in NOT_NAMES]
        k = i + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        out.append((names[0] if names else "?", i + 1, k + 1))
        i = k + 1
    return out, bad


def check_long(src, allow_file, problems):
    allow = read_allow(allow_file)
    seen = {}
    nfunc = 0
    for f in sources(src, (".c", ".h")):
        funcs, bad = functions(open(os.path.join(src, f), errors="replace").read())
        for n in bad:
            problems.append(f"{f}:{n}: a body opens on its signature's line: put '{{' alone "
                            "in column 0 (kernel style), where the length check sees it")
        for name, first, last in funcs:
            nfunc += 1
            key = f"{f}:{name}"
            length = last - first + 1
            seen[key] = max(seen.get(key, 0), length)
            if length > LIMIT and key not in allow:
                problems.append(f"{key} is {length} lines (limit {LIMIT}): "
                                "split it where a step has a name")
    for key, n in allow.items():
        if key not in seen:
            problems.append(f"{allow_file}:{n}: {key} no longer exists: remove it from the list")
        elif seen[key] <= LIMIT:
            problems.append(f"{allow_file}:{n}: {key} is {seen[key]} lines now: remove it from the list")
    return nfunc


def symbols(objs):
    """What each object defines and what it names undefined."""
    defs, undef = {}, collections.defaultdict(set)
    if not objs:
        return defs, undef
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        obj, rest = line.split(":", 1)
        p = rest.split()
        if len(p) == 2 and p[0] == "U":
            undef[obj].add(p[1])
        elif len(p) == 3 and p[1].isupper() and p[1] not in "UN":
            defs.setdefault(p[2], obj)
    return defs, undef


def objects(src, build, pattern):
    """The objects of build matching pattern whose source is still there
    (an old build may hold objects of files moved or removed)."""
    return sorted(o for o in glob.glob(os.path.join(build, pattern))
                  if os.path.isfile(os.path.join(src, obj_source(build, o))))


def obj_source(build, obj):
    return os.path.relpath(obj, build)[:-2] + ".c"


def shortest_cycle(nodes, edges, starts):
    """A shortest circle among the strongly connected nodes through one of
    starts, as a list whose last item is its first."""
    best = None
    for start in sorted(starts):
        prev, queue = {start: None}, [start]
        found = None
        while queue and not found:
            nxt = []
            for u in queue:
                for v in sorted(edges[u]):
                    if v == start:
                        found = u
                        break
                    if v in nodes and v not in prev:
                        prev[v] = u
                        nxt.append(v)
                if found:
                    break
            queue = nxt
        if found:
            path = [found]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            path = path[::-1] + [start]
            if best is None or len(path) < len(best):
                best = path
    return best


def sccs(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def show_cycle(path, why):
    return " -> ".join(f"{a} ({why[a, b]})" for a, b in zip(path, path[1:])) + f" -> {path[-1]}"


def check_cycles(src, build, allow_file, problems):
    objs = objects(src, build, "lib/*/*.o")
    if not objs:
        problems.append(f"no objects under {build}/lib: build first")
        return 0
    defs, undef = symbols(objs)
    allow = {}
    for entry, n in read_allow(allow_file).items():
        folder, _, files = entry.partition(":")
        allow[folder.strip()] = (set(files.split()), n)
    folders = collections.defaultdict(list)
    for o in objs:
        folders[os.path.dirname(obj_source(build, o))].append(o)
    for folder, fobjs in sorted(folders.items()):
        edges, why = collections.defaultdict(set), {}
        nodes = {os.path.basename(obj_source(build, o)) for o in fobjs}
        for o in fobjs:
            a = os.path.basename(obj_source(build, o))
            for s in sorted(undef[o]):
                d = defs.get(s)
                if d in fobjs and d != o:
                    b = os.path.basename(obj_source(build, d))
                    edges[a].add(b)
                    why.setdefault((a, b), s)
        allowed, n = allow.pop(folder, (set(), 0))
        cyclic = set()
        for comp in sccs(nodes, edges):
            cyclic |= comp
            if comp <= allowed:
                continue
            # one through a file not listed
            path = shortest_cycle(comp, edges, comp - allowed)
            problems.append(f"{folder}: files call each other in a circle: {show_cycle(path, why)}"
                            + (f" (one circle takes in {' '.join(sorted(comp))})" if len(comp) > 2 else ""))
        if allowed and not allowed <= cyclic:
            problems.append(f"{allow_file}:{n}: in {folder} only {' '.join(sorted(cyclic & allowed)) or 'no file'} "
                            f"still call each other in a circle: shrink the entry")
    for folder, (_, n) in allow.items():
        problems.append(f"{allow_file}:{n}: no folder {folder} with objects: remove it from the list")
    return len(objs)


def resolve(src, f, inc):
    for base in (os.path.dirname(f), "lib", "cmd"):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(src, p)):
            return p
    return None


def check_layers(src, build, problems):
    fedges, why = collections.defaultdict(set), {}
    nfiles = 0
    for f in sources(src, (".c", ".h")):
        mine = layer(f)
        if mine is None:
            problems.append(f"{f}: in no layer: add its folder to scripts/check-layers.py's LEVELS")
            continue
        nfiles += 1
        for n, line in enumerate(open(os.path.join(src, f), errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if not m:
                continue
            to = resolve(src, f, m.group(1))
            if to is None:
                continue  # generated (build/gen)
            theirs = layer(to)
            if theirs is None or theirs == mine:
                continue
            fedges[mine].add(theirs)
            why.setdefault((mine, theirs), f"{f} includes {m.group(1)}")
            if LEVELS[theirs] > LEVELS[mine]:
                problems.append(f"{f}:{n} -> {to}: includes a layer up ({mine} is layer "
                                f"{LEVELS[mine]}, {theirs} {LEVELS[theirs]})")
    objs = objects(src, build, "lib/*/*.o") + objects(src, build, "cmd/*.o")
    defs, undef = symbols(objs)
    for o in objs:
        f = obj_source(build, o)
        mine = layer(f)
        for s in sorted(undef[o]):
            d = defs.get(s)
            if d is None:
                continue
            to = obj_source(build, d)
            theirs = layer(to)
            if mine is None or theirs is None or theirs == mine:
                continue
            fedges[mine].add(theirs)
            why.setdefault((mine, theirs), f"{f} calls {s} of {to}")
            if LEVELS[theirs] > LEVELS[mine]:
                problems.append(f"{f} -> {to}: calls {s}, a layer up ({mine} is layer "
                                f"{LEVELS[mine]}, {theirs} {LEVELS[theirs]})")
    for comp in sccs(set(LEVELS), fedges):
        path = shortest_cycle(comp, fedges, comp)
        problems.append("folders include or call each other in a circle: " +
                        " -> ".join(f"{a} ({why[a, b]})" for a, b in zip(path, path[1:])) +
                        f" -> {path[-1]}")
    return nfiles


def run(src, build, allow_dir):
    problems = []
    nfunc = check_long(src, os.path.join(allow_dir, "long-functions.allow"), problems)
    nobj = check_cycles(src, build, os.path.join(allow_dir, "file-cycles.allow"), problems)
    nfiles = check_layers(src, build, problems)
    for p in problems:
        print(f"check-layers: {p}")
    if not problems:
        print(f"check-layers: {nfunc} functions within {LIMIT} lines or listed, "
              f"no circle between the {nobj} objects of a lib/ folder but those listed, "
              f"{nfiles} files include and call their layer or lower")
    return 1 if problems else 0


def self_test(fixture):
    """The checks fail where they must: the fixture tree has one problem of
    each kind; its objects are compiled here, and the output must be the
    fixture's expected one, word for word."""
    with tempfile.TemporaryDirectory() as build:
        for c in sources(fixture, (".c",)):
            o = os.path.join(build, c[:-2] + ".o")
            os.makedirs(os.path.dirname(o), exist_ok=True)
            subprocess.run([os.environ.get("CC", "cc"), "-c", "-O2", "-ffunction-sections",
                            "-I", os.path.join(fixture, "lib"), "-o", o,
                            os.path.join(fixture, c)], check=True)
        r = subprocess.run([sys.executable, __file__, "--src", fixture, "--build", build,
                            "--allow", fixture], capture_output=True, text=True)
    want = open(os.path.join(fixture, "expected")).read()
    if r.returncode != 1 or r.stdout != want:
        print("check-layers: self-test: the fixture's problems were not all found, or others were:")
        sys.stdout.write("".join(f"  {l}\n" for l in r.stdout.splitlines()))
        return 1
    print(f"check-layers: self-test: the {len(want.splitlines())} problems of {fixture} found")
    return 0


def main(argv):
    opts = {"--src": ".", "--build": "build", "--allow": "scripts"}
    args = list(argv)
    if args[:1] == ["--self-test"] and len(args) == 2:
        return self_test(args[1])
    while args:
        k = args.pop(0)
        if k not in opts or not args:
            print(__doc__, file=sys.stderr)
            return 2
        opts[k] = args.pop(0)
    return run(opts["--src"], opts["--build"], opts["--allow"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
