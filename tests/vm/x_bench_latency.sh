#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Not a test: the in-VM half of bench/latency-vm.sh, which boots it with
#   KTRACE_VM_TESTS=x_bench_latency.sh and an initramfs holding perf,
#   bench_pingpong and bench_ru (KTRACE_VM_EXTRA_BINS).
# One question, "how long do woken threads wait for the CPU", about
# `bench_pingpong N` (two threads passing a token N times each way through
# a futex), answered by each tool in turn, round after round. Per run it
# prints one line
#   KTRACE-BENCH ROUND TOOL MAIN PONG WMAIN WPONG WL_US REC_US DEC_US BYTES WALL_US
# MAIN/PONG: the wakeup -> switch-in pairs the tool counted for the main
# thread and for the other one ("-": the tool does not say); WMAIN/WPONG:
# the wakeups each thread got from the other, as the workload counted them
# (FUTEX_WAKE's return, printed at its exit); WL_US: the workload's own
# user+sys (its getrusage at exit); REC_US: user+sys of the tool's run with
# the workload (bench_ru: the tool and its waited-for children) minus
# WL_US; DEC_US: the tool's second phase (report and pairing, perf sched
# latency); BYTES: what the tool wrote (files, text piped to the pairing,
# its output); WALL_US: both phases. The host (bench/latency-vm.sh) makes
# the table. Kernel command line: ktrace.bench_n=N, ktrace.bench_rounds=R
# (default 1e5, 1). Each round runs the untraced workload ("none") first
# and last.
. /tests/lib.sh

