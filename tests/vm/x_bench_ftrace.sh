#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Not a test: the in-VM half of bench/ftrace-vm.sh, which boots it with
#   KTRACE_VM_TESTS=x_bench_ftrace.sh and an initramfs holding trace-cmd,
#   bench_sys and bench_ru (KTRACE_VM_EXTRA_BINS).
# `bench_sys N` (N getppid(2) calls) traced by the function tracer on the
# functions of its system call path that this kernel can trace (the list
# below, the ones in available_filter_functions), by ktrace ftrace (live
# text) and by trace-cmd record -p function + trace-cmd report, in turn,
# round after round. Per run one line
#   KTRACE-BENCH ROUND TOOL RECORDS LOST WL_US TOOL_US BYTES
# RECORDS: the calls shown; LOST: what the tool says it lost; WL_US: the
# workload's own user+sys (its getrusage at exit); TOOL_US: user+sys of
# the tool's phases (bench_ru: the tool and its waited-for children)
# minus WL_US; BYTES: what the tool wrote (text; trace-cmd: its file and
# its report's text). Then function_graph the same way (ktrace-graph,
# trace-cmd-graph), RECORDS counting calls. Kernel command line: ktrace.bench_n=N,
# ktrace.bench_rounds=R (default 1e5, 1), ktrace.bench_tools=T,T... (the
# rows run, default all: ktrace, ktrace-o, trace-cmd, ktrace-graph,
# trace-cmd-graph), ktrace.bench_graph_n=N (function_graph's calls,
# default a quarter of N).
. /tests/lib.sh

