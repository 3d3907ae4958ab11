# ktrace record --off-cpu against the real kernel: tests/targets/offcpu
# waits in three known places (wait_pipe: a pipe read for 300 ms,
# wait_sleep: a nanosleep for 100 ms, wait_futex: a futex for 50 ms) and
# prints how long each took as it saw it ("NAME USECS"). Each wait must be
# one stack, with its callers and the kernel's wait under it, weighted by
# the time off the CPU: within 10 % of the program's own measure, which is
# at least the nominal time. Live, through -o and report (--folded,
# --sort --json, --flamegraph), with -p and with -a.

OFFCPU=$TARGETS/offcpu
RO=/tmp/ktrace-it-offcpu	# scratch files, overwritten by each run

# The nanoseconds of the folded lines of the target's main thread that
# hold every word of PATTERN, in that order, each in a frame (anon_pipe_read
# holds pipe_read).
folded_ns() { # FOLDED PATTERN
	awk -v pat="$2" '
		BEGIN { n = split(pat, want, " ") }
		/^offcpu;/ {
			line = $0; ok = 1
			for (i = 1; i <= n && ok; i++) {
				p = index(line, want[i])
				if (!p) ok = 0
				else line = substr(line, p + length(want[i]))
			}
			if (ok) s += $NF
		}
		END { print s + 0 }' "$1"
}

# GOT ns within 10 % of the program's USECS for NAME, which is at least
# NOMINAL ms.
expect_wait() { # WHAT GOT_NS OUTFILE NAME NOMINAL_MS
	local us
	us=$(awk -v n="$4" '$1 == n { print $2 }' "$3")
	[ -n "$us" ] || { fail "$1: the target printed no '$4' line"; return 1; }
	[ "$us" -ge $(($5 * 1000)) ] ||
		{ fail "$1: the target says $4 took $us us, under $5 ms"; return 1; }
	awk -v g="$2" -v w="$us" 'BEGIN { exit !(g >= w * 900 && g <= w * 1100) }' ||
		fail "$1: $2 ns off the CPU, the target measured $us us (want within 10 %)"
}

# The three waits of FOLDED, against the target's OUT.
expect_three_waits() { # WHAT FOLDED OUT
	expect_wait "$1 pipe" "$(folded_ns "$2" 'main timed wait_pipe read pipe_read schedule')" \
		"$3" wait_pipe 300 &&
	expect_wait "$1 nanosleep" "$(folded_ns "$2" 'main timed wait_sleep sleep_ms nanosleep do_nanosleep schedule')" \
		"$3" wait_sleep 100 &&
	expect_wait "$1 futex" "$(folded_ns "$2" 'main timed wait_futex syscall futex_wait schedule')" \
		"$3" wait_futex 50
}

# Wait up to SECS for PID (our child) to exit; its status in $WST.
oc_wait_exit() { # PID SECS
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($2 * 10)) ]; then
			kill -KILL "$1" 2>/dev/null; wait "$1" 2>/dev/null
			fail "process $1 did not exit within $2 s"; return 1
		fi
		sleep 0.1
	done
	wait "$1"; WST=$?
}

# Wait up to SECS until ktrace PID records: its events open and it waits
# in its loop's poll(2) (with -g, -p reads the maps and kallsyms first: a
# loaded machine takes more than a second).
oc_wait_recording() { # PID SECS
	local i=0
	until ls -l /proc/$1/fd 2>/dev/null | grep -q 'perf_event' &&
	      grep -q poll /proc/$1/wchan 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($2 * 10)) ] && { fail "ktrace $1 is not recording"; return 1; }
		sleep 0.1
	done
	sleep 0.2
}

# ------------------------------------------------------------------ tests

