#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/hist-vm.sh: counting in the kernel (`ktrace hist`) against copying
# every event to user space and counting there, in the Debian 6.12 x86-64
# VM of tests/vm (the host kernel has no hist triggers). qemu runs under
# TCG: absolute times mean nothing, compare within the run (ratios).
#
# Question: the system calls of `bench_sysmix N M` (bench/bench_sysmix.c:
# exactly N getppid and M 1-byte reads of /dev/zero, syscall(2), static),
# counted by name. N = 1e6, M = 1e5. Answered by, in turn, round after
# round (tests/vm/x_bench_hist.sh, in the VM):
#   ktrace hist    ktrace hist -e raw_syscalls:sys_enter -k id.syscall -- W
#                  (a hist trigger counts; the table is read once at the end)
#   ktrace record  ktrace record -e raw_syscalls:sys_enter -o F -- W, then
#                  ktrace report -i F | awk (counts the "NR id" of each line;
#                  report's --sort has no field key). What a user of ktrace
#                  without hist would do, like perf record + perf report.
#   ktrace live    ktrace record -e raw_syscalls:sys_enter -- W | awk (the
#                  same counter on the live text)
#   perf           perf record -e raw_syscalls:sys_enter -o F -- W, then
#                  perf report -i F --stdio -n --sort id (a tracepoint field
#                  as sort key: perf counts)
#   bpftrace       bpftrace -e 'tracepoint:raw_syscalls:sys_enter
#                  /pid == cpid/ { @[args->id] = count(); }' -c W
# All with default settings. The tools that count by number are read
# with the x86-64 numbers (read 0, getppid 110).
#
# Measured (each phase under bench_ru, the workload's own getrusage at its
# exit in $BENCH_RUSAGE; medians over the rounds; the untraced workload runs
# at the start and at the end of each round):
#   counts      getppid and read as the tool reports them; anything but N
#               and M exactly is marked MISMATCH
#   wl CPU      the workload's own user+sys CPU, in-kernel tracing work done
#               in its context included (the trigger, the ring copy, BPF)
#   wl added    wl CPU - wl CPU of the untraced workload
#   tool CPU    user+sys of the tool and its children (awk, sh) in both
#               phases, minus the workload's own CPU, minus the untraced
#               run's remainder (bench_ru's fork/exec/exit of the workload)
#   total added wl added + tool CPU: what the answer cost
#   bytes       what the tool wrote: data files, text piped to the counter,
#               its output
# Targets (issue): ktrace hist's added CPU <= 0.3x ktrace record's and
# <= 0.1x perf's; printed as met or not, for wl added (the brief's "CPU
# added to the workload") and for total added.
#
# Needs qemu (scripts/deps.sh vm), perf and bpftrace (scripts/deps.sh bench:
# Debian's /usr/bin/perf and /usr/bin/bpftrace go into this run's initramfs
# with their libraries, KTRACE_VM_EXTRA_BINS; without bpftrace its row says
# so). Builds the static ktrace (make ktrace-static) and the workload.
#
# Environment: BENCH_HIST_N, BENCH_HIST_M (default 1000000, 100000),
# BENCH_HIST_ROUNDS (default 3; one round is ~6 min of wall clock here),
# BENCH_HIST_KERNEL (default 6.12). Output: the markdown table on stdout
# and in bench/out/hist-vm.md; the VM's log in build/vm/KERNEL.log. Exit
# status 1 when the VM run failed or ktrace's counts were not exact.
# --from-log: no build, no VM: the table again from the last run's log
# (BENCH_HIST_KERNEL's).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
N=${BENCH_HIST_N:-1000000}
M=${BENCH_HIST_M:-100000}
R=${BENCH_HIST_ROUNDS:-3}
KERNEL=${BENCH_HIST_KERNEL:-6.12}
OUTDIR=$ROOT/bench/out
MD=$OUTDIR/hist-vm.md
BIN=$ROOT/build/bench
die() { echo "bench/hist-vm.sh: $*" >&2; exit 1; }
FROM_LOG=0
for a in "$@"; do
	case $a in
	--from-log) FROM_LOG=1 ;;
	-h|--help) sed -n '4,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$a' (--from-log, --help)" ;;
	esac
