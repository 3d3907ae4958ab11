# ktrace list / enable / disable / filter / show / reset on the real kernel.

t_list_matches_available_events() {
	expect_eq "list vs available_events" \
		"$($KTRACE list | LC_ALL=C sort)" \
		"$(LC_ALL=C sort $TFS/available_events)"
}

t_list_globs() {
	expect_eq "irq" "$($KTRACE list irq)" "$($KTRACE list 'irq:*')" || return 1
	expect_eq "irq count" "$($KTRACE list 'irq:*' | wc -l)" \
		"$(grep -c '^irq:' $TFS/available_events)" || return 1
	out=$($KTRACE list '*:*open*') || return 1
	expect_contains "open glob" "$out" "syscalls:sys_enter_openat" || return 1
	[ -z "$(echo "$out" | grep -v open)" ] || fail "non-matching: $out"
}

t_list_json_parses() {
	$KTRACE list --json 'sched:*' > /tmp/kt-list.json || return 1
	python3 - /tmp/kt-list.json <<'PY' || fail "json check failed"
import json, sys
evs = json.load(open(sys.argv[1]))
assert len(evs) > 10, len(evs)
for e in evs:
    assert e["system"] == "sched" and e["kind"] == "tracepoint"
    want = int(open(f"/sys/kernel/tracing/events/sched/{e['name']}/id").read())
    assert e["id"] == want, (e["name"], e["id"], want)
    assert any(f["name"] == "common_pid" and f["common"] for f in e["fields"])
sw = [e for e in evs if e["name"] == "sched_switch"][0]
f = {x["name"]: x for x in sw["fields"]}
assert f["prev_pid"]["size"] == 4 and f["prev_pid"]["signed"] is True
PY
}

t_list_nomatch_fails() {
	expect_status 1 $KTRACE list 'nosuchsys:*' || return 1
	expect_eq "stdout" "$OUT" "" || return 1
	expect_eq "stderr" "$ERR" "ktrace list: no event matches 'nosuchsys:*'"
}

t_enable_disable_roundtrip() {
	$KTRACE enable 'sched:sched_switch' 'irq:softirq_*' >/dev/null || return 1
	se=$(cat $TFS/set_event)
	expect_contains "set_event" "$se" "sched:sched_switch" || return 1
	expect_contains "set_event" "$se" "irq:softirq_entry" || return 1
	expect_eq "enable file" "$(cat $TFS/events/sched/sched_switch/enable)" 1 || return 1
	python3 -c 'import json,sys; s=json.loads(sys.stdin.read()); top=s[0]; assert top["instance"] is None; assert "sched:sched_switch" in top["enabled"], top' <<< "$($KTRACE --json show)" || fail "show json" || return 1
	$KTRACE disable 'sched:sched_switch' 'irq:softirq_*' >/dev/null || return 1
	expect_eq "set_event after" "$(cat $TFS/set_event)" ""
}

t_filter_roundtrip_and_bad_filter_keeps_old() {
	f=$TFS/events/sched/sched_switch/filter
	$KTRACE filter sched:sched_switch 'prev_pid == 1' >/dev/null || return 1
	expect_eq "filter" "$(cat $f)" "prev_pid == 1" || { $KTRACE filter sched:sched_switch --clear; return 1; }
	# caught by the verifier
	expect_status 1 $KTRACE filter sched:sched_switch 'bogus == 3'
	r1=$?
	expect_eq "after bad field" "$(cat $f)" "prev_pid == 1"; r2=$?
	# refused by the kernel only: error_log text with a caret, old kept
	expect_status 1 $KTRACE filter sched:sched_switch 'prev_pid == "abc"'; r3=$?
	expect_contains "kernel text" "$ERR" "event filter parse error" ; r4=$?
	caret=$(echo "$ERR" | sed -n 3p)
	expect_eq "caret" "$caret" '               ^'; r5=$?
	expect_eq "after refused" "$(cat $f)" "prev_pid == 1"; r6=$?
	$KTRACE filter sched:sched_switch --clear >/dev/null
	expect_eq "cleared" "$(cat $f)" "none" || return 1
	[ $r1$r2$r3$r4$r5$r6 = 000000 ]
}

