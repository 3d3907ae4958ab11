# ktrace top: --stdio tables (exact counts of a target's system calls, the
# hottest symbols of a spinning target at a known rate) and the full
# screen driven in tmux (keys, resize of the sort, a clean exit on q and on
# SIGTERM with the terminal restored and inline probes removed).

SYSC=$TARGETS/syscaller
BUSY=$TARGETS/busy
PROBED=$TARGETS/probed
RT=/tmp/ktrace-it-top

# The value of column COL in the last "... NAME" row of a --stdio table.
last_row() { # FILE NAME COL
	awk -v n="$2" -v c="$3" '$NF == n { v = $c } END { print v }' "$1"
}

t_top_stdio_exact_counts() {
	# syscaller waits for SIGUSR1, then makes 5000 getppid() calls and exits
	$SYSC 5000 0 wait >/dev/null &
	local sp=$!
	$KTRACE top --stdio -I 200 -d 10 -p $sp -e syscalls:sys_enter_getppid \
		-e 'syscalls:sys_enter_getpid' >$RT.out 2>$RT.err &
	local tp=$!
	sleep 0.5
	kill -USR1 $sp
	wait $sp
	wait $tp || fail "top exited $?: $(cat $RT.err)" || return 1
	expect_eq "total getppid" "$(last_row $RT.out syscalls:sys_enter_getppid 2)" 5000 || return 1
	expect_eq "total getpid" "$(last_row $RT.out syscalls:sys_enter_getpid 2)" 0 || return 1
	grep -q '^ktrace top: process id' $RT.out || fail "no header: $(head -3 $RT.out)" || return 1
	# -d ends a system-wide top; its tables come every interval
	$KTRACE top --stdio -I 200 -d 1.1 -e 'sched:sched_switch' >$RT.out 2>$RT.err ||
		fail "top -d: $(cat $RT.err)" || return 1
	n=$(grep -c '^ktrace top:' $RT.out)
	[ "$n" -ge 5 ] && [ "$n" -le 7 ] || fail "$n tables in 1.1 s at 200 ms" || return 1
}

t_top_stdio_hottest_symbols() {
	$BUSY 3000 &
	local bp=$!
	$KTRACE top --stdio -F 199 -I 1000 -d 2.05 -z -p $bp >$RT.out 2>$RT.err
	local rc=$?
	kill $bp 2>/dev/null; wait $bp 2>/dev/null
	[ $rc = 0 ] || fail "top exited $rc: $(cat $RT.err)" || return 1
	# the first full interval: the target's loop on top, at -F 199 (+-5 %)
	awk '/^ktrace top:/ { t++ } t == 2' $RT.out >$RT.t2
	top=$(awk '/Overhead/ { getline; print $NF; exit }' $RT.t2)
	case $top in inner_spin|outer_spin) ;; *) fail "hottest: '$top': $(cat $RT.t2)"; return 1;; esac
	rate=$(sed -n 's/^samples: \([0-9]*\)\/s.*/\1/p' $RT.t2)
	[ "$rate" -ge 189 ] && [ "$rate" -le 209 ] || fail "samples/s $rate at -F 199" || return 1
	pct=$(awk '$NF ~ /_spin$/ { s += $1 } END { printf "%d", s }' $RT.t2)
	[ "$pct" -ge 90 ] || fail "spin functions only $pct %: $(cat $RT.t2)" || return 1
	grep -q ' busy  *[a-z_]*_spin$' $RT.t2 || fail "dso not 'busy': $(cat $RT.t2)" || return 1
}

t_top_bad_input() {
	$KTRACE top --stdio -e 'nosuch:event' -d 1 >$RT.out 2>$RT.err
	expect_eq "unknown event exit" "$?" 1 || return 1
	expect_eq "one line" "$(wc -l <$RT.err)" 1 || return 1
	$KTRACE top --stdio -I 5 -d 1 2>$RT.err
	expect_eq "bad interval" "$?" 2 || return 1
	$KTRACE top --stdio -- true 2>$RT.err
	expect_eq "a command" "$?" 2 || return 1
	$KTRACE top -d 1 </dev/null >$RT.out 2>$RT.err
	expect_eq "no terminal" "$?" 2 || return 1
	expect_contains "no terminal says" "$(cat $RT.err)" "--stdio" || return 1
}

