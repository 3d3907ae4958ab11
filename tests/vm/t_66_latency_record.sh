#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace latency --record: each pair as a record, read from ktrace's own
# instance (perf cannot open a synthetic event): one record a pair, the
# same count as the kernel's histogram; --threshold keeps the slow ones
# only (the histogram still has them all); -g gives the kernel stack
# where each pair ended; JSON lines; nothing left behind.
. /tests/lib.sh

if ! have_ktrace; then
	fail latrec-ktrace "no ktrace binary in the initramfs"
	exit 1
fi
SC=$TARGETS/syscaller
SL=$TARGETS/sleeper
on_exit ktrace_leftovers_remove
D=/tmp/kt66
mkdir -p $D
on_exit "rm -rf $D"


recs() { printf '%s\n' "$1" | grep -cE ' synthetic:ktrace_[0-9]+: lat=[0-9]+'; }

# --- every pair a record, as many as the histogram counts ---------------
expect_ok latrec-user ktrace latency -x $SL -f nap --record -- $SL 2
expect_eq latrec-user-count 6 "$(recs "$OUT")"
expect_match latrec-user-total "$OUT" 'Totals: 6 hits'
# each record's lat is at least the nap asked for (20 ms)
small=$(printf '%s\n' "$OUT" | sed -n 's/.* synthetic:ktrace_[0-9]*: lat=\([0-9]*\).*/\1/p' |
	awk '$1 < 20000')
expect_eq latrec-user-lat "" "$small"
expect_no_ktrace latrec-user-clean

# --- --threshold: only the slow ones, the histogram has them all --------
# at least the naps asked for 40 ms or more (4), at most those the program
# saw take that long (the kernel's measure lies inside the program's)
expect_ok latrec-thr ktrace latency -x $SL -f nap --record --threshold 40ms -- sh -c "$SL 2 > $D/naps"
n=$(recs "$OUT")
seen=$(awk '/^nap / && $2 >= 40000 { n++ } END { print n + 0 }' $D/naps)
if [ "$n" -ge 4 ] && [ "$n" -le "$seen" ]; then pass latrec-thr-count; else
	fail latrec-thr-count "$n records, 4 naps asked >= 40 ms, $seen seen"; _show "$OUT"; fi
small=$(printf '%s\n' "$OUT" | sed -n 's/.* synthetic:ktrace_[0-9]*: lat=\([0-9]*\).*/\1/p' |
	awk '$1 < 40000')
expect_eq latrec-thr-lat "" "$small"
expect_match latrec-thr-total "$OUT" 'Totals: 6 hits'
expect_no_ktrace latrec-thr-clean

# --- -g: the kernel stack where the pair ended (the system call's exit) -
expect_ok latrec-stack ktrace latency --syscall getppid --record -g -- $SC 5
expect_eq latrec-stack-count 5 "$(recs "$OUT")"
frames=$(printf '%s\n' "$OUT" | grep -cE '^	 *[0-9a-f]+ .*(syscall|svc)')
if [ "$frames" -ge 5 ]; then
	pass latrec-stack-frames
else
	fail latrec-stack-frames "$frames frames of the system call path"
	_show "$OUT" 30
fi
expect_no_ktrace latrec-stack-clean

# --- JSON: one object a record, then the distribution -------------------
expect_ok latrec-json ktrace --json latency --syscall getppid --record -- $SC 3
n=$(printf '%s\n' "$OUT" | grep -c '"event": "synthetic:ktrace_[0-9]*", "fields": {"lat": [0-9]*')
expect_eq latrec-json-count 3 "$n"
expect_match latrec-json-hist "$OUT" '"hits": 3'
expect_no_ktrace latrec-json-clean

# --- usage ----------------------------------------------------------------
expect_exit latrec-usage-thr 2 ktrace latency --syscall getppid --threshold 1ms -- $SC 1
expect_exit latrec-usage-bad 2 ktrace latency --syscall getppid --record --threshold 0x10 -- $SC 1
expect_no_ktrace latrec-usage-clean

# --- several -p processes: the run ends when the last one does ----------
$SL 1 wait > /dev/null 2>&1 &
p1=$!
$SL 2 wait > /dev/null 2>&1 &
p2=$!
on_exit "kill -KILL $p1 $p2 2>/dev/null"
ktrace latency -x $SL -f nap --record -p $p1,$p2 > $D/multi.out 2>&1 &
lpid=$!
wait_for 60 sh -c "grep -qs onmatch $T/instances/ktrace_*/events/*/*/trigger"
sleep 1
kill -USR1 $p1 $p2
# naps of 3 + 6 of (20, 45, 100 ms): both gone in about 0.5 s; a run that
# waits for a signal or -d is killed after 30
( sleep 30; kill -KILL $lpid 2>/dev/null ) &
guard=$!
wait $lpid
expect_eq latrec-multi-exit 0 $?
kill $guard 2>/dev/null
OUT=$(cat $D/multi.out)
expect_match latrec-multi-total "$OUT" 'Totals: 9 hits'
expect_eq latrec-multi-records 9 "$(recs "$OUT")"
expect_no_ktrace latrec-multi-clean

# --- --wakeup -- CMD: the command's tree (children forked later too), not
# the tasks it wakes outside it; per task as many wakeups as record sees
mkfifo $D/fifo
cat $D/fifo > /dev/null &
cpid=$!
on_exit "kill -KILL $cpid 2>/dev/null"
ktrace record -a -e sched:sched_waking > $D/wrec.out 2>&1 &
rpid=$!
wait_for 30 sh -c "ls -l /proc/$rpid/fd | grep -q perf_event"
sleep 1
expect_ok latrec-tree ktrace latency --wakeup -k pid --record -- sh -c "$SL 1 & $SL 1 & sleep 0.3; echo x > $D/fifo; wait"
sleep 0.5
kill -INT $rpid
wait $rpid
rows=$(printf '%s\n' "$OUT" | sed -n 's/^pid: \([0-9]*\):$/\1/p')
ntasks=$(printf '%s\n' "$rows" | sort -u | grep -c .)
if [ "$ntasks" -ge 3 ]; then pass latrec-tree-tasks; else
	fail latrec-tree-tasks "$ntasks tasks of sh and its two sleepers"; _show "$OUT" 40; fi
case " $(echo $rows) " in
*" $cpid "*) fail latrec-tree-outside "cat ($cpid), woken by the command, counted" ;;
*) pass latrec-tree-outside ;;
esac
# per task: the histogram's pairs = the wakeups record saw (+ the
# command's release, a wakeup made before the pairing could see it: at
# most one)
bad=""
for p in $(printf '%s\n' "$rows" | sort -u); do
	w=$(grep -c "sched:sched_waking: comm=.* pid=$p " $D/wrec.out)
	r=$(printf '%s\n' "$OUT" | grep -cE " synthetic:ktrace_[0-9]+: lat=[0-9]+, pid=$p\$")
	[ "$r" -le "$w" ] && [ "$r" -ge "$((w - 1))" ] || bad="$bad pid $p: $r pairs, $w wakeups;"
done
expect_eq latrec-tree-equals-record "" "$bad"
expect_no_ktrace latrec-tree-clean
