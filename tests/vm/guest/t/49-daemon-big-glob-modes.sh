# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #20 "Done when": the ~1100-function syscall glob attaches in every
# function mode with the default config (max_glob_matches 262144) or is
# refused with a clear reason; the kmod modes hook the same set as the
# kprobe modes (one symbol source, weak symbols included). Prints the
# attach/detach seconds and the daemon's fds per mode (figures, not
# assertions). Six modes of ~1100 functions take far over 4 minutes under
# TCG (fentry alone: ~1 min to attach, ~2.5 to detach): check-full only.
# timeout: 300 3600
source ./t/40-daemon-lib.sh
[ "${PROFILE:-ci}" = full ] || skip "big globs in every mode run in check-full only (PROFILE=full; this is '${PROFILE:-ci}')"
load_kmod
daemon_start
G=$(syscall_glob)
ref=
for m in kprobe-multi kprobe-session fentry fentry-multi fsession kprobe kmod-callops kmod-direct \
	 kmod-kprobe; do
	[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
	t0=$(date +%s)
	out=$($C --json --timeout 1200 attach "$G" --mode "$m") || fail "$m: $G: $out"
	ta=$(( $(date +%s) - t0 ))
	id=$(jp '.attachment.id' <<< "$out")
	jp '.attachment.functions[*]' <<< "$out" | sort > "$TD/set.$m"
	n=$(wc -l < "$TD/set.$m")
	[ "$n" -gt "$(syscall_glob_min)" ] || fail "$m: only $n functions hooked: $(jp '.skipped[0].reason' <<< "$out")"
	fds=$(ls /proc/"$DPID"/fd | wc -l)
	t0=$(date +%s)
	$C --timeout 1200 detach "$id" > /dev/null || fail "$m: detach"
	echo "figures: $m $G: $n hooked, $(jp '.skipped|length' <<< "$out") skipped," \
		"attach ${ta}s, detach $(( $(date +%s) - t0 ))s, daemon fds while attached $fds"
	case $m in
	kprobe-multi|kprobe) [ -n "$ref" ] || ref=$m ;;
	kmod-*|kprobe-session)	[ -n "$ref" ] || continue
		d=$(comm -3 "$TD/set.$ref" "$TD/set.$m" | head -5 | tr -d '\t' | tr '\n' ' ')
		[ -z "$d" ] || fail "$m hooks another set than $ref (first differences: $d)"
		echo "ok: $m hooks the same $n functions as $ref" ;;
	esac
done
expect_eq "BPF links after the detaches" "$(our_links)" 0
daemon_stop
