#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace probe add|list|del with kprobes and kretprobes: naming (-g,
# GROUP:EVENT=, --force), probe list (text and JSON) next to uprobes and
# uretprobes, probe del by glob.  See also t_20_kprobe.sh and
# t_21_kprobe_errors.sh.
. /tests/lib.sh

if ! have_ktrace; then
	fail kplist-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

# Remove, straight through tracefs, every dynamic event of the groups this
# script uses (whatever ktrace did or did not do).
kt22_cleanup() {
	local ev
	echo 0 > $T/tracing_on
	for ev in $(sed -n 's/^[^:]*:\([^ ]*\) .*/\1/p' $T/dynamic_events); do
		case $ev in
		ktrace/*|kt22*/*)
			echo 0 > $T/events/$ev/enable
			echo "-:$ev" >> $T/dynamic_events ;;
		esac
	done
	echo > $T/trace
	echo 1 > $T/tracing_on
}
on_exit kt22_cleanup

# dyn: the dynamic events, as a checksum (byte-identical comparisons).
dyn() {
	cat $T/dynamic_events | md5sum | cut -d' ' -f1
}

# --- Naming: -g GROUP, GROUP:EVENT=, --force. -------------------------------
expect_ok kprobe-name-g ktrace probe add -g kt22g 'do_sys_openat2 dfd'
expect_contains kprobe-name-g-output "$OUT" "kt22g:do_sys_openat2"
expect_file kprobe-name-g-event $T/events/kt22g/do_sys_openat2
expect_ok kprobe-name-ge ktrace probe add 'kt22n:opens=do_sys_openat2 filename'
expect_file kprobe-name-ge-event $T/events/kt22n/opens
expect_ok kprobe-name-ge-ret ktrace probe add -g kt22g 'kt22n:reads=vfs_read%return $retval'
expect_file kprobe-name-ge-overrides-g $T/events/kt22n/reads
expect_ok kprobe-name-e ktrace probe add -g kt22g 'myread=vfs_read count'
expect_file kprobe-name-e-event $T/events/kt22g/myread

# --force: an existing event is replaced, not duplicated.
before=$(dyn)
expect_exit kprobe-exists 1 ktrace probe add 'kt22n:opens=do_sys_openat2 dfd'
expect_contains kprobe-exists-message "$OUT" "already exists"
expect_contains kprobe-exists-force-hint "$OUT" "--force"
expect_eq kprobe-exists-unchanged "$before" "$(dyn)"
expect_ok kprobe-force ktrace probe add --force 'kt22n:opens=do_sys_openat2 dfd'
expect_eq kprobe-force-replaced "p:kt22n/opens do_sys_openat2 dfd=$A0:s32" \
	"$(grep 'kt22n/opens ' $T/dynamic_events)"

# --- probe list: kinds, group:event, location, args; uprobes apart. ------
expect_ok kprobe-uprobe-add ktrace probe add -x $TARGETS/probed 'kt22u:umain=main argc'
expect_ok kprobe-uretprobe-add ktrace probe add 'kt22u:uret=/targets/probed:parse_line%return $retval:s32'
# busybox is static and stripped: no symbol to put a uprobe on, and ktrace
# says why.
expect_exit kprobe-uprobe-busybox 1 ktrace probe add -x /bin/busybox 'kt22u:bb=main'
expect_contains kprobe-uprobe-busybox-why "$OUT" "no .symtab"

expect_ok kprobe-list ktrace probe list
list=$OUT
expect_match kprobe-list-kprobe "$list" "^kprobe +kt22g:do_sys_openat2 +do_sys_openat2 +dfd=$A0:s32\$"
expect_match kprobe-list-kprobe-ge "$list" "^kprobe +kt22n:opens +do_sys_openat2 +dfd=$A0:s32\$"
expect_match kprobe-list-kretprobe "$list" '^kretprobe +kt22n:reads +vfs_read +retval=\$retval:s64$'
expect_match kprobe-list-uprobe "$list" "^uprobe +kt22u:umain +$TARGETS/probed:0x[0-9a-f]+ +argc="
expect_match kprobe-list-uretprobe "$list" "^uretprobe +kt22u:uret +$TARGETS/probed:0x[0-9a-f]+ +retval="
expect_eq kprobe-list-count 6 "$(printf '%s\n' "$list" | grep -c ' kt22')"
expect_not_contains kprobe-list-no-tracepoints "$list" "sched:"

