# ktrace record / report / stat against the real kernel: exact counts from
# the targets in tests/targets (syscaller: N getppid() calls; probed: hot()
# called N times; threads: a thread and a forked child), signals, -p/-a/-C,
# filters, files, JSON, call stacks, lost records.
#
# Other ktrace processes may run at the same time (other test suites): the
# checks look at this run's own probe group (ktrace_<pid of our ktrace>)
# and at records of our own target processes only.

SYSC=$TARGETS/syscaller
PROBED=$TARGETS/probed
THREADS=$TARGETS/threads
GETPPID_NR=$(python3 -c 'import platform; print({"x86_64": 110, "aarch64": 173}.get(platform.machine(), -1))')
RT=/tmp/ktrace-it-rec	# scratch files, overwritten by each run

# --------------------------------------------------------------- helpers

# Wait up to SECS for PID (our child) to exit; its status in $WST.
# Fails (after killing it) when it does not exit in time.
wait_exit() { # PID SECS
	local i=0 max=$(($2 * 10))
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $max ]; then
			kill -KILL "$1" 2>/dev/null; wait "$1" 2>/dev/null
			fail "process $1 did not exit within $2 s"; return 1
		fi
		sleep 0.1
	done
	wait "$1"; WST=$?
}

# Wait until FILE has a line matching REGEX (a target's "ready" line, a
# probe group in dynamic_events...).
group_of() { echo "ktrace_$1"; }
group_left() { # KTRACE_PID: is its probe group still in dynamic_events?
	grep -q "^[a-z]:ktrace_$1/" $TFS/dynamic_events
}

# Lines of a text recording for EVENT (system:event).
ev_lines() { grep -F " $1: " "$2"; }

# Fields of text lines: comm pid tid cpu time (pid/tid split, [cpu] bare).
text_fields() {
	awk '/^ *[^ ]+ +[0-9]+(\/[0-9]+)? +\[[0-9]+\] [0-9]+\.[0-9]+: / {
		pt = $2; n = split(pt, a, "/"); pid = a[1]; tid = n > 1 ? a[2] : a[1]
		cpu = $3; gsub(/[\[\]]/, "", cpu); t = $4; sub(/:$/, "", t)
		print $1, pid, tid, cpu + 0, t }' "$1"
}

# Are the timestamps (5th column of text_fields) non-decreasing?
times_sorted() { # FILE
	text_fields "$1" | awk '{ split($5, a, "."); t = a[1] * 1000000000 + a[2]
		if (NR > 1 && t < last) { print "line " NR ": " $5 " < previous"; bad = 1 }
		last = t } END { exit bad }'
}

# ------------------------------------------------------- tracepoint, child

t_record_tracepoint_exact_count_pid_comm() {
	# sh execs the target, so $$ in the shell is the target's pid.
	$KTRACE record -e syscalls:sys_enter_getppid -- \
		sh -c "echo \$\$ > $RT.pid; exec $SYSC 1000" >$RT.out 2>$RT.err \
		|| fail "record exited $?: $(cat $RT.err)" || return 1
	pid=$(cat $RT.pid)
	text_fields $RT.out > $RT.f
	# sh may call getppid() itself before its exec: those records say "sh"
	expect_eq "syscaller records" "$(awk '$1 == "syscaller"' $RT.f | wc -l)" 1000 || return 1
	expect_eq "other comms" "$(awk '$1 != "syscaller" {print $1}' $RT.f | sort -u)" "$(awk '$1 != "syscaller" {print "sh"}' $RT.f | sort -u)" || return 1
	expect_eq "pids" "$(awk '{print $2, $3}' $RT.f | sort -u)" "$pid $pid" || return 1
	nsh=$(awk '$1 == "sh"' $RT.f | wc -l)
	expect_contains "summary" "$(cat $RT.err)" "$((1000 + nsh)) records captured" || return 1
	out=$(times_sorted $RT.out) || fail "timestamps: $out"
}

t_record_exit_status_is_the_childs() {
	expect_status 3 $KTRACE record -e syscalls:sys_enter_getppid -- $SYSC 10 3 || return 1
	expect_eq "records" "$(echo "$OUT" | grep -c sys_enter_getppid)" 10 || return 1
	expect_status 0 $KTRACE record -e syscalls:sys_enter_getppid -- $SYSC 10 0 || return 1
	# a command that cannot run: 127 and a message
	expect_status 127 $KTRACE record -e syscalls:sys_enter_getppid -- /nonexistent/cmd || return 1
	expect_contains "stderr" "$ERR" "cannot run '/nonexistent/cmd'" || return 1
	# killed by a signal: 128 + signal
	expect_status 137 $KTRACE record -e syscalls:sys_enter_getppid -- sh -c 'kill -KILL $$'
}

t_record_timestamps_ordered_across_cpus() {
	# A thread and a child run at once (on both CPUs when there are two),
	# plus sched_switch: the merged output must be in time order.
	$KTRACE record -e syscalls:sys_enter_getppid -e sched:sched_switch -- \
		$THREADS 20000 >$RT.out 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	expect_eq "getppid records" "$(ev_lines syscalls:sys_enter_getppid $RT.out | wc -l)" 40000 || return 1
	out=$(times_sorted $RT.out) || fail "timestamps not in order: $out" || return 1
	if [ "$(nproc)" -gt 1 ]; then
		ncpu=$(text_fields $RT.out | awk '{print $4}' | sort -u | wc -l)
		[ "$ncpu" -gt 1 ] || echo "note: all records on one CPU" >&2
	fi
}

t_record_inherit_thread_and_child() {
	$KTRACE record -e syscalls:sys_enter_getppid -- sh -c "echo \$\$ > $RT.pid; exec $THREADS 300" \
		>$RT.out 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	pid=$(cat $RT.pid)
	text_fields $RT.out > $RT.f
	# the thread: pid = the target, tid another; the child: another pid
	expect_eq "thread records" "$(awk -v p=$pid '$2 == p && $3 != p' $RT.f | wc -l)" 300 || return 1
	expect_eq "child records" "$(awk -v p=$pid '$2 != p && $2 == $3' $RT.f | wc -l)" 300 || return 1
	# (sh may make a getppid() call of its own before the exec)
	expect_eq "main thread records" "$(awk -v p=$pid '$3 == p && $1 != "sh"' $RT.f | wc -l)" 0 || return 1
	expect_eq "comms" "$(awk '$1 != "sh" {print $1}' $RT.f | sort -u)" "threads"
}

# ---------------------------------------------------------- inline probes

t_record_uprobe_args_by_name() {
	$KTRACE record -j -e "uprobe:$PROBED:hot i" -- $PROBED 200 >$RT.out 2>$RT.err &
	kp=$!
	wait_exit $kp 30 || return 1
	[ "$WST" = 0 ] || fail "record exited $WST: $(cat $RT.err)" || return 1
	group_left $kp && { fail "group ktrace_$kp left in dynamic_events"; return 1; }
	python3 - $RT.out $kp <<'PY' || fail "uprobe records: $(head -c 400 $RT.out)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
recs = [r for r in recs if "event" in r]
assert [r["event"] for r in recs] == [f"ktrace_{sys.argv[2]}:hot"] * 200, recs[:2]
# hot(int i) is called with i = 0..199, in this order
assert [r["fields"]["i"] for r in recs] == list(range(200)), [r["fields"]["i"] for r in recs][:10]
assert all(r["comm"] == "probed" for r in recs)
assert len({r["pid"] for r in recs}) == 1
PY
}

t_record_uretprobe_retval() {
	$KTRACE record -j -e "uretprobe:$PROBED:hot \$retval" -- $PROBED 100 >$RT.out 2>$RT.err &
	kp=$!
	wait_exit $kp 30 || return 1
	[ "$WST" = 0 ] || fail "record exited $WST: $(cat $RT.err)" || return 1
	group_left $kp && { fail "group ktrace_$kp left in dynamic_events"; return 1; }
	python3 - $RT.out <<'PY' || fail "uretprobe records: $(head -c 400 $RT.out)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(recs) == 100, len(recs)
# hot(i) returns 2 * i + 1
assert [r["fields"]["retval"] for r in recs] == [2 * i + 1 for i in range(100)]
assert all(r["event"].endswith(":hot__return") for r in recs)
PY
}

t_record_uprobe_string_arg() {
	$KTRACE record -e "uprobe:$PROBED:parse_line line len" -- $PROBED 1 >$RT.out 2>$RT.err \
		|| fail "record: $(cat $RT.err)" || return 1
	expect_eq "parse_line" "$(grep -o 'line=.*' $RT.out)" 'line="a,b,c" len=5
line="one" len=3
line="x,y" len=3'
}

# ------------------------------------------------------------- signals

# record -a with an inline uprobe in the background, then SIG: the probe
# group goes away and ktrace exits 0.
sig_stops_record() { # SIG
	$KTRACE record -a -e "uprobe:$PROBED:hot i" >$RT.out 2>$RT.err &
	kp=$!
	wait_for_line $TFS/dynamic_events "ktrace_$kp/" 10 || { kill -KILL $kp; wait $kp; return 1; }
	sleep 0.5
	$PROBED 7 >/dev/null
	sleep 0.3
	kill -$1 $kp
	wait_exit $kp 10 || return 1
	expect_eq "exit status after SIG$1" "$WST" 0 || return 1
	group_left $kp && { fail "SIG$1: group ktrace_$kp left behind"; return 1; }
	expect_eq "records before SIG$1" "$(grep -c "ktrace_$kp:hot" $RT.out)" 7 || return 1
	expect_contains "summary" "$(cat $RT.err)" "7 records captured"
}

t_record_sigint_removes_probes() { sig_stops_record INT; }
t_record_sigterm_removes_probes() { sig_stops_record TERM; }

t_record_signal_with_command_ends_it() {
	# ktrace passes SIGTERM to its command and says which signal stopped
	# it: 128 + SIGINT, as shells do.
	$KTRACE record -e "uprobe:$PROBED:hot i" -- sleep 30 >$RT.out 2>$RT.err &
	kp=$!
	wait_for_line $TFS/dynamic_events "ktrace_$kp/" 10 || { kill -KILL $kp; wait $kp; return 1; }
	sleep 0.5
	spid=$(pgrep -P $kp sleep)
	kill -INT $kp
	wait_exit $kp 10 || return 1
	expect_eq "exit status (ktrace stopped by SIGINT)" "$WST" 130 || return 1
	[ -n "$spid" ] && kill -0 $spid 2>/dev/null && { kill $spid; fail "sleep still runs"; return 1; }
	group_left $kp && { fail "group ktrace_$kp left behind"; return 1; }
	return 0
}

