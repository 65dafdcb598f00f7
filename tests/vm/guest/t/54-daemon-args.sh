# SPDX-License-Identifier: GPL-2.0-or-later
# ci-kernels: 6.12
# With what arguments (issue #32 items 4 and 6), in each BPF function
# mode this kernel has (fentry, kprobe, kprobe-multi on 6.12; the session
# and multi-fentry modes where the kernel has them). The test module's
# tracerd_testmod_args(int n, enum color, const void *ptr, const char *name)
# is called once per write to call_args with the values this test chose:
# an int, an enumerator and a number no enumerator has, pointers, a
# string with an escape byte, one longer than the 63 bytes kept, and a
# NULL one (it faults). attach --args --record prints exactly those
# values in tracectl dump (text, json, csv), read after the daemon is
# gone; --if counts exactly the calls that pass, in the kernel; the
# refusals say why.
source ./t/40-daemon-lib.sh
load_testmod
mkdir -p "$TD/rec"
daemon_start "record_dir = $TD/rec"
fn=tracerd_testmod_args
long=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-too-long
calls() {	# the four calls, in order
	echo "7 2 ffff888812345678 hello" > "$TESTMOD_DBG/call_args" || fail "call_args 1"
	printf -- '-5 40 0 x\033[31my\n' > "$TESTMOD_DBG/call_args" || fail "call_args 2"
	echo "4096 1 1 -" > "$TESTMOD_DBG/call_args" || fail "call_args 3"
	echo "10 99 dead $long" > "$TESTMOD_DBG/call_args" || fail "call_args 4"
}
# what text dump prints of them, after the comm column
want_text() {
	cat <<EOF
$fn(n=7, color=TM_GREEN, ptr=0xffff888812345678, name="hello")$1
$fn(n=-5, color=TM_BLUE, ptr=0x0, name="x\\x1b[31my")$2
$fn(n=4096, color=TM_RED, ptr=0x1, name=0x0 <fault>)$3
$fn(n=10, color=99, ptr=0xdead, name="${long:0:63}"...)$4
EOF
}

jl() { while read -r l; do jp "$1" <<< "$l"; done; }	# PATH of each JSON line
call_of() { grep -o "$fn(.*"; }	# the call of each text dump line

refused() {	# MSG ARGS...
	local msg=$1 out
	shift
	out=$($C attach "$@" 2>&1) && fail "accepted: attach $*"
	case $out in *"$msg"*) echo "ok: refused ($*): $msg" ;;
		*) fail "refused ($*): '$out' lacks '$msg'" ;; esac
}

# tp-btf's program reads a tracepoint's arguments too (tests/host/79-args-tp.sh)
echo "tp-btf available: $(feature tp-btf) $(reason_of tp-btf)"
tested=0
modes="fentry kprobe kprobe-multi kprobe-session fentry-multi fsession"
for m in $modes; do
	if [ "$(feature "$m")" != true ]; then
		echo "mode $m unavailable: $(reason_of "$m")"
		continue
	fi
	id=$($C --json attach $fn --mode "$m" --args --record "args-$m" | jp .attachment.id) ||
		fail "$m: attach --args"
	calls
	expect_eq "$m: calls" "$(calls_of "$id")" 4
	$C detach "$id" > /dev/null || fail "$m: detach"
	# --if in the kernel: the other calls are not counted at all
	for c in 'n < 0:1' 'color!=TM_RED:3'; do
		id=$($C --json attach $fn --mode "$m" --if "${c%:*}" | jp .attachment.id) ||
			fail "$m: attach --if '${c%:*}'"
		calls
		expect_eq "$m --if '${c%:*}': calls" "$(calls_of "$id")" "${c##*:}"
		$C detach "$id" > /dev/null || fail "$m: detach"
	done
	# --if with --args: only the calls that pass are recorded
	id=$($C --json attach $fn --mode "$m" --args --if 'n>=10' --record "if-$m" |
		jp .attachment.id) || fail "$m: attach --args --if"
	calls
	$C detach "$id" > /dev/null || fail "$m: detach"
	tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no BPF function mode here"
