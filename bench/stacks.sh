#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/stacks.sh: call stacks, ktrace against perf, same machine, same run.
# Needs root, linux-perf and libc6-dbg (scripts/deps.sh bench).
#
# Workload: tests/targets/chain N, built as Debian builds (-O2, no frame
# pointers): main -> alpha_fn -> beta_fn -> gamma_fn -> syscall(getppid),
# N times; event syscalls:sys_enter_getppid, every record with its stack.
#
# Tracers:
#   ktrace fp     ktrace record --call-graph fp -o F ; ktrace report -i F
#   ktrace dwarf  ktrace record -g -o F ; ktrace report -i F (-g = dwarf:
#                 unwound while recording, the file keeps frames)
#   perf fp       perf record --call-graph fp ; perf script
#   perf dwarf    perf record --call-graph dwarf ; perf script (8 KiB of
#                 stack per sample, unwound by perf script)
# Measured per tracer: CPU per record (record + decode: user+sys of the
# tracer and its waited-for children, minus the workload's own), bytes per
# record in the file, peak RSS, and frame agreement with perf dwarf: the
# share of records whose user frames (names, innermost first, down to and
# including main) equal perf dwarf's most common sequence for this workload
# (all its records have the same call path), and the share of records
# whose complete user stacks equal it (perf names the libc frame under
# __libc_start_call_main from inline DWARF info, "__libc_start_main_impl
# (inlined)", ktrace by its symbol, __libc_start_main).
# N: BENCH_STACK_N (default 20000).
set -u
cd "$(dirname "$0")/.."
N=${BENCH_STACK_N:-20000}
K=$PWD/ktrace
CHAIN=$PWD/build/tests/targets/chain
W=$(mktemp -d /dev/shm/ktrace-stacks.XXXXXX)
trap 'rm -rf "$W"' EXIT
for t in perf gcc; do
	command -v $t >/dev/null || { echo "bench/stacks.sh: $t not installed"; exit 1; }
done
[ -x "$K" ] && [ -x "$CHAIN" ] || { echo "bench/stacks.sh: run make ktrace targets first"; exit 1; }
gcc -O1 -g -Wall -o $W/bench_ru bench/bench_ru.c || exit 1
RU=$W/bench_ru

# ru FILE -> "cpu_us maxrss_kb"
ru() { awk '{ print $2 + $3, $4 }' "$1"; }
# frames TEXT -> one line per record: its user frames' names joined by ';'
# (kernel frames, addresses >= 0xffff800000000000, left out)
frames() {
	awk '/^ *[^ \t].* \[?[0-9]+\]? +[0-9]+\.[0-9]+: / { if (n) print f; f = ""; n = 1; next }
	     /^\t/ { if (length($1) >= 16 && $1 >= "ffff800000000000") next
		     name = $2; sub(/\+0x[0-9a-f]+$/, "", name)
		     f = f (f == "" ? "" : ";") name }
	     END { if (n) print f }' "$1"
}
upto_main() { sed -E 's/^((.*;)?main);.*$/\1/'; }
# Aliases as one: the names of one address in one binary (libc's
# __libc_start_main and __libc_start_main_impl; perf shows a frame by its
# DWARF name, ktrace by its ELF symbol) mapped to the first of them.
# alias_table -> "NAME CANONICAL" lines, from the workload and libc (with
# libc's separate debug file).
alias_table() {
	local libc bid files
	libc=$(ldd $CHAIN | awk '/libc.so/ { print $3 }')
	bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
	files="$CHAIN $libc"
	[ -n "$bid" ] && [ -f /usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug ] &&
		files="$files /usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	for f in $files; do
		readelf -sW "$f" 2>/dev/null | awk -v f="$f" '$4 == "FUNC" && $2 !~ /^0+$/ {
			n = $8; sub(/@.*/, "", n); print (f ~ /debug$/ ? "libc" : f), $2, n }'
	done | sed "s|^$libc |libc |" | sort -u | sort -k1,1 -k2,2 -k3,3 |
		awk '{ k = $1 " " $2; if (k != pk) { c = $3; pk = k } print $3, c }'
}
# canon TABLE < frames -> the frames with each name its alias class's
canon() {
	awk 'NR == FNR { if (!($1 in m)) m[$1] = $2; next }
	     { n = split($0, a, ";"); o = ""
	       for (i = 1; i <= n; i++) o = o (i > 1 ? ";" : "") (a[i] in m ? m[a[i]] : a[i])
	       print o }' "$1" -
}

# The workload alone: its CPU, subtracted from each tracer's.
$RU $W/none.ru $CHAIN $N || exit 1
wl=$(ru $W/none.ru | cut -d' ' -f1)

run() { # NAME RECORD-CMD... :: DECODE-CMD... (F = data file, output in $W/NAME.txt)
	local name=$1; shift
	local rec=() dec=()
	while [ "$1" != "::" ]; do rec+=("$1"); shift; done; shift
	dec=("$@")
	$RU $W/$name.rec.ru "${rec[@]}" >/dev/null 2>$W/$name.rec.err || { echo "$name: record failed: $(tail -2 $W/$name.rec.err)"; return 1; }
	$RU $W/$name.dec.ru "${dec[@]}" >$W/$name.txt 2>$W/$name.dec.err || { echo "$name: decode failed: $(tail -2 $W/$name.dec.err)"; return 1; }
}
run "ktrace-fp" $K record --call-graph fp -o $W/kfp.dat -e syscalls:sys_enter_getppid -- $CHAIN $N :: $K report -i $W/kfp.dat
run "ktrace-dwarf" $K record -g -o $W/kdw.dat -e syscalls:sys_enter_getppid -- $CHAIN $N :: $K report -i $W/kdw.dat
run "perf-fp" perf record -q --call-graph fp -o $W/pfp.dat -e syscalls:sys_enter_getppid -- $CHAIN $N :: perf script -i $W/pfp.dat
run "perf-dwarf" perf record -q --call-graph dwarf -o $W/pdw.dat -e syscalls:sys_enter_getppid -- $CHAIN $N :: perf script -i $W/pdw.dat
declare -A file=([ktrace-fp]=kfp [ktrace-dwarf]=kdw [perf-fp]=pfp [perf-dwarf]=pdw)

