# Issue 28's outputs, limits and papercuts: closed and full outputs,
# signals, empty recordings, the summary, messages a perf user trips on.

SYSC=$TARGETS/syscaller
PT=/tmp/ktrace-it-paper	# scratch files, overwritten by each run

# Output that cannot be written is said once and is exit 1 (coreutils'
# rule), for a closed stdout too; a closed standard descriptor is still
# not taken by a file or perf fd (ktrace holds it with /dev/null).
t_outputs_full_or_closed() {
	$KTRACE list 'irq:*' >/dev/full 2>$PT.err
	expect_eq "exit status to /dev/full" "$?" 1 || return 1
	expect_contains "/dev/full" "$(cat $PT.err)" "writing the output failed: No space left on device" || return 1
	$KTRACE list 'irq:*' >&- 2>$PT.err
	expect_eq "list, stdout closed" "$?" 1 || return 1
	expect_eq "list, stdout closed" "$(cat $PT.err)" "ktrace: writing the output failed: Bad file descriptor" || return 1
	$KTRACE version >&- 2>$PT.err
	expect_eq "version, stdout closed" "$?" 1 || return 1
	$KTRACE record -e sched:sched_switch -d 0.2 >&- 2>$PT.err
	expect_eq "record, stdout closed" "$?" 1 || return 1
	expect_eq "one error" "$(grep -c 'failed' $PT.err)" 1 || return 1
	expect_contains "record, stdout closed" "$(cat $PT.err)" "writing the records failed: Bad file descriptor" || return 1
	# nothing for stdout: a closed one is no error, and no file lands on it
	$KTRACE record -o $PT.cl -e syscalls:sys_enter_getppid -- $SYSC 5 >&- 2>/dev/null ||
		fail "record -o with stdout closed failed" || return 1
	local sum=$(md5sum <$PT.cl)
	$KTRACE report -i $PT.cl >&- 2>$PT.err
	expect_eq "report, stdout closed" "$?" 1 || return 1
	expect_eq "report, stdout closed" "$(cat $PT.err)" "ktrace: writing the output failed: Bad file descriptor" || return 1
	expect_eq "the recording untouched" "$(md5sum <$PT.cl)" "$sum" || return 1
	expect_eq "records" "$($KTRACE report -i $PT.cl | grep -c sys_enter_getppid)" 5 || return 1
	rm -f $PT.cl $PT.err
}

# record without -e samples cpu-clock, as perf does without a PMU.
t_record_without_event_samples_cpu_clock() {
	$KTRACE record -F 99 -g -o $PT.dat -- $TARGETS/busy 300 >/dev/null 2>$PT.err ||
		fail "record -F 99 -g without -e: $(cat $PT.err)" || return 1
	$KTRACE report -i $PT.dat >$PT.out 2>$PT.err || fail "report: $(cat $PT.err)" || return 1
	local n=$(grep -c ' cpu-clock: *$' $PT.out)
	[ "$n" -ge 20 ] && [ "$n" -le 35 ] || fail "-F 99 for 0.3 s: $n samples" || return 1
	grep -q 'outer_spin' $PT.out || fail "no stack through outer_spin" || return 1
	rm -f $PT.dat $PT.out $PT.err
}

# Every report mode on a recording without records: nothing, exit 0 (the
# check-asan tier runs this under UBSan, where qsort(NULL, 0) stopped it).
t_report_every_mode_on_an_empty_recording() {
	$KTRACE record -o $PT.empty -e syscalls:sys_enter_getppid -- true 2>$PT.err ||
		fail "record: $(cat $PT.err)" || return 1
	local m
	for m in "" "--json" "--raw" "--header" "--sort comm,dso,sym" \
		 "--sort event --json" "--folded" "--flamegraph $PT.svg" \
		 "--perfetto $PT.json"; do
		$KTRACE report -i $PT.empty $m >$PT.out 2>$PT.err ||
			fail "report $m: exit $?: $(head -3 $PT.err)" || return 1
		grep -q 'runtime error' $PT.err && fail "report $m: $(cat $PT.err)" && return 1
	done
	expect_eq "folded" "$($KTRACE report -i $PT.empty --folded)" "" || return 1
	rm -f $PT.empty $PT.out $PT.err $PT.svg $PT.json
}

