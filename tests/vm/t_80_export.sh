#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace export in the guest, fetched with busybox wget on loopback: -e
# counts, the read-sizes and syscalls-by-name recipes and --latency
# (--syscall read) as Prometheus
# metrics, checked against a process whose reads are known (one read of 1
# byte, five of 100); then the signals: SIGTERM removes the instance,
# SIGKILL leaves it to the next ktrace's sweep. The static ktrace has no
# HTTP server: the shared one runs as ktrace-shared (mkinitramfs.sh copies
# it with its libraries on x86-64); without it, export must refuse.
. /tests/lib.sh

D=/tmp/kt80
mkdir -p $D
on_exit "rm -rf $D"
on_exit ktrace_leftovers_remove
on_exit _kill_bg

if ! command -v ktrace-shared >/dev/null 2>&1; then
	expect_exit export-static-refuses 1 ktrace export -e sched:sched_switch -l 127.0.0.1:0
	expect_contains export-static-why "$OUT" "without an HTTP server"
	exit 0
fi
KT=ktrace-shared
busybox ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up
expect_ok export-shared-runs busybox timeout 30 $KT --version

# export_start ARGS...: in the background; EP, PORT
export_start() {
	: > $D/err
	$KT export -l 127.0.0.1:0 "$@" 2> $D/err &
	EP=$!
	bgpids="$bgpids $EP"
	PORT=
	for _ in $(seq 60); do
		PORT=$(sed -n 's|.*127.0.0.1:\([0-9]*\)/metrics.*|\1|p' $D/err)
		[ -n "$PORT" ] && return 0
		kill -0 $EP 2>/dev/null || break
		sleep 0.5
	done
	echo "export did not start: $(cat $D/err)"
}

metrics() {
	busybox wget -q -O - "http://127.0.0.1:$PORT${1:-/metrics}" 2>&1
}

# a process that reads from a FIFO 1 byte, then 5 x 100 bytes (dd counts
# a short read as a record: 6 reads)
mkfifo $D/go
sh -c "exec dd if=$D/go of=/dev/null bs=100 count=6 2>/dev/null" &
P=$!
bgpids="$bgpids $P"
# dd started and asleep in the FIFO's open before anything is counted: a
# read of its own start-up (a starved guest is slow to exec) would be
# paired by the latency histogram, set up before the -e counter
for _ in $(seq 100); do
	[ "$(cat /proc/$P/comm 2>/dev/null)" = dd ] &&
		grep -q '^[0-9]* (dd) S' /proc/$P/stat 2>/dev/null && break
	sleep 0.1
done
export_start -p $P -e syscalls:sys_enter_read -r read-sizes -r syscalls-by-name \
	--latency '--syscall read'
if [ -z "$PORT" ]; then
	fail export-start "no port: $(cat $D/err)"
	exit 1
fi
pass export-start
OUT=$(metrics)
expect_contains export-before "$OUT" 'ktrace_events_total{event="syscalls:sys_enter_read"} 0'
# the FIFO opened at once, its byte written 2.5 s later: the first read
# waits at least 2.5 s, above 2^21 us; each of the others 0.1 s, far
# below it even in a guest starved by make check's host tiers
sh -c "exec 3> $D/go; sleep 2.5; printf x >&3
	for i in 1 2 3 4 5; do sleep 0.1; head -c 100 /dev/zero >&3; done" &
wait $P
OUT=$(metrics)
# the scrape in the log, for promtool check metrics on the host
printf '%s\n' "$OUT" | sed 's/^/KTRACE-METRICS /'
expect_contains export-events "$OUT" 'ktrace_events_total{event="syscalls:sys_enter_read"} 6'
expect_contains export-hist-type "$OUT" '# TYPE ktrace_read_sizes histogram'
expect_contains export-hist-le1 "$OUT" 'ktrace_read_sizes_bucket{le="1"} 1'
expect_contains export-hist-le64 "$OUT" 'ktrace_read_sizes_bucket{le="64"} 1'
expect_contains export-hist-le128 "$OUT" 'ktrace_read_sizes_bucket{le="128"} 6'
expect_contains export-hist-inf "$OUT" 'ktrace_read_sizes_bucket{le="+Inf"} 6'
expect_contains export-hist-sum "$OUT" 'ktrace_read_sizes_sum 501'
expect_contains export-hist-count "$OUT" 'ktrace_read_sizes_count 6'
expect_contains export-counter "$OUT" 'ktrace_syscalls_by_name_hits_total{id="sys_read"} 6'
expect_contains export-dropped "$OUT" 'ktrace_hist_dropped_total{recipe="read-sizes"} 0'
expect_contains export-errors "$OUT" 'ktrace_scrape_errors_total 0'
expect_contains export-duration "$OUT" 'ktrace_scrape_duration_seconds '
expect_contains export-lat-type "$OUT" '# TYPE ktrace_latency_microseconds histogram'
expect_contains export-lat-fast "$OUT" 'ktrace_latency_microseconds_bucket{le="2097152"} 5'
expect_contains export-lat-slow "$OUT" 'ktrace_latency_microseconds_bucket{le="+Inf"} 6'
expect_contains export-lat-count "$OUT" 'ktrace_latency_microseconds_count 6'
lsum=$(printf '%s\n' "$OUT" | sed -n 's/^ktrace_latency_microseconds_sum //p')
if [ -n "$lsum" ] && [ "$lsum" -ge 3000000 ] && [ "$lsum" -lt 16000000 ]; then
	pass export-lat-sum
else
	fail export-lat-sum "sum '$lsum' us, not 2.5 + 5 x 0.1 s and a little"
fi
run metrics /nope
expect_contains export-404 "$OUT" "404"
kill -TERM $EP
wait $EP
expect_eq export-sigterm-status 0 $?
expect_no_ktrace export-sigterm-clean

# SIGKILL: the instance stays until the next ktrace that makes one
export_start -r syscalls-by-name
kill -KILL $EP
wait $EP 2>/dev/null
expect_file export-sigkill-left $T/instances/ktrace_$EP
expect_ok export-sweep $KT export -r syscalls-by-name -l 127.0.0.1:0 -d 1
expect_no_ktrace export-sigkill-swept
