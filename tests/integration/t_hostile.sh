# Issue 28's hostile files and limits: what a traced program maps or
# names (a debug file of many GB, a FIFO at a library's path, a device or
# proc file behind a symlink) never hangs ktrace; a signal ends a
# recording whatever a reader thread is doing.

HT=/tmp/ktrace-it-hostile	# scratch directory, made again by each test

# A stripped copy of busy in $HT whose .gnu_debuglink names $HT/b.dbg
# (left for the caller to fill).
stripped_busy() {
	rm -rf $HT && mkdir -p $HT || return 1
	objcopy --only-keep-debug $TARGETS/busy $HT/b.dbg &&
	objcopy --strip-all --add-gnu-debuglink=$HT/b.dbg $TARGETS/busy $HT/b ||
		fail "objcopy failed"
}

# Seconds (decimal) since T0 ($EPOCHREALTIME), to now or to T1.
since() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN { printf "%.2f", b - a }'; }

# probe add -x on a stripped binary whose debug link leads to a sparse
# 16 GB file, a device, a proc file or a tracefs pipe: a prompt refusal
# naming the file and why (it read the 16 GB for a CRC, forever on
# trace_pipe).
t_hostile_debug_file_refused() {
	stripped_busy || return 1
	local what target t0
	for what in sparse /dev/zero /proc/self/status /sys/kernel/tracing/trace_pipe; do
		rm -f $HT/b.dbg
		if [ $what = sparse ]; then
			truncate -s 16G $HT/b.dbg
		else
			ln -s $what $HT/b.dbg
		fi
		t0=$EPOCHREALTIME
		timeout -k 2 20 $KTRACE probe add --dry-run -x $HT/b 'inner_spin' >$HT/out 2>$HT/err
		expect_eq "probe add, debug file $what: exit" "$?" 1 || return 1
		[ "$(since $t0 | cut -d. -f1)" -lt 3 ] ||
			fail "probe add took $(since $t0) s with $what" || return 1
		case $what in
		sparse) target="is larger than its ELF headers account for" ;;
		*) target="is not a regular file" ;;
		esac
		expect_contains "refusal ($what)" "$(cat $HT/err)" \
			"its debug file '$HT/b.dbg' $target" || return 1
	done
	rm -rf $HT
}

# An ELF debug file whose headers claim 3 GB (sparse): read for its CRC
# by a reader thread for many seconds. SIGINT ends record -g within a
# second all the same (live and -o; it waited for the thread).
t_hostile_record_g_ends_on_sigint_while_reading() {
	stripped_busy || return 1
	python3 - $HT/b.dbg $((3 << 30)) <<'PY' || fail "cannot inflate b.dbg" || return 1
import struct, sys
path, size = sys.argv[1], int(sys.argv[2])
b = open(path, 'rb').read()
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum = struct.unpack_from('<HH', b, 0x3a)
tab = b[shoff:shoff + shentsize * shnum]
with open(path, 'wb') as f:	# the section headers moved to its end
    f.write(b[:0x28] + struct.pack('<Q', size - len(tab)) + b[0x30:shoff])
    f.seek(size - len(tab))
    f.write(tab)
PY
	local o pid t0 took st wd
	for o in "" "-o $HT/rec.dat"; do
		$KTRACE record -g $o -e cpu-clock -F 99 -- $HT/b 20000 >$HT/out 2>$HT/err &
		pid=$!
		sleep 1.5
		t0=$EPOCHREALTIME
		kill -INT $pid
		( sleep 30; kill -KILL $pid ) >/dev/null 2>&1 &
		wd=$!
		wait $pid
		st=$?
		took=$(since $t0 $EPOCHREALTIME)
		kill $wd 2>/dev/null
		expect_eq "record -g $o, SIGINT: exit" "$st" 130 || return 1
		awk -v t=$took 'BEGIN { exit t > 1.2 }' ||
			fail "record -g $o ended $took s after SIGINT" || return 1
	done
	$KTRACE report -i $HT/rec.dat >$HT/out 2>$HT/err ||
		fail "report: $(cat $HT/err)" || return 1
	grep -q "cpu-clock" $HT/out || fail "no samples in the recording" || return 1
	rm -rf $HT
}

# A program loads a library, then puts a FIFO at its path: record -g
# (live and -o) finishes, never opening the FIFO (it blocked in libdw's
# open for the unwinder), the library's frames unnamed.
t_hostile_fifo_at_mapped_library() {
	rm -rf $HT && mkdir -p $HT || return 1
	cat >$HT/fifo.py <<'PY'
import ctypes, os, shutil, sys, time
ctypes.CDLL("libz.so.1")
src = [l.split()[-1] for l in open("/proc/self/maps") if "libz.so" in l][0]
lib = sys.argv[1] + "/libzcopy.so"
shutil.copy(src, lib)
z = ctypes.CDLL(lib)
os.unlink(lib)
os.mkfifo(lib)
buf = b"x" * 65536
end = time.time() + 1.0
while time.time() < end:
    z.crc32(0, buf, len(buf))
PY
	local o
	for o in "" "-o $HT/rec.dat"; do
		rm -f $HT/libzcopy.so
		timeout -k 2 30 $KTRACE record -g $o -e cpu-clock -F 499 -- python3 $HT/fifo.py $HT >$HT/out 2>$HT/err
		expect_eq "record -g $o with a FIFO at a library's path: exit" "$?" 0 || return 1
		[ -p $HT/libzcopy.so ] || fail "no FIFO at the library's path" || return 1
	done
	$KTRACE report -i $HT/rec.dat >$HT/out 2>$HT/err ||
		fail "report: $(cat $HT/err)" || return 1
	expect_contains "the library's frames" "$(cat $HT/out)" "[unknown] ($HT/libzcopy.so)" || return 1
	rm -rf $HT
}

