#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/ftrace-vm.sh: the function tracer, `ktrace ftrace -f ... -- W`
# (live text), and `ktrace ftrace -o FILE` + `ktrace report`, against
# `trace-cmd record -p function -l ... -F W` + `trace-cmd report`, in the Debian 6.12 x86-64 VM of tests/vm (this host's
# kernel, in lockdown, refuses the function tracer). qemu runs under TCG
# with one CPU and -icount shift=0: guest times are counts of guest
# instructions, the same whatever the host's load; compare ratios only.
#
# Workload: `bench_sys N` (N getppid(2) calls, N = 1e5), traced on the
# functions of its system call path that the kernel can trace (~10-20, the
# list in tests/vm/x_bench_ftrace.sh, which is the in-VM half), both tools
# limited to the command (set_ftrace_pid). Per tool (medians over the
# rounds): records shown, records lost (as the tool says), the tool's CPU
# (user+sys of its phases minus the workload's own), CPU per record, bytes
# written, and the ratio of ktrace's CPU per record to trace-cmd's
# (target of issue 24: <= 0.5 with no more loss). Then function_graph
# (where the kernel has it): `ktrace ftrace --graph` against trace-cmd
# record -p function_graph + report on bench_sys N/4, per call (a call's
# entry line).
#
# Needs qemu (scripts/deps.sh vm) and trace-cmd on the host (it goes into
# this run's initramfs with its libraries, KTRACE_VM_EXTRA_BINS).
# Environment: BENCH_FT_N (default 100000), BENCH_FT_ROUNDS (default 3),
# BENCH_FT_TOOLS (the rows, comma-separated; default all: ktrace,
# ktrace-o, trace-cmd, ktrace-graph, trace-cmd-graph),
# BENCH_FT_KERNEL (default 6.12), BENCH_FT_QEMU_OPTS (default "-icount
# shift=0"). Output: the markdown table on stdout and in
# bench/out/ftrace-vm.md. Exit status 1 when the VM run failed or a tool
# gave no records.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
N=${BENCH_FT_N:-100000}
R=${BENCH_FT_ROUNDS:-3}
KERNEL=${BENCH_FT_KERNEL:-6.12}
OUTDIR=$ROOT/bench/out
MD=$OUTDIR/ftrace-vm.md
BIN=$ROOT/build/bench
RUNLOG=$ROOT/build/vm/ftrace-bench.run.log
die() { echo "bench/ftrace-vm.sh: $*" >&2; exit 1; }

command -v trace-cmd > /dev/null || die "no trace-cmd (scripts/deps.sh bench)"
make -s -j2 ktrace-static > /dev/null || die "make ktrace-static failed"
mkdir -p "$BIN" "$OUTDIR" "$ROOT/build/vm"
gcc -O1 -g -Wall -static -o "$BIN/bench_sys" bench/bench_sys.c ||
	die "cannot build bench/bench_sys.c"
gcc -O1 -g -Wall -static -o "$BIN/bench_ru" bench/bench_ru.c ||
	die "cannot build bench/bench_ru.c"
extra="$BIN/bench_sys $BIN/bench_ru $(command -v trace-cmd)"
per=$(( (N / 1000 + 20) * 10 ))	# s per round: trace-cmd report is slow under TCG
echo "booting $KERNEL: N=$N, $R round(s)"
KTRACE_VM_KERNELS=$KERNEL KTRACE_VM_JOBS=1 KTRACE_VM_MEM=2048 \
	KTRACE_VM_TESTS=x_bench_ftrace.sh KTRACE_VM_EXTRA_BINS="$extra" \
	KTRACE_VM_APPEND="ktrace.bench_n=$N ktrace.bench_rounds=$R${BENCH_FT_TOOLS:+ ktrace.bench_tools=$BENCH_FT_TOOLS}" \
	KTRACE_VM_QEMU_OPTS="${BENCH_FT_QEMU_OPTS--icount shift=0}" \
	KTRACE_VM_TEST_TIMEOUT=$((R * per + 120)) KTRACE_VM_TIMEOUT=$((R * per * 2 + 400)) \
	tests/vm/run.sh > "$RUNLOG" 2>&1
vmrc=$?
LOG=$ROOT/build/vm/$KERNEL.log
grep -aq '^KTRACE-BENCH ' "$LOG" || die "no results in $LOG (run.sh: $RUNLOG)"

{
echo "ktrace ftrace vs trace-cmd, function tracer, bench_sys $N in the $KERNEL VM (TCG, -icount: guest instructions as ns), medians of $R round(s)"
echo
echo "functions:$(grep -a '^KTRACE-BENCH-FUNCS' "$LOG" | tail -n 1 | cut -d' ' -f2-)"
echo
grep -a '^KTRACE-BENCH ' "$LOG" | awk '
function med(tool, col,   n, i, j, t, v) {
	n = 0
	for (i = 1; i <= rounds; i++)
		if ((i, tool) in row) { split(row[i, tool], v, " "); a[++n] = v[col] }
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? a[int((n + 1) / 2)] : "-"
}
{ row[$2, $3] = $4 " " $5 " " $6 " " $7 " " $8; if ($2 > rounds) rounds = $2 }
END {
	print "| tool | records | lost | workload CPU us | tool CPU us | tool us/record | bytes |"
	print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	nt = split("none ktrace ktrace-o trace-cmd ktrace-graph trace-cmd-graph", tools, " ")
	for (k = 1; k <= nt; k++) {
		if (!((1, tools[k]) in row))
			continue
		t = tools[k]; rec = med(t, 1); cpu = med(t, 4)
		per[t] = rec > 0 ? cpu / rec : 0
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", t, rec, med(t, 2), med(t, 3), cpu,
			(rec > 0 ? sprintf("%.2f", per[t]) : "-"), med(t, 5)
	}
	if (per["trace-cmd"] > 0)
		printf "\nktrace/trace-cmd CPU per record: %.2fx live, %.2fx with -o + report (target <= 0.5x)\n", per["ktrace"] / per["trace-cmd"], per["ktrace-o"] / per["trace-cmd"]
	if (per["trace-cmd-graph"] > 0)
		printf "function_graph, CPU per call: %.2fx live\n", per["ktrace-graph"] / per["trace-cmd-graph"]
}'
grep -a '^KTRACE-BENCH-SAID ' "$LOG" | sed 's/^KTRACE-BENCH-SAID /\nround /' | sed -n 's/^round \([0-9]*\) \([^ ]*\) \(.*\)/round \1, \2 said: \3/p'
} | tee "$MD"
[ $vmrc = 0 ] || die "the VM run failed: $RUNLOG"
