#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The monitoring package against the real thing (Debian's Prometheus):
# promtool checks and unit-tests the rules (monitoring/tracerd.rules.yml);
# every series the rules and the Grafana dashboard query is one tracerd
# exports or the rules record; a real Prometheus scraping a private daemon
# answers a PromQL query with exactly the count `tracectl stats` gives, and
# evaluates the recording rules on it; a second Prometheus in agent mode
# forwards the same series with remote_write (docs/fleet.md).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v promtool >/dev/null && command -v prometheus >/dev/null ||
	skip "prometheus/promtool not installed (Debian package prometheus; make deps)"
command -v curl >/dev/null || skip "curl not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
M=$SRC/monitoring
N=300

out=$(promtool check rules "$M/tracerd.rules.yml" 2>&1) || fail "promtool check rules: $out"
ok "promtool check rules"
out=$(cd "$M" && promtool test rules tracerd.rules.test.yml 2>&1) || fail "promtool test rules: $out"
ok "promtool test rules"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$M/grafana-tracerd.json" ||
	fail "dashboard is not JSON"
mkdir -p "$W/samples"
METRICS_SAMPLE_DIR=$W/samples "$O/tests/unit/test_metrics" > /dev/null || fail "test_metrics"

start_daemon_conf "listen = 127.0.0.1:$PORT"
for i in $(seq 50); do curl -sf "$U/healthz" > /dev/null && break; sleep 0.1; done
me=$BASHPID
$C --json attach tp:task/task_rename --pid "$me" > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < N; i++)); do printf t66 > /proc/self/comm; done
expect_eq "tracectl stats calls" "$($C --json stats "$id" | jq_get '.stats[0].calls')" "$N"
curl -sf "$U/metrics" > "$W/live.prom" || fail "GET /metrics"
python3 "$SRC/tests/host/monitoring-names.py" "$M/tracerd.rules.yml" "$M/grafana-tracerd.json" \
	"$W/live.prom" "$W/samples"/*.prom || fail "rules or dashboard query unknown series"

# prom NAME PORT EXTRA_ARGS...: a private Prometheus with its config in $W/NAME.yml
prom() {
	local name=$1 port=$2
	shift 2
	prometheus --config.file="$W/$name.yml" --web.listen-address="127.0.0.1:$port" \
		"$@" > "$W/$name.log" 2>&1 &
	echo $! > "$W/$name.pid"
	for i in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && return 0
		kill -0 "$(cat "$W/$name.pid")" 2> /dev/null || { tail "$W/$name.log"; fail "$name exited"; }
		sleep 0.2
	done
	fail "$name not ready: $(tail -n 5 "$W/$name.log")"
}
# query PORT PROMQL: the value of the first sample, or "" when none
query() {
	curl -sfG "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		jq -r '.data.result[0].value[1] // empty'
}
# wait_value PORT PROMQL WANT: poll (scrapes every second) until it gives WANT
wait_value() {
	local v=
	for i in $(seq 60); do
		v=$(query "$1" "$2")
		[ "$v" = "$3" ] && return 0
		sleep 0.5
	done
	echo "$v"
	return 1
}
stop_proms() {
	local p pid
	for p in "$W"/*.pid; do
		[ -f "$p" ] || continue
		pid=$(cat "$p")
		kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
		rm -f "$p"
	done
}
trap 'stop_proms; cleanup' EXIT

CPORT=$((PORT + 1)) APORT=$((PORT + 2))
cat > "$W/central.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$M/tracerd.rules.yml"]
scrape_configs:
  - job_name: tracerd
    static_configs: [{targets: ["127.0.0.1:$PORT"]}]
YML
prom central "$CPORT" --storage.tsdb.path="$W/central-data" --web.enable-remote-write-receiver
got=$(wait_value "$CPORT" "tracerd_calls_total{job=\"tracerd\",id=\"$id\"}" "$N") ||
	fail "Prometheus: tracerd_calls_total of attachment $id is '$got', want $N"
ok "PromQL tracerd_calls_total{id=\"$id\"} = $N, as tracectl stats"
got=$(wait_value "$CPORT" "count(tracerd:calls:rate1m{id=\"$id\"})" 1) ||
	fail "recording rule tracerd:calls:rate1m not evaluated (got '$got')"
ok "recording rule tracerd:calls:rate1m evaluated"
got=$(wait_value "$CPORT" "tracerd_feature_available{job=\"tracerd\",mode=\"tp-btf\"}" 1) ||
	fail "tracerd_feature_available{mode=tp-btf} is '$got'"
ok "tracerd_feature_available{mode=\"tp-btf\"} = 1"

# the fleet pattern: an agent scrapes the host and remote-writes to the central one
cat > "$W/agent.yml" <<YML
global: {scrape_interval: 1s, external_labels: {fleet_host: agent-1}}
scrape_configs:
  - job_name: tracerd-agent
    static_configs: [{targets: ["127.0.0.1:$PORT"]}]
remote_write:
  - url: http://127.0.0.1:$CPORT/api/v1/write
YML
prom agent "$APORT" --enable-feature=agent --storage.agent.path="$W/agent-data"
got=$(wait_value "$CPORT" "tracerd_calls_total{fleet_host=\"agent-1\",id=\"$id\"}" "$N") ||
	fail "remote_write: the central Prometheus has '$got' from the agent, want $N"
ok "agent-mode Prometheus forwarded tracerd_calls_total = $N with remote_write"
for ((i = 0; i < 7; i++)); do printf t66b > /proc/self/comm; done
got=$(wait_value "$CPORT" "tracerd_calls_total{fleet_host=\"agent-1\",id=\"$id\"}" $((N + 7))) ||
	fail "remote_write after 7 more calls: '$got', want $((N + 7))"
ok "the forwarded series follows the count ($((N + 7)))"
stop_proms
stop_daemon
