# SPDX-License-Identifier: GPL-2.0-or-later
# bench attaches through the registry like any client, in attachments it
# owns (docs/bench.md, "Protocol"):
#   1. a user's attachments of the bench's function and mode survive a
#      bench run (and its `unhook all`), and the bench's points still count
#      exactly (its own attachments, filtered to its pid);
#   2. bench sees and removes only its own: `list` names the owner, a
#      user's id is no bench handle, `unhook all` leaves the user's;
#   3. a variant the mode lacks, or the kernel lacks, is refused with the
#      reason before anything is done to the kernel (no module attachment,
#      no ftrace site, no link);
#   4. where a function takes one hook of a kind (kmod-direct: one direct
#      call), bench's point fails naming the user's attachment, which stays.
# timeout: 600 1800
# ci-kernels: 7.2 6.1-arm64
source ./t/40-daemon-lib.sh
[ -e /dev/tracerd ] || load_kmod
daemon_start
trap daemon_cleanup EXIT
F=$(sys_getpgid)
N=$(size 2000 20000)

# raw ARGS: the reply line of a bench request with these JSON args
raw() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"{\"v\": 1, \"cmd\": \"bench\", \"args\": " + sys.argv[2].encode() + b"}\n")
print(s.makefile().readline().strip())' "$SOCK" "$1"
}
code_of() { sed -n 's/.*"code": *"\([a-z_]*\)".*/\1/p'; }
owners() { $C --json list | jp '.attachments[*].owner' | sort | uniq -c | awk '{ print $2 "=" $1 }' | xargs; }
status() {	# status FILE KEY: the status of that point ("" when absent)
	jpath '.points[*].key' < "$1" > "$TD/keys"
	jpath '.points[*].status' < "$1" > "$TD/sts"
	paste "$TD/keys" "$TD/sts" | awk -v k="$2" '$1 == k { print $2 }'
}
reason() {	# reason FILE KEY
	local i
	i=$(jpath '.points[*].key' < "$1" | grep -n "^$2\$" | cut -d: -f1)
	jpath ".points[$((i - 1))].reason" < "$1"
}
kmod_atts() { kmodctl stats | sed -n 's/.*attachments=\([0-9]*\).*/\1/p'; }
sites() { wc -l < /sys/kernel/tracing/enabled_functions; }

# 1. user attachments of the trigger function, every process, the same modes
# (the BPF one fentry, or kprobe where the kernel has no fentry: arm64 6.1)
B=fentry
[ "$(feature fentry)" = true ] || B=kprobe
u_ops=$($C --json attach "$F" --mode kmod-callops | jp .attachment.id) || fail "user kmod-callops"
u_fen=$($C --json attach "$F" --mode $B | jp .attachment.id) || fail "user $B"
$C bench trigger --ci -n "$N" -r 1 -w 0 --modes kmod-callops,$B --variants count,empty \
	-o "$TD/t.json" > "$TD/t.txt" || fail "bench trigger beside user attachments: $(cat "$TD/t.txt")"
for k in kmod-callops/count $B/count $B/empty; do
	expect_eq "trigger $k beside the user's $k" "$(status "$TD/t.json" "$k")" ok
done
expect_eq "owners after the run (unhook all at its start, unhook per point)" "$(owners)" user=2
expect_eq "user attachments kept their ids" "$($C --json list | jp '.attachments[*].id' | xargs)" \
	"$u_ops $u_fen"
for id in "$u_ops" "$u_fen"; do
	c=$(calls_of "$id")
	[ "$c" -ge "$N" ] || fail "user attachment $id counted $c calls during the run (want >= $N)"
	echo "ok: user attachment $id hooked all along: $c calls"
done

# 2. a bench hook is an attachment of bench's own, in list; bench only sees its own
r=$(raw "{\"op\": \"hook\", \"mode\": \"kmod-callops\", \"pid\": $$}")
h=$(echo "$r" | sed -n 's/.*"handle": *\([0-9]*\).*/\1/p')
[ -n "$h" ] || fail "bench hook beside the user's: $r"
expect_eq "owners with a bench hook" "$(owners)" "bench=1 user=2"
$C list | grep -q "owner bench" || fail "tracectl list does not name the bench owner: $($C list)"
expect_eq "a user's id is no bench handle (read)" \
	"$(raw "{\"op\": \"read\", \"handle\": $u_ops}" | code_of)" not_found
expect_eq "a user's id is no bench handle (unhook)" \
	"$(raw "{\"op\": \"unhook\", \"handle\": $u_ops}" | code_of)" not_found
