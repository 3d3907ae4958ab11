#!/bin/bash
# A ktrace walkthrough on examples/target.c (run as root, after
# `make ktrace examples`):
#
#   1. list     find an event and its fields
#   2. probe    add a uprobe and a uretprobe on target's order(), arguments
#               by name from the program's debug info
#   3. record   record them, and a tracepoint, into a file
#   4. report   print the file, as text and as JSON
#
# The probes live in the kernel until removed: the trap removes them
# however the script ends (error, Ctrl-C). GROUP=name changes their group.
set -u
cd "$(dirname "$0")/.." || exit 1
K=./ktrace
T=build/examples/target
GROUP=${GROUP:-walkthrough}
DATA=$(mktemp /tmp/walkthrough.XXXXXX.ktrace) || exit 1

cleanup() {
	$K probe del "$GROUP:*" >/dev/null 2>&1
	rm -f "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM	# exit runs the EXIT trap

# Print a command (quoted so that it can be pasted), then run it.
step() {
	local a line="\$"

	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./:=,-]*) line="$line '$a'" ;;
		*) line="$line $a" ;;
		esac
	done
	echo
	echo "$line"
	"$@"
}

[ -x $K ] && [ -x $T ] || { echo "run 'make ktrace examples' first" >&2; exit 1; }

echo "== 1. list: the getppid() system call tracepoint and its fields"
step $K list -v syscalls:sys_enter_getppid || exit 1

echo
echo "== 2. probe: order(const char *item, int qty) in $T"
# 'order item qty': a uprobe at order's entry fetching both arguments,
# found by name in DWARF (item, a char *, is fetched as a string).
# 'order_done=order%return $retval': a uretprobe with the return value.
step $K probe add -x $T -g "$GROUP" 'order item qty' \
	'order_done=order%return $retval' || exit 1
step $K probe list "$GROUP:*" || exit 1

echo
echo "== 3. record: both probes and the tracepoint, while target runs"
# The events are switched on when target starts (exec) and the recording
# ends with it. -o writes a self-contained file instead of printing.
step $K record -o "$DATA" -e "$GROUP:*" -e syscalls:sys_enter_getppid \
	-- $T 2 || exit 1

echo
echo "== 4. report: the file as text, then as JSON (one object per record)"
step $K report -i "$DATA" || exit 1
echo
echo "\$ $K report -i $DATA --json | head -3"
$K report -i "$DATA" --json | head -3

echo
echo "== done: the trap removes the probes ($GROUP:*) and the file"
