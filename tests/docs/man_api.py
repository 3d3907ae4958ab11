#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every function libktrace exports is documented in a man3 page, and every
function a page documents exists, with the prototype of lib/ktrace.h.

The exported functions are read from the built shared library
(nm -D --defined-only); the prototypes from lib/ktrace.h; a page documents
the functions of its SYNOPSIS (mdoc: .Ft TYPE then .Fn NAME "ARG" ..., or
.Fo NAME / .Fa "ARG" / .Fc). Each function is in exactly one page, whose
NAME section lists it (.Nm: what `man FUNCTION` and apropos find). A
struct or enum a page shows in a literal block (.Bd -literal) has the
members of its definition in lib/ktrace.h. The code of each page's
EXAMPLES compiles ($CC -fsyntax-only, warnings are errors) against
lib/ktrace.h alone: a whole program as it is, a function as a file's
function, other lines as the body of a function that has `tfs` and `pid`.

Usage: man_api.py SRCDIR SHLIB -> "man_api: N functions in M pages" and
exit 0, or one line per mismatch and exit 1.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

src = sys.argv[1] if len(sys.argv) > 1 else "."
shlib = sys.argv[2] if len(sys.argv) > 2 else None
if not shlib:
    libs = sorted(glob.glob(os.path.join(src, "build", "libktrace.so.*")))
    if not libs:
        sys.exit("man_api: no build/libktrace.so.* (make it first)")
    shlib = libs[0]

bad = []


def norm(s):
    """One spelling of a C declaration: single spaces, none around '*',
    '(', ')' and ','."""
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*([*(),\[\]])\s*", r"\1", s)
    return s


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


# --- the library: what it exports, what its header declares
out = subprocess.run(["nm", "-D", "--defined-only", shlib],
                     capture_output=True, text=True, check=True).stdout
exported = {l.split()[2].split("@")[0] for l in out.splitlines()
            if len(l.split()) == 3 and l.split()[1] == "T"}

header = strip_comments(open(os.path.join(src, "lib", "ktrace.h")).read())
header = re.sub(r"^\s*#.*$", "", header, flags=re.M)
header = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", header, flags=re.S)
protos = {}
for m in re.finditer(r"([A-Za-z_][\w\s\*]*?)\b(ktrace_\w+)\s*\(([^;{}]*?)\)\s*;",
                     header):
    ret, name, args = m.group(1), m.group(2), m.group(3)
    if "typedef" in ret:
        continue
    ret = ret.split("}")[-1]
    protos[name] = norm("%s %s(%s)" % (ret, name, args))

types = {}
for m in re.finditer(r"\b(struct|enum)\s+(ktrace_\w+)\s*\{(.*?)\}\s*;", header,
                     re.S):
    types["%s %s" % (m.group(1), m.group(2))] = [
        norm(x) for x in re.split(r"[;,]", m.group(3)) if x.strip()]


# --- the pages
def section(lines, name):
    """The lines of section name (.Sh NAME) up to the next .Sh."""
    out, on = [], False
    for l in lines:
        if l.startswith(".Sh "):
            on = l[4:].strip().strip('"') == name
            continue
        if on:
            out.append(l)
    return out


def args_of(line):
    """The arguments of one mdoc macro line, quotes honoured."""
    return [a[1:-1] if a.startswith('"') else a
            for a in re.findall(r'"[^"]*"|\S+', line)]


def synopsis(page, lines):
    """{function: normalized prototype} of a SYNOPSIS."""
    found, ft, fo = {}, None, None
    for l in section(lines, "SYNOPSIS"):
        a = args_of(l)
        if not a:
            continue
        if a[0] == ".Ft":
            ft = " ".join(a[1:])
        elif a[0] == ".Fn":
            found[a[1]] = norm("%s %s(%s)" % (ft or "", a[1],
                                              ", ".join(a[2:])))
            ft = None
        elif a[0] == ".Fo":
            fo = [a[1]]
        elif a[0] == ".Fa" and fo is not None:
            fo += a[1:]
        elif a[0] == ".Fc" and fo is not None:
            found[fo[0]] = norm("%s %s(%s)" % (ft or "", fo[0],
                                               ", ".join(fo[1:])))
            fo, ft = None, None
    return found


