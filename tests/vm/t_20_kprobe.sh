#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace probe add|list|del with kprobes and kretprobes, from a user's seat:
# the design card's example, probes by name from BTF, raw fetchargs, traces
# that show the real file names and return values, --dry-run.  Naming,
# listing and deletion are in t_22_kprobe_list.sh, the error cases in
# t_21_kprobe_errors.sh.
. /tests/lib.sh

if ! have_ktrace; then
	fail kprobe-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt20
mkdir -p $D
on_exit "rm -rf $D"

# Remove, straight through tracefs, every dynamic event of the groups this
# script uses (whatever ktrace did or did not do).
kt20_cleanup() {
	local ev
	echo 0 > $T/tracing_on
	for ev in $(sed -n 's/^[^:]*:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|kt20*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
	echo > $T/trace
	echo 1 > $T/tracing_on
}
on_exit kt20_cleanup

# dyn: the dynamic events, as a checksum (byte-identical comparisons).
dyn() {
	cat $T/dynamic_events | md5sum | cut -d' ' -f1
}

# trace_of EVENT: the trace lines of one event ("ktrace:do_sys_open" ->
# lines with " do_sys_open: ").
trace_of() {
	grep -F " ${1#*:}: " $T/trace
}

# A few files with known names and contents.
printf 'kt20-host\n' > $D/hostname-a
printf 'hello\n' > $D/hostname-b
printf 'twelve bytes' > $D/hostname-c

# --- The design card's example, verbatim. ------------------------------
# do_sys_open(int dfd, const char __user *filename, int flags, umode_t mode)
if grep -qE ' [tT] do_sys_open$' /proc/kallsyms; then
	expect_ok kprobe-card-add ktrace probe add "do_sys_open filename=+0($A1):string"
	expect_contains kprobe-card-added "$OUT" "ktrace:do_sys_open"
	expect_match kprobe-card-defined "$(cat $T/kprobe_events)" \
		"^p:ktrace/do_sys_open do_sys_open filename=\\+0\\($A1\\):string\$"
	expect_file kprobe-card-event-dir $T/events/ktrace/do_sys_open
	expect_ok kprobe-card-del ktrace probe del 'ktrace:do_sys_open'
	expect_eq kprobe-card-gone "" "$(grep ktrace/do_sys_open $T/dynamic_events)"
else
	# Not a text symbol on this kernel: the expected result is a clear
	# error naming close matches, and nothing created.
	before=$(dyn)
	expect_exit kprobe-card-add 1 ktrace probe add "do_sys_open filename=+0($A1):string"
	expect_contains kprobe-card-no-function "$OUT" "no such kernel function 'do_sys_open'"
	expect_contains kprobe-card-did-you-mean "$OUT" "do_sys_openat2"
	expect_eq kprobe-card-nothing-created "$before" "$(dyn)"
fi

# --- By name from BTF: file names in the trace. --------------------------
expect_ok kprobe-open-add ktrace probe add 'do_sys_openat2 filename:ustring'
expect_contains kprobe-open-added "$OUT" "ktrace:do_sys_openat2"
expect_match kprobe-open-defined "$(cat $T/kprobe_events)" \
	"^p:ktrace/do_sys_openat2 do_sys_openat2 filename=\\+0\\($A1\\):ustring\$"
echo > $T/trace
expect_ok kprobe-open-enable ktrace enable ktrace:do_sys_openat2
expect_eq kprobe-open-enabled 1 "$(cat $T/events/ktrace/do_sys_openat2/enable)"
cat $D/hostname-a $D/hostname-b > /dev/null
cat $D/hostname-c > /dev/null
expect_ok kprobe-open-disable ktrace disable ktrace:do_sys_openat2
expect_eq kprobe-open-disabled 0 "$(cat $T/events/ktrace/do_sys_openat2/enable)"
tr=$(trace_of ktrace:do_sys_openat2)
expect_contains kprobe-open-trace-a "$tr" "filename=\"$D/hostname-a\""
expect_contains kprobe-open-trace-b "$tr" "filename=\"$D/hostname-b\""
expect_contains kprobe-open-trace-c "$tr" "filename=\"$D/hostname-c\""
expect_match kprobe-open-trace-comm "$tr" "^ *cat-[0-9]+ .*filename=\"$D/hostname-a\""
expect_ok kprobe-open-del ktrace probe del 'ktrace:*'
expect_contains kprobe-open-del-output "$OUT" "ktrace:do_sys_openat2"
expect_eq kprobe-open-gone "" "$(grep ktrace/ $T/dynamic_events)"
[ -e $T/events/ktrace ] && fail kprobe-open-group-gone "$T/events/ktrace is still there" ||
	pass kprobe-open-group-gone
echo > $T/trace

# dfd filename how->flags, all by name.
expect_ok kprobe-btf-dryrun ktrace probe add --dry-run 'do_sys_openat2 dfd filename how->flags'
expect_eq kprobe-btf-line \
	"p:ktrace/do_sys_openat2 do_sys_openat2 dfd=$A0:s32 filename=+0($A1):ustring how_flags=+0($A2):u64" \
	"$OUT"
expect_ok kprobe-btf-add ktrace probe add 'do_sys_openat2 dfd filename how->flags'
expect_ok kprobe-btf-enable ktrace enable ktrace:do_sys_openat2
cat $D/hostname-b > /dev/null
echo more >> $D/hostname-c
ktrace disable ktrace:do_sys_openat2 > /dev/null 2>&1
tr=$(trace_of ktrace:do_sys_openat2)
# cat opens with openat(AT_FDCWD, name, O_RDONLY) and the kernel adds
# O_LARGEFILE on 64-bit (0x8000 on x86-64, 0x20000 on arm64): how->flags.
expect_match kprobe-btf-trace-read "$tr" \
	"cat-[0-9]+ .* dfd=-100 filename=\"$D/hostname-b\" how_flags=$O_LARGEFILE\$"
# The shell's >> is O_WRONLY|O_CREAT|O_APPEND (|O_LARGEFILE).
line=$(printf '%s\n' "$tr" | grep -F "filename=\"$D/hostname-c\"" | head -n1)
flags=$(printf '%s\n' "$line" | sed -n 's/.* how_flags=\([0-9]*\)$/\1/p')
if [ -n "$flags" ] && [ $((flags & 3)) = 1 ] && [ $((flags & 0x440)) = $((0x440)) ]; then
	pass kprobe-btf-trace-write
else
	fail kprobe-btf-trace-write "want O_WRONLY|O_CREAT|O_APPEND in how_flags, got '$flags'"
	_show "$tr"
fi
expect_ok kprobe-btf-del ktrace probe del ktrace:do_sys_openat2

# [N] on BTF arguments: a user string's bytes (user memory) and an array.
expect_ok kprobe-btf-index-dryrun ktrace probe add --dry-run 'do_sys_openat2 c0=filename[0] c1=filename[1]'
expect_match kprobe-btf-index-line "$OUT" \
	"^p:ktrace/do_sys_openat2 do_sys_openat2 c0=\\+u0\\($A1\\):[su]8 c1=\\+u1\\($A1\\):[su]8\$"
expect_ok kprobe-btf-index-add ktrace probe add 'do_sys_openat2 c0=filename[0] c1=filename[1]'
expect_ok kprobe-btf-index-enable ktrace enable ktrace:do_sys_openat2
cat $D/hostname-b > /dev/null
ktrace disable ktrace:do_sys_openat2 > /dev/null 2>&1
tr=$(trace_of ktrace:do_sys_openat2)
# $D starts with "/t" (47, 116): the bytes of the path cat opened.
expect_match kprobe-btf-index-trace "$tr" "cat-[0-9]+ .* c0=47 c1=116$"
expect_ok kprobe-btf-index-del ktrace probe del ktrace:do_sys_openat2
echo > $T/trace

# --- kretprobe: $retval typed from BTF (ssize_t -> s64). ------------------
expect_ok kprobe-ret-add ktrace probe add 'vfs_read%return $retval'
expect_contains kprobe-ret-added "$OUT" "ktrace:vfs_read__return"
expect_match kprobe-ret-defined "$(cat $T/kprobe_events)" \
	'^r[0-9]*:ktrace/vfs_read__return vfs_read retval=\$retval:s64$'
expect_ok kprobe-ret-enable ktrace enable 'ktrace:vfs_read__return'
# (busybox cat copies with sendfile, not read: dd reads.)
dd if=$D/hostname-b of=/dev/null bs=64 2> /dev/null
ktrace disable 'ktrace:vfs_read__return' > /dev/null 2>&1
tr=$(trace_of ktrace:vfs_read__return)
# hostname-b is 6 bytes: dd's reads return 6, then 0.
expect_match kprobe-ret-trace-number "$tr" "dd-[0-9]+ .*vfs_read__return: \(.*<- vfs_read\) retval=6$"
expect_match kprobe-ret-trace-eof "$tr" "dd-[0-9]+ .*vfs_read__return: \(.*<- vfs_read\) retval=0$"
expect_ok kprobe-ret-del ktrace probe del 'ktrace:vfs_read__return'
echo > $T/trace

# --- Raw fetchargs. -------------------------------------------------------
spec="kt20raw=do_sys_openat2 $A0 \$stack1 +0($A1):ustring \$comm fd=$A0:s32"
expect_ok kprobe-raw-dryrun ktrace probe add --dry-run "$spec"
expect_eq kprobe-raw-line \
	"p:ktrace/kt20raw do_sys_openat2 arg1=$A0 arg2=\$stack1 arg3=+0($A1):ustring comm=\$comm fd=$A0:s32" \
	"$OUT"
expect_ok kprobe-raw-add ktrace probe add "$spec"
expect_ok kprobe-raw-enable ktrace enable ktrace:kt20raw
cat $D/hostname-a > /dev/null
ktrace disable ktrace:kt20raw > /dev/null 2>&1
tr=$(trace_of ktrace:kt20raw)
expect_match kprobe-raw-trace "$tr" \
	"cat-[0-9]+ .* arg1=0x[0-9a-f]+ arg2=0x[0-9a-f]+ arg3=\"$D/hostname-a\" comm=\"cat\" fd=-100$"
expect_ok kprobe-raw-del ktrace probe del ktrace:kt20raw
echo > $T/trace

# --- --dry-run writes nothing. ----------------------------------------------
expect_ok kprobe-dry-keep ktrace probe add 'kt20keep=vfs_read file'
before=$(dyn)
expect_ok kprobe-dry-run ktrace probe add --dry-run "kt20dry=do_sys_openat2 dfd fd=$A0:s32"
expect_eq kprobe-dry-exact-line "p:ktrace/kt20dry do_sys_openat2 dfd=$A0:s32 fd=$A0:s32" "$OUT"
expect_eq kprobe-dry-unchanged "$before" "$(dyn)"
[ -e $T/events/ktrace/kt20dry ] && fail kprobe-dry-no-event "$T/events/ktrace/kt20dry exists" ||
	pass kprobe-dry-no-event
expect_ok kprobe-dry-ret ktrace probe add -n 'vfs_read%return $retval'
expect_eq kprobe-dry-ret-line 'r:ktrace/vfs_read__return vfs_read retval=$retval:s64' "$OUT"
expect_eq kprobe-dry-ret-unchanged "$before" "$(dyn)"
expect_ok kprobe-dry-keep-del ktrace probe del ktrace:kt20keep

