# ktrace probe add|list|del on the real kernel: uprobes and uretprobes on
# build/tests/targets/probed, libc and bash, with the values they record;
# errors (kernel error_log text and caret, existing events, missing debug
# info, no kprobes on this kernel) leave tracefs byte-identical; the uprobe
# sets of probes/ create, record and delete cleanly.
#
# Every test uses its own group (kt_it_probe*) and instance and removes
# them itself before returning (kt_probe_cleanup), whatever happened.

PROBED=$TARGETS/probed

# kt_probe_cleanup GROUP [INSTANCE]: disable and remove what a test made.
kt_probe_cleanup() {
	[ -n "$2" ] && { $KTRACE reset -B "$2" >/dev/null 2>&1
			 [ -d $TFS/instances/$2 ] && rmdir $TFS/instances/$2; }
	[ -d $TFS/events/$1 ] && echo 0 > $TFS/events/$1/enable 2>/dev/null
	$KTRACE probe del "$1:*" >/dev/null 2>&1
	for e in $(sed -n "s|^[pr][0-9]*:$1/\([^ ]*\) .*|\1|p" $TFS/dynamic_events); do
		echo "-:$1/$e" >> $TFS/dynamic_events
	done
	return 0
}

# kt_events PREFIX: "group/event " of the dynamic events whose group starts
# with PREFIX, sorted, on one line.
kt_events() {
	sed -n "s|^[pr][0-9]*:\($1[a-z_0-9]*/[a-z_0-9]*\) .*|\1|p" $TFS/dynamic_events |
		LC_ALL=C sort | tr '\n' ' '
}

# kt_trace INSTANCE: the instance's trace without the header.
kt_trace() {
	grep -v '^#' $TFS/instances/$1/trace
}

t_probe_uprobe_args_by_name_values() {
	local g=kt_it_probe i=kt_it_probe_i r=0
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'parse_line line len' &&
	expect_contains "add output" "$OUT" "Added new event:" &&
	expect_contains "dynamic_events" "$(cat $TFS/dynamic_events)" \
		"p:$g/parse_line $(realpath $PROBED):0x" &&
	expect_contains "uprobe_events" "$(cat $TFS/uprobe_events)" "line=+0(%di):string len=%si:s32" &&
	$KTRACE enable -B $i $g:parse_line >/dev/null &&
	out=$($PROBED 5) &&
	expect_eq "probed" "$out" "probed hot=5 sum=25 fields=6 moved=-25" &&
	$KTRACE disable -B $i $g:parse_line >/dev/null &&
	tr=$(kt_trace $i) &&
	expect_eq "recorded lines" "$(echo "$tr" | sed -n 's/.* parse_line: ([0-9a-fx]*) //p')" \
		"$(printf 'line="a,b,c" len=5\nline="one" len=3\nline="x,y" len=3')" &&
	expect_contains "comm" "$tr" "probed-" || r=1
	$KTRACE reset -B $i >/dev/null
	expect_status 0 $KTRACE probe del $g:parse_line || r=1
	expect_eq "deleted" "$(grep -c "$g/" $TFS/dynamic_events)" 0 || r=1
	kt_probe_cleanup $g $i
	return $r
}

t_probe_uretprobe_retval_and_fields() {
	local g=kt_it_probe_ret i=kt_it_probe_ret_i r=0
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'hot%return $retval' \
		'account acct->balance delta' &&
	expect_contains "kinds" "$($KTRACE probe list "$g:*")" "uretprobe  $g:hot__return" &&
	$KTRACE enable -B $i "$g:*" >/dev/null &&
	$PROBED 4 >/dev/null &&
	$KTRACE disable -B $i "$g:*" >/dev/null &&
	tr=$(kt_trace $i) &&
	expect_eq "hot returns" "$(echo "$tr" | sed -n 's/.* hot__return: (.*) //p' | tr '\n' ' ')" \
		"retval=1 retval=3 retval=5 retval=7 " &&
	expect_eq "account" "$(echo "$tr" | sed -n 's/.* account: ([0-9a-fx]*) //p' | tr '\n' ' ')" \
		"acct_balance=100 delta=25 acct_balance=50 delta=-70 " || r=1
	kt_probe_cleanup $g $i
	return $r
}

