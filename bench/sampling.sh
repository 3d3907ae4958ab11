#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/sampling.sh: CPU sampling and the live view, ktrace against perf,
# same machine, same run. Needs root and linux-perf.
#
# 1. Sampling: every CPU busy (one tests/targets/busy per CPU: main ->
#    outer_spin -> inner_spin), then for SECS seconds (BENCH_SAMPLING_SECS,
#    default 10) each tracer samples the whole machine at 999 Hz with call
#    stacks, and its file is turned into text:
#      ktrace dwarf  ktrace record -a -F 999 -g -e cpu-clock -d SECS -o F;
#                    ktrace report -i F
#      ktrace fp     the same with --call-graph fp
#      perf dwarf    perf record -a -F 999 --call-graph dwarf -e cpu-clock;
#                    perf script
#      perf fp       perf record -a -F 999 -g -e cpu-clock (perf's -g is
#                    fp); perf script
#    Measured: tracer CPU (user+sys of record and of the decoding, from
#    getrusage of their waited-for processes), samples in the text, lost
#    records as each tool reports them, bytes per sample in the file, peak
#    RSS; ratios against perf in the same stack mode.
# 2. top: steady-state CPU for SECS seconds of
#      ktrace top --stdio -e syscalls:sys_enter_getppid   vs
#      perf top --stdio -e syscalls:sys_enter_getppid
#    at ~1e5 events/s (tests/targets/syscaller 1000 ... loop), and of
#    ktrace top --stdio -F 999 vs perf top --stdio -F 999 -e cpu-clock with
#    the CPUs busy; CPU as a share of one CPU.
set -u
cd "$(dirname "$0")/.."
SECS=${BENCH_SAMPLING_SECS:-10}
K=$PWD/ktrace
BUSY=$PWD/build/tests/targets/busy
SYSC=$PWD/build/tests/targets/syscaller
W=$(mktemp -d /dev/shm/ktrace-sampling.XXXXXX)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
for t in perf gcc bc; do
	command -v $t >/dev/null || { echo "bench/sampling.sh: $t not installed"; exit 1; }
done
[ -x "$K" ] && [ -x "$BUSY" ] && [ -x "$SYSC" ] ||
	{ echo "bench/sampling.sh: run make ktrace targets first"; exit 1; }
gcc -O1 -g -Wall -o $W/bench_ru bench/bench_ru.c || exit 1
RU=$W/bench_ru
ru() { awk '{ print $2 + $3, $4 }' "$1"; }

echo "# sampling: ktrace against perf, $SECS s per tracer, $(nproc) CPUs busy, $(uname -r)"
echo
for i in $(seq "$(nproc)"); do
	$BUSY $((SECS * 1000 * 20)) & pids+=($!)
done

run() { # NAME FILE RECORD-CMD... :: DECODE-CMD...
	local name=$1 f=$2; shift 2
	local rec=()
	while [ "$1" != "::" ]; do rec+=("$1"); shift; done; shift
	$RU $W/$name.rec.ru "${rec[@]}" >/dev/null 2>$W/$name.rec.err ||
		{ echo "$name: record failed: $(tail -2 $W/$name.rec.err)"; return 1; }
	$RU $W/$name.dec.ru "$@" >$W/$name.txt 2>$W/$name.dec.err ||
		{ echo "$name: decode failed: $(tail -2 $W/$name.dec.err)"; return 1; }
	echo "$f" >$W/$name.file
}
# warm-up, not measured: the binaries, debug files and kallsyms in the
# page cache for whichever tracer goes first
$K record -a -F 999 -g -e cpu-clock -d 1 -o $W/warm.dat 2>/dev/null &&
	$K report -i $W/warm.dat >/dev/null
perf record -q -a -F 999 --call-graph dwarf -e cpu-clock -o $W/warm.pdat -- sleep 1 2>/dev/null &&
	perf script -i $W/warm.pdat >/dev/null 2>&1
