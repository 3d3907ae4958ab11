#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The VM is what the tier needs: tracefs, kprobe events, BTF, and a raw
# kprobe (written by hand into tracefs) that sees a file name.
. /tests/lib.sh

expect_match kernel-tracefs-mounted "$(cat /proc/mounts)" "^tracefs $T tracefs"
expect_file kernel-kprobe-events "$T/kprobe_events"
expect_file kernel-uprobe-events "$T/uprobe_events"
expect_file kernel-dynamic-events "$T/dynamic_events"
expect_file kernel-btf-vmlinux /sys/kernel/btf/vmlinux
expect_match kernel-kallsyms "$(grep -w do_sys_openat2 /proc/kallsyms)" " [tT] do_sys_openat2$"

# A kprobe on do_sys_openat2(dfd, filename, how): the user string in the
# second argument register ($A1: %si, %x1).
ev=ktvm00/open
on_exit "echo '-:$ev' >> $T/kprobe_events"
on_exit "echo 0 > $T/events/$ev/enable"
on_exit "echo > $T/trace"
if tfs_write kprobe_events "p:$ev do_sys_openat2 path=+0($A1):ustring" append; then
	pass kernel-kprobe-define
else
	fail kernel-kprobe-define "writing kprobe_events failed"
fi
expect_contains kernel-kprobe-listed "$(cat $T/kprobe_events)" "p:$ev do_sys_openat2"

marker=/tmp/ktvm00-marker-$$
echo hello > $marker
echo > $T/trace
if tfs_write events/$ev/enable 1; then
	cat $marker > /dev/null
	tfs_write events/$ev/enable 0
	out=$(grep ktvm00 $T/trace)
	expect_contains kernel-kprobe-sees-filename "$out" "path=\"$marker\""
	expect_contains kernel-kprobe-comm "$out" "cat-"
else
	fail kernel-kprobe-enable "enabling $ev failed"
fi
rm -f $marker

expect_ok kernel-kprobe-remove sh -c "echo 0 > $T/events/$ev/enable && echo '-:$ev' >> $T/kprobe_events"
expect_eq kernel-kprobe-gone "" "$(cat $T/kprobe_events)"
echo > $T/trace
