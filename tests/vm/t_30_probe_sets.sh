#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel probe sets of probes/ (as /probes in the VM, where kprobes
# exist): each is added with `ktrace probe add -f`, its events are enabled
# in an instance, activity is triggered, the events must show in the
# instance's trace with the expected values, and then everything is
# disabled and deleted. The uprobe sets (libc-malloc, bash-readline, dns)
# are exercised on the host by tests/integration/t_probe.sh.
#
# Each ktrace run takes seconds under TCG and a script has
# KTRACE_VM_TEST_TIMEOUT (60 s by default): this script does the sets
# named in $PROBE_SETS (default: the first four); t_31_probe_sets.sh sources
# it for the others.
. /tests/lib.sh

PROBE_SETS=${PROBE_SETS:-file-opens exec process tcp}

G=ktvm30
I=ktvm30
TR=$T/instances/$I/trace
TMPD=/tmp/ktvm30
ncpid=

# Whatever happens, leave no probe, instance or enabled event behind.
cleanup_all() {
	if [ -d $T/instances/$I ]; then
		echo 0 > $T/instances/$I/events/$G/enable 2>/dev/null
		rmdir $T/instances/$I 2>/dev/null
	fi
	[ -d $T/events/$G ] && echo 0 > $T/events/$G/enable 2>/dev/null
	ktrace probe del "$G:*" >/dev/null 2>&1
	# By hand, should ktrace have failed to remove some.
	for e in $(sed -n "s|^[pr][0-9]*:$G/\([^ ]*\) .*|\1|p" $T/kprobe_events); do
		echo "-:$G/$e" >> $T/kprobe_events
	done
	rm -rf $TMPD
	[ -n "$ncpid" ] && kill $ncpid 2>/dev/null
}
on_exit cleanup_all

have_ktrace || { fail probeset-ktrace "no ktrace binary"; exit 1; }
mkdir -p $TMPD

# begin NAME: add the set, enable its events in instance $I, clear the
# trace. Returns 1 (after reporting) when that failed. (Enabling is done
# through tracefs: each ktrace run costs seconds under TCG, and the
# script has KTRACE_VM_TEST_TIMEOUT, 60 s by default.)
begin() {
	expect_ok probeset-$1-add ktrace probe add -g $G -f $PROBES/$1.probe
	[ "$RC" = 0 ] || return 1
	mkdir -p $T/instances/$I
	if tfs_write instances/$I/events/$G/enable 1; then
		pass probeset-$1-enable
	else
		fail probeset-$1-enable "cannot enable $G in instance $I"
		return 1
	fi
	echo > $TR
	return 0
}

# finish NAME: disable, save the trace in $TRACE (after disabling: reading
# the trace would otherwise trace itself, vfs-rw filling the buffer),
# remove the instance, delete the probes, check nothing is left.
finish() {
	[ -d $T/instances/$I ] && echo 0 > $T/instances/$I/events/$G/enable
	TRACE=$(grep -v '^#' $TR 2>/dev/null)
	[ -d $T/instances/$I ] && rmdir $T/instances/$I
	expect_ok probeset-$1-del ktrace probe del "$G:*"
	expect_not_contains probeset-$1-gone "$(cat $T/dynamic_events)" "$G/"
}

# --- file-opens: cat a marker file.
set_file_opens() {
	if begin file-opens; then
		echo hello > $TMPD/marker
		cat $TMPD/marker > /dev/null
		finish file-opens
		expect_match probeset-file-opens-open "$TRACE" \
			"cat-[0-9]+ .* open: .* dfd=-100 filename=\"$TMPD/marker\" flags=0x[0-9a-f]+ mode=0x0"
		expect_match probeset-file-opens-ret "$TRACE" "cat-[0-9]+ .* open_ret: .* fd=[0-9]+"
	else
		finish file-opens
	fi
}

# --- exec: run a real ELF program.
set_exec() {
	if begin exec; then
		/targets/probed 1 > /dev/null
		finish exec
		expect_match probeset-exec-exec "$TRACE" \
			"exec: .* filename=\"/targets/probed\" interp=\"/targets/probed\" argc=2"
	else
		finish exec
	fi
}

# --- process: a child exiting with status 3.
set_process() {
	if begin process; then
		sh -c 'exit 3'
		finish process
		expect_match probeset-process-fork "$TRACE" " fork: .* flags=0x[0-9a-f]+ exit_signal=17"
		expect_match probeset-process-fork-ret "$TRACE" " fork_ret: .* child=[1-9][0-9]*"
		expect_match probeset-process-exit "$TRACE" " exit: .* code=768"
	else
		finish process
	fi
}

