#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ktrace annotate on this architecture (capstone's x86-64 or arm64 through
# lib/arch's table): a recording of hotloop, whose time is in one loop of
# hot_loop() written on one source line (`hotloop line` prints it), marks
# that line and an instruction inside the loop (between a backward
# branch's target and the branch) as hottest. The source is not in the
# initramfs: the lines are file:line.
. /tests/lib.sh

if ! have_ktrace; then
	fail annotate-ktrace "no ktrace binary in the initramfs"
	exit 1
fi

D=/tmp/kt81
mkdir -p $D
on_exit "rm -rf $D"
want=$($TARGETS/hotloop line)

ktrace record -F 499 -o $D/h.kt -- $TARGETS/hotloop 250 > /dev/null 2> $D/r.err
expect_eq annotate-record-exit 0 "$?"
expect_ok annotate-run ktrace annotate -i $D/h.kt hot_loop
printf '%s\n' "$OUT" > $D/a.out

# the hottest line: hotloop.c:LINE, no text (no source file here)
hot=$(grep -c "^ *: *hotloop.c:$want    <-- hottest line\$" $D/a.out)
rows=$(grep -c "^ *: *hotloop.c:$want" $D/a.out)
if [ "$hot" -ge 1 ] && [ "$hot" = "$rows" ]; then
	pass annotate-hot-line
else
	fail annotate-hot-line "hotloop.c:$want is not the hottest line"
	_show "$(head -n 40 $D/a.out; cat $D/r.err)"
fi
expect_contains annotate-no-source "$OUT" "hotloop.c (not on disk"

# the hottest instruction: inside a loop, [branch target, branch]
# (x86: "jae 0x11bb"; arm64: "b.ne #0x7a8", "cbnz x1, #0x7a8")
hotaddr=$(sed -n 's/^ *[0-9.]* :  *\([0-9a-f]*\):  .*    <-- hottest$/\1/p' $D/a.out)
inside=no
sed -En 's/^ *[0-9.]+ :  *([0-9a-f]+):  (j[a-z]+|b|b\.[a-z]+|cbn?z|tbn?z) .*0x([0-9a-f]+)( .*)?$/\1 \3/p' \
	$D/a.out > $D/br
while read -r at to; do
	[ -n "$hotaddr" ] || break
	if [ $((0x$to)) -le $((0x$at)) ] && [ $((0x$to)) -le $((0x$hotaddr)) ] &&
	   [ $((0x$hotaddr)) -le $((0x$at)) ]; then
		inside=yes
	fi
done < $D/br
if [ -n "$hotaddr" ] && [ $inside = yes ]; then
	pass annotate-hot-insn
else
	fail annotate-hot-insn "hottest instruction '$hotaddr' is in no loop"
	_show "$(head -n 40 $D/a.out; cat $D/br)"
fi

# the hottest instruction is on the hot line: the last source row above it
line=$(awk -v a="$hotaddr" '/^ *: / { row = $2 }
	$3 == a ":" { print row; exit }' $D/a.out)
expect_eq annotate-hot-insn-line "hotloop.c:$want" "$line"

# bad input: one line, exit 1; no SYM: exit 2
expect_exit annotate-unknown 1 ktrace annotate -i $D/h.kt no_such_function
expect_eq annotate-unknown-one-line 1 "$(printf '%s\n' "$OUT" | wc -l)"
expect_exit annotate-no-sym 2 ktrace annotate -i $D/h.kt
