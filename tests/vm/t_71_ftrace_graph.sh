#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace ftrace --graph, function_graph: nesting (each child inside its
# parent and not longer than it), --depth, -g, --threshold, the graph in
# the instance where the kernel offers it there; the top instance taken
# only when unused, refused when another tracer holds it, put back after
# each run and, after SIGKILL, by the next start.
. /tests/lib.sh

KT_T=kt71
if ! have_ktrace; then
	fail ftrace-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/$KT_T
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller
on_exit _kill_bg
on_exit ktrace_leftovers_remove
on_exit "echo nop > $T/current_tracer; echo > $T/set_graph_function; echo > $T/set_ftrace_filter"

# the top instance's settings, to compare after each run
top_state() {
	echo "$(cat $T/current_tracer) $(grep -v '^#' $T/set_ftrace_filter | wc -l) $(grep -v '^#' $T/set_graph_function | wc -l) $(cat $T/max_graph_depth) $(cat $T/set_ftrace_pid) $(cat $T/tracing_on) $(cat $T/options/function-fork)"
}
TOP0=$(top_state)

clean() {
	expect_no_ktrace "$1-clean"
	expect_eq "$1-top" "$TOP0" "$(top_state)"
}

# nested OUT: every line inside its parent (depth one more than the
# innermost open call of its CPU) and no call longer than its caller
nested() {
	printf '%s\n' "$OUT" | awk -F'|' '
	/ us \||\| +[a-zA-Z_0-9.]+\(\) \{$/ {
		split($1, a, "[][]"); cpu = a[2]
		dur = 0; if (match($1, /[0-9]+\.[0-9]+ us/)) dur = substr($1, RSTART, RLENGTH - 3) + 0
		match($2, /^ */); d = (RLENGTH - 1) / 2
		body = substr($2, RLENGTH + 1)
		top = sp[cpu] + 0
		if (body ~ /^}/) {
			if (top == 0) next	# opened before the start
			if (d != st[cpu, top]) { bad++; print "close at " d ": " $0 }
			if (dur < mx[cpu, top]) { bad++; print "shorter than child: " $0 }
			sp[cpu]--
			if (dur > mx[cpu, top - 1]) mx[cpu, top - 1] = dur
			next
		}
		if (top > 0 && d != st[cpu, top] + 1) { bad++; print "depth " d ": " $0 }
		if (top > 0) inner++
		if (body ~ /\{$/) { sp[cpu] = top + 1; st[cpu, top + 1] = d; mx[cpu, top + 1] = 0 }
		else if (dur > mx[cpu, top]) mx[cpu, top] = dur
	}
	END { if (!inner) { bad++; print "no call inside another" }; exit bad > 0 }'
}

# getppid's function: the syscall wrapper where ftrace can trace it
# (Debian's x86-64 kernels cannot: __x64_sys_* are notrace there)
for F in $GETPPID __do_sys_getppid; do
	grep -qx "$F" $T/available_filter_functions && break
done
# and the name it is shown by (__do_sys_getppid is inlined into the
# wrapper: one address, two names)
N="($F|$GETPPID)"

$SC 1 0 loop > $D/busy.out 2>&1 &
bgpids="$bgpids $!"
BUSY=$!

# --- function_graph ------------------------------------------------------
# getppid and what it calls, the only functions patched (under TCG
# patching every function takes seconds)
FL="$F,*pid_nr_ns*"
expect_ok ftrace-graph ktrace ftrace -g $F -f "$FL" -- $SC 3
expect_eq ftrace-graph-roots 3 "$(printf '%s\n' "$OUT" | grep -cE "\| $N\(\) \{$")"
if bad=$(nested); then pass ftrace-graph-nested; else
	fail ftrace-graph-nested "$bad"; _show "$OUT" 40; fi
clean ftrace-graph

# -o: nothing shown, the file; report shows it as the live run does (the
# same layout, nesting and count of records), and as JSON
expect_ok ftrace-o ktrace ftrace -g $F -f "$FL" -o $D/g.kt -- $SC 3
expect_eq ftrace-o-quiet "" "$(printf '%s\n' "$OUT" | grep ' | ')"
NREC=$(printf '%s\n' "$OUT" | sed -n 's/^ktrace: \([0-9]*\) records.*wrote.*/\1/p')
expect_ok ftrace-o-report ktrace report -i $D/g.kt
expect_eq ftrace-o-report-roots 3 "$(printf '%s\n' "$OUT" | grep -cE "\| $N\(\) \{$")"
if bad=$(nested); then pass ftrace-o-report-nested; else
	fail ftrace-o-report-nested "$bad"; _show "$OUT" 40; fi
expect_contains ftrace-o-report-count "$OUT" "ktrace: $NREC records, "
run ktrace report --json -i $D/g.kt
expect_eq ftrace-o-report-json "0 function_graph 3" "$RC $(printf '%s\n' "$OUT" | sed -n 's/.*"tracer": "\([a-z_]*\)".*/\1/p') $(printf '%s\n' "$OUT" | grep -oE '"type": "entry", "function": "[^"]*"' | grep -cE "\"$N\"")"
expect_ok ftrace-o-perfetto ktrace report -i $D/g.kt --perfetto $D/g.json
expect_eq ftrace-o-perfetto-slices 3 "$(grep -oE '"ph": "X", "name": "[^"]*"' $D/g.json | grep -cE "\"$N\"")"
clean ftrace-o

expect_ok ftrace-depth ktrace ftrace -g $F -f "$FL" --depth 1 -- $SC 3
expect_eq ftrace-depth-leaves 3 "$(printf '%s\n' "$OUT" | grep -cE " us \| $N\(\);$")"
expect_eq ftrace-depth-only "" "$(printf '%s\n' "$OUT" | grep ' |  ')"
clean ftrace-depth

# --threshold: 1 s holds nothing back but nothing that fast; 1 ns all
expect_ok ftrace-thresh-high ktrace ftrace -g $F -f "$FL" --threshold 1s -- $SC 3
expect_eq ftrace-thresh-high-none "" "$(printf '%s\n' "$OUT" | grep ' | ')"
expect_ok ftrace-thresh-low ktrace ftrace -g $F -f "$FL" --threshold 1ns -- $SC 3
expect_eq ftrace-thresh-low-roots 3 "$(printf '%s\n' "$OUT" | grep -cE " us \| $N\(\);$")"
clean ftrace-thresh

# the graph of one function without -g: in the instance where it offers
# function_graph, at the top where not
expect_ok ftrace-graph-f ktrace ftrace --graph -f $F -- $SC 4
expect_eq ftrace-graph-f-leaves 4 "$(printf '%s\n' "$OUT" | grep -cE " us \| $N\(\);$")"
clean ftrace-graph-f

# the top held by another tracer: refused, named, left as it was
# (another tool's function tracer on one function: all of them under TCG
# would take the CPU)
echo $F > $T/set_ftrace_filter
echo function > $T/current_tracer
expect_exit ftrace-top-busy 1 ktrace ftrace -g $F -- $SC 1
expect_contains ftrace-top-busy-says "$OUT" "current_tracer is 'function'"
expect_eq ftrace-top-busy-kept function "$(cat $T/current_tracer)"
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
clean ftrace-top-busy

# --- SIGKILL: the next start puts back what the killed one set ----------
ktrace ftrace -g $F -f "$FL" -p $BUSY > /dev/null 2>&1 &
kpid=$!
if wait_for 60 grep -q function_graph $T/current_tracer; then
	sleep 0.3
	kill -9 $kpid
	wait $kpid 2>/dev/null
	expect_eq ftrace-kill-left function_graph "$(cat $T/current_tracer)"
	expect_ok ftrace-kill-next ktrace ftrace -f $F -- $SC 1
	clean ftrace-kill-top
else
	fail ftrace-kill-started "no function_graph at the top after 60 s"
	kill -9 $kpid
fi
