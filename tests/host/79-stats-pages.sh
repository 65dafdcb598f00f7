#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stats at scale, with what this host can hook: 150 tracepoint
# attachments at start-up (the config's lines), each filtered on the comm
# ts79, so their counts are the test's own: task_rename gets N calls (a
# worker renaming itself), every other one 0. The stats reply is sorted
# by calls (most first, equal calls in id order), paged by offset and
# limit with the total row count, and a page past 128 rows is streamed
# (the 150-row reply parses whole, its rows the pages' members in their
# order); limit 0 gives the attachments' sums
# only (what `tracectl top` reads). tracectl stats shows the 20 busiest
# rows and says how many it left out, --top N and --all show more.
# Five of the attachments have --stacks: a stats reply, a list and a
# scrape each read the stack table once (status stack_table_reads), not
# once per hooked function. /metrics.json pages each attachment's
# functions (offset, limit, functions_total, functions_other) and
# refuses any other query with 400.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=7
NATT=150
NSTACKS=5

# raw CMD ARGS_JSON: one request on the control socket, the reply line on stdout
cat > "$W/raw.py" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall((json.dumps({"v": 1, "cmd": sys.argv[2], "args": json.loads(sys.argv[3]),
                       "id": 1}) + "\n").encode())
buf = b""
while not buf.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    buf += chunk
sys.stdout.write(buf.decode())
EOF
raw() { python3 "$W/raw.py" "$W/s.sock" "$1" "$2"; }

# the tracepoints to attach: tp_btf ones, as this kernel lists them (a
# first daemon, with no attachment, answers `functions`)
start_daemon
$C --json functions 'tp:*' --limit 100000 > "$W/tps.json" || fail "functions tp:*"
stop_daemon
jq -r '.functions[] | select(.via == "tp_btf") | .name' < "$W/tps.json" |
	grep -v '^tp:task/task_rename$' | head -n $((NATT - 1)) > "$W/tps.txt"
[ "$(wc -l < "$W/tps.txt")" = $((NATT - 1)) ] || skip "fewer than $NATT tp_btf tracepoints here"
{
	echo "listen = 127.0.0.1:$PORT"
	echo "attach = tp:task/task_rename comm=ts79"
	head -n "$NSTACKS" "$W/tps.txt" | sed 's/^/attach = /; s/$/ comm=ts79 stacks=8/'
	tail -n +$((NSTACKS + 1)) "$W/tps.txt" | sed 's/^/attach = /; s/$/ comm=ts79/'
} > "$W/conf.txt"
start_daemon_conf "$(cat "$W/conf.txt")"
for i in $(seq 600); do
	n=$($C --json status 2> /dev/null | jq_get '.attachments + .config.attach_failed')
	[ "$n" = "$NATT" ] && break
	sleep 0.1
done
expect_eq "attached at start-up" "$($C --json status | jq_get .attachments)" "$NATT"
for i in $(seq 50); do curl -sf "$U/healthz" > /dev/null && break; sleep 0.1; done
(
	printf ts79 > /proc/self/comm
	for ((i = 0; i < N; i++)); do printf ts79 > /proc/self/comm; done
)
rename_id=$($C --json list | jq_get '.attachments[] | select(.target == "tp:task/task_rename") | .id')

# --- sorted, counted, paged
raw stats '{}' > "$W/all.json"
r() { jq_get ".result | $1" < "$W/all.json"; }
expect_eq "all rows (streamed: more than 128)" "$(r '.stats | length')" "$NATT"
expect_eq "total" "$(r .total)" "$NATT"
expect_eq "sort key" "$(r .sort)" calls
expect_eq "no limit asked: null" "$(r .limit)" null
expect_eq "the busiest first" "$(r '.stats[0].id')" "$rename_id"
expect_eq "its calls" "$(r '.stats[0].calls')" "$N"
expect_eq "then the quiet ones, in id order" \
	"$(r '[.stats[1:][] | .id] == ([.stats[1:][] | .id] | sort)')" true
expect_eq "calls never increase" "$(r '[.stats[].calls] == ([.stats[].calls] | sort | reverse)')" true
ids_all=$(r '[.stats[].id] | join(",")')
pages=
: > "$W/rows.pages"
for off in 0 50 100 150; do
	raw stats "{\"limit\": 50, \"offset\": $off}" > "$W/p.json"
	jq -c '.result.stats[]' < "$W/p.json" >> "$W/rows.pages"
	expect_eq "page $off: total" "$(jq_get .result.total < "$W/p.json")" "$NATT"
	expect_eq "page $off: offset, limit" "$(jq_get '"\(.result.offset) \(.result.limit)"' < "$W/p.json")" \
		"$off 50"
	expect_eq "page $off: rows" "$(jq_get '.result.stats | length' < "$W/p.json")" \
		$((off < NATT ? 50 : 0))
	pages+=$(jq_get '[.result.stats[].id] | map(tostring) | map(. + ",") | add // ""' < "$W/p.json")