t_record_sigkill_group_removed_at_next_start() {
	$KTRACE record -a -e "uprobe:$PROBED:hot i" >/dev/null 2>&1 &
	kp=$!
	wait_for_line $TFS/dynamic_events "ktrace_$kp/" 10 || { kill -KILL $kp; wait $kp; return 1; }
	sleep 0.3
	kill -KILL $kp
	wait $kp 2>/dev/null
	group_left $kp || fail "SIGKILL: the group went away by itself?" || return 1
	# listing touches nothing: only commands that create probes sweep
	$KTRACE list >/dev/null || fail "list failed" || return 1
	$KTRACE show >/dev/null || fail "show failed" || return 1
	$KTRACE probe add --dry-run -x $PROBED hot >/dev/null || fail "dry run failed" || return 1
	group_left $kp || fail "list/show/dry-run removed ktrace_$kp" || return 1
	$KTRACE record -e "uprobe:$PROBED:hot" -- $PROBED 1 >/dev/null 2>&1 ||
		fail "record with an inline probe failed" || return 1
	group_left $kp && { fail "the next inline probe did not sweep ktrace_$kp"; return 1; }
	return 0
}

# --------------------------------------------------------- -p, -a, -C

# Start a target that waits for SIGUSR1; its pid in $TP.
# The file is removed first: the redirection is made in the background
# child, maybe after wait_for_line has read the last test's "ready" line.
start_waiting() { # TARGET ARGS...
	rm -f $RT.ready
	"$@" > $RT.ready &
	TP=$!
	wait_for_line $RT.ready '^ready' 10
}

t_record_pid_exact_count() {
	start_waiting $SYSC 500 0 wait || return 1
	$KTRACE record -e syscalls:sys_enter_getppid -p $TP >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	expect_eq "status" "$WST" 0 || return 1
	expect_eq "records" "$(ev_lines syscalls:sys_enter_getppid $RT.out | wc -l)" 500 || return 1
	expect_eq "pids" "$(text_fields $RT.out | awk '{print $2}' | sort -u)" "$TP"
}

