#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel VM test tier: boot Debian kernels under qemu (TCG, no KVM) with an
# initramfs holding ktrace and tests/vm/t_*.sh, and count the results.
#
#   tests/vm/run.sh            (or: make check-vm)
#
# Environment:
#   KTRACE_VM_KERNELS   kernels to boot, default "6.1 6.12"
#   KTRACE_VM_TIMEOUT   seconds per kernel (whole boot + tests), default 480
#   KTRACE_VM_TEST_TIMEOUT  seconds per test script inside the VM, default 90
#   KTRACE_VM_TESTS     glob of the test scripts to run, default "t_*.sh"
#   KTRACE_VM_JOBS      kernels booted at once, default 2
#   KTRACE_VM_MEM       memory of each VM in MiB, default 1024
#   KTRACE_VM_APPEND    more words for the kernel command line (what a
#                       script reads from /proc/cmdline, e.g. ktrace.bench_n=)
#   KTRACE_VM_QEMU_OPTS more qemu options, split at blanks (e.g. a
#                       benchmark's "-icount shift=0": guest time counted
#                       in instructions, not taken from the host's clock)
#   KTRACE_VM_CACHE     kernel cache (see fetch-kernels.sh)
#   KTRACE_BIN          ktrace binary, default build/static/ktrace (make
#                       ktrace-static: one file, no libraries to copy)
#
# Output: one line per result, "PASS <kernel> <test>" or
# "FAIL <kernel> <test>: reason", then "N passed, N failed".  Serial console
# logs are in build/vm/<kernel>.log.  A panic, a timeout or a VM that does
# not reach KTRACE-VM-DONE is a failure, never a skip.  Exit status 1 when
# anything failed.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/vm
kernels=${KTRACE_VM_KERNELS:-6.1 6.12}
vm_timeout=${KTRACE_VM_TIMEOUT:-480}
test_timeout=${KTRACE_VM_TEST_TIMEOUT:-90}
# arm64 under TCG runs about three times slower than x86-64 here
arm64_slowdown=3
tests_glob=${KTRACE_VM_TESTS:-t_*.sh}
jobs=${KTRACE_VM_JOBS:-2}
mem=${KTRACE_VM_MEM:-1024}
read -r -a qemu_opts <<< "${KTRACE_VM_QEMU_OPTS:-}"
ktrace=${KTRACE_BIN:-$top/build/static/ktrace}
# arm64 kernels ("arm64-6.1"...) boot with the cross-built ktrace and
# targets (make arm64: build/arm64/).
ktrace_arm64=${KTRACE_BIN_ARM64:-$top/build/arm64/ktrace}
targets_arm64=${KTRACE_TARGETS_ARM64:-$top/build/arm64/tests/targets}
karch() { case $1 in arm64-*) echo arm64 ;; *) echo amd64 ;; esac; }

t0=$(date +%s.%N)
npass=0
nfail=0

