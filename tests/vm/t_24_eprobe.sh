#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Event probes (e:): probe add by the tracepoint's field names with the
# string rules checked first; members through BTF (rqtp->tv_nsec); record of an inline event probe on
# syscalls:sys_enter_openat printing the real path a command opens (live,
# -o + report, --json), read from ktrace's own instance (perf delivers no
# eprobe record); probe list/del with another tool's eprobe untouched; the
# dead-owner sweep after a SIGKILL; nothing left behind.
. /tests/lib.sh

if ! have_ktrace; then
	fail eprobe-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt24
mkdir -p $D
printf 'x\n' > $D/kt24-file
kt24_cleanup() {
	local ev
	for ev in $(sed -n 's/^e:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|kt24*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
	ktrace_leftovers_remove
	rm -rf $D
}
on_exit kt24_cleanup
dyn() { md5sum < $T/dynamic_events | cut -d' ' -f1; }

# Another tool's event probe, made straight through tracefs.
tfs_write dynamic_events 'e:kt24o/op syscalls.sys_enter_openat fn=+0($filename):ustring' append
others=$(grep '^e:kt24o/' $T/dynamic_events)

# --- probe add: by field name; the rules before any write. --------------
before=$(dyn)
expect_exit eprobe-string-refused 1 ktrace probe add 'e:syscalls/sys_enter_openat filename:string'
expect_contains eprobe-string-refused-why "$OUT" "user-space pointer"
expect_contains eprobe-string-refused-caret "$OUT" "                                     ^"
expect_exit eprobe-nofield 1 ktrace probe add 'e:syscalls/sys_enter_openat nope'
expect_contains eprobe-nofield-why "$OUT" "has no field 'nope'"
expect_eq eprobe-refused-unchanged "$before" "$(dyn)"
expect_ok eprobe-add ktrace probe add 'e:syscalls/sys_enter_openat filename flags'
expect_match eprobe-add-def "$(cat $T/dynamic_events)" \
	'^e:ktrace/sys_enter_openat syscalls.sys_enter_openat filename=\+0\(\$filename\):ustring flags=\$flags:'
# the kernel prints the path: the definition is right
echo > $T/trace
ktrace enable ktrace:sys_enter_openat > /dev/null 2>&1
cat $D/kt24-file > /dev/null
ktrace disable ktrace:sys_enter_openat > /dev/null 2>&1
expect_match eprobe-kernel-trace "$(cat $T/trace)" "sys_enter_openat: .*filename=\"$D/kt24-file\""
echo > $T/trace

# --- probe list: the kind, ours and the other's. -------------------------
expect_ok eprobe-list ktrace probe list
expect_match eprobe-list-ours "$OUT" '^eprobe +ktrace:sys_enter_openat +syscalls.sys_enter_openat +filename='
expect_match eprobe-list-other "$OUT" "^eprobe +kt24o:op .*not ktrace's"
expect_ok eprobe-list-json ktrace probe list --json 'ktrace:*'
expect_contains eprobe-list-json-kind "$OUT" '"kind": "eprobe"'

# --- record with the probe made above, and inline (live, -o, --json). ---
expect_ok eprobe-record ktrace record -e ktrace:sys_enter_openat -- cat $D/kt24-file
expect_match eprobe-record-path "$OUT" "ktrace:sys_enter_openat: .*filename=\"$D/kt24-file\""
expect_ok eprobe-inline ktrace record -o $D/rec.kt -e 'syscalls:sys_enter_openat filename:ustring' -- cat $D/kt24-file
expect_match eprobe-inline-count "$OUT" "records captured; ktrace_[0-9]+:sys_enter_openat: 1\$"
expect_ok eprobe-report ktrace report -i $D/rec.kt
expect_match eprobe-report-path "$OUT" "ktrace_[0-9]+:sys_enter_openat: .*filename=\"$D/kt24-file\""
expect_ok eprobe-json ktrace record --json -e 'syscalls:sys_enter_openat filename' -- cat $D/kt24-file
expect_contains eprobe-json-path "$OUT" "\"filename\": \"$D/kt24-file\""
expect_match eprobe-json-comm "$OUT" '"comm": "cat"'
expect_no_ktrace eprobe-record-clean

# --- stat cannot count an eprobe through perf: said; hist counts it. ----
expect_exit eprobe-stat-refused 1 ktrace stat -e 'syscalls:sys_enter_openat filename' -- true
expect_contains eprobe-stat-why "$OUT" "perf cannot count"
expect_ok eprobe-hist ktrace hist -e 'syscalls:sys_enter_openat filename' -k filename -- cat $D/kt24-file
expect_match eprobe-hist-path "$OUT" "$D/kt24-file +1"
expect_no_ktrace eprobe-stat-hist-clean

# --- through BTF: members of the struct a system call's pointer points
# to, in user memory (+u). sleeper naps 20, 45 and 100 ms with
# clock_nanosleep: those are the tv_nsec the kernel must read. ----------
expect_ok eprobe-btf ktrace record \
	-e 'syscalls:sys_enter_clock_nanosleep rqtp->tv_nsec s=rqtp->tv_sec' \
	-- $TARGETS/sleeper 1
for ns in 20000000 45000000 100000000; do
	expect_match eprobe-btf-$ns "$OUT" \
		"sleeper +[0-9]+ .*:sys_enter_clock_nanosleep: .*rqtp_tv_nsec=$ns s=0( |\$)"
done
before=$(dyn)
expect_exit eprobe-btf-nomember 1 ktrace record \
	-e 'syscalls:sys_enter_clock_nanosleep rqtp->tv_nsc' -- true
expect_contains eprobe-btf-nomember-why "$OUT" \
	"no field 'tv_nsc' (did you mean 'tv_nsec'"
expect_eq eprobe-btf-refused-unchanged "$before" "$(dyn)"
expect_no_ktrace eprobe-btf-clean

# --- --strings: the string arguments of openat, unlinkat, execve. --------
printf 'y\n' > $D/kt24-gone
expect_ok eprobe-strings ktrace record --strings -e 'syscalls:sys_enter_openat' \
	-e 'syscalls:sys_enter_unlinkat' -e 'syscalls:sys_enter_execve' -e 'syscalls:sys_enter_getppid' \
	-- $TARGETS/pathcalls $D/kt24-file $D/kt24-gone /bin/true
expect_match eprobe-strings-openat "$OUT" "pathcalls +[0-9]+ .*:sys_enter_openat: .*filename=\"$D/kt24-file\""
expect_match eprobe-strings-unlinkat "$OUT" "pathcalls +[0-9]+ .*:sys_enter_unlinkat: .*pathname=\"$D/kt24-gone\""
expect_match eprobe-strings-execve "$OUT" ":sys_enter_execve: .*filename=\"/bin/true\""
expect_match eprobe-strings-execve-cmd "$OUT" ":sys_enter_execve: .*filename=\"$TARGETS/pathcalls\""
expect_match eprobe-strings-other-args "$OUT" ":sys_enter_unlinkat: .*dfd=.* flag=0"
expect_eq eprobe-strings-gone "" "$(ls $D/kt24-gone 2>/dev/null)"
expect_no_ktrace eprobe-strings-clean

# --- probe del: ours by glob, never the other tool's. --------------------
expect_ok eprobe-del ktrace probe del '*'
expect_eq eprobe-del-ours "" "$(grep '^e:ktrace/' $T/dynamic_events)"
expect_eq eprobe-del-others-kept "$others" "$(grep '^e:kt24o/' $T/dynamic_events)"

# --- SIGKILL: the next ktrace that makes probes sweeps the eprobe group
# and the instance of the dead one. -----------------------------------------
ktrace record -a -e 'syscalls:sys_enter_openat filename' > /dev/null 2> $D/k.err &
p=$!
bgpids="$bgpids $p"
if wait_for 20 grep -q "^e:ktrace_$p/" $T/dynamic_events &&
   wait_for 20 test -d $T/instances/ktrace_$p; then
	kill -KILL $p
	wait $p 2>/dev/null
	ktrace record -e 'syscalls:sys_enter_openat filename' -- true > /dev/null 2>&1
	expect_eq eprobe-sigkill-swept "" "$(grep "ktrace_$p/" $T/dynamic_events)"
	expect_eq eprobe-sigkill-inst-gone "" "$(ls $T/instances | grep "ktrace_$p")"
else
	fail eprobe-sigkill-start "ktrace record -a never made its eprobe"
	_show "$(cat $D/k.err)"
fi
expect_eq eprobe-others-untouched "$others" "$(grep '^e:kt24o/' $T/dynamic_events)"
echo '-:kt24o/op' >> $T/dynamic_events
expect_no_ktrace eprobe-end-clean