# -g -p / -a on a process that was running before ktrace: its maps are read
# from /proc at start, so its frames have names, not [unknown].
t_record_callgraph_of_running_process() {
	start_waiting $SYSC 200 0 wait || return 1
	$KTRACE record -g -e syscalls:sys_enter_getppid -p $TP >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	expect_eq "-p: stacks reaching main" "$(grep -cE '^\s+[0-9a-f]+ main\+0x[0-9a-f]+ \(.*/syscaller\)$' $RT.out)" 200 || return 1
	expect_eq "-p: no unknown frame" "$(grep -c '\[unknown\]' $RT.out)" 0 || return 1
	start_waiting $SYSC 20 0 wait || return 1
	$KTRACE record -g -a -e syscalls:sys_enter_getppid >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	# the stacks of the target's records (other processes record too)
	got=$(awk -v p="$TP" '/^ *[^ \t].* \[[0-9]+\] [0-9]+\.[0-9]+: / { mine = ($2 == p) }
		mine && /^[ \t]+[0-9a-f]+ main\+0x[0-9a-f]+ \(.*\/syscaller\)$/ { n++ }
		END { print n + 0 }' $RT.out)
	expect_eq "-a: stacks reaching main" "$got" 20
}

# -p on a target that exits: its comm must still be known (read when the
# recording starts, like the comm of a command's child).
t_record_pid_comm_of_exited_target() {
	start_waiting $SYSC 50 0 wait || return 1
	$KTRACE record -e syscalls:sys_enter_getppid -p $TP >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	expect_eq "comms" "$(text_fields $RT.out | awk '{print $1}' | sort -u)" "syscaller"
}

# -p: record stops by itself when every traced process is gone (like a
# command's end).
t_record_pid_stops_when_target_exits() {
	start_waiting $SYSC 50 0 wait || return 1
	$KTRACE record -e syscalls:sys_enter_getppid -p $TP >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 3
	if kill -0 $kp 2>/dev/null; then
		kill -INT $kp; wait $kp
		fail "record -p still runs 3 s after its target exited"
		return 1
	fi
	wait $kp
}

# -p PID covers the threads the process already has ("existing processes
# and their threads") and the children it forks afterwards.
t_record_pid_existing_threads() {
	start_waiting $THREADS 200 wait || return 1
	read -r _ pid tid < $RT.ready
	$KTRACE record -e syscalls:sys_enter_getppid -p $TP >$RT.out 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	text_fields $RT.out > $RT.f
	expect_eq "child records" "$(awk -v p=$pid '$2 != p' $RT.f | wc -l)" 200 || return 1
	expect_eq "records of the existing thread $tid" "$(awk -v t=$tid '$3 == t' $RT.f | wc -l)" 200
}

t_record_all_cpus_and_cpu_list() {
	[ "$(nproc)" -gt 1 ] || { echo "one CPU: -C part skipped" >&2; }
	last=$(( $(nproc) - 1 ))
	for mode in a C; do
		if [ $mode = a ]; then opt=-a; else opt="-C 0"; fi
		$KTRACE record $opt -e syscalls:sys_enter_getppid >$RT.out 2>$RT.err &
		kp=$!
		sleep 1
		taskset -c 0 $SYSC 300 & p0=$!; wait $p0
		taskset -c $last $SYSC 200 & p1=$!; wait $p1
		sleep 0.5
		kill -INT $kp
		wait_exit $kp 10 || return 1
		expect_eq "-$mode status" "$WST" 0 || return 1
		text_fields $RT.out > $RT.f
		expect_eq "-$mode cpu0 target" "$(awk -v p=$p0 '$2 == p && $4 == 0' $RT.f | wc -l)" 300 || return 1
		if [ $mode = a ]; then
			expect_eq "-a cpu$last target" "$(awk -v p=$p1 '$2 == p && $4 == '$last $RT.f | wc -l)" 200 || return 1
			# system-wide: other processes too, never missing ours
		elif [ $last != 0 ]; then
			expect_eq "-C 0: target on cpu$last" "$(awk -v p=$p1 '$2 == p' $RT.f | wc -l)" 0 || return 1
			expect_eq "-C 0: cpus" "$(awk '{print $4}' $RT.f | sort -u)" 0 || return 1
		fi
	done
}

# ------------------------------------------------------------- filters

t_record_filter_follows_its_event() {
	expect_status 0 $KTRACE record -e syscalls:sys_enter_getppid \
		--filter 'common_pid == 1' -- $SYSC 500 || return 1
	expect_eq "records" "$OUT" "" || return 1
	expect_contains "summary" "$ERR" "0 records captured" || return 1
	# the filter applies to the -e before it only
	expect_status 0 $KTRACE record -e "uprobe:$PROBED:hot i" --filter 'i >= 95' \
		-e syscalls:sys_enter_getppid -- sh -c "$PROBED 100; $SYSC 4" || return 1
	expect_eq "hot records" "$(echo "$OUT" | grep -o 'i=[0-9]*' | tr '\n' ' ')" "i=95 i=96 i=97 i=98 i=99 " || return 1
	expect_eq "getppid records" "$(echo "$OUT" | grep -c 'syscaller .*sys_enter_getppid')" 4 || return 1
	# nothing left on the event itself (perf filters are per perf event)
	expect_eq "tracefs filter" "$(cat $TFS/events/syscalls/sys_enter_getppid/filter)" none
}

t_record_bad_filter_fails_cleanly() {
	expect_status 1 $KTRACE record -e syscalls:sys_enter_getppid --filter 'bogus == 1' -- $SYSC 5 || return 1
	expect_contains "message" "$ERR" "bad filter for syscalls:sys_enter_getppid" || return 1
	expect_eq "stdout" "$OUT" "" || return 1
	# the caret under the unknown field, not at the end of the text
	expect_status 1 $KTRACE filter sched:sched_switch 'prev_pid == 1 && (next_pidd > 3)' || return 1
	expect_contains "caret" "$ERR" "$(printf '  prev_pid == 1 && (next_pidd > 3)\n                    ^')" || return 1
	# refused by the kernel only
	expect_status 1 $KTRACE record -e syscalls:sys_enter_getppid --filter '__syscall_nr == "abc"' -- $SYSC 5 || return 1
	expect_contains "kernel refusal" "$ERR" "refused the filter" || return 1
	# on an inline probe: the probe is removed again
	$KTRACE record -e "uprobe:$PROBED:hot i" --filter 'nosuch > 3' -- $PROBED 5 >$RT.out 2>$RT.err &
	kp=$!
	wait_exit $kp 20 || return 1
	expect_eq "status" "$WST" 1 || return 1
	expect_contains "message" "$(cat $RT.err)" "bad filter for ktrace_$kp:hot" || return 1
	group_left $kp && { fail "group ktrace_$kp left behind"; return 1; }
	# --filter before any -e is a usage error
	expect_status 2 $KTRACE record --filter 'i > 1' -e syscalls:sys_enter_getppid -- true
}

# ------------------------------------------------------- files, report

# Text lines without what differs between two runs: pid/tid, time, CPU,
# the probe group's pid and the uprobe's address.
normalise() {
	sed -E 's/^ *([^ ]+) +[0-9]+(\/[0-9]+)? +\[[0-9]+\] [0-9]+\.[0-9]+: /\1 /;
		s/ktrace_[0-9]+:/ktrace_N:/; s/\([0-9a-f]+\)/(ADDR)/' "$1"
}

t_record_output_report_matches_live() {
	work="$SYSC 20; $PROBED 5 >/dev/null; $SYSC 3 3"
	expect_status 0 $KTRACE record -o $RT.dat -e syscalls:sys_enter_getppid \
		-e "uprobe:$PROBED:hot i" -- sh -c "$work; exit 0" || return 1
	expect_eq "stdout with -o" "$OUT" "" || return 1
	expect_contains "wrote" "$ERR" "bytes to $RT.dat" || return 1
	# the size it says is the file's
	expect_contains "bytes written" "$ERR" "wrote $(stat -c %s $RT.dat) bytes to $RT.dat" || return 1
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	$KTRACE record -e syscalls:sys_enter_getppid -e "uprobe:$PROBED:hot i" \
		-- sh -c "$work; exit 0" >$RT.live 2>/dev/null || return 1
	expect_eq "report vs live (normalised)" "$(normalise $RT.rep)" "$(normalise $RT.live)" || return 1
	expect_eq "syscaller records" "$(grep -c '^ *syscaller .*sys_enter_getppid' $RT.rep)" 23 || return 1
	expect_eq "hot records" "$(grep -c ':hot: ' $RT.rep)" 5 || return 1
	# the same file as JSON: same records, same pid/tid/cpu/time
	$KTRACE report -i $RT.dat --json >$RT.json || fail "report --json" || return 1
	python3 - $RT.json $RT.rep <<'PY' || fail "json vs text"
import json, re, sys
js = [json.loads(l) for l in open(sys.argv[1])]
tx = [l for l in open(sys.argv[2])]
assert len(js) == len(tx), (len(js), len(tx))
pat = re.compile(r"^ *(\S+) +(\d+)(?:/(\d+))? +\[(\d+)\] (\d+)\.(\d{9}): (\S+): ")
for j, t in zip(js, tx):
    m = pat.match(t)
    assert m, t
    comm, pid, tid, cpu, s, ns, ev = m.groups()
    assert j["comm"] == comm and j["pid"] == int(pid) and j["tid"] == int(tid or pid)
    assert j["cpu"] == int(cpu) and j["time"] == int(s) * 10**9 + int(ns), (j, t)
    assert j["event"] == ev, (j["event"], ev)
PY
}

# record -o - | report -i -: a recording through a pipe, and its header.
t_record_pipe_and_header() {
	$KTRACE record -o - -e syscalls:sys_enter_getppid -- $SYSC 7 2>$RT.err |
		$KTRACE report -i - >$RT.rep 2>>$RT.err || fail "pipe: $(cat $RT.err)" || return 1
	expect_eq "records through a pipe" "$(grep -c '^ *syscaller .*sys_enter_getppid' $RT.rep)" 7 || return 1
	$KTRACE record -o $RT.dat -e syscalls:sys_enter_getppid -- $SYSC 1 2>/dev/null || return 1
	expect_status 0 $KTRACE report -i $RT.dat --header || return 1
	expect_contains "header command" "$OUT" "# command: $SYSC 1" || return 1
	expect_contains "header kernel" "$OUT" "# kernel: $(uname -r)" || return 1
	expect_status 0 $KTRACE --json report -i $RT.dat --header || return 1
	printf '%s' "$OUT" | python3 -c 'import json,sys; d = json.load(sys.stdin); assert d["kernel"]' ||
		fail "report --header --json: $OUT"
}

t_report_damaged_files() {
	expect_status 0 $KTRACE record -o $RT.dat -e syscalls:sys_enter_getppid -- $SYSC 300 || return 1
	size=$(stat -c %s $RT.dat)
	# cut off inside its end mark (ktrace killed): read, and said
	head -c $((size - 30)) $RT.dat > $RT.bad
	expect_status 0 $KTRACE report -i $RT.bad || return 1
	expect_contains "truncated" "$ERR" "is truncated (its recording was cut off)" || return 1
	expect_eq "records of the cut file" "$(echo "$OUT" | wc -l)" 300 || return 1
	# one byte changed in the records
	cp $RT.dat $RT.bad
	printf '\x5a' | dd of=$RT.bad bs=1 seek=$((size / 2)) conv=notrunc status=none
	expect_status 1 $KTRACE report -i $RT.bad || return 1
	expect_contains "corrupted" "$ERR" "damaged or truncated" || return 1
	# not a recording, empty, missing
	echo "hello" > $RT.bad
	expect_status 1 $KTRACE report -i $RT.bad || return 1
	expect_contains "not a recording" "$ERR" "not a ktrace recording" || return 1
	: > $RT.bad
	expect_status 1 $KTRACE report -i $RT.bad || return 1
	expect_status 1 $KTRACE report -i $RT.nonexistent || return 1
	expect_contains "missing" "$ERR" "No such file" || return 1
	# the intact file still reads
	expect_status 0 $KTRACE report -i $RT.dat || return 1
	expect_eq "records" "$(echo "$OUT" | wc -l)" 300
}

# ------------------------------------------------------------------ JSON

t_record_json_typed() {
	$KTRACE record -j -e syscalls:sys_enter_getppid -e sched:sched_process_exit \
		-e "uprobe:$PROBED:parse_line line len" \
		-- sh -c "$SYSC 5; $PROBED 1 >/dev/null" >$RT.out 2>$RT.err \
		|| fail "record: $(cat $RT.err)" || return 1
	python3 - $RT.out $GETPPID_NR <<'PY' || fail "json: $(head -c 600 $RT.out)"
import json, sys
nr = int(sys.argv[2])
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs
for r in recs:
    for k, t in (("time", int), ("cpu", int), ("pid", int), ("tid", int),
                 ("comm", str), ("event", str), ("fields", dict)):
        assert isinstance(r[k], t) and not isinstance(r[k], bool), (k, r)
g = [r for r in recs if r["event"] == "syscalls:sys_enter_getppid"]
assert len([r for r in g if r["comm"] == "syscaller"]) == 5, g
for r in g:
    assert type(r["fields"]["__syscall_nr"]) is int
    if nr >= 0:
        assert r["fields"]["__syscall_nr"] == nr, r
ex = [r for r in recs if r["event"] == "sched:sched_process_exit"]
assert ex and all(type(r["fields"]["pid"]) is int for r in ex)
assert all(type(r["fields"]["comm"]) is str for r in ex)
pl = [r["fields"] for r in recs if r["event"].endswith(":parse_line")]
assert [(f["line"], f["len"]) for f in pl] == [("a,b,c", 5), ("one", 3), ("x,y", 3)], pl
assert all(type(f["__probe_ip"]) is int for f in pl)
PY
}

# ----------------------------------------------------------- call stacks

t_record_callgraph_user_functions() {
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $SYSC 3 >$RT.out 2>$RT.err \
		|| fail "record -g: $(cat $RT.err)" || return 1
	# syscaller is built with frame pointers: syscall() <- main
	expect_eq "stacks reaching main" "$(grep -cE '^\s+[0-9a-f]+ main\+0x[0-9a-f]+ \(.*/syscaller\)$' $RT.out)" 3 || return 1
	expect_contains "libc frame" "$(cat $RT.out)" "syscall+0x" || return 1
	# a uprobe: the first frame is the probed function itself
	$KTRACE record -g -j -e "uprobe:$PROBED:hot i" -- $PROBED 2 >$RT.out 2>$RT.err \
		|| fail "record -g uprobe: $(cat $RT.err)" || return 1
	python3 - $RT.out <<'PY' || fail "uprobe stack: $(cat $RT.out)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(recs) == 2
for r in recs:
    st = r["stack"]
    assert st and type(st[0]["addr"]) is int, st
    # hot, after its prologue (the argument is named)
    assert st[0]["sym"] == "hot" and st[0]["offset"] > 0, st
    assert st[0]["dso"].endswith("/probed") and st[0]["inlined"] is False, st
PY
}

# chain is built like Debian's binaries (-O2, no frame pointers): -g
# unwinds it by DWARF CFI, libc's local frames named from libc6-dbg's
# debug file; a recording gives the same frames after the fact.
CHAIN=$TARGETS/chain
chain_frames() { # FILE -> the user frames of each record, one line each
	awk '/^ *[^ \t].* \[[0-9]+\] [0-9]+\.[0-9]+: / { if (f) print f; f = ""; next }
		/^\t/ { sub(/\+0x.*/, "", $2); f = f (f ? ";" : "") $2 }
		END { if (f) print f }' "$1"
}
t_record_dwarf_stack_without_frame_pointers() {
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $CHAIN 3 >$RT.out 2>$RT.err \
		|| fail "record -g: $(cat $RT.err)" || return 1
	want="syscall;gamma_fn;beta_fn;alpha_fn;main;__libc_start_call_main;__libc_start_main;_start"
	expect_eq "dwarf frames" "$(chain_frames $RT.out | sort | uniq -c | awk '{print $1, $2}')" "3 $want" || return 1
	# perf script's shape: tab, address, sym+0xoff, (dso)
	expect_eq "frame lines" "$(grep -cE $'^\t +[0-9a-f]+ [^ ]+\+0x[0-9a-f]+ \\(/[^)]+\\)$' $RT.out)" 24 || return 1
	# two callers with the same frame: the same registers at the syscall,
	# one return address apart on the stack; unwinds are cached, and a
	# cached one is used only when the stack words it read still hold
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $CHAIN 400 alt >$RT.out 2>$RT.err \
		|| fail "record -g alt: $(cat $RT.err)" || return 1
	expect_eq "alternating callers" "$(chain_frames $RT.out | cut -d';' -f1-5 | sort | uniq -c | awk '{print $1, $2}')" \
		"200 syscall;gamma_fn;beta_fn;alpha_fn;main
200 syscall;gamma_fn;beta_fn;delta_fn;main" || return 1
	$KTRACE record -g -o $RT.dat -e syscalls:sys_enter_getppid -- $CHAIN 2 >/dev/null 2>$RT.err \
		|| fail "record -g -o: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	expect_eq "report frames" "$(chain_frames $RT.rep | sort | uniq -c | awk '{print $1, $2}')" "2 $want" || return 1
	# the file keeps frames, not 8 KiB stack copies
	size=$(stat -c %s $RT.dat)
	[ "$size" -lt 200000 ] || fail "file of 2 stacks is $size bytes" || return 1
	expect_status 2 $KTRACE record --call-graph lbr -e syscalls:sys_enter_getppid -- true || return 1
	expect_contains "mode" "$ERR" "bad call graph mode 'lbr'" || return 1
	expect_status 2 $KTRACE record --call-graph dwarf,13 -e syscalls:sys_enter_getppid -- true || return 1
	expect_contains "size" "$ERR" "bad DWARF stack size '13'" || return 1
	# C++: demangled overloads, and a function inlined into one of them
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $TARGETS/cxxchain 2 >$RT.out 2>$RT.err \
		|| fail "record -g C++: $(cat $RT.err)" || return 1
	expect_eq "C++ frames" "$(grep -c . <(chain_frames $RT.out | grep -Fx 'syscall;ask_parent;ns::Widget::poke(int);ns::Widget::poke(double);main;__libc_start_call_main;__libc_start_main;_start'))" 2 || return 1
	expect_eq "inlined marked" "$(grep -cE $'^\t +[0-9a-f]+ ask_parent \\(inlined\\)$' $RT.out)" 2 || return 1
	# the file names its frames: report prints them after the binary is gone
	cp $TARGETS/cxxchain $RT.bin || return 1
	$KTRACE record -g -o $RT.dat -e syscalls:sys_enter_getppid -- $RT.bin 2 >$RT.live 2>$RT.err \
		|| fail "record -g -o: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat >$RT.rep1 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	# another binary at the same path: the recorded names, not its symbols
	cp $TARGETS/busy $RT.bin || return 1
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report with another binary: $(cat $RT.err)" || return 1
	expect_eq "same frames with another binary there" "$(cat $RT.rep)" "$(cat $RT.rep1)" || return 1
	rm -f $RT.bin
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report without the binary: $(cat $RT.err)" || return 1
	expect_eq "same frames without the binary" "$(cat $RT.rep)" "$(cat $RT.rep1)" || return 1
	expect_eq "named frames" "$(chain_frames $RT.rep | grep -cFx 'syscall;ask_parent;ns::Widget::poke(int);ns::Widget::poke(double);main;__libc_start_call_main;__libc_start_main;_start')" 2
}

# The functions inlined at a frame come from a stripped binary's separate
# DWARF, found where its symbols are found (here by .gnu_debuglink), and
# from the dwz "alt" file that DWARF names (.gnu_debugaltlink, as Debian's
# dbgsym packages have it), used only when its build-id is the one named.
# Local files only: ktrace never loads libdebuginfod (nor any library).
t_record_inlines_from_debug_files() {
	local d=$RT.dwz
	rm -rf $d; mkdir -p $d
	cp $TARGETS/cxxchain $d/full
	objcopy --only-keep-debug $d/full $d/a.debug
	cp $d/a.debug $d/b.debug
	# two debug files share their DIEs: dwz moves them to $d/alt.debug
	dwz -m $d/alt.debug -M $d/alt.debug $d/a.debug $d/b.debug ||
		{ fail "dwz failed"; return 1; }
	readelf -S $d/a.debug 2>/dev/null | grep -q gnu_debugaltlink || { fail "no altlink"; return 1; }
	strip --strip-all -o $d/stripped $d/full
	objcopy --add-gnu-debuglink=$d/a.debug $d/stripped $d/dl
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/dl 2 >$d/dl.out 2>$d/err ||
		{ fail "record: $(cat $d/err)"; return 1; }
	expect_eq "inlined, named through the alt file" \
		"$(grep -cE $'^\t +[0-9a-f]+ ask_parent \\(inlined\\)$' $d/dl.out)" 2 || return 1
	expect_eq "frames" "$(chain_frames $d/dl.out | grep -c '^syscall;ask_parent;ns::Widget::poke(int);ns::Widget::poke(double);main')" 2 || return 1
	# symbols but no DWARF anywhere: libdw's own lookup would go on to
	# debuginfod (dlopen()ing libdebuginfod and libcurl); ktrace's does not
	strip --strip-debug -o $d/nodebug $d/full
	DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=openat -o $d/trace \
		$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/nodebug 1 >$d/nd.out 2>$d/err ||
		{ fail "record nodebug: $(cat $d/err)"; return 1; }
	expect_eq "no DWARF: frames" "$(chain_frames $d/nd.out | grep -c '^syscall;ns::Widget::poke(int);ns::Widget::poke(double);main')" 1 || return 1
	expect_eq "debuginfod not loaded" "$(grep -c 'libdebuginfod\|libcurl' $d/trace)" 0 || return 1
	# a hostile .gnu_debuglink naming a path ("x/evil.debug"): no lookup
	# by it, no crash, the symbols still named
	printf 'x/evil.debug\0\0\0\0\0\0\0' >$d/evil.sec
	objcopy --add-section .gnu_debuglink=$d/evil.sec $d/nodebug $d/evil ||
		{ fail "objcopy evil"; return 1; }
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/evil 1 >$d/evil.out 2>$d/err ||
		{ fail "record evil: $(cat $d/err)"; return 1; }
	expect_eq "hostile debuglink: frames" "$(chain_frames $d/evil.out | grep -c '^syscall;ns::Widget::poke(int);ns::Widget::poke(double);main')" 1 || return 1
	# an alt file whose build-id is not the one named: not used
	mv $d/alt.debug $d/alt.keep
	cp $CHAIN $d/c; objcopy --only-keep-debug $d/c $d/c1.debug; cp $d/c1.debug $d/c2.debug
	dwz -m $d/alt.debug -M $d/alt.debug $d/c1.debug $d/c2.debug || { fail "dwz (other)"; return 1; }
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/dl 1 >$d/other.out 2>$d/err ||
		{ fail "record, other alt: $(cat $d/err)"; return 1; }
	expect_eq "other alt file: no inlined name from it" "$(grep -c 'ask_parent' $d/other.out)" 0 || return 1
	expect_eq "other alt file: the inlined frame is still there" "$(grep -c '(inlined)' $d/other.out)" 1 || return 1
	rm -rf $d
}

# A JIT's code is named from /tmp/perf-PID.map, live and from the file.
t_record_jit_map_frames() {
	$KTRACE record -g -o $RT.dat -e syscalls:sys_enter_getppid -- $TARGETS/jit 3 >/dev/null 2>$RT.err
	st=$?
	[ $st = 77 ] && return 0	# not x86-64
	[ $st = 0 ] || fail "record -g jit: $(cat $RT.err)" || return 1
	for m in /tmp/perf-*.map; do
		[ -f "$m" ] && grep -q jitted_getppid "$m" && rm -f "$m"
	done
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	expect_eq "jit frames" "$(grep -cE $'^\t +[0-9a-f]+ jitted_getppid\+0x7 \\(/tmp/perf-[0-9]+\\.map\\)$' $RT.rep)" 3
}

# A real library under a real program: a uprobe on libc's inet_pton called
# by getaddrinfo("::1") from python3 (through its _socket module).
t_record_libc_uprobe_stack_in_python() {
	$KTRACE record -g -e 'uprobe:libc:inet_pton' -- python3 -c "import socket; socket.getaddrinfo('::1', 80)" >$RT.out 2>$RT.err \
		|| fail "record: $(cat $RT.err)" || return 1
	f=$(chain_frames $RT.out | head -1)
	case "$f" in
	"inet_pton;"*getaddrinfo\;*) ;;
	*) fail "stack of inet_pton: $f"; return 1 ;;
	esac
	case "$f" in
	*";__libc_start_call_main;__libc_start_main;_start") ;;
	*) fail "stack does not reach _start: $f"; return 1 ;;
	esac
	expect_eq "no unknown frame" "$(grep -c '\[unknown\]' $RT.out)" 0
}

