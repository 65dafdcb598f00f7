#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #12, classes 1 and 3 from tracectl's side: a fake daemon answers
# every command with null, mistyped fields, escape sequences, invalid UTF-8
# or \u0000. tracectl never crashes, never prints a control character raw,
# and its --json output is valid UTF-8. No root, no BPF.
source "$(dirname "$0")/lib/daemon.bash"
command -v python3 >/dev/null || skip "python3 not installed"
C="$TRACECTL --socket $W/fake.sock"

python3 - "$W/fake.sock" "$W/reply" <<'PY' &
import os, socket, sys
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sys.argv[1])
srv.listen(16)
while True:
    c, _ = srv.accept()
    c.settimeout(5)
    buf = b""
    try:
        while b"\n" not in buf:
            d = c.recv(65536)
            if not d:
                break
            buf += d
    except OSError:
        pass
    with open(sys.argv[2], "rb") as f:
        c.sendall(f.read().rstrip(b"\n") + b"\n")
    c.close()
PY
FAKE=$!
trap 'kill $FAKE 2>/dev/null; cleanup' EXIT
for i in $(seq 50); do [ -S "$W/fake.sock" ] && break; sleep 0.1; done

E=$'\\u001b'	# an ESC, JSON-escaped
replies=(
	'{"v":1,"ok":true,"result":null}'
	'{"v":1,"ok":true,"result":[]}'
	'{"v":1,"ok":true,"result":{"attachments":null,"stats":null,"detached":null,"features":null,"kmod":null,"attachment":null,"skipped":null}}'
	'{"v":1,"ok":true,"result":{"attachments":"x","stats":7,"detached":{},"features":[],"kmod":"y","attachment":[],"skipped":"z"}}'
	'{"v":1,"ok":true,"result":{"attachments":[null,1,"x",{"functions":"f","since":"s","id":"i","target":null,"sites":{}},{"sites":[null,7]}]}}'
	'{"v":1,"ok":true,"result":{"features":{"a":null,"b":7,"c":{"available":"yes","reason":5}},"kmod":{"present":true,"config":[1],"abi_major":"x"},"uptime_s":"u"}}'
	'{"v":1,"ok":true,"result":{"stats":[null,{"id":null,"latency":{"buckets":"x"}},{"id":{},"latency":{"buckets":[null,{"count":"c"}]}},{"misses":"m","latency":7}]}}'
	'{"v":1,"ok":true,"result":{"detached":[null,{},"x",7]}}'
	'{"v":1,"ok":true,"result":{"attachment":{"functions":"x"},"skipped":[null,{"function":null}]}}'
	'{"v":1,"ok":false,"error":null}'
	'{"v":1,"ok":false,"error":{"code":null,"message":null}}'
	'{"v":1,"ok":"yes","error":7}'
	'{"v":1,"ok":true,"result":{"attachments":[{"id":1,"target":"'$E'[2J'$E']0;title\u0007","mode":"'$E'[31m","mode_reason":"\u009b31m\u202e","functions":["'$E'"],"sites":[{"function":"'$E'[1m","path":"\r","target":"\b"}]}]}}'
	'{"v":1,"ok":true,"result":{"features":{"'$E'[5m":{"available":true,"reason":"'$E'c"}},"kernel":"'$E'[2J","arch":"\u0007","version":"\u007f","kmod":{"present":true,"module_version":"'$E'P","config":{"'$E'[8m":true}}}}'
	'{"v":1,"ok":true,"result":{"stats":[{"id":1,"function":"'$E'[2J","mode":"\r\n","latency":{"buckets":[{"lo_ns":1,"hi_ns":2,"count":3}]}}]}}'
	'{"v":1,"ok":true,"result":{"attachment":{"id":1,"target":"'$E'[2J","mode":"x","functions":[]},"skipped":[{"function":"'$E'[2J","reason":"'$E'[K"}]}}'
	'{"v":1,"ok":false,"error":{"code":"not_found","message":"no '$E'[2J'$E']0;x\u0007 here\u009b"}}'
	'{"v":1,"ok":false,"error":{"code":"not_found","message":"nul \u0000 inside"}}'
	$'{"v":1,"ok":false,"error":{"code":"not_found","message":"bad \xff\xfe utf-8 \x1b[2J"}}'
	'{"v":1,"ok":true,"result":{"attachments":[{"target":"a\u0000b"}]}}'
	'not json at all'
)
has_ctl() { LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1" || LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$1"; }
n=0
for r in "${replies[@]}"; do
	printf '%s\n' "$r" > "$W/reply"
	for cmd in status list stats "stats 1" "detach 1" "attach tp:a/b"; do
		for json in "" --json; do
			timeout 10 $C $json $cmd > "$W/out" 2> "$W/err"; rc=$?
			[ "$rc" = 124 ] && fail "tracectl $json $cmd on $r: hung"
			[ "$rc" -ge 128 ] && fail "tracectl $json $cmd on $r: killed by signal $((rc - 128))"
			for f in out err; do
				has_ctl "$W/$f" && fail "tracectl $json $cmd on $r: raw control character on std$f: $(od -c "$W/$f" | head -4)"
				valid_utf8 "$W/$f" || fail "tracectl $json $cmd on $r: std$f not UTF-8"
			done
			n=$((n + 1))
		done
	done
done
ok "$n runs of tracectl on ${#replies[@]} hostile replies: no crash, nothing raw"
