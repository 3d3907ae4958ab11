#!/bin/sh
# Run every cmocka unit-test binary given; cmocka prints its own summary
# lines. Ends with one "N passed, N failed, N skipped" line over all
# binaries: a test that called skip() is neither passed nor hidden.
pass=0; fail=0; skip=0; bad=""
# sum TAG: the counts of cmocka's "[  TAG  ] N test(s)" summary lines.
sum() {
	printf '%s\n' "$out" |
		sed -n "s/^\[ *$1 *\] \([0-9]*\) test(s)\..*/\1/p;s/^\[ *$1 *\] \([0-9]*\) test(s), listed below:.*/\1/p" |
		awk '{s+=$1} END {print s+0}'
}
t0=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
for t in "$@"; do
	echo "== $t"
	ts=$(date +%s.%N)
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	echo "== $t: $(since "$ts") s"
	p=$(sum PASSED); f=$(sum FAILED); s=$(sum SKIPPED)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or exited early
	fi
	[ "$rc" -ne 0 ] && bad="$bad $t"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
echo "unit: $(since "$t0") s in all"
echo "unit: $pass passed, $fail failed, $skip skipped"
[ -z "$bad" ] || { echo "failing unit binaries:$bad"; exit 1; }