done
expect_eq "the pages together are every row, in order" "${pages%,}" "$ids_all"
# the streamed rows of counting-only attachments are written as text
# (daemon/stats.c, whole_row_text), a page of 50 through json-c: the same
# members, in the same order, with the same values
expect_eq "streamed rows that differ from the pages' (json-c's)" \
	"$(jq -c '.result.stats[]' < "$W/all.json" | diff - "$W/rows.pages" | grep -c '^[<>]')" 0
raw stats '{"limit": 0}' > "$W/l0.json"
expect_eq "limit 0: no rows" "$(jq_get '.result.stats | length' < "$W/l0.json")" 0
expect_eq "limit 0: total" "$(jq_get .result.total < "$W/l0.json")" "$NATT"
expect_eq "limit 0: every attachment's sums" \
	"$(jq_get '.result.attachments | length' < "$W/l0.json")" "$NATT"
expect_eq "the attachments' calls = the rows' calls" \
	"$(jq_get '[.result.attachments[].calls] | add' < "$W/l0.json")" "$(r '[.stats[].calls] | add')"
raw stats '{"merge": true, "limit": 3}' > "$W/m.json"
expect_eq "merged: the busiest function first" "$(jq_get '.result.stats[0].function' < "$W/m.json")" \
	task_rename
expect_eq "merged: total" "$(jq_get .result.total < "$W/m.json")" "$NATT"
for bad in '{"limit": -1}' '{"offset": -1}' '{"limit": "5"}' '{"limit": 2147483648}'; do
	expect_eq "stats $bad refused" "$(raw stats "$bad" | jq_get .error.code)" bad_request
done

# --- tracectl: the 20 busiest unless told
$C stats > "$W/t.txt" || fail "tracectl stats"
expect_eq "table: 20 rows" "$(grep -c 'tp-btf' "$W/t.txt")" 20
expect_eq "table: first row" "$(awk 'NR == 2 { print $1, $4 }' "$W/t.txt")" "$rename_id $N"
grepq -Fx "(20 of $NATT rows, most calls first: --top N for more, --all for all)" "$W/t.txt" ||
	fail "no note of the rows left out: $(tail -n 2 "$W/t.txt")"
expect_eq "--top 5" "$($C stats --top 5 | grep -c tp-btf)" 5
expect_eq "--all" "$($C stats --all | grep -c tp-btf)" "$NATT"
$C stats --all | grepq -F "rows, most calls first" && fail "--all still notes rows left out"
expect_eq "--json: every row" "$($C --json stats | jq_get '.stats | length')" "$NATT"
expect_eq "--json --top 7" "$($C --json stats --top 7 | jq_get '.stats | length')" 7
$C top --count 1 > "$W/top.txt" || fail "tracectl top"
expect_eq "top: the busiest attachment first" "$(awk 'NR == 3 { print $1 }' "$W/top.txt")" "$rename_id"

# --- the stack table: one pass per request, however many --stacks hooks
reads() { $C --json status | jq_get .stack_table_reads; }
before=$(reads)
raw stats '{"stacks": true}' > /dev/null
expect_eq "stats with $NSTACKS --stacks hooks: one read" "$(($(reads) - before))" 1
before=$(reads)
$C --json list > /dev/null
expect_eq "list: one read" "$(($(reads) - before))" 1
before=$(reads)
curl -sf "$U/metrics" > "$W/m.prom" || fail "scrape"
expect_eq "scrape: one read" "$(($(reads) - before))" 1
expect_eq "stacks_dropped series" "$(grep -c '^tracerd_stacks_dropped_total{' "$W/m.prom")" "$NSTACKS"

# --- /metrics.json pages, /metrics' per-function series
curl -sf "$U/metrics.json" > "$W/m.json" || fail "metrics.json"
expect_eq "json: functions_total" "$(jq_get '[.attachments[].functions_total] | add' < "$W/m.json")" "$NATT"
expect_eq "json: every function in the default page" \
	"$(jq_get '[.attachments[].functions | length] | add' < "$W/m.json")" "$NATT"
curl -sf "$U/metrics.json?offset=1&limit=5" > "$W/m1.json" || fail "metrics.json?offset=1"
expect_eq "json offset 1: no function in the page" \
	"$(jq_get '[.attachments[].functions | length] | add' < "$W/m1.json")" 0
expect_eq "json offset 1: each one the other" \
	"$(jq_get '[.attachments[].functions_other.functions] | add' < "$W/m1.json")" "$NATT"
expect_eq "json offset 1: other's calls" \
	"$(jq_get ".attachments[] | select(.id == $rename_id) | .functions_other.calls" < "$W/m1.json")" "$N"
for q in 'foo=1' 'limit=0' 'offset=-1' 'limit=5&limit=6' 'offset=x'; do
	expect_eq "metrics.json?$q" "$(curl -s -o /dev/null -w '%{http_code}' "$U/metrics.json?$q")" 400
done
expect_eq "per-function series: one per attachment (no __other__: 1 function each)" \
	"$(grep -c '^tracerd_function_calls_total{' "$W/m.prom")" "$NATT"
stop_daemon