N=100000
R=1
TOOLS=ktrace,ktrace-o,trace-cmd,ktrace-graph,trace-cmd-graph
NG=
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktrace.bench_n=*) N=${arg#*=} ;;
	ktrace.bench_rounds=*) R=${arg#*=} ;;
	ktrace.bench_tools=*) TOOLS=${arg#*=} ;;
	ktrace.bench_graph_n=*) NG=${arg#*=} ;;
	esac
done

# function_graph: a quarter of the calls (trace-cmd's report of 2 records
# a call takes the longest under TCG)
NG=${NG:-$((N / 4))}

D=/tmp/ktftbench
mkdir -p $D
on_exit "rm -rf $D"
on_exit "echo nop > $T/current_tracer; echo > $T/set_ftrace_filter; echo > $T/set_ftrace_pid"
W=/usr/bin/bench_sys
export BENCH_RUSAGE=$D/wl.ru
for p in ktrace bench_ru trace-cmd $W; do
	command -v $p > /dev/null || { fail bench-ftrace "no $p in the initramfs"; exit 1; }
done

# the path of getppid(2), x86-64 and arm64 names; those traceable here
F=
for f in __x64_sys_getppid __do_sys_getppid __arm64_sys_getppid \
	invoke_syscall el0_svc_common do_el0_svc el0_svc \
	do_syscall_64 x64_sys_call __task_pid_nr_ns task_active_pid_ns \
	__rcu_read_lock __rcu_read_unlock syscall_exit_to_user_mode \
	syscall_exit_to_user_mode_prepare exit_to_user_mode_prepare \
	syscall_enter_from_user_mode fpregs_assert_state_consistent \
	switch_fpu_return syscall_trace_enter; do
	grep -qx "$f" $T/available_filter_functions && F="$F $f"
done
echo "KTRACE-BENCH-FUNCS$F"

us() { # FILE: user+sys of a bench_ru or BENCH_RUSAGE line
	awk '{ print $2 + $3 }' "$1"
}

# ROUND TOOL RECORDS LOST TOOL_RU_FILES...
line() {
	local r=$1 tool=$2 rec=$3 lost=$4 bytes=$5 wl tot=0 f
	shift 5
	wl=$(us $D/wl.ru)
	for f in "$@"; do tot=$((tot + $(us $f))); done
	echo "KTRACE-BENCH $r $tool $rec $lost $wl $((tot - wl)) $bytes"
}

size() { wc -c < "$1"; }

kflags=$(for f in $F; do printf ' -f %s' $f; done)
tflags=$(for f in $F; do printf ' -l %s' $f; done)
said() { # ROUND TOOL ERRFILE: the tool's own last line, as it came
	echo "KTRACE-BENCH-SAID $1 $2 $(grep '^ktrace: ' "$3" | tail -n 1)"
}
ksaid() { # ERRFILE: "RECORDS LOST" of ktrace's summary line
	sed -n 's/^ktrace: \([0-9]*\) records, \([0-9]*\) lost.*/\1 \2/p' "$1"
}

run_ktrace() { # ROUND
	bench_ru $D/k.ru ktrace ftrace $kflags -- $W $N > $D/k.out 2> $D/k.err
	set -- $1 $(ksaid $D/k.err)
	line $1 ktrace "${2:--}" "${3:--}" $(size $D/k.out) $D/k.ru
	said $1 ktrace $D/k.err
	rm -f $D/k.out
}

# the file and its report, the shape of trace-cmd's record + report
run_ktrace_o() { # ROUND
	bench_ru $D/ko.ru ktrace ftrace $kflags -o $D/k.kt -- $W $N > /dev/null 2> $D/ko.err
	wl=$(cat $D/wl.ru)
	bench_ru $D/ko2.ru ktrace report -i $D/k.kt > $D/ko.out 2> /dev/null
	echo "$wl" > $D/wl.ru
	set -- $1 $(ksaid $D/ko.err)
	line $1 ktrace-o "${2:--}" "${3:--}" $(( $(size $D/k.kt) + $(size $D/ko.out) )) $D/ko.ru $D/ko2.ru
	said $1 ktrace-o $D/ko.err
	rm -f $D/k.kt $D/ko.out
}

run_trace_cmd() { # ROUND
	bench_ru $D/t.ru trace-cmd record -q -p function $tflags -o $D/t.dat -F $W $N > /dev/null 2>&1
	wl=$(cat $D/wl.ru)
	bench_ru $D/t2.ru trace-cmd report -i $D/t.dat > $D/t.txt 2> /dev/null
	echo "$wl" > $D/wl.ru
	rec=$(grep -c ' function: ' $D/t.txt)
	lost=$(grep -o 'LOST [0-9]* EVENTS' $D/t.txt | awk '{ n += $2 } END { print n + 0 }')
	line $1 trace-cmd $rec $lost $(( $(size $D/t.dat) + $(size $D/t.txt) )) $D/t.ru $D/t2.ru
	rm -f $D/t.dat $D/t.txt
}

# function_graph on the same functions, where this kernel has it: RECORDS
# are calls (the lines that open one, "func() {" or "func();": each
# call's entry), LOST what the tool says (records, as the kernel counts)
run_ktrace_graph() { # ROUND
	grep -qw function_graph $T/available_tracers || return 0
	bench_ru $D/g.ru ktrace ftrace --graph $kflags -- $W $NG > $D/g.out 2> $D/g.err
	set -- $1 $(ksaid $D/g.err)
	line $1 ktrace-graph $(grep -c '[{;]$' $D/g.out) "${3:--}" $(size $D/g.out) $D/g.ru
	said $1 ktrace-graph $D/g.err
	rm -f $D/g.out
}

run_trace_cmd_graph() { # ROUND
	grep -qw function_graph $T/available_tracers || return 0
	bench_ru $D/tg.ru trace-cmd record -q -p function_graph $tflags -o $D/tg.dat -F $W $NG > /dev/null 2>&1
	wl=$(cat $D/wl.ru)
	bench_ru $D/tg2.ru trace-cmd report -i $D/tg.dat > $D/tg.txt 2> /dev/null
	echo "$wl" > $D/wl.ru
	lost=$(grep -o 'LOST [0-9]* EVENTS' $D/tg.txt | awk '{ n += $2 } END { print n + 0 }')
	line $1 trace-cmd-graph $(grep -c 'funcgraph_entry' $D/tg.txt) $lost \
		$(( $(size $D/tg.dat) + $(size $D/tg.txt) )) $D/tg.ru $D/tg2.ru
	rm -f $D/tg.dat $D/tg.txt
}

for r in $(seq 1 $R); do
	bench_ru $D/none.ru $W $N
	line $r none 0 0 0 $D/none.ru
	for t in $(echo $TOOLS | tr , ' '); do
		case $t in
		ktrace) run_ktrace $r ;;
		ktrace-o) run_ktrace_o $r ;;
		trace-cmd) run_trace_cmd $r ;;
		ktrace-graph) run_ktrace_graph $r ;;
		trace-cmd-graph) run_trace_cmd_graph $r ;;
		*) fail bench-ftrace "unknown tool '$t'"; exit 1 ;;
		esac
	done
done
pass bench-ftrace
