#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/offcpu.sh: off-CPU time, ktrace against perf, same machine, same run.
# Needs root and linux-perf (scripts/deps.sh bench).
#
# Workload: bench_pingpong N (bench/bench_pingpong.c, built static): two
# threads pass a token through a futex N times each way: 2N switches,
# ~1.2e5 a second on the 2-CPU host, about half of them a wait off the
# CPU (SCHED_OTHER: the woken thread often preempts its waker, which then
# finds the token back and does not wait).
#
# Tracers (the same stacks: kernel chain, user stack by DWARF for ktrace
# -g, frame pointers for perf -g, as perf does without --call-graph):
#   ktrace   ktrace record --off-cpu -o F (the periods paired while
#            recording: one sample per wait, its time and stack; user
#            stacks by DWARF), then ktrace report -i F --folded (what a
#            flame graph takes)
#   ktrace-fp  the same with --call-graph fp, perf -g's mode
#   perf     perf record -e sched:sched_switch -g -o F (every switch with
#            its stack; the pairing is left to whatever reads it), then
#            perf script -i F (the text a pairing script or
#            stackcollapse-perf.pl reads)
#   perf --off-cpu  tried, and said what it does (Debian's 6.1 lacks the
#            BPF skeletons it needs)
# Measured per tracer: the tracer's own CPU while recording (user+sys of
# the tracer and its children, minus the workload's own RUSAGE_SELF,
# which holds the in-kernel work done in its context), the workload's wall
# time, the file's bytes, the CPU of the report step, records lost.
# N: BENCH_OFFCPU_N (default 200000).
set -u
cd "$(dirname "$0")/.."
N=${BENCH_OFFCPU_N:-200000}
K=$PWD/ktrace
W=$(mktemp -d /dev/shm/ktrace-offcpu.XXXXXX)
trap 'rm -rf "$W"' EXIT
for t in perf gcc; do
	command -v $t >/dev/null || { echo "bench/offcpu.sh: $t not installed"; exit 1; }
done
[ -x "$K" ] || { echo "bench/offcpu.sh: run make ktrace first"; exit 1; }
gcc -O1 -g -Wall -o $W/bench_ru bench/bench_ru.c &&
	gcc -O1 -g -Wall -static -pthread -o $W/pp bench/bench_pingpong.c ||
	exit 1
RU=$W/bench_ru
export BENCH_RUSAGE=$W/self

# ru FILE -> "wall_us cpu_us" of a bench_ru line
ru() { awk '{ print $1, $2 + $3 }' "$1"; }
self() { awk '{ print $1 + $2 }' $W/self; }

# The workload alone.
$RU $W/ru.base $W/pp $N normal 2>/dev/null || exit 1
read -r base_wall base_cpu < <(ru $W/ru.base)
echo "workload: bench_pingpong $N normal: $(awk -v w=$base_wall -v n=$N \
	'BEGIN { printf "%.2f s, %.0f hand-overs a second (each a switch: the other thread waits, or is preempted)", w / 1e6, 2 * n / (w / 1e6) }')"

# run NAME RECORD... ; then REPORT... after '--report'
# -> "NAME tracer_cpu_ms workload_wall_ms bytes report_cpu_ms"
row() { # NAME FILE RECORD-CMD...
	local name=$1 file=$2 wall cpu tracer bytes rwall rcpu
	shift 2
	rm -f "$file" $W/self
	$RU $W/ru.rec "$@" > /dev/null 2> $W/err.$name || {
		echo "$name: failed: $(tail -3 $W/err.$name)"; return 1; }
	read -r wall cpu < <(ru $W/ru.rec)
	tracer=$(( (cpu - $(self)) / 1000 ))
	bytes=$(stat -c %s "$file")
	echo "$name $tracer $((wall / 1000)) $bytes"
}

echo
printf '%-9s %14s %16s %14s %16s %s\n' tracer "record CPU ms" "workload wall ms" "file bytes" "report CPU ms" "lost / periods"
k=$(row ktrace $W/k.kt $K record --off-cpu -o $W/k.kt -- $W/pp $N normal) || exit 1
$RU $W/ru.krep $K report -i $W/k.kt --folded > $W/k.folded 2>&1
kperiods=$(grep -o 'offcpu-time: [0-9]*' $W/err.ktrace | awk '{ print $2 }')
klost=$(grep -o 'LOST [0-9]*' $W/err.ktrace | awk '{ print $2 }')
printf '%-9s %14s %16s %14s %16s %s\n' $k "$(( $(ru $W/ru.krep | cut -d' ' -f2) / 1000 ))" \
	"${klost:-0} lost, ${kperiods:-0} periods"

k=$(row ktrace-fp $W/kf.kt $K record --off-cpu --call-graph fp -o $W/kf.kt -- $W/pp $N normal) || exit 1
$RU $W/ru.kfrep $K report -i $W/kf.kt --folded > $W/kf.folded 2>&1
kperiods=$(grep -o 'offcpu-time: [0-9]*' $W/err.ktrace-fp | awk '{ print $2 }')
klost=$(grep -o 'LOST [0-9]*' $W/err.ktrace-fp | awk '{ print $2 }')
printf '%-9s %14s %16s %14s %16s %s\n' $k "$(( $(ru $W/ru.kfrep | cut -d' ' -f2) / 1000 ))" \
	"${klost:-0} lost, ${kperiods:-0} periods"

p=$(row perf $W/p.data perf record -e sched:sched_switch -g -o $W/p.data -- $W/pp $N normal) || exit 1
$RU $W/ru.prep perf script -i $W/p.data > $W/p.txt 2>/dev/null
plost=$(grep -io 'lost [0-9]* chunks\|[0-9]* lost samples' $W/err.perf | head -1)
precs=$(grep -c ' sched:sched_switch: ' $W/p.txt)
printf '%-9s %14s %16s %14s %16s %s\n' $p "$(( $(ru $W/ru.prep | cut -d' ' -f2) / 1000 ))" \
	"${plost:-0 lost}, $precs switches (not paired)"

echo
echo "perf record --off-cpu (perf $(perf --version | awk '{ print $3 }')):"
perf record --off-cpu -o $W/o.data -- $W/pp 1000 normal 2>&1 >/dev/null |
	sed 's/ *\[ perf record: .*//; /^$/d; s/^/  /'
