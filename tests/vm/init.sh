#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the ktrace test VM (copied into the initramfs by mkinitramfs.sh).
# Mounts the pseudo file systems, runs every /tests/t_*.sh under a timeout,
# checks that tracefs is left clean, prints KTRACE-VM-DONE and powers off.
#
# Kernel command line knobs (set by run.sh):
#   ktrace.timeout=SECS   per test script timeout (default 60)
#   ktrace.tests=GLOB     run only /tests/GLOB (default t_*.sh)

/bin/busybox mkdir -p /proc /sys /dev /tmp /run /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /root
hostname ktrace-vm

echo "KTRACE-VM-BOOTED kernel=$(uname -r) uptime=$(cut -d' ' -f1 /proc/uptime)"

timeout=60
glob='t_*.sh'
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktrace.timeout=*) timeout=${arg#*=} ;;
	ktrace.tests=*) glob=${arg#*=} ;;
	esac
done

T=/sys/kernel/tracing

# Print what is left over in tracefs, one reason per line; nothing if clean.
tracefs_dirty() {
	local f
	for f in dynamic_events kprobe_events uprobe_events set_event; do
		[ -e $T/$f ] || continue
		# (tracefs files have size 0: read them)
		[ -n "$(head -c1 $T/$f)" ] && echo "$f: $(head -n3 $T/$f | tr '\n' ' ')"
	done
	[ -n "$(ls $T/instances 2>/dev/null)" ] && echo "instances: $(ls $T/instances | tr '\n' ' ')"
	f=$(grep -v -x -H none $T/events/*/*/filter 2>/dev/null | head -n3 | tr '\n' ' ')
	[ -n "$f" ] && echo "filters: $f"
	f=$(grep -v -H '^#' $T/events/*/*/trigger 2>/dev/null | head -n3 | tr '\n' ' ')
	[ -n "$f" ] && echo "triggers: $f"
	f=$(cat $T/current_tracer)
	[ "$f" != nop ] && echo "current_tracer: $f"
	return 0
}

# Kill every process but init and $1 (left behind by a test, or the test
# itself after a timeout).  Kernel threads ignore the signal.
kill_strays() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = 1 ] || [ "$p" = "$1" ] && continue
		[ -s /proc/$p/cmdline ] || continue
		echo "KTRACE-NOTE killing stray process $p: $(tr '\0' ' ' < /proc/$p/cmdline)"
		kill -9 "$p" 2>/dev/null
	done
}

# Kernel log lines that mean the kernel itself went wrong.
kernel_bad() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace:|RCU stall|soft lockup|hung_task' | head -n5
}
bad_before=$(kernel_bad | wc -l)

after=$(tracefs_dirty)
cd /tests || { echo "KTRACE-TEST FAIL vm-init: no /tests"; poweroff -f; }
for t in /tests/$glob; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	before=$after
	echo "KTRACE-SCRIPT-BEGIN $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	# Output goes to the console as it comes (so that it is in the log
	# should the kernel die) and to /tmp/.out, through a fifo so that
	# processes a test leaves behind can be killed without killing tee.
	rm -f /tmp/.fifo /tmp/.out /tmp/.timedout
	mkfifo /tmp/.fifo
	tee /tmp/.out < /tmp/.fifo &
	teepid=$!
	# The test runs in a session of its own so that the watchdog can
	# signal it and its children: TERM after $timeout s (lib.sh then
	# cleans up), KILL 5 s later.
	rm -f /tmp/.timedout
	setsid sh "$t" > /tmp/.fifo 2>&1 &
	tpid=$!
	setsid sh -c "sleep $timeout; touch /tmp/.timedout; kill -TERM -$tpid;
		sleep 5; kill -KILL -$tpid" > /dev/null 2>&1 &
	wdpid=$!
	wait $tpid
	rc=$?
	kill -KILL -$wdpid 2>/dev/null
	wait $wdpid 2>/dev/null
	kill_strays $teepid
	wait $teepid
	end=$(cut -d' ' -f1 /proc/uptime)
	if [ -e /tmp/.timedout ]; then
		echo "KTRACE-TEST FAIL $name: timed out after ${timeout}s"
	else case $rc in
	0)	grep -q '^KTRACE-TEST ' /tmp/.out ||
			echo "KTRACE-TEST FAIL $name: printed no result line" ;;
	*)	grep -q '^KTRACE-TEST FAIL ' /tmp/.out ||
			echo "KTRACE-TEST FAIL $name: exited $rc without reporting a failure" ;;
	esac fi
	after=$(tracefs_dirty)
	if [ -n "$after" ] && [ "$after" != "$before" ]; then
		echo "KTRACE-TEST FAIL $name-cleanup: left in tracefs: $(echo "$after" | tr '\n' ';')"
	fi
	echo "KTRACE-SCRIPT-END $name rc=$rc time=$(awk "BEGIN{print $end-$start}")"
done
rm -f /tmp/.fifo /tmp/.out /tmp/.timedout

dirty=$after
if [ -z "$dirty" ]; then
	echo "KTRACE-TEST PASS vm-clean-state"
else
	echo "KTRACE-TEST FAIL vm-clean-state: $(echo "$dirty" | tr '\n' ';')"
fi

if [ "$(kernel_bad | wc -l)" -gt "$bad_before" ]; then
	echo "KTRACE-TEST FAIL vm-kernel-log: kernel complained during the tests:"
	kernel_bad | tail -n +$((bad_before + 1))
	dmesg | tail -n 40
else
	echo "KTRACE-TEST PASS vm-kernel-log"
fi

# (idle: the seconds the guest's CPU had nothing to run, e.g. tests
# sleeping, which cost the host no CPU)
echo "KTRACE-VM-DONE uptime=$(cut -d' ' -f1 /proc/uptime) idle=$(cut -d' ' -f2 /proc/uptime)"
sync
poweroff -f
# Should poweroff fail, panic (panic=-1 reboots, -no-reboot makes qemu exit).
echo o > /proc/sysrq-trigger