# Sampling events: cpu-clock at -F 99 on a child busy for 1 s of CPU gives
# 99 samples (within 5 %), each naming the function it hit; -c PERIOD,
# stacks, a file, and a clear refusal of hardware events without a PMU.
BUSY=$TARGETS/busy
# %ps/%pS fields (timer and workqueue callbacks) print the kernel function's
# name, as perf script does, live and from a -o file read back; checked
# against perf recording the same seconds. The same kernel record does not
# get the same timestamp in two perf events (each reads the clock as it
# writes), so records are compared without time and clock fields: every
# one ktrace saw (cpu, event, object address, function) perf saw too.
t_record_symbol_fields_like_perf() {
	local ev="-e timer:timer_expire_entry -e timer:hrtimer_expire_entry
		-e workqueue:workqueue_execute_start -e workqueue:workqueue_queue_work"
	local norm='s/^(\[[0-9]+\]) +[0-9.]+: +/\1 /; s/ (now|baseclk)=[0-9]+//g'
	command -v perf >/dev/null || fail "perf (linux-perf) is not installed" || return 1
	# ktrace's 2 s well inside perf's 6 s: perf is running (its file
	# started) a second before ktrace starts, and goes on 3 s after
	rm -f $RT.pdata
	perf record -q -k mono -a $ev -o $RT.pdata -- sleep 6 2>$RT.perr &
	local pp=$! i=0
	until [ -s $RT.pdata ]; do
		i=$((i + 1)); [ $i -gt 100 ] && { kill $pp; fail "perf record did not start"; return 1; }
		sleep 0.1
	done
	sleep 1
	$KTRACE record -a -d 2 $ev -o $RT.kt 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	wait $pp || fail "perf record: $(cat $RT.perr)" || return 1
	$KTRACE record -a -d 1 $ev >$RT.live 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	perf script -i $RT.pdata --ns -F cpu,time,event,trace 2>/dev/null |
		sed -E "$norm" | sort -u >$RT.p
	$KTRACE report -i $RT.kt >$RT.k 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	sed -E 's/^.* (\[[0-9]+\] [0-9.]+: [a-z_]+:[a-z_0-9]+: .*)$/\1/' $RT.k |
		sed -E "$norm" | sort -u >$RT.k2
	local kn=$(wc -l <$RT.k2)
	[ "$kn" -ge 5 ] || fail "only $kn distinct records in 2 s" || return 1
	expect_eq "ktrace's records perf does not have" \
		"$(comm -23 $RT.k2 $RT.p | head -3)" "" || return 1
	grep -q 'function=tick_nohz_handler\|function=process_timeout' $RT.k2 ||
		fail "no timer callback named: $(head -3 $RT.k2)" || return 1
	# no address left unnamed where the kernel has the name
	expect_eq "function= as hex, from the file" \
		"$(grep -c 'function=0x' $RT.k2)" 0 || return 1
	expect_eq "function= as hex, live" "$(grep -c 'function=0x' $RT.live)" 0 || return 1
	grep -q 'function=[a-z_]' $RT.live || fail "no named function live" || return 1
}

