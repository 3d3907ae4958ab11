#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Not a test: the in-VM half of bench/hist-vm.sh, which boots it with
#   KTRACE_VM_TESTS=x_bench_hist.sh and an initramfs holding perf,
#   bpftrace, bench_sysmix and bench_ru (KTRACE_VM_EXTRA_BINS).
# One question, "which system calls, how many of each", about
# `bench_sysmix N M` (N getppid, M 1-byte reads), answered by each tool in
# turn, round after round. Per run it prints one line
#   KTRACE-BENCH ROUND TOOL GETPPID READ WL_US REC_US DEC_US BYTES WALL_US
# GETPPID/READ: the counts the tool reported ("-" none); WL_US: the
# workload's own user+sys (its getrusage at exit); REC_US: user+sys of the
# tool's run with the workload (bench_ru: the tool and its waited-for
# children) minus WL_US; DEC_US: the tool's second phase (report, counting);
# BYTES: what the tool wrote (files, pipes, its output); WALL_US: both
# phases. The host (bench/hist-vm.sh) checks the counts and makes the table.
# Kernel command line: ktrace.bench_n=N, ktrace.bench_m=M,
# ktrace.bench_rounds=R (default 1e6, 1e5, 1). Each round runs the untraced
# workload ("none") first and last.
. /tests/lib.sh

N=1000000
M=100000
R=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktrace.bench_n=*) N=${arg#*=} ;;
	ktrace.bench_m=*) M=${arg#*=} ;;
	ktrace.bench_rounds=*) R=${arg#*=} ;;
	esac
done
# the system call numbers, for the tools that count by number
case $(uname -m) in
aarch64) NR_READ=63 NR_GETPPID=173 ;;
*) NR_READ=0 NR_GETPPID=110 ;;
esac

D=/tmp/ktbench
mkdir -p $D
on_exit "rm -rf $D"
W=/usr/bin/bench_sysmix
export BENCH_RUSAGE=$D/wl.ru
for p in ktrace bench_ru $W; do
	command -v $p > /dev/null || { fail bench-hist "no $p in the initramfs"; exit 1; }
done

# The counter of ktrace's text, what a user pipes `ktrace report` into:
# "bench_sysmix 176 [000] 14.866834832: raw_syscalls:sys_enter: NR 12 (...)"
# -> "NR COUNT" per system call number, then "bytes B": the text it read.
COUNTER='$6 == "NR" { c[$7]++ }
	{ b += length($0) + 1 }
	END { for (k in c) print k, c[k]; print "bytes", b + 0 }'

# ru FILE -> user+sys µs of a bench_ru file; wall FILE -> its wall µs
ru() { awk '{ print $2 + $3 }' "$1" 2>/dev/null || echo 0; }
wall() { awk '{ print $1 }' "$1" 2>/dev/null || echo 0; }
wlcpu() { awk '{ print $1 + $2 }' "$BENCH_RUSAGE" 2>/dev/null || echo 0; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# nr_count FILE NR -> the count of "NR COUNT" lines
nr_count() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "-" }' "$1"; }

# rec CMD...: the first phase, with the workload; sets WL REC RECWALL
rec() {
	rm -f "$BENCH_RUSAGE" $D/rec.ru
	bench_ru $D/rec.ru "$@" > $D/rec.out 2> $D/rec.err
	RC=$?
	WL=$(wlcpu)
	REC=$(($(ru $D/rec.ru) - WL))
	RECWALL=$(wall $D/rec.ru)
}
# dec CMD...: the second phase; sets DEC DECWALL
dec() {
	bench_ru $D/dec.ru "$@" > $D/dec.out 2> $D/dec.err
	RC=$?
	DEC=$(ru $D/dec.ru)
	DECWALL=$(wall $D/dec.ru)
}
# out ROUND TOOL GETPPID READ BYTES: the result line
out() {
	echo "KTRACE-BENCH $1 $2 $3 $4 $WL $REC $DEC $5 $((RECWALL + DECWALL))"
}
# note TOOL FILE: a tool's complaint, shown with the table
note() {
	[ -s "$2" ] && echo "KTRACE-NOTE bench round $ROUND, $1: $(grep -v '^$' "$2" | tail -n 3 | tr '\n' ' ')"
	return 0
}

# lost TOOL FILE: the lines of FILE that speak of loss, as a note
lost() {
	grep -i lost "$2" > $D/lost.txt && note "$1" $D/lost.txt
	return 0
}

t_none() {
	rec $W $N $M
	DEC=0 DECWALL=0
	out $1 none - - 0
}

