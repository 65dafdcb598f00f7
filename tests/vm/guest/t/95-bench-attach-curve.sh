# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #34 item 4, the cost curve: `tracectl bench attach --kernel-funcs`
# attaches the first K of the kernel's traceable functions as one
# attachment per batching mode (attach '*' cut at K; all: every one) and
# reports the wall time, the daemon's CPU and VmRSS. Asserts points and
# states, never a duration: each point present; K points hook exactly K
# (times the runs); the all point hooks the names of
# available_filter_functions less those it skipped (the `skipped` label);
# a mode that takes a BPF slot per function (fentry-multi; kprobe-multi
# only counts here, its count tier takes none) is unavailable past the 4096
# slots, naming them; fentry-multi unavailable where the kernel lacks it;
# bpftrace's kprobe:* (--peers, check-full) ok or unavailable with its
# reason; then bench trigger --kernel-funcs: the hot function's calls all
# counted with K others hooked, the others exactly K, enabled_functions K
# + 1; nothing hooked afterwards. make check: K = 1 and 100 in three
# modes, all in kmod-callops (one whole-kernel attach, about 30 s of TCG
# each way); check-full: the curve 1 .. 10k and all in every batching
# mode, and the peer. The JSON goes to the host (emit_bench).
# ci-kernels: 6.12
# timeout: 900 3600
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
enabled=/sys/kernel/tracing/enabled_functions
daemon_start
trap daemon_cleanup EXIT

# point FILE KEY PATH...: the values at PATHs of point KEY ("" when absent)
point() {
	local f=$1 k=$2 i
	shift 2
	i=$(jp '.points[*].key' < "$f" | grep -nx -- "$k" | cut -d: -f1)
	[ -n "$i" ] || return 0
	local p=() q
	for q in "$@"; do p+=(".points[$((i - 1))]$q"); done
	jp "${p[@]}" < "$f"
}
# want KEY: the status a kernel point must have here
want() {
	local m=${1%%/*} k=${1##*/}
	case $m in
	fentry-multi) [ "$(feature fentry-multi)" = true ] || { echo unavailable; return; } ;;
	kmod-direct) bench_want kmod-direct/x; return ;;
	esac
	# a slot per function (TRACERD_MAX_SLOTS 4096): not 10k, nor all
	# (kprobe-multi only counts here: its count tier takes no slot)
	case $m:$k in fentry-multi:K10000|fentry-multi:all)
		echo unavailable; return ;;
	esac
	echo ok
}
names=$(sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u | wc -l)
# check FILE RUNS KEYS...: every point present with the status it must
# have, the functions hooked exact
check() {
	local f=$1 runs=$2 k st w hooked skipped counted
	shift 2
	for k in "$@"; do
		{ read -r st; read -r hooked; read -r counted; } < <(point "$f" "$k" .status \
			.labels.funcs .counts.functions.counted)
		w=$(want "$k")
		expect_eq "point $k" "$st" "$w"
		if [ "$w" = unavailable ]; then
			[ -n "$(point "$f" "$k" .reason)" ] || fail "point $k: no reason"
			case $k:$(feature fentry-multi) in fentry-multi/kernel/K10000:true|fentry-multi/kernel/all:true)
				point "$f" "$k" .reason | grep -q 'takes a slot per function' ||
					fail "point $k: reason: $(point "$f" "$k" .reason)" ;;
			esac
			continue
		fi
		case $k in
		*/all)	skipped=$(point "$f" "$k" .labels.skipped)
			expect_eq "point $k: hooked + skipped = the names of available_filter_functions" \
				$((hooked + skipped)) "$names"
			[ "$hooked" -gt $((names * 9 / 10)) ] || fail "point $k: only $hooked of $names hooked" ;;
		*)	expect_eq "point $k: functions hooked" "$hooked" "${k##*/K}" ;;
		esac
		expect_eq "point $k: functions counted over $runs runs" "$counted" $((runs * hooked))
		[ -n "$(point "$f" "$k" .values.attach_user_us.median)" ] || fail "point $k: no CPU time"
	done
}

if [ "${PROFILE:-ci}" = full ]; then
	runs=2
	$C bench attach --kernel-funcs --peers -r $runs -w 0 -o "$TD/curve.json" --svg "$TD/curve.svg" ||
		fail "bench attach --kernel-funcs failed (exit $?)"
	keys=()
	for m in kprobe-multi kmod-callops kmod-direct fentry-multi; do
		for k in K1 K10 K100 K1000 K10000 all; do keys+=("$m/kernel/$k"); done
	done
	check "$TD/curve.json" $runs "${keys[@]}"
	st=$(point "$TD/curve.json" bpftrace-kprobe/kernel/all .status)
	case $st in
	ok) echo "ok: bpftrace kprobe:* measured" ;;
	unavailable) echo "ok: bpftrace kprobe:* unavailable: $(point "$TD/curve.json" \
		bpftrace-kprobe/kernel/all .reason)" ;;
	*) fail "bpftrace kprobe:* point: '$st'" ;;
	esac
	$C bench show "$TD/curve.json" | grep -q '^at all' || fail "bench show: no ratios"