t_probe_libc_malloc_raw_register() {
	local g=kt_it_probe_libc i=kt_it_probe_libc_i r=0
	expect_status 0 $KTRACE probe add -g $g -x libc 'malloc size=%di:u64' &&
	expect_contains "libc path" "$(cat $TFS/uprobe_events)" "libc.so.6:0x" &&
	$KTRACE enable -B $i "$g:malloc" >/dev/null &&
	$KTRACE filter -B $i "$g:malloc" 'comm == "probed"' >/dev/null &&
	$PROBED 1 >/dev/null &&
	$KTRACE disable -B $i "$g:malloc" >/dev/null &&
	tr=$(kt_trace $i) &&
	# stdout's buffer, at least: a malloc of a few KiB from probed.
	expect_contains "malloc seen" "$tr" "probed-" &&
	echo "$tr" | grep -qE ' malloc: \(0x[0-9a-f]+\) size=[0-9]{3,}$' ||
		fail "no malloc with a size: $tr" || r=1
	kt_probe_cleanup $g $i
	return $r
}

t_probe_bash_no_debuginfo() {
	local g=kt_it_probe_bash r=0 before
	# Symbol only: ELF is enough.
	expect_status 0 $KTRACE probe add -g $g 'bash:readline' &&
	expect_contains "bash probe" "$(cat $TFS/uprobe_events)" "p:$g/readline /usr/bin/bash:0x" &&
	expect_status 0 $KTRACE probe del "$g:readline" || r=1
	# By-name argument: needs DWARF, which bash does not ship.
	before=$(tfs_snapshot; cat $TFS/uprobe_events)
	expect_status 1 $KTRACE probe add -g $g 'bash:readline prompt' &&
	expect_contains "no dwarf" "$ERR" "has no DWARF debug info" &&
	expect_contains "what to install" "$ERR" "install its -dbgsym package" &&
	expect_contains "caret" "$ERR" "$(printf '  bash:readline prompt\n                ^')" &&
	expect_eq "state" "$(tfs_snapshot; cat $TFS/uprobe_events)" "$before" || r=1
	kt_probe_cleanup $g
	return $r
}

t_probe_existing_event_and_force() {
	local g=kt_it_probe_force i=kt_it_probe_force_i r=0 before
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'ev=parse_line len' || { kt_probe_cleanup $g; return 1; }
	before=$(tfs_snapshot)
	expect_status 1 $KTRACE probe add -g $g -x $PROBED 'ev=parse_line line' &&
	expect_contains "exists" "$ERR" "event $g:ev already exists (use --force to replace it)" &&
	expect_eq "unchanged" "$(tfs_snapshot)" "$before" &&
	expect_status 0 $KTRACE probe add --force -g $g -x $PROBED 'ev=parse_line line' &&
	expect_contains "replaced" "$(grep "$g/ev" $TFS/dynamic_events)" " line=+0(%di):string" &&
	expect_eq "one event" "$(grep -c "$g/ev" $TFS/dynamic_events)" 1 || r=1
	# In use: --force cannot replace it, and nothing changes.
	if [ $r = 0 ]; then
		$KTRACE enable -B $i "$g:ev" >/dev/null
		before=$(tfs_snapshot)
		expect_status 1 $KTRACE probe add --force -g $g -x $PROBED 'ev=parse_line len' &&
		expect_contains "busy" "$ERR" "in use" &&
		expect_eq "unchanged when busy" "$(tfs_snapshot)" "$before" &&
		expect_status 1 $KTRACE probe del "$g:ev" &&
		expect_eq "not deleted when busy" "$(tfs_snapshot)" "$before" || r=1
	fi
	kt_probe_cleanup $g $i
	return $r
}