done
RUNLOG=$ROOT/build/vm/hist-bench.run.log
LOG=$ROOT/build/vm/$KERNEL.log
if [ $FROM_LOG = 1 ]; then
	# the table again from the last run's log
	load0=- secs=- vmrc=0
	[ -f "$LOG" ] || die "no VM log $LOG"
else

echo "building the static ktrace and the workload"
make -s -j2 ktrace-static >/dev/null || die "make ktrace-static failed"
mkdir -p "$BIN" "$OUTDIR"
for p in bench_sysmix bench_ru; do
	gcc -O1 -g -Wall -static -o "$BIN/$p" "bench/$p.c" || die "cannot build bench/$p.c"
done

# perf and bpftrace as /usr/bin/perf and /usr/bin/bpftrace in the VM: the
# real binaries (a Debian perf may be a script running perf_VERSION).
extra="$BIN/bench_sysmix $BIN/bench_ru"
real_bin() {
	local b
	b=$(command -v "$1") || return 1
	if ! file -L "$b" | grep -q ELF; then
		b=$(ls -v /usr/bin/"$1"_[0-9]* 2>/dev/null | tail -n 1)
		[ -n "$b" ] || return 1
	fi
	cp -L "$b" "$BIN/$1"
}
real_bin perf && extra="$extra $BIN/perf" ||
	echo "bench/hist-vm.sh: no perf (scripts/deps.sh bench): no perf row" >&2
real_bin bpftrace && extra="$extra $BIN/bpftrace" ||
	echo "bench/hist-vm.sh: no bpftrace (scripts/deps.sh bench): no bpftrace row" >&2

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
echo "booting $KERNEL: N=$N M=$M, $R round(s)"
mkdir -p "$ROOT/build/vm"
KTRACE_VM_KERNELS=$KERNEL KTRACE_VM_JOBS=1 KTRACE_VM_MEM=2048 \
	KTRACE_VM_TESTS=x_bench_hist.sh KTRACE_VM_EXTRA_BINS="$extra" \
	KTRACE_VM_APPEND="ktrace.bench_n=$N ktrace.bench_m=$M ktrace.bench_rounds=$R" \
	KTRACE_VM_TEST_TIMEOUT=$((R * 700 + 120)) KTRACE_VM_TIMEOUT=$((R * 700 + 400)) \
	tests/vm/run.sh > "$RUNLOG" 2>&1
vmrc=$?
secs=$(($(date +%s) - t0))
grep -E '^(vm:|PASS|FAIL|[0-9]+ passed)' "$RUNLOG" | sed 's/^/  /'
[ -f "$LOG" ] || die "no VM log $LOG"
fi

