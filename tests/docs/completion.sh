#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The bash completion (completion/ktrace.bash) driven as bash does it:
# COMP_WORDS/COMP_CWORD set, _ktrace called, COMPREPLY checked, with
# bash-completion's own helpers loaded (its conventions: _init_completion,
# colons in event names). Tracefs is read through a fake tree
# (tests/fixtures/tracefs) so that this runs without root.
# Usage: tests/docs/completion.sh KTRACE
set -u
cd "$(dirname "$0")/../.." || exit 1
KTRACE=$(realpath "${1:-./ktrace}")
BC=/usr/share/bash-completion/bash_completion
[ -r $BC ] || { echo "completion: bash-completion is not installed"; echo "completion: 0 passed, 1 failed"; exit 1; }
. $BC
. completion/ktrace.bash
export KTRACE_TRACEFS=$PWD/tests/fixtures/tracefs
pass=0 failed=0

# comp WORDS...: the candidates for the last word, one per line, sorted
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_ktrace
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

check() { # WHAT WANT(newline-separated) WORDS...
	local what=$1 want=$2 got
	shift 2
	got=$(comp "$@")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1)); echo "PASS completion: $what"
	else
		failed=$((failed + 1))
		echo "FAIL completion: $what: got '$(echo $got)', want '$(echo $want)'"
	fi
}

has() { # WHAT WORD WORDS...: WORD among the candidates
	local what=$1 word=$2
	shift 2
	if comp "$@" | grep -qxF -- "$word"; then
		pass=$((pass + 1)); echo "PASS completion: $what"
	else
		failed=$((failed + 1))
		echo "FAIL completion: $what: no '$word' in '$(comp "$@" | head -20 | tr '\n' ' ')'"
	fi
}

check "subcommands" "$(printf '%s\n' record report reset)" $KTRACE re
check "top-level options" "$(printf '%s\n' --tracefs)" $KTRACE --tr
check "record options from its --help" "--call-graph" $KTRACE record --ca
check "record --off-cpu" "--off-cpu" $KTRACE record --off
check "report's own options" "$(printf '%s\n' --percent-limit --perfetto)" $KTRACE report --per
check "top's --stdio" "--stdio" $KTRACE top --st
check "annotate's --stdio" "--stdio" $KTRACE annotate --st
has "files for annotate -i" "tests/docs/completion.sh" $KTRACE annotate -i tests/docs/comp
# events from tracefs: bash splits at ':', so the candidates are what
# follows the colon (bash-completion's __ltrim_colon_completions)
check "event names after the system" "$(printf '%s\n' sched_process_exec sched_switch sched_wakeup)" $KTRACE record -e sched:sched_
check "list's arguments are events" "$(printf '%s\n' sched_switch)" $KTRACE list sched:sched_sw
check "sampling events for record -e" "$(printf '%s\n' cpu-clock cpu-cycles cpu-migrations)" $KTRACE record -e cpu-
has "inline probes for stat -e" "uprobe:" $KTRACE stat -e upr
check "no sampling events for enable -e-less args" "" $KTRACE enable cpu-
check "probe subcommands" "$(printf '%s\n' add del help list sets)" $KTRACE probe ''
check "report --sort keys" "$(printf '%s\n' comm comm,dso,sym)" $KTRACE report --sort co
check "--call-graph modes" "$(printf '%s\n' dwarf dwarf,16384 dwarf,8192)" $KTRACE record --call-graph dw
check "top --sort keys" "$(printf '%s\n' total)" $KTRACE top -s to
has "probe sets for probe add -f" "file-opens" $KTRACE probe add -f file-
has "files for report -i" "tests/docs/completion.sh" $KTRACE report -i tests/docs/comp
has "files for report --pprof" "tests/docs/completion.sh" $KTRACE report --pprof tests/docs/comp
has "files for report --diff OLD" "tests/docs/completion.sh" $KTRACE report --diff tests/docs/comp
has "files for report --diff OLD NEW" "tests/docs/completion.sh" $KTRACE report --diff old.dat tests/docs/comp
check "no file after report --diff OLD NEW" "" $KTRACE report --diff old.dat new.dat tests/docs/comp
has "files for record -o" "tests/docs/man_options.py" $KTRACE record -o tests/docs/man
# symbols of the -x binary for probe add (its ELF symbols)
has "symbols of -x" "main" $KTRACE probe add -x "$KTRACE" mai
has "a command after --" "true" $KTRACE record -e sched:sched_switch -- tru
check "help's topics" "$(printf '%s\n' stat)" $KTRACE help sta
# hist: events and inline probes (no sampling events), the -e event's
# fields for -k/-v/-s, the kernel's modifiers after "FIELD.", comma lists
# export: a command; -r takes the hist recipes
check "export among the commands" "export" $KTRACE ex
check "recipes for export -r" "$(printf '%s\n' read-sizes)" $KTRACE export -r read-
check "hist among the commands" "$(printf '%s\n' help hist)" $KTRACE h
check "events for hist -e" "$(printf '%s\n' sched_switch)" $KTRACE hist -e sched:sched_sw
has "inline probes for hist -e" "kprobe:" $KTRACE hist -e kpr
check "no sampling events for hist -e" "" $KTRACE hist -e cpu-
check "hist -k: the event's fields" "$(printf '%s\n' next_comm next_pid next_prio)" \
	$KTRACE hist -e sched:sched_switch -k next_
