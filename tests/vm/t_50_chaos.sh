#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Chaos: ktrace stopped at random moments (0 to 3 s after its start, so
# before, while and after it creates its probes) by INT, TERM, HUP or KILL
# (a KILL is followed by the next start, which must sweep what it left),
# with inline kprobes and uprobes, -o, -g and --filter mixed at random;
# two sessions in PID namespaces of their own on the same function; a
# recording on a full disk. Prints the counts: trials, leftovers (must be
# 0), records recovered from killed -o files.
. /tests/lib.sh

if ! have_ktrace; then
	fail chaos-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt50
mkdir -p $D
on_exit "rm -rf $D"

# Whatever this script may leave, removed straight through tracefs.
kt50_cleanup() {
	local ev
	for ev in $(sed -n 's/^[^:]*:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace_[0-9]*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
	umount $D/full 2>/dev/null
}
on_exit kt50_cleanup

# The inline-probe groups in dynamic_events, one per line.
groups() {
	sed -n 's/^[a-z]:\(ktrace_[0-9a-f_]*\)\/.*/\1/p' $T/dynamic_events | sort -u
}

trials=0 leftovers=0 recovered=0 killed_files=0
# (arm64 under TCG is three times slower: fewer trials there)
ntrials=8
[ "$(uname -m)" = aarch64 ] && ntrials=5
i=0
while [ $i -lt $ntrials ]; do
	i=$((i + 1))
	case $((RANDOM % 4)) in
	0) sig=INT ;; 1) sig=TERM ;; 2) sig=HUP ;; *) sig=KILL ;;
	esac
	ms=$((RANDOM % 3000))
	set -- record
	case $((RANDOM % 2)) in
	0) set -- "$@" -e "kprobe:do_sys_openat2 filename=+0($A1):string" ;;
	*) set -- "$@" -e "uprobe:$TARGETS/probed:hot i" ;;
	esac
	[ $((RANDOM % 2)) = 0 ] && set -- "$@" -g
	[ $((RANDOM % 3)) = 0 ] && set -- "$@" --filter 'common_pid != 0'
	out=
	if [ $((RANDOM % 2)) = 0 ]; then
		out=$D/c$i.kt
		set -- "$@" -o $out
	fi
	set -- "$@" -- $TARGETS/probed 100000000
	ktrace "$@" > $D/c.out 2> $D/c.err &
	kp=$!
	usleep $((ms * 1000))
	kill -$sig $kp 2>/dev/null
	# the traced command goes with a stopped ktrace, except after KILL;
	# ktrace ends within 20 s of the signal, or that is a failure
	w=0
	while kill -0 $kp 2>/dev/null && [ $w -lt 200 ]; do
		usleep 100000
		w=$((w + 1))
	done
	if kill -0 $kp 2>/dev/null; then
		fail chaos-$i-stuck "SIG$sig after $ms ms ($*): ktrace still runs 20 s later"
		_show "$(cat /proc/$kp/status 2>/dev/null | grep -E 'State|SigBlk|SigCgt'; cat /proc/$kp/wchan 2>/dev/null; echo; cat $D/c.err)"
		kill -KILL $kp 2>/dev/null
	fi
	wait $kp 2>/dev/null
	for p in /proc/[0-9]*; do
		grep -q "probed.100000000" $p/cmdline 2>/dev/null &&
			kill -KILL ${p#/proc/} 2>/dev/null
	done
	if [ $sig = KILL ]; then
		# the next start sweeps the dead session's group
		timeout 60 ktrace record -e 'kprobe:vfs_read' -- true > /dev/null 2>&1
		[ $? = 124 ] && fail chaos-$i-next-start "the start after SIG$sig did not end in 60 s"
		if [ -n "$out" ] && [ -s "$out" ]; then
			killed_files=$((killed_files + 1))
			n=$(timeout 60 ktrace report -i $out 2>&1 >/dev/null |
				sed -n 's/.*: \([0-9]*\) records recovered$/\1/p')
			recovered=$((recovered + ${n:-0}))
		fi
	elif [ -n "$out" ] && [ -s "$out" ]; then
		# stopped cleanly: a whole file
		if ! timeout 60 ktrace report -i $out > /dev/null 2> $D/r.err; then
			fail chaos-$i-file "SIG$sig after $ms ms: $(cat $D/r.err)"
		fi
	fi
	left=$(groups)
	if [ -n "$left" ]; then
		leftovers=$((leftovers + $(echo "$left" | wc -l)))
		fail chaos-$i-left "SIG$sig after $ms ms ($*): left $left"
		kt50_cleanup
	fi
	trials=$((trials + 1))
done
echo "KTRACE-NOTE chaos: trials=$trials leftovers=$leftovers killed -o files=$killed_files records recovered=$recovered"
expect_eq chaos-no-leftovers 0 "$leftovers"

# --- Two sessions in PID namespaces of their own, same function: both
# are PID 1 there, their groups do not clash; one killed, swept by the
# next start from the initial namespace. The one killed runs until it is
# (-d 60): a loaded host can take the other's 4 s to start the second, and
# the first, ended on its own, left no group to sweep. ---------------------
unshare -p -f --mount-proc ktrace record -e 'kprobe:do_sys_openat2' -d 60 > $D/n1.out 2>&1 &
n1=$!
unshare -p -f --mount-proc ktrace record -e 'kprobe:do_sys_openat2' -d 4 > $D/n2.out 2>&1 &
n2=$!
w=0
while [ "$(groups | grep -c '^ktrace_1_')" -lt 2 ] && [ $w -lt 100 ]; do
	usleep 100000
	w=$((w + 1))
done
expect_eq chaos-ns-two-groups 2 "$(groups | grep -c '^ktrace_1_')"
[ $w -lt 100 ] || _show "$(cat $D/n1.out $D/n2.out; cat $T/dynamic_events)"
# the ktrace in the first namespace (the child of unshare) killed
for p in /proc/[0-9]*; do
	[ "$(awk '/^PPid:/ { print $2 }' $p/status 2>/dev/null)" = $n1 ] &&
		kill -KILL ${p#/proc/}
done
wait $n1 2>/dev/null
wait $n2
expect_eq chaos-ns-second-ran 0 "$?"
expect_eq chaos-ns-killed-left 1 "$(groups | grep -c '^ktrace_1_')"
ktrace record -e 'kprobe:vfs_read' -- true > /dev/null 2>&1
expect_eq chaos-ns-swept "" "$(groups)"

# --- A full disk: the reason is said, nothing is left, what was written
# reads back. ------------------------------------------------------------
mkdir -p $D/full
mount -t tmpfs -o size=64k tmpfs $D/full
expect_exit chaos-disk-full 1 ktrace record -e "uprobe:$TARGETS/probed:hot i" \
	-o $D/full/f.kt -- $TARGETS/probed 20000
expect_contains chaos-disk-full-says "$OUT" "No space left on device"
expect_eq chaos-disk-full-no-group "" "$(groups)"
run ktrace report -i $D/full/f.kt
case $OUT in
*"records recovered"*|*"damaged or truncated"*|*"records no event"*) pass chaos-disk-full-readback ;;
*) fail chaos-disk-full-readback "report of a file cut by a full disk: rc $RC"; _show "$OUT" ;;
esac
umount $D/full