# The end-of-record summary stays short: events with records only, the
# others counted, wrapped at 80 columns (one 12 KB line before).
t_record_summary_short() {
	$KTRACE record -o $PT.dat -e 'syscalls:sys_enter_*' -- $SYSC 5 2>$PT.err ||
		fail "record: $(cat $PT.err)" || return 1
	expect_contains "summary" "$(cat $PT.err)" "syscalls:sys_enter_getppid: 5" || return 1
	expect_eq "zero counts named" "$(grep -c 'sys_enter_[a-z0-9_]*: 0' $PT.err)" 0 || return 1
	grep -qE '^ [0-9]+ other events: 0$|, [0-9]+ other events: 0$' $PT.err ||
		fail "no count of the events without records: $(cat $PT.err)" || return 1
	expect_eq "lines over 80 columns" "$(awk 'length > 80' $PT.err)" "" || return 1
	$KTRACE record -o $PT.dat -e syscalls:sys_enter_getppid -- true 2>$PT.err
	expect_contains "one event" "$(cat $PT.err)" "0 records captured; syscalls:sys_enter_getppid: 0" || return 1
	rm -f $PT.dat $PT.err
}

# ktrace started with SIG pending (held by the caller across exec): the
# signal comes while ktrace sets up its run.
with_pending() { # SIG CMD...
	python3 -c 'import os, signal, sys
s = getattr(signal, "SIG" + sys.argv[1])
signal.pthread_sigmask(signal.SIG_BLOCK, {s})
os.kill(os.getpid(), s)
os.execv(sys.argv[2], sys.argv[2:])' "$@"
}

# One rule for signals (ktrace(1)): INT, TERM or HUP end a run cleanly,
# whenever they come, even while it is being set up; the status is 0 for
# a run without a command, 128 + the signal with -- CMD (not run here).
t_signal_exit_status_one_rule() {
	local c st
	for c in "top --stdio -e sched:sched_switch" "record -a -e sched:sched_switch" \
		 "stat -a -e sched:sched_switch" "record -a -e uprobe:$TARGETS/probed:hot"; do
		timeout 20 bash -c "$(declare -f with_pending); with_pending INT $KTRACE $c" >/dev/null 2>$PT.err
		st=$?
		expect_eq "'$c' with SIGINT at its start" "$st" 0 || return 1
	done
	timeout 20 bash -c "$(declare -f with_pending); with_pending HUP $KTRACE stat -e sched:sched_switch -- $SYSC 1" >$PT.out 2>$PT.err
	expect_eq "stat -- CMD, SIGHUP at its start" "$?" 129 || return 1
	grep -q getppid $PT.out && fail "the command ran" && return 1
	timeout 20 bash -c "$(declare -f with_pending); with_pending TERM $KTRACE record -e syscalls:sys_enter_getppid -- $SYSC 1" >$PT.out 2>$PT.err
	expect_eq "record -- CMD, SIGTERM at its start" "$?" 143 || return 1
	expect_eq "records" "$(grep -c sys_enter_getppid $PT.out)" 0 || return 1
	# a command that does not stop itself dies of it, as any program
	timeout 20 bash -c "$(declare -f with_pending); with_pending INT $KTRACE list" >/dev/null 2>&1
	expect_eq "list with SIGINT pending" "$?" 130 || return 1
	rm -f $PT.out $PT.err
}

