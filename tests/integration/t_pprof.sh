# ktrace report --pprof read by pprof itself (Debian's golang-go: `go tool
# pprof`): the profile of a CPU-burning target gives, function by function,
# the sample counts of `report --sort sym` on the same recording.
# Skipped, with the reason, where go is absent.

BUSY=$TARGETS/busy
RT=/tmp/ktrace-it-pprof

# go tool pprof, offline, with a HOME of its own (it keeps a history there).
gopprof() {
	HOME=$RT.home PPROF_TMPDIR=$RT.home go tool pprof -symbolize=none "$@"
}

have_go() {
	command -v go >/dev/null && go tool -n pprof >/dev/null 2>&1
}

# "COUNT NAME" a line, sorted, from --sort sym's rows (not [unknown]).
sort_sym_counts() { # FILE
	awk '!/^#/ && NF >= 3 && $3 != "[unknown]" { $1 = ""; n = $2; $2 = "";
		sub(/^ +/, ""); print n, $0 }' "$1" | sort
}

# The same from pprof -top: flat samples by function.
pprof_top_counts() { # FILE
	awk 'f && NF >= 6 && $1 > 0 { n = $1; for (i = 1; i <= 5; i++) $i = "";
		sub(/^ +/, ""); print n, $0 } / flat  flat% /{ f = 1 }' "$1" | sort
}