frames $W/perf-dwarf.txt >$W/ref.all
ref_full=$(sort $W/ref.all | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
alias_table >$W/aliases
ref_canon=$(echo "$ref_full" | canon $W/aliases)
ref_main=$(echo "$ref_full" | upto_main)
perf_cpu=""
echo "# call stacks: ktrace against perf, $N records of tests/targets/chain (-O2, no frame pointers)"
echo
echo "$(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg). perf dwarf's stack: $ref_full"
echo
# CPU ×perf dwarf compares CPU per record of N (the workload's), not per
# record delivered: a tracer that loses records is not charged for
# delivering fewer (perf dwarf loses some at default settings).
# "agree whole, aliases as one": the whole stack, each name taken for the
# first name of its address (see alias_table).
echo "| tracer | records (of N) | lost | total CPU µs/rec | CPU µs per record of N | bytes/rec | peak RSS MB | agree to main | agree whole | agree whole, aliases as one | CPU ×perf dwarf | bytes ×perf dwarf |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in perf-dwarf perf-fp ktrace-dwarf ktrace-fp; do
	[ -s $W/$t.txt ] || { echo "| $t | failed | | | | | | | | | | |"; continue; }
	frames $W/$t.txt >$W/$t.frames
	n=$(wc -l <$W/$t.frames)
	read -r rc rr < <(ru $W/$t.rec.ru)
	read -r dc dr < <(ru $W/$t.dec.ru)
	cpu=$(echo "scale=3; ($rc - $wl + $dc) / $n" | bc)
	cpun=$(echo "scale=3; ($rc - $wl + $dc) / $N" | bc)
	bytes=$(echo "scale=1; $(stat -c %s $W/${file[$t]}.dat) / $n" | bc)
	rss=$(awk -v a="$rr" -v b="$dr" 'BEGIN { printf "%.1f", (a > b ? a : b) / 1024 }')
	am=$(upto_main <$W/$t.frames | awk -v r="$ref_main" '$0 == r { a++ } END { printf "%.1f%%", 100 * a / NR }')
	aw=$(awk -v r="$ref_full" '$0 == r { a++ } END { printf "%.1f%%", 100 * a / NR }' $W/$t.frames)
	aa=$(canon $W/aliases <$W/$t.frames | awk -v r="$ref_canon" '$0 == r { a++ } END { printf "%.1f%%", 100 * a / NR }')
	[ "$t" = perf-dwarf ] && { perf_cpu=$cpun; perf_bytes=$bytes; }
	lost=$(grep -hoE 'LOST [0-9]+|lost [0-9]+ (chunks|samples)' $W/$t.rec.err $W/$t.dec.err | head -1)
	echo "| $t | $n | ${lost:--} | $cpu | $cpun | $bytes | $rss | $am | $aw | $aa | $(echo "scale=2; $cpun / $perf_cpu" | bc) | $(echo "scale=3; $bytes / $perf_bytes" | bc) |"
done
echo
echo "ktrace dwarf's stack: $(sort $W/ktrace-dwarf.frames | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')"

# Loss with default settings at BENCH_LOSS_N records (default 10^6), each
# way BENCH_LOSS_RUNS times (default 10): ktrace -g printing, and ktrace -g -o FILE.
# perf dwarf is not in it: its file would be ~8.5 GB, and its pipe mode
# (-o -) fails to read back its own DWARF samples here (perf 6.1).
LN=${BENCH_LOSS_N:-1000000}
LR=${BENCH_LOSS_RUNS:-10}
echo
echo "# loss at $LN records with default settings, $LR runs each (records lost per run)"
echo
echo "| tracer | lost per run |"
echo "|---|---|"
loss_ktrace() { # ARGS... -> records lost in one run
	"$K" record -g "$@" -e syscalls:sys_enter_getppid -- $CHAIN $LN >/dev/null 2>$W/loss.err ||
		{ echo "failed: $(tail -1 $W/loss.err)"; return; }
	grep -oE 'LOST [0-9]+' $W/loss.err | awk '{ s += $2 } END { print s + 0 }'
}
# -p: 3 seconds of a running chain (records are ~300,000 a second)
loss_pid() {
	local p n
	$CHAIN 1000000000 & p=$!
	sleep 0.2
	"$K" record -g -p $p -d 3 -e syscalls:sys_enter_getppid >/dev/null 2>$W/loss.err
	kill $p; wait $p 2>/dev/null
	n=$(grep -oE '[0-9]+ records captured' $W/loss.err | cut -d' ' -f1)
	echo "$(grep -oE 'LOST [0-9]+' $W/loss.err | awk '{ s += $2 } END { print s + 0 }')/${n:-?}"
}
for t in "ktrace -g" "ktrace -g -o" "ktrace -g -p (lost/captured in 3 s)"; do
	v=""
	for _ in $(seq $LR); do
		case $t in
		"ktrace -g") v="$v $(loss_ktrace)" ;;
		"ktrace -g -o") v="$v $(loss_ktrace -o $W/loss.dat)"; rm -f $W/loss.dat ;;
		*) v="$v $(loss_pid)" ;;
		esac
	done
	echo "| $t |$v |"
done
