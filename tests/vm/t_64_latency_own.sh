#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace latency --wakeup counts the wakeups ktrace record sees for the
# same task in the same run; another tool's synthetic event and trigger
# stay as they were; INT and SIGKILL (swept by the next start) leave
# nothing; a bad pairing is refused with the kernel's caret and leaves
# nothing half-made.
. /tests/lib.sh

if ! have_ktrace; then
	fail latown-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt64
mkdir -p $D
on_exit "rm -rf $D"
SL=$TARGETS/sleeper
SC=$TARGETS/syscaller

on_exit ktrace_leftovers_remove

# --- wakeups: latency's pairs = the wakeups record sees ----------------
$SL 4 wait > /dev/null 2>&1 &
spid=$!
on_exit "kill -KILL $spid 2>/dev/null"
ktrace latency --wakeup -p $spid > $D/lat.out 2>&1 &
lpid=$!
ktrace record -a -e sched:sched_waking --filter "pid == $spid" > $D/rec.out 2>&1 &
rpid=$!
wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/sched/sched_switch/trigger"
sleep 3
kill -USR1 $spid
wait $lpid
expect_eq latown-wakeup-exit 0 $?
sleep 0.5
kill -INT $rpid
wait $rpid
OUT=$(cat $D/lat.out)
hits=$(printf '%s\n' "$OUT" | sed -n 's/^Totals: \([0-9]*\) hits.*/\1/p')
wakeups=$(grep -c 'sched:sched_waking: comm=' $D/rec.out)
expect_eq latown-wakeup-equals-record "$wakeups" "$hits"
if [ "${hits:-0}" -ge 12 ]; then pass latown-wakeup-naps; else
	fail latown-wakeup-naps "$hits wakeups for 12 naps"; _show "$OUT"; fi
expect_match latown-wakeup-max "$OUT" '^max [0-9.]+ (us|ms): sleeper \[[0-9]+\] on CPU [0-9]+, after .* ran$'
expect_no_ktrace latown-wakeup-clean

# --- another tool's synthetic event and trigger -------------------------
echo 'other_lat u64 lat; pid_t pid' >> $T/synthetic_events
on_exit "echo '!other_lat' >> $T/synthetic_events"
OTRIG='hist:keys=next_pid:vals=hitcount'
echo "$OTRIG" >> $T/events/sched/sched_switch/trigger
on_exit "echo '!$OTRIG' >> $T/events/sched/sched_switch/trigger"
expect_ok latown-other ktrace latency --syscall getppid -- $SC 30
expect_match latown-other-total "$OUT" 'Totals: 30 hits'
expect_match latown-other-synth-kept "$(cat $T/synthetic_events)" '^other_lat[[:space:]]+u64 lat; pid_t pid'
expect_contains latown-other-trigger-kept "$(cat $T/events/sched/sched_switch/trigger)" "hist:keys=next_pid:vals=hitcount"
expect_ok latown-other-wakeup ktrace latency --wakeup -d 1
expect_contains latown-other-trigger-kept2 "$(cat $T/events/sched/sched_switch/trigger)" "hist:keys=next_pid:vals=hitcount"
echo "!$OTRIG" >> $T/events/sched/sched_switch/trigger
echo '!other_lat' >> $T/synthetic_events
expect_no_ktrace latown-other-clean

# --- exit paths ---------------------------------------------------------
ktrace latency --wakeup > $D/int.out 2>&1 &
kpid=$!
wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/sched/sched_switch/trigger"
sleep 0.3
kill -INT $kpid
wait $kpid
expect_contains latown-int-table "$(cat $D/int.out)" "Totals:"
expect_no_ktrace latown-int-clean

ktrace latency --wakeup > /dev/null 2>&1 &
kpid=$!
wait_for 60 sh -c "grep -qs '^hist' $T/instances/ktrace_*/events/sched/sched_switch/trigger"
sleep 0.3
kill -KILL $kpid
wait $kpid 2>/dev/null
expect_ne latown-kill-left "" "$(grep 'synthetic/ktrace_' $T/dynamic_events)"
expect_ok latown-kill-next ktrace latency --syscall getppid -- $SC 5
expect_no_ktrace latown-kill-swept

# --- a bad pairing ------------------------------------------------------
# the kernel takes a number paired with a string (and never matches)
expect_exit latown-bad-type 2 ktrace latency --from sched:sched_waking --to sched:sched_switch --match pid=next_comm -d 1
expect_contains latown-bad-type-said "$OUT" "are not the same kind of value"
expect_no_ktrace latown-bad-type-clean
expect_exit latown-bad-field 1 ktrace latency --from sched:sched_waking --to sched:sched_switch --match nosuch=next_pid -d 1
expect_contains latown-bad-field-kernel "$OUT" "kernel refused"
expect_match latown-bad-field-caret "$OUT" '^ *\^'
expect_no_ktrace latown-bad-field-clean
expect_exit latown-bad-key 2 ktrace latency --syscall getppid -k nosuchfield -d 1
expect_exit latown-both 2 ktrace latency --wakeup --from sched:sched_waking --to sched:sched_switch
expect_exit latown-none 2 ktrace latency -d 1
expect_no_ktrace latown-errors-clean