t_pprof_top_equals_sort_sym() {
	have_go || { echo "SKIP: go (golang-go) is not installed"; return 77; }
	rm -rf $RT.home; mkdir -p $RT.home
	$KTRACE record -g -o $RT.dat -e cpu-clock -F 999 -- $BUSY 400 \
		>/dev/null 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat --sort sym >$RT.sym 2>$RT.err ||
		fail "report --sort: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.dat --pprof $RT.pb.gz 2>$RT.err ||
		fail "report --pprof: $(cat $RT.err)" || return 1
	[ "$(head -c 2 $RT.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
		fail "not gzip" || return 1
	gopprof -raw $RT.pb.gz >$RT.raw 2>$RT.err ||
		fail "pprof -raw: $(cat $RT.err)" || return 1
	expect_contains "sample types" "$(cat $RT.raw)" \
		"samples/count cpu/nanoseconds" || return 1
	grep -q 'inner_spin' $RT.raw || fail "no inner_spin in -raw" || return 1
	gopprof -top -sample_index=samples -nodecount=100000 \
		-nodefraction=0 -edgefraction=0 $RT.pb.gz >$RT.top 2>$RT.err ||
		fail "pprof -top: $(cat $RT.err)" || return 1
	sort_sym_counts $RT.sym >$RT.want
	pprof_top_counts $RT.top >$RT.got
	[ "$(wc -l <$RT.want)" -ge 2 ] || fail "too few rows: $(cat $RT.sym)" ||
		return 1
	diff $RT.want $RT.got >$RT.diff ||
		fail "pprof -top differs from --sort sym: $(head -10 $RT.diff)" ||
		return 1
	# the target's own function is the top one, in both
	top=$(sort -rn $RT.got | head -1)
	expect_eq "top function" "${top#* }" inner_spin || return 1
	# the cpu column: the periods, cpu-clock's nanoseconds
	gopprof -top -sample_index=cpu -unit=ns $RT.pb.gz >$RT.cpu 2>&1 ||
		fail "pprof -top cpu: $(cat $RT.cpu)" || return 1
	expect_contains "cpu column" "$(cat $RT.cpu)" "Type: cpu" || return 1
}

t_pprof_refuses_without_stacks() {
	$KTRACE record -o $RT.tp -e syscalls:sys_enter_getppid -- \
		$TARGETS/syscaller 10 >/dev/null 2>$RT.err ||
		fail "record: $(cat $RT.err)" || return 1
	rm -f $RT.none
	expect_status 1 $KTRACE report -i $RT.tp --pprof $RT.none || return 1
	expect_contains "refusal" "$ERR" "no stack or sampled address" || return 1
	[ ! -e $RT.none ] || fail "a file was written" || return 1
}

# A stripped copy of the target with its DWARF in a separate file (found
# by its .gnu_debuglink): the profile still has each function's file and
# line, and the binary's build-id.
t_pprof_stripped_debug_file() {
	have_go || { echo "SKIP: go (golang-go) is not installed"; return 77; }
	local d=$RT.strip
	rm -rf $RT.home $d; mkdir -p $RT.home $d
	cp $BUSY $d/busy && objcopy --only-keep-debug $d/busy $d/busy.debug &&
		strip --strip-all $d/busy &&
		objcopy --add-gnu-debuglink=$d/busy.debug $d/busy ||
		fail "cannot make the stripped copy" || return 1
	! readelf -S $d/busy | grep -q debug_line || fail "not stripped" || return 1
	$KTRACE record -g -o $d/rec.dat -e cpu-clock -F 999 -- $d/busy 300 \
		>/dev/null 2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $d/rec.dat --pprof $d/p.pb.gz 2>$RT.err ||
		fail "report --pprof: $(cat $RT.err)" || return 1
	gopprof -top -lines -sample_index=samples $d/p.pb.gz >$RT.top 2>$RT.err ||
		fail "pprof -top -lines: $(cat $RT.err)" || return 1
	# inner_spin's loop is lines 21-22 of busy.c
	grep -Eq ' inner_spin [^ ]*tests/targets/busy\.c:2[12]$' $RT.top ||
		fail "no file:line for inner_spin: $(head -12 $RT.top)" || return 1
	gopprof -raw $d/p.pb.gz >$RT.raw 2>$RT.err ||
		fail "pprof -raw: $(cat $RT.err)" || return 1
	grep -Eq 'M=[0-9]+ outer_spin [^ ]*busy\.c:[0-9]+ s=2[0-9]' $RT.raw ||
		fail "no start line for outer_spin: $(grep outer_spin $RT.raw | head -3)" ||
		return 1
	id=$(readelf -n $d/busy | sed -n 's/.*Build ID: //p')
	[ -n "$id" ] || fail "the target has no build-id" || return 1
	grep -q " $d/busy $id \[FN\]\[FL\]\[LN\]" $RT.raw ||
		fail "mapping without build-id $id: $(sed -n '/^Mappings/,$p' $RT.raw | head -5)" ||
		return 1
}

# A tracepoint recorded with -g is a profile of counts: cxxchain's 7
# getppid calls, each through ask_parent(), inlined into Widget::poke(int):
# one location holds both, the inlined function first with its own line,
# then poke(int) at the call's line, with its mangled name.
t_pprof_inlined_cxx_counts() {
	have_go || { echo "SKIP: go (golang-go) is not installed"; return 77; }
	local src=tests/targets/cxxchain.cc in call
	rm -rf $RT.home; mkdir -p $RT.home
	in=$(grep -n 'sink += syscall(SYS_getppid);' $src | cut -d: -f1)
	call=$(grep -n '^	ask_parent();' $src | cut -d: -f1)
	$KTRACE record -g -o $RT.cxx -e syscalls:sys_enter_getppid -- \
		$TARGETS/cxxchain 7 >/dev/null 2>$RT.err ||
		fail "record: $(cat $RT.err)" || return 1
	$KTRACE report -i $RT.cxx --pprof $RT.cxx.pb.gz 2>$RT.err ||
		fail "report --pprof: $(cat $RT.err)" || return 1
	gopprof -raw $RT.cxx.pb.gz >$RT.raw 2>$RT.err ||
		fail "pprof -raw: $(cat $RT.err)" || return 1
	expect_contains "sample types" "$(cat $RT.raw)" "samples/count[dflt]" ||
		return 1
	grep -A1 -E "M=[0-9]+ ask_parent [^ ]*cxxchain\.cc:$in " $RT.raw |
		grep -Eq "^ +ns::Widget::poke\(int\) [^ ]*cxxchain\.cc:$call s=[0-9]+\(_ZN2ns6Widget4pokeEi\)$" ||
		fail "no inlined ask_parent:$in in poke(int):$call: $(sed -n '/^Locations/,/^Mappings/p' $RT.raw | head -8)" ||
		return 1
	gopprof -top -sample_index=samples -nodefraction=0 $RT.cxx.pb.gz \
		>$RT.top 2>&1 || fail "pprof -top: $(cat $RT.top)" || return 1
	grep -qx 'File: cxxchain' $RT.top ||
		fail "the program is not the first mapping: $(head -1 $RT.top)" ||
		return 1
	grep -Eq '^ +0 +0% +[0-9.]+% +7 +[0-9.]+% +ns::Widget::poke\(double\)$' $RT.top ||
		fail "poke(double) not 7 cumulative: $(cat $RT.top)" || return 1
}