# --args --latency: fentry's exit sees the arguments; a return probe does not
if [ "$(feature fentry)" = true ]; then
	id=$($C --json attach $fn --mode fentry --args --latency --record lat |
		jp .attachment.id) || fail "fentry --args --latency"
	calls
	$C detach "$id" > /dev/null || fail "fentry lat: detach"
fi
if [ "$(feature kprobe)" = true ]; then
	refused "mode kprobe has no arguments at the return" $fn --mode kprobe --args --latency \
		--record r
fi
refused "has no record, arguments" $fn --mode kmod-kprobe --args --record r
refused "has no arguments" $fn --mode kmod-kprobe --if 'n>=1'
refused "'tracerd_testmod_args' --if: no argument named 'count'" $fn --if 'count>=1'
refused "--if: argument 'ptr' is a pointer" $fn --if 'ptr==0'
refused "--if: argument 'name' is a pointer" $fn --if 'name==0'
refused "--if: 5000000000 does not fit its 4-byte signed type" $fn --if 'n>=5000000000'
refused "--if: 'TM_PINK' is no value of its enum type" $fn --if 'color==TM_PINK'
refused "--if: 'x' is no integer" $fn --if 'n==x'
refused "invalid --if 'n=>1'" $fn --if 'n=>1'
refused "'tracerd_testmod_vararg' is variadic" tracerd_testmod_vararg --args --record r
refused "'tracerd_testmod_args10' has 10 arguments" tracerd_testmod_args10 --if 'a>0'
refused "--args needs --record NAME" $fn --args
expect_eq "nothing left attached" "$($C --json list | jp '.attachments|length')" 0
daemon_stop	# the records are read without the daemon

for m in $modes; do
	f=$TD/rec/args-$m.trec
	[ -e "$f" ] || continue
	tracectl dump "$f" | grep -v '^#' | call_of > "$TD/d.txt" || fail "$m: dump"
	expect_eq "$m: text dump" "$(cat "$TD/d.txt")" "$(want_text)"
	tracectl dump --json "$f" > "$TD/d.json" || fail "$m: dump --json"
	expect_eq "$m: json n" "$(jl '.args.n' < "$TD/d.json" | tr '\n' ' ')" "7 -5 4096 10 "
	expect_eq "$m: json color" "$(jl '.args.color' < "$TD/d.json" | tr '\n' ' ')" \
		"TM_GREEN TM_BLUE TM_RED 99 "
	expect_eq "$m: json fault" "$(sed -n 3p "$TD/d.json" | jp '.args.name.fault')" 0x0
	expect_eq "$m: json escape byte kept (as JSON escapes it)" \
		"$(sed -n 2p "$TD/d.json" | jp '.args.name')" $'x\e[31my'
	expect_eq "$m: json truncated" "$(sed -n 4p "$TD/d.json" | jp '.args_truncated[0]')" name
	# RFC 4180: the field quoted, its quotes doubled
	tracectl dump --format csv "$f" | sed -n 3p | tr -d '\r' | grep -qF \
		',"n=-5;color=TM_BLUE;ptr=0x0;name=""x\x1b[31my"""' ||
		fail "$m: csv args: $(tracectl dump --format csv "$f" | sed -n 3p)"
	tracectl dump "$f" | grep -q $'\e' && fail "$m: an escape byte reached the terminal"
	f=$TD/rec/if-$m.trec
	expect_eq "$m --args --if: recorded n" \
		"$(tracectl dump --json "$f" | jl '.args.n' | tr '\n' ' ')" "4096 10 "
done
if [ -e "$TD/rec/lat.trec" ]; then
	# ret = n + color; the duration as text prints it
	tracectl dump "$TD/rec/lat.trec" | grep -v '^#' | call_of |
		sed 's/ ([0-9.]* us)$/ (D us)/' > "$TD/d.txt"
	expect_eq "fentry --args --latency: text dump" "$(cat "$TD/d.txt")" \
		"$(want_text ' = 9 (D us)' ' = 35 (D us)' ' = 4097 (D us)' ' = 109 (D us)')"
fi
