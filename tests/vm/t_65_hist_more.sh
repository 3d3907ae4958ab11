#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace hist, more: -I intervals, a full table's drops on stderr, the
# kernel's error with the caret, JSON (parsed on the host), and nothing
# left in tracefs after each run.
. /tests/lib.sh

if ! have_ktrace; then
	fail histmore-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt65
mkdir -p $D
on_exit "rm -rf $D"
SC=$TARGETS/syscaller
case $(uname -m) in
aarch64) GETPPID=__arm64_sys_getppid ;;
*) GETPPID=__x64_sys_getppid ;;
esac

bgpids=
kt65_kill_bg() {
	for p in $bgpids; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
on_exit kt65_kill_bg

# Nothing of ktrace's left: no instance, no inline probe group.
expect_clean() {
	local left
	left=$(ls $T/instances 2>/dev/null | grep '^ktrace_')
	left="$left$(grep -E '^[^ ]*:ktrace_[0-9]' $T/dynamic_events)"
	if [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "left behind: $left"
	fi
}

# count ROWNAME: the count on the table row starting with ROWNAME
row_count() {
	printf '%s\n' "$OUT" | awk -v k="$1" '$1 == k { print $2; exit }'
}

# --- intervals, a full table -------------------------------------------
expect_ok hist-interval ktrace hist -e raw_syscalls:sys_enter -k common_pid -I 200 -d 1
n=$(printf '%s\n' "$OUT" | grep -c 'raw_syscalls:sys_enter$')
if [ "$n" -ge 3 ]; then pass hist-interval-several; else
	fail hist-interval-several "$n interval tables in 1 s at -I 200"; _show "$OUT"; fi

ktrace hist -e raw_syscalls:sys_enter -k common_timestamp.usecs --size 128 \
	-- $SC 1000 > $D/drop.out 2> $D/drop.err
expect_eq hist-dropped-exit 0 $?
expect_contains hist-dropped-said "$(cat $D/drop.err)" "were not counted: the table is full"
expect_match hist-dropped-totals "$(cat $D/drop.out)" 'Totals: [0-9]+ hits, 128 entries, [1-9][0-9]* dropped'
expect_clean hist-dropped-clean

# --- errors: the kernel's words, the caret under the user's text --------
expect_exit hist-badfield 1 ktrace hist -e kmem:kmalloc -k nosuchfield -d 1
expect_contains hist-badfield-kernel "$OUT" "kernel refused hist trigger"
expect_match hist-badfield-caret "$OUT" 'hist:keys=nosuchfield'
expect_match hist-badfield-caret-pos "$OUT" '^ *\^'
expect_clean hist-badfield-clean
expect_exit hist-badmod 1 ktrace hist -e kmem:kmalloc -k bytes_req.bogus -d 1
expect_clean hist-badmod-clean
expect_exit hist-noevent 1 ktrace hist -e nosuch:event -d 1
expect_exit hist-two-events 2 ktrace hist -e raw_syscalls:sys_enter -e kmem:kmalloc
expect_exit hist-noe 2 ktrace hist -k common_pid
expect_exit hist-two-hist-keys 2 ktrace hist -e kmem:kmalloc -k bytes_req.log2,bytes_alloc.log2
expect_clean hist-errors-clean

# --- JSON, parsed on the host -------------------------------------------
json=$(ktrace --json hist -e raw_syscalls:sys_enter -k id.syscall -- $SC 20)
echo "KTRACE-JSON hist-json-table $json"
expect_contains hist-json-typed "$json" '"name": "sys_getppid"'
json=$(ktrace --json hist -e syscalls:sys_exit_read -k ret.log2 --filter 'ret > 0' \
	-- dd if=/dev/zero of=/dev/null bs=100 count=3 2>/dev/null)
echo "KTRACE-JSON hist-json-log2 $json"
expect_contains hist-json-bucket "$json" '"low": 65, "high": 128'
json=$(ktrace --json hist -e kmem:kmalloc -k stack -d 1)
echo "KTRACE-JSON hist-json-stack $json"
json=$(ktrace --json hist -e kmem:kmalloc -k nosuchfield -d 1 2>&1)
echo "KTRACE-JSON hist-json-error $json"
expect_contains hist-json-error-kernel "$json" '"kernel":'
expect_clean hist-json-clean
