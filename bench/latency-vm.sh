#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/latency-vm.sh: wakeup latency paired in the kernel (`ktrace latency
# --wakeup`) against recording the scheduler's events and pairing them in
# user space, in the Debian 6.12 x86-64 VM of tests/vm (the host kernel
# has no hist triggers). qemu runs under TCG with one CPU and -icount
# shift=0: the guest's clock advances one nanosecond per instruction
# executed, so every time and CPU figure below is a count of guest
# instructions, the same from round to round whatever the host's load
# (without it, on a shared host, the same run moved by 2x between rounds).
# Absolute times mean nothing; compare within the run (ratios).
#
# Workload: `bench_pingpong N` (bench/bench_pingpong.c): two threads pass a
# token through a futex, exactly N round trips, N = 1e5; each thread is
# woken by the other up to N times (SCHED_BATCH: a wakeup does not preempt
# the waker, so on one CPU nearly every hand-over wakes a sleeping thread;
# the workload counts the wakeups it made, from FUTEX_WAKE's return, and
# prints them). Measured by, in turn, round after round
# (tests/vm/x_bench_latency.sh, in the VM):
#   ktrace latency   ktrace latency --wakeup -- W: sched_waking's trigger
#                    keeps a timestamp, sched_switch's fires a synthetic
#                    event, a hist trigger counts; pairs = its Totals hits.
#                    With a command it follows the command's pid only: the
#                    main thread's wakeups (ktrace-latency(1)).
#   ktrace record    ktrace record -e sched:sched_waking -e sched:sched_switch
#                    -o F -- W, then ktrace report -i F | awk: a waking's
#                    pid -> the next switch to that pid, pairs per task.
#   perf sched       perf sched record -o F -- W (machine-wide, as perf
#                    sched always records), then perf sched latency -p -i F:
#                    its Switches column per task.
#   perf sched +wakeup  the same with -e sched:sched_wakeup added: the perf
#                    sched latency of Debian 12's perf 6.1 reads sched_wakeup
#                    only, while its record stores sched_waking instead when
#                    the kernel has it (fixed upstream since 2023), so the
#                    plain run counts preemptions, not wakeups.
#
# Pairs: the main thread's for every tool (the one ktrace latency -- W
# measures), the other thread's where the tool gives them, the workload's
# own count of the wakeups each thread got from the other, and the
# difference per round. Known differences: +1 for the tracer's release of
# the command (a wakeup of its pid before exec), +1 when the main thread
# sleeps in pthread_join; ktrace record follows the command's tasks with
# per-task perf events, and a sched_switch is seen in the context of the
# task switched out, so a switch to W from another task (the recorder
# itself, a kernel thread) is not seen and that pair not counted; perf sched
# latency also counts the switch-in of a preempted task (ktrace latency
# and the awk pairing count wakeups only) and a new thread's first run.
#
# CPU (each phase under bench_ru, the workload's own getrusage at its exit
# in $BENCH_RUSAGE; medians over the rounds; the untraced workload runs at
# the start and at the end of each round):
#   wl CPU      the workload's own user+sys, the in-kernel tracing work
#               done in its context included (the triggers, the ring copy)
#   wl added    wl CPU - wl CPU of the untraced workload: the CPU the tool
#               added to the workload
#   tool CPU    user+sys of the tool and its children (report, awk, perf
#               sched latency) in both phases, minus the workload's own,
#               minus the untraced run's remainder (bench_ru's
#               fork/exec/exit of the workload)
#   total added wl added + tool CPU
#   bytes       what the tool wrote: data files, text piped to the pairing,
#               its output
# Targets (issue): ktrace latency's added CPU <= 0.3x ktrace record's and
# <= 0.1x perf sched's; printed as met or not, for wl added and for total
# added, against both perf rows.
#
# Needs qemu (scripts/deps.sh vm) and perf (scripts/deps.sh bench: Debian's
# /usr/bin/perf goes into this run's initramfs with its libraries,
# KTRACE_VM_EXTRA_BINS; without perf its rows are missing). Builds the
# static ktrace (make ktrace-static) and the workload.
#
# Environment: BENCH_LAT_N (default 100000), BENCH_LAT_ROUNDS (default 3),
# BENCH_LAT_KERNEL (default 6.12), BENCH_LAT_QEMU_OPTS (default "-icount
# shift=0"; empty: the host's clock). Output: the markdown table on stdout
# and in bench/out/latency-vm.md; the VM's log in
# build/vm/latency-vm-KERNEL.log. Exit status 1 when the VM run failed or a
# tool gave no count.
# --from-log: no build, no VM: the table again from the last run's log.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
N=${BENCH_LAT_N:-100000}
R=${BENCH_LAT_ROUNDS:-3}
KERNEL=${BENCH_LAT_KERNEL:-6.12}
OUTDIR=$ROOT/bench/out
MD=$OUTDIR/latency-vm.md
BIN=$ROOT/build/bench
die() { echo "bench/latency-vm.sh: $*" >&2; exit 1; }
FROM_LOG=0
for a in "$@"; do
	case $a in
	--from-log) FROM_LOG=1 ;;
	-h|--help) sed -n '4,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$a' (--from-log, --help)" ;;
	esac