else
	runs=1
	$C bench attach --kernel-funcs -k 1,100 --modes kprobe-multi,kmod-callops,kmod-direct \
		-r $runs -w 0 -o "$TD/curve.json" --svg "$TD/curve.svg" ||
		fail "bench attach --kernel-funcs -k 1,100 failed (exit $?)"
	check "$TD/curve.json" $runs kprobe-multi/kernel/K1 kprobe-multi/kernel/K100 \
		kmod-callops/kernel/K1 kmod-callops/kernel/K100 kmod-direct/kernel/K1 \
		kmod-direct/kernel/K100
	$C bench attach --kernel-funcs -k all --modes kmod-callops -r $runs -w 0 \
		-o "$TD/all.json" || fail "bench attach --kernel-funcs -k all failed (exit $?)"
	check "$TD/all.json" $runs kmod-callops/kernel/all
	$C bench show "$TD/all.json"
fi
grep -q '<polyline' "$TD/curve.svg" || fail "curve.svg: no line"

# The second half: the hot function's cost with K others hooked (bench
# trigger --kernel-funcs): at each K the hot hook counted every call made,
# the others hooked exactly K functions (all: those listed less the
# skipped), and ftrace's enabled_functions held them and the hot one.
if [ "${PROFILE:-ci}" = full ]; then
	hot_modes=(kmod-callops kmod-direct kprobe-multi) hot_ks=(K0 K1000 all) hot_n=20000
else
	hot_modes=(kmod-callops) hot_ks=(K0 K1000) hot_n=2000
fi
hot_k=$(IFS=,; echo "${hot_ks[*]}" | sed 's/K//g')
hot_m=$(IFS=,; echo "${hot_modes[*]}")
$C bench trigger --kernel-funcs -k "$hot_k" --modes "$hot_m" -n $hot_n -r 2 -w 0 \
	-o "$TD/hot.json" > "$TD/hot.txt" || fail "bench trigger --kernel-funcs failed (exit $?)"
cat "$TD/hot.txt"
grep -q '^the hot function with K other' "$TD/hot.txt" || fail "hot: no table"
# --with-hot: the others hook the hot function too (its site: two hooks)
$C bench trigger --kernel-funcs -k 0,1000 --with-hot --modes kmod-callops -n $hot_n -r 2 -w 0 \
	-o "$TD/hot-shared.json" || fail "bench trigger --kernel-funcs --with-hot failed (exit $?)"
expect_eq "point K1000/hot: labelled" "$(point "$TD/hot-shared.json" \
	kmod-callops/count/kmod-callops/K1000/hot .labels.irrelevant_hot)" yes
for f in hot.json hot-shared.json; do
	for m in "${hot_modes[@]}"; do for k in "${hot_ks[@]}"; do
		key=$m/count/$m/$k
		# --with-hot: kmod-callops at K0, K1000 (the hot one not counted in K)
		if [ $f = hot-shared.json ]; then
			[ $m = kmod-callops ] && [ $k != all ] || continue
			key=$key/hot
		fi
		{ read -r st; read -r made; read -r counted; read -r others; read -r held; \
		  read -r en; } < <(point "$TD/$f" "$key" .status .counts.calls.expected \
			.counts.calls.counted .labels.irrelevant .counts.irrelevant.counted \
			.labels.enabled_functions)
		w=$(bench_want "$m/count")
		expect_eq "point $key" "$st" "$w"
		[ "$w" = ok ] || continue
		expect_eq "point $key: calls counted on the hot function" "$counted" $((2 * hot_n))
		expect_eq "point $key: calls made" "$made" $((2 * hot_n))
		case $k in
		all) [ "$others" -gt $((names * 9 / 10)) ] ||
			fail "point $key: only $others of $names others hooked" ;;
		*) expect_eq "point $key: others hooked" "$others" "${k#K}" ;;
		esac
		expect_eq "point $key: others counted" "$held" "$others"
		expect_eq "point $key: enabled_functions (the others and the hot one)" \
			"$en" $((others + 1))
	done; done
done
$C bench show "$TD/curve.json"
expect_eq "attachments after the bench" "$($C --json list | jp '.attachments|length')" 0
expect_eq "enabled_functions after the bench" "$(grep -c . $enabled)" 0
daemon_stop
trap - EXIT
emit_bench attach-curve "$TD/curve.json"
emit_bench trigger-kernel "$TD/hot.json"
emit_bench trigger-kernel-hot "$TD/hot-shared.json"
[ ! -e "$TD/all.json" ] || emit_bench attach-all "$TD/all.json"
