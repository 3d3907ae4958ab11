#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel modules: binfmt_misc.ko (this kernel's own, /kmod, put there by
# run.sh from the cache) loaded, then a kprobe on its load_misc_binary
# (called by every execve) as MOD:FUNC with bprm->filename from the
# module's split BTF, checked against the program executed; its return
# value (-ENOEXEC: no format registered); "did you mean" with module
# functions; a module frame named in a -g stack, also in a -o file read
# after the module is gone; probe list/del; nothing left behind (the
# module unloaded).
. /tests/lib.sh

if ! have_ktrace; then
	fail module-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt27
mkdir -p $D
kt27_cleanup() {
	local ev
	for ev in $(sed -n 's/^[pr][0-9]*:\([^ ]*\) binfmt_misc:.*/\1/p' $T/kprobe_events); do
		echo 0 > $T/events/$ev/enable
		echo "-:$ev" >> $T/kprobe_events
	done
	ktrace_leftovers_remove
	umount /proc/sys/fs/binfmt_misc
	rmmod binfmt_misc
	rm -rf $D
}
on_exit kt27_cleanup

if ! [ -f /kmod/binfmt_misc.ko ]; then
	fail module-file "no /kmod/binfmt_misc.ko (tests/vm/fetch-kernels.sh keeps it in the cache)"
	exit 1
fi
expect_ok module-insmod insmod /kmod/binfmt_misc.ko
if [ "$RC" != 0 ]; then
	_show "$(dmesg | tail -n 5)"
	exit 1
fi
mount -t binfmt_misc none /proc/sys/fs/binfmt_misc
echo "KTRACE-NOTE module: binfmt_misc loaded, BTF $(ls /sys/kernel/btf/binfmt_misc 2>/dev/null || echo none)"

# --- did you mean: the module's functions, as MOD:FUNC. -------------------
expect_exit module-typo 1 ktrace probe add 'binfmt_misc:load_misc_binry'
expect_contains module-typo-suggest "$OUT" "did you mean: binfmt_misc:load_misc_binary"
expect_exit module-typo-plain 1 ktrace probe add 'load_misc_binry'
expect_contains module-typo-plain-suggest "$OUT" "binfmt_misc:load_misc_binary"
expect_exit module-not-loaded 1 ktrace probe add 'kt27_nomod:func'
expect_contains module-not-loaded-why "$OUT" "nor is a kernel module 'kt27_nomod' loaded"
expect_exit module-name-typo 1 ktrace probe add 'binfmt_msc:load_misc_binary'
expect_contains module-name-typo-suggest "$OUT" "did you mean the module binfmt_misc?"
expect_exit module-nofield 1 ktrace probe add 'binfmt_misc:load_misc_binary bprm->nofield'
expect_contains module-nofield-why "$OUT" "has no field 'nofield'"
expect_eq module-refused-nothing "" "$(grep binfmt_misc $T/kprobe_events)"

# --- probe add: MOD:FUNC with a BTF argument; its return. ----------------
# a plain FUNC only the module has: its BTF too
expect_ok module-plain ktrace probe add --dry-run 'load_misc_binary bprm->filename'
expect_match module-plain-def "$OUT" \
	'^p:ktrace/load_misc_binary load_misc_binary bprm_filename=\+0\(\+[0-9]+\(%[a-z0-9]+\)\):string$'
expect_ok module-add ktrace probe add 'binfmt_misc:load_misc_binary bprm->filename'
expect_match module-add-def "$(cat $T/kprobe_events)" \
	'^p:ktrace/load_misc_binary binfmt_misc:load_misc_binary bprm_filename=\+0\(\+[0-9]+\(%[a-z0-9]+\)\):string$'
expect_ok module-add-ret ktrace probe add 'binfmt_misc:load_misc_binary%return $retval'
expect_match module-add-ret-def "$(cat $T/kprobe_events)" \
	'^r[0-9]*:ktrace/load_misc_binary__return binfmt_misc:load_misc_binary retval=\$retval:s32$'

# --- probe list: the kind and location. ----------------------------------
expect_ok module-list ktrace probe list
expect_match module-list-kprobe "$OUT" '^kprobe +ktrace:load_misc_binary +binfmt_misc:load_misc_binary +bprm_filename='
expect_match module-list-kretprobe "$OUT" '^kretprobe +ktrace:load_misc_binary__return +binfmt_misc:load_misc_binary +retval='

# --- record: the file name each execve passes, -ENOEXEC back; the module
# frame in the kernel stack (live and through -o). The command's own exec
# comes before its events are enabled: it execs /bin/true. ---------------
expect_ok module-record ktrace record -g -o $D/m.kt -e ktrace:load_misc_binary \
	-e ktrace:load_misc_binary__return -- $TARGETS/pathcalls $D/none $D/none /bin/true
expect_ok module-report ktrace report -i $D/m.kt
printf '%s\n' "$OUT" > $D/r1.out
expect_match module-filename "$OUT" "ktrace:load_misc_binary: .*bprm_filename=\"/bin/true\""
expect_match module-retval "$OUT" 'ktrace:load_misc_binary__return: .*retval=-8$'
expect_match module-stack-frame "$OUT" \
	'^[[:space:]]+[0-9a-f]+ load_misc_binary\+0x[0-9a-f]+ \(\[binfmt_misc\]\)$'
expect_match module-stack-caller "$OUT" \
	'^[[:space:]]+[0-9a-f]+ (search_binary_handler|bprm_execve|exec_binprm)[.a-z0-9]*\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$'

# inline: a kprobe on a module function for this run only
expect_ok module-inline ktrace record -e 'kprobe:binfmt_misc:load_misc_binary bprm->filename' \
	-- $TARGETS/pathcalls $D/none $D/none /bin/true
expect_match module-inline-filename "$OUT" ":load_misc_binary: .*bprm_filename=\"/bin/true\""
expect_no_ktrace module-inline-clean

# --- probe del; the module goes; the file still names its frame. ---------
expect_ok module-del ktrace probe del 'ktrace:load_misc_binary*'
expect_eq module-del-gone "" "$(grep binfmt_misc $T/kprobe_events)"
# a probe outlives its module: listed and deleted after rmmod
expect_ok module-add-again ktrace probe add 'kt27m:gone=binfmt_misc:load_misc_binary'
umount /proc/sys/fs/binfmt_misc
expect_ok module-rmmod rmmod binfmt_misc
expect_eq module-unloaded "" "$(grep '^binfmt_misc ' /proc/modules)"
expect_ok module-list-unloaded ktrace probe list 'kt27m:*'
expect_match module-list-unloaded-probe "$OUT" '^kprobe +kt27m:gone +binfmt_misc:load_misc_binary'
expect_ok module-del-unloaded ktrace probe del 'kt27m:*'
expect_eq module-del-unloaded-gone "" "$(grep binfmt_misc $T/kprobe_events)"
expect_ok module-report-unloaded ktrace report -i $D/m.kt
expect_match module-file-frame "$OUT" \
	'^[[:space:]]+[0-9a-f]+ load_misc_binary\+0x[0-9a-f]+ \(\[binfmt_misc\]\)$'
expect_eq module-file-same "$(cat $D/r1.out)" "$OUT"