# A command, to a file: the three stacks in report --folded (outermost
# first, the kernel's wait innermost), their times; --sort --json weighs
# by the same nanoseconds; the flame graph says so; the summary counts.
t_offcpu_command_file_folded_sort_flamegraph() {
	expect_status 0 $KTRACE record --off-cpu -o $RO.kt -- $OFFCPU || return 1
	expect_contains "summary" "$ERR" "offcpu-time: " || return 1
	echo "$OUT" > $RO.out
	expect_status 0 $KTRACE report -i $RO.kt --folded || return 1
	echo "$OUT" > $RO.folded
	expect_three_waits "folded" $RO.folded $RO.out || return 1
	# the waker threads' sleeps are theirs, under their own name
	grep -q '^waker;.*;write_later;sleep_ms;' $RO.folded ||
		{ fail "no waker stack in: $(head -c 600 $RO.folded)"; return 1; }
	# --sort comm: the main thread's blocked time is the three waits
	expect_status 0 $KTRACE --json report -i $RO.kt --sort comm || return 1
	local main_ns want
	main_ns=$(printf '%s' "$OUT" | python3 -c '
import json, sys
for ev in json.load(sys.stdin):
    if ev["event"] == "offcpu-time":
        print(sum(r["period"] for r in ev["rows"] if r["comm"] == "offcpu"))')
	want=$(awk '/^wait_/ { s += $2 } END { print s }' $RO.out)
	awk -v g="$main_ns" -v w="$want" 'BEGIN { exit !(g >= w * 900 && g <= w * 1100) }' ||
		{ fail "--sort comm: offcpu's period $main_ns ns, its waits $want us"; return 1; }
	expect_status 0 $KTRACE report -i $RO.kt --flamegraph $RO.svg || return 1
	grep -q 'off-CPU time' $RO.svg && grep -q 'wait_pipe' $RO.svg ||
		fail "the flame graph does not show the waits"
}

# Live: one "offcpu-time" line per wait, its period the nanoseconds, the
# stack under it, as the file's report prints it.
t_offcpu_live_lines() {
	expect_status 0 $KTRACE record --off-cpu -- $OFFCPU || return 1
	printf '%s\n' "$OUT" > $RO.live
	local pipe_ns
	pipe_ns=$(awk '/ offcpu-time: / { p = $(NF - 1); next }
		       / wait_pipe\+/ && p { print p; p = 0 }
		       /^$/ { p = 0 }' $RO.live)
	[ -n "$pipe_ns" ] || { fail "no offcpu-time line over wait_pipe: $(head -c 800 $RO.live)"; return 1; }
	grep '^wait_' $RO.live > $RO.out
	expect_wait "live pipe" "$pipe_ns" $RO.out wait_pipe 300
}

# -p: a process already running, waiting for SIGUSR1 first.
t_offcpu_pid() {
	rm -f $RO.pout
	$OFFCPU wait > $RO.pout &
	local tp=$! kp
	wait_for_line $RO.pout ready 5 || { kill $tp; return 1; }
	$KTRACE record --off-cpu -p $tp -o $RO.p.kt 2>$RO.perr &
	kp=$!
	oc_wait_recording $kp 20 || { kill $tp; kill -INT $kp; return 1; }
	kill -USR1 $tp
	oc_wait_exit $tp 10 || { kill -INT $kp; return 1; }
	oc_wait_exit $kp 10 || return 1
	expect_eq "record -p status" "$WST" 0 || return 1
	$KTRACE report -i $RO.p.kt --folded > $RO.p.folded || { fail "report failed"; return 1; }
	expect_three_waits "-p" $RO.p.folded $RO.pout
}

# -a: every task's switches; the target's waits among them.
t_offcpu_system_wide() {
	rm -f $RO.aout
	$OFFCPU wait > $RO.aout &
	local tp=$! kp
	wait_for_line $RO.aout ready 5 || { kill $tp; return 1; }
	$KTRACE record --off-cpu -a -d 3 -o $RO.a.kt 2>$RO.aerr &
	kp=$!
	oc_wait_recording $kp 20 || { kill $tp; kill -INT $kp; return 1; }
	kill -USR1 $tp
	oc_wait_exit $tp 10 || { kill -INT $kp; return 1; }
	oc_wait_exit $kp 10 || return 1
	expect_eq "record -a status" "$WST" 0 || return 1
	$KTRACE report -i $RO.a.kt --folded > $RO.a.folded || { fail "report failed"; return 1; }
	expect_three_waits "-a" $RO.a.folded $RO.aout
}