t_record_sampling_cpu_clock() {
	$KTRACE record -e cpu-clock -F 99 -- $BUSY 1000 >$RT.out 2>$RT.err \
		|| fail "record -F 99: $(cat $RT.err)" || return 1
	n=$(grep -c ' cpu-clock: ' $RT.out)
	[ "$n" -ge 94 ] && [ "$n" -le 104 ] || fail "-F 99 for 1 s: $n samples" || return 1
	# every sample is named, in the target (its loop or the CPU clock
	# it reads) or in libc/the vdso under it
	expect_eq "samples named" "$(grep ' cpu-clock: ' $RT.out | grep -c '\[unknown\]')" 0 || return 1
	s=$(grep ' cpu-clock: ' $RT.out | grep -cE ' (inner|outer)_spin\+0x[0-9a-f]+ \(.*/busy\)$')
	[ "$s" -ge $((n * 9 / 10)) ] || fail "only $s of $n samples in the spinning functions" || return 1
	# -c: a sample every 1 ms of CPU (cpu-clock counts ns)
	$KTRACE record -e cpu-clock -c 1000000 -- $BUSY 500 >$RT.out 2>$RT.err \
		|| fail "record -c: $(cat $RT.err)" || return 1
	n=$(grep -c ' 1000000 cpu-clock: ' $RT.out)
	[ "$n" -ge 475 ] && [ "$n" -le 525 ] || fail "-c 1ms for 0.5 s: $n samples" || return 1
	# stacks, mixed with a tracepoint, through a file
	$KTRACE record -g -o $RT.dat -e cpu-clock -F 50 -e syscalls:sys_enter_getppid -- $BUSY 400 >/dev/null 2>$RT.err \
		|| fail "record -g -o: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat >$RT.rep 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	# (a sample may fall in the loader or the kernel before main: on a
	# loaded machine, ASan's run among them, 2 or 3 of the 20 did)
	n=$(chain_frames $RT.rep | grep -cE '^(inner_spin;)?outer_spin;main;__libc_start_call_main;__libc_start_main;_start$')
	[ "$n" -ge 16 ] || fail "sampled stacks: $n of $(grep -c cpu-clock $RT.rep): $(chain_frames $RT.rep | sort | uniq -c | sort -rn | head -4)" || return 1
	$KTRACE report --json -i $RT.dat | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
assert recs and all(r["event"] == "cpu-clock" and type(r["period"]) is int and r["sym"] and r["stack"] for r in recs), recs[:2]
' || fail "report --json of samples" || return 1
	# profiles: perf report's flat profile per event, and folded stacks
	$KTRACE record -g -o $RT.dat -e cpu-clock -F 100 -e syscalls:sys_enter_getppid -- sh -c "$BUSY 500; $CHAIN 30" >/dev/null 2>$RT.err \
		|| fail "record for report: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat --sort sym >$RT.rep 2>$RT.err || fail "report --sort: $(cat $RT.err)" || return 1
	top=$(awk '/^# Event: cpu-clock/ { on = 1 } on && /^ +[0-9.]+%/ { print $1, $3; exit }' $RT.rep)
	case "$top" in
	9[0-9].*%" inner_spin"|100.00%" inner_spin") ;;
	*) fail "top of the cpu-clock profile: '$top': $(cat $RT.rep)"; return 1 ;;
	esac
	# (sh itself calls getppid once)
	expect_eq "tracepoint profile" "$(awk '/^# Event: syscalls:sys_enter_getppid/ { on = 1 } on && / syscall$/ { print $2 }' $RT.rep)" 30 || return 1
	$KTRACE report -i $RT.dat --folded >$RT.rep 2>$RT.err || fail "report --folded: $(cat $RT.err)" || return 1
	expect_eq "folded chain" "$(grep '^chain;' $RT.rep)" "chain;_start;__libc_start_main;__libc_start_call_main;main;alpha_fn;beta_fn;gamma_fn;syscall 30" || return 1
	n=$(awk '$0 ~ /^busy;_start;__libc_start_main;__libc_start_call_main;main;outer_spin;inner_spin [0-9]+$/ { print $NF }' $RT.rep)
	[ "${n:-0}" -ge 45 ] || fail "folded busy stacks: $(cat $RT.rep)" || return 1
	# every line: frames, one space, a count (what flamegraph.pl reads)
	expect_eq "folded lines" "$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' $RT.rep)" 0 || return 1
	# the text, read as flame graph tools read perf script, folds the same
	$KTRACE report -i $RT.dat >$RT.txt 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	python3 tests/integration/perfscript_fold.py $RT.txt >$RT.fold || return 1
	expect_eq "text read like perf script" "$(cat $RT.fold)" "$(LC_ALL=C sort $RT.rep)" || return 1
	expect_status 2 $KTRACE report -i $RT.dat --sort bogus || return 1
	expect_status 2 $KTRACE report -i $RT.dat --folded --json || return 1
	# the vdso: named and unwound through, from ktrace's own copy
	$KTRACE record -g -e cpu-clock -F 500 -- $TARGETS/clockread 20000000 >$RT.out 2>$RT.err \
		|| fail "record clockread: $(cat $RT.err)" || return 1
	n=$(chain_frames $RT.out | grep -cE '^__vdso_clock_gettime;clock_gettime;reader;main;')
	[ "$n" -ge 1 ] || fail "no [vdso] stack in $(chain_frames $RT.out | sort | uniq -c | sort -rn | head -3)" || return 1
	# every frame in the vdso says so (a sample may stop in it without
	# the whole chain above: counted apart from n)
	expect_eq "vdso dso" "$(grep -cE $'^\t +[0-9a-f]+ __vdso_clock_gettime\+0x[0-9a-f]+ \\(\\[vdso\\]\\)$' $RT.out)" \
		"$(grep -cE $'^\t +[0-9a-f]+ __vdso_clock_gettime\+0x' $RT.out)" || return 1
	expect_status 1 $KTRACE record -e cycles -- true || return 1
	expect_contains "no PMU" "$ERR" "cannot record 'cycles': this machine has no hardware performance counters" || return 1
	expect_status 2 $KTRACE record -e cpu-clock -F 0 -- true || return 1
	# -c's range is the kernel's: its top opens, one more is refused
	expect_status 0 $KTRACE record -e cpu-clock -c 9223372036854775807 -- true || return 1
	expect_status 2 $KTRACE record -e cpu-clock -c 9223372036854775808 -- true || return 1
	expect_contains "-c range" "$ERR" "bad period '9223372036854775808' (events per sample, 1 to 2^63-1)" || return 1
	expect_status 1 $KTRACE record -e cpu-clock --filter 'x == 1' -- true || return 1
	expect_contains "no filter" "$ERR" "takes no --filter"
}

# A flame graph without other tools: one SVG, checked in a real browser
# (headless Chromium): it renders, a hover names a frame with its share, a
# zoom widens the frame to the whole graph.
# report --perfetto: a Trace Event Format file that keeps the rules of the
# format (trace_event_check.py), with per-CPU sched_switch slices, one
# instant per other record with its fields, the samples' stacks, names.
t_report_perfetto_trace() {
	$KTRACE record -e sched:sched_switch -e syscalls:sys_enter_getppid \
		-e cpu-clock -F 199 -g -o $RT.kt -- $BUSY 300 2>$RT.err ||
		fail "record: $(cat $RT.err)" || return 1
	# the whole machine while syscaller makes 20 calls every 10 ms (few
	# enough that a slower ktrace, ASan's, loses none of its switches)
	$SYSC 20 0 loop >/dev/null &
	local sp=$!
	$KTRACE record -a -d 0.5 -e sched:sched_switch -e syscalls:sys_enter_getppid \
		-o $RT.kt2 2>$RT.err
	local rc=$?
	kill $sp; wait $sp 2>/dev/null
	[ $rc = 0 ] || fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.kt2 --perfetto $RT.json 2>$RT.err ||
		fail "report --perfetto: $(cat $RT.err)" || return 1
	python3 tests/integration/trace_event_check.py $RT.json >$RT.chk ||
		fail "$(cat $RT.chk)" || return 1
	# as many instants as text lines
	n=$(awk '$2 == "i" && $3 == "syscalls:sys_enter_getppid" {print $4}' $RT.chk)
	expect_eq "getppid instants" "$n" "$($KTRACE report -i $RT.kt2 | grep -c ' syscalls:sys_enter_getppid: ')" || return 1
	[ "$n" -ge 400 ] || fail "$n getppid instants in 0.5 s" || return 1
	# the instants carry their fields: the syscall number of getppid
	python3 - $RT.json $GETPPID_NR <<-'PY' || fail "getppid instant fields" || return 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		ev = [e for e in d["traceEvents"] if e.get("name") == "syscalls:sys_enter_getppid"]
		assert ev and all(e["args"]["fields"]["__syscall_nr"] == int(sys.argv[2]) for e in ev), ev[:1]
		# ts: microseconds, nanoseconds kept as three decimals, in order
		ts = [e["ts"] for e in ev]
		assert ts == sorted(ts) and any(t != int(t) for t in ts), ts[:3]
	PY
	# one slice per switch, plus the task running when the trace ended on
	# each CPU, plus one for each switch the kernel did not deliver (6.18
	# drops many idle -> task switches, perf and ftrace alike) where a
	# record shows when the task ran; the traced task appears on a CPU
	# track by name, from its first record when its switch-in is missing
	sw=$($KTRACE report -i $RT.kt2 | grep -c ' sched:sched_switch: ')
	ncpu=$(grep -c '^thread 1000000000 ' $RT.chk)
	late=$(grep -c '^late ' $RT.chk)
	expect_eq "CPU slices" "$(grep -c '^slice ' $RT.chk)" $((sw + ncpu + late)) || return 1
	if [ "$late" -gt 0 ]; then
		grep -q '^ktrace report: [0-9]* context switches were not recorded by the kernel' $RT.err ||
			fail "$late late slices and no note: $(cat $RT.err)" || return 1
	fi
	grep -q '^slice [0-9]* syscaller$' $RT.chk || fail "no syscaller slice" || return 1
	grep -q '^thread [0-9]* [0-9]* syscaller$' $RT.chk || fail "no syscaller thread name" || return 1
	# samples: their stacks, outermost first, through the spinning functions
	$KTRACE report -i $RT.kt --perfetto $RT.json 2>$RT.err ||
		fail "report --perfetto: $(cat $RT.err)" || return 1
	python3 tests/integration/trace_event_check.py $RT.json >$RT.chk ||
		fail "$(cat $RT.chk)" || return 1
	s=$(grep -c '^stack cpu-clock .*main;outer_spin;inner_spin' $RT.chk)
	[ "$s" -ge 30 ] || fail "only $s samples with main;outer_spin;inner_spin: $(grep -m3 '^stack' $RT.chk)" || return 1
	# bad use: exit 2, nothing written; a file that cannot be written: 1
	rm -f $RT.json
	$KTRACE report -i $RT.kt --perfetto $RT.json --folded 2>$RT.err
	expect_eq "with --folded" "$?" 2 || return 1
	[ ! -e $RT.json ] || fail "--perfetto with --folded wrote a file" || return 1
	$KTRACE report -i $RT.kt --perfetto /nonexistent/x.json 2>$RT.err
	expect_eq "unwritable" "$?" 1 || return 1
	expect_eq "one line" "$(wc -l <$RT.err)" 1 || return 1
}

