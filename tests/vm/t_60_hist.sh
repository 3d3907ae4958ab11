#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace hist: exact counts of a known workload (a second process's events
# not counted, -- CMD and -p), log2 buckets of known read sizes, .sym names
# in kallsyms, .syscall names, the stack key, an inline kprobe as the
# source, the total without keys, and nothing left in tracefs after each
# run. (t_65: intervals, drops, errors, JSON.)
. /tests/lib.sh

if ! have_ktrace; then
	fail hist-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt60
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller

on_exit _kill_bg

# --- exact counts of the command only, with another process busy -------
$SC 100 0 loop > /dev/null 2>&1 &
bgpids="$bgpids $!"
expect_ok hist-cmd ktrace hist -e raw_syscalls:sys_enter -k id.syscall -- $SC 1000
expect_eq hist-cmd-exact 1000 "$(row_count sys_getppid)"
expect_contains hist-cmd-totals "$OUT" "Totals:"
expect_no_ktrace hist-cmd-clean

# -p: the processes named, until they end
$SC 700 0 wait > /dev/null 2>&1 &
wpid=$!
bgpids="$bgpids $wpid"
ktrace hist -p $wpid -e raw_syscalls:sys_enter -k id.syscall > $D/p.out 2>&1 &
kpid=$!
wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/raw_syscalls/sys_enter/trigger"
sleep 0.5
kill -USR1 $wpid
wait $kpid
expect_eq hist-pid-exit 0 $?
OUT=$(cat $D/p.out)
expect_eq hist-pid-exact 700 "$(row_count sys_getppid)"
expect_no_ktrace hist-pid-clean

# no key: one total; an inline kprobe as the source
expect_ok hist-kprobe-total ktrace hist -e "kprobe:$GETPPID" -- $SC 500
expect_match hist-kprobe-total-hits "$OUT" "Totals: 500 hits"
expect_no_ktrace hist-kprobe-clean

# --- log2 buckets: reads of 1, 100 and 5000 bytes -----------------------
expect_ok hist-log2 ktrace hist -e syscalls:sys_exit_read -k ret.log2 \
	--filter 'ret > 0' -- sh -c '
		dd if=/dev/zero of=/dev/null bs=1 count=3 2>/dev/null
		dd if=/dev/zero of=/dev/null bs=100 count=5 2>/dev/null
		dd if=/dev/zero of=/dev/null bs=5000 count=2 2>/dev/null'
expect_eq hist-log2-1 3 "$(bucket '[0, 1]')"
expect_eq hist-log2-100 5 "$(bucket '(64, 128]')"
expect_eq hist-log2-5000 2 "$(bucket '(4K, 8K]')"
expect_match hist-log2-bars "$OUT" '\(64, 128\] +5 \|@+ *\|'
# the empty buckets between are drawn, as bpftrace does
expect_match hist-log2-gap "$OUT" '\(128, 256\] +0 \|'
expect_no_ktrace hist-log2-clean

expect_ok hist-buckets ktrace hist -e syscalls:sys_exit_read -k ret.buckets=100 \
	--filter 'ret > 0' -- sh -c 'dd if=/dev/zero of=/dev/null bs=150 count=4 2>/dev/null'
expect_match hist-buckets-row "$OUT" '\[100, 200\) +4 \|@+'

# --- symbols, system call names, stacks ---------------------------------
expect_ok hist-sym ktrace hist -e kmem:kmalloc -k call_site.sym -v bytes_req -d 1 \
	-s bytes_req-desc
syms=$(printf '%s\n' "$OUT" | awk 'NR > 3 && NF == 3 && $2 ~ /^[0-9]+$/ { print $1 }' | head -n 5)
bad=
n=0
for s in $syms; do
	n=$((n + 1))
	grep -q " [tTwW] $s\$" /proc/kallsyms || grep -q " [tTwW] $s	" /proc/kallsyms ||
		bad="$bad $s"
done
expect_ne hist-sym-some 0 "$n"
expect_eq hist-sym-kallsyms "" "$bad"

expect_ok hist-syscall ktrace hist -e raw_syscalls:sys_enter -k common_pid.execname,id.syscall -- $SC 50
expect_match hist-syscall-name "$OUT" 'syscaller \[[0-9]+\] +sys_getppid +50'

expect_ok hist-stack ktrace hist -e kmem:kmalloc -k stack -d 1
frame=$(printf '%s\n' "$OUT" | sed -n 's/^        \([A-Za-z_][A-Za-z0-9_.]*\)+0x.*/\1/p' | head -n 1)
expect_ne hist-stack-frame "" "$frame"
if grep -q " $frame\$" /proc/kallsyms; then pass hist-stack-kallsyms; else
	fail hist-stack-kallsyms "frame '$frame' not in kallsyms"; fi

