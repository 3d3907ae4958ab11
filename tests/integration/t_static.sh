# The two links of ktrace (Makefile: STATIC): the default build shares its
# libraries, glibc included; the static one (make ktrace-static, what the
# VM tier boots) is one static PIE that needs no library and loads none, and
# lists, records tracepoints, resolves uprobe arguments from DWARF and
# demangles C++ frames as the shared build does.

RT=/tmp/ktrace-it-static

t_static_default_build_is_dynamic() {
	# make STATIC=1 check-integration tests a static ./ktrace on purpose
	[ "${KT_STATIC:-0}" = 1 ] && return 0
	readelf -lW $KTRACE >$RT.ph 2>&1 || fail "readelf -l $KTRACE: $(cat $RT.ph)" || return 1
	grep -q 'Requesting program interpreter' $RT.ph || fail "$KTRACE has no ELF interpreter (static?)" || return 1
	readelf -dW $KTRACE >$RT.dyn 2>&1 || return 1
	for l in libc.so.6 libtracefs.so.1 libtraceevent.so.1 libdw.so.1 libbpf.so.1; do
		grep -q "(NEEDED).*\[$l\]" $RT.dyn || fail "$KTRACE does not link $l shared" || return 1
	done
	# libktrace itself is linked in (as perf links libperf.a)
	grep -q 'libktrace' $RT.dyn && { fail "$KTRACE needs libktrace.so"; return 1; }
	return 0
}

t_static_binary_alone() {
	local k=$PWD/build/static/ktrace
	# the tree's objects are built already: this links only
	make -s ktrace-static WERROR=${KT_WERROR:-0} >$RT.log 2>&1 ||
		fail "make ktrace-static: $(grep -v dlopen $RT.log | tail -3)" || return 1
	readelf -hW $k | grep -q 'Type: *DYN' || fail "$k is not position independent" || return 1
	readelf -lW $k | grep -q 'Requesting program interpreter' && { fail "$k has an ELF interpreter"; return 1; }
	readelf -dW $k >$RT.dyn 2>&1
	grep -q '(NEEDED)' $RT.dyn && { fail "$k needs: $(grep NEEDED $RT.dyn)"; return 1; }
	grep -q '(FLAGS_1).*PIE' $RT.dyn || fail "$k: not a static PIE: $(cat $RT.dyn | head -5)" || return 1

	# the same listing as the default build
	expect_status 0 $k list || return 1
	expect_eq "list (static) = list (shared)" "$(echo "$OUT" | md5sum)" "$($KTRACE list | md5sum)" || return 1
	expect_status 0 $k record -e syscalls:sys_enter_getppid -- $TARGETS/syscaller 7 || return 1
	expect_eq "tracepoint records" "$(echo "$OUT" | grep -c 'syscaller .*syscalls:sys_enter_getppid:')" 7 || return 1
	# libdw linked in: an argument by name, from DWARF
	expect_status 0 $k record -e "uprobe:$TARGETS/probed:parse_line len" -- $TARGETS/probed 2 || return 1
	expect_contains "uprobe argument" "$OUT" "len=" || return 1
	# libstdc++'s demangler linked in, and no code mapped at run time (the
	# shared build maps its libraries, and dlopen()s libstdc++ here)
	strace -f -qq -e trace=execve,mmap -o $RT.trace \
		$k record -g -e syscalls:sys_enter_getppid -- $TARGETS/cxxchain 2 >$RT.out 2>$RT.err ||
		fail "record -g C++: $(cat $RT.err)" || return 1
	expect_eq "demangled frames" "$(grep -c 'ns::Widget::poke(int)' $RT.out)" 2 || return 1
	# not counting the traced program (the processes that exec after ktrace)
	expect_eq "code mapped by ktrace" "$(awk 'NR > 1 && $2 ~ /^execve/ { child[$1] = 1 }
		/PROT_EXEC/ && !($1 in child)' $RT.trace)" "" || return 1
	rm -f $RT.*
}