# The screen in tmux: what a person sees, the keys, and the exits.
tmux_top() { # SESSION ARGS...: top in a 100x30 pane; then the tty state
	local s=$1
	shift
	tmux kill-session -t $s 2>/dev/null
	rm -f $RT.$s.done
	tmux new-session -d -s $s -x 100 -y 30 \
		"$KTRACE top $*; echo \$? >$RT.$s.rc; stty -a >$RT.$s.stty; touch $RT.$s.done; sleep 30"
}

screen_has() { # SESSION TEXT SECS
	local i=0
	until tmux capture-pane -p -t $1 | grep -qF -- "$2"; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && { fail "screen has no '$2': $(tmux capture-pane -p -t $1 | head -12)"; return 1; }
		sleep 0.1
	done
}

wait_done() { # SESSION SECS
	local i=0
	until [ -e $RT.$1.done ]; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && { fail "top did not exit: $(tmux capture-pane -p -t $1 | head -5)"; return 1; }
		sleep 0.1
	done
}

t_top_screen_keys_in_tmux() {
	command -v tmux >/dev/null || fail "tmux is not installed" || return 1
	$SYSC 100 0 loop >/dev/null &
	local sp=$!
	tmux_top ktop -I 300 -e cpu-clock -F 99 -e syscalls:sys_enter_getppid \
		-e syscalls:sys_enter_getpid
	local ok=0
	screen_has ktop "Overhead" 10 &&
	screen_has ktop "Events/s" 5 &&
	screen_has ktop "syscalls:sys_enter_getppid" 5 &&
	screen_has ktop "q quit  p pause  s sort: count" 5 && ok=1
	# s: the next sort column; events by name put getpid before getppid
	[ $ok = 1 ] && tmux send-keys -t ktop s && screen_has ktop "s sort: total" 3 &&
		tmux send-keys -t ktop s && screen_has ktop "s sort: name" 3 || ok=0
	if [ $ok = 1 ]; then
		tmux capture-pane -p -t ktop >$RT.screen
		a=$(grep -n 'sys_enter_getpid$' $RT.screen | cut -d: -f1)
		b=$(grep -n 'sys_enter_getppid$' $RT.screen | cut -d: -f1)
		[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] ||
			{ fail "sort by name: getpid at '$a', getppid at '$b'"; ok=0; }
	fi
	# p: paused (the clock in the header stops), p again: running
	if [ $ok = 1 ] && tmux send-keys -t ktop p && screen_has ktop "[paused]" 3; then
		h1=$(tmux capture-pane -p -t ktop | head -1)
		sleep 1
		h2=$(tmux capture-pane -p -t ktop | head -1)
		[ "$h1" = "$h2" ] || { fail "paused screen changed: '$h1' -> '$h2'"; ok=0; }
		tmux send-keys -t ktop p
		screen_has ktop "p pause" 3 || ok=0
	else
		ok=0
	fi
	# q: exit 0, the terminal as it was (canonical mode, echo)
	[ $ok = 1 ] && tmux send-keys -t ktop q && wait_done ktop 5 || ok=0
	kill $sp; wait $sp 2>/dev/null
	tmux kill-session -t ktop 2>/dev/null
	[ $ok = 1 ] || return 1
	expect_eq "exit status on q" "$(cat $RT.ktop.rc)" 0 || return 1
	grep -qw -- '-icanon' $RT.ktop.stty && { fail "terminal left raw: $(cat $RT.ktop.stty)"; return 1; }
	grep -qw -- '-echo' $RT.ktop.stty && { fail "terminal left without echo"; return 1; }
	return 0
}

t_top_screen_sigterm_removes_probes() {
	command -v tmux >/dev/null || fail "tmux is not installed" || return 1
	tmux_top ktop2 -I 300 -e "uprobe:$PROBED:hot"
	screen_has ktop2 "Events/s" 10 || { tmux kill-session -t ktop2; return 1; }
	grep -q '^p:ktrace_[0-9]*/hot ' $TFS/uprobe_events ||
		{ fail "no inline probe while top runs"; tmux kill-session -t ktop2; return 1; }
	pkill -TERM -f "^$KTRACE top -I 300 -e uprobe:"
	wait_done ktop2 5 || { tmux kill-session -t ktop2; return 1; }
	tmux kill-session -t ktop2 2>/dev/null
	expect_eq "exit status on SIGTERM" "$(cat $RT.ktop2.rc)" 0 || return 1
	grep -qw -- '-icanon' $RT.ktop2.stty && { fail "terminal left raw"; return 1; }
	expect_eq "inline probe left" "$(grep -c 'ktrace_[0-9]*/hot' $TFS/uprobe_events)" 0
}