t_filter_json_error() {
	out=$($KTRACE --json filter sched:sched_switch 'prev_pid == "x"' 2>/dev/null)
	python3 -c '
import json,sys
e=json.loads(sys.argv[1]); assert "error" in e and "kernel" in e and e["input"]=="prev_pid == \"x\"" and e["position"]>=0, e' "$out" || fail "json error: $out"
}

t_instance_enable_show_reset() {
	$KTRACE enable -B kt_it_inst 'sched:sched_switch' >/dev/null || return 1
	[ -d $TFS/instances/kt_it_inst ] || fail "instance not created" || return 1
	expect_eq "instance set_event" "$(cat $TFS/instances/kt_it_inst/set_event)" "sched:sched_switch"
	r1=$?
	expect_eq "top set_event" "$(cat $TFS/set_event)" ""; r2=$?
	$KTRACE filter -B kt_it_inst sched:sched_switch 'next_pid == 0' >/dev/null; r3=$?
	out=$($KTRACE show -B kt_it_inst)
	expect_contains "show" "$out" "next_pid == 0"; r4=$?
	expect_contains "show" "$out" "created by ktrace"; r5=$?
	$KTRACE reset -B kt_it_inst >/dev/null || return 1
	# Its own return: the status line below would overwrite it.
	[ ! -d $TFS/instances/kt_it_inst ] || fail "instance left" || return 1
	[ $r1$r2$r3$r4$r5 = 00000 ]
}

t_reset_keeps_foreign_instance() {
	mkdir $TFS/instances/kt_it_foreign || return 1
	$KTRACE enable -B kt_it_foreign 'irq:softirq_entry' >/dev/null
	$KTRACE reset -B kt_it_foreign >/dev/null; st=$?
	[ -d $TFS/instances/kt_it_foreign ]; present=$?
	se=$(cat $TFS/instances/kt_it_foreign/set_event)
	rmdir $TFS/instances/kt_it_foreign
	expect_eq "status" $st 0 || return 1
	expect_eq "foreign instance kept" $present 0 || return 1
	expect_eq "its events off" "$se" ""
}

t_reset_never_touches_dynamic_events() {
	echo 'p:kt_it_other/keepme /bin/true:0x1000' >> $TFS/uprobe_events || return 1
	$KTRACE reset >/dev/null; st=$?
	d=$(cat $TFS/dynamic_events)
	echo '-:kt_it_other/keepme' >> $TFS/uprobe_events
	expect_eq "status" $st 0 || return 1
	expect_contains "probe kept" "$d" "kt_it_other/keepme"
}

t_bad_input_leaves_tracefs_identical() {
	$KTRACE filter sched:sched_switch 'prev_pid == 7' >/dev/null
	before=$(tfs_snapshot)
	ok=0
	while IFS='|' read -r want args; do
		eval "set -- $args"
		expect_status "$want" $KTRACE "$@" || { echo "$T_FAILMSG"; ok=1; }
		[ "$(echo "$ERR" | head -1 | cut -c1-6)" = ktrace ] || { echo "no error line for $args"; ok=1; }
		[ "$(tfs_snapshot)" = "$before" ] || { echo "changed by: $args"; ok=1; }
	done <<'EOF2'
2|enable '../../../etc:*'
2|enable -B ../x irq
2|enable -B 'a b' irq
2|enable -B 'x;rm' irq
2|enable -B 'x$(id)' irq
1|enable nomatch
1|enable irq nomatch
2|enable
2|disable 'sched:[x'
2|filter sched:sched_switch
1|filter sched:sched_switch 'bogus == 1'
1|filter sched:sched_switch 'prev_pid == "abc"'
1|filter -B kt_it_new sched:sched_switch 'prev_pid == "abc"'
2|filter 'sched:../../x' 'a == 1'
2|filter sched/sched_switch 'a == 1'
1|filter sched:nosuch 'a == 1'
2|filter sched:sched_switch ''
1|reset -B nosuch
2|reset -B ..
2|show -B ../..
2|list 'a/b'
2|nosuchcmd
2|list --bogus
EOF2
	$KTRACE filter sched:sched_switch --clear >/dev/null
	[ $ok = 0 ] || fail "see above"
}