t_probe_kernel_refused_shows_error_log_and_caret() {
	local g=kt_it_probe_klog r=0 before
	before=$(tfs_snapshot)
	expect_status 1 $KTRACE probe add -g $g -x $PROBED 'parse_line len y=%zz' &&
	expect_contains "kernel text" "$ERR" "kernel refused probe $g:parse_line" &&
	expect_contains "error_log" "$ERR" "Invalid register name" &&
	expect_eq "spec line" "$(echo "$ERR" | sed -n 2p)" "  parse_line len y=%zz" &&
	expect_eq "caret" "$(echo "$ERR" | sed -n 3p)" "                   ^" &&
	expect_eq "unchanged" "$(tfs_snapshot)" "$before" || r=1
	expect_status 1 $KTRACE probe add -g $g -x $PROBED 'parse_line len  x=%di:badtype' &&
	expect_contains "unknown type" "$ERR" "Unknown type" &&
	expect_eq "caret 2" "$(echo "$ERR" | sed -n 3p)" "                        ^" &&
	expect_eq "unchanged 2" "$(tfs_snapshot)" "$before" || r=1
	kt_probe_cleanup $g
	return $r
}

t_probe_list_json_only_probes() {
	local g=kt_it_probe_list r=0
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'a=parse_line len' 'b=hot%return $retval' ||
		{ kt_probe_cleanup $g; return 1; }
	$KTRACE probe list --json > /tmp/kt-probe-list.json || r=1
	python3 - /tmp/kt-probe-list.json "$g" "$(realpath $PROBED)" <<'PY' || fail "json check failed" || r=1
import json, sys
probes = json.load(open(sys.argv[1]))
g, path = sys.argv[2], sys.argv[3]
kinds = {"kprobe", "kretprobe", "uprobe", "uretprobe"}
for p in probes:
    assert p["kind"] in kinds, p
    assert p["definition"].startswith(("p:", "r:")), p
mine = {p["event"]: p for p in probes if p["group"] == g}
assert set(mine) == {"a", "b"}, mine
assert mine["a"]["kind"] == "uprobe" and mine["b"]["kind"] == "uretprobe", mine
assert mine["a"]["location"].startswith(path + ":0x"), mine["a"]
assert mine["a"]["args"] == "len=%si:s32", mine["a"]
assert mine["b"]["args"] == "retval=$retval:s32", mine["b"]
want = [l for l in open("/sys/kernel/tracing/dynamic_events").read().splitlines()
        if l.startswith(("p:", "r:"))]
assert sorted(p["definition"] for p in probes) == sorted(want), (probes, want)
PY
	# Tracepoints are not probes.
	expect_status 1 $KTRACE probe list 'sched:*' &&
	expect_contains "no probe" "$ERR" "no probe matches 'sched:*'" || r=1
	kt_probe_cleanup $g
	return $r
}

t_probe_del_removes_only_matching() {
	local g=kt_it_probe_del g2=kt_it_probe_del2 r=0 before
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'a=parse_line' 'b=hot' &&
	expect_status 0 $KTRACE probe add -g $g2 -x $PROBED 'c=account' || r=1
	if [ $r = 0 ]; then
		expect_status 0 $KTRACE probe del "$g:a" &&
		expect_eq "after del a" "$(kt_events kt_it_probe_del)" \
			"$g/b $g2/c " &&
		before=$(tfs_snapshot) &&
		expect_status 1 $KTRACE probe del "$g:nomatch" &&
		expect_status 1 $KTRACE probe del "$g:b" "$g:nomatch" &&
		expect_status 1 $KTRACE probe del 'sched:sched_switch' &&
		expect_eq "failed dels change nothing" "$(tfs_snapshot)" "$before" &&
		expect_status 0 $KTRACE probe del "$g:*" &&
		expect_eq "only g2 left" "$(kt_events kt_it_probe_del)" \
			"$g2/c " || r=1
	fi
	kt_probe_cleanup $g
	kt_probe_cleanup $g2
	return $r
}

