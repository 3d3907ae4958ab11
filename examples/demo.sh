#!/bin/bash
# The README's run command: a short, real trace on this machine.
# list -> enable in a private instance -> run a workload -> show -> reset.
set -u
cd "$(dirname "$0")/.." || exit 1
K=./ktrace
inst=ktrace_demo_$$
cleanup() { $K reset -B $inst >/dev/null 2>&1; }
trap cleanup EXIT INT TERM

echo "\$ ktrace list 'sched:sched_process_*'"
$K list 'sched:sched_process_*' || exit 1
echo
echo "\$ ktrace enable -B $inst sched:sched_process_exec sched:sched_process_exit"
$K enable -B $inst sched:sched_process_exec sched:sched_process_exit || exit 1
echo "\$ ktrace filter -B $inst sched:sched_process_exit 'prio < 200'"
$K filter -B $inst sched:sched_process_exit 'prio < 200' || exit 1
echo "\$ ktrace show -B $inst"
$K show -B $inst
for c in true uname date; do $c >/dev/null; done
echo
echo "# the instance's trace after running true, uname and date:"
grep -v '^#' /sys/kernel/tracing/instances/$inst/trace | grep -E 'true|uname|date' | head -20
echo
echo "\$ ktrace reset -B $inst"
$K reset -B $inst
trap - EXIT
