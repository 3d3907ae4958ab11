# ktrace report's call-graph views on cgchain (main -> alpha -> beta ->
# gamma, self work 1:2:4) recorded with DWARF stacks: --children,
# --callers gamma, --callees alpha (text and JSON, read by python3), the
# inlined function of cxxchain attributed to its container unless
# --inline, and the usage errors.

RT=/tmp/ktrace-it-callgraph
CG=$TARGETS/cgchain

# One recording of cgchain: 1.5 s of CPU at 999 Hz.
cg_record() { # FILE [ARG]
	$KTRACE record -g -o "$1" -e cpu-clock -F 999 -- $CG 1500 ${2:-} \
		>/dev/null 2>$RT.err || fail "record: $(cat $RT.err)"
}

t_callgraph_chain() {
	cg_record $RT.dat || return 1
	$KTRACE report -i $RT.dat --children --sort sym --json >$RT.ch.json \
		2>$RT.err || fail "--children: $(cat $RT.err)" || return 1
	python3 - $RT.ch.json <<'EOF' || fail "--children: $(cat $RT.py)" || return 1
import json, sys
sys.stdout = open('/tmp/ktrace-it-callgraph.py', 'w')
(ev,) = json.load(open(sys.argv[1]))
rows = {r['sym']: r for r in ev['rows']}
ch = {s: rows[s]['children'] for s in ('main', 'alpha', 'beta', 'gamma')}
me = {s: rows[s]['self'] for s in ('alpha', 'beta', 'gamma')}
print(ev['samples'], ch, me)
assert ev['samples'] > 1000, 'too few samples'
assert abs(sum(r['self'] for r in ev['rows']) - 100) < 0.01, 'self != 100'
assert sum(r['self_samples'] for r in ev['rows']) == ev['samples']
# parents hold their children, and each children share is its own plus
# that of the next in the chain (the only thing each calls)
assert ch['main'] >= ch['alpha'] >= ch['beta'] >= ch['gamma'], 'order'
assert ch['alpha'] > 90, 'alpha children'
for f, k in (('alpha', 'beta'), ('beta', 'gamma')):
    assert abs(ch[f] - (me[f] + ch[k])) < 1.5, f + ' != self + ' + k
# the work split, 1:2:4 of alpha's time
for s, w in (('alpha', 1), ('beta', 2), ('gamma', 4)):
    assert abs(me[s] - 100 * w / 7) < 7, s + ' self'
assert rows['main']['self'] < 2
EOF
	# the text: columns and the chain's rows, by children time
	$KTRACE report -i $RT.dat --children --percent-limit 20 >$RT.ch \
		2>$RT.err || fail "--children text: $(cat $RT.err)" || return 1
	expect_contains "--children header" "$(cat $RT.ch)" \
		"#  Children      Self   Samples  Command  Shared Object  Symbol" ||
		return 1
	expect_eq "--children rows over 20%" "$(awk '!/^#/ && NF { print $6 }' $RT.ch |
		grep -E '^(main|alpha|beta|gamma)$' | tr '\n' ' ')" \
		"main alpha beta gamma " || return 1
	awk '!/^#/ && NF { sub(/%/, "", $1); if ($1 + 0 < 20) bad = 1 } END { exit bad }' \
		$RT.ch || fail "a row under --percent-limit 20: $(cat $RT.ch)" ||
		return 1
	cg_trees || return 1
}

# --callers gamma and --callees alpha on $RT.dat.
cg_trees() {
	$KTRACE report -i $RT.dat --callers gamma >$RT.up 2>$RT.err ||
		fail "--callers: $(cat $RT.err)" || return 1
	# gamma, then beta, alpha, main, each one level deeper, all of
	# gamma's samples (it has no other caller)
	awk '!/^#/ && NF == 3 { print $2, $3, index($0, $3) }' $RT.up |
		head -4 >$RT.up.path
	expect_eq "callers of gamma" "$(awk '{ print $2 }' $RT.up.path | tr '\n' ' ')" \
		"gamma beta alpha main " || return 1
	[ "$(awk '{ print $1 }' $RT.up.path | sort -u | wc -l)" = 1 ] ||
		fail "callers' samples differ: $(cat $RT.up)" || return 1
	awk 'NR > 1 && $3 != prev + 2 { bad = 1 } { prev = $3 } END { exit bad }' \
		$RT.up.path || fail "callers' indent: $(cat $RT.up)" || return 1
	$KTRACE report -i $RT.dat --callees alpha --json >$RT.down.json \
		2>$RT.err || fail "--callees: $(cat $RT.err)" || return 1
	python3 - $RT.down.json <<'EOF' || fail "--callees: $(cat $RT.py)" || return 1
import json, sys
sys.stdout = open('/tmp/ktrace-it-callgraph.py', 'w')
(ev,) = json.load(open(sys.argv[1]))
root = ev['callees']
print(json.dumps(root)[:600])
# every node: its children's and the folded ones' samples and its own
# (paths ending there) are its samples; shares under the parent's
def check(n):
    below = n.get('below_limit', {}).get('samples', 0)
    assert n['samples'] == n['self_samples'] + below + \
        sum(k['samples'] for k in n['children']), n['symbol']
    assert n['percent'] >= sum(k['percent'] for k in n['children'])
    for k in n['children']:
        check(k)
check(root)
assert root['symbol'] == 'alpha' and root['percent'] > 90
beta = root['children'][0]
assert beta['symbol'] == 'beta', beta['symbol']
gamma = beta['children'][0]
assert gamma['symbol'] == 'gamma', gamma['symbol']
for n, share in ((beta, 6 / 7), (gamma, 4 / 7)):
    assert abs(n['percent'] / root['percent'] - share) < 0.07, n['symbol']
assert abs(root['self_samples'] / root['samples'] - 1 / 7) < 0.07
EOF
}

