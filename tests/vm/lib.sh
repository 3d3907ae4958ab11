# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the in-VM tests (busybox sh).  A test script does
#
#   . /tests/lib.sh
#   on_exit 'echo > $T/kprobe_events'     # cleanup, runs however we leave
#   expect_exit open-probe 0 ktrace ...   # output is then in $OUT
#   expect_contains open-probe-output "$OUT" "filename="
#
# and each check prints one line "KTRACE-TEST PASS name" or
# "KTRACE-TEST FAIL name: reason", which run.sh (on the host) counts.
# Test names should be unique across all scripts: prefix them (e.g. "kernel-").
# The script's exit status is 1 when any check failed.

T=/sys/kernel/tracing
TARGETS=/targets
# The kernel's argument registers as kprobe_events names them, per
# architecture: A0.. the first arguments, RIP the instruction pointer.
case $(uname -m) in
aarch64) A0=%x0 A1=%x1 A2=%x2 A3=%x3 A4=%x4 A5=%x5 RIP=%pc
	O_LARGEFILE=131072 GETPPID=__arm64_sys_getppid ;;
*) A0=%di A1=%si A2=%dx A3=%cx A4=%r8 A5=%r9 RIP=%ip
	O_LARGEFILE=32768 GETPPID=__x64_sys_getppid ;;
esac
# GETPPID: the kernel function of getppid(2), for kprobes
export A0 A1 A2 A3 A4 A5 RIP O_LARGEFILE GETPPID
PROBES=/usr/share/ktrace/probes
export T TARGETS PROBES

_failed=0
_cleanup=

pass() {
	echo "KTRACE-TEST PASS $1"
}

# fail NAME REASON...
fail() {
	local name=$1
	shift
	echo "KTRACE-TEST FAIL $name: $*"
	_failed=1
}

# Indent and cut long command output for a failure report.
_show() {
	printf '%s\n' "$1" | tail -n "${2:-15}" | sed 's/^/    | /'
}

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# expect_ne NAME UNEXPECTED ACTUAL
expect_ne() {
	if [ "$2" != "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$3'"
	fi
}

# expect_contains NAME HAYSTACK NEEDLE   (fixed string)
expect_contains() {
	case $2 in
	*"$3"*) pass "$1" ;;
	*) fail "$1" "does not contain '$3'"; _show "$2" ;;
	esac
}

# expect_not_contains NAME HAYSTACK NEEDLE
expect_not_contains() {
	case $2 in
	*"$3"*) fail "$1" "contains '$3'"; _show "$2" ;;
	*) pass "$1" ;;
	esac
}

# expect_match NAME HAYSTACK ERE   (grep -E on any line)
expect_match() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then
		pass "$1"
	else
		fail "$1" "no line matches /$3/"
		_show "$2"
	fi
}

# expect_file NAME PATH   (exists)
expect_file() {
	if [ -e "$2" ]; then pass "$1"; else fail "$1" "$2 does not exist"; fi
}

# run CMD...   runs CMD, stdout+stderr in $OUT, exit status in $RC.
run() {
	OUT=$("$@" 2>&1)
	RC=$?
	return 0
}

# expect_exit NAME CODE CMD...   runs CMD (see run), checks its exit status.
expect_exit() {
	local name=$1 code=$2
	shift 2
	run "$@"
	if [ "$RC" = "$code" ]; then
		pass "$name"
	else
		fail "$name" "'$*' exited $RC, expected $code"
		_show "$OUT"
	fi
}

# expect_ok NAME CMD...   same as expect_exit NAME 0 CMD...
expect_ok() {
	local name=$1
	shift
	expect_exit "$name" 0 "$@"
}

# tfs_write FILE TEXT [append]   write TEXT to $T/FILE; fails loudly.
tfs_write() {
	local err
	if [ "$3" = append ]; then
		err=$(echo "$2" 2>&1 >> "$T/$1")
	else
		err=$(echo "$2" 2>&1 > "$T/$1")
	fi
	if [ $? -ne 0 ]; then
		echo "tfs_write $1 '$2' failed: $err" >&2
		[ -r "$T/error_log" ] && tail -n 3 "$T/error_log" >&2
		return 1
	fi
}

# wait_for SECS CMD...   retry CMD every 0.1 s until it succeeds.
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

have_ktrace() {
	command -v ktrace >/dev/null 2>&1
}

# on_exit CMD   register a cleanup command; they run in reverse order when
# the script exits (normally, on error or on SIGTERM from the timeout).
on_exit() {
	_cleanup="$1
$_cleanup"
}

_run_cleanup() {
	local IFS='
'
	local c
	trap - EXIT
	for c in $_cleanup; do
		eval "$c" >/dev/null 2>&1
	done
	_cleanup=
}

_on_exit() {
	local rc=$?
	_run_cleanup
	[ $rc -ne 0 ] && exit $rc
	exit $_failed
}
trap _on_exit EXIT
trap 'exit 143' TERM INT

# --- what a ktrace run makes for itself (hist, latency, inline probes) ---

# expect_no_ktrace NAME: no instance, synthetic event or inline probe
# group of a ktrace run is left in tracefs.
expect_no_ktrace() {
	local left
	left=$(ls $T/instances 2>/dev/null | grep '^ktrace_')
	left="$left$(grep -E '^[^ ]*:(synthetic/)?ktrace_[0-9]' $T/dynamic_events)"
	if [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "left behind: $left"
	fi
}

# ktrace_leftovers_remove: take them away straight through tracefs,
# whatever ktrace did, so that a failed test does not fail the next ones
# (an instance whose triggers use each other's variables goes only
# after them: the last made first).
ktrace_leftovers_remove() {
	local i f t s ev
	for i in $(ls $T/instances | grep '^ktrace_'); do
		# twice: a trigger whose variable another one uses goes second
		for pass in 1 2; do
			for f in $(grep -ls '^hist' $T/instances/$i/events/*/*/trigger); do
				grep '^hist' "$f" | while IFS= read -r t; do
					echo "!${t% \[*\]}" >> "$f"
				done
			done
		done
		rmdir $T/instances/$i
	done
	for s in $(sed -n 's/^s:synthetic\/\(ktrace_[^ \t]*\).*/\1/p' $T/dynamic_events); do
		echo "!$s" >> $T/synthetic_events
	done
	for ev in $(sed -n 's/^[^:]*:\(ktrace_[0-9][^ ]*\) .*/\1/p' $T/dynamic_events); do
		echo "-:$ev" >> $T/dynamic_events
	done
}

# Processes a test started in the background ($bgpids), killed on exit.
bgpids=
_kill_bg() {
	local p
	for p in $bgpids; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

# row_count KEY: the count on the table row of $OUT whose first column is
# KEY (ktrace hist's tables)
row_count() {
	printf '%s\n' "$OUT" | awk -v k="$1" '$1 == k { print $2; exit }'
}

# bucket LABEL: the count on the histogram row of $OUT labelled LABEL
# ("(64, 128]")
bucket() {
	printf '%s\n' "$OUT" | grep -F "$1 " | awk '{ print $3; exit }'
}