t_report_flamegraph_in_a_browser() {
	$KTRACE record -g -o $RT.dat -e cpu-clock -F 200 -- $TARGETS/busy 500 >/dev/null 2>$RT.err \
		|| fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat --flamegraph $RT.svg 2>$RT.err || fail "report --flamegraph: $(cat $RT.err)" || return 1
	python3 - $RT.svg <<'PY' || fail "svg: $(head -c 300 $RT.svg)" || return 1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
frames = {g.find(ns + "title").text: g for g in root.iter(ns + "g") if g.get("class") == "f"}
names = [t.rsplit(" (", 1)[0] for t in frames]
assert names[0] == "all" and "inner_spin" in names and "outer_spin" in names, names
PY
	command -v chromium >/dev/null || { fail "chromium is not installed (scripts/deps.sh browser)"; return 1; }
	browse() { timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir=$RT.chrome --virtual-time-budget=3000 "$@" 2>/dev/null; }
	dom=$(browse --dump-dom "file://$RT.svg#hover=inner_spin")
	expect_contains "page ready" "$dom" 'data-ready="yes"' || return 1
	echo "$dom" | grep -qE '<text id="details"[^>]*>inner_spin \([0-9]+ samples, (9[0-9]|100)\.[0-9]{2}%\)</text>' \
		|| fail "hover text: $(echo "$dom" | grep 'id="details"')" || return 1
	dom=$(browse --dump-dom "file://$RT.svg#zoom=outer_spin")
	expect_contains "zoom text" "$dom" "Zoomed to outer_spin" || return 1
	echo "$dom" | grep -E '<title>outer_spin ' | grep -q 'x="10" [^>]*width="1179.5"' \
		|| fail "zoomed frame not full width: $(echo "$dom" | grep '<title>outer_spin ')" || return 1
	browse --window-size=1200,400 --screenshot=$RT.png "file://$RT.svg" >/dev/null
	size=$(stat -c %s $RT.png 2>/dev/null || echo 0)
	[ "$size" -gt 5000 ] || fail "screenshot of the flame graph: $size bytes" || return 1
	rm -rf $RT.chrome
	expect_status 2 $KTRACE report -i $RT.dat --flamegraph $RT.svg --json
}

# ---------------------------------------------------------- lost records

LOST_N=1000000

t_record_lost_is_reported() {
	# one page per CPU cannot keep up with a million syscalls
	$KTRACE record -m 1 -e syscalls:sys_enter_getppid -- $SYSC $LOST_N >$RT.out 2>$RT.err \
		|| fail "record -m 1: $(cat $RT.err)" || return 1
	got=$(grep -c sys_enter_getppid $RT.out)
	[ "$got" -lt $LOST_N ] || fail "nothing lost with -m 1?" || return 1
	grep -qE '^\[lost [0-9]+ records on cpu [0-9]+\]$' $RT.out || fail "no [lost ...] line" || return 1
	expect_contains "LOST summary" "$(cat $RT.err)" "LOST" || return 1
	expect_contains "advice" "$(cat $RT.err)" "use a larger -m" || return 1
	# the summary agrees with the lines
	inline=$(grep -oE '^\[lost [0-9]+' $RT.out | awk '{s += $2} END {print s}')
	summary=$(sed -nE 's/.*LOST ([0-9]+) records.*/\1/p' $RT.err)
	expect_eq "lost lines vs summary" "$inline" "$summary"
}

# Every one of the N events is either printed or counted as lost: none may
# vanish silently (also those lost after the kernel's last LOST record).
t_record_lost_accounts_for_every_record() {
	$KTRACE record -m 1 -e syscalls:sys_enter_getppid -- $SYSC $LOST_N >$RT.out 2>$RT.err \
		|| fail "record -m 1: $(cat $RT.err)" || return 1
	got=$(grep -c sys_enter_getppid $RT.out)
	lost=$(sed -nE 's/.*LOST ([0-9]+) records.*/\1/p' $RT.err)
	# The kernel's LOST records also count the task records (EXIT,
	# COMM...) it dropped, so the sum may pass N by those few.
	sum=$((got + ${lost:-0}))
	[ $sum -ge $LOST_N ] && [ $sum -le $((LOST_N + 4)) ] ||
		fail "captured $got + lost ${lost:-0} = $sum, want $LOST_N (+ at most 4 task records)"
}

# ----------------------------------------------------------------- stat

t_stat_exact_count() {
	expect_status 0 $KTRACE stat -e syscalls:sys_enter_getppid -- $SYSC 5000 || return 1
	# the counts on stderr, as perf stat's
	expect_eq "count" "$(echo "$ERR" | awk '$2 == "syscalls:sys_enter_getppid" {print $1}')" 5000 || return 1
	expect_contains "elapsed" "$ERR" "seconds time elapsed" || return 1
	# the child's status comes back
	expect_status 3 $KTRACE stat -e syscalls:sys_enter_getppid -- $SYSC 10 3 || return 1
	# inherit: the thread and the child count, the main thread makes none
	expect_status 0 $KTRACE stat -e syscalls:sys_enter_getppid -- $THREADS 700 || return 1
	expect_eq "inherited count" "$(echo "$ERR" | awk '$2 == "syscalls:sys_enter_getppid" {print $1}')" 1400
}

t_stat_json_and_unsupported_counters() {
	expect_status 0 $KTRACE stat --json -o /dev/stdout -e syscalls:sys_enter_getppid -e cycles \
		-e task-clock -e context-switches -- $SYSC 2000 || return 1
	python3 - "$OUT" <<'PY' || fail "stat json: $OUT" || return 1
import json, sys
s = json.loads(sys.argv[1])
assert type(s["elapsed"]) is float and s["elapsed"] > 0
c = {x["event"]: x for x in s["counters"]}
assert list(c) == ["syscalls:sys_enter_getppid", "cycles", "task-clock", "context-switches"]
g = c["syscalls:sys_enter_getppid"]
assert g["supported"] is True and g["count"] == 2000 and type(g["enabled_ns"]) is int
t = c["task-clock"]
assert t["supported"] is True and type(t["count"]) is int and t["count"] > 0
cy = c["cycles"]
assert cy["supported"] in (True, False)
if not cy["supported"]:
    assert cy["count"] is None
open("/tmp/ktrace-it-cycles", "w").write("yes" if cy["supported"] else "no")
PY
	expect_status 0 $KTRACE stat -o /dev/stdout -e cycles -e task-clock -- $SYSC 2000 || return 1
	if [ "$(cat /tmp/ktrace-it-cycles)" = no ]; then
		expect_eq "cycles line" "$(echo "$OUT" | grep cycles | tr -s ' ')" " <not supported> cycles" || return 1
	fi
	rm -f /tmp/ktrace-it-cycles
	tc=$(echo "$OUT" | awk '$3 == "task-clock" {print $1}')
	awk -v t="$tc" 'BEGIN { exit !(t > 0) }' || fail "task-clock '$tc' not > 0"
}

t_stat_interval() {
	expect_status 0 $KTRACE stat -o /dev/stdout -I 100 -e task-clock -- sleep 0.65 || return 1
	lines=$(echo "$OUT" | grep -cE '^ +[0-9]+\.[0-9]{6} +[0-9.]+ msec task-clock$')
	[ "$lines" -ge 4 ] && [ "$lines" -le 8 ] || fail "$lines interval lines: $OUT" || return 1
	# interval times increase
	echo "$OUT" | grep -E '^ +[0-9]+\.[0-9]{6} ' | awk 'NR > 1 && $1 <= last { exit 1 } { last = $1 }' \
		|| fail "interval times: $OUT" || return 1
	expect_contains "final" "$OUT" "Performance counter stats for 'sleep 0.65'" || return 1
	# JSON intervals: one object per line, each with "time"
	expect_status 0 $KTRACE stat --json -o /dev/stdout -I 100 -e task-clock -- sleep 0.35 || return 1
	python3 - "$OUT" <<'PY' || fail "json intervals: $OUT"
import json, sys
objs = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
iv = [o for o in objs if "time" in o]
assert len(iv) >= 2 and "elapsed" in objs[-1], objs
assert all(type(o["counters"][0]["count"]) is int for o in objs)
PY
}

# stat -C counts on the named CPUs only; the target rules are record's.
t_stat_cpu_list_and_target_rules() {
	$KTRACE stat -C 0 -e syscalls:sys_enter_getppid -d 1.5 >$RT.out 2>&1 &
	kp=$!
	sleep 0.3
	taskset -c 0 $SYSC 300
	taskset -c 1 $SYSC 500
	wait $kp || fail "stat -C 0: $(cat $RT.out)" || return 1
	n=$(awk '$2 == "syscalls:sys_enter_getppid" {print $1}' $RT.out)
	[ "$n" -ge 300 ] && [ "$n" -lt 400 ] || fail "stat -C 0 counted $n: $(cat $RT.out)" || return 1
	expect_status 2 $KTRACE stat -p 1,2 || return 1
	expect_contains "one pid" "$ERR" "bad pid list '1,2'" || return 1
	expect_status 2 $KTRACE stat -C 0 -- true || return 1
	expect_status 2 $KTRACE stat -a -- true || return 1
	expect_status 2 $KTRACE record -e sched:sched_switch -C 0-x || return 1
	expect_contains "cpu list" "$ERR" "bad CPU list '0-x'"
}