# cxxchain's ask_parent() is inlined into Widget::poke(int): its getppid
# records are poke(int)'s unless --inline.
t_callgraph_inline() {
	$KTRACE record -g -o $RT.cxx -e syscalls:sys_enter_getppid -- \
		$TARGETS/cxxchain 7 >/dev/null 2>$RT.err ||
		fail "record: $(cat $RT.err)" || return 1
	expect_status 1 $KTRACE report -i $RT.cxx --callers ask_parent ||
		return 1
	expect_contains "not found" "$ERR" \
		"'ask_parent' is in no stack of the 7 samples" || return 1
	expect_status 0 $KTRACE report -i $RT.cxx --callers ask_parent \
		--inline || return 1
	expect_eq "inlined: its caller" "$(awk '!/^#/ && NF == 3 { print $2, $3 }' <<<"$OUT" |
		head -2 | tr '\n' ' ')" "7 ask_parent 7 ns::Widget::poke(int) " ||
		return 1
	expect_status 0 $KTRACE report -i $RT.cxx --children --sort sym ||
		return 1
	case "$OUT" in *ask_parent*) fail "ask_parent without --inline: $OUT"
		return 1 ;; esac
	expect_contains "poke(int) holds it" "$OUT" \
		"   100.00%     0.00%         7  ns::Widget::poke(int)" || return 1
}

t_callgraph_usage() {
	: >$RT.empty
	expect_status 2 $KTRACE report -i $RT.empty --children --callers x ||
		return 1
	expect_contains "one at a time" "$ERR" "go one at a time" || return 1
	expect_status 2 $KTRACE report -i $RT.empty --children --folded ||
		return 1
	expect_status 2 $KTRACE report -i $RT.empty --children \
		--percent-limit 1x || return 1
	expect_contains "limit" "$ERR" "bad --percent-limit '1x'" || return 1
	expect_status 2 $KTRACE report -i $RT.empty --callees || return 1
}

# Two runs of cgchain, the second with the hot function moved from gamma
# to alpha ("cgchain MS alpha": alpha 4 units, gamma 1): --diff names
# both, with the right signs, in the table, the JSON, the folded pairs
# and the differential flame graph's colours.
t_callgraph_diff() {
	cg_record $RT.old || return 1
	cg_record $RT.new alpha || return 1
	$KTRACE report --diff $RT.old $RT.new --json >$RT.diff.json \
		2>$RT.err || fail "--diff: $(cat $RT.err)" || return 1
	python3 - $RT.diff.json <<'EOF2' || fail "--diff: $(cat $RT.py)" || return 1
import json, sys
sys.stdout = open('/tmp/ktrace-it-callgraph.py', 'w')
(ev,) = json.load(open(sys.argv[1]))
rows = ev['rows']
print(ev['old'], ev['new'], ev['same_rate'], rows[:3])
assert ev['same_rate'], 'both at -F 999'
# the two largest changes: alpha up by ~3/7 of the period, gamma down
top = {r['sym']: r for r in rows[:2]}
assert set(top) == {'alpha', 'gamma'}, list(top)
a, g = top['alpha'], top['gamma']
assert a['delta'] > 25 and g['delta'] < -25, (a['delta'], g['delta'])
assert abs(a['delta'] - (a['new'] - a['baseline'])) < 1e-6
assert a['samples_change'] == a['new_samples'] - a['old_samples'] > 0
assert g['samples_change'] < 0
assert abs(sum(r['delta'] for r in rows)) < 0.01, 'deltas sum to 0'
assert abs(abs(rows[2]['delta'])) < 10, rows[2]
EOF2
	$KTRACE report --diff $RT.old $RT.new --percent-limit 5 >$RT.diff \
		2>$RT.err || fail "--diff text: $(cat $RT.err)" || return 1
	# alpha gains what gamma loses: the two changes are the same size,
	# either may come first
	expect_eq "text: alpha and gamma first, signed" "$(awk '!/^#/ && NF {
		print substr($3, 1, 1) $NF }' $RT.diff | head -2 | sort | tr '\n' ' ')" \
		"+alpha -gamma " || return 1
	expect_contains "same rate said" "$(cat $RT.diff)" \
		"# Same rate (mean period per sample within 5%): samples compare" ||
		return 1
	# the folded pairs: gamma's stack lost, alpha's own gained
	$KTRACE report --folded --diff $RT.old $RT.new >$RT.fold 2>$RT.err ||
		fail "--folded --diff: $(cat $RT.err)" || return 1
	awk '/;main;alpha;beta;gamma /{ g = $2 > 3 * $3 }
	     /;main;alpha /{ a = $3 > 3 * $2 }
	     NF != 3 { bad = 1 } END { exit !(g && a && !bad) }' $RT.fold ||
		fail "folded pairs: $(grep -E ';alpha( |;beta( |;gamma ))' $RT.fold)" ||
		return 1
	$KTRACE report --diff $RT.old $RT.new --flamegraph $RT.svg \
		2>$RT.err || fail "--flamegraph --diff: $(cat $RT.err)" || return 1
	grep -Eq '<title>gamma \([0-9]+ samples, [0-9.]+%, -[0-9.]+%\)</title><rect [^>]*fill="rgb\(([0-9]+),\1,255\)"' $RT.svg ||
		fail "gamma not blue: $(grep -o '<title>gamma[^/]*/><' $RT.svg)" ||
		return 1
	expect_status 2 $KTRACE report --diff $RT.old || return 1
	expect_status 2 $KTRACE report -i $RT.old --diff $RT.old $RT.new ||
		return 1
}