# record -o on a full disk (a 256 KB tmpfs) stops at the first failed
# write, not at -d's end: exit 1, the error said once, the file cut back
# to its last complete section, which report reads as a truncated
# recording.
t_hostile_full_disk_stops_the_recording() {
	rm -rf $HT && mkdir -p $HT/full || return 1
	mount -t tmpfs -o size=256k tmpfs $HT/full 2>$HT/err || {
		echo "SKIP: cannot mount a tmpfs: $(cat $HT/err)"; return 77; }
	local t0=$EPOCHREALTIME st took
	$KTRACE record -a -e sched:sched_switch -d 20 -o $HT/full/f.dat >$HT/out 2>$HT/err
	st=$?
	took=$(since $t0 $EPOCHREALTIME)
	cp $HT/full/f.dat $HT/f.dat 2>/dev/null
	umount $HT/full
	expect_eq "exit status" "$st" 1 || return 1
	awk -v t=$took 'BEGIN { exit t > 5 }' ||
		fail "record ran $took s on a full disk (-d 20)" || return 1
	expect_eq "errors said" "$(grep -c 'failed' $HT/err)" 1 || return 1
	expect_contains "error" "$(cat $HT/err)" "writing '$HT/full/f.dat' failed: No space left on device" || return 1
	$KTRACE report -i $HT/f.dat >$HT/out 2>$HT/err ||
		fail "report of the cut file: $(cat $HT/err)" || return 1
	expect_contains "report" "$(cat $HT/err)" "is truncated (its recording was cut off)" || return 1
	# whole sections (a 24-byte header: type, flags, size; the payload
	# padded to 8) after the 32-byte file header, up to its end
	python3 - $HT/f.dat <<'PY' || fail "the file ends inside a section" || return 1
import os, struct, sys
size = os.path.getsize(sys.argv[1])
f = open(sys.argv[1], 'rb')
at = 32
while at < size:
    f.seek(at)
    n = struct.unpack('<IIQ', f.read(16))[2]
    at += 24 + (n + 7) // 8 * 8
sys.exit(at != size)
PY
	[ "$(grep -c 'sched:sched_switch' $HT/out)" -gt 100 ] ||
		fail "records recovered: $(grep -c 'sched:sched_switch' $HT/out)" || return 1
	rm -rf $HT
}

# Under a memory limit (ulimit -v, a range of values, the rings' own
# included), record -g (live, -o), report and stat end by themselves:
# exit 0, or 1 with one line; never a signal (a SIGSEGV in libtraceevent's
# printing and in libdw's unwinder and line tables, where an allocation
# they do not check failed).
t_hostile_memory_limit_no_crash() {
	# AddressSanitizer reserves terabytes of shadow memory at start: no
	# ulimit -v leaves it room (the check-asan tier's ktrace)
	if nm -D "$KTRACE" 2>/dev/null | grep -q ' __asan_init'; then
		echo "SKIP: an AddressSanitizer build cannot start under ulimit -v"
		return 77
	fi
	rm -rf $HT && mkdir -p $HT || return 1
	$KTRACE record -g -a -d 1 -e sched:sched_switch -o $HT/ref.dat >/dev/null 2>$HT/err ||
		fail "record without a limit: $(cat $HT/err)" || return 1
	local v c st
	for v in $(seq 80000 30000 380000); do
		for c in "record -g -a -d 1 -e sched:sched_switch" \
			 "record -g -a -d 1 -e sched:sched_switch -o $HT/o.dat" \
			 "report -i $HT/ref.dat" "report -i $HT/ref.dat --json" \
			 "report -i $HT/ref.dat --sort comm,dso,sym" \
			 "stat -a -d 0.3 -e sched:sched_switch"; do
			(ulimit -c 0; ulimit -v $v; exec timeout -k 2 30 $KTRACE $c) >/dev/null 2>$HT/err
			st=$?
			[ $st = 0 ] || [ $st = 1 ] ||
				fail "ulimit -v $v, '$c': exit $st: $(head -c 300 $HT/err)" || return 1
			[ $st = 0 ] || [ "$(wc -l <$HT/err)" = 1 ] ||
				fail "ulimit -v $v, '$c': not one line: $(head -c 600 $HT/err)" || return 1
		done
	done
	rm -rf $HT
}