documented = {}
npages = 0
for page in sorted(glob.glob(os.path.join(src, "man", "*.3"))):
    pname = os.path.basename(page)
    lines = open(page).read().splitlines()
    npages += 1
    syn = synopsis(pname, lines)
    names = {a for l in section(lines, "NAME") if l.startswith(".Nm ")
             for a in args_of(l)[1:] if a != ","}
    for f, proto in sorted(syn.items()):
        if f in documented:
            bad.append("%s: %s is documented in %s too" %
                       (pname, f, documented[f]))
        documented[f] = pname
        if f not in exported:
            bad.append("%s documents %s, which libktrace does not export" %
                       (pname, f))
        elif f not in protos:
            bad.append("%s: %s is not declared in lib/ktrace.h" % (pname, f))
        elif protos[f] != proto:
            bad.append("%s: %s is\n    %s\n  in lib/ktrace.h, not\n    %s" %
                       (pname, f, protos[f], proto))
        if f not in names:
            bad.append("%s: %s is not in its NAME section" % (pname, f))
    for n in sorted(names):
        if n.startswith("ktrace_") and n not in syn:
            bad.append("%s: NAME lists %s, which its SYNOPSIS lacks" %
                       (pname, n))
    # struct/enum definitions shown as code: as the header has them
    text = "\n".join(lines)
    for block in re.findall(r"^\.Bd -literal[^\n]*\n(.*?)^\.Ed", text,
                            re.S | re.M):
        block = block.replace("\\e", "\\").replace("\\&", "")
        block = strip_comments(block)
        for m in re.finditer(r"\b(struct|enum)\s+(ktrace_\w+)\s*\{(.*?)\}",
                             block, re.S):
            key = "%s %s" % (m.group(1), m.group(2))
            members = [norm(x) for x in re.split(r"[;,]", m.group(3))
                       if x.strip()]
            if key not in types:
                bad.append("%s shows %s, which lib/ktrace.h does not define" %
                           (pname, key))
            elif types[key] != members:
                bad.append("%s: %s differs from lib/ktrace.h:\n    %s\n  not\n    %s" %
                           (pname, key, "; ".join(types[key]),
                            "; ".join(members)))


def example_source(text):
    """The EXAMPLES code of a page as one C file."""
    m = re.search(r"^\.Sh EXAMPLES\n(.*?)(?=^\.Sh )", text, re.S | re.M)
    if not m:
        return None
    top, frags = [], []
    for b in re.findall(r"^\.Bd -literal[^\n]*\n(.*?)^\.Ed", m.group(1),
                        re.S | re.M):
        b = b.replace("\\e", "\\").replace("\\&", "")
        if b.startswith("#include") or "int main(" in b:
            top.append(b)
            continue
        if b.startswith("static "):
            end = b.index("\n}\n") + 3
            top.append(b[:end])
            b = b[end:]
        if b.strip():
            frags.append(b)
    src = ["#define _GNU_SOURCE", "#include <err.h>", "#include <stdio.h>",
           "#include <stdlib.h>", "#include <time.h>", "#include <unistd.h>",
           "#include <ktrace.h>"] + top
    for i, b in enumerate(frags):
        src.append("int example%d(struct ktrace_tfs *tfs, int pid)\n{\n%s"
                   "\treturn 0;\n}" % (i, b))
    return "\n".join(src) + "\n"


cc = os.environ.get("CC", "cc")
tmp = tempfile.mkdtemp(prefix="man_api.")
shutil.copy(os.path.join(src, "lib", "ktrace.h"), tmp)
nex = 0
for page in sorted(glob.glob(os.path.join(src, "man", "*.3"))):
    code = example_source(open(page).read())
    if code is None:
        continue
    cfile = os.path.join(tmp, os.path.basename(page) + ".c")
    open(cfile, "w").write(code)
    r = subprocess.run([cc, "-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra",
                        "-Werror", "-Wno-unused-parameter",
                        "-Wno-unused-function", "-I", tmp, cfile],
                       capture_output=True, text=True)
    nex += 1
    if r.returncode:
        bad.append("%s: its EXAMPLES do not compile:\n%s" %
                   (os.path.basename(page), r.stderr.strip()))
shutil.rmtree(tmp)

for f in sorted(exported - set(documented)):
    bad.append("%s is exported but in no man3 page's SYNOPSIS" % f)

for b in bad:
    print("man_api: " + b)
if bad:
    sys.exit(1)
print("man_api: %d exported functions, each in one of %d man3 pages with "
      "its prototype; the examples of %d pages compile" %
      (len(exported), npages, nex))
