#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/callgraph.sh: reading a profile's call graph, ktrace against perf
# report, on recordings of one workload. Needs root and linux-perf.
#
# Workload: tests/targets/chain N alt (main -> alpha_fn or delta_fn ->
# beta_fn -> beta_fn -> syscall(getppid), N times), built here with frame
# pointers so that both tools record the same stacks the same way
# (--call-graph fp: perf report then reads them as they are, with no
# unwinding of its own to charge it for); event
# syscalls:sys_enter_getppid, every record with its stack: N samples.
# (gamma_fn calls libc's syscall(), which keeps no frame pointer: in fp
# stacks gamma_fn is skipped, so the callers asked for are beta_fn's.)
#
# Timed (wall seconds and peak RSS from /usr/bin/time -v), each once:
#   ktrace report -i K --children               perf report -i P --children --stdio
#   ktrace report -i K --callers beta_fn        perf report -i P --children --stdio -S beta_fn -g caller
# and the ratios ktrace/perf.
# N: BENCH_CG_N (default 1000000).
set -u
cd "$(dirname "$0")/.."
N=${BENCH_CG_N:-1000000}
K=$PWD/ktrace
W=$(mktemp -d /dev/shm/ktrace-cg.XXXXXX)
trap 'rm -rf "$W"' EXIT
for t in perf gcc /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench/callgraph.sh: $t not installed"; exit 1; }
done
[ -x "$K" ] || { echo "bench/callgraph.sh: run make ktrace first"; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -Wall -o $W/chain tests/targets/chain.c ||
	exit 1
EV=syscalls:sys_enter_getppid

$K record --call-graph fp -o $W/k.dat -e $EV -- $W/chain $N alt \
	>/dev/null 2>$W/k.rec || { echo "ktrace record: $(tail -2 $W/k.rec)"; exit 1; }
perf record -q --call-graph fp -o $W/p.dat -e $EV -- $W/chain $N alt \
	>/dev/null 2>$W/p.rec || { echo "perf record: $(tail -2 $W/p.rec)"; exit 1; }

# timed NAME CMD...: "seconds maxrss_kb" of one run into $W/NAME.t,
# its output into $W/NAME.out
timed() {
	local name=$1; shift
	/usr/bin/time -v -o $W/$name.tv "$@" >$W/$name.out 2>$W/$name.err ||
		{ echo "$name failed: $(tail -2 $W/$name.err)"; return 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident set size/ { m = $2 }
		END { print s, m }' $W/$name.tv >$W/$name.t
}
timed k-children $K report -i $W/k.dat --children || exit 1
timed p-children perf report -i $W/p.dat --children --stdio || exit 1
timed k-callers $K report -i $W/k.dat --callers beta_fn || exit 1
timed p-callers perf report -i $W/p.dat --children --stdio -S beta_fn \
	-g caller || exit 1

samples() { # the samples each tool's report says it read
	case $1 in
	k) awk '/^# Samples:/ { print $3 + 0; exit }' $W/k-children.out ;;
	p) awk '/^# Samples:/ { print $3; exit }' $W/p-children.out ;;
	esac
}
echo "# call-graph reports: ktrace against perf report, $N records of chain (fp stacks)"
echo
echo "$(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); files: ktrace $(stat -c %s $W/k.dat) bytes, perf $(stat -c %s $W/p.dat) bytes; samples read: ktrace $(samples k), perf $(samples p)"
echo
echo "| report | ktrace s | perf s | time ×perf | ktrace peak RSS MB | perf peak RSS MB | RSS ×perf |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for r in children callers; do
	read -r ks km <$W/k-$r.t
	read -r ps pm <$W/p-$r.t
	awk -v r="$r" -v ks=$ks -v ps=$ps -v km=$km -v pm=$pm 'BEGIN {
		printf "| --%s | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f |\n",
			r, ks, ps, ps ? ks / ps : 0, km / 1024, pm / 1024,
			pm ? km / pm : 0 }'
done