# Another tool's probe survives globs that do not name its group, is
# marked in probe list, and goes only when its group is named.
t_probe_del_glob_spares_other_tools() {
	local g=kt_it_probe_own o=kt_it_other r=0 def
	def=$($KTRACE probe add -n -x $PROBED 'hot' | sed "s|^p:ktrace/hot |p:$o/x |")
	case $def in "p:$o/x /"*) ;; *) fail "dry run: $def"; return 1 ;; esac
	echo "$def" >> $TFS/uprobe_events || { fail "cannot add $o:x"; return 1; }
	expect_status 0 $KTRACE probe add -g $g -x $PROBED 'h=hot' || r=1
	if [ $r = 0 ]; then
		expect_status 0 $KTRACE probe list &&
		expect_contains "foreign marked" "$OUT" "$o:x  " &&
		expect_eq "foreign line" "$(echo "$OUT" | grep "$o:x" | grep -c "(not ktrace's)")" 1 &&
		expect_eq "own line" "$(echo "$OUT" | grep "$g:h" | grep -c "(not ktrace's)")" 0 &&
		expect_status 0 $KTRACE --json probe list "$o:*" &&
		expect_contains "json marks it" "$OUT" '"ktrace": false' &&
		expect_status 0 $KTRACE probe del '*' &&
		expect_contains "own probe removed" "$OUT" "$g:h" &&
		expect_eq "foreign probe kept" "$(grep -c "^p:$o/x " $TFS/uprobe_events)" 1 &&
		expect_status 1 $KTRACE probe del '*:x' &&
		expect_contains "says why" "$ERR" "their group is named" &&
		expect_status 1 $KTRACE probe del 'x' &&
		expect_contains "a bare event name is not a group" "$ERR" "their group is named" &&
		expect_eq "foreign probe kept by 'x'" "$(grep -c "^p:$o/x " $TFS/uprobe_events)" 1 &&
		expect_status 0 $KTRACE probe del "$o:*" &&
		expect_eq "named group removed" "$(grep -c "^p:$o/x " $TFS/uprobe_events)" 0 || r=1
	fi
	grep -q "^p:$o/x " $TFS/uprobe_events && echo "-:$o/x" >> $TFS/uprobe_events
	kt_probe_cleanup $g
	return $r
}

t_probe_failures_leave_tracefs_identical() {
	local g=kt_it_probe_fail r=0 before want spec
	before=$(tfs_snapshot; cat $TFS/uprobe_events)
	while IFS='|' read -r want spec; do
		expect_status "$want" $KTRACE probe add -g $g -x $PROBED "$spec" || r=1
		expect_eq "after '$spec'" "$(tfs_snapshot; cat $TFS/uprobe_events)" "$before" || r=1
		[ $r = 0 ] || break
	done <<'EOF'
2|../x=parse_line
2|parse_line$x
2|hot+4%return
2|parse_line 1x=%di
1|parse_lin
1|hot+0x10000
1|parse_line nosuch
1|account acct->nosuch
1|parse_line $retval
1|parse_line y=%zz
EOF
	# All or nothing: the first spec is fine, the second is refused by
	# the kernel after the first was created.
	expect_status 1 $KTRACE probe add -g $g -x $PROBED 'ok=parse_line len' 'bad=hot x=%zz' &&
	expect_eq "all or nothing" "$(tfs_snapshot; cat $TFS/uprobe_events)" "$before" || r=1
	kt_probe_cleanup $g
	return $r
}

# kt_nokprobes_view DIR: DIR shows this tracefs as a kernel without
# CONFIG_KPROBE_EVENTS has it: every entry but kprobe_events and
# kprobe_profile, each a symlink into the real tree (what ktrace writes
# there reaches the real tracefs, and tfs_snapshot sees it).
kt_nokprobes_view() {
	local e
	rm -rf "$1" && mkdir "$1" || return 1
	for e in $TFS/*; do
		case ${e##*/} in kprobe_events|kprobe_profile) continue ;; esac
		ln -s "$e" "$1/${e##*/}" || return 1
	done
}

