#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Not a test: prints the kernel's own `hist` text for every kind of key,
# value and total, for tests/fixtures/hist/ (the unit tests of the hist
# parser read the real text of each kernel). Run it with
#   KTRACE_VM_TESTS=x_hist_fixtures.sh KTRACE_VM_KERNELS="6.1 6.12" tests/vm/run.sh
# and cut build/vm/KERNEL.log with tests/fixtures/hist/cut.sh.
. /tests/lib.sh

I=$T/instances/kthistfix
mkdir $I || { fail hist-fixtures "no instance"; exit 1; }
on_exit "rmdir $I"

# cap NAME SYS/EV TRIGGER: start it, run a workload, print the hist file
# between markers, remove the trigger.
cap() {
	local name=$1 ev=$2 trig=$3 f=$I/events/$2
	if ! echo "$trig" >> $f/trigger 2>/dev/null; then
		echo "KTRACE-HIST-REFUSED $name: $(tail -n 3 $I/error_log | tr '\n' '|')"
		return
	fi
	i=0
	while [ $i -lt 20 ]; do
		cat /proc/self/status > /dev/null
		dd if=/dev/zero of=/dev/null bs=100 count=3 2>/dev/null
		dd if=/dev/zero of=/dev/null bs=5000 count=2 2>/dev/null
		dd if=/dev/zero of=/dev/null bs=1 count=4 2>/dev/null
		ls / > /dev/null
		sleep 0.01
		i=$((i + 1))
	done
	echo "KTRACE-HIST-BEGIN $name $ev $trig"
	cat $f/hist
	echo "KTRACE-HIST-END $name"
	echo "!$trig" >> $f/trigger
}

cap plain sched/sched_switch 'hist:keys=next_pid'
cap string sched/sched_switch 'hist:keys=prev_comm:vals=hitcount:sort=hitcount.descending'
cap sym kmem/kmalloc 'hist:keys=call_site.sym:vals=bytes_req,bytes_alloc:sort=bytes_alloc.descending'
cap symoff kmem/kmalloc 'hist:keys=call_site.sym-offset:vals=bytes_req'
cap hex kmem/kmalloc 'hist:keys=ptr.hex:size=256'
cap execname raw_syscalls/sys_enter 'hist:keys=common_pid.execname'
cap syscall raw_syscalls/sys_enter 'hist:keys=id.syscall:sort=hitcount.descending'
cap log2 syscalls/sys_exit_read 'hist:keys=ret.log2'
cap log2r syscalls/sys_enter_read 'hist:keys=count.log2:vals=count'
cap buckets kmem/kmalloc 'hist:keys=bytes_req.buckets=100'
cap multi raw_syscalls/sys_enter 'hist:keys=common_pid.execname,id.syscall:vals=hitcount:sort=common_pid,hitcount.descending'
cap multival kmem/kmalloc 'hist:keys=common_pid:vals=bytes_req,bytes_alloc'
cap total raw_syscalls/sys_enter 'hist:keys=common_type'
cap cpu raw_syscalls/sys_enter 'hist:keys=common_cpu'
cap cpu2 raw_syscalls/sys_enter 'hist:keys=cpu'
cap usecs sched/sched_switch 'hist:keys=common_timestamp.usecs:size=256'
cap drops kmem/kmalloc 'hist:keys=ptr:size=128'
cap filter raw_syscalls/sys_enter 'hist:keys=id.syscall if id == 0'
cap stack kmem/kmalloc 'hist:keys=stacktrace:vals=bytes_req'
cap cstack kmem/kmalloc 'hist:keys=common_stacktrace:vals=bytes_req'
cap percent kmem/kmalloc 'hist:keys=bytes_req.log2:vals=hitcount.percent,bytes_alloc.graph'
cap empty sched/sched_process_exec 'hist:keys=pid'
cap badfield kmem/kmalloc 'hist:keys=nosuchfield'
cap badmod kmem/kmalloc 'hist:keys=bytes_req.bogus'
cap toomany kmem/kmalloc 'hist:keys=bytes_req,bytes_alloc,ptr,call_site,gfp_flags,node'
pass hist-fixtures
