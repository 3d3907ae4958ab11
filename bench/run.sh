#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/run.sh [--quick]: ktrace against `perf record`+`perf script` and
# `trace-cmd record`+`trace-cmd report`, same machine, same run, same
# workloads. Prints one markdown table per workload and N and saves it all
# under bench/out/ (run-DATE.md and latest.md), plus a callgrind profile of
# `ktrace report` in bench/out/profile.txt. Needs root, linux-perf,
# trace-cmd, valgrind (scripts/deps.sh bench). `make bench` builds ktrace
# first.
#
# Workloads (bench/*.c, compiled here with gcc -O1 -g):
#   syscall  bench_sys N: exactly N syscall(SYS_getppid);
#            event syscalls:sys_enter_getppid. N = 1e5 1e6 1e7 (--quick: 1e5 1e6)
#   uprobe   bench_func N: exactly N calls of the noinline bench_hit();
#            a uprobe on it. N = 1e5 1e6 (--quick: 1e5). A uprobe hit costs
#            ~13-15 us of the workload's own system time on this kind of VM
#            (breakpoint trap + single-step), so 1e7 would take minutes per
#            tracer.
#   BENCH_SYS_N / BENCH_UPROBE_N (space-separated, empty: skip) override the lists.
#
# Tracers, each run on the workload as its child:
#   ktrace       ktrace record -o F -e EV -- W N ; ktrace report -i F > out
#   ktrace live  ktrace record -e EV -- W N > out          (no decode phase)
#   perf         perf record -q -o F -e EV -- W N ; perf script --ns -i F > out
#   trace-cmd    trace-cmd record -q -d --no-filter -o F -e EV
#                    -f 'comm == "W"' W N ; trace-cmd report -t -i F > out
#                (-F/-P crash here: the kernel refuses set_ftrace_pid; the
#                 exit status 1 from its set_ftrace_filter reset is ignored
#                 when the file was written)
#   uprobe event: ktrace 'uprobe:W:bench_hit' (inline, removed by ktrace);
#   perf `perf probe -x W bench_hit` -> probe_bench_func:bench_hit, removed
#   with `perf probe -d`; trace-cmd on an event made by
#   `ktrace probe add -g ktbench_PID -x W bench_hit`, removed with
#   `ktrace probe del`. Probe creation is not timed.
#   Decoders print nanosecond timestamps (perf --ns, trace-cmd -t) so that
#   the duplicate check below can work; ktrace always does.
#
# Measurements:
#   captured   lines of the decoded output naming the event, minus dups
#   dup        lines whose "[cpu] timestamp" was already seen (perf 6.1
#              sometimes writes a ring block twice into perf.data)
#   lost %     (N - captured) / N
#   wall       wall time of each phase (bench_ru: fork to wait)
#   CPU        every phase runs under bench_ru, which reports
#              getrusage(RUSAGE_CHILDREN) after the wait: user+sys of the
#              tracer and of every descendant it waited for (the workload,
#              trace-cmd's per-CPU recorders). The workload writes its own
#              getrusage(RUSAGE_SELF) at exit ($BENCH_RUSAGE), in the same
#              traced run, and that is subtracted:
#                record CPU = children CPU of the record phase - workload CPU
#              The workload's share includes the in-kernel cost of the
#              tracepoint/uprobe and of writing the ring (done in its
#              context), shown apart as "wl CPU us/call"; the untraced row
#              gives its baseline.
#              decode CPU = children CPU of the decode phase.
#              us/rec = CPU / captured records.
#   bytes/rec  data file size / captured (ktrace live: text output size)
#   RSS        ru_maxrss of the phase: the largest single process among the
#              tracer and its waited-for descendants (for trace-cmd not the
#              sum of its recorders). The pages of the perf mmap rings a
#              tracer has touched count too, so the RSS of ktrace and perf
#              grows with how full their rings got (ktrace: 8 MB per CPU)
#   ×perf      ratio to the perf row of the same table: total CPU per
#              captured record, and peak RSS (max of both phases)
#
# Targets (issue): ktrace total CPU/rec <= 0.5x perf; zero loss at N=1e7
# with default settings; ktrace peak RSS <= 32 MB and flat from 1e5 to 1e7
# ("flat": largest peak <= 1.25x the smallest). Checked at the end.
#
# The machine is shared: the load average at the start and the end is
# printed with the tables; compare within a run, not across runs.
#
# Without --quick, bench/hist-vm.sh follows when the 6.12 VM kernel is
# cached (tests/vm/cache/6.12.pkg; tests/vm/fetch-kernels.sh 6.12) and qemu
# is installed: `ktrace hist` (counting in the kernel) against record,
# perf and bpftrace, in the VM since the host kernel may have no hist
# triggers; its own table, in bench/out/hist-vm.md. BENCH_HIST_VM=0 skips it.
# Then, the same way, bench/latency-vm.sh: `ktrace latency --wakeup`
# (wakeup -> switch-in pairs made and counted in the kernel) against
# `ktrace record` of sched_waking and sched_switch paired by awk and
# `perf sched record` + `perf sched latency`, on a futex ping-pong of two
# threads (bench/bench_pingpong.c, 1e5 round trips), with the guest's clock
# counting instructions (qemu -icount); its own table, in
# bench/out/latency-vm.md. BENCH_LAT_VM=0 skips it.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
K=$ROOT/ktrace
QUICK=0
for a in "$@"; do
	case $a in
	--quick) QUICK=1 ;;
	-h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/run.sh: unknown option '$a' (use --quick)" >&2; exit 2 ;;
	esac
