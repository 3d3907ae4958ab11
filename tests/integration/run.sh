#!/bin/bash
# Integration tier: ktrace against the real tracefs (root). Each
# tests/integration/t_*.sh file defines functions named t_*; every one runs
# in a subshell, and afterwards the kernel's tracing state must be exactly as
# before the run (no events, filters, instances or probes left behind).
# usage: run.sh [t_FILE.sh...]   (no argument: every file)
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
if [ "$(id -u)" != 0 ]; then
	echo "integration: needs root"; echo "integration: 0 passed, 1 failed"; exit 1
fi
[ -d $TFS/events ] || mount -t tracefs nodev $TFS
before=$(tfs_snapshot)
pass=0; failed=0; skipped=0; failures=""
files=""
# per test: elapsed seconds, so that the slow ones are seen (the tier's
# time counts against make check's)
t0=$(date +%s.%N); times=""
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
for a in "$@"; do
	f=tests/integration/$(basename "$a")
	[ -f "$f" ] || { echo "integration: no test file $f"; exit 2; }
	files="$files $f"
done
for f in ${files:-tests/integration/t_*.sh}; do
	for t in $(grep -o '^t_[a-z0-9_]*' "$f"); do
		T_FAILMSG=""
		ts=$(date +%s.%N)
		# a test returns 77 after a line "SKIP: why" when a tool it
		# needs is missing: counted apart, with the reason
		msg=$( . "$f"; set +e; T_FAILMSG=""
		       $t >/tmp/ktrace-it-log 2>&1; st=$?
		       if [ $st = 77 ]; then
			       echo "SKIP $(sed -n 's/^SKIP: //p' /tmp/ktrace-it-log | head -1)"
		       elif [ $st != 0 ]; then
			       echo "${T_FAILMSG:-exit $st: $(tail -5 /tmp/ktrace-it-log)}"
		       fi )
		secs=$(since "$ts"); times="$times$secs $t
"
		if [ "${msg%% *}" = SKIP ]; then
			skipped=$((skipped + 1)); echo "SKIP $t ($secs s): ${msg#SKIP }"
		elif [ -z "$msg" ]; then
			pass=$((pass + 1)); echo "PASS $t ($secs s)"
		else
			failed=$((failed + 1)); echo "FAIL $t ($secs s): $msg"
			failures="$failures $t"
		fi
		now=$(tfs_snapshot)
		if [ "$now" != "$before" ]; then
			failed=$((failed + 1))
			echo "FAIL $t left tracing state behind:"
			diff <(echo "$before") <(echo "$now") | head -20
			before=$now
		fi
	done
done
echo "integration: slowest: $(printf '%s' "$times" | sort -rn | head -5 |
	awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
echo "integration: $(since "$t0") s in all"
echo "integration: $pass passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