done
RUNLOG=$ROOT/build/vm/latency-bench.run.log
LOG=$ROOT/build/vm/latency-vm-$KERNEL.log
if [ $FROM_LOG = 1 ]; then
	load0=- secs=- vmrc=0
	[ -f "$LOG" ] || die "no VM log $LOG"
else

echo "building the static ktrace and the workload"
make -s -j2 ktrace-static >/dev/null || die "make ktrace-static failed"
mkdir -p "$BIN" "$OUTDIR"
gcc -O1 -g -Wall -static -pthread -o "$BIN/bench_pingpong" bench/bench_pingpong.c ||
	die "cannot build bench/bench_pingpong.c"
gcc -O1 -g -Wall -static -o "$BIN/bench_ru" bench/bench_ru.c || die "cannot build bench/bench_ru.c"

# perf as /usr/bin/perf in the VM: the real binary (a Debian perf may be a
# script running perf_VERSION)
extra="$BIN/bench_pingpong $BIN/bench_ru"
real_perf() {
	local b
	b=$(command -v perf) || return 1
	if ! file -L "$b" | grep -q ELF; then
		b=$(ls -v /usr/bin/perf_[0-9]* 2>/dev/null | tail -n 1)
		[ -n "$b" ] || return 1
	fi
	cp -L "$b" "$BIN/perf"
}
real_perf && extra="$extra $BIN/perf" ||
	echo "bench/latency-vm.sh: no perf (scripts/deps.sh bench): no perf rows" >&2

qopts=${BENCH_LAT_QEMU_OPTS--icount shift=0}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
echo "booting $KERNEL: N=$N, $R round(s)"
mkdir -p "$ROOT/build/vm"
# guest seconds a round may take (~50 at 1e5 round trips here); the host
# runs ~5x slower than the guest's instruction clock: its timeout is longer
per=$(( (N / 1000 + 20) * 4 ))
KTRACE_VM_KERNELS=$KERNEL KTRACE_VM_JOBS=1 KTRACE_VM_MEM=2048 \
	KTRACE_VM_TESTS=x_bench_latency.sh KTRACE_VM_EXTRA_BINS="$extra" \
	KTRACE_VM_APPEND="ktrace.bench_n=$N ktrace.bench_rounds=$R" \
	KTRACE_VM_QEMU_OPTS="$qopts" \
	KTRACE_VM_TEST_TIMEOUT=$((R * per + 120)) KTRACE_VM_TIMEOUT=$((R * per * 2 + 400)) \
	tests/vm/run.sh > "$RUNLOG" 2>&1
vmrc=$?
secs=$(($(date +%s) - t0))
grep -E '^(vm:|PASS|FAIL|[0-9]+ passed)' "$RUNLOG" | sed 's/^/  /'
# kept apart from the next VM run's log (bench/hist-vm.sh's, the tests')
rm -f "$LOG"
cp "$ROOT/build/vm/$KERNEL.log" "$LOG" 2>/dev/null || die "no VM log build/vm/$KERNEL.log"
echo "KTRACE-BENCH-INFO qemu options: ${qopts:-none} (KTRACE_VM_QEMU_OPTS)" >> "$LOG"
fi

