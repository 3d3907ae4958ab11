#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/trace.sh: `ktrace trace` (each call printed, and -s, the summary)
# against `strace -f` (and -c) and `perf trace` (and -s) on the same
# workload in one run: bench_sys N, N getppid(2) calls (N = 1e5,
# BENCH_TRACE_N), each tool limited to that call and to the command. Per
# tool: calls it shows (or counts), wall time of the traced run, the
# workload's own CPU (its getrusage at exit, in that run: ptrace's stops
# land there and in the wall time), the tool's CPU (its own user+sys and
# that of what it waited for but the workload, read when it has exited:
# clock ticks), tool CPU per call, and the
# ratios of ktrace's wall and tool CPU to strace's and perf trace's.
# Needs root, strace and linux-perf (scripts/deps.sh integration bench).
# Output: a markdown table on stdout and in bench/out/trace.md.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
K=$ROOT/ktrace
N=${BENCH_TRACE_N:-100000}
die() { echo "bench/trace.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$K" ] || die "no ./ktrace: run make ktrace"
for t in strace perf gcc; do
	command -v $t > /dev/null || die "$t not installed (scripts/deps.sh bench)"
done
W=$(mktemp -d /tmp/ktrace-bench-trace.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$W"' EXIT
for p in bench_sys bench_ru; do
	gcc -O1 -g -Wall -o "$W/$p" "bench/$p.c" || die "cannot build bench/$p.c"
done
export BENCH_RUSAGE=$W/wl.ru
mkdir -p bench/out
MD=bench/out/trace.md

# TOOL CALLS CMD...: one row "TOOL CALLS WALL_US WL_US TOOL_US"; CALLS is
# a command run on the tool's output file $W/out
row() {
	local tool=$1 calls=$2 wall cpu wl
	shift 2
	rm -f "$W/out" "$BENCH_RUSAGE"
	"$W/bench_ru" "$W/ru" "$@" > "$W/stdout" 2> "$W/stderr" ||
		echo "bench/trace.sh: $tool exited $?: $(tail -2 "$W/stderr")" >&2
	[ -s "$W/out" ] || cp "$W/stdout" "$W/out"
	wl=$(awk '{ print $1 + $2 }' "$BENCH_RUSAGE" 2>/dev/null || echo 0)
	# the tool's own CPU, and what it waited for but the workload (a
	# tool that lets the kernel reap the workload, as perf trace does,
	# has it in neither: bench_ru.c)
	read -r wall cpu < <(awk -v wl="$wl" '{ w = $7 >= wl / 2 ? $7 - wl : $7
		print $1, $6 + (w > 0 ? w : 0) }' "$W/ru")
	echo "$tool $(sh -c "$calls" < "$W/out") $wall $wl $cpu"
}

WL="$W/bench_sys $N"
{
row none "echo $N" $WL
row ktrace "grep -c ': getppid('" "$K" trace -e getppid -- $WL
row ktrace-s "awk '\$1 == \"getppid\" { print \$2 }'" "$K" trace -s -e getppid -- $WL
row strace "grep -c 'getppid()'" strace -f -qq -e trace=getppid -o "$W/out" $WL
row strace-c "awk '\$NF == \"getppid\" { print \$4 }'" strace -f -c -e trace=getppid -o "$W/out" $WL
row perf-trace "grep -c 'getppid()'" perf trace -e getppid -o "$W/out" -- $WL
row perf-trace-s "awk '\$1 == \"getppid\" { print \$2 }'" perf trace -s -e getppid -o "$W/out" -- $WL
} > "$W/rows"

{
echo "ktrace trace vs strace -f and perf trace: bench_sys $N (getppid), $(uname -r), $(nproc) CPUs"
echo
awk -v n="$N" '
{ tool[NR] = $1; calls[$1] = $2; wall[$1] = $3; wl[$1] = $4; cpu[$1] = $5 }
END {
	print "| tool | calls | wall ms | workload CPU ms | tool CPU ms | tool us/call |"
	print "| --- | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= NR; i++) {
		t = tool[i]
		printf "| %s | %s | %.1f | %.1f | %s | %s |\n", t, calls[t],
			wall[t] / 1000, wl[t] / 1000,
			t == "none" ? "-" : sprintf("%.1f", cpu[t] / 1000),
			t == "none" ? "-" : sprintf("%.2f", cpu[t] / n)
	}
	print ""
	printf "ktrace/strace: wall %.2fx, tool CPU %.2fx; -s/-c: wall %.2fx, tool CPU %.2fx\n",
		wall["ktrace"] / wall["strace"], cpu["ktrace"] / cpu["strace"],
		wall["ktrace-s"] / wall["strace-c"], cpu["ktrace-s"] / cpu["strace-c"]
	printf "ktrace/perf trace: wall %.2fx, tool CPU %.2fx; -s: wall %.2fx, tool CPU %.2fx\n",
		wall["ktrace"] / wall["perf-trace"], cpu["ktrace"] / cpu["perf-trace"],
		wall["ktrace-s"] / wall["perf-trace-s"], cpu["ktrace-s"] / cpu["perf-trace-s"]
}' "$W/rows"
} | tee "$MD"
