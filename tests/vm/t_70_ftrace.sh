#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace ftrace, the function tracer in ktrace's own instance: a known
# path, -- CMD and -p exclude a busy process, -f globs and -n, a typo's
# "did you mean" (exit 2), --count, --json; after each run no instance
# is left and the top instance's tracer and filter files are as they
# were. (t_71: function_graph.)
. /tests/lib.sh

KT_T=kt70
if ! have_ktrace; then
	fail ftrace-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/$KT_T
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller
on_exit _kill_bg
on_exit ktrace_leftovers_remove
on_exit "echo nop > $T/current_tracer; echo > $T/set_graph_function; echo > $T/set_ftrace_filter"

# the top instance's settings, to compare after each run
top_state() {
	echo "$(cat $T/current_tracer) $(grep -v '^#' $T/set_ftrace_filter | wc -l) $(grep -v '^#' $T/set_graph_function | wc -l) $(cat $T/max_graph_depth) $(cat $T/set_ftrace_pid) $(cat $T/tracing_on) $(cat $T/options/function-fork)"
}
TOP0=$(top_state)

clean() {
	expect_no_ktrace "$1-clean"
	expect_eq "$1-top" "$TOP0" "$(top_state)"
}

# getppid's function: the syscall wrapper where ftrace can trace it
# (Debian's x86-64 kernels cannot: __x64_sys_* are notrace there)
for F in $GETPPID __do_sys_getppid; do
	grep -qx "$F" $T/available_filter_functions && break
done
# and the name it is shown by (__do_sys_getppid is inlined into the
# wrapper: one address, two names)
N="($F|$GETPPID)"

$SC 1 0 loop > $D/busy.out 2>&1 &
bgpids="$bgpids $!"
BUSY=$!

# --- function: a known path, the command only ---------------------------
expect_ok ftrace-func ktrace ftrace -f $F -- $SC 50
expect_eq ftrace-func-count 50 "$(printf '%s\n' "$OUT" | grep -cE "\] [0-9.]*: $N <- ")"
expect_not_contains ftrace-func-not-busy "$OUT" " $BUSY ["
expect_match ftrace-func-lost "$OUT" "^ktrace: [0-9]+ records, 0 lost$"
clean ftrace-func

# -p: that process's calls only
expect_ok ftrace-pid ktrace ftrace -f $F -p $BUSY -d 1
expect_match ftrace-pid-seen "$OUT" "^syscaller $BUSY \[[0-9]+\] [0-9.]+: $N <- "
expect_eq ftrace-pid-only "" "$(printf '%s\n' "$OUT" | grep ': ' | grep -v "^ktrace: " | grep -v "^syscaller $BUSY ")"
clean ftrace-pid

# -f glob, -n: vfs_* without vfs_write
expect_ok ftrace-notrace ktrace ftrace -f 'vfs_*' -n vfs_write -- dd if=/proc/version of=/dev/null bs=64 count=1
expect_match ftrace-notrace-read "$OUT" ": vfs_read <- "
expect_not_contains ftrace-notrace-write "$OUT" ": vfs_write <- "
clean ftrace-notrace

# a typo: did you mean, exit 2, nothing made
expect_exit ftrace-typo 2 ktrace ftrace -f vfs_raed -- $SC 1
expect_contains ftrace-typo-mean "$OUT" "did you mean vfs_read"
expect_exit ftrace-typo-glob 2 ktrace ftrace -f 'vfs_nosuch*' -- $SC 1
clean ftrace-typo

# --count and --json
expect_ok ftrace-count ktrace ftrace --count -f $F -- $SC 30
expect_match ftrace-count-row "$OUT" "^ +30  $N$"
expect_ok ftrace-json ktrace --json ftrace -f $F -- $SC 5
expect_eq ftrace-json-calls 5 "$(printf '%s\n' "$OUT" | grep -oE "\"function\": *\"$N\"" | wc -l)"
expect_contains ftrace-json-lost "$OUT" '"lost"'
clean ftrace-json

# -o, then report: the same lines as live, --count kept with the file
expect_ok ftrace-o ktrace ftrace --count -f $F -o $D/f.kt -- $SC 30
expect_match ftrace-o-says "$OUT" "^ktrace: [0-9]+ records, 0 lost; wrote [0-9]+ bytes to $D/f.kt$"
expect_ok ftrace-o-report ktrace report -i $D/f.kt
expect_match ftrace-o-report-row "$OUT" "^ +30  $N$"
clean ftrace-o

# --- SIGKILL: the next start removes the killed one's instance --------
ktrace ftrace -f $F -p $BUSY > /dev/null 2>&1 &
kpid=$!
if wait_for 60 sh -c "grep -q function $T/instances/ktrace_*/current_tracer"; then
	kill -9 $kpid
	wait $kpid 2>/dev/null
	expect_ok ftrace-kill-inst-next ktrace ftrace -f $F -- $SC 1
	clean ftrace-kill-inst
else
	fail ftrace-kill-inst-started "no instance with the function tracer after 60 s"
	kill -9 $kpid
fi