# N and the rounds as the VM ran them
info=$(tr -d '\r' < "$LOG" | sed -n 's/.*KTRACE-BENCH-INFO \(N=.*\)/\1/p' | head -n 1)
for w in $info; do
	case $w in
	N=*) N=${w#N=} ;;
	rounds=*) R=${w#rounds=} ;;
	esac
done

# The VM's lines -> the table. KTRACE-BENCH ROUND TOOL MAIN PONG WMAIN
# WPONG WL REC DEC BYTES WALL (µs, bytes; see tests/vm/x_bench_latency.sh).
table() {
	tr -d '\r' < "$LOG" | awk '
	function med(t, k,   a, i, j, c, x) {
		c = cnt[t]
		for (i = 1; i <= c; i++) a[i] = v[t, k, i]
		for (i = 2; i <= c; i++) {
			x = a[i]
			for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
			a[j + 1] = x
		}
		return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
	}
	function s(us) { return sprintf("%.2f", us / 1e6) }
	function mb(b) { return b >= 1e6 ? sprintf("%.1f MB", b / 1e6) : sprintf("%d B", b) }
	function label(t) {
		if (t == "latency") return "ktrace latency --wakeup"
		if (t == "record") return "ktrace record -o + report \\| awk"
		if (t == "perf") return "perf sched record + latency"
		if (t == "perf-wakeup") return "perf sched record -e sched_wakeup + latency"
		return t
	}
	function sd(x) { return x > 0 ? "+" x : x "" }
	# "pairs - the workload count", per round: "+1, +1, +1"
	function deltas(t, k,   i, r) {
		r = ""
		for (i = 1; i <= cnt[t]; i++)
			r = r (i > 1 ? ", " : "") (v[t, k, i] == "-" ? "-" : sd(v[t, k, i] - v[t, "w" k, i]))
		return r
	}
	function target(name, a, b, lim,   r) {
		if (!(b > 0)) { printf "- %s: no ratio (the other row added %s s)\n", name, s(b); return }
		r = a / b
		printf "- %s: %.3f× (target ≤ %s): %s\n", name, r, lim, r <= lim ? "met" : "NOT met"
	}
	function ratio(a, b) { return b > 0 ? sprintf("%.3f×", a / b) : "-" }
	/KTRACE-BENCH-INFO / { sub(/.*KTRACE-BENCH-INFO /, ""); info = info "- " $0 "\n"; next }
	/KTRACE-NOTE bench / { sub(/.*KTRACE-NOTE bench /, ""); notes = notes "- " $0 "\n"; next }
	/KTRACE-BENCH-UNSEEN / {
		sub(/.*KTRACE-BENCH-UNSEEN /, "")
		unseen[$2] = unseen[$2] (unseen[$2] == "" ? "" : ", ") $3 " / " $4
		next
	}
	/KTRACE-BENCH / {
		sub(/.*KTRACE-BENCH /, "")
		t = $2
		if (!(t in cnt)) order[++nt] = t
		c = ++cnt[t]
		v[t, "main", c] = $3; v[t, "pong", c] = $4
		v[t, "wmain", c] = $5; v[t, "wpong", c] = $6
		v[t, "wl", c] = $7; v[t, "rec", c] = $8; v[t, "dec", c] = $9
		v[t, "bytes", c] = $10; v[t, "wall", c] = $11
		if (t != "none" && $3 == "-") nocount[t] = 1
	}
	END {
		if (!("none" in cnt)) { print "no results in the VM log"; exit 1 }
		wl0 = med("none", "wl"); rec0 = med("none", "rec")
		print "| tool | pairs: main thread | pairs: other thread | the workload\047s own wakeups (main / other) | pairs − own, main (per round) | pairs − own, other | main vs latency | wl CPU s | wl added s | tool CPU s | total added s | bytes written | wall s |"
		print "|---|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|"
		printf "| (untraced workload) | - | - | %s / %s | - | - | - | %s | - | - | - | - | %s |\n", \
			v["none", "wmain", cnt["none"]], v["none", "wpong", cnt["none"]], s(wl0), s(med("none", "wall"))
		L = "latency"
		for (i = 1; i <= nt; i++) {
			t = order[i]
			if (t == "none") continue
			c = cnt[t]
			wl = med(t, "wl"); add[t] = wl - wl0
			tool[t] = med(t, "rec") - rec0 + med(t, "dec")
			tot[t] = add[t] + tool[t]
			# the main thread pairs minus the workload count,
			# against latency in the same round
			same = "-"
			if (t != L && (L in cnt)) {
				same = "same"; diff = ""
				for (r = 1; r <= c && r <= cnt[L]; r++) {
					dt = v[t, "main", r] == "-" ? "-" : v[t, "main", r] - v[t, "wmain", r]
					dl = v[L, "main", r] == "-" ? "-" : v[L, "main", r] - v[L, "wmain", r]
					if (dt == "-" || dl == "-") { same = "no count"; break }
					diff = diff (r > 1 ? ", " : "") sd(dt - dl)
					if (dt != dl) same = "DIFFERS"
				}
				if (same == "DIFFERS") same = same " (" diff ")"
			}
			printf "| %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label(t), \
				v[t, "main", c], v[t, "pong", c], v[t, "wmain", c], v[t, "wpong", c], \
				deltas(t, "main"), deltas(t, "pong"), same, \
				s(wl), s(add[t]), s(tool[t]), s(tot[t]), mb(med(t, "bytes")), s(med(t, "wall"))
		}
		print ""
		print "Pairs and the workload\047s own count of the last round; the differences per round. \"main vs latency\": the main thread\047s difference against ktrace latency\047s in the same round (the runs are separate, the workload counts each). CPU, bytes and wall: medians of the rounds."
		for (t in unseen) {
			print ""
			printf "%s: wakings whose switch-in is not in the file (the task switched out later with its waking unpaired), main / other, per round: %s.\n", label(t), unseen[t]
		}
		print ""
		if (!(L in cnt)) {
			print "No ktrace latency row: no ratios."
		} else {
			print "ktrace latency against the others (lower is better for latency):"
			print ""
			print "| vs | wl added | total added |"
			print "|---|---:|---:|"
			for (i = 1; i <= nt; i++) {
				t = order[i]
				if (t == "none" || t == L) continue
				printf "| %s | %s | %s |\n", label(t), ratio(add[L], add[t]), ratio(tot[L], tot[t])
			}
			print ""
			print "Targets (issue):"
			print ""
			target("wl added, latency / record", add[L], add["record"], 0.3)
			if ("perf" in cnt) target("wl added, latency / perf sched", add[L], add["perf"], 0.1)
			if ("perf-wakeup" in cnt) target("wl added, latency / perf sched +wakeup", add[L], add["perf-wakeup"], 0.1)
			target("total added, latency / record", tot[L], tot["record"], 0.3)
			if ("perf" in cnt) target("total added, latency / perf sched", tot[L], tot["perf"], 0.1)
			if ("perf-wakeup" in cnt) target("total added, latency / perf sched +wakeup", tot[L], tot["perf-wakeup"], 0.1)
		}
		if (notes != "") printf "\nWhat the tools said:\n\n%s", notes
		if (info != "") printf "\nRun:\n\n%s", info
		for (t in nocount) exit 2
	}'

}

mkdir -p "$OUTDIR"
table > "$MD.table"
trc=$?
{
	echo "# ktrace latency --wakeup vs record, perf sched in the $KERNEL VM (qemu TCG) — $(date -Is)"
	echo
	echo "ktrace $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- lib cmd 2>/dev/null || echo ' (lib/cmd modified)')${KTRACE_BIN:+ (binary: $KTRACE_BIN)}; workload bench_pingpong $N; $R round(s)."
	echo "Host load average at start: $load0; at end: $(cut -d' ' -f1-3 /proc/loadavg). VM run: $secs s."
	echo "TCG, one CPU; with -icount the guest's times count its instructions (see Run below). Times mean nothing alone; compare within the table. Method and the known differences in the pairs: bench/latency-vm.sh's header."
	echo
	cat "$MD.table"
} > "$MD"
rm -f "$MD.table"
echo
cat "$MD"
echo
echo "saved: $MD; VM log $LOG, run.sh output $RUNLOG"
[ "$vmrc" = 0 ] || { echo "bench/latency-vm.sh: the VM run failed (see above)" >&2; exit 1; }
[ "$trc" = 0 ] || { echo "bench/latency-vm.sh: a tool gave no count (or no results)" >&2; exit 1; }
exit 0
