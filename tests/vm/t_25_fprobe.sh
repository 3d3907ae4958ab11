#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fprobes (f:FUNC[%return]) and tracepoint probes (t:TRACEPOINT), whose
# arguments the kernel resolves from BTF: on Linux 6.7 and later (6.12
# here) made, recorded with argument values checked against known calls
# (the path a command opens, the bytes a read returns, the program an
# exec runs), listed and deleted with another tool's fprobe untouched; on
# older kernels (6.1), and on Debian's arm64 6.12, built without
# CONFIG_FPROBE_EVENTS, refused with the reason, nothing written.
. /tests/lib.sh

if ! have_ktrace; then
	fail fprobe-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt25
mkdir -p $D
printf 'twelve bytes' > $D/kt25-file
kt25_cleanup() {
	local ev
	for ev in $(sed -n 's/^[ft]:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|kt25*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
	ktrace_leftovers_remove
	rm -rf $D
}
on_exit kt25_cleanup
dyn() { md5sum < $T/dynamic_events | cut -d' ' -f1; }

rel=$(uname -r)
maj=${rel%%.*}
min=${rel#*.}
min=${min%%.*}
if [ "$maj" -lt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -lt 7 ]; } ||
   [ "$(uname -m)" = aarch64 ]; then
	before=$(dyn)
	expect_exit fprobe-refused 1 ktrace probe add 'f:vfs_read count'
	expect_contains fprobe-refused-why "$OUT" "fprobe events need CONFIG_FPROBE_EVENTS (kernel 6.7+)"
	expect_exit tprobe-refused 1 ktrace probe add 't:sched_switch next'
	expect_contains tprobe-refused-why "$OUT" "tracepoint probes need CONFIG_FPROBE_EVENTS (kernel 6.7+)"
	expect_exit fprobe-inline-refused 1 ktrace record -e 'fretprobe:vfs_read $retval' -- true
	expect_contains fprobe-inline-refused-why "$OUT" "fprobe events need CONFIG_FPROBE_EVENTS"
	expect_eq fprobe-refused-unchanged "$before" "$(dyn)"
	expect_no_ktrace fprobe-refused-clean
	exit 0
fi

tfs_write dynamic_events 'f:kt25o/vr vfs_read' append
others=$(grep '^f:kt25o/' $T/dynamic_events)

# --- probe add, list: the three kinds; the kernel's own names. -----------
expect_ok fprobe-add ktrace probe add 'f:do_sys_openat2 filename:ustring' \
	'f:vfs_read%return $retval' 't:sched_process_exec fn=bprm->filename:string'
dy=$(cat $T/dynamic_events)
expect_match fprobe-add-entry "$dy" '^f:ktrace/do_sys_openat2 do_sys_openat2 filename=filename:ustring$'
expect_match fprobe-add-return "$dy" '^f:ktrace/vfs_read__return vfs_read%return retval=\$retval$'
expect_match tprobe-add "$dy" '^t:ktrace/sched_process_exec sched_process_exec fn=bprm->filename:string$'
expect_ok fprobe-list ktrace probe list
expect_match fprobe-list-entry "$OUT" '^fprobe +ktrace:do_sys_openat2 +do_sys_openat2 +filename='
expect_match fprobe-list-return "$OUT" '^fretprobe +ktrace:vfs_read__return +vfs_read%return '
expect_match tprobe-list "$OUT" '^tprobe +ktrace:sched_process_exec +sched_process_exec +fn='
expect_match fprobe-list-other "$OUT" "^fprobe +kt25o:vr .*not ktrace's"

# --- recorded through perf, values of known calls. -----------------------
printf 'z\n' > $D/kt25-gone
expect_ok fprobe-record ktrace record -e ktrace:do_sys_openat2 -e ktrace:vfs_read__return \
	-e ktrace:sched_process_exec -- $TARGETS/pathcalls $D/kt25-file $D/kt25-gone
expect_match fprobe-record-path "$OUT" "pathcalls +[0-9]+ .*ktrace:do_sys_openat2: .*filename=\"$D/kt25-file\""
expect_match tprobe-record-exec "$OUT" "ktrace:sched_process_exec: .*fn=\"$TARGETS/pathcalls\""
# dd's read(2) of the 12-byte file returns 12 (busybox cat uses sendfile)
expect_ok fprobe-inline ktrace record -e 'fretprobe:vfs_read $retval' -- dd if=$D/kt25-file of=/dev/null bs=64 count=1
expect_match fprobe-inline-retval "$OUT" "dd +[0-9]+ .*:vfs_read__return: .*retval=12( |\$)"
expect_no_ktrace fprobe-inline-clean

# --- probe del: ours, never the other tool's. -----------------------------
expect_ok fprobe-del ktrace probe del '*'
expect_eq fprobe-del-ours "" "$(grep -E '^[ft]:ktrace/' $T/dynamic_events)"
expect_eq fprobe-others-kept "$others" "$(grep '^f:kt25o/' $T/dynamic_events)"
echo '-:kt25o/vr' >> $T/dynamic_events
expect_no_ktrace fprobe-end-clean
