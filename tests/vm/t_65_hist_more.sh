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

on_exit _kill_bg

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
expect_no_ktrace hist-dropped-clean

# --- errors: the kernel's words, the caret under the user's text --------
expect_exit hist-badfield 1 ktrace hist -e kmem:kmalloc -k nosuchfield -d 1
expect_contains hist-badfield-kernel "$OUT" "kernel refused hist trigger"
expect_match hist-badfield-caret "$OUT" 'hist:keys=nosuchfield'
expect_match hist-badfield-caret-pos "$OUT" '^ *\^'
expect_no_ktrace hist-badfield-clean
expect_exit hist-badmod 1 ktrace hist -e kmem:kmalloc -k bytes_req.bogus -d 1
expect_no_ktrace hist-badmod-clean
expect_exit hist-noevent 1 ktrace hist -e nosuch:event -d 1
expect_exit hist-two-events 2 ktrace hist -e raw_syscalls:sys_enter -e kmem:kmalloc
expect_exit hist-noe 2 ktrace hist -k common_pid
expect_exit hist-two-hist-keys 2 ktrace hist -e kmem:kmalloc -k bytes_req.log2,bytes_alloc.log2
expect_no_ktrace hist-errors-clean

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
expect_no_ktrace hist-json-clean

# --- .sym-offset and .hex keys ------------------------------------------
expect_ok histmore-symoff ktrace hist -e kmem:kmalloc -k call_site.sym-offset -d 1
expect_match histmore-symoff-row "$OUT" '^[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+ +[0-9]+'
expect_ok histmore-hex ktrace hist -e kmem:kmalloc -k ptr.hex -d 1
expect_match histmore-hex-row "$OUT" '^0x[0-9a-f]+ +[0-9]+'
expect_no_ktrace histmore-keys-clean
