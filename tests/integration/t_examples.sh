# The examples run as documented: examples/hello_trace.c (libktrace through
# its public header only) and examples/walkthrough.sh (list, probe add,
# record, report, cleanup).

EXB=$PWD/build/examples

t_example_hello_trace_self() {
	expect_status 0 $EXB/hello_trace 'syscalls:sys_*_getppid' syscalls:sys_enter_getppid 4 || return 1
	expect_contains "list" "$OUT" "events matching 'syscalls:sys_*_getppid': 2
  syscalls:sys_enter_getppid (tracepoint)
  syscalls:sys_exit_getppid (tracepoint)" || return 1
	lines=$(echo "$OUT" | grep -E '^ *hello_trace +[0-9]+ \[[0-9]{3}\] [0-9]+\.[0-9]{9}: syscalls:sys_enter_getppid: ?$')
	expect_eq "records" "$(echo "$lines" | wc -l)" 4 || return 1
	expect_contains "first task" "$OUT" "first record from hello_trace (tid " || return 1
	expect_contains "totals" "$OUT" "captured 4 records, printed 4, lost 0"
}

t_example_hello_trace_command() {
	expect_status 0 $EXB/hello_trace 'sched:sched_process_ex*' syscalls:sys_enter_getppid 5 \
		$EXB/target 3 || return 1
	expect_contains "list" "$OUT" "  sched:sched_process_exec (tracepoint)" || return 1
	expect_contains "target ran" "$OUT" "target: 9 orders, total 99" || return 1
	expect_eq "records" "$(echo "$OUT" | grep -cE '^ *target +[0-9]+ \[[0-9]{3}\] .*: syscalls:sys_enter_getppid:')" 5 || return 1
	expect_contains "first task" "$OUT" "first record from target (tid " || return 1
	expect_contains "totals" "$OUT" "printed 5, lost 0" || return 1
	# errors: an unknown event, a bad usage
	expect_status 1 $EXB/hello_trace 'sched' nosuch:event 1 || return 1
	expect_contains "unknown event" "$ERR" "no such event 'nosuch:event'" || return 1
	expect_status 2 $EXB/hello_trace 'sched'
}

t_example_walkthrough() {
	g=kt_walk_$$
	GROUP=$g expect_status 0 examples/walkthrough.sh || return 1
	expect_contains "list" "$OUT" "__syscall_nr" || return 1
	expect_contains "probe add" "$OUT" "$g:order  (p:$g/order " || return 1
	# the arguments by name, as recorded and reported
	for i in 'item="apple" qty=1' 'item="bread" qty=2' 'item="cheese" qty=3'; do
		expect_eq "order $i" "$(echo "$OUT" | grep -c ": $g:order: .* $i\$")" 2 || return 1
	done
	for r in 5 10 18; do
		expect_eq "retval=$r" "$(echo "$OUT" | grep -c ": $g:order_done: .* retval=$r\$")" 2 || return 1
	done
	expect_eq "getppid" "$(echo "$OUT" | grep -c '^ *target .*syscalls:sys_enter_getppid')" 6 || return 1
	expect_contains "json" "$OUT" '"event": "'$g':order", "fields": {"__probe_ip": ' || return 1
	expect_contains "record summary" "$ERR" "18 records captured" || return 1
	# the trap removed the probes and the file
	grep -q "$g/" $TFS/dynamic_events && { fail "probes of $g left behind"; return 1; }
	file=$(echo "$OUT" | sed -n 's/.*report -i \([^ ]*\).*/\1/p' | head -1)
	[ -n "$file" ] && [ ! -e "$file" ] || fail "recording '$file' left behind"
}

t_example_walkthrough_interrupted() {
	g=kt_walk_int_$$
	GROUP=$g examples/walkthrough.sh >/tmp/ktrace-it-walk 2>&1 &
	wp=$!
	i=0
	until grep -q "$g/" $TFS/dynamic_events || ! kill -0 $wp 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && break
		sleep 0.05
	done
	kill -TERM $wp 2>/dev/null
	wait $wp
	grep -q "$g/" $TFS/dynamic_events && { fail "interrupted walkthrough left $g behind"; return 1; }
	return 0
}
