#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace probe add refusing kprobes: unknown functions and parameters, a
# fetcharg the kernel refuses (its error_log text, a caret under the user's
# own text), a blacklisted function, bad names, a kernel without kprobe
# events; and whatever is refused leaves dynamic_events byte-identical.
. /tests/lib.sh

if ! have_ktrace; then
	fail kperr-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

kt21_cleanup() {
	local ev
	for ev in $(sed -n 's/^[^:]*:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|kt21*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
}
on_exit kt21_cleanup

dyn() {
	cat $T/dynamic_events | md5sum | cut -d' ' -f1
}

# caret_col OUTPUT: the column of the '^' on the line after the echoed
# spec (the spec and the caret line are both indented by two spaces).
caret_col() {
	printf '%s\n' "$1" | awk '/^ *\^$/ { print length($0) - 1 - 2; exit }'
}
# spec_line OUTPUT: the echoed spec (the line before the caret).
spec_line() {
	printf '%s\n' "$1" | awk '/^ *\^$/ { print prev; exit } { prev = $0 }' | sed 's/^  //'
}

# A probe that exists throughout, so that "unchanged" means unchanged.
expect_ok kperr-setup ktrace probe add 'kt21:keep=vfs_read count'
before=$(dyn)
keepdef=$(grep 'kt21/keep ' $T/dynamic_events)
expect_match kperr-setup-def "$keepdef" "^p:kt21/keep vfs_read count=$A2:u64\$"

# --- Entry arguments at a return probe: 6.12 reads them ($argN), 6.1
# cannot; there it is refused before anything is written. -----------------
spec='kt21:rf=vfs_read%return file->f_flags'
case $(uname -r) in
6.1.*)
	expect_exit kperr-retarg-old 1 ktrace probe add "$spec"
	expect_contains kperr-retarg-old-message "$OUT" "cannot read at a return probe"
	expect_eq kperr-retarg-old-unchanged "$before" "$(dyn)" ;;
*)
	expect_ok kperr-retarg-new ktrace probe add "$spec"
	expect_match kperr-retarg-new-def "$(grep 'kt21/rf ' $T/dynamic_events)" 'arg1'
	expect_ok kperr-retarg-new-del ktrace probe del 'kt21:rf'
	expect_eq kperr-retarg-new-unchanged "$before" "$(dyn)" ;;
esac

# --- Unknown function. ------------------------------------------------------
expect_exit kperr-nofunc 1 ktrace probe add 'do_sys_opn'
expect_contains kperr-nofunc-message "$OUT" "no such kernel function 'do_sys_opn'"
expect_contains kperr-nofunc-did-you-mean "$OUT" "did you mean"
expect_contains kperr-nofunc-match-open "$OUT" "do_sys_open"
expect_contains kperr-nofunc-match-openat2 "$OUT" "do_sys_openat2"
expect_eq kperr-nofunc-caret 0 "$(caret_col "$OUT")"
expect_eq kperr-nofunc-unchanged "$before" "$(dyn)"

# --- Unknown parameter: the parameters are listed. --------------------------
spec='do_sys_openat2 fname'
expect_exit kperr-noparam 1 ktrace probe add "$spec"
expect_contains kperr-noparam-message "$OUT" "no parameter 'fname'"
expect_contains kperr-noparam-lists "$OUT" "dfd, filename, how"
expect_eq kperr-noparam-spec "$spec" "$(spec_line "$OUT")"
expect_eq kperr-noparam-caret 15 "$(caret_col "$OUT")"
expect_eq kperr-noparam-unchanged "$before" "$(dyn)"

# Unknown field.
expect_exit kperr-nofield 1 ktrace probe add 'do_sys_openat2 how->flagz'
expect_contains kperr-nofield-lists "$OUT" "mode"
expect_eq kperr-nofield-unchanged "$before" "$(dyn)"

# $retval in an entry probe.
expect_exit kperr-retval-entry 1 ktrace probe add 'vfs_read $retval'
expect_eq kperr-retval-entry-unchanged "$before" "$(dyn)"

