#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace trace: the system calls of a command as strace prints them, the
# paths through event probes, errors named, entries paired with exits;
# -s counts exact (syscaller makes N getppid calls); JSON; nothing left.
. /tests/lib.sh

if ! have_ktrace; then
	fail trace-ktrace "no ktrace binary in the initramfs"
	exit 1
fi
D=/tmp/kt26
mkdir -p $D
on_exit "rm -rf $D; ktrace_leftovers_remove"
printf 'x\n' > $D/kt26-file
printf 'y\n' > $D/kt26-gone

expect_ok trace-calls ktrace trace -e openat -e unlinkat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone
expect_match trace-openat "$OUT" "^pathcalls [0-9]+: openat\\(dfd: [0-9]+, filename: \"$D/kt26-file\", flags: 0, mode: [0-9]+\\) = [0-9]+ <[0-9.]+ ms>\$"
expect_match trace-unlinkat "$OUT" "^pathcalls [0-9]+: unlinkat\\(dfd: [0-9]+, pathname: \"$D/kt26-gone\", flag: 0\\) = 0 <[0-9.]+ ms>\$"
expect_exit trace-error 1 ktrace trace -e unlinkat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone
expect_match trace-enoent "$OUT" "unlinkat\\(.*pathname: \"$D/kt26-gone\".*\\) = -1 ENOENT \\(No such file or directory\\)"
expect_ok trace-summary ktrace trace -s -e getppid -e 'exit*' -- $TARGETS/syscaller 250
expect_match trace-summary-count "$OUT" '^getppid +250 +0 '
printf 'z\n' > $D/kt26-gone2
expect_ok trace-json ktrace trace -j -e openat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone2
expect_contains trace-json-path "$OUT" "\"syscall\": \"openat\", \"args\": \"dfd: "
expect_contains trace-json-str "$OUT" "filename: \\\"$D/kt26-file\\\""
expect_no_ktrace trace-clean