# stat -p PID counts the threads the process already has.
t_stat_pid_existing_threads() {
	start_waiting $THREADS 200 wait || return 1
	$KTRACE stat -o $RT.out -e syscalls:sys_enter_getppid -p $TP 2>$RT.err &
	kp=$!
	sleep 1
	kill -USR1 $TP; wait $TP
	sleep 0.5
	kill -INT $kp 2>/dev/null
	wait_exit $kp 10 || return 1
	expect_eq "count (thread + child)" "$(awk '$2 == "syscalls:sys_enter_getppid" {print $1}' $RT.out)" 400
}

# ------------------------------------------------------- inline probe errors

t_record_inline_errors_point_into_the_users_text() {
	# refused by the kernel: the caret under the bad fetcharg as typed
	expect_status 1 $KTRACE record -e "uprobe:$PROBED:hot x=%zz" -- true || return 1
	expect_contains "kernel text" "$ERR" "Invalid register name" || return 1
	expect_eq "input line" "$(echo "$ERR" | sed -n 2p)" "  uprobe:$PROBED:hot x=%zz" || return 1
	col=$(echo "$ERR" | sed -n 3p | awk '{ print index($0, "^") }')
	want=$(echo "$ERR" | sed -n 2p | awk '{ print index($0, "%zz") }')
	expect_eq "caret column" "$col" "$want" || return 1
	# an unknown variable, found before anything is created
	expect_status 1 $KTRACE record -e "uretprobe:$PROBED:hot \$retval" -e "uprobe:$PROBED:parse_line nosuch" -- true || return 1
	expect_contains "message" "$ERR" "no variable 'nosuch'" || return 1
	col=$(echo "$ERR" | sed -n 3p | awk '{ print index($0, "^") }')
	want=$(echo "$ERR" | sed -n 2p | awk '{ print index($0, "nosuch") }')
	expect_eq "caret column" "$col" "$want" || return 1
	[ -z "$(grep ktrace_ $TFS/dynamic_events)" ] || fail "probes left: $(cat $TFS/dynamic_events)"
}

t_stat_inline_probes() {
	expect_status 0 $KTRACE stat --json -o /dev/stdout -e "uprobe:$PROBED:hot" -e "uretprobe:$PROBED:hot" -- $PROBED 300 || return 1
	python3 - "$(echo "$OUT" | tail -1)" <<'PY' || fail "stat json: $OUT"
import json, sys
s = json.loads(sys.argv[1])
c = [x["count"] for x in s["counters"]]
assert c == [300, 300], c
assert s["counters"][0]["event"].endswith(":hot")
PY
	[ -z "$(grep ktrace_ $TFS/dynamic_events)" ] || fail "probes left: $(cat $TFS/dynamic_events)"
}

# -p with a process that is not there names it, for every capturing command
t_capture_dead_pid_named() {
	local dead=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
	kill -0 $dead 2>/dev/null && { fail "pid $dead exists"; return 1; }
	expect_status 1 $KTRACE record -e syscalls:sys_enter_getppid -p 1,$dead -d 0.1 || return 1
	expect_eq "record: message" "$ERR" "ktrace record: no such process: $dead" || return 1
	for c in "record -e syscalls:sys_enter_getppid" "stat" "top --stdio"; do
		expect_status 1 $KTRACE $c -p $dead -d 0.1 || return 1
		expect_eq "$c: message" "$ERR" "ktrace ${c%% *}: no such process: $dead" || return 1
	done
}

# -a: a task that was running before the recording, and whose records are
# read only after it exited (ktrace stopped meanwhile), keeps its name,
# live and in a -o file: comms are read at the start, as perf synthesizes
# COMM records
t_record_all_comm_of_task_exiting_during_it() {
	for mode in live file; do
		$SYSC 50 0 wait >/dev/null &
		local sp=$!
		if [ $mode = live ]; then
			$KTRACE record -a -d 2 -e syscalls:sys_enter_getppid >$RT.out 2>$RT.err &
		else
			$KTRACE record -a -d 2 -e syscalls:sys_enter_getppid -o $RT.dat 2>$RT.err &
		fi
		local kp=$!
		sleep 0.7
		kill -STOP $kp
		kill -USR1 $sp
		wait $sp
		kill -CONT $kp
		wait $kp || fail "record: $(cat $RT.err)" || return 1
		if [ $mode = file ]; then
			$KTRACE report -i $RT.dat >$RT.out 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
		fi
		expect_eq "$mode: records of $sp" "$(awk -v p=$sp '$2 == p' $RT.out | wc -l)" 50 || return 1
		expect_eq "$mode: comms of $sp" "$(awk -v p=$sp '$2 == p { print $1 }' $RT.out | sort -u)" syscaller || return 1
	done
}

# Unprivileged (nobody, perf_event_paranoid as it is): what the kernel
# allows works, as perf does it (a task's own user space, ":u", a ring
# that fits perf_event_mlock_kb); the rest names the privilege it lacks.
t_unprivileged_works_or_names_the_privilege() {
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	local par=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$par" -ge 2 ] || { fail "perf_event_paranoid is $par here: this test wants 2 or more"; return 1; }
	if [ "$par" -ge 3 ]; then
		# Debian's 3: nothing for unprivileged users; say what it takes
		$nobody $KTRACE stat -e task-clock -- $SYSC 10 >/dev/null 2>$RT.err
		expect_eq "paranoid $par: stat" "$?" 1 || return 1
		grep -q 'perf_event_paranoid' $RT.err || fail "not named: $(cat $RT.err)" || return 1
		return 0
	fi
	$nobody $KTRACE stat -e task-clock -e page-faults -- $SYSC 10 >/dev/null 2>$RT.out ||
		fail "stat as nobody: $(cat $RT.err)" || return 1
	grep -q ' task-clock:u$' $RT.out || fail "no task-clock:u: $(cat $RT.out)" || return 1
	grep -q 'user space only' $RT.out || fail "not said: $(cat $RT.out)" || return 1
	$nobody $KTRACE record -e cpu-clock -F 199 -- $BUSY 300 >$RT.out 2>$RT.err ||
		fail "record as nobody: $(cat $RT.err)" || return 1
	n=$(grep -c ' cpu-clock: .*_spin+0x' $RT.out)
	[ "$n" -ge 50 ] || fail "only $n user samples as nobody" || return 1
	expect_contains "said" "$(cat $RT.err)" "sampled user space only" || return 1
	# what needs root says so, in one line each
	for c in "list irq:*" "stat -e sched:sched_switch -- true" "probe list" "show" \
		 "enable sched:sched_switch" "reset" "record -a -e cpu-clock -d 0.1"; do
		$nobody $KTRACE $c >/dev/null 2>$RT.err
		[ $? = 1 ] || fail "'$c' as nobody: exit $?" || return 1
		expect_eq "'$c': one line" "$(wc -l <$RT.err)" 1 || return 1
		grep -qE 'run as root|CAP_PERFMON' $RT.err || fail "'$c' names no privilege: $(cat $RT.err)" || return 1
	done
	# a kernel function by name: hidden symbols are not "no such function"
	for c in "probe add do_sys_openat2" "record -e kprobe:do_sys_openat2 -- true"; do
		$nobody $KTRACE $c >/dev/null 2>$RT.err
		[ $? = 1 ] || fail "'$c' as nobody: exit $?" || return 1
		grep -q "symbols are hidden from this user.*run as root" $RT.err ||
			fail "'$c' as nobody: $(cat $RT.err)" || return 1
	done
}

# A stop signal that comes before the command is released: the command
# never runs, and the exit status says which signal it was. ktrace is
# frozen (SIGSTOP) after its probe exists; when its child has not run yet
# (still ktrace, not sh), SIGHUP is sent and ktrace thawed. Retried until
# that window is hit.
t_record_stop_before_the_command_starts() {
	local m=$RT.marker tries=0 hit=0
	while [ $tries -lt 20 ] && [ $hit = 0 ]; do
		tries=$((tries + 1))
		rm -f $m
		$KTRACE record -e "uprobe:$PROBED:hot i" -- sh -c "touch $m" >$RT.out 2>$RT.err &
		local kp=$!
		until grep -q "ktrace_$kp/" $TFS/dynamic_events 2>/dev/null || ! kill -0 $kp 2>/dev/null; do :; done
		kill -STOP $kp 2>/dev/null
		local child=$(pgrep -P $kp | head -1)
		if [ -n "$child" ] && [ "$(readlink /proc/$child/exe)" = "$KTRACE" ]; then
			hit=1
			kill -HUP $kp
		fi
		kill -CONT $kp 2>/dev/null
		wait_exit $kp 10 || return 1
		if [ $hit = 1 ]; then
			expect_eq "exit status (SIGHUP)" "$WST" 129 || return 1
			[ -e $m ] && { fail "the command ran after the stop signal"; return 1; }
			group_left $kp && { fail "group ktrace_$kp left"; return 1; }
		fi
	done
	[ $hit = 1 ] || fail "never caught ktrace before its command started ($tries tries)"
}

# A recording whose ktrace was SIGKILLed: what it wrote up to a second
# before is there, and report reads it, saying it was cut off.
t_record_killed_file_is_read() {
	local kp child n
	rm -f $RT.kill.kt
	$KTRACE record -o $RT.kill.kt -e syscalls:sys_enter_getppid -- $SYSC 5 0 loop \
		>/dev/null 2>$RT.err &
	kp=$!
	sleep 2.5
	child=$(pgrep -P $kp | head -1)
	kill -KILL $kp
	wait $kp 2>/dev/null
	[ -n "$child" ] && kill -TERM $child 2>/dev/null
	[ -n "$child" ] && { while kill -0 $child 2>/dev/null; do sleep 0.05; done; }
	expect_status 0 $KTRACE report -i $RT.kill.kt || return 1
	expect_contains "report's note" "$ERR" "is truncated (its recording was cut off)" || return 1
	n=$(printf '%s\n' "$OUT" | grep -c 'sys_enter_getppid')
	# 5 calls every 10 ms for 2.5 s, written at least every second
	[ "$n" -ge 100 ] || { fail "only $n records recovered (of ~1200)"; return 1; }
	expect_contains "count said" "$ERR" "records recovered" || return 1
	rm -f $RT.kill.kt
}