# stat: the title names the command line; -I --json gives what each
# interval added to the times enabled and running, not their totals.
t_stat_title_and_interval_times() {
	expect_status 0 $KTRACE stat -e task-clock -- sh -c 'exit 0' || return 1
	expect_contains "title" "$ERR" "Performance counter stats for 'sh -c exit 0':" || return 1
	expect_status 0 $KTRACE stat --json -o /dev/stdout -I 100 -e task-clock -- $TARGETS/busy 500 || return 1
	python3 - "$OUT" <<'PY' || fail "json intervals: $OUT"
import json, sys
objs = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
iv = [o["counters"][0] for o in objs if "time" in o]
total = objs[-1]["counters"][0]
assert len(iv) >= 4, objs
# an interval is 100 ms: what it added, never the total so far
assert all(c["enabled_ns"] <= 160e6 and c["running_ns"] <= 160e6 for c in iv), iv
assert sum(c["enabled_ns"] for c in iv) <= total["enabled_ns"], (iv, total)
PY
}

# A non-root probe add names the privilege, as the other commands do.
t_probe_add_unprivileged_names_root() {
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$nobody $KTRACE probe add "$TARGETS/probed:hot" >/dev/null 2>$PT.err
	expect_eq "exit status" "$?" 1 || return 1
	expect_contains "message" "$(cat $PT.err)" "Permission denied (run as root)" || return 1
	rm -f $PT.err
}

# Text output escapes control characters in what the traced program names
# (its comm, a string argument): no forged line, no escape sequence.
t_record_text_escapes_control_characters() {
	$KTRACE record -e 'uprobe:libc:fopen p=+0(%di):string' -- python3 -c '
import ctypes
libc = ctypes.CDLL(None)
libc.prctl(15, b"ev\nil\x1b[31m", 0, 0, 0)
libc.fopen(b"/tmp/x\ny\x1b[2J", b"r")' >$PT.out 2>$PT.err || fail "record: $(cat $PT.err)" || return 1
	expect_contains "escaped" "$(grep -F '/tmp/x' $PT.out)" 'p="/tmp/x\ny\x1b[2J"' || return 1
	grep -qF 'ev\nil\x1b[31m' $PT.out || fail "comm not escaped: $(tail -3 $PT.out)" || return 1
	grep -q "$(printf '\033')" $PT.out && fail "an escape character in the output" && return 1
	grep -q '^y\|^il' $PT.out && fail "a forged line" && return 1
	rm -f $PT.out $PT.err
}

# Stack frames are the traced program's text too (its symbol and file
# names): escaped by the one escaper, backslashes doubled.
t_record_stack_frames_escaped() {
	local d="$PT.d/b$(printf '\033')[31m\\x41"$'\n'"forged"
	rm -rf "$PT.d" && mkdir -p "$d" && cp $TARGETS/busy "$d/busy" || return 1
	$KTRACE record -e cpu-clock -F 499 -g -- "$d/busy" 200 >$PT.out 2>$PT.err ||
		fail "record: $(cat $PT.err)" || return 1
	grep -qF 'outer_spin+0x' $PT.out || fail "no outer_spin frame" || return 1
	grep -qF "(/tmp/ktrace-it-paper.d/b\\x1b[31m\\\\x41\\nforged/busy)" $PT.out ||
		fail "path not escaped: $(grep -m3 outer_spin $PT.out)" || return 1
	grep -q "$(printf '\033')" $PT.out && fail "an escape character in the output" && return 1
	grep -q '^forged' $PT.out && fail "a forged line" && return 1
	rm -rf "$PT.d" $PT.out $PT.err
}