# N, M and the rounds as the VM ran them
info=$(tr -d '\r' < "$LOG" | sed -n 's/.*KTRACE-BENCH-INFO \(N=.*\)/\1/p' | head -n 1)
for w in $info; do
	case $w in
	N=*) N=${w#N=} ;;
	M=*) M=${w#M=} ;;
	rounds=*) R=${w#rounds=} ;;
	esac
done

# The VM's lines -> the table. KTRACE-BENCH ROUND TOOL GETPPID READ WL REC
# DEC BYTES WALL (µs, bytes; see tests/vm/x_bench_hist.sh).
table() {
	tr -d '\r' < "$LOG" | awk -v n="$N" -v m="$M" '
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
		if (t == "ktrace-hist") return "ktrace hist"
		if (t == "ktrace-record") return "ktrace record -o + report \\| awk"
		if (t == "ktrace-live") return "ktrace record \\| awk (live)"
		if (t == "perf") return "perf record + report --sort id"
		if (t == "bpftrace") return "bpftrace count()"
		return t
	}
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	function target(name, a, b, lim,   r) {
		if (!(b > 0)) return
		r = a / b
		printf "- %s: %.3f× (target ≤ %s): %s\n", name, r, lim, r <= lim ? "met" : "NOT met"
	}
	/KTRACE-BENCH-INFO / { sub(/.*KTRACE-BENCH-INFO /, ""); info = info "- " $0 "\n"; next }
	/KTRACE-NOTE bench / { sub(/.*KTRACE-NOTE bench /, ""); notes = notes "- " $0 "\n"; next }
	/KTRACE-BENCH / {
		sub(/.*KTRACE-BENCH /, "")
		t = $2
		if (!(t in cnt)) order[++nt] = t
		c = ++cnt[t]
		v[t, "wl", c] = $5; v[t, "rec", c] = $6; v[t, "dec", c] = $7
		v[t, "bytes", c] = $8; v[t, "wall", c] = $9
		# the counts shown: the first round that was wrong, else the last
		if (t != "none" && ($3 != n || $4 != m)) {
			if (t in bad) {
				bad[t] = bad[t] ", " $1
			} else {
				gp[t] = $3; rd[t] = $4; bad[t] = $1
			}
		} else if (!(t in bad)) {
			gp[t] = $3; rd[t] = $4
		}
	}
	END {
		if (!("none" in cnt)) { print "no results in the VM log"; exit 1 }
		wl0 = med("none", "wl"); rec0 = med("none", "rec")
		print "| tool | getppid | read | counts | wl CPU s | wl added s | tool CPU s | total added s | bytes written | wall s |"
		print "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
		printf "| (untraced workload) | - | - | - | %s | - | - | - | - | %s |\n", s(wl0), s(med("none", "wall"))
		for (i = 1; i <= nt; i++) {
			t = order[i]
			if (t == "none") continue
			wl = med(t, "wl"); add[t] = wl - wl0
			tool[t] = med(t, "rec") - rec0 + med(t, "dec")
			tot[t] = add[t] + tool[t]
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label(t), gp[t], rd[t], \
				(t in bad) ? "MISMATCH (rounds: " bad[t] ")" : "exact", s(wl), s(add[t]), s(tool[t]), \
				s(tot[t]), mb(med(t, "bytes")), s(med(t, "wall"))
		}
		h = "ktrace-hist"
		print ""
		if (!(h in cnt)) {
			print "No ktrace hist row: no ratios."
		} else {
			print "ktrace hist against the others (lower is better for hist):"
			print ""
			print "| vs | wl added | total added |"
			print "|---|---:|---:|"
			for (i = 1; i <= nt; i++) {
				t = order[i]
				if (t == "none" || t == h) continue
				printf "| %s | %s× | %s× |\n", label(t), ratio(add[h], add[t]), ratio(tot[h], tot[t])
			}
			print ""
			print "Targets (issue):"
			print ""
			target("wl added, hist / record (file)", add[h], add["ktrace-record"], 0.3)
			target("wl added, hist / perf", add[h], add["perf"], 0.1)
			target("total added, hist / record (file)", tot[h], tot["ktrace-record"], 0.3)
			target("total added, hist / perf", tot[h], tot["perf"], 0.1)
		}
		if (notes != "") printf "\nWhat the tools said:\n\n%s", notes
		if (info != "") printf "\nRun:\n\n%s", info
		for (t in bad) if (t == "ktrace-hist" || t == "ktrace-record") exit 2
	}'
}

mkdir -p "$OUTDIR"
table > "$MD.table"
trc=$?
{
	echo "# ktrace hist vs record, perf, bpftrace in the $KERNEL VM (qemu TCG) — $(date -Is)"
	echo
	echo "ktrace $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- lib cmd 2>/dev/null || echo ' (lib/cmd modified)')${KTRACE_BIN:+ (binary: $KTRACE_BIN)}; workload bench_sysmix $N $M; median of $R round(s)."
	echo "Host load average at start: $load0; at end: $(cut -d' ' -f1-3 /proc/loadavg). VM run: $secs s."
	echo "TCG: times are the guest's and mean nothing alone; compare within the table. Method: bench/hist-vm.sh's header."
	echo
	cat "$MD.table"
} > "$MD"
rm -f "$MD.table"
echo
cat "$MD"
echo
echo "saved: $MD; VM log $LOG, run.sh output $RUNLOG"
[ "$vmrc" = 0 ] || { echo "bench/hist-vm.sh: the VM run failed (see above)" >&2; exit 1; }
[ "$trc" = 0 ] || { echo "bench/hist-vm.sh: ktrace's counts were not exact (or no results)" >&2; exit 1; }
exit 0