expect_ok kprobe-list-glob ktrace probe list 'kt22n:*'
expect_eq kprobe-list-glob-only "kt22n:opens kt22n:reads" \
	"$(printf '%s\n' "$OUT" | awk '{print $2}' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_exit kprobe-list-glob-none 1 ktrace probe list 'kt22zz:*'

expect_ok kprobe-list-json ktrace probe list --json
json=$OUT
expect_match kprobe-list-json-array "$(printf '%s\n' "$json" | head -n1)" '^\[$'
expect_match kprobe-list-json-end "$(printf '%s\n' "$json" | tail -n1)" '^\]$'
# json_field EVENT FIELD: the string value of FIELD in the object of
# group:event EVENT (one object per line).
json_field() {
	printf '%s\n' "$json" |
		grep -F "\"group\": \"${1%%:*}\", \"event\": \"${1#*:}\"" |
		sed -n "s/.*\"$2\": \"\([^\"]*\)\".*/\1/p"
}
expect_eq kprobe-json-kprobe-kind kprobe "$(json_field kt22g:do_sys_openat2 kind)"
expect_eq kprobe-json-kprobe-location do_sys_openat2 "$(json_field kt22g:do_sys_openat2 location)"
expect_eq kprobe-json-kprobe-args "dfd=$A0:s32" "$(json_field kt22g:do_sys_openat2 args)"
expect_eq kprobe-json-kretprobe-kind kretprobe "$(json_field kt22n:reads kind)"
expect_eq kprobe-json-kretprobe-location vfs_read "$(json_field kt22n:reads location)"
expect_eq kprobe-json-kretprobe-args 'retval=$retval:s64' "$(json_field kt22n:reads args)"
expect_eq kprobe-json-uprobe-kind uprobe "$(json_field kt22u:umain kind)"
expect_match kprobe-json-uprobe-location "$(json_field kt22u:umain location)" "^$TARGETS/probed:0x[0-9a-f]+$"
expect_eq kprobe-json-uretprobe-kind uretprobe "$(json_field kt22u:uret kind)"
expect_eq kprobe-json-objects 6 "$(printf '%s\n' "$json" | grep -c '"group": "kt22')"

# --- probe del GLOB removes only what matches. ----------------------------
expect_exit kprobe-del-none 1 ktrace probe del 'kt22zz:*'
expect_contains kprobe-del-none-message "$OUT" "no probe matches 'kt22zz:*'"
before=$(dyn)
expect_exit kprobe-del-one-bad 1 ktrace probe del 'kt22n:*' 'kt22zz:*'
expect_eq kprobe-del-all-or-nothing "$before" "$(dyn)"
expect_ok kprobe-del-glob ktrace probe del 'kt22g:my*'
expect_eq kprobe-del-glob-removed "" "$(grep 'kt22g/myread ' $T/dynamic_events)"
expect_match kprobe-del-glob-kept "$(cat $T/dynamic_events)" '^p:kt22g/do_sys_openat2 '
expect_ok kprobe-del-kinds ktrace probe del 'kt22u:*' 'kt22n:reads'
expect_eq kprobe-del-kinds-left "p:kt22g/do_sys_openat2 p:kt22n/opens" \
	"$(sed -n 's/^\([^ ]*\) .*/\1/p' $T/dynamic_events | grep kt22 | sort | tr '\n' ' ' | sed 's/ $//')"
# An enabled probe is in use: refused, and kept.
expect_ok kprobe-del-busy-enable ktrace enable kt22n:opens
expect_exit kprobe-del-busy 1 ktrace probe del kt22n:opens
expect_contains kprobe-del-busy-message "$OUT" "in use"
expect_file kprobe-del-busy-kept $T/events/kt22n/opens
ktrace disable kt22n:opens > /dev/null 2>&1
expect_ok kprobe-del-rest ktrace probe del 'kt22*'
expect_eq kprobe-del-rest-gone "" "$(grep kt22 $T/dynamic_events)"
echo > $T/trace
