#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No function of libktrace may be dead in the product: every function
# compiled from lib/ must be reachable from the ktrace command or from one
# of the examples (the library's users). A function only the tests call is
# dead code that hides a gap.
#
# How: libktrace is compiled with -ffunction-sections; the command and the
# examples are linked again with the whole library, --gc-sections and
# --print-gc-sections; a lib/ function the linker drops from every one of
# those links is unused. Prints one line per such function; exit 1 if any.
#
# usage: check-unused.sh BUILD_DIR LIBS...   (LIBS: the link's -l flags)
B=$1
shift
[ -f "$B/libktrace.a" ] && [ -f "$B/cmd/main.o" ] ||
	{ echo "check-unused: build $B first" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# link NAME OBJS...: the lib/ functions this link drops, one per line.
link() {
	name=$1
	shift
	${CC:-cc} -o "$tmp/$name" "$@" -Wl,--whole-archive "$B/libktrace.a" \
		-Wl,--no-whole-archive -Wl,--gc-sections \
		-Wl,--print-gc-sections $LIBS 2>&1 |
		sed -n "s/.*removing unused section '\.text\.\([^']*\)' in file '[^']*libktrace\.a(\([^)]*\))'.*/\2 \1/p" |
		sort -u > "$tmp/$name.dropped"
	[ -x "$tmp/$name" ] || { echo "check-unused: link of $name failed" >&2; exit 2; }
}

LIBS="$*"
link ktrace "$B/cmd/main.o" "$B/libktrace-cmd.a"
cp "$tmp/ktrace.dropped" "$tmp/dead"
for src in examples/*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	${CC:-cc} $KT_CFLAGS -c -o "$tmp/$name.o" "$src" || exit 2
	link "$name" "$tmp/$name.o"
	comm -12 "$tmp/dead" "$tmp/$name.dropped" > "$tmp/dead.new"
	mv "$tmp/dead.new" "$tmp/dead"
done

if [ -s "$tmp/dead" ]; then
	while read -r obj fn; do
		echo "check-unused: $fn ($obj) is called by neither ktrace nor the examples: use it or remove it"
	done < "$tmp/dead"
	exit 1
fi
n=$(nm --defined-only "$B/libktrace.a" | grep -c ' [Tt] ')
echo "check-unused: all $n functions of libktrace are reachable from ktrace or the examples"