N=100000
R=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktrace.bench_n=*) N=${arg#*=} ;;
	ktrace.bench_rounds=*) R=${arg#*=} ;;
	esac
done

D=/tmp/ktlatbench
mkdir -p $D
on_exit "rm -rf $D"
W=/usr/bin/bench_pingpong
export BENCH_RUSAGE=$D/wl.ru
for p in ktrace bench_ru $W; do
	command -v $p > /dev/null || { fail bench-latency "no $p in the initramfs"; exit 1; }
done

# The pairing of ktrace's text, what a user pipes `ktrace report` into: a
# sched_waking's pid waits for the next sched_switch whose next_pid it is
# (a later waking of the same pid replaces it, as the kernel's $ts0 of
# ktrace latency does); "PID PAIRS" per task, then "bytes B": the text
# read. A task switched out (prev_pid) while its waking still waits was
# switched in unseen: "unseen PID COUNT" (the file of a command's record
# holds a sched_switch only when the task switched out is the command's).
#  ... sched:sched_waking: comm=bench_pong pid=177 prio=120 target_cpu=000
#  ... sched:sched_switch: prev_comm=bench_pong prev_pid=177 ... ==> next_comm=ktrace next_pid=170 next_prio=120
PAIR='
	/ sched:sched_waking: / && match($0, / pid=[0-9]+/) {
		w[substr($0, RSTART + 5, RLENGTH - 5)] = 1
	}
	/ sched:sched_switch: / && match($0, / prev_pid=[0-9]+/) {
		p = substr($0, RSTART + 10, RLENGTH - 10)
		if (w[p]) { u[p]++; w[p] = 0 }
	}
	/ sched:sched_switch: / && match($0, / next_pid=[0-9]+/) {
		p = substr($0, RSTART + 10, RLENGTH - 10)
		if (w[p]) { n[p]++; w[p] = 0 }
	}
	{ b += length($0) + 1 }
	END {
		for (p in n) print p, n[p]
		for (p in u) print "unseen", p, u[p]
		print "bytes", b + 0
	}'

# ru FILE -> user+sys µs of a bench_ru file; wall FILE -> its wall µs
ru() { awk '{ print $2 + $3 }' "$1" 2>/dev/null || echo 0; }
wall() { awk '{ print $1 }' "$1" 2>/dev/null || echo 0; }
wlcpu() { awk '{ print $1 + $2 }' "$BENCH_RUSAGE" 2>/dev/null || echo 0; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# count FILE KEY -> the count of "KEY COUNT" lines, "-" when none
count() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "-" }' "$1"; }

# rec CMD...: the first phase, with the workload; sets WL REC RECWALL and,
# from the workload's line on stderr, WPID WTID WMAIN WPONG
rec() {
	rm -f "$BENCH_RUSAGE" $D/rec.ru
	bench_ru $D/rec.ru "$@" > $D/rec.out 2> $D/rec.err
	RC=$?
	WL=$(wlcpu)
	REC=$(($(ru $D/rec.ru) - WL))
	RECWALL=$(wall $D/rec.ru)
	set -- $(sed -n 's/.*bench_pingpong: n=[0-9]* pid=\([0-9]*\) tid=\([0-9]*\) main_woken=\([0-9]*\) pong_woken=\([0-9]*\).*/\1 \2 \3 \4/p' $D/rec.err) - - - -
	WPID=$1 WTID=$2 WMAIN=$3 WPONG=$4
}
# dec CMD...: the second phase; sets DEC DECWALL
dec() {
	bench_ru $D/dec.ru "$@" > $D/dec.out 2> $D/dec.err
	RC=$?
	DEC=$(ru $D/dec.ru)
	DECWALL=$(wall $D/dec.ru)
}
# out ROUND TOOL MAIN PONG BYTES: the result line
out() {
	echo "KTRACE-BENCH $1 $2 $3 $4 $WMAIN $WPONG $WL $REC $DEC $5 $((RECWALL + DECWALL))"
}
# note TOOL FILE: a tool's complaint, shown with the table
note() {
	[ -s "$2" ] && echo "KTRACE-NOTE bench round $ROUND, $1: $(grep -v -e '^$' -e 'bench_pingpong: n=' "$2" | tail -n 3 | tr '\n' ' ')"
	return 0
}
# lost TOOL FILE: the lines of FILE that speak of loss, as a note
lost() {
	grep -i -e lost -e 'not counted' -e 'not paired' "$2" > $D/lost.txt && note "$1" $D/lost.txt
	return 0
}

t_none() {
	rec $W $N
	DEC=0 DECWALL=0
	[ $RC = 0 ] || note "the workload" $D/rec.err
	out $1 none - - 0
}

# (a) the kernel pairs (synthetic event + hist triggers), ktrace prints the
# histogram; with a command it follows the command's own pid only
t_latency() {
	rec ktrace latency --wakeup -- $W $N
	DEC=0 DECWALL=0
	[ $RC = 0 ] || note "ktrace latency" $D/rec.err
	lost "ktrace latency" $D/rec.err
	grep -E '^(Totals:|max) ' $D/rec.out | sed "s/^/KTRACE-BENCH-DETAIL $1 latency: /"
	out $1 latency \
		"$(sed -n 's/^Totals: \([0-9]*\) hits.*/\1/p' $D/rec.out | grep . || echo -)" - \
		"$(size $D/rec.out)"
}

# (b) both events to a file, decoded by ktrace report, paired by awk
t_record() {
	rm -f $D/k.dat
	rec ktrace record -e sched:sched_waking -e sched:sched_switch -o $D/k.dat -- $W $N
	[ $RC = 0 ] || note "ktrace record" $D/rec.err
	lost "ktrace record" $D/rec.err
	grep 'records captured' $D/rec.err | sed "s/^/KTRACE-BENCH-DETAIL $1 record: /"
	dec sh -c "ktrace report -i $D/k.dat | awk '$PAIR'"
	[ $RC = 0 ] || note "ktrace report" $D/dec.err
	awk '$1 == "unseen" { print $2, $3 }' $D/dec.out > $D/unseen
	echo "KTRACE-BENCH-UNSEEN $1 record $(count $D/unseen "$WPID") $(count $D/unseen "$WTID")"
	out $1 record "$(count $D/dec.out "$WPID")" "$(count $D/dec.out "$WTID")" \
		$(($(size $D/k.dat) + $(count $D/dec.out bytes) + $(size $D/dec.out)))
	rm -f $D/k.dat
}

# (c) perf sched record (machine-wide, as it always is), perf sched
# latency -p (by task, not merged by name); EXTRA: more perf record options
perf_sched() {
	local name=$1 round=$2
	shift 2
	rm -f $D/p.dat
	rec perf sched record -o $D/p.dat "$@" -- $W $N
	[ $RC = 0 ] || note "$name record" $D/rec.err
	lost "$name record" $D/rec.err
	dec perf sched latency -p -i $D/p.dat
	[ $RC = 0 ] || note "$name latency" $D/dec.err
	# "  bench_pingpong:181     |  512.3 ms |  100002 | avg: ..."
	awk -F'|' '$1 ~ /:[0-9]+ *$/ { t = $1; sub(/ *$/, "", t); sub(/.*:/, "", t)
		c = $3; gsub(/ /, "", c); print t, c }' $D/dec.out > $D/perf.counts
	grep -E 'bench_p|TOTAL' $D/dec.out | sed "s/^/KTRACE-BENCH-DETAIL $round $name: /"
	out $round $name "$(count $D/perf.counts "$WPID")" "$(count $D/perf.counts "$WTID")" \
		$(($(size $D/p.dat) + $(size $D/dec.out)))
	rm -f $D/p.dat
}
t_perf() {
	perf_sched perf $1
}
# the perf sched latency of perf 6.1 reads sched_wakeup only, while perf
# sched record stores sched_waking when the kernel has it (fixed upstream
# since 2023): the same with sched_wakeup recorded too
t_perfwk() {
	perf_sched perf-wakeup $1 -e sched:sched_wakeup
}

echo "KTRACE-BENCH-INFO N=$N rounds=$R kernel=$(uname -r) arch=$(uname -m) cpus=$(nproc)"
echo "KTRACE-BENCH-INFO perf: $(perf version 2>&1 | head -n 1)"
tools="none latency record"
if command -v perf > /dev/null; then
	tools="$tools perf perfwk"
else
	echo "KTRACE-NOTE bench perf: not in the initramfs"
fi
# the untraced run at the start and at the end of each round: two
# baselines a round against the noise of a shared host
ROUND=1
while [ $ROUND -le $R ]; do
	for t in $tools none; do
		t_$t $ROUND
	done
	ROUND=$((ROUND + 1))
done
pass bench-latency-ran
