# SPDX-License-Identifier: GPL-2.0-or-later
# Glob attach of 100 functions (tracerd_testmod_fn_0[0-9][0-9]) in every
# available function mode: each hooked function counts exactly its calls
# from this pid. Prints (does not assert) the time to attach and detach
# the 100 per mode, then a 256-function glob through auto.
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start
glob='tracerd_testmod_fn_0[0-9][0-9]'
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
for m in fentry kprobe kprobe-int3 kprobe-multi kmod-callops kmod-direct kmod-kprobe; do
	[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
	t0=$(date +%s%N)
	id=$(attach_pid "$m" "$glob" sh -c "echo 2 > $TESTMOD_DBG/call_all")
	# attach_pid's time includes the 2048 calls; time a bare attach too
	st=$($C --json stats "$id")
	expect_eq "$m: functions hooked" "$(jp '.stats|length' <<< "$st")" 100
	expect_eq "$m: every function counted 2" "$(jp '.stats[*].calls' <<< "$st" | sort -u | tr '\n' ' ')" "2 "
	$C detach "$id" > /dev/null
	t0=$(date +%s%N)
	$C attach "$glob" --mode "$m" > /dev/null || fail "$m: bare attach"
	ta=$(ms "$t0"); t0=$(date +%s%N)
	$C detach "$glob" > /dev/null || fail "$m: detach"
	echo "attach-time $KERNEL_NAME $m 100 functions: attach ${ta} ms, detach $(ms "$t0") ms"
done
t0=$(date +%s%N)
$C --json attach 'tracerd_testmod_fn_0*' > "$TD/auto.json" || fail "auto glob attach"
echo "attach-time $KERNEL_NAME auto($(jp .attachment.mode < "$TD/auto.json")) 256 functions: $(ms "$t0") ms"
expect_eq "auto glob functions" "$(jp '.attachment.functions|length' < "$TD/auto.json")" 256
daemon_stop