# (a) the kernel counts (a hist trigger), ktrace prints the table
t_hist() {
	rec ktrace hist -e raw_syscalls:sys_enter -k id.syscall -- $W $N $M
	DEC=0 DECWALL=0
	[ $RC = 0 ] || note "ktrace hist" $D/rec.err
	out $1 "ktrace-hist" \
		"$(awk '$1 == "sys_getppid" { print $2; f = 1 } END { if (!f) print "-" }' $D/rec.out)" \
		"$(awk '$1 == "sys_read" { print $2; f = 1 } END { if (!f) print "-" }' $D/rec.out)" \
		"$(size $D/rec.out)"
}

# (b) every event to a file, decoded by ktrace report, counted by awk
t_record() {
	rm -f $D/k.dat
	rec ktrace record -e raw_syscalls:sys_enter -o $D/k.dat -- $W $N $M
	[ $RC = 0 ] || note "ktrace record" $D/rec.err
	lost "ktrace record" $D/rec.err
	dec sh -c "ktrace report -i $D/k.dat | awk '$COUNTER'"
	[ $RC = 0 ] || note "ktrace report" $D/dec.err
	out $1 "ktrace-record" "$(nr_count $D/dec.out $NR_GETPPID)" \
		"$(nr_count $D/dec.out $NR_READ)" \
		$(($(size $D/k.dat) + $(nr_count $D/dec.out bytes) + $(size $D/dec.out)))
	rm -f $D/k.dat
}

# (b') the live text stream piped into the same counter
t_live() {
	rec sh -c "ktrace record -e raw_syscalls:sys_enter -- $W $N $M | awk '$COUNTER'"
	DEC=0 DECWALL=0
	[ $RC = 0 ] || note "ktrace record (live)" $D/rec.err
	lost "ktrace record (live)" $D/rec.err
	out $1 "ktrace-live" "$(nr_count $D/rec.out $NR_GETPPID)" \
		"$(nr_count $D/rec.out $NR_READ)" \
		$(($(nr_count $D/rec.out bytes) + $(size $D/rec.out)))
}

# (c) perf record, then perf report sorted by the tracepoint's id field
t_perf() {
	rm -f $D/p.dat
	rec perf record -e raw_syscalls:sys_enter -o $D/p.dat -- $W $N $M
	[ $RC = 0 ] || note perf $D/rec.err
	lost "perf record" $D/rec.err
	dec perf report -i $D/p.dat --stdio -n --sort id
	[ $RC = 0 ] || note "perf report" $D/dec.err
	# rows: "    89.61%          1000                 110"
	awk '/^ +[0-9.]+% +[0-9]+ +[0-9]+$/ { print $3, $2 }' $D/dec.out > $D/perf.counts
	grep -E '^# Total Lost Samples: [1-9]' $D/dec.out > $D/perf.lost && note "perf report" $D/perf.lost
	out $1 perf "$(nr_count $D/perf.counts $NR_GETPPID)" \
		"$(nr_count $D/perf.counts $NR_READ)" \
		$(($(size $D/p.dat) + $(size $D/dec.out)))
	rm -f $D/p.dat
}

# (d) bpftrace: a BPF map counts in the kernel, printed at the end
t_bpftrace() {
	rec bpftrace -e 'tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @[args->id] = count(); }' \
		-c "$W $N $M"
	DEC=0 DECWALL=0
	[ $RC = 0 ] || note bpftrace $D/rec.err
	# "@[110]: 1000000"
	sed -n 's/^@\[\([0-9]*\)\]: \([0-9]*\)$/\1 \2/p' $D/rec.out > $D/bt.counts
	out $1 bpftrace "$(nr_count $D/bt.counts $NR_GETPPID)" \
		"$(nr_count $D/bt.counts $NR_READ)" "$(size $D/rec.out)"
}

echo "KTRACE-BENCH-INFO N=$N M=$M rounds=$R kernel=$(uname -r) arch=$(uname -m)"
echo "KTRACE-BENCH-INFO perf: $(perf version 2>&1 | head -n 1)"
echo "KTRACE-BENCH-INFO bpftrace: $(bpftrace --version 2>&1 | head -n 1)"
tools="none hist record live perf"
if ! ktrace hist -h > /dev/null 2>&1; then
	echo "KTRACE-NOTE bench ktrace hist: this ktrace has no hist command"
	tools="none record live perf"
fi
command -v perf > /dev/null || tools=$(echo "$tools" | sed 's/ perf//')
if command -v bpftrace > /dev/null; then
	tools="$tools bpftrace"
else
	echo "KTRACE-NOTE bench bpftrace: not in the initramfs"
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
pass bench-hist-ran
