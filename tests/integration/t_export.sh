# ktrace export against Debian's Prometheus: a server started here on
# loopback scrapes it every second; its HTTP API must give the exact count
# of a known workload. Then the HTTP side: promtool's check of a scrape,
# 405/404, idle and slow clients that must not stall a scrape, signals.
# Skipped (counted, said why) only when prometheus is not installed
# (scripts/deps.sh integration).

# a free TCP port on loopback
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# exp_start ARGS...: ktrace export on any port; EXP_PID, EXP_PORT, EXP_ERR
exp_start() {
	EXP_ERR=$(mktemp /tmp/ktrace-exp.XXXXXX)
	$KTRACE export -l 127.0.0.1:0 "$@" 2>"$EXP_ERR" &
	EXP_PID=$!
	for _ in $(seq 100); do
		EXP_PORT=$(sed -n 's|.*serving https\?://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$EXP_ERR")
		[ -n "$EXP_PORT" ] && return 0
		kill -0 $EXP_PID 2>/dev/null || break
		sleep 0.1
	done
	fail "export did not start: $(cat "$EXP_ERR")"
}

# exp_stop SIGNAL: it must exit 0
exp_stop() {
	kill -"$1" $EXP_PID
	wait $EXP_PID
	st=$?
	EXP_PID=
	[ $st = 0 ] || fail "export exited $st after SIG$1: $(cat "$EXP_ERR")"
}

exp_cleanup() {
	[ -n "$EXP_PID" ] && kill -KILL $EXP_PID 2>/dev/null
	[ -n "$TP" ] && kill -KILL $TP 2>/dev/null
	[ -n "$PROM_PID" ] && kill -TERM $PROM_PID 2>/dev/null && wait $PROM_PID
	[ -n "$PROM_DIR" ] && rm -rf "$PROM_DIR"
	rm -f "$EXP_ERR"
}

# prom_query EXPR: the value of the one sample, or "" (none yet)
prom_query() {
	curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")'
}

t_export_prometheus_counts_exactly() {
	if ! command -v prometheus >/dev/null; then
		echo "SKIP: prometheus is not installed (scripts/deps.sh integration)"
		return 77
	fi
	trap exp_cleanup EXIT
	n=4321
	$TARGETS/syscaller $n 0 wait >/dev/null & TP=$!
	sleep 0.2
	exp_start -e syscalls:sys_enter_getppid -p $TP || return 1
	PROM_DIR=$(mktemp -d /tmp/ktrace-prom.XXXXXX)
	PROM_PORT=$(free_port)
	cat >"$PROM_DIR/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ktrace
    static_configs:
      - targets: ['127.0.0.1:$EXP_PORT']
EOC
	prometheus --config.file="$PROM_DIR/prometheus.yml" \
		--storage.tsdb.path="$PROM_DIR/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		>"$PROM_DIR/log" 2>&1 & PROM_PID=$!
	# the counter before the workload runs: 0, as Prometheus sees it
	for _ in $(seq 300); do
		v=$(prom_query 'ktrace_events_total{event="syscalls:sys_enter_getppid"}')
		[ -n "$v" ] && break
		sleep 0.1
	done
	expect_eq "first value Prometheus scraped" "$v" 0 || return 1
	kill -USR1 $TP
	wait $TP
	TP=
	for _ in $(seq 100); do
		v=$(prom_query 'ktrace_events_total{event="syscalls:sys_enter_getppid"}')
		[ "$v" = $n ] && break
		sleep 0.1
	done
	expect_eq "getppid calls in Prometheus" "$v" $n || return 1
	expect_eq "up" "$(prom_query 'up{job="ktrace"}')" 1 || return 1
	v=$(prom_query 'ktrace_scrape_duration_seconds < 0.1')
	[ -n "$v" ] || fail "no scrape under 0.1 s in Prometheus" || return 1
	echo "scrape duration as Prometheus stored it: $v s"
	exp_stop TERM
}

t_export_http() {
	trap exp_cleanup EXIT
	exp_start -e syscalls:sys_enter_getppid,sched:sched_switch || return 1
	url=http://127.0.0.1:$EXP_PORT
	body=$(curl -sf $url/metrics) || fail "GET /metrics failed" || return 1
	expect_contains "getppid counter" "$body" \
		'ktrace_events_total{event="syscalls:sys_enter_getppid"} ' || return 1
	expect_contains "HELP" "$body" '# HELP ktrace_scrape_duration_seconds ' || return 1
	if command -v promtool >/dev/null; then
		out=$(printf '%s\n' "$body" | promtool check metrics 2>&1) ||
			fail "promtool check metrics: $out" || return 1
	else
		echo "promtool not installed: its check skipped"
	fi
	ct=$(curl -s -o /dev/null -w '%{content_type}' $url/metrics)
	expect_eq "content type" "$ct" "text/plain; version=0.0.4; charset=utf-8" || return 1
	expect_eq "POST" "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 $url/metrics)" 405 || return 1
	expect_eq "HEAD" "$(curl -s -o /dev/null -w '%{http_code}' -I $url/metrics)" 405 || return 1
	expect_eq "other path" "$(curl -s -o /dev/null -w '%{http_code}' $url/)" 404 || return 1
	rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$EXP_PID/status)
	load=$(python3 tests/integration/exporter_load.py $EXP_PORT 200 10) ||
		fail "exporter_load.py failed" || return 1
	rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$EXP_PID/status)
	echo "$load rss_kb=$rss0->$rss1"
	expect_contains "all scrapes answered" "$load" "scrapes=10 ok=10" || return 1
	expect_contains "idle connections kept" "$load" "idle=200 open=200" || return 1
	ms=$(echo "$load" | sed -n 's/.*max_ms=\([0-9]*\).*/\1/p')
	[ "$ms" -lt 500 ] || fail "a scrape took $ms ms beside the idle and slow clients" || return 1
	case $load in *huge=200*) fail "a 64 KiB header was taken: $load"; return 1 ;; esac
	case $load in *bad=200*) fail "a malformed request was answered: $load"; return 1 ;; esac
	[ $((rss1 - rss0)) -lt 65536 ] || fail "RSS grew by $((rss1 - rss0)) KiB" || return 1
	curl -sf $url/metrics >/dev/null || fail "no scrape after the load" || return 1
	exp_stop INT
}

