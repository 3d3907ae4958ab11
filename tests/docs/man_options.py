#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every option the code accepts is in its man page, and every option a page
documents exists in the code.

The code's options are read from cmd/*.c: the long names of each
`struct option` table and the letters of the getopt_long() option strings
of the same file. The
page of cmd/NAME.c is man/ktrace-NAME.1 (cmd/ktrace.c: man/ktrace.1); a
page names an option as mdoc does: `Fl -long` and `Fl x`.

Usage: man_options.py SRCDIR -> "man_options: N commands, M options
checked" and exit 0, or one line per mismatch and exit 1.
"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "."
# commands whose options live in a shared page or have none of their own
PAGE = {"ktrace": "ktrace.1"}
SKIP = {"capture", "inline", "profile", "flamegraph", "perfetto", "workload", "main",
        "histview", "recipe"}

bad = []
ncmd = nopt = 0
for f in sorted(os.listdir(os.path.join(src, "cmd"))):
    if not f.endswith(".c") or f[:-2] in SKIP:
        continue
    name = f[:-2]
    text = open(os.path.join(src, "cmd", f)).read()
    tables = re.findall(r"static const struct option \w+\[\] = \{(.*?)\n\};", text, re.S)
    if not tables:
        continue
    longs, vals = set(), set()
    for t in tables:
        # the value: a letter ('M') or a constant (OPT_SIZE) for a
        # long-only option
        for lname, val in re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*\w+,\s*NULL,\s*(\'.\'|\w+)\s*\}', t):
            longs.add(lname)
            vals.add(val)
    optstrings = "".join(re.findall(r'getopt_long\([^,]+,[^,]+,\s*"([^"]*)"', text))
    # every letter of the option strings is accepted
    shorts = set(optstrings.replace(":", "").replace("+", ""))
    page = os.path.join(src, "man", PAGE.get(name, "ktrace-%s.1" % name))
    if not os.path.exists(page):
        bad.append("%s: no man page %s" % (f, page))
        continue
    man = open(page).read()
    documented_long = set(re.findall(r"\bFl -([a-z][a-z0-9-]*)", man))
    documented_short = set(re.findall(r"\bFl ([A-Za-z])\b", man))
    ncmd += 1
    for o in sorted(longs):
        nopt += 1
        if o not in documented_long:
            bad.append("%s: --%s is not in %s" % (f, o, page))
    for c in sorted(shorts):
        nopt += 1
        if c not in documented_short:
            bad.append("%s: -%s is not in %s" % (f, c, page))
    for o in sorted(documented_long - longs):
        bad.append("%s documents --%s, which cmd/%s does not accept" % (page, o, f))
    for c in sorted(documented_short - shorts):
        bad.append("%s documents -%s, which cmd/%s does not accept" % (page, c, f))
for b in bad:
    print("man_options: " + b)
print("man_options: %d commands, %d options checked, %d mismatches" % (ncmd, nopt, len(bad)))
sys.exit(1 if bad else 0)
