#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace latency --record: each pair as a record, read from ktrace's own
# instance (perf cannot open a synthetic event): one record a pair, the
# same count as the kernel's histogram; --threshold keeps the slow ones
# only (the histogram still has them all); -g gives the kernel stack
# where each pair ended; JSON lines; nothing left behind.
. /tests/lib.sh

if ! have_ktrace; then
	fail latrec-ktrace "no ktrace binary in the initramfs"
	exit 1
fi
SC=$TARGETS/syscaller
SL=$TARGETS/sleeper
on_exit ktrace_leftovers_remove


recs() { printf '%s\n' "$1" | grep -cE ' synthetic:ktrace_[0-9]+: lat=[0-9]+'; }

# --- every pair a record, as many as the histogram counts ---------------
expect_ok latrec-user ktrace latency -x $SL -f nap --record -- $SL 2
expect_eq latrec-user-count 6 "$(recs "$OUT")"
expect_match latrec-user-total "$OUT" 'Totals: 6 hits'
# each record's lat is at least the nap asked for (20 ms)
small=$(printf '%s\n' "$OUT" | sed -n 's/.* synthetic:ktrace_[0-9]*: lat=\([0-9]*\).*/\1/p' |
	awk '$1 < 20000')
expect_eq latrec-user-lat "" "$small"
expect_no_ktrace latrec-user-clean

# --- --threshold: only the slow ones, the histogram has them all --------
expect_ok latrec-thr ktrace latency -x $SL -f nap --record --threshold 40ms -- $SL 2
expect_eq latrec-thr-count 4 "$(recs "$OUT")"
expect_match latrec-thr-total "$OUT" 'Totals: 6 hits'
expect_no_ktrace latrec-thr-clean

# --- -g: the kernel stack where the pair ended (the system call's exit) -
expect_ok latrec-stack ktrace latency --syscall getppid --record -g -- $SC 5
expect_eq latrec-stack-count 5 "$(recs "$OUT")"
frames=$(printf '%s\n' "$OUT" | grep -cE '^	 *[0-9a-f]+ .*(syscall|svc)')
if [ "$frames" -ge 5 ]; then
	pass latrec-stack-frames
else
	fail latrec-stack-frames "$frames frames of the system call path"
	_show "$OUT" 30
fi
expect_no_ktrace latrec-stack-clean

# --- JSON: one object a record, then the distribution -------------------
expect_ok latrec-json ktrace --json latency --syscall getppid --record -- $SC 3
n=$(printf '%s\n' "$OUT" | grep -c '"event": "synthetic:ktrace_[0-9]*", "fields": {"lat": [0-9]*')
expect_eq latrec-json-count 3 "$n"
expect_match latrec-json-hist "$OUT" '"hits": 3'
expect_no_ktrace latrec-json-clean

# --- usage ----------------------------------------------------------------
expect_exit latrec-usage-thr 2 ktrace latency --syscall getppid --threshold 1ms -- $SC 1
expect_exit latrec-usage-bad 2 ktrace latency --syscall getppid --record --threshold 0x10 -- $SC 1
expect_no_ktrace latrec-usage-clean
