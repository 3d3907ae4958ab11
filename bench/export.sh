#!/bin/bash
# ktrace export: the cost of a scrape with 10, 100 and 1,000 series (-e
# events, each one series: time of GET /metrics as curl sees it, the
# exporter's own ktrace_scrape_duration_seconds, bytes), and the
# exporter's CPU over SECS seconds scraped every second while
# bench_sys makes ~1e5 getppid calls a second (counted by perf, so the
# exporter does no per-event work), against `ktrace record | wc -l`
# counting the same events in user space.
# Needs root and curl. SECS (default 30), ROUNDS scrapes per size (20).
set -eu
cd "$(dirname "$0")/.."
SECS=${SECS:-30}
ROUNDS=${ROUNDS:-20}
K=./ktrace
[ -x $K ] || { echo "bench/export.sh: build ktrace first (make ktrace)"; exit 1; }
W=$(mktemp -d)
EP=
trap '[ -n "$EP" ] && kill $EP 2>/dev/null; rm -rf "$W"' EXIT
gcc -O2 -Wall -o "$W/bench_sys" bench/bench_sys.c

start() { # ARGS...: export on any port; EP, PORT
	$K export -l 127.0.0.1:0 "$@" 2>"$W/err" &
	EP=$!
	for _ in $(seq 600); do
		PORT=$(sed -n 's|.*127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$W/err")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	echo "bench/export.sh: export did not start: $(cat "$W/err")"; exit 1
}
stop() { kill $EP; wait $EP; EP=; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

$K list 'syscalls:*' >"$W/events"
echo "| series | scrape (curl) ms | inside ktrace ms | bytes |"
echo "|---:|---:|---:|---:|"
for n in 10 100 1000; do
	have=$(wc -l <"$W/events")
	if [ "$have" -lt $n ]; then
		$K list >"$W/events"
	fi
	head -n $n "$W/events" | paste -sd, >"$W/list"
	start -e "$(cat "$W/list")"
	for _ in $(seq $ROUNDS); do
		curl -s -o "$W/body" -w '%{time_total}\n' http://127.0.0.1:$PORT/metrics >>"$W/t$n"
		sed -n 's/^ktrace_scrape_duration_seconds //p' "$W/body" >>"$W/d$n"
	done
	series=$(grep -c '^ktrace_events_total' "$W/body")
	printf '| %d | %.2f | %.3f | %d |\n' "$series" \
		"$(median <"$W/t$n" | awk '{ print $1 * 1000 }')" \
		"$(median <"$W/d$n" | awk '{ print $1 * 1000 }')" \
		"$(wc -c <"$W/body")"
	stop
done

# CPU at a 1 s scrape interval under ~1e5 events/s
hz=$(getconf CLK_TCK)
start -e syscalls:sys_enter_getppid
c0=$(cpu_ticks $EP)
(for _ in $(seq $SECS); do "$W/bench_sys" 100000 >/dev/null 2>&1; done) &
WL=$!
for _ in $(seq $SECS); do
	curl -s -o /dev/null http://127.0.0.1:$PORT/metrics
	sleep 1
done
wait $WL
c1=$(cpu_ticks $EP)
n=$(curl -s http://127.0.0.1:$PORT/metrics | sed -n 's/^ktrace_events_total{[^}]*} //p')
stop
echo
echo "exporter over $SECS s (1 scrape/s, $n getppid counted): $(( (c1 - c0) * 1000 / hz )) ms CPU = $(awk -v c=$((c1 - c0)) -v h=$hz -v s=$SECS 'BEGIN { printf "%.3f", c / h / s * 100 }') % of one CPU"
# the same count in user space: every event copied out and counted;
# record's CPU is its run's (workload included) minus the workload's alone
WLCMD="for i in \$(seq $SECS); do $W/bench_sys 100000 >/dev/null 2>&1; done"
/usr/bin/time -f '%U %S' -o "$W/wl" sh -c "$WLCMD"
/usr/bin/time -f '%U %S' -o "$W/rec" $K record -e syscalls:sys_enter_getppid -- \
	sh -c "$WLCMD" 2>/dev/null | wc -l >"$W/recn"
echo "ktrace record | wc -l, the same workload: $(cat "$W/recn") lines, $(paste "$W/rec" "$W/wl" | awk '{ printf "%.0f", ($1 + $2 - $3 - $4) * 1000 }') ms CPU added to the workload's (wc not counted)"
