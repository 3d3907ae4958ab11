#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace record with kprobes: inline kprobes and kretprobes (created for the
# run, removed at its end), pre-made probes, -o + report (text, --json,
# --raw), live --json, a tracepoint and a kprobe in one run (time order),
# -a -d, SIGINT and SIGKILL mid-record (stale group cleanup), stat on a
# probe, and the kprobe hit/miss summary on stderr.
. /tests/lib.sh

if ! have_ktrace; then
	fail record-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt40
mkdir -p $D
on_exit "rm -rf $D"

# Remove, straight through tracefs, every dynamic event of the groups this
# script may leave behind (ktrace:, ktrace_<pid>:), whatever ktrace did.
kt40_cleanup() {
	local ev
	for ev in $(sed -n 's/^[^:]*:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|ktrace_[0-9]*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
}
on_exit kt40_cleanup

# Processes started in the background; killed on exit.
bgpids=
kt40_kill_bg() {
	local p
	for p in $bgpids; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
on_exit kt40_kill_bg

# No ktrace_<pid> group left in dynamic_events.
expect_no_inline_groups() {
	local left
	left=$(grep -E '^[^ ]*:ktrace_[0-9]+/' $T/dynamic_events)
	if [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "inline probes left behind"
		_show "$left"
	fi
}

# The 'records captured' count of a record's stderr.
captured() {
	sed -n 's/^ktrace record: \([0-9]*\) records captured.*/\1/p' "$1"
}

# Event lines of a text output ("comm pid [cpu] sec.nsec: sys:event: ...").
event_lines() {
	grep -E '^ *[^ ]+ +[0-9]+(/[0-9]+)? \[[0-9]+\] [0-9]+\.[0-9]{9}: [^ ]+:[^ ]+: ' "$1"
}

# Timestamps never go back (prints the first offending pair, if any).
time_order_bad() {
	awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				# (busybox awk reads a leading 0 as octal)
				split(substr($i, 1, length($i) - 1), t, ".")
				s = t[1]; n = t[2]
				sub(/^0+/, "", s); sub(/^0+/, "", n)
				s += 0; n += 0
				if (seen && (s < ps || (s == ps && n < pn))) {
					print "at line " NR ": " ps "." pn " then " s "." n
					exit
				}
				ps = s; pn = n; seen = 1
				break
			}
	}' "$1"
}

printf 'aaa\n' > $D/file-a
printf 'hello\n' > $D/file-b
printf 'bg\n' > $D/file-bg
OPEN='kprobe:do_sys_openat2 filename:ustring'

# --- Inline kprobe: the real file names, the command's exit status. ------
ktrace record -e "$OPEN" -- cat $D/file-a $D/file-nope > $D/k.out 2> $D/k.err
rc=$?
# busybox cat exits 1 when a file cannot be opened.
expect_eq record-kprobe-exit-is-cat 1 "$rc"
out=$(event_lines $D/k.out)
expect_match record-kprobe-file-a "$out" \
	"^ *cat +[0-9]+ \[[0-9]+\] [0-9.]+: ktrace_[0-9]+:do_sys_openat2: \(.*\) filename=\"$D/file-a\"$"
expect_match record-kprobe-file-nope "$out" \
	"cat +[0-9]+ .*: ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-nope\"$"
expect_eq record-kprobe-captured 2 "$(captured $D/k.err)"
expect_no_inline_groups record-kprobe-removed
[ -e "$T/events/ktrace_$(sed -n 's/.* ktrace_\([0-9]*\):.*/\1/p' $D/k.out | head -n1)" ] &&
	fail record-kprobe-events-dir-gone "events/ktrace_<pid> still there" ||
	pass record-kprobe-events-dir-gone
# The kernel's hit/miss counts of the inline probe (kprobe_profile).
expect_match record-kprobe-misses-line "$(cat $D/k.err)" \
	'^ktrace record: .*do_sys_openat2: [0-9]+ hits, [0-9]+ missed'

ktrace record -e "$OPEN" -- cat $D/file-b > $D/k0.out 2> $D/k0.err
expect_eq record-kprobe-exit-zero 0 "$?"
expect_contains record-kprobe-file-b "$(event_lines $D/k0.out)" "filename=\"$D/file-b\""

# --- Inline kretprobe (busybox cat uses sendfile: dd reads). --------------
ktrace record -e 'kretprobe:vfs_read $retval' -- \
	dd if=$D/file-b of=/dev/null bs=64 > $D/r.out 2> $D/r.err
expect_eq record-kretprobe-exit 0 "$?"
out=$(event_lines $D/r.out)
# file-b is 6 bytes: dd's reads return 6, then 0.
expect_match record-kretprobe-retval "$out" \
	'^ *dd +[0-9]+ .*: ktrace_[0-9]+:vfs_read__return: \(.*<- .*\) retval=6$'
expect_match record-kretprobe-eof "$out" \
	'^ *dd +[0-9]+ .*: ktrace_[0-9]+:vfs_read__return: \(.*<- .*\) retval=0$'
expect_no_inline_groups record-kretprobe-removed
expect_match record-kretprobe-misses-line "$(cat $D/r.err)" \
	'^ktrace record: .*vfs_read__return: [0-9]+ hits, [0-9]+ missed'

# --- A :symbol argument prints the kernel's name for it (%pS), not hex. ---
ktrace record -e "kprobe:do_sys_openat2 at=$RIP:symbol" -- cat $D/file-a \
	> $D/s.out 2> $D/s.err
expect_match record-kprobe-symbol-arg "$(event_lines $D/s.out)" \
	' at=do_sys_openat2(\+0x[0-9a-f]+)?$'
expect_no_inline_groups record-kprobe-symbol-removed

# --- pgoff by name: do_mmap's 7th parameter on 6.12 (x86-64 passes it on
# the stack: $stack1; arm64 in x6), its 6th on 6.1 (%r9, x5); the same
# value either way. ---
ktrace record -e 'kprobe:do_mmap len pgoff' -- $TARGETS/mmapper > $D/m.out 2> $D/m.err
expect_eq record-kprobe-mmapper-exit 0 "$?"
expect_match record-kprobe-stack-arg "$(event_lines $D/m.out)" \
	'^ *mmapper .*:do_mmap: .* len=4096 pgoff=3$'
expect_match record-kprobe-stack-arg-zero "$(event_lines $D/m.out)" \
	'^ *mmapper .*:do_mmap: .* len=4096 pgoff=0$'
expect_no_inline_groups record-kprobe-stack-arg-removed

# --- A pre-made probe: used, not removed by record. ----------------------
expect_ok record-premade-add ktrace probe add 'do_sys_openat2 filename:ustring'
ktrace record -e ktrace:do_sys_openat2 -- cat $D/file-a > $D/p.out 2> $D/p.err
expect_eq record-premade-exit 0 "$?"
expect_match record-premade-file "$(event_lines $D/p.out)" \
	"^ *cat +[0-9]+ .*: ktrace:do_sys_openat2: .* filename=\"$D/file-a\"$"
expect_match record-premade-kept "$(cat $T/dynamic_events)" '^p:ktrace/do_sys_openat2 '

# --- stat on the pre-made probe: exactly the loop's opens. ---------------
# (no redirections in the loop: they would be opens too)
expect_ok record-stat-run ktrace stat -e ktrace:do_sys_openat2 -- \
	sh -c "i=0; while [ \$i -lt 5 ]; do cat $D/file-a; i=\$((i + 1)); done"
n=$(printf '%s\n' "$OUT" | awk '$2 == "ktrace:do_sys_openat2" { print $1 }')
expect_eq record-stat-count 5 "$n"

expect_ok record-premade-del ktrace probe del 'ktrace:*'
expect_eq record-premade-gone "" "$(grep ktrace/ $T/dynamic_events)"

# --- -o FILE, then report: text, --json, --raw. ---------------------------
ktrace record -o $D/rec.kt -e "$OPEN" -- cat $D/file-a $D/file-b > $D/o.out 2> $D/o.err
expect_eq record-output-exit 0 "$?"
expect_match record-output-wrote "$(cat $D/o.err)" "^ktrace record: wrote [0-9]+ bytes to $D/rec.kt$"
expect_eq record-output-no-event-lines "" "$(event_lines $D/o.out)"
expect_no_inline_groups record-output-removed
ktrace report -i $D/rec.kt > $D/rep.out 2>&1
expect_eq report-exit 0 "$?"
out=$(event_lines $D/rep.out)
expect_match report-file-a "$out" \
	"^ *cat +[0-9]+ .*: ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-a\"$"
expect_match report-file-b "$out" "ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-b\"$"
expect_eq report-count-as-captured "$(captured $D/o.err)" "$(printf '%s\n' "$out" | grep -c .)"
ktrace report -i $D/rec.kt --json > $D/repj.out 2>&1
expect_eq report-json-exit 0 "$?"
expect_match report-json-file-a "$(cat $D/repj.out)" \
	"^\{.*\"event\": \"ktrace_[0-9]+:do_sys_openat2\", \"fields\": \{.*\"filename\": \"$D/file-a\""
expect_match report-json-file-b "$(cat $D/repj.out)" "\"filename\": \"$D/file-b\""
ktrace report -i $D/rec.kt --raw > $D/repr.out 2>&1
expect_eq report-raw-exit 0 "$?"
expect_match report-raw-sample "$(cat $D/repr.out)" \
	'^[0-9]+ [0-9]+\.[0-9]{9} \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE misc 0x[0-9a-f]+ size [0-9]+$'
expect_eq report-raw-samples-as-captured "$(captured $D/o.err)" \
	"$(grep -c ': PERF_RECORD_SAMPLE ' $D/repr.out)"

# --- Live --json: typed fields. -------------------------------------------
ktrace record --json -e "$OPEN" -- cat $D/file-a > $D/j.out 2> $D/j.err
expect_eq record-json-exit 0 "$?"
js=$(grep '^{' $D/j.out)
expect_match record-json-line "$js" \
	'^\{"time": [0-9]+, "cpu": [0-9]+, "pid": [0-9]+, "tid": [0-9]+, "comm": "cat", "event": "ktrace_[0-9]+:do_sys_openat2", "fields": \{.*\}\}$'
expect_match record-json-filename-string "$js" "\"filename\": \"$D/file-a\"[,}]"
expect_match record-json-probe-ip-number "$js" '"__probe_ip": [0-9]+[,}]'
ktrace record --json -e 'kretprobe:vfs_read $retval' -- \
	dd if=$D/file-b of=/dev/null bs=64 > $D/jr.out 2> $D/jr.err
expect_match record-json-retval-number "$(grep '^{' $D/jr.out)" \
	'"event": "ktrace_[0-9]+:vfs_read__return", "fields": \{.*"retval": 6[,}]'
expect_no_inline_groups record-json-removed

# --- A tracepoint and a kprobe in one run: both, in time order. ----------
ktrace record -e sched:sched_process_exec -e "$OPEN" -- \
	sh -c "cat $D/file-a; cat $D/file-b" > $D/m.out 2> $D/m.err
expect_eq record-mixed-exit 0 "$?"
event_lines $D/m.out > $D/m.ev
out=$(cat $D/m.ev)
expect_match record-mixed-tracepoint "$out" ': sched:sched_process_exec: filename=/bin/sh '
expect_match record-mixed-kprobe-a "$out" ": ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-a\"$"
expect_match record-mixed-kprobe-b "$out" ": ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-b\"$"
bad=$(time_order_bad $D/m.ev)
[ -z "$bad" ] && [ -s $D/m.ev ] && pass record-mixed-time-order ||
	{ fail record-mixed-time-order "timestamps go back $bad"; _show "$out"; }
# The exec comes before the opens of the file it runs.
first=$(grep -n 'sched_process_exec' $D/m.ev | head -n1 | cut -d: -f1)
opena=$(grep -n "filename=\"$D/file-a\"" $D/m.ev | head -n1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$opena" ] && [ "$first" -lt "$opena" ] &&
	pass record-mixed-exec-first ||
	{ fail record-mixed-exec-first "exec line $first, open line $opena"; _show "$out"; }
expect_no_inline_groups record-mixed-removed

# --- System-wide for one second while a loop opens a file. --------------
(while :; do cat $D/file-bg > /dev/null; sleep 0.1; done) &
loop=$!
bgpids="$bgpids $loop"
ktrace record -a -d 1 -e "$OPEN" > $D/a.out 2> $D/a.err
expect_eq record-all-exit 0 "$?"
kill -KILL $loop 2>/dev/null
wait $loop 2>/dev/null
expect_match record-all-loop-file "$(event_lines $D/a.out)" \
	"^ *cat +[0-9]+ .*: ktrace_[0-9]+:do_sys_openat2: .* filename=\"$D/file-bg\"$"
expect_no_inline_groups record-all-removed

# --- SIGINT mid-record: a clean stop, probes removed. --------------------
# sigint_ready PID: the signal handlers are in place (SigCgt has SIGINT)
# and its probe exists. ktrace catches the signals before it creates
# anything, so the events may still be opening: callers wait a moment more.
sigint_ready() {
	local m
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$1/status 2>/dev/null)
	[ -n "$m" ] && [ $((0x$m & 2)) = 2 ] &&
		grep -q "^p:ktrace_$1/do_sys_openat2 " $T/dynamic_events
}
ktrace record -a -e 'kprobe:do_sys_openat2' > $D/i.out 2> $D/i.err &
p=$!
bgpids="$bgpids $p"
if wait_for 20 sigint_ready $p; then
	sleep 1
	expect_match record-sigint-probe-made "$(cat $T/dynamic_events)" "^p:ktrace_$p/do_sys_openat2 "
	cat $D/file-a > /dev/null
	kill -INT $p
	wait $p
	expect_eq record-sigint-exit 0 "$?"
	expect_match record-sigint-summary "$(cat $D/i.err)" '^ktrace record: [0-9]+ records captured'
	expect_eq record-sigint-removed "" "$(grep "ktrace_$p/" $T/dynamic_events)"
	expect_no_inline_groups record-sigint-no-groups
else
	fail record-sigint-start "ktrace record -a never got ready"
	_show "$(cat $D/i.err)"
fi

# --- SIGKILL mid-record: the next ktrace removes the stale group. --------
ktrace record -a -e 'kprobe:do_sys_openat2' > $D/s.out 2> $D/s.err &
p=$!
bgpids="$bgpids $p"
if wait_for 20 sigint_ready $p; then
	sleep 1
	kill -KILL $p
	wait $p 2>/dev/null
	expect_match record-sigkill-left "$(cat $T/dynamic_events)" "^p:ktrace_$p/do_sys_openat2 "
	ktrace list > /dev/null 2>&1
	expect_match record-sigkill-list-touches-nothing "$(cat $T/dynamic_events)" "^p:ktrace_$p/do_sys_openat2 "
	ktrace record -e 'kprobe:vfs_read' -- true > /dev/null 2>&1
	expect_eq record-sigkill-stale-removed "" "$(grep "ktrace_$p/" $T/dynamic_events)"
	[ -e $T/events/ktrace_$p ] && fail record-sigkill-events-dir-gone "events/ktrace_$p still there" ||
		pass record-sigkill-events-dir-gone
else
	fail record-sigkill-start "ktrace record -a never got ready"
	_show "$(cat $D/s.err)"
fi
# --- -m beyond memory: refused before anything is made (the VM has 1 GiB:
# a 1 GiB ring would lock it all and bring the OOM killer). --------------
expect_exit record-ring-over-memory 1 ktrace record -m 1G -e 'kprobe:do_sys_openat2' -d 1
expect_contains record-ring-over-memory-says "$OUT" "more than half of the memory available"
expect_eq record-ring-over-memory-one-line 1 "$(printf '%s\n' "$OUT" | grep -c '^ktrace record:')"
expect_no_inline_groups record-ring-over-memory-no-probe

expect_no_inline_groups record-end-no-groups
