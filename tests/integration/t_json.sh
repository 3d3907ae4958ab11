# Every --json output of every command is valid JSON, also when an error
# cuts it short: documents parse as one JSON value, streams (record,
# report) as one JSON value per line. Uses group kt_it_json and instance
# kt_it_json, removed at the end whatever happened.

PROBED=$TARGETS/probed
SYSC=$TARGETS/syscaller
J=/tmp/ktrace-it-json

# json_doc WHAT CMD...: stdout of CMD is exactly one JSON document.
json_doc() {
	what=$1; shift
	"$@" >$J.out 2>$J.err
	python3 - $J.out <<'PY' || fail "$what: not one JSON document: $(head -c 300 $J.out)"
import json, sys
json.load(open(sys.argv[1]))
PY
}

# json_lines WHAT MIN CMD...: every line of stdout is a JSON value, >= MIN.
json_lines() {
	what=$1; min=$2; shift 2
	"$@" >$J.out 2>$J.err
	python3 - $J.out $min <<'PY' || fail "$what: bad JSON lines: $(head -c 300 $J.out)"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
for l in lines:
    json.loads(l)
assert len(lines) >= int(sys.argv[2]), len(lines)
PY
}

kt_json_cleanup() {
	$KTRACE reset -B kt_it_json >/dev/null 2>&1
	[ -d $TFS/instances/kt_it_json ] && rmdir $TFS/instances/kt_it_json
	$KTRACE probe del 'kt_it_json:*' >/dev/null 2>&1
	rm -f $J.*
}

t_json_every_command_parses() {
	trap kt_json_cleanup RETURN
	json_doc "version" $KTRACE --json --version || return 1
	json_doc "list" $KTRACE --json list 'irq:*' || return 1
	json_doc "list -v --format" $KTRACE --json list -v --format sched:sched_switch || return 1
	json_doc "list: no match" $KTRACE --json list 'nosuch_sys:*' || return 1
	json_doc "list --kind: none" $KTRACE --json list --kind uprobe 'irq:*' || return 1
	json_doc "enable" $KTRACE --json enable -B kt_it_json irq:irq_handler_entry || return 1
	json_doc "filter" $KTRACE --json filter -B kt_it_json irq:irq_handler_entry 'irq == 1' || return 1
	json_doc "filter: refused" $KTRACE --json filter -B kt_it_json irq:irq_handler_entry 'irq >' || return 1
	json_doc "show" $KTRACE --json show || return 1
	json_doc "show -a" $KTRACE --json show -a || return 1
	json_doc "show -B" $KTRACE --json show -B kt_it_json || return 1
	json_doc "show: no instance" $KTRACE --json show -B kt_it_json_none || return 1
	json_doc "disable" $KTRACE --json disable -B kt_it_json irq:irq_handler_entry || return 1
	json_doc "reset" $KTRACE --json reset -B kt_it_json || return 1
	json_doc "probe add" $KTRACE --json probe add -g kt_it_json -x $PROBED 'hot i' || return 1
	json_doc "probe add --dry-run" $KTRACE --json probe add --dry-run -g kt_it_json -x $PROBED 'hot2=hot' || return 1
	json_doc "probe add: bad spec" $KTRACE --json probe add -g kt_it_json -x $PROBED 'no_such_function' || return 1
	json_doc "probe list" $KTRACE --json probe list || return 1
	json_doc "probe list: no match" $KTRACE --json probe list 'kt_it_json:nope' || return 1
	json_doc "probe del" $KTRACE --json probe del 'kt_it_json:*' || return 1
	json_doc "probe del: no match" $KTRACE --json probe del 'kt_it_json:*' || return 1
	json_doc "probe: no subcommand" $KTRACE --json probe || return 1
	json_doc "unknown command" $KTRACE --json frobnicate || return 1
	json_doc "stat" $KTRACE --json stat -o /dev/stdout -e task-clock -e syscalls:sys_enter_getppid -- $SYSC 3 || return 1
	json_doc "stat: unknown event" $KTRACE --json stat -o /dev/stdout -e nosuch -- true || return 1
	json_lines "record" 3 $KTRACE --json record -e syscalls:sys_enter_getppid -- $SYSC 3 || return 1
	json_lines "record: unknown event" 1 $KTRACE --json record -e nosuch:nope -- true || return 1
	$KTRACE record -o $J.dat -e syscalls:sys_enter_getppid -- $SYSC 4 2>/dev/null || fail "record -o" || return 1
	json_lines "report" 4 $KTRACE --json report -i $J.dat || return 1
	json_lines "report --raw" 4 $KTRACE --json report --raw -i $J.dat || return 1
	json_doc "report --header" $KTRACE --json report --header -i $J.dat || return 1
	json_doc "report: no file" $KTRACE --json report -i $J.none || return 1
}

# An error in the middle of a listing: the error is the array's last
# element and the document still parses.
t_json_error_inside_an_array() {
	trap kt_json_cleanup RETURN
	$KTRACE --json show -B kt_it_json_none >$J.out 2>/dev/null
	python3 - $J.out <<'PY' || fail "show error: $(cat $J.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and d[-1]["error"].startswith("no instance"), d
PY
	$KTRACE --json probe list 'kt_it_json:nope' >$J.out 2>/dev/null
	python3 - $J.out <<'PY' || fail "probe list error: $(cat $J.out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d == [{"error": "no probe matches 'kt_it_json:nope'"}], d
PY
}

# Names are escaped: a string with quotes, a backslash, a control character
# and bytes that are not UTF-8 comes out as valid JSON.
t_json_escapes_hostile_strings() {
	trap kt_json_cleanup RETURN
	$KTRACE --json filter -B kt_it_json irq:irq_handler_entry "$(printf 'irq == 1 && "\\\t\377')" >$J.out 2>/dev/null
	python3 - $J.out <<'PY' || fail "escaping: $(cat -A $J.out)"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert "error" in d and "\u00ff" in d["input"], d
PY
}
