#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace latency: known durations (a user function sleeping 20, 45 and 100
# ms) in the log2 buckets the program's own clock puts them in, the maximum
# between the longest asked and the longest seen, a
# system call's and a kernel function's latency counted exactly, all system
# calls split by name, the worst case line, JSON (parsed on the host), and
# nothing left: no instance, synthetic event or inline probe.
. /tests/lib.sh

if ! have_ktrace; then
	fail lat-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

SC=$TARGETS/syscaller
SL=$TARGETS/sleeper

on_exit ktrace_leftovers_remove

# --- a user function's known durations ----------------------------------
# The sleeper prints each nap as it saw it ("nap USECS", around the call,
# so the probes' own time and any preemption around them included): the
# kernel's measure of a nap lies between what was asked and that. Bucket
# by bucket (the kernel's log2 bucket (H/2, H]), the kernel has at least as
# many naps at or below H as the program (exact on an idle machine, and
# whatever the load did to the sleeps), and at most as many as were asked
# for at or below H: none below 16K, 3 up to 32K, 6 up to 64K.
D=/tmp/kt63
mkdir -p $D
on_exit "rm -rf $D"
expect_ok lat-user ktrace latency -x $SL -f nap -- sh -c "$SL 3 > $D/naps"
expect_eq lat-user-naps 9 "$(grep -c '^nap ' $D/naps)"
{
	printf '%s\n' "$OUT" | awk '/^[[(].* [0-9]+ \|/ && $3 > 0 {
		h = $2; sub(/]$/, "", h); m = 1
		if (h ~ /K$/) { m = 1024; sub(/K$/, "", h) }
		print h * m, "1k", $3; print h * m, "3c", 0 }'
	awk '/^nap / { p = 1; while (p < $2) p *= 2; print p, "1p", 1; print p, "3c", 0 }' $D/naps
	printf '16384 2a 0\n32768 2a 3\n65536 2a 6\n'
} | sort -k1,1n -k2,2 > $D/cmp
bad=$(awk '$2 == "1k" { k += $3 } $2 == "1p" { p += $3 }
	$2 == "2a" && k > $3 { print "more than " $3 " at or below " $1 }
	$2 == "3c" && k < p { print "fewer than the program at or below " $1 }' $D/cmp | sort -u)
expect_eq lat-user-buckets "" "$bad"
[ -n "$bad" ] && _show "$OUT$(cat $D/naps)" 40
expect_match lat-user-total "$OUT" 'Totals: 9 hits'
# the worst: at least the longest nap asked (100 ms), at most the longest
# the program saw
maxus=$(printf '%s\n' "$OUT" | sed -n 's/^max \([0-9]*\)\.\([0-9]*\) ms: pid [0-9]* on CPU [0-9]*$/\1\2/p')
seen=$(awk '/^nap / && $2 > m { m = $2 } END { print m }' $D/naps)
if [ -n "$maxus" ] && [ "${maxus}0" -ge 100000 ] && [ "${maxus}0" -le "$((seen + 10))" ]; then
	pass lat-user-max
else
	fail lat-user-max "max '${maxus}0' us, the longest nap seen $seen us"; _show "$OUT"
fi
expect_no_ktrace lat-user-clean

# --- a system call, a kernel function: exact pair counts ----------------
expect_ok lat-syscall ktrace latency --syscall getppid -- $SC 200
expect_match lat-syscall-total "$OUT" 'Totals: 200 hits'
expect_contains lat-syscall-max "$OUT" "max "
expect_no_ktrace lat-syscall-clean

expect_ok lat-func ktrace latency -f $GETPPID -- $SC 150
expect_match lat-func-total "$OUT" 'Totals: 150 hits'
expect_no_ktrace lat-func-clean

expect_ok lat-syscall-all ktrace latency --syscall all -k id.syscall -- $SC 50
expect_match lat-syscall-all-name "$OUT" '^id: sys_getppid:'
expect_no_ktrace lat-syscall-all-clean

# --buckets: linear microseconds
expect_ok lat-buckets ktrace latency -x $SL -f nap --buckets 50000 -- $SL 1
expect_match lat-buckets-row "$OUT" '^\[100000, 150000\) +1 '
expect_no_ktrace lat-buckets-clean

# --- JSON, parsed on the host -------------------------------------------
json=$(ktrace --json latency --syscall getppid -- $SC 20)
echo "KTRACE-JSON lat-json $json"
expect_contains lat-json-unit "$json" '"unit": "usecs"'
expect_contains lat-json-max "$json" '"max": {"usecs": '
expect_no_ktrace lat-json-clean
