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
expect_match trace-openat "$OUT" "^pathcalls [0-9]+: openat\\(dfd: AT_FDCWD, filename: \"$D/kt26-file\", flags: O_RDONLY\\) = [0-9]+ <[0-9.]+ ms>\$"
expect_match trace-unlinkat "$OUT" "^pathcalls [0-9]+: unlinkat\\(dfd: AT_FDCWD, pathname: \"$D/kt26-gone\", flag: 0\\) = 0 <[0-9.]+ ms>\$"
expect_exit trace-error 1 ktrace trace -e unlinkat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone
expect_match trace-enoent "$OUT" "unlinkat\\(.*pathname: \"$D/kt26-gone\".*\\) = -1 ENOENT \\(No such file or directory\\)"
expect_ok trace-summary ktrace trace -s -e getppid -e 'exit*' -- $TARGETS/syscaller 250
expect_match trace-summary-count "$OUT" '^getppid +250 +0 '
printf 'z\n' > $D/kt26-gone2
expect_ok trace-json ktrace trace -j -e openat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone2
expect_contains trace-json-path "$OUT" "\"syscall\": \"openat\", \"args\": \"dfd: "
expect_contains trace-json-str "$OUT" "filename: \\\"$D/kt26-file\\\""

# against strace: the same calls of the same command, in the same order,
# with the same arguments (strace's first three: it leaves out openat's
# mode without O_CREAT) and results; the loader's calls included
norm() { # ktrace's or strace's lines -> "name(a1, a2, a3) = ret"
	sed -E 's/^[^ ]+ [0-9]+: //; s/^[0-9]+ +//; s/ <[0-9.]+ ms>$//; s/\) +=/) =/;
		s/\(([a-z_0-9]+): /(/; s/, ([a-z_0-9]+): /, /g' |
	awk '/^(openat|unlinkat)\(/ {
		i = index($0, "("); r = $0; sub(/.*\) = /, "", r)
		a = substr($0, i + 1); sub(/\) = .*/, "", a)
		n = split(a, v, ", "); o = v[1]
		for (k = 2; k <= n && k <= 3; k++) o = o ", " v[k]
		print substr($0, 1, i) o ") = " r }'
}
if command -v strace > /dev/null; then
	printf 'z\n' > $D/kt26-gone3
	strace -f -qq -e trace=openat,unlinkat -o $D/strace.txt $TARGETS/pathcalls $D/kt26-file $D/kt26-gone3
	printf 'z\n' > $D/kt26-gone3
	run ktrace trace -e openat -e unlinkat -- $TARGETS/pathcalls $D/kt26-file $D/kt26-gone3
	S=$(norm < $D/strace.txt)
	K=$(printf '%s\n' "$OUT" | norm)
	expect_eq trace-vs-strace "$S" "$K"
	expect_contains trace-vs-strace-some "$S" "unlinkat(AT_FDCWD, \"$D/kt26-gone3\", 0) = 0"
else
	fail trace-vs-strace "no strace in the initramfs (tests/vm/mkinitramfs.sh)"
fi
expect_no_ktrace trace-clean