done
die() { echo "bench/run.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (perf_event_open on tracepoints, uprobes)"
[ -x "$K" ] || die "no ./ktrace: run make ktrace (or make bench)"
for t in perf trace-cmd valgrind callgrind_annotate gcc; do
	command -v $t >/dev/null ||
		die "$t not installed (scripts/deps.sh bench)"
done
TFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$TFS" ] || TFS=/sys/kernel/tracing
[ -d "$TFS/events" ] || die "no tracefs at $TFS"

if [ $QUICK = 1 ]; then
	SYS_N=${BENCH_SYS_N-"100000 1000000"}
	UP_N=${BENCH_UPROBE_N-"100000"}
else
	SYS_N=${BENCH_SYS_N-"100000 1000000 10000000"}
	UP_N=${BENCH_UPROBE_N-"100000 1000000"}
fi

# Big files (1e7 records: ~650 MB of data, ~850 MB of text) go to tmpfs when
# it has room, so that disk writeback does not end up in the wall times.
base=/tmp
if [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR==2 { print $4 }')" -gt 4000000 ]; then
	base=/dev/shm
fi
W=$(mktemp -d "$base/ktrace-bench.XXXXXX") || die "mktemp failed"
OUTDIR=$ROOT/bench/out
mkdir -p "$OUTDIR"
STAMP=$(date +%Y%m%d-%H%M%S)
MD=$OUTDIR/run-$STAMP.md
PROFILE=$OUTDIR/profile.txt
RES=$W/results.tsv
: > "$RES"
PERF_PROBE=""
KT_GROUP=ktbench_$$
KT_PROBE=""

cleanup() {
	[ -n "$PERF_PROBE" ] && perf probe -q -d "$PERF_PROBE" >/dev/null 2>&1
	[ -n "$KT_PROBE" ] && "$K" probe del "$KT_GROUP:*" >/dev/null 2>&1
	PERF_PROBE="" KT_PROBE=""
	rm -rf "$W"
}
trap cleanup EXIT
trap 'echo "bench/run.sh: interrupted" >&2; exit 130' INT TERM HUP

echo "building the workloads in $W"
for p in bench_sys bench_func bench_ru; do
	gcc -O1 -g -Wall -o "$W/$p" "bench/$p.c" || die "cannot build bench/$p.c"
done
RU=$W/bench_ru
export BENCH_RUSAGE=$W/wl.ru

# ru FILE -> "wall_us cpu_us maxrss_kb status" (bench_ru output)
ru() { awk '{ print $1, $2 + $3, $4, $5 }' "$1" 2>/dev/null || echo "0 0 0 -1"; }
wlcpu() { awk '{ print $1 + $2 }' "$BENCH_RUSAGE" 2>/dev/null || echo 0; }

# count EVENT_SUBSTRING < decoded text -> "lines dups"
count() {
	awk -v ev="$1" '
	index($0, ev) {
		if ($3 ~ /^\[[0-9]+\]$/) i = 3
		else if ($2 ~ /^\[[0-9]+\]$/) i = 2
		else for (i = 1; i < NF && $i !~ /^\[[0-9]+\]$/; i++) ;
		key = $i " " $(i + 1)
		n++
		if (key in seen) dup++
		else seen[key] = gen
		# Decoders print in time order: a copy is near its original.
		if (n % 200000 == 0) {
			for (k in seen) if (seen[k] < gen - 1) delete seen[k]
			gen++
		}
	}
	END { print n + 0, dup + 0 }'
}

# tracefs scalars trace-cmd might touch: put back whatever it changed.
TC_KNOBS="tracing_on buffer_size_kb saved_cmdlines_size set_event_pid"
tc_save() { for f in $TC_KNOBS; do cat "$TFS/$f" 2>/dev/null > "$W/knob.$f"; done; }
tc_restore() {
	for f in $TC_KNOBS; do
		[ -s "$W/knob.$f" ] || continue
		cmp -s "$W/knob.$f" <(cat "$TFS/$f" 2>/dev/null) && continue
		echo "bench/run.sh: trace-cmd left $f changed; restoring" >&2
		cat "$W/knob.$f" > "$TFS/$f" 2>/dev/null
	done
}

# result WL N TRACER captured dup wall_rec wall_dec cpu_rec cpu_dec cpu_wl bytes rss_rec rss_dec note
result() { (IFS=$'\t'; echo "$*") >> "$RES"; }

# One tracer on one workload: run_one WL N TRACER
run_one() {
	local wl=$1 n=$2 tr=$3 prog ev match data="" out=$W/out.txt
	local rec dec wlc=0 lines=0 dups=0 bytes=0 rc note=""
	local -a rcmd dcmd=()
	case $wl in
	syscall) prog=bench_sys; ev=syscalls:sys_enter_getppid; match=sys_enter_getppid: ;;
	uprobe) prog=bench_func; match=bench_hit: ;;
	esac
	case $tr in
	ktrace|"ktrace live")
		[ $wl = uprobe ] && ev="uprobe:$W/bench_func:bench_hit"
		if [ "$tr" = ktrace ]; then
			data=$W/k.dat
			rcmd=("$K" record -o "$data" -e "$ev" -- "$W/$prog" "$n")
			dcmd=("$K" report -i "$data")
		else
			rcmd=("$K" record -e "$ev" -- "$W/$prog" "$n")
		fi ;;
	perf)
		[ $wl = uprobe ] && ev=$PERF_PROBE
		data=$W/p.dat
		rcmd=(perf record -q -o "$data" -e "$ev" -- "$W/$prog" "$n")
		dcmd=(perf script --ns -i "$data") ;;
	trace-cmd)
		[ $wl = uprobe ] && ev=$KT_GROUP:bench_hit
		data=$W/t.dat
		rcmd=(trace-cmd record -q -d --no-filter -o "$data" -e "$ev"
		      -f "comm == \"$prog\"" "$W/$prog" "$n")
		dcmd=(trace-cmd report -t -i "$data") ;;
	none)
		rcmd=("$W/$prog" "$n") ;;
	esac
	rm -f "$BENCH_RUSAGE" "$out" "$W"/*.dat
	printf '  %-9s %-12s N=%-9s record' "$wl" "$tr" "$n"
	[ "$tr" = trace-cmd ] && tc_save
	if [ "$tr" = "ktrace live" ]; then
		"$RU" "$W/rec.ru" "${rcmd[@]}" > "$out" 2> "$W/rec.err"
	else
		"$RU" "$W/rec.ru" "${rcmd[@]}" > /dev/null 2> "$W/rec.err"
	fi
	rc=$?
	[ "$tr" = trace-cmd ] && tc_restore
	rec=$(ru "$W/rec.ru")
	wlc=$(wlcpu)
	if [ $rc != 0 ] && ! { [ "$tr" = trace-cmd ] && [ -s "$data" ]; }; then
		note="record failed (status $rc): $(grep -v '^$' "$W/rec.err" | tail -1)"
	fi
	if [ -z "$note" ] && [ ${#dcmd[@]} -gt 0 ]; then
		printf ', decode'
		"$RU" "$W/dec.ru" "${dcmd[@]}" > "$out" 2> "$W/dec.err" ||
			note="decode failed: $(grep -v '^$' "$W/dec.err" | tail -1)"
		dec=$(ru "$W/dec.ru")
	else
		dec="0 0 0 0"
	fi
	if [ "$tr" != none ] && [ -z "$note" ]; then
		printf ', count'
		read -r lines dups < <(count "$match" < "$out")
		if [ -n "$data" ]; then
			bytes=$(stat -c %s "$data")
		else
			bytes=$(stat -c %s "$out")
		fi
	fi
	# What the tracers themselves say about loss, for the notes.
	case $tr in
	ktrace*) note+=$(grep -h 'LOST' "$W/rec.err" | sed 's/^ktrace record: //' | head -1) ;;
	perf) note+=$(grep -h -i 'lost' "$W/rec.err" "$W/dec.err" 2>/dev/null |
		tr '\n' ' ' | sed 's/  */ /g; s/ $//') ;;
	esac
	echo
	result "$wl" "$n" "$tr" $((lines - dups)) "$dups" \
		"$(echo $rec | cut -d' ' -f1)" "$(echo $dec | cut -d' ' -f1)" \
		$(( $(echo $rec | cut -d' ' -f2) - wlc )) "$(echo $dec | cut -d' ' -f2)" \
		"$wlc" "$bytes" "$(echo $rec | cut -d' ' -f3)" \
		"$(echo $dec | cut -d' ' -f3)" "$note"
	rm -f "$out" "$W"/*.dat
}

# Markdown tables from results.tsv, one per workload and N, ratios to perf.
tables() {
	awk -F'\t' '
	function f(x, d) { return sprintf("%." d "f", x) }
	function per(x, c) { return c > 0 ? f(x / c, 3) : "-" }
	{
		k = $1 SUBSEP $2
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		r = ++nr[k]; row[k, r] = $0
		if ($3 == "perf" && $4 > 0) {
			ptot[k] = ($8 + $9) / $4
			prss[k] = ($12 > $13 ? $12 : $13)
		}
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, kk, SUBSEP)
			printf "\n### %s workload, N = %d\n\n", kk[1], kk[2]
			print "| tracer | captured | dup | lost % | wall s rec | wall s dec | rec CPU µs/rec | dec CPU µs/rec | total CPU µs/rec | wl CPU µs/call | bytes/rec | RSS MB rec | RSS MB dec | CPU ×perf | RSS ×perf |"
			print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			notes = ""
			for (r = 1; r <= nr[k]; r++) {
				split(row[k, r], v, "\t")
				n = v[2]; c = v[4]
				if (v[3] == "none") {
					printf "| (untraced workload) | - | - | - | %s | - | - | - | - | %s | - | %s | - | - | - |\n", \
						f(v[6] / 1e6, 2), f(v[10] / n, 3), f(v[12] / 1024, 1)
					continue
				}
				live = v[3] == "ktrace live"
				tot = c > 0 ? (v[8] + v[9]) / c : 0
				rss = v[12] > v[13] ? v[12] : v[13]
				name = v[3]; if (live) name = name "*"
				wdec = live ? "-" : f(v[7] / 1e6, 2)
				cdec = live ? "-" : per(v[9], c)
				rdec = live ? "-" : f(v[13] / 1024, 1)
				bpr = c > 0 ? f(v[11] / c, 1) : "-"
				xcpu = "-"; if (ptot[k] > 0 && tot > 0) xcpu = f(tot / ptot[k], 2)
				xrss = "-"; if (prss[k] > 0) xrss = f(rss / prss[k], 2)
				printf "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, c, v[5], f(100 * (n - c) / n, 2), f(v[6] / 1e6, 2), wdec, per(v[8], c), cdec, per(v[8] + v[9], c), f(v[10] / n, 3), bpr, f(v[12] / 1024, 1), rdec, xcpu, xrss
				if (v[14] != "") notes = notes "- " v[3] ": " v[14] "\n"
			}
			print "\n\\* live: records formatted while recording, no decode phase; bytes/rec is the text output."
			if (notes != "") printf "\nTracer messages:\n\n%s", notes
		}
	}' "$RES"
}

# Targets, on the syscall workload (ktrace file mode, plus the RSS of live).
targets() {
	awk -F'\t' -v quick=$QUICK '
	$1 != "syscall" { next }
	!($2 in seen_n) { seen_n[$2] = 1; ns[++nn] = $2 }
	$3 == "perf" && $4 > 0 { ptot[$2] = ($8 + $9) / $4 }
	$3 == "ktrace" && $4 > 0 { ktot[$2] = ($8 + $9) / $4; kc[$2] = $4; lost[$2] = $2 - $4 }
	$3 ~ /^ktrace/ {
		rss = ($12 > $13 ? $12 : $13) / 1024
		if (!(rss_n[$2]) || rss > rss_n[$2]) rss_n[$2] = rss
	}
	END {
		print "\n### Targets (syscall workload)\n"
		for (i = 1; i <= nn; i++) if (ptot[n = ns[i]] > 0 && ktot[n] > 0) {
			r = ktot[n] / ptot[n]
			printf "- N=%d: ktrace total CPU/rec = %.2f× perf (target ≤ 0.5): %s\n", n, r, r <= 0.5 ? "PASS" : "FAIL"
		}
		if (10000000 in kc)
			printf "- N=1e7: ktrace lost %d of 10000000 with default settings (target 0): %s\n", lost[10000000], lost[10000000] == 0 ? "PASS" : "FAIL"
		else
			print "- N=1e7 loss: not measured (" (quick ? "--quick" : "N=1e7 not run") ")"
		mn = 1e18; mx = 0
		for (i = 1; i <= nn; i++) { n = ns[i]; if (!(n in rss_n)) continue; if (rss_n[n] < mn) mn = rss_n[n]; if (rss_n[n] > mx) mx = rss_n[n]; s = s sprintf(" N=%d: %.1f MB;", n, rss_n[n]) }
		if (mx > 0) {
			printf "- ktrace peak RSS (record or report, file or live):%s max %.1f MB (target ≤ 32): %s\n", s, mx, mx <= 32 ? "PASS" : "FAIL"
			printf "- ktrace peak RSS flat across N (max ≤ 1.25× min): %.2f×: %s\n", mx / mn, mx <= 1.25 * mn ? "PASS" : "FAIL"
		}
	}' "$RES"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date +%s)
echo "syscall N: $SYS_N; uprobe N: $UP_N"
for n in $SYS_N; do
	for tr in none ktrace "ktrace live" perf trace-cmd; do
		run_one syscall "$n" "$tr"
	done
done
if [ -n "$UP_N" ]; then
	perf probe -q -x "$W/bench_func" bench_hit >/dev/null 2>"$W/probe.err" &&
		PERF_PROBE=probe_bench_func:bench_hit ||
		echo "bench/run.sh: perf probe failed: $(tail -1 "$W/probe.err")" >&2
	"$K" probe add -g "$KT_GROUP" -x "$W/bench_func" bench_hit >/dev/null 2>"$W/probe.err" &&
		KT_PROBE=$KT_GROUP:bench_hit ||
		echo "bench/run.sh: ktrace probe add failed: $(tail -1 "$W/probe.err")" >&2
	for n in $UP_N; do
		for tr in none ktrace "ktrace live" perf trace-cmd; do
			[ "$tr" = perf ] && [ -z "$PERF_PROBE" ] && continue
			[ "$tr" = trace-cmd ] && [ -z "$KT_PROBE" ] && continue
			run_one uprobe "$n" "$tr"
		done
	done
	[ -n "$PERF_PROBE" ] && perf probe -q -d "$PERF_PROBE" >/dev/null 2>&1
	[ -n "$KT_PROBE" ] && "$K" probe del "$KT_GROUP:*" >/dev/null 2>&1
	PERF_PROBE="" KT_PROBE=""
fi
t_bench=$(($(date +%s) - t_start))

# Where ktrace's decoder spends its instructions.
# callgrind_annotate output -> the total and the first 15 function rows
cg_top() {
	awk '/PROGRAM TOTALS/ { print } p && /^-+$/ { next }
	     p && NF {
		# --inclusive lists some functions twice (absolute and
		# relative source path): keep the first.
		f = $0; sub(/ \[.*$/, "", f); sub(/^.*:/, "", f)
		if (($1, f) in seen) next
		seen[$1, f] = 1
		if (++n <= 15) print
	     }
	     /file:function/ { p = 1 }'
}
echo "profiling ktrace report (callgrind, N=100000)"
"$K" record -o "$W/prof.dat" -e syscalls:sys_enter_getppid -- "$W/bench_sys" 100000 >/dev/null 2>&1
if valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" \
	"$K" report -i "$W/prof.dat" > /dev/null 2> "$W/cg.err"; then
	{
		echo "# ktrace report -i FILE (100000 syscalls:sys_enter_getppid records), valgrind --tool=callgrind"
		echo "# ktrace $(git rev-parse --short HEAD 2>/dev/null) $(date -Is)"
		echo
		echo "## Top 15 functions by instructions executed (self)"
		callgrind_annotate "$W/cg.out" 2>/dev/null | cg_top
		echo
		echo "## Top 15 functions by instructions executed (inclusive)"
		callgrind_annotate --inclusive=yes "$W/cg.out" 2>/dev/null | cg_top
	} > "$PROFILE"
else
	echo "callgrind failed: $(tail -3 "$W/cg.err")" > "$PROFILE"
fi

{
	echo "# ktrace vs perf vs trace-cmd — $(date -Is)"
	echo
	echo "ktrace $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- lib cmd 2>/dev/null || echo ' (lib/cmd modified)'), $(perf version 2>/dev/null), trace-cmd $(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }'), kernel $(uname -r), $(nproc) CPUs."
	echo "Load average at start: $load0; at end: $(cut -d' ' -f1-3 /proc/loadavg). Benchmark time: ${t_bench} s."
	echo "Record CPU = user+sys of the tracer and its waited-for children minus the workload's own getrusage(RUSAGE_SELF);"
	echo "wl CPU = the workload's own CPU per call, in-kernel tracing cost included. RSS = largest single process of the phase."
	echo "See the header of bench/run.sh for the method."
	tables
	targets
	echo
	echo "### ktrace report profile (callgrind, top of bench/out/profile.txt)"
	echo
	echo '```'
	sed -n '/(self)/,/^$/p' "$PROFILE" | sed '1d; /^$/d' 
	echo '```'
} > "$MD"
cp "$MD" "$OUTDIR/latest.md"
echo
cat "$MD"
echo
echo "saved: $MD (and bench/out/latest.md), $PROFILE"
left=$(grep -c "$W" "$TFS/dynamic_events" 2>/dev/null)
[ "${left:-0}" = 0 ] || echo "bench/run.sh: WARNING: $left probe(s) on $W still in $TFS/dynamic_events" >&2

# ktrace hist against the others, in the VM (see the header)
if [ $QUICK = 0 ] && [ "${BENCH_HIST_VM:-1}" != 0 ]; then
	if [ -f "${KTRACE_VM_CACHE:-tests/vm/cache}/6.12.pkg" ] &&
		command -v qemu-system-x86_64 >/dev/null; then
		echo
		bench/hist-vm.sh || echo "bench/run.sh: bench/hist-vm.sh failed" >&2
	else
		echo "bench/run.sh: bench/hist-vm.sh skipped: no cached 6.12 VM kernel (tests/vm/fetch-kernels.sh 6.12) or no qemu"
	fi
fi

# ktrace latency against record and perf sched, in the VM (see the header)
if [ $QUICK = 0 ] && [ "${BENCH_LAT_VM:-1}" != 0 ]; then
	if [ -f "${KTRACE_VM_CACHE:-tests/vm/cache}/6.12.pkg" ] &&
		command -v qemu-system-x86_64 >/dev/null; then
		echo
		bench/latency-vm.sh || echo "bench/run.sh: bench/latency-vm.sh failed" >&2
	else
		echo "bench/run.sh: bench/latency-vm.sh skipped: no cached 6.12 VM kernel (tests/vm/fetch-kernels.sh 6.12) or no qemu"
	fi
fi