t_export_errors() {
	expect_status 2 $KTRACE export || return 1
	expect_contains "what to export" "$ERR" "what to export" || return 1
	expect_status 2 $KTRACE export -e sched:sched_switch -l 127.0.0.1 || return 1
	expect_status 2 $KTRACE export -e sched:sched_switch -- true || return 1
	expect_status 1 $KTRACE export -e no_such:event -l 127.0.0.1:0 || return 1
	# a taken port
	exp_start -e sched:sched_switch || return 1
	trap exp_cleanup EXIT
	expect_status 1 $KTRACE export -e sched:sched_switch -l 127.0.0.1:$EXP_PORT || return 1
	expect_contains "taken port" "$ERR" "cannot listen on 127.0.0.1:$EXP_PORT" || return 1
	exp_stop TERM || return 1
	# -d ends it with 0
	expect_status 0 $KTRACE export -e sched:sched_switch -l 127.0.0.1:0 -d 0.3 || return 1
	# no hist triggers on this kernel: said before an instance is made
	if ! [ -e $TFS/events/raw_syscalls/sys_enter/hist ]; then
		# the recipes of this tree, whichever ktrace runs (ASan's is
		# not next to probes/)
		export KTRACE_PROBES_DIR=$PWD/probes
		expect_status 1 $KTRACE export -r syscalls-by-name -l 127.0.0.1:0 || return 1
		expect_contains "no hist triggers" "$ERR" "hist" || return 1
	fi
}

# --web-config: TLS with a self-signed certificate, basic auth with a
# bcrypt hash (crypt(3) through perl), and refusals of what is not supported
t_export_tls_and_basic_auth() {
	command -v openssl >/dev/null || { echo "SKIP: openssl is not installed"; return 77; }
	trap exp_cleanup EXIT
	W=$(mktemp -d /tmp/ktrace-web.XXXXXX)
	PROM_DIR=$W	# removed by exp_cleanup
	openssl req -x509 -newkey rsa:2048 -nodes -keyout $W/key.pem \
		-out $W/cert.pem -days 1 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 2>/dev/null ||
		fail "openssl req failed" || return 1
	hash=$(perl -e 'print crypt("s3cret", "\$2b\$05\$abcdefghijklmnopqrstuu")')
	case $hash in '$2b$05$'*) ;; *) fail "no bcrypt from crypt(3): $hash"; return 1 ;; esac
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prom: %s\n' \
		$W/cert.pem $W/key.pem "$hash" >$W/web.yml
	exp_start -e sched:sched_switch --web-config $W/web.yml || return 1
	expect_contains "https said" "$(cat "$EXP_ERR")" "serving https://127.0.0.1:$EXP_PORT/metrics" || return 1
	url=https://127.0.0.1:$EXP_PORT/metrics
	code() { curl -s -o /dev/null -w '%{http_code}' --cacert $W/cert.pem "$@"; }
	expect_eq "right password" "$(code -u prom:s3cret $url)" 200 || return 1
	expect_eq "wrong password" "$(code -u prom:wrong $url)" 401 || return 1
	expect_eq "unknown user" "$(code -u nobody:s3cret $url)" 401 || return 1
	expect_eq "no credentials" "$(code $url)" 401 || return 1
	expect_eq "plain http" "$(code http://127.0.0.1:$EXP_PORT/metrics)" 000 || return 1
	body=$(curl -sf --cacert $W/cert.pem -u prom:s3cret $url) || fail "scrape failed" || return 1
	expect_contains "scraped over TLS" "$body" 'ktrace_events_total{event="sched:sched_switch"}' || return 1
	exp_stop TERM || return 1
	printf 'http_server_config:\n  http2: false\n' >$W/bad.yml
	expect_status 1 $KTRACE export -e sched:sched_switch -l 127.0.0.1:0 --web-config $W/bad.yml || return 1
	expect_contains "unsupported key" "$ERR" "'http_server_config' is not supported" || return 1
	printf 'basic_auth_users:\n  prom: s3cret\n' >$W/bad.yml
	expect_status 1 $KTRACE export -e sched:sched_switch -l 127.0.0.1:0 --web-config $W/bad.yml || return 1
	expect_contains "plain password" "$ERR" "not a bcrypt hash" || return 1
	printf 'tls_server_config:\n  cert_file: %s\n' $W/cert.pem >$W/bad.yml
	expect_status 1 $KTRACE export -e sched:sched_switch -l 127.0.0.1:0 --web-config $W/bad.yml || return 1
	expect_contains "key missing" "$ERR" "needs cert_file and key_file" || return 1
}
