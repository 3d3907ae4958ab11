#!/bin/bash
# `ktrace list` (every event) against `trace-cmd list -e` and
# `perf list tracepoint`, same machine, same run. Prints the mean wall time
# of each and the ratios (lower is better for ktrace).
# Needs root, trace-cmd and linux-perf
# (KTRACE_EXTRA_PKGS="linux-perf trace-cmd" scripts/deps.sh).
set -eu
cd "$(dirname "$0")/.."
N=${N:-20}
K=./ktrace
for t in trace-cmd perf; do
	command -v $t >/dev/null || { echo "bench/list.sh: $t not installed"; exit 1; }
done
run() { # CMD... -> mean ms over N runs
	"$@" >/dev/null 2>&1 # warm the caches
	local t0 t1
	t0=$(date +%s%N)
	for _ in $(seq $N); do "$@" >/dev/null 2>&1; done
	t1=$(date +%s%N)
	echo "scale=2; ($t1 - $t0) / $N / 1000000" | bc
}
kn=$($K list | wc -l)
tn=$(trace-cmd list -e 2>/dev/null | wc -l)
pn=$(perf list tracepoint 2>/dev/null | grep -c 'Tracepoint event')
kt=$(run $K list)
tt=$(run trace-cmd list -e)
pt=$(run perf list tracepoint)
printf '%-28s %8s ms  (%d events)\n' "ktrace list" "$kt" "$kn"
printf '%-28s %8s ms  (%d events)\n' "trace-cmd list -e" "$tt" "$tn"
printf '%-28s %8s ms  (%d events)\n' "perf list tracepoint" "$pt" "$pn"
printf 'ratio ktrace/trace-cmd: %s\n' "$(echo "scale=3; $kt / $tt" | bc)"
printf 'ratio ktrace/perf:      %s\n' "$(echo "scale=3; $kt / $pt" | bc)"