# An inlined function's frame has no offset (the address's offset from
# the symbol is its caller's); JSON frames are typed members: addr, sym,
# offset, dso, inlined.
t_record_inlined_frames_and_json_frames() {
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $TARGETS/cxxchain 1 >$PT.out 2>$PT.err ||
		fail "record: $(cat $PT.err)" || return 1
	expect_eq "inlined frame" "$(grep -cE $'^\t +[0-9a-f]+ ask_parent \\(inlined\\)$' $PT.out)" 1 || return 1
	grep -q 'ask_parent+0x' $PT.out && fail "an inlined frame with its caller's offset" && return 1
	$KTRACE record -j -g -e syscalls:sys_enter_getppid -- $TARGETS/cxxchain 1 >$PT.out 2>$PT.err ||
		fail "record -j: $(cat $PT.err)" || return 1
	python3 - $PT.out <<'PY' || fail "json frames: $(grep '^{' $PT.out | head -2)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
st = [r for r in recs if r.get("stack")][0]["stack"]
user = [f for f in st if not f["dso"].startswith("[kernel")]
assert all(set(f) == {"addr", "sym", "offset", "dso", "inlined"} for f in st), st
assert all(type(f["addr"]) is int and type(f["inlined"]) is bool for f in st), st
inl = [i for i, f in enumerate(user) if f["sym"] == "ask_parent"]
assert len(inl) == 1, user
f, caller = user[inl[0]], user[inl[0] + 1]
assert f["inlined"] is True and f["offset"] is None and f["dso"].endswith("/cxxchain"), f
assert caller["sym"] == "ns::Widget::poke(int)" and caller["inlined"] is False, caller
assert type(caller["offset"]) is int and caller["addr"] == f["addr"], (caller, f)
main = [f for f in user if f["sym"] == "main"]
assert main and type(main[0]["offset"]) is int, user
PY
	rm -f $PT.out $PT.err
}

# report --header says what the recording is, as perf report --header-only
# does: host, CPUs, the command or system-wide, events with their
# frequency or period, the call-graph mode, records and their time span.
t_report_header_says_the_recording() {
	$KTRACE record -o $PT.dat -F 99 -g -e cpu-clock -e syscalls:sys_enter_getppid \
		-- $SYSC 3 2>$PT.err || fail "record: $(cat $PT.err)" || return 1
	expect_status 0 $KTRACE report -i $PT.dat --header || return 1
	local l
	for l in "# host: $(uname -n)" "# CPUs: $(nproc) online, recorded on all" \
		 "# command: $SYSC 3" "# event: cpu-clock, a sample at 99 Hz" \
		 "# event: syscalls:sys_enter_getppid, every event" \
		 "# call-graph: dwarf, 8192 bytes of user stack a sample"; do
		expect_contains "header" "$OUT" "$l" || return 1
	done
	printf '%s\n' "$OUT" | grep -qE '^# records: [0-9]+, lost 0$' || fail "records: $OUT" || return 1
	printf '%s\n' "$OUT" | grep -qE '^# time: [0-9]+\.[0-9]{9} to [0-9]+\.[0-9]{9} \(CLOCK_MONOTONIC\), duration [0-9]+\.[0-9]{3} s$' ||
		fail "time span: $OUT" || return 1
	printf '%s\n' "$OUT" | grep -q "^# captured on: $(date -u +%Y-%m-%d) " || fail "captured on: $OUT" || return 1
	$KTRACE record -o $PT.dat -a -C 0 -c 1000000 -d 0.2 --call-graph fp -e cpu-clock 2>$PT.err ||
		fail "record -a: $(cat $PT.err)" || return 1
	expect_status 0 $KTRACE --json report -i $PT.dat --header || return 1
	python3 - "$OUT" <<'PY' || fail "json header: $OUT" || return 1
import json, sys
h = json.loads(sys.argv[1])
assert h["target"] == "system-wide" and h["command"] is None and h["cpus"] == "0", h
assert h["events"] == [{"name": "cpu-clock", "sampling": "period", "value": 1000000}], h
assert h["call_graph"] == {"mode": "fp"}, h
assert h["records"] > 0 and 0 < h["duration_ns"] < 5e9 and h["first_ns"] + h["duration_ns"] == h["last_ns"], h
PY
	rm -f $PT.dat $PT.err
}