expect_eq "unhook all: bench's only" "$(raw '{"op": "unhook", "all": true}' |
	sed -n 's/.*"removed": *\([0-9]*\).*/\1/p')" 1
expect_eq "owners after unhook all" "$(owners)" user=2
$C detach --all > /dev/null || fail "detach --all"

# 3. refused before the kernel is touched: variants a mode does not have,
# options a variant does not have, variants this kernel lacks
atts0=$(kmod_atts) sites0=$(sites)
refuse() {	# refuse WHAT CODE PATTERN ARGS_JSON
	local r
	r=$(raw "$4")
	expect_eq "$1: code" "$(echo "$r" | code_of)" "$2"
	echo "$r" | grep -q "$3" || fail "$1: reply '$r' lacks '$3'"
}
refuse "kmod-direct save_regs" bad_request "mode kmod-direct has no variant save_regs" \
	"{\"op\": \"hook\", \"mode\": \"kmod-direct\", \"save_regs\": true, \"pid\": $$}"
refuse "fentry save_regs" bad_request "mode fentry has no variant save_regs" \
	"{\"op\": \"hook\", \"mode\": \"fentry\", \"save_regs\": true, \"pid\": $$}"
refuse "kmod-callops empty" bad_request "mode kmod-callops has no variant empty" \
	"{\"op\": \"hook\", \"mode\": \"kmod-callops\", \"variant\": \"empty\", \"pid\": $$}"
refuse "kmod-kprobe-int3 latency" bad_request "variant int3, has no latency" \
	"{\"op\": \"hook\", \"mode\": \"kmod-kprobe-int3\", \"variant\": \"latency\", \"pid\": $$}"
refuse "two variants" bad_request "one variant at a time" \
	"{\"op\": \"hook\", \"mode\": \"kprobe-int3\", \"variant\": \"empty\", \"save_regs\": true, \"pid\": $$}"
if [ "$(uname -m)" = aarch64 ]; then	# kprobes there always take BRK
	refuse "kmod-kprobe-int3 on arm64" unavailable "variant int3, is not available here: kmod: no int3" \
		"{\"op\": \"hook\", \"mode\": \"kmod-kprobe-int3\", \"pid\": $$}"
fi
if ! kernel_has fprobe; then
	refuse "kprobe-multi empty without fprobe" unavailable "mode kprobe-multi is not available" \
		"{\"op\": \"hook\", \"mode\": \"kprobe-multi\", \"variant\": \"empty\", \"pid\": $$}"
fi
if raw '{"op": "info"}' | grep -q '"save_regs": *false'; then
	refuse "kmod-callops save_regs where the kernel has none" unavailable \
		"variant save_regs, is not available here" \
		"{\"op\": \"hook\", \"mode\": \"kmod-callops\", \"save_regs\": true, \"pid\": $$}"
fi
expect_eq "module attachments after the refusals" "$(kmod_atts)" "$atts0"
expect_eq "ftrace sites after the refusals" "$(sites)" "$sites0"
expect_eq "BPF links after the refusals" "$(our_links)" 0
expect_eq "attachments after the refusals" "$($C --json list | jp '.attachments|length')" 0

# 4. one direct call per function: the user's kmod-direct stays, bench says whose it is
if [ "$(feature kmod-direct)" != true ]; then
	echo "kmod-direct unavailable here: part 4 skipped"
else
	u_dir=$($C --json attach "$F" --mode kmod-direct | jp .attachment.id) || fail "user kmod-direct"
	$C bench trigger --ci -n "$N" -r 1 -w 0 --modes kmod-direct -o "$TD/d.json" > "$TD/d.txt"
	expect_eq "trigger beside a user's kmod-direct: exit (an error point)" "$?" 1
	expect_eq "kmod-direct/count beside the user's" "$(status "$TD/d.json" kmod-direct/count)" error
	why=$(reason "$TD/d.json" kmod-direct/count)
	echo "$why" | grep -q "user attachment $u_dir (kmod-direct) hooks '$F'" ||
		fail "the error does not name the user's attachment: $why"
	echo "ok: kmod-direct/count: $why"
	expect_eq "owners after" "$(owners)" user=1
	[ "$(uname -m)" = x86_64 ] && expect_eq "the user's kmod-direct still branches direct" \
		"$($C --json list | jp '.attachments[0].sites[0].path')" direct
	c0=$(calls_of "$u_dir")
	[ "$c0" -gt 0 ] || fail "the user's kmod-direct counted nothing during the run"
	echo "ok: the user's kmod-direct counted $c0 calls"
	$C detach --all > /dev/null || fail "detach --all"
fi
daemon_stop
trap - EXIT