# The check a file's formats must pass before libtraceevent parses them
# refuses none of the running kernel's formats.
t_report_format_check_takes_every_kernel_format() {
	local out
	out=$(${KT_FMTCHECK:-build/tests/integration/fmtcheck_all} $TFS) ||
		{ fail "kernel formats refused: $(printf '%s\n' "$out" | tail -3)"; return 1; }
	expect_contains "summary" "$out" ", 0 refused" || return 1
}

# ------------------------------------------------------ PID namespaces

# Groups of ktrace processes in other PID namespaces (containers): their
# names never clash, a SIGKILLed one is removed once its namespace is gone,
# a live one is never touched from another namespace, and a user's own
# group that only looks like ktrace's stays.
ns_groups() { grep -o "^[a-z]:ktrace_1_[0-9a-f]*/" $TFS/dynamic_events | sort -u; }

t_record_pid_namespaces_own_their_groups() {
	local before a b kp left
	command -v unshare >/dev/null || { fail "unshare (util-linux) missing"; return 1; }
	before=$(ns_groups)
	# two sessions at once, each PID 1 in a namespace of its own
	unshare -pf --mount-proc $KTRACE record -e "uprobe:$PROBED:hot i" -- sleep 30 >$RT.ns1 2>&1 &
	a=$!
	unshare -pf --mount-proc $KTRACE record -e "uprobe:$PROBED:hot i" -- sleep 30 >$RT.ns2 2>&1 &
	b=$!
	local i=0
	until [ "$(ns_groups | wc -l)" -ge $(( $(printf '%s' "$before" | grep -c .) + 2 )) ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && { kill -KILL $a $b; fail "two namespaced sessions did not both start: $(cat $RT.ns1 $RT.ns2)"; return 1; }
		sleep 0.1
	done
	# a live session on the host is not touched by a namespaced start
	$KTRACE record -a -e "uprobe:$PROBED:hot" >/dev/null 2>&1 &
	kp=$!
	wait_for_line $TFS/dynamic_events "ktrace_$kp/" 10 || { kill -KILL $kp $a $b; return 1; }
	unshare -pf --mount-proc $KTRACE record -e "uprobe:$PROBED:hot" -- true >/dev/null 2>&1 ||
		{ kill -KILL $kp $a $b; fail "a third namespaced session failed"; return 1; }
	group_left $kp || { kill -KILL $kp $a $b; fail "a namespaced ktrace removed the live host group ktrace_$kp"; return 1; }
	kill -INT $kp; wait_exit $kp 10 || return 1
	# SIGKILL both namespaced sessions (their namespaces die with them)
	pkill -KILL -P $a; pkill -KILL -P $b
	wait $a $b 2>/dev/null
	[ "$(ns_groups | wc -l)" -ge 2 ] || { fail "SIGKILL: namespaced groups went away by themselves?"; return 1; }
	# a user's own group that looks like ktrace's (no owner record)
	local def
	def=$($KTRACE probe add --dry-run -x $PROBED hot) || { fail "dry run failed"; return 1; }
	echo "p:ktrace_99999/mine ${def#* }" >> $TFS/uprobe_events ||
		{ fail "cannot add ktrace_99999/mine"; return 1; }
	$KTRACE record -e "uprobe:$PROBED:hot" -- $PROBED 1 >/dev/null 2>&1 ||
		{ echo "-:ktrace_99999/mine" >> $TFS/uprobe_events; fail "host record failed"; return 1; }
	left=$(ns_groups | wc -l)
	grep -q "^p:ktrace_99999/mine " $TFS/dynamic_events ||
		{ fail "a user's group ktrace_99999 was removed"; return 1; }
	$KTRACE probe del '*' >/dev/null 2>&1
	grep -q "^p:ktrace_99999/mine " $TFS/dynamic_events ||
		{ fail "probe del '*' removed a user's group ktrace_99999"; return 1; }
	echo "-:ktrace_99999/mine" >> $TFS/uprobe_events
	expect_eq "namespaced groups left after the host's sweep" "$left" "$(printf '%s' "$before" | grep -c .)" || return 1
}

# Two libraries of one size, dlopen()ed and dlclose()d in turn, land at the
# same address: each sample's frames are looked up among the mappings made
# before it, not the newest ones (maps are taken from the rings before the
# samples around them, with their times). Live and from the file.
t_record_replaced_mapping_named_by_time() {
	local d=$RT.reload s out
	rm -rf $d; mkdir -p $d
	for s in a b; do
		printf '#include <unistd.h>\n#include <sys/syscall.h>\n__attribute__((noipa)) int in_%s(void) { return syscall(SYS_getppid); }\n__attribute__((noipa)) int hop(void) { return in_%s() + 1; }\n' $s $s >$d/lib$s.c
		gcc -O2 -g -shared -fPIC -o $d/lib$s.so $d/lib$s.c || fail "gcc lib$s" || return 1
	done
	out=$($TARGETS/reload $d/liba.so $d/libb.so 1) || fail "reload: $out" || return 1
	# the test means something only when the second takes the first's place
	expect_eq "same address" "$(echo "$out" | awk '{print $2}' | sort -u | wc -l)" 1 || return 1
	$KTRACE record -g -o $d/k.dat -e syscalls:sys_enter_getppid -- $TARGETS/reload $d/liba.so $d/libb.so 200 >/dev/null 2>$RT.err \
		|| fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $d/k.dat >$RT.rep 2>$RT.err || fail "report: $(cat $RT.err)" || return 1
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $TARGETS/reload $d/liba.so $d/libb.so 200 >$RT.out 2>$RT.err \
		|| fail "record live: $(cat $RT.err)" || return 1
	for f in $RT.out $RT.rep; do
		expect_eq "frames of each library ($f)" "$(chain_frames $f | cut -d';' -f1-4 | sort | uniq -c | awk '{print $1, $2}')" \
"200 syscall;in_a;hop;call_lib
200 syscall;in_b;hop;call_lib" || return 1
		expect_eq "their binaries ($f)" "$(grep -oE ' in_[ab]\+0x[0-9a-f]+ \([^)]*\)' $f | sed -E 's/\+0x[0-9a-f]+//' | sort | uniq -c | awk '{print $1, $2, $3}')" \
"200 in_a ($d/liba.so)
200 in_b ($d/libb.so)" || return 1
	done
}

# A stripped binary names its functions in other places, found as perf
# and gdb find them: MiniDebugInfo (Fedora's .gnu_debugdata, xz) and a
# debug file named by .gnu_debuglink (its CRC checked: a stale one is not
# used, its names would be wrong).
t_record_stacks_from_minidebuginfo_and_debuglink() {
	local d=$RT.mdi want='gamma_fn;beta_fn;alpha_fn;main'
	rm -rf $d; mkdir -p $d
	cp $CHAIN $d/full
	strip --strip-all -o $d/stripped $d/full
	# MiniDebugInfo, as Fedora makes it
	nm --format=posix --defined-only $d/full | awk '$2 ~ /^[Tt]$/ { print $1 }' >$d/funcs
	objcopy --only-keep-debug $d/full $d/dbg
	objcopy -S --keep-symbols=$d/funcs --remove-section .gdb_index \
		--remove-section .comment $d/dbg $d/mini
	xz -f $d/mini
	objcopy --add-section .gnu_debugdata=$d/mini.xz $d/stripped $d/mdi
	# a debug file next to the binary, by .gnu_debuglink
	cp $d/dbg $d/chain.debug
	objcopy --add-gnu-debuglink=$d/chain.debug $d/stripped $d/dl
	for b in mdi dl stripped; do
		$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/$b 2 >$d/$b.out 2>$d/$b.err ||
			{ fail "record $b: $(cat $d/$b.err)"; return 1; }
	done
	expect_eq "frames from MiniDebugInfo" "$(chain_frames $d/mdi.out | grep -c "$want")" 2 || return 1
	expect_eq "frames from the debuglink file" "$(chain_frames $d/dl.out | grep -c "$want")" 2 || return 1
	# stripped, no other source: not the names (never a neighbour's)
	expect_eq "stripped: no names" "$(grep -c 'gamma_fn\|beta_fn\|alpha_fn' $d/stripped.out)" 0 || return 1
	# probes by name take the same names: a local function of a stripped
	# binary is where the unstripped one has it
	local off b
	off=$($KTRACE probe add -n "$d/full:beta_fn" 2>&1) || { fail "probe full: $off"; return 1; }
	for b in mdi dl; do
		expect_eq "probe offset from $b" "$($KTRACE probe add -n "$d/$b:beta_fn" 2>&1 | sed 's/.*://')" \
			"${off##*:}" || return 1
	done
	$KTRACE probe add -n "$d/stripped:beta_fn" >$d/p.out 2>&1
	expect_eq "stripped probe" "$?" 1 || return 1
	expect_contains "stripped probe" "$(head -1 $d/p.out)" "no function 'beta_fn'" || return 1
	# probe arguments take their DWARF from the debug file by the same rule:
	# symbols in the binary, DWARF through .gnu_debuglink (CRC checked)
	strip --strip-debug -o $d/nodbg $d/full
	cp $d/dbg $d/nd.debug
	objcopy --add-gnu-debuglink=$d/nd.debug $d/nodbg $d/ndl
	off=$($KTRACE probe add -n "$d/full:beta_fn s=sink" 2>/dev/null) || { fail "probe full s=sink"; return 1; }
	expect_eq "probe argument from the debuglink's DWARF" \
		"$($KTRACE probe add -n "$d/ndl:beta_fn s=sink" 2>/dev/null | sed 's/^[^ ]* [^ ]*://')" \
		"$(echo "$off" | sed 's/^[^ ]* [^ ]*://')" || return 1
	printf 'x' >>$d/nd.debug
	$KTRACE probe add -n "$d/ndl:beta_fn s=sink" >$d/p.out 2>&1
	expect_eq "stale DWARF file: refused" "$?" 1 || return 1
	expect_contains "stale DWARF file" "$(grep -v note: $d/p.out | head -1)" \
		"its debug file '$d/nd.debug' (.gnu_debuglink) is not the one it was built with (CRC differs)" || return 1
	# a debug file that is not the binary's (CRC differs): not used
	printf 'x' >>$d/chain.debug
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $d/dl 1 >$d/dl2.out 2>&1 ||
		{ fail "record with a stale debug file"; return 1; }
	expect_eq "stale debuglink file not used" "$(grep -c 'gamma_fn\|beta_fn\|alpha_fn' $d/dl2.out)" 0 || return 1
	rm -rf $d
}