say() { echo "vm: $*"; }
record_pass() { echo "PASS $1 $2"; npass=$((npass + 1)); }
record_fail() { echo "FAIL $1 $2: $3"; nfail=$((nfail + 1)); }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
finish() {
	say "total time $(elapsed "$t0") s"
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

mkdir -p "$out"
rm -f "$out"/*.pid

# An interrupted run (^C, make check stopped) stops its guests: timeout
# runs qemu in a process group of its own, which the signal does not reach.
stop_guests() {
	local f
	for f in "$out"/*.pid; do
		[ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
}
trap 'stop_guests; say "interrupted"; exit 130' INT TERM

# Tools: qemu (the package is installed when missing, as CI machines are new).
if ! command -v qemu-system-x86_64 >/dev/null; then
	say "installing qemu-system-x86"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get install -y -qq --no-install-recommends qemu-system-x86 ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends qemu-system-x86; }; } \
		> "$out/apt.log" 2>&1
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	record_fail all setup "qemu-system-x86_64 is missing and could not be installed (see $out/apt.log)"
	finish
fi
case " $kernels " in
*" arm64-"*)
	command -v qemu-system-aarch64 >/dev/null || {
		record_fail all setup "qemu-system-aarch64 is missing (package qemu-system-arm; scripts/deps.sh vm)"
		finish
	} ;;
esac

# Kernels.
declare -A vmlinuz=()
for k in $kernels; do
	if v=$("$here/fetch-kernels.sh" "$k" 2> "$out/fetch-$k.log"); then
		vmlinuz[$k]=$v
		say "kernel $k: $(sed -n 's/^Package: //p; s/^Version: //p' "$(dirname "$(dirname "$v")")/PACKAGE" | tr '\n' ' ')"
	else
		record_fail "$k" setup "could not fetch the kernel: $(tail -n 3 "$out/fetch-$k.log" | tr '\n' ' ')"
	fi
done

# Initramfs, one per architecture (the same for every kernel of it), and
# the kernel's own modules of the cache (kmod/*.ko, fetch-kernels.sh) as
# /kmod/*.ko appended to it per kernel (the kernel unpacks every archive
# of a concatenation; it refuses modules of another build).
declare -A initrd=()
for a in amd64 arm64; do
	need=0
	for k in $kernels; do [ "$(karch "$k")" = $a ] && need=1; done
	[ $need = 1 ] || continue
	if [ $a = arm64 ]; then kt=$ktrace_arm64; else kt=$ktrace; fi
	if ! [ -x "$kt" ]; then
		say "no $a ktrace binary at $kt: the ktrace tests will fail"
		kt=-
	fi
	initrd[$a]=$out/initramfs-$a.cpio.gz
	if ! KTRACE_VM_ARCH=$a \
		KTRACE_VM_TARGETS=$([ $a = arm64 ] && echo "$targets_arm64" || echo "$top/build/tests/targets") \
		"$here/mkinitramfs.sh" "$kt" "${initrd[$a]}" 2> "$out/mkinitramfs-$a.log"; then
		record_fail all setup "mkinitramfs ($a) failed: $(tail -n 3 "$out/mkinitramfs-$a.log" | tr '\n' ' ')"
		finish
	fi
	say "$(tail -n 1 "$out/mkinitramfs-$a.log" | sed 's/^mkinitramfs: //')"
done

declare -A kinitrd=()
for k in "${!vmlinuz[@]}"; do
	a=$(karch "$k")
	kinitrd[$k]=${initrd[$a]}
	kmod=$(dirname "$(dirname "${vmlinuz[$k]}")")/kmod
	ls "$kmod"/*.ko > /dev/null 2>&1 || continue
	kstage=$(mktemp -d "${TMPDIR:-/tmp}/ktrace-kmod.XXXXXX")
	mkdir "$kstage/kmod"
	cp "$kmod"/*.ko "$kstage/kmod/"
	if (cd "$kstage" && find kmod | LC_ALL=C sort |
	    if command -v cpio > /dev/null; then
		cpio --quiet -o -H newc --owner=0:0
	    else
		busybox cpio -o -H newc
	    fi | gzip -6) > "$out/kmod-$k.cpio.gz" &&
	   cat "${initrd[$a]}" "$out/kmod-$k.cpio.gz" > "$out/initramfs-$k.cpio.gz"; then
		kinitrd[$k]=$out/initramfs-$k.cpio.gz
	else
		say "$k: could not add its modules to the initramfs"
	fi
	rm -rf "$kstage"
done

append="panic=-1 loglevel=5 rdinit=/init ktrace.tests=$tests_glob${KTRACE_VM_APPEND:+ $KTRACE_VM_APPEND}"

# boot KERNEL: run one VM, serial console to $out/KERNEL.log.
boot() {
	local k=$1 log=$out/$1.log start rc pid up
	rm -f "$log"
	start=$(date +%s.%N)
	local a qemu console slow=1 cpu=max
	a=$(karch "$k")
	if [ $a = arm64 ]; then
		qemu=(qemu-system-aarch64 -M virt)
		console=ttyAMA0
		slow=$arm64_slowdown
		# Debian's arm64 kernels sign every return address (pointer
		# authentication): the architected algorithm (QARMA) costs
		# TCG most of its time; qemu's own one is a quarter of the
		# CPU time (t_24 and t_26 on 6.1: 29 s instead of 109 s),
		# and the kernel runs the same code (PAC instructions alike)
		cpu=max,pauth-impdef=on
	else
		qemu=(qemu-system-x86_64)
		console=ttyS0,115200
	fi
	# timeout's pid in $out/KERNEL.pid for stop_guests; the CPU time
	# qemu used (its user and system time, the second line of "times") in
	# $out/KERNEL.cpu: the guests share the host's CPUs
	{
		timeout --kill-after=10 "$((vm_timeout * slow))" \
			"${qemu[@]}" -accel tcg -nographic -no-reboot \
			-m "$mem" -smp 1 -cpu "$cpu" \
			-kernel "${vmlinuz[$k]}" -initrd "${kinitrd[$k]}" \
			-append "console=$console $append ktrace.timeout=$((test_timeout * slow))" \
			-serial "file:$log" -monitor none -nic none "${qemu_opts[@]}" \
			< /dev/null > "$out/$k.qemu.log" 2>&1 &
		echo $! > "$out/$k.pid"
		wait $!
		rc=$?
		times > "$out/$k.cpu"	# (not in a pipe: a subshell has no children)
		rm -f "$out/$k.pid"
		exit $rc
	} &
	pid=$!
	# Wall-clock time until /init runs (guest clocks lag under TCG).
	up='?'
	while kill -0 $pid 2>/dev/null; do
		if grep -q KTRACE-VM-BOOTED "$log" 2>/dev/null; then
			up=$(elapsed "$start")
			break
		fi
		sleep 0.2
	done
	wait $pid
	rc=$?
	echo "$rc $(elapsed "$start") $up" > "$out/$k.status"
}

# Boot the kernels, $jobs at a time.
booted=()
running=0
for k in $kernels; do
	[ -n "${vmlinuz[$k]:-}" ] || continue
	booted+=("$k")
	say "booting $k"
	boot "$k" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

# Results.
show_tail() {
	tail -n "${2:-30}" "$1" | tr -d '\r' | sed 's/^/    | /'
}
for k in "${booted[@]}"; do
	log=$out/$k.log
	read -r rc secs up < "$out/$k.status"
	[ -f "$log" ] || touch "$log"
	# CPU: what qemu used (user + system); idle: the guest's idle time
	# (tests sleeping), which costs the host nothing
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
		printf "%.0f", t }' "$out/$k.cpu" 2>/dev/null)
	idle=$(tr -d '\r' < "$log" |
		sed -n 's/.*KTRACE-VM-DONE .*idle=\([0-9.]*\).*/\1/p' | head -n 1)
	say "$k: /init started after $up s, qemu exited ($rc) after $secs s (wall clock), ${cpu:-?} s of CPU, guest idle ${idle:-?} s"
	# the slowest test scripts (guest seconds: KTRACE-SCRIPT-END's time=)
	say "$k: slowest: $(tr -d '\r' < "$log" |
		sed -n 's/.*KTRACE-SCRIPT-END \([^ ]*\) rc=[0-9]* time=\([0-9.]*\).*/\2 \1/p' |
		sort -rn | head -n 6 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"

	# Every KTRACE-TEST line, wherever it is (kernel messages may share
	# the console line), with the "    | ..." detail lines after a FAIL.
	nres=0
	while IFS= read -r line; do
		case $line in
		PASS\ *|FAIL\ *) nres=$((nres + 1)) ;;
		esac
		case $line in
		PASS\ *) record_pass "$k" "${line#PASS }" ;;
		FAIL\ *)
			rest=${line#FAIL }
			record_fail "$k" "${rest%%: *}" "${rest#*: }" ;;
		DETAIL\ *) echo "      ${line#DETAIL }" ;;
		esac
	done < <(tr -d '\r' < "$log" | awk '
		/KTRACE-TEST (PASS|FAIL) / {
			match($0, /KTRACE-TEST (PASS|FAIL) /)
			$0 = substr($0, RSTART + 12); print
			detail = ($1 == "FAIL"); next
		}
		detail && /^    \|/ { print "DETAIL " $0; next }
		{ detail = 0 }')

	# What the tests counted (KTRACE-NOTE lines: the formats checked, the
	# chaos script's trials, leftovers and records recovered), shown with
	# the results.
	tr -d '\r' < "$log" | sed -n 's/.*KTRACE-NOTE \(.*\)/\1/p' |
		while IFS= read -r line; do say "$k: $line"; done

	# JSON the tests printed ("KTRACE-JSON NAME TEXT"), parsed here: the
	# VM has no JSON parser. A NAME the test printed counts as a result.
	while IFS= read -r line; do
		name=${line%% *}
		if printf '%s' "${line#* }" |
			python3 -c 'import json, sys; json.loads(sys.stdin.read())' 2>/dev/null; then
			record_pass "$k" "$name"
		else
			record_fail "$k" "$name" "not JSON: $(printf '%s' "${line#* }" | cut -c1-300)"
		fi
	done < <(tr -d '\r' < "$log" | sed -n 's/.*KTRACE-JSON \(.*\)/\1/p')

	# The parser above must have seen every result line.
	want=$(tr -d '\r' < "$log" | grep -cE 'KTRACE-TEST (PASS|FAIL) ')
	[ "$nres" = "$want" ] ||
		record_fail "$k" vm-parse "parsed $nres results, the log has $want"

	# Every test script must have finished.
	for t in "$here"/$tests_glob; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		# grep -q would stop reading early and, under pipefail, tr's
		# SIGPIPE would fail the pipeline although the line is there
		[ "$(tr -d '\r' < "$log" | grep -c "KTRACE-SCRIPT-END $name ")" -gt 0 ] ||
			record_fail "$k" "$name" "did not finish (VM died or hung while it ran)"
	done

	why=
	if grep -qE 'Kernel panic|end Kernel panic' "$log"; then
		why="kernel panic"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="timed out (KTRACE_VM_TIMEOUT ${vm_timeout}s, three times that on arm64)"
	elif ! grep -q 'KTRACE-VM-DONE' "$log"; then
		why="VM stopped (qemu exit $rc) without KTRACE-VM-DONE"
	elif [ "$rc" != 0 ]; then
		why="qemu exited $rc"
	fi
	if [ -n "$why" ]; then
		record_fail "$k" vm-run "$why; log $log, tail:"
		show_tail "$log" 50
		[ -s "$out/$k.qemu.log" ] && show_tail "$out/$k.qemu.log" 10
	else
		record_pass "$k" vm-run
	fi
done

finish
