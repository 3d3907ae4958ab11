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
