#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Call stacks and CPU sampling on this kernel and architecture: record -g
# unwinds a program built without frame pointers by DWARF CFI (libdw's
# backend for the machine), a sampling event names where the CPU was, and
# a recording read back gives the same frames.
. /tests/lib.sh

if ! have_ktrace; then
	fail stacks-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt45
mkdir -p $D
on_exit "rm -rf $D"

# The user frames of each record, one line each ("f1;f2;...").
frames() {
	awk '/^ *[^ \t].* \[[0-9]+\] [0-9]+\.[0-9]+: / { if (f) print f; f = ""; next }
		/^\t/ { sub(/\+0x.*/, "", $2); f = f (f ? ";" : "") $2 }
		END { if (f) print f }' "$1"
}

# chain: main -> alpha_fn -> beta_fn -> gamma_fn -> syscall(getppid), 3
# times; -O2 without frame pointers, as Debian builds.
ktrace record -g -e syscalls:sys_enter_getppid -- $TARGETS/chain 3 > $D/c.out 2> $D/c.err
expect_eq stacks-dwarf-exit 0 "$?"
n=$(frames $D/c.out | grep -c 'gamma_fn;beta_fn;alpha_fn;main')
expect_eq stacks-dwarf-chain 3 "$n"
[ "$n" = 3 ] || _show "$(frames $D/c.out; cat $D/c.err)"

# the same through a file
ktrace record -g -o $D/c.kt -e syscalls:sys_enter_getppid -- $TARGETS/chain 2 > /dev/null 2> $D/c.err
expect_ok stacks-file-report ktrace report -i $D/c.kt
printf '%s\n' "$OUT" > $D/r.out
expect_eq stacks-file-chain 2 "$(frames $D/r.out | grep -c 'gamma_fn;beta_fn;alpha_fn;main')"

# cpu-clock samples in busy are named: its spinning functions (under TCG
# the dynamic loader and the kernel take a share of the samples too; the
# stripped loader's are [unknown], never a neighbour's name)
ktrace record -e cpu-clock -F 99 -- $TARGETS/busy 500 > $D/s.out 2> $D/s.err
expect_eq stacks-sampling-exit 0 "$?"
inbusy=$(grep ' cpu-clock: ' $D/s.out | grep -c '(/targets/busy)$')
spin=$(grep ' cpu-clock: ' $D/s.out | grep -cE ' (inner|outer)_spin\+0x[0-9a-f]+ \(/targets/busy\)$')
if [ "$inbusy" -ge 10 ] && [ "$spin" -ge $((inbusy * 9 / 10)) ]; then
	pass stacks-sampling-symbols
else
	fail stacks-sampling-symbols "$spin of $inbusy samples in busy are in inner_spin/outer_spin"
	_show "$(grep ' cpu-clock: ' $D/s.out | head -n 8; cat $D/s.err)"
fi
