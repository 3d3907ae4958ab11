#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Not a test: prints the kernel's text for synthetic-event latency setups
# (the end event's hist with onmatch/onmax, the synthetic event's hist)
# for tests/fixtures/hist/. Run as x_hist_fixtures.sh is.
. /tests/lib.sh

I=$T/instances/ktsynfix
mkdir $I || { fail synth-fixtures "no instance"; exit 1; }
S='ktsyn_lat u64 lat; pid_t pid; char comm[16]'
echo "$S" >> $T/synthetic_events || echo "KTRACE-SYNTH-REFUSED def: $(tail -n 3 $T/error_log | tr '\n' '|')"
F1='hist:keys=pid:ts0=common_timestamp'
F2='hist:keys=next_pid:lat=common_timestamp-$ts0:onmatch(sched.sched_waking).trace(ktsyn_lat,$lat,next_pid,next_comm):onmax($lat).save(next_comm,prev_pid,prev_comm,common_cpu)'
F3='hist:keys=lat.log2:vals=hitcount'
F4='hist:keys=comm,lat.log2'
echo "$F1" >> $I/events/sched/sched_waking/trigger || echo "KTRACE-SYNTH-REFUSED f1: $(tail -n 3 $I/error_log | tr '\n' '|')"
echo "$F2" >> $I/events/sched/sched_switch/trigger || echo "KTRACE-SYNTH-REFUSED f2: $(tail -n 3 $I/error_log | tr '\n' '|')"
echo "$F3" >> $I/events/synthetic/ktsyn_lat/trigger || echo "KTRACE-SYNTH-REFUSED f3: $(tail -n 3 $I/error_log | tr '\n' '|')"
echo "$F4" >> $I/events/synthetic/ktsyn_lat/trigger || echo "KTRACE-SYNTH-REFUSED f4: $(tail -n 3 $I/error_log | tr '\n' '|')"
i=0
while [ $i -lt 20 ]; do sleep 0.01; ls / > /dev/null; i=$((i + 1)); done
echo "KTRACE-HIST-BEGIN synth-end sched/sched_switch"
cat $I/events/sched/sched_switch/hist
echo "KTRACE-HIST-END synth-end"
echo "KTRACE-HIST-BEGIN synth-start sched/sched_waking"
cat $I/events/sched/sched_waking/hist
echo "KTRACE-HIST-END synth-start"
echo "KTRACE-HIST-BEGIN synth-lat synthetic/ktsyn_lat"
cat $I/events/synthetic/ktsyn_lat/hist
echo "KTRACE-HIST-END synth-lat"
cat $I/events/synthetic/ktsyn_lat/format
grep ktsyn $T/dynamic_events
# a bad pairing: a field of another type, an unknown field
echo 'hist:keys=next_comm:lat=common_timestamp-$ts0:onmatch(sched.sched_waking).trace(ktsyn_lat,$lat,next_pid,next_comm)' >> $I/events/sched/sched_switch/trigger 2>/dev/null
echo "KTRACE-SYNTH-ERR badkey: $(tail -n 3 $I/error_log | tr '\n' '|')"
echo 'hist:keys=next_pid:lat=common_timestamp-$ts0:onmatch(sched.sched_waking).trace(ktsyn_lat,$lat,nosuch,next_comm)' >> $I/events/sched/sched_switch/trigger 2>/dev/null
echo "KTRACE-SYNTH-ERR badfield: $(tail -n 3 $I/error_log | tr '\n' '|')"
echo 'ktsyn_bad u64 lat; nosuchtype x' >> $T/synthetic_events 2>/dev/null
echo "KTRACE-SYNTH-ERR badtype: $(tail -n 3 $T/error_log | tr '\n' '|')"
echo "!$F4" >> $I/events/synthetic/ktsyn_lat/trigger
echo "!$F3" >> $I/events/synthetic/ktsyn_lat/trigger
echo "!$F2" >> $I/events/sched/sched_switch/trigger
echo "!$F1" >> $I/events/sched/sched_waking/trigger
echo '!ktsyn_lat' >> $T/synthetic_events || echo "KTRACE-SYNTH-REFUSED undef: $(tail -n 3 $T/error_log | tr '\n' '|')"
rmdir $I
pass synth-fixtures
