#!/bin/bash
# `ktrace list` (all tracepoints) against `perf list tracepoint`, same
# machine, same run. Prints the mean wall time of each and the ratio.
# Needs root and linux-perf (KTRACE_EXTRA_PKGS=linux-perf scripts/deps.sh).
set -eu
cd "$(dirname "$0")/.."
N=${N:-20}
K=./ktrace
command -v perf >/dev/null || { echo "bench/list.sh: perf not installed (apt-get install linux-perf)"; exit 1; }
run() { # CMD... -> mean ms over N runs
	"$@" >/dev/null 2>&1 # warm the caches
	local t0 t1
	t0=$(date +%s%N)
	for _ in $(seq $N); do "$@" >/dev/null 2>&1; done
	t1=$(date +%s%N)
	echo "scale=2; ($t1 - $t0) / $N / 1000000" | bc
}
kn=$($K list | wc -l)
pn=$(perf list tracepoint 2>/dev/null | grep -c 'Tracepoint event')
kt=$(run $K list)
pt=$(run perf list tracepoint)
printf '%-28s %8s ms  (%d events)\n' "ktrace list" "$kt" "$kn"
printf '%-28s %8s ms  (%d events)\n' "perf list tracepoint" "$pt" "$pn"
printf 'ratio ktrace/perf: %s (lower is better)\n' "$(echo "scale=4; $kt / $pt" | bc)"