# A kernel without kprobe events: kernel probes are refused with exit 1 and
# one line naming the reason (then the spec, a caret under its location),
# a set or a mix with uprobes is refused whole, a dry run prints and says
# so, and tracefs is left as it was. Checked on every kernel: through a
# view of tracefs without kprobe_events, and on the real tree when this
# kernel has none.
t_probe_kprobes_missing_refused() {
	local g=kt_it_probe_k view=/tmp/kt-it-nokprobes r=0 before tree trees dir spec why
	kt_nokprobes_view $view || return 1
	trees=$view
	[ -e $TFS/kprobe_events ] || trees="$TFS $view"
	before=$(tfs_snapshot; cat $TFS/uprobe_events)
	for tree in $trees; do
		dir=$(realpath $tree)
		why="this kernel has no kprobe events (no kprobe_events in $dir: CONFIG_KPROBE_EVENTS is off)"
		for spec in 'do_sys_openat2 filename:ustring' 'vfs_read%return $retval'; do
			expect_status 1 env KTRACE_TRACEFS=$tree $KTRACE probe add -g $g "$spec" &&
			expect_eq "stderr ($spec, $tree)" "$ERR" \
				"$(printf 'ktrace probe: %s\n  %s\n  ^' "$why" "$spec")" &&
			expect_eq "stdout ($spec, $tree)" "$OUT" "" || r=1
		done
		expect_status 1 env KTRACE_TRACEFS=$tree $KTRACE --json probe add -g $g do_sys_openat2 &&
		python3 -c '
import json, sys
e = json.loads(sys.argv[1])
assert e == {"error": sys.argv[2], "input": "do_sys_openat2", "position": 0}, e' \
			"$OUT" "$why" || fail "json ($tree): $OUT" || r=1
		# a set: the caret under the location of the line refused
		expect_status 1 env KTRACE_TRACEFS=$tree $KTRACE probe add -g $g -f probes/file-opens.probe &&
		expect_eq "set, first line ($tree)" "$(echo "$ERR" | head -1)" "ktrace probe: $why" &&
		expect_eq "set, caret ($tree)" "$(echo "$ERR" | sed -n 3p)" "       ^" || r=1
		# a uprobe the kernel can take and a kprobe it cannot: neither
		expect_status 1 env KTRACE_TRACEFS=$tree $KTRACE probe add -g $g \
			"$PROBED:parse_line len" 'do_sys_openat2 filename:ustring' &&
		expect_eq "mixed ($tree)" "$(echo "$ERR" | head -1)" "ktrace probe: $why" || r=1
		expect_status 0 env KTRACE_TRACEFS=$tree $KTRACE probe add -g $g -n 'vfs_read%return $retval' &&
		expect_eq "dry run prints ($tree)" "$OUT" "r:$g/vfs_read__return vfs_read retval=\$retval:s64" &&
		expect_eq "dry run note ($tree)" "$ERR" \
			"ktrace probe: note: this kernel cannot take kprobes (no kprobe_events in $dir: CONFIG_KPROBE_EVENTS is off)" || r=1
		expect_eq "unchanged ($tree)" "$(tfs_snapshot; cat $TFS/uprobe_events)" "$before" || r=1
	done
	# where the kernel has kprobe events, a dry run says nothing more
	if [ -e $TFS/kprobe_events ]; then
		expect_status 0 $KTRACE probe add -g $g -n 'vfs_read%return $retval' &&
		expect_eq "dry run, kprobes here" "$ERR" "" || r=1
	fi
	rm -rf $view
	kt_probe_cleanup $g
	return $r
}