# --- A raw fetcharg the kernel refuses. ------------------------------------
: > $T/error_log 2>/dev/null
spec='kt21:bad=do_sys_openat2 dfd x=%zz'
expect_exit kperr-kernel 1 ktrace probe add "$spec"
expect_contains kperr-kernel-refused "$OUT" "kernel refused probe kt21:bad"
# The kernel's own words (error_log), e.g. "Invalid fetch argument" or
# "Bad register name".
klog=$(sed -n 's/^[^:]*: error: //p' $T/error_log 2>/dev/null | tail -n1)
if [ -n "$klog" ]; then
	expect_contains kperr-kernel-errorlog "$OUT" "$klog"
else
	fail kperr-kernel-errorlog "the kernel wrote nothing to $T/error_log"
	_show "$(cat $T/error_log)"
fi
expect_eq kperr-kernel-spec "$spec" "$(spec_line "$OUT")"
# The caret is under "%zz" (column 30) or at the start of "x=%zz" (28).
col=$(caret_col "$OUT")
case $col in
30) pass kperr-kernel-caret ;;
28) pass kperr-kernel-caret; echo "KTRACE-NOTE caret under 'x=' rather than '%zz'" ;;
*) fail kperr-kernel-caret "caret at column '$col', expected 30 (under %zz)"; _show "$OUT" ;;
esac
expect_eq kperr-kernel-unchanged "$before" "$(dyn)"
[ -e $T/events/kt21/bad ] && fail kperr-kernel-no-event "$T/events/kt21/bad exists" ||
	pass kperr-kernel-no-event

# A refused second spec takes the first one away with it (no half-created
# group).
expect_exit kperr-multi 1 ktrace probe add 'kt21new:a=do_sys_openat2 dfd' 'kt21new:b=do_sys_openat2 y=%zz'
expect_contains kperr-multi-refused "$OUT" "kt21new:b"
expect_eq kperr-multi-unchanged "$before" "$(dyn)"
[ -e $T/events/kt21new ] && fail kperr-multi-no-group "$T/events/kt21new exists" ||
	pass kperr-multi-no-group
# A resolution error in the second spec: nothing is written at all.
expect_exit kperr-multi-resolve 1 ktrace probe add 'kt21new:a=do_sys_openat2 dfd' 'kt21new:c=do_sys_opn'
expect_eq kperr-multi-resolve-unchanged "$before" "$(dyn)"

# Under --json, stdout is one JSON object: the error, with the kernel's
# text and the position.
expect_exit kperr-kernel-json 1 ktrace --json probe add "$spec"
json=$(ktrace --json probe add "$spec" 2> /dev/null)
expect_match kperr-kernel-json-object "$json" '^\{"error": ".*", "kernel": ".+", "input": ".*", "position": 30\}$'
expect_eq kperr-kernel-json-one-line 1 "$(printf '%s\n' "$json" | grep -c .)"
json=$(ktrace --json probe add 'do_sys_opn' 2> /dev/null)
expect_match kperr-nofunc-json-object "$json" '^\{"error": "no such kernel function .*", "input": "do_sys_opn", "position": 0\}$'

# --- A function on the kprobe blacklist. -----------------------------------
bl=/sys/kernel/debug/kprobes/blacklist
func=
if [ -r $bl ]; then
	# A C function (not an asm_ entry stub) that kallsyms has as text.
	for f in $(awk '{print $2}' $bl | grep -E '^[a-z][a-z0-9_]*$' | grep -v '^asm_' | head -n 40); do
		if grep -qE " [tT] $f\$" /proc/kallsyms; then
			func=$f
			break
		fi
	done
fi
if [ -n "$func" ]; then
	echo "KTRACE-NOTE blacklisted function used: $func"
	expect_exit kperr-blacklist 1 ktrace probe add "kt21:bl=$func"
	expect_contains kperr-blacklist-message "$OUT" "$func"
	expect_contains kperr-blacklist-says "$OUT" "blacklist"
	expect_eq kperr-blacklist-unchanged "$before" "$(dyn)"
else
	fail kperr-blacklist "no blacklisted C function found in $bl"
	_show "$(head -n 20 $bl 2>&1)"
fi

