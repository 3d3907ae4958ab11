#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace runs in the VM: its shared libraries are there and it can read
# tracefs.
. /tests/lib.sh

if ! have_ktrace; then
	fail ktrace-present "no ktrace binary in the initramfs"
	exit 1
fi

expect_ok ktrace-version ktrace --version
expect_match ktrace-version-output "$OUT" "[0-9]+\.[0-9]+\.[0-9]+"

expect_ok ktrace-list-sched ktrace list 'sched:*'
expect_contains ktrace-list-sched-switch "$OUT" "sched:sched_switch"
expect_not_contains ktrace-list-sched-only "$OUT" "syscalls:"

# Every format of this kernel passes the grammar a recording's formats
# must pass before libtraceevent sees them (lib/record/fmtcheck.c).
expect_ok ktrace-formats-pass-the-check $TARGETS/fmtcheck_all $T
expect_contains ktrace-formats-none-refused "$OUT" ", 0 refused"
echo "KTRACE-NOTE $(printf '%s\n' "$OUT" | tail -n 1)"