# The uprobe sets of probes/: add with -f, record, delete.
t_probe_set_libc_malloc() {
	local g=kt_it_set_malloc i=kt_it_set_malloc_i r=0
	expect_status 0 $KTRACE probe add -g $g -f probes/libc-malloc.probe &&
	expect_eq "events" "$($KTRACE probe list "$g:*" | awk '{print $2}' | sort | tr '\n' ' ')" \
		"$g:calloc $g:free $g:malloc $g:malloc_ret $g:realloc " &&
	$KTRACE enable -B $i "$g:*" >/dev/null &&
	$KTRACE filter -B $i "$g:malloc" 'comm == "probed"' >/dev/null &&
	$KTRACE filter -B $i "$g:free" 'comm == "probed"' >/dev/null &&
	$KTRACE filter -B $i "$g:calloc" 'comm == "probed"' >/dev/null &&
	$KTRACE filter -B $i "$g:realloc" 'comm == "probed"' >/dev/null &&
	$KTRACE filter -B $i "$g:malloc_ret" 'comm == "probed"' >/dev/null &&
	$PROBED 1 >/dev/null &&
	$KTRACE disable -B $i "$g:*" >/dev/null &&
	tr=$(kt_trace $i) &&
	{ echo "$tr" | grep -qE 'probed-[0-9]+ .* malloc: \(0x[0-9a-f]+\) size=[0-9]+$' ||
		fail "no malloc from probed: $tr"; } &&
	{ echo "$tr" | grep -qE 'probed-[0-9]+ .* malloc_ret: \(.*\) ptr=0x[0-9a-f]+$' ||
		fail "no malloc_ret from probed: $tr"; } || r=1
	$KTRACE reset -B $i >/dev/null
	expect_status 0 $KTRACE probe del "$g:*" || r=1
	kt_probe_cleanup $g $i
	return $r
}

t_probe_set_dns() {
	local g=kt_it_set_dns i=kt_it_set_dns_i r=0
	expect_status 0 $KTRACE probe add -g $g -f probes/dns.probe &&
	$KTRACE enable -B $i "$g:*" >/dev/null &&
	getent ahosts localhost >/dev/null
	$KTRACE disable -B $i "$g:*" >/dev/null &&
	tr=$(kt_trace $i) &&
	expect_contains "getaddrinfo" "$tr" 'getaddrinfo: (' &&
	expect_contains "node" "$tr" 'node="localhost"' || r=1
	$KTRACE reset -B $i >/dev/null
	expect_status 0 $KTRACE probe del "$g:*" || r=1
	kt_probe_cleanup $g $i
	return $r
}

t_probe_set_bash_readline() {
	local g=kt_it_set_rl i=kt_it_set_rl_i r=0
	expect_status 0 $KTRACE probe add -g $g -f probes/bash-readline.probe &&
	expect_contains "uretprobe" "$($KTRACE probe list "$g:*")" "uretprobe  $g:readline" || r=1
	if [ $r = 0 ] && command -v script >/dev/null; then
		# An interactive bash on a pty (script), reading two lines.
		$KTRACE enable -B $i "$g:readline" >/dev/null &&
		printf 'echo kt_it_readline_marker\nexit\n' |
			timeout 20 script -qec "bash --norc --noprofile -i" /dev/null >/dev/null 2>&1
		$KTRACE disable -B $i "$g:readline" >/dev/null
		tr=$(kt_trace $i)
		expect_contains "line read" "$tr" 'line="echo kt_it_readline_marker"' &&
		expect_contains "exit read" "$tr" 'line="exit"' || r=1
	else
		echo "no script(1): readline set only created and deleted"
	fi
	$KTRACE reset -B $i >/dev/null 2>&1
	expect_status 0 $KTRACE probe del "$g:*" || r=1
	kt_probe_cleanup $g $i
	return $r
}

# Arguments by name are right at -O0, -O2 and -Os: a probe on a function
# by name goes after its prologue (line table: prologue_end, a new line, or
# the second statement row of a one-line function); an offset inside the
# prologue is refused rather than read stale.
t_probe_args_by_name_at_every_optimisation() {
	local d=/tmp/ktrace-it-opt r=0
	mkdir -p $d
	cat >$d/oneline.c <<-'C'
	__attribute__((noipa)) int mid(int n, const char *tag) { return n + tag[0]; }
	int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += mid(i, i ? "b" : "a"); return s == 0; }
	C
	for o in O0 O2 Os; do
		cc -$o -g -o $d/oneline-$o $d/oneline.c || { fail "cc $o"; return 1; }
		cc -$o -g -Itests/targets -o $d/probed-$o tests/targets/probed.c || { fail "cc $o"; return 1; }
		$KTRACE record -e "uprobe:$d/oneline-$o:mid n tag:string" -- $d/oneline-$o >$d/out 2>$d/err
		expect_eq "$o: mid" "$(sed -n 's/.*:mid: ([0-9a-f]*) //p' $d/out | tr '\n' ';')" \
			'n=0 tag="a";n=1 tag="b";n=2 tag="b";' || r=1
		$KTRACE record -e "uprobe:$d/probed-$o:parse_line line:string len" -- $d/probed-$o 2 >$d/out 2>$d/err
		expect_eq "$o: parse_line" "$(sed -n 's/.*:parse_line: ([0-9a-f]*) //p' $d/out | tr '\n' ';')" \
			'line="a,b,c" len=5;line="one" len=3;line="x,y" len=3;' || r=1
	done
	# -O0, an offset inside mid's prologue: refused with where it ends
	expect_status 1 $KTRACE probe add -n -x $d/oneline-O0 'mid+4 n' || r=1
	expect_contains "says where the prologue ends" "$ERR" "which ends at mid+0x" || r=1
	rm -rf $d
	return $r
}

