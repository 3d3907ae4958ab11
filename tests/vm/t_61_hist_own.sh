#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace hist owns only what it made: another tool's trigger on the same
# event keeps counting and is not counted; every exit path (-d, the
# command's end, INT, TERM, HUP, a second INT) removes the trigger, the
# instance and the inline probe; after SIGKILL the next start sweeps them.
. /tests/lib.sh

if ! have_ktrace; then
	fail histown-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt61
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller

on_exit ktrace_leftovers_remove

# --- another tool's trigger on the same event ---------------------------
TRIG='hist:keys=common_pid:vals=hitcount'
TF=$T/events/raw_syscalls/sys_enter/trigger
echo "$TRIG" >> $TF
on_exit "echo '!$TRIG' >> $TF"
before=$(sed -n 's/^ *Hits: //p' $T/events/raw_syscalls/sys_enter/hist)
expect_ok histown-other ktrace hist -e raw_syscalls:sys_enter -k id.syscall -- $SC 300
expect_eq histown-other-exact 300 "$(row_count sys_getppid)"
expect_contains histown-other-kept "$(cat $TF)" "hist:keys=common_pid:vals=hitcount"
after=$(sed -n 's/^ *Hits: //p' $T/events/raw_syscalls/sys_enter/hist)
if [ "$after" -ge $((before + 300)) ]; then pass histown-other-counting; else
	fail histown-other-counting "their hits went from $before to $after"; fi
echo "!$TRIG" >> $TF
expect_eq histown-other-removed "" "$(grep -v '^#' $TF)"
expect_no_ktrace histown-other-clean

# --- exit paths ---------------------------------------------------------
expect_ok histown-duration ktrace hist -e raw_syscalls:sys_enter -d 1
expect_no_ktrace histown-duration-clean
expect_exit histown-cmd-status 3 ktrace hist -e raw_syscalls:sys_enter -- $SC 10 3
expect_no_ktrace histown-cmd-clean

# sig NAME SIGNAL[,SIGNAL]: a running hist (with an inline kprobe) ended by
# the signals, its table printed, nothing left
sig() {
	ktrace hist -e "kprobe:$GETPPID" -k common_pid > $D/sig.out 2>&1 &
	kpid=$!
	if ! wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/ktrace_*/*/trigger"; then
		fail "histown-$1-started" "no trigger after 60 s"
	fi
	sleep 0.3
	for s in $(echo $2 | tr , ' '); do kill -$s $kpid; done
	wait $kpid
	rc=$?
	case $rc in
	0|130|143|129) pass "histown-$1-exit" ;;
	*) fail "histown-$1-exit" "exit status $rc"; _show "$(cat $D/sig.out)" ;;
	esac
	expect_contains "histown-$1-table" "$(cat $D/sig.out)" "Totals:"
	expect_no_ktrace "histown-$1-clean"
}
sig int INT
sig term TERM
sig hup HUP
sig int2 INT,INT

# SIGKILL: the instance and the probe stay; the next start sweeps them
ktrace hist -e "kprobe:$GETPPID" -k common_pid > /dev/null 2>&1 &
kpid=$!
wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/ktrace_*/*/trigger"
sleep 0.3
kill -KILL $kpid
wait $kpid 2>/dev/null
left=$(ls $T/instances | grep '^ktrace_')
expect_ne histown-kill-left "" "$left"
expect_ok histown-kill-next ktrace hist -e raw_syscalls:sys_enter -d 0.5
expect_no_ktrace histown-kill-swept