rm -f $W/warm.dat $W/warm.pdat
run ktrace-dwarf $W/kdw.dat $K record -a -F 999 -g -e cpu-clock -d $SECS -o $W/kdw.dat :: $K report -i $W/kdw.dat
run ktrace-fp $W/kfp.dat $K record -a -F 999 --call-graph fp -e cpu-clock -d $SECS -o $W/kfp.dat :: $K report -i $W/kfp.dat
run perf-dwarf $W/pdw.dat perf record -q -a -F 999 --call-graph dwarf -e cpu-clock -o $W/pdw.dat -- sleep $SECS :: perf script -i $W/pdw.dat
run perf-fp $W/pfp.dat perf record -q -a -F 999 -g -e cpu-clock -o $W/pfp.dat -- sleep $SECS :: perf script -i $W/pfp.dat

echo "| tracer | samples | lost | CPU s record | CPU s text | CPU µs/sample (both) | bytes/sample | peak RSS MB | CPU ×perf | bytes ×perf | RSS ×perf |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A cpu bytes rss
for t in perf-dwarf ktrace-dwarf perf-fp ktrace-fp; do
	[ -s $W/$t.txt ] || { echo "| $t | failed | | | | | | | | | |"; continue; }
	n=$(grep -cE '^ *[^ ].* [0-9]+\.[0-9]+: +[0-9]+ cpu-clock' $W/$t.txt)
	read -r rc rr < <(ru $W/$t.rec.ru)
	read -r dc dr < <(ru $W/$t.dec.ru)
	cpu[$t]=$(echo "scale=3; ($rc + $dc) / 1000000" | bc)
	bytes[$t]=$(echo "scale=1; $(stat -c %s "$(cat $W/$t.file)") / $n" | bc)
	rss[$t]=$(awk -v a="$rr" -v b="$dr" 'BEGIN { printf "%.1f", (a > b ? a : b) / 1024 }')
	lost=$(grep -hoiE 'LOST [0-9]+( records| samples| chunks)?|lost [0-9]+ (chunks|samples)' $W/$t.rec.err $W/$t.dec.err | head -1)
	ref=perf-${t#*-}
	if [ -n "${cpu[$ref]:-}" ]; then
		ratios="$(echo "scale=2; ${cpu[$t]} / ${cpu[$ref]}" | bc) | $(echo "scale=3; ${bytes[$t]} / ${bytes[$ref]}" | bc) | $(echo "scale=2; ${rss[$t]} / ${rss[$ref]}" | bc)"
	else
		ratios="- | - | -"
	fi
	echo "| $t | $n | ${lost:-0} | $(echo "scale=3; $rc / 1000000" | bc) | $(echo "scale=3; $dc / 1000000" | bc) | $(echo "scale=1; ${cpu[$t]} * 1000000 / $n" | bc) | ${bytes[$t]} | ${rss[$t]} | $ratios |"
done
echo
echo "Hottest symbols, ktrace dwarf (report --sort sym):"
$K report -i $W/kdw.dat --sort sym 2>/dev/null | grep -v '^#' | sed -n '1,4p'

echo
echo "# top: steady-state CPU over $SECS s (share of one CPU)"
echo
topcpu() { # NAME CMD...: run for SECS under SIGINT, CPU share
	local name=$1; shift
	$RU $W/$name.ru timeout -s INT $SECS "$@" >$W/$name.out 2>$W/$name.err </dev/null
	read -r c _ < <(ru $W/$name.ru)
	echo "scale=2; 100 * $c / ($SECS * 1000000)" | bc
}
echo "| view | ktrace top % CPU | perf top % CPU | ×perf |"
echo "|---|---:|---:|---:|"
kt=$(topcpu ktop-samp $K top --stdio -F 999)
pt=$(topcpu ptop-samp perf top --stdio -F 999 -e cpu-clock)
echo "| cpu-clock -F 999, CPUs busy | $kt | $pt | $(echo "scale=2; $kt / $pt" | bc) |"
kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; pids=()
$SYSC 1000 0 loop >/dev/null & pids+=($!)
sleep 0.5
kt=$(topcpu ktop-tp $K top --stdio -e syscalls:sys_enter_getppid)
rate=$(awk '$NF == "syscalls:sys_enter_getppid" { r = $1 } END { print r }' $W/ktop-tp.out)
pt=$(topcpu ptop-tp perf top --stdio -e syscalls:sys_enter_getppid)
echo "| syscalls:sys_enter_getppid at $rate/s | $kt | $pt | $(echo "scale=3; $kt / $pt" | bc) |"
echo
echo "ktrace counts tracepoints in the kernel (perf counters read once a refresh);"
echo "perf top samples every event (period 1) and symbolizes each one."
