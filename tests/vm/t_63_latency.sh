#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace latency: known durations (a user function sleeping 20, 45 and 100
# ms) in their log2 buckets with the maximum within the timer's slack, a
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
case $(uname -m) in
aarch64) GETPPID=__arm64_sys_getppid ;;
*) GETPPID=__x64_sys_getppid ;;
esac

kt63_cleanup() {
	for i in $(ls $T/instances | grep '^ktrace_'); do rmdir $T/instances/$i; done
	for s in $(sed -n 's/^s:synthetic\/\(ktrace_[^ ]*\) .*/\1/p' $T/dynamic_events); do
		echo "!$s" >> $T/synthetic_events
	done
	for ev in $(sed -n 's/^[^:]*:\(ktrace_[0-9][^ ]*\) .*/\1/p' $T/dynamic_events); do
		echo "-:$ev" >> $T/dynamic_events
	done
}
on_exit kt63_cleanup

expect_clean() {
	local left
	left=$(ls $T/instances 2>/dev/null | grep '^ktrace_')
	left="$left$(grep -E '^[^ ]*:(synthetic/)?ktrace_[0-9]' $T/dynamic_events)"
	if [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "left behind: $left"
	fi
}

bucket() {
	printf '%s\n' "$OUT" | grep -F "$1 " | awk '{ print $3; exit }'
}

# --- a user function's known durations ----------------------------------
expect_ok lat-user ktrace latency -x $SL -f nap -- $SL 3
expect_eq lat-user-20ms 3 "$(bucket '(16K, 32K]')"
expect_eq lat-user-45ms 3 "$(bucket '(32K, 64K]')"
expect_eq lat-user-100ms 3 "$(bucket '(64K, 128K]')"
expect_match lat-user-total "$OUT" 'Totals: 9 hits'
max=$(printf '%s\n' "$OUT" | sed -n 's/^max \([0-9.]*\) ms: pid [0-9]* on CPU [0-9]*$/\1/p')
case $max in
1[0-2][0-9].*) pass lat-user-max ;;
*) fail lat-user-max "max '$max' ms, expected 100 ms plus slack"; _show "$OUT" ;;
esac
expect_clean lat-user-clean

# --- a system call, a kernel function: exact pair counts ----------------
expect_ok lat-syscall ktrace latency --syscall getppid -- $SC 200
expect_match lat-syscall-total "$OUT" 'Totals: 200 hits'
expect_contains lat-syscall-max "$OUT" "max "
expect_clean lat-syscall-clean

expect_ok lat-func ktrace latency -f $GETPPID -- $SC 150
expect_match lat-func-total "$OUT" 'Totals: 150 hits'
expect_clean lat-func-clean

expect_ok lat-syscall-all ktrace latency --syscall all -k id.syscall -- $SC 50
expect_match lat-syscall-all-name "$OUT" '^id: sys_getppid:'
expect_clean lat-syscall-all-clean

# --buckets: linear microseconds
expect_ok lat-buckets ktrace latency -x $SL -f nap --buckets 50000 -- $SL 1
expect_match lat-buckets-row "$OUT" '^\[100000, 150000\) +1 '
expect_clean lat-buckets-clean

# --- JSON, parsed on the host -------------------------------------------
json=$(ktrace --json latency --syscall getppid -- $SC 20)
echo "KTRACE-JSON lat-json $json"
expect_contains lat-json-unit "$json" '"unit": "usecs"'
expect_contains lat-json-max "$json" '"max": {"usecs": '
expect_clean lat-json-clean
