# Shared by the integration tests (sourced). Real tracefs, root.
# Each test file defines t_* functions; run.sh calls them and counts.
KTRACE=${KTRACE:-$PWD/ktrace}
TFS=${TFS:-/sys/kernel/tracing}
TARGETS=${TARGETS:-$PWD/build/tests/targets}
export KTRACE_STATE_DIR=${KTRACE_STATE_DIR:-/run/ktrace}

T_FAILMSG=""
fail() { T_FAILMSG="$*"; return 1; }

expect_eq() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
expect_contains() { # WHAT HAYSTACK NEEDLE
	case "$2" in *"$3"*) return 0 ;; esac
	fail "$1: '$3' not in: $(printf '%s' "$2" | head -c 600)"
}
# Wait up to SECS for FILE to have a line matching REGEX.
wait_for_line() { # FILE REGEX SECS
	local i=0
	until grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && { fail "no '$2' in $1"; return 1; }
		sleep 0.1
	done
}
expect_status() { # WANT CMD... (stdout/stderr kept in $OUT/$ERR)
	want=$1; shift
	OUT=$("$@" 2>/tmp/ktrace-it-err); st=$?
	ERR=$(cat /tmp/ktrace-it-err)
	[ "$st" = "$want" ] || fail "'$*' exited $st, want $want; stderr: $ERR"
}

# Everything ktrace may touch, as text: compared before/after bad input.
tfs_snapshot() {
	{
		echo "## set_event"; cat $TFS/set_event
		echo "## dynamic_events"; cat $TFS/dynamic_events
		echo "## instances"; ls $TFS/instances
		echo "## filters"
		grep -v '^none$' $TFS/events/*/*/filter 2>/dev/null
		for i in $TFS/instances/*; do
			[ -d "$i" ] || continue
			echo "## $i"; cat "$i/set_event"
			grep -v '^none$' "$i"/events/*/*/filter 2>/dev/null
		done
		echo "## tracing_on"; cat $TFS/tracing_on
	}
}
