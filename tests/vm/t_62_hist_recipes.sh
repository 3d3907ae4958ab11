#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace hist's recipes: each one runs, --list-recipes shows them all, the
# command line's options replace the recipe's.
. /tests/lib.sh

if ! have_ktrace; then
	fail histrec-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt62
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller

on_exit ktrace_leftovers_remove

# --- recipes ------------------------------------------------------------
expect_ok histrec-list ktrace hist --list-recipes
for r in slab-by-caller syscalls-by-process syscalls-by-name read-sizes \
	write-sizes page-faults-by-process softirqs-by-vector block-io-sizes; do
	expect_contains "histrec-list-$r" "$OUT" "$r"
done
WL="sh -c 'cat /proc/self/status > /dev/null; ls / > /dev/null; dd if=/dev/zero of=/dev/null bs=100 count=3 2>/dev/null; $SC 20'"
for r in slab-by-caller syscalls-by-process syscalls-by-name read-sizes \
	write-sizes page-faults-by-process; do
	eval "run ktrace hist -r $r -- $WL"
	expect_eq "histrec-recipe-$r" 0 "$RC"
	expect_match "histrec-recipe-$r-hits" "$OUT" 'Totals: [1-9][0-9]* hits'
done
expect_ok histrec-recipe-syscalls-exact ktrace hist -r syscalls-by-name -- $SC 77
expect_eq histrec-recipe-syscalls-exact-n 77 "$(row_count sys_getppid)"
for r in softirqs-by-vector block-io-sizes; do
	expect_ok "histrec-recipe-$r" ktrace hist -r $r -d 1
	expect_contains "histrec-recipe-$r-totals" "$OUT" "Totals:"
done
# the command line's -k replaces the recipe's keys, its -e the event
expect_ok histrec-recipe-override ktrace hist -r syscalls-by-name -k common_pid.execname -- $SC 10
expect_match histrec-recipe-override-key "$OUT" '^common_pid +hitcount'
expect_match histrec-recipe-override-row "$OUT" '^syscaller \[[0-9]+\] +[0-9]+'
expect_ok histrec-recipe-override-event ktrace hist -r read-sizes -e syscalls:sys_exit_write --filter 'ret > 0' -- $SC 5
expect_contains histrec-recipe-override-event-name "$OUT" "syscalls:sys_exit_write"
expect_exit histrec-recipe-missing 2 ktrace hist -r no-such-recipe
expect_exit histrec-size-small 2 ktrace hist -e raw_syscalls:sys_enter --size 100
expect_no_ktrace histrec-recipes-clean