check "hist -k: common fields and the stack" "$(printf '%s\n' stack)" \
	$KTRACE hist -e sched:sched_switch -k st
check "hist -k: modifiers" "$(printf '%s\n' next_pid.sym next_pid.sym-offset next_pid.syscall)" \
	$KTRACE hist -e sched:sched_switch -k next_pid.s
check "hist -k: the last item of a list" "$(printf '%s\n' prev_comm,next_pid.log2)" \
	$KTRACE hist -e sched:sched_switch -k prev_comm,next_pid.lo
check "hist -v: fields only" "$(printf '%s\n' prev_pid prev_prio)" \
	$KTRACE hist -e sched:sched_switch -v prev_p
check "hist -s: fields, hitcount, -desc" "$(printf '%s\n' hitcount hitcount-desc)" \
	$KTRACE hist -e sched:sched_switch -k prev_pid -s hit
has "a command after hist --" "true" $KTRACE hist -e sched:sched_switch -- tru
# latency: events and inline probes for --from/--to, for -k the keys of
# the pair and the end event's fields a synthetic event can carry (--to,
# or the question's end: sched_switch for --wakeup), -x's symbols for -f
check "latency among the commands" "$(printf '%s\n' latency list)" $KTRACE l
check "events for latency --from" "$(printf '%s\n' sched_switch)" $KTRACE latency --from sched:sched_sw
has "inline probes for latency --to" "kretprobe:" $KTRACE latency --from kprobe:vfs_read --to kret
check "latency -k: the --to event's fields" "$(printf '%s\n' next_comm next_pid next_prio)" \
	$KTRACE latency --from sched:sched_wakeup --to sched:sched_switch --match pid=next_pid -k next_
check "latency -k: the pair's keys, numbers and char arrays only" \
	"$(printf '%s\n' common_pid.execname cpu irq pid)" \
	$KTRACE latency --from irq:irq_handler_entry --to irq:irq_handler_entry -k ''
check "latency -k: comm with --wakeup, sched_switch's fields" "$(printf '%s\n' comm common_pid.execname)" \
	$KTRACE latency --wakeup -k co
check "latency -k: no comm without --wakeup" "$(printf '%s\n' common_pid.execname)" \
	$KTRACE latency --from sched:sched_wakeup --to sched:sched_switch -k co
check "latency -k: id.syscall with --syscall all" "$(printf '%s\n' id.syscall)" \
	$KTRACE latency --syscall all -k i
check "latency -k: the last item of a list" "$(printf '%s\n' cpu,prev_pid cpu,prev_prio)" \
	$KTRACE latency --wakeup -k cpu,prev_p
check "latency --syscall: the system calls and all" "$(printf '%s\n' all clock_nanosleep connect getppid openat)" \
	$KTRACE latency --syscall ''
has "files for latency -x" "tests/docs/completion.sh" $KTRACE latency -x tests/docs/comp
has "symbols of -x for latency -f" "main" $KTRACE latency -x "$KTRACE" -f mai
check "no kernel functions for latency -f" "" $KTRACE latency -f mai
has "a command after latency --" "true" $KTRACE latency --wakeup -- tru
# ftrace: the traceable functions for -f, -n, -g (available_filter_functions
# of a tree of its own: the fixtures' has none), a command after --
ffdir=$(mktemp -d)
printf 'vfs_read\nvfs_readv\nvfs_write\next4_file_read_iter [ext4]\n' > $ffdir/available_filter_functions
KTRACE_TRACEFS=$ffdir
check "ftrace among the commands" "$(printf '%s\n' filter ftrace)" $KTRACE f
check "functions for ftrace -f" "$(printf '%s\n' vfs_read vfs_readv)" $KTRACE ftrace -f vfs_rea
check "functions for ftrace -n: the last item of a list" "$(printf '%s\n' vfs_read,vfs_write)" \
	$KTRACE ftrace -n vfs_read,vfs_w
check "module functions for ftrace -g" "$(printf '%s\n' ext4_file_read_iter)" $KTRACE ftrace -g ext4_f
has "a command after ftrace --" "true" $KTRACE ftrace -f vfs_read -- tru
check "kernel functions for probe add" "$(printf '%s\n' vfs_read vfs_readv)" $KTRACE probe add vfs_rea
check "a module's function for probe add" "$(printf '%s\n' ext4_file_read_iter)" $KTRACE probe add ext4_f
check "a module's function as MOD:FUNC" "$(printf '%s\n' ext4_file_read_iter)" $KTRACE probe add ext4:ext4_f
KTRACE_TRACEFS=$PWD/tests/fixtures/tracefs
rm -r $ffdir
# what needs the hist command itself: its options, its recipes
if "$KTRACE" hist --help >/dev/null 2>&1; then
	check "hist options from its --help" "$(printf '%s\n' --list-recipes)" $KTRACE hist --list
	has "recipes for hist -r" "syscalls-by-name" $KTRACE hist -r syscalls-by
else
	echo "SKIP completion: hist's options and recipes: $KTRACE has no hist command"
fi
if "$KTRACE" latency --help >/dev/null 2>&1; then
	check "latency options from its --help" "$(printf '%s\n' --wakeup)" $KTRACE latency --wa
	check "latency's long-only options" "$(printf '%s\n' --from --from-filter)" $KTRACE latency --fr
else
	echo "SKIP completion: latency's options: $KTRACE has no latency command"
fi
echo "completion: $pass passed, $failed failed"
[ $failed = 0 ]