# --- tcp: a connection on the loopback interface, port 5555.
set_tcp() {
	ip link set lo up 2>/dev/null
	if begin tcp; then
		run ktrace probe list "$G:*"
		expect_match probeset-tcp-listed "$OUT" "^kprobe +$G:connect +tcp_v4_connect +daddr=\\+4\\($A1\\):x32 dport=\\+2\\($A1\\):x16$"
		expect_match probeset-tcp-listed-ret "$OUT" "^kretprobe +$G:accept +inet_csk_accept "
		nc -l -p 5555 > $TMPD/nc.out 2>&1 &
		ncpid=$!
		# listening: local port 15B3, state 0A in /proc/net/tcp
		wait_for 10 grep -q ':15B3 00000000:0000 0A' /proc/net/tcp
		echo hi | nc 127.0.0.1 5555 > /dev/null 2>&1
		wait_for 5 grep -q hi $TMPD/nc.out
		kill $ncpid 2>/dev/null
		wait $ncpid 2>/dev/null
		ncpid=
		finish tcp
		expect_match probeset-tcp-connect "$TRACE" " connect: .* daddr=0x100007f dport=0xb315"
		expect_match probeset-tcp-connect-ret "$TRACE" " connect_ret: .* ret=0"
		expect_match probeset-tcp-accept "$TRACE" " accept: .* daddr=0x100007f dport=0x[0-9a-f]+ lport=5555"
	else
		finish tcp
	fi
}

# --- block-io: the VM has no disk; the set must still create, enable and
# delete cleanly. Events are checked when some block device exists.
set_block_io() {
	if begin block-io; then
		dev=
		for b in /sys/block/*; do
			[ -e "$b" ] && [ -b /dev/${b##*/} ] && { dev=${b##*/}; break; }
		done
		[ -n "$dev" ] && dd if=/dev/$dev of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
		finish block-io
		if [ -n "$dev" ]; then
			expect_match probeset-block-io-start "$TRACE" " rq_start: .* disk=\"$dev\" sector=0 bytes=4096"
		else
			echo "KTRACE-NOTE probeset-block-io: no block device in the VM, events not checked"
		fi
	else
		finish block-io
	fi
}

# --- vfs-rw: read a file, write a file.
set_vfs_rw() {
	if begin vfs-rw; then
		echo hello > $TMPD/rwfile
		# (busybox cat copies with sendfile(), dd with read())
		dd if=$TMPD/rwfile of=/dev/null bs=64 2>/dev/null
		finish vfs-rw
		expect_match probeset-vfs-rw-read "$TRACE" "dd-[0-9]+ .* vfs_read: .* name=\"rwfile\" count=64"
		expect_match probeset-vfs-rw-read-ret "$TRACE" "dd-[0-9]+ .* vfs_read_ret: .* ret=6"
		expect_match probeset-vfs-rw-write "$TRACE" " vfs_write: .* name=\"rwfile\" count=6"
		expect_match probeset-vfs-rw-write-ret "$TRACE" " vfs_write_ret: .* ret=6"
	else
		finish vfs-rw
	fi
}

# --- file-changes: mkdir, rename, rmdir, unlink.
set_file_changes() {
	if begin file-changes; then
		mkdir $TMPD/d
		mv $TMPD/d $TMPD/e
		rmdir $TMPD/e
		touch $TMPD/f
		rm $TMPD/f
		finish file-changes
		expect_match probeset-file-changes-mkdir "$TRACE" " mkdir: .* path=\"$TMPD/d\" mode=0x1ff"
		expect_match probeset-file-changes-rename "$TRACE" " rename: .* from=\"$TMPD/d\" newdfd=-?[0-9]+ to=\"$TMPD/e\""
		expect_match probeset-file-changes-rmdir "$TRACE" " rmdir: .* path=\"$TMPD/e\""
		expect_match probeset-file-changes-unlink "$TRACE" " unlink: .* path=\"$TMPD/f\""
	else
		finish file-changes
	fi
}

for set in $PROBE_SETS; do
	set_$(echo $set | tr - _)
done

expect_eq probeset-clean-$(echo $PROBE_SETS | tr ' ' -) "" "$(grep "$G/" $T/dynamic_events)"