# C++ at -O2 (tests/targets/cxxargs.cc): geo::Scaler::scale's entry is the
# first instruction of an inlined helper, yet its own parameters are read
# there by name, a reference parameter is followed (p.x) and so is a
# reference to a scalar (calls); the inline -e of the same location gets
# the event name probe add gives it (geo_Scaler_scale, not geo), a
# uretprobe on the whole C++ name with its blanks too.
t_probe_cxx_inlined_entry_references_inline_name() {
	local g=kt_it_probe_cxx i=kt_it_probe_cxx_i r=0 bin=$TARGETS/cxxargs
	local f=/tmp/ktrace-it-cxxargs
	local vals='factor=1 p_x=1 p_y=2 calls=0;factor=2 p_x=30 p_y=40 calls=1;factor=3 p_x=-5 p_y=7 calls=2;'
	expect_status 0 $KTRACE probe add -g $g -x $bin \
		'geo::Scaler::scale factor p.x p.y calls' &&
	expect_contains "added" "$OUT" "$g:geo_Scaler_scale" &&
	$KTRACE enable -B $i "$g:geo_Scaler_scale" >/dev/null &&
	out=$($bin 3) &&
	expect_eq "cxxargs" "$out" "sum=449 calls=3" &&
	$KTRACE disable -B $i "$g:geo_Scaler_scale" >/dev/null &&
	expect_eq "probe add values" \
		"$(kt_trace $i | sed -n 's/.* geo_Scaler_scale: ([0-9a-fx]*) //p' | tr '\n' ';')" \
		"$vals" || r=1
	kt_probe_cleanup $g $i
	$KTRACE record -e "uprobe:$bin:geo::Scaler::scale factor p.x p.y calls" \
		-- $bin 3 >$f.out 2>$f.err ||
		{ [ $r = 1 ] || fail "record: $(cat $f.err)"; return 1; }
	expect_eq "inline -e values under probe add's name" \
		"$(sed -n 's/.*:geo_Scaler_scale: ([0-9a-f]*) //p' $f.out | tr '\n' ';')" \
		"$vals" || r=1
	# a C++ name with blanks in its parameters is one location, for the
	# name and for the %return a uretprobe adds
	expect_status 0 $KTRACE probe add -n -x $bin \
		'geo::Scaler::scale(geo::Point const&, int, long&)%return $retval' &&
	name=$(echo "$OUT" | sed -n 's|^r:ktrace/\([a-z_A-Z0-9]*\) .*|\1|p') &&
	expect_contains "probe add's name" "$name" "geo_Scaler_scale_" &&
	$KTRACE record -e "uretprobe:$bin:geo::Scaler::scale(geo::Point const&, int, long&) \$retval" \
		-- $bin 3 >$f.out 2>$f.err &&
	expect_eq "inline uretprobe under probe add's name" \
		"$(sed -n "s/.*:$name: (.*) //p" $f.out | tr '\n' ';')" \
		"retval=103;retval=240;retval=106;" ||
		{ [ -n "$T_FAILMSG" ] || fail "uretprobe: $(cat $f.err)"; r=1; }
	rm -f $f.out $f.err
	return $r
}
