#!/bin/bash
# The README's run command: a short, real trace on this machine.
#   list -> record tracepoints of a command -> record a uprobe with
#   arguments resolved by name from DWARF -> stat.
# Everything ktrace creates (inline probes) is removed when record ends.
set -u
cd "$(dirname "$0")/.." || exit 1
K=./ktrace
T=build/tests/targets/probed

echo "\$ ktrace list 'sched:sched_process_*'"
$K list 'sched:sched_process_*' || exit 1
echo
echo "\$ ktrace record -e sched:sched_process_exec -e 'syscalls:sys_enter_openat' --filter 'mode == 0' -- sh -c 'uname -r; cat /etc/hostname'"
$K record -e sched:sched_process_exec -e 'syscalls:sys_enter_openat' \
	--filter 'mode == 0' -- sh -c 'uname -r; cat /etc/hostname' || exit 1
echo
if [ -x $T ]; then
	echo "\$ ktrace record -e 'uprobe:$T:parse_line line len' -e 'uretprobe:$T:hot \$retval' -- $T 3"
	$K record -e "uprobe:$T:parse_line line len" \
		-e "uretprobe:$T:hot \$retval" -- $T 3 || exit 1
	echo
fi
echo "\$ ktrace stat -e syscalls:sys_enter_getppid -e task-clock -e cycles -- sh -c 'cat /proc/loadavg'"
$K stat -e syscalls:sys_enter_getppid -e task-clock -e cycles -- sh -c 'cat /proc/loadavg'
