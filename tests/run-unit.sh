#!/bin/sh
# Run every cmocka unit-test binary given; cmocka prints its own summary
# lines. Ends with one "N passed, N failed" line over all binaries.
pass=0; fail=0; bad=""
for t in "$@"; do
	echo "== $t"
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or exited early
	fi
	[ "$rc" -ne 0 ] && bad="$bad $t"
	pass=$((pass + p)); fail=$((fail + f))
done
echo "unit: $pass passed, $fail failed"
[ -z "$bad" ] || { echo "failing unit binaries:$bad"; exit 1; }