# --- An existing event. -------------------------------------------------------
expect_exit kperr-exists 1 ktrace probe add 'kt21:keep=vfs_read file'
expect_contains kperr-exists-message "$OUT" "kt21:keep already exists"
expect_eq kperr-exists-unchanged "$before" "$(dyn)"
# --force with a spec the kernel refuses: the old event stays as it was.
expect_exit kperr-force-bad 1 ktrace probe add --force 'kt21:keep=vfs_read z=%zz'
expect_contains kperr-force-bad-refused "$OUT" "Invalid register name"
expect_eq kperr-force-bad-keeps-old "$keepdef" "$(grep 'kt21/keep ' $T/dynamic_events)"
expect_eq kperr-force-bad-unchanged "$before" "$(dyn)"
expect_ok kperr-force ktrace probe add --force 'kt21:keep=vfs_read file'
expect_match kperr-force-replaced "$(cat $T/dynamic_events)" "^p:kt21/keep vfs_read file=$A0:"

# --- Bad names: usage errors (exit 2), nothing written. --------------------
before=$(dyn)
dirs=$(ls $T/events | md5sum)
expect_exit kperr-name-dotdot 2 ktrace probe add '../x=do_sys_open'
expect_contains kperr-name-dotdot-message "$OUT" "bad probe name"
expect_exit kperr-name-slash 2 ktrace probe add 'a/b=do_sys_open'
expect_exit kperr-name-group 2 ktrace probe add '../g:ev=do_sys_open'
expect_exit kperr-name-g 2 ktrace probe add -g ../g 'do_sys_open'
expect_exit kperr-name-arg 2 ktrace probe add "do_sys_openat2 ../a=$A0"
expect_exit kperr-name-empty 2 ktrace probe add ''
expect_exit kperr-del-bad-glob 2 ktrace probe del '../*'
expect_eq kperr-names-unchanged "$before" "$(dyn)"
expect_eq kperr-names-no-dir "$dirs" "$(ls $T/events | md5sum)"

# --- A kernel without kprobe events (CONFIG_KPROBE_EVENTS off), seen
# through a view of tracefs without kprobe_events (each other entry a
# symlink into $T): refused with exit 1 and one line naming the reason,
# then the spec and a caret; a mix with a uprobe refused whole; a dry run
# prints and says so; nothing written. -------------------------------------
V=/tmp/kt21-nokprobes
rm -rf $V
mkdir -p $V
for e in $T/*; do
	case ${e##*/} in
	kprobe_events|kprobe_profile) ;;
	*) ln -s "$e" "$V/${e##*/}" ;;
	esac
done
on_exit "rm -rf $V"
before=$(dyn)
why="this kernel has no kprobe events (no kprobe_events in $(realpath $V): CONFIG_KPROBE_EVENTS is off)"
expect_exit kperr-nokprobes 1 env KTRACE_TRACEFS=$V ktrace probe add 'kt21:nk=do_sys_openat2 dfd'
expect_eq kperr-nokprobes-message "$(printf 'ktrace probe: %s\n  kt21:nk=do_sys_openat2 dfd\n          ^' "$why")" "$OUT"
expect_exit kperr-nokprobes-ret 1 env KTRACE_TRACEFS=$V ktrace probe add 'vfs_read%return $retval'
expect_eq kperr-nokprobes-ret-reason "ktrace probe: $why" "$(printf '%s\n' "$OUT" | head -n1)"
expect_exit kperr-nokprobes-mixed 1 env KTRACE_TRACEFS=$V ktrace probe add \
	"kt21:nku=$TARGETS/probed:parse_line" 'kt21:nk=do_sys_openat2 dfd'
expect_eq kperr-nokprobes-mixed-reason "ktrace probe: $why" "$(printf '%s\n' "$OUT" | head -n1)"
expect_ok kperr-nokprobes-dry env KTRACE_TRACEFS=$V ktrace probe add -n 'vfs_read%return $retval'
expect_contains kperr-nokprobes-dry-line "$OUT" 'r:ktrace/vfs_read__return vfs_read retval=$retval:s64'
expect_contains kperr-nokprobes-dry-note "$OUT" "note: this kernel cannot take kprobes"
expect_eq kperr-nokprobes-unchanged "$before" "$(dyn)"
[ -e $T/events/kt21/nk ] || [ -e $T/events/kt21/nku ] &&
	fail kperr-nokprobes-no-event "an event of kt21:nk* exists" || pass kperr-nokprobes-no-event

expect_ok kperr-teardown ktrace probe del 'kt21:*'
expect_eq kperr-teardown-gone "" "$(grep kt21 $T/dynamic_events)"
