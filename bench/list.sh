#!/bin/bash
# `ktrace list` (every event) against `trace-cmd list -e` and
# `perf list tracepoint`, same machine, same run. The commands run in turn,
# round after round (bench_alt), so that a slow spell of a shared machine
# falls on each alike; medians of wall and CPU time, and their ratios
# (lower is better for ktrace).
# Needs root, trace-cmd and linux-perf
# (scripts/deps.sh bench).
# N: rounds against trace-cmd (default 1000); NP: against perf (default 20,
# perf list takes ~30 ms).
set -eu
cd "$(dirname "$0")/.."
N=${N:-1000}
NP=${NP:-20}
K=./ktrace
for t in trace-cmd perf; do
	command -v $t >/dev/null || { echo "bench/list.sh: $t not installed"; exit 1; }
done
[ -x $K ] || { echo "bench/list.sh: build ktrace first (make ktrace)"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
gcc -O2 -Wall -o "$W/bench_alt" bench/bench_alt.c

kn=$($K list | wc -l)
tn=$(trace-cmd list -e 2>/dev/null | wc -l)
pn=$(perf list tracepoint 2>/dev/null | grep -c 'Tracepoint event')
# the same events, or the times compare different work
[ "$kn" = "$tn" ] || echo "bench/list.sh: ktrace lists $kn events, trace-cmd $tn"

"$W/bench_alt" "$N" $K list -- trace-cmd list -e > "$W/tc"
"$W/bench_alt" "$NP" $K list -- perf list tracepoint > "$W/perf"
read -r kw kc kf < <(sed -n 1p "$W/tc")
read -r tw tc tf < <(sed -n 2p "$W/tc")
read -r kpw kpc kpf < <(sed -n 1p "$W/perf")
read -r pw pc pf < <(sed -n 2p "$W/perf")
[ "$kf$tf$kpf$pf" = 0000 ] || echo "bench/list.sh: failed runs: ktrace $kf+$kpf, trace-cmd $tf, perf $pf"

echo "median of $N rounds (perf: $NP), us:"
printf '%-22s %9s %9s %8s\n' "" wall cpu events
printf '%-22s %9s %9s %8s\n' "ktrace list" "$kw" "$kc" "$kn"
printf '%-22s %9s %9s %8s\n' "trace-cmd list -e" "$tw" "$tc" "$tn"
printf '%-22s %9s %9s %8s\n' "perf list tracepoint" "$pw" "$pc" "$pn"
printf 'ratio ktrace/trace-cmd: wall %s  cpu %s\n' \
	"$(echo "scale=3; $kw / $tw" | bc)" "$(echo "scale=3; $kc / $tc" | bc)"
printf 'ratio ktrace/perf:      wall %s  cpu %s\n' \
	"$(echo "scale=3; $kpw / $pw" | bc)" "$(echo "scale=3; $kpc / $pc" | bc)"