# stat prints its counts on stderr, as perf stat does (-j too), so that
# 'stat -- CMD > file' keeps the command's output clean; -o FILE writes
# them, text or JSON, to a file; a file that cannot be written is exit 1.
t_stat_counts_on_stderr_or_file() {
	$KTRACE stat -e syscalls:sys_enter_getppid -- sh -c "echo out; $SYSC 4" >$PT.out 2>$PT.err ||
		fail "stat: $(cat $PT.err)" || return 1
	expect_eq "the command's output only" "$(cat $PT.out)" "out" || return 1
	# the shell's own getppid ($PPID) counts too
	local n=$(awk '$2 == "syscalls:sys_enter_getppid" {print $1}' $PT.err)
	[ "${n:-0}" -ge 4 ] && [ "$n" -le 6 ] || fail "count on stderr: '$n'" || return 1
	$KTRACE stat --json -e syscalls:sys_enter_getppid -- sh -c "echo out; $SYSC 4" >$PT.out 2>$PT.err ||
		fail "stat --json: $(cat $PT.err)" || return 1
	expect_eq "the command's output only (json)" "$(cat $PT.out)" "out" || return 1
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert 4 <= d["counters"][0]["count"] <= 6, d' $PT.err ||
		fail "json on stderr: $(cat $PT.err)" || return 1
	rm -f $PT.stat
	$KTRACE stat -o $PT.stat -e syscalls:sys_enter_getppid -- sh -c "echo out; $SYSC 4" >$PT.out 2>$PT.err ||
		fail "stat -o: $(cat $PT.err)" || return 1
	expect_eq "-o: the command's output" "$(cat $PT.out)" "out" || return 1
	expect_eq "-o: nothing on stderr" "$(cat $PT.err)" "" || return 1
	n=$(awk '$2 == "syscalls:sys_enter_getppid" {print $1}' $PT.stat)
	[ "${n:-0}" -ge 4 ] && [ "$n" -le 6 ] || fail "-o: count '$n'" || return 1
	$KTRACE --json stat -o $PT.stat -I 100 -e task-clock -- sleep 0.35 >$PT.out 2>$PT.err ||
		fail "stat -o --json: $(cat $PT.err)" || return 1
	python3 -c 'import json, sys; l = [json.loads(x) for x in open(sys.argv[1])]; assert len(l) >= 3 and "elapsed" in l[-1], l' $PT.stat ||
		fail "json in the file: $(cat $PT.stat)" || return 1
	$KTRACE stat -o /dev/full -e task-clock -- true 2>$PT.err
	expect_eq "-o /dev/full" "$?" 1 || return 1
	expect_contains "-o /dev/full" "$(cat $PT.err)" "cannot write '/dev/full'" || return 1
	rm -f $PT.out $PT.err $PT.stat
}

# A JIT that deletes its /tmp/perf-PID.map when it exits still has its
# frames named: ktrace reads the map while the process runs and keeps it,
# live and in a -o file (perf cannot: it reads the map at report time).
t_record_jit_map_deleted_at_exit() {
	$KTRACE record -g -e syscalls:sys_enter_getppid -- $TARGETS/jit 4 del >$PT.out 2>$PT.err
	local st=$?
	[ $st = 77 ] && { echo "SKIP: the jit target is x86-64 code"; return 77; }
	[ $st = 0 ] || fail "record -g jit: $(cat $PT.err)" || return 1
	local frame=$'^\t +[0-9a-f]+ jitted_getppid\\+0x7 \\(/tmp/perf-[0-9]+\\.map\\)$'
	expect_eq "live: jit frames" "$(grep -cE "$frame" $PT.out)" 4 || return 1
	$KTRACE record -g -o $PT.dat -e syscalls:sys_enter_getppid -- $TARGETS/jit 4 del >/dev/null 2>$PT.err ||
		fail "record -g -o jit: $(cat $PT.err)" || return 1
	local pid=$($KTRACE report -i $PT.dat | grep -m1 -oE 'perf-[0-9]+\.map' | tr -dc 0-9)
	[ -n "$pid" ] || fail "no perf map named: $($KTRACE report -i $PT.dat | head)" || return 1
	[ -e /tmp/perf-$pid.map ] && fail "the map was not deleted" && return 1
	$KTRACE report -i $PT.dat >$PT.out 2>$PT.err || fail "report: $(cat $PT.err)" || return 1
	expect_eq "file: jit frames" "$(grep -cE "$frame" $PT.out)" 4 || return 1
	rm -f $PT.out $PT.err $PT.dat
}
