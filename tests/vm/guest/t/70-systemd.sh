# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd.service under the real systemd (boot KERNEL@systemd): installed
# from `make install` (staged in /opt/tracerd/install); Type=notify: never
# "active" before the configured start-up attachments are in place, and
# they count exactly; journald gets priorities, not "<N>" text; `systemctl
# reload` waits for the reload (ExecReload=tracectl reload), applies a config
# change and fails on a refused one (a bad file, an unbindable listen);
# failed start-up attach lines show in StatusText (STATUS=), tracectl status
# and the metrics; StatusText says the attachments and hooked functions; the
# unit has a watchdog (WatchdogSec=30s) that tracerd feeds, also through a
# big glob's attach; a drop-in in /etc/tracerd/conf.d is applied (its attach
# line, --check-config counts it); `systemctl stop` leaves no BPF program,
# no ftrace hook and no kmod attachment. Prints the
# `systemd-analyze security` exposure score.
source ./lib.sh
[ "$(cat /proc/1/comm)" = systemd ] || skip "needs systemd as PID 1 (the 6.12@systemd boot runs this)"
[ -d /opt/tracerd/install/usr/sbin ] || skip "no staged 'make install' in the payload"
trap 'rc=$?; [ $rc = 0 ] || [ $rc = 77 ] || journalctl -u tracerd --no-pager -o cat | tail -n 40' EXIT
N=$(size 200 5000)
fn=$(sys_getpgid)

# --- install
# (tar keeps / merged-/usr symlinks such as /lib -> usr/lib)
tar -C /opt/tracerd/install -cf - . | tar -C / -xf - --keep-directory-symlink ||
	fail "copy the installed files"
systemctl daemon-reload
echo "installed"
expect_eq "unit type" "$(systemctl show -p Type --value tracerd)" notify
[ -d /etc/tracerd/conf.d ] || fail "make install made no /etc/tracerd/conf.d"
[ -e /usr/share/man/man8/tracerd.8 ] || fail "man page not installed"
load_kmod	# the installed copy is the same file; depmod is slow under TCG
load_testmod
[ -e /dev/tracerd ] || fail "no /dev/tracerd after loading the module"

cp /opt/tracerd/bin/trigger /usr/local/bin/t70-g 2>/dev/null || skip "no trigger program in the payload"
cat > /etc/tracerd/tracerd.conf <<EOF
attach = tp:task/task_rename comm=t70
attach = $fn mode=fentry comm=t70-g
attach = $fn mode=kprobe comm=t70-g
EOF
# the fourth start-up line comes from a drop-in (read after the main file,
# its attach lines added to the main file's: attachment 4)
echo "attach = tracerd_testmod_target mode=kmod-callops" > /etc/tracerd/conf.d/50-t70.conf
echo "not a drop-in = 1" > /etc/tracerd/conf.d/README
want=4
out=$(tracerd --check-config) || fail "check-config: $out"
case $out in *"OK ($want attach lines; 1 drop-in in /etc/tracerd/conf.d)"*) echo "ok: $out" ;;
*) fail "check-config does not count the drop-in: $out" ;; esac

# --- start: never active before the attachments are in place
nattach() { tracectl --json list 2>/dev/null | grep -o '"id":' | wc -l; }
systemctl start --no-block tracerd
seen_activating=0 last=
for i in $(seq 500); do
	st=$(systemctl is-active tracerd)
	n=$(nattach)
	[ "$st $n" != "$last" ] && echo "  state $st, $n attachments"
	last="$st $n"
	case $st in
	active) [ "$n" = "$want" ] || fail "active with $n of $want start-up attachments"; break ;;
	activating) seen_activating=1 ;;
	failed) journalctl -u tracerd --no-pager | tail -n 30; fail "tracerd.service failed" ;;
	esac
	sleep 0.2
done
[ "$st" = active ] || journalctl -u tracerd --no-pager -o cat | tail -n 20
expect_eq "tracerd.service" "$(systemctl is-active tracerd)" active
echo "note: saw 'activating' before READY: $seen_activating"
expect_eq "start-up attachments" "$(nattach)" "$want"
pid=$(systemctl show -p MainPID --value tracerd)
grep -E '^Cap(Eff|Bnd)' "/proc/$pid/status"
tracectl --json status | grep -q '/etc/tracerd/conf.d/50-t70.conf' ||
	fail "status config.files lacks the drop-in"
tracectl --json list | grep -q '"target": *"tracerd_testmod_target"' ||
	fail "the drop-in's attach line is not attached"
echo "ok: the drop-in's attach line is attached"
# the watchdog: tracerd's loop sends WATCHDOG=1 every 15s; systemd's
# timestamp of the last one moves. (WatchdogUSec is the unit's 30s only
# once it started: systemd 252 shows 'infinity' before the first start.)
expect_eq "unit watchdog" "$(systemctl show -p WatchdogUSec --value tracerd)" 30s
wd0=$(systemctl show -p WatchdogTimestampMonotonic --value tracerd)
[ -n "$wd0" ] && [ "$wd0" != 0 ] || fail "no WATCHDOG=1 seen by systemd ('$wd0')"

# --- exact counts through the service
bash -c "printf t70 > /proc/self/comm; for ((i = 0; i < $N; i++)); do printf t70 > /proc/self/comm; done"
t70-g getpgid "$N" || fail "trigger"
echo "$N" > "$TESTMOD_DBG/call" || fail "call the test module's target"
calls() { tracectl --json stats "$1" | grep -o '"calls":[0-9]*' | head -n1 | cut -d: -f2; }
for id in 1 2 3 4; do
	expect_eq "attachment $id calls" "$(calls "$id")" "$N"
done
curl -sf http://127.0.0.1:9477/metrics > /tmp/m.prom || fail "metrics over HTTP"
expect_eq "prometheus agrees" "$(grep -c "^tracerd_calls_total{.*} $N\$" /tmp/m.prom)" "$want"
expect_eq "healthz" "$(curl -sf http://127.0.0.1:9477/healthz)" ok

# --- journald: priorities from the <N> prefixes
journalctl -u tracerd -o cat --no-pager | grep -q '^<[0-9]>' && fail "raw <N> prefixes in the journal"
journalctl -u tracerd -p notice --no-pager -o cat | grep -q 'ready' || fail "'ready' not logged at notice"
ok=$(journalctl -u tracerd -p err --no-pager -o cat | grep -c .)
expect_eq "no error-priority lines" "$ok" 0

for i in $(seq 120); do
	[ "$(systemctl show -p WatchdogTimestampMonotonic --value tracerd)" != "$wd0" ] && break
	sleep 0.5
done
[ "$(systemctl show -p WatchdogTimestampMonotonic --value tracerd)" != "$wd0" ] ||
	fail "WATCHDOG=1 not repeated within 60s"
echo "ok: WATCHDOG=1 repeated"

# --- reload: drop the rename line, add sched_process_exec. ExecReload is
# `tracectl reload`: systemctl returns once the daemon has answered, so the
# change is in place right after it, no polling
# STATUS=: the attachments and the functions they hook (one each here)
expect_eq "status text after start" "$(systemctl show -p StatusText --value tracerd)" \
	"$want attachments, $want functions hooked"
sed -i '/task_rename/d' /etc/tracerd/tracerd.conf
echo "attach = tp:sched/sched_process_exec comm=t70-g" >> /etc/tracerd/tracerd.conf
systemctl reload tracerd || fail "systemctl reload"
l=$(tracectl --json list)
grep -q sched_process_exec <<< "$l" || fail "systemctl reload returned before sched_process_exec was attached"
grep -q task_rename <<< "$l" && fail "systemctl reload returned before task_rename was detached"
expect_eq "attachments after reload" "$(nattach)" "$want"
expect_eq "same main pid after reload" "$(systemctl show -p MainPID --value tracerd)" "$pid"
expect_eq "fentry attachment kept its count" "$(calls 2)" "$N"
expect_eq "active after reload" "$(systemctl is-active tracerd)" active
journalctl -u tracerd --no-pager -o cat | grep 'reload:' | tail -n 2

# --- a refused config: systemctl reload fails, nothing changes
cp /etc/tracerd/tracerd.conf /tmp/good.conf
echo "attach = tp:sched/sched_process_exit mode=bogus" >> /etc/tracerd/tracerd.conf
systemctl reload tracerd && fail "systemctl reload of a bad config succeeded"
echo "ok: systemctl reload of a bad config failed"
expect_eq "active after a refused reload" "$(systemctl is-active tracerd)" active
expect_eq "same main pid after a refused reload" "$(systemctl show -p MainPID --value tracerd)" "$pid"
expect_eq "attachments after a refused reload" "$(nattach)" "$want"
# a listen address that cannot be bound is refused too; metrics stay
sed -e '/bogus/d' /etc/tracerd/tracerd.conf > /tmp/l.conf
echo "listen = 192.0.2.1:9477" >> /tmp/l.conf	# TEST-NET: not an address of this host
cp /tmp/l.conf /etc/tracerd/tracerd.conf
systemctl reload tracerd && fail "systemctl reload onto an unbindable listen succeeded"
expect_eq "healthz after a refused listen" "$(curl -sf http://127.0.0.1:9477/healthz)" ok
expect_eq "refused reloads counted" "$(curl -sf http://127.0.0.1:9477/metrics |
	sed -n 's/^tracerd_config_reloads_total{result="refused"} //p')" 2
cp /tmp/good.conf /etc/tracerd/tracerd.conf
systemctl reload tracerd || fail "systemctl reload of the good config again"

# --- stop: nothing left behind
systemctl stop tracerd
expect_eq "after stop" "$(systemctl is-active tracerd)" inactive
progs=$(bpftool prog show 2>/dev/null | grep -cE 'name (tp_btf_hit|raw_tp_hit|fentry_entry|fexit_return|kprobe_entry|kprobe_return|multi_entry|multi_return) ')
expect_eq "tracerd BPF programs after stop" "$progs" 0
expect_eq "ftrace hooks on $fn after stop" "$(grep -c "$fn" /sys/kernel/tracing/enabled_functions)" 0
expect_eq "kprobes after stop" "$(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null)" 0
expect_eq "kmod users after stop" "$(cat /sys/module/tracerd_kmod/refcnt)" 0
journalctl -u tracerd --no-pager -o cat | tail -n 3

# --- capabilities: without CAP_SYS_ADMIN tp-btf and fentry still attach;
# kprobe fails (Debian's perf_event_paranoid=3 asks perf_event_open for
# CAP_SYS_ADMIN, not CAP_PERFMON) and so does the kmod mode
# (tracerd_kmod.ko's open() asks for it)
mkdir -p /etc/systemd/system/tracerd.service.d
printf '[Service]\nCapabilityBoundingSet=\nCapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYSLOG\n' \
	> /etc/systemd/system/tracerd.service.d/caps.conf
systemctl daemon-reload
systemctl start tracerd || fail "start without CAP_SYS_ADMIN"
expect_eq "attachments without CAP_SYS_ADMIN" "$(nattach)" $((want - 2))
# the two failed start-up lines are visible: STATUS=, tracectl status, metrics
st=$(systemctl show -p StatusText --value tracerd)
case $st in *"2 of $want config attach lines failed"*) echo "ok: status text: $st" ;;
*) fail "status text without the failed lines: '$st'" ;; esac
tracectl status | grep -q "^config: 2 of $want attach lines failed" || fail "tracectl status: $(tracectl status)"
expect_eq "tracerd_config_attach_failures" \
	"$(curl -sf http://127.0.0.1:9477/metrics | sed -n 's/^tracerd_config_attach_failures //p')" 2
journalctl -u tracerd --no-pager -o cat > /tmp/j.txt
grep -q '/dev/tracerd: Operation not permitted' /tmp/j.txt ||
	fail "kmod failure without CAP_SYS_ADMIN not explained"
grep -q 'kprobe to .*Permission denied' /tmp/j.txt ||
	fail "kprobe failure without CAP_SYS_ADMIN not explained"
echo "ok: without CAP_SYS_ADMIN kprobe (EACCES) and kmod-callops (EPERM) fail, tp-btf and fentry work"
systemctl stop tracerd
rm -r /etc/systemd/system/tracerd.service.d
systemctl daemon-reload

# --- stop with ~1100 fentry hooks (issue #20 item 4; make check: the 435
# of __x64_sys_*): detaching them takes longer than TimeoutStopSec=30s under
# emulation (~150 s for 1100, ~60 s for 435); the daemon asks for more
# (EXTEND_TIMEOUT_USEC) while it detaches, so the stop ends cleanly (Result
# success, not timeout) and leaves no hook
if [ "$(uname -m)" = aarch64 ]; then G='__arm64_sys_*'; min=400
elif [ "${PROFILE:-ci}" = full ]; then G='__*_sys_*'; min=900
else G='__x64_sys_*'; min=300; fi
systemctl start tracerd || fail "start (big glob)"
pid=$(systemctl show -p MainPID --value tracerd)
# the start-up lines' attachments (one function each) before the glob's
st=$(systemctl show -p StatusText --value tracerd)
na=${st%% attachment*}
expect_eq "status text before the big glob" "$st" "$na attachments, $na functions hooked"
t0=$(date +%s)
out=$(tracectl --json --timeout 900 attach "$G" --mode fentry) || fail "attach $G fentry: $out"
n=$(jpath '.attachment.functions|length' <<< "$out")
echo "figures: systemd: $G fentry: $n functions attached in $(( $(date +%s) - t0 ))s"
[ "$n" -gt "$min" ] || fail "only $n functions attached"
# the loop attached them in steps and kept feeding the watchdog: same
# process, no restart, and STATUS= counts them (at most a second later)
expect_eq "same main pid after the big attach" "$(systemctl show -p MainPID --value tracerd)" "$pid"
expect_eq "restarts after the big attach" "$(systemctl show -p NRestarts --value tracerd)" 0
journalctl -u tracerd --no-pager -o cat | grep -q 'Watchdog timeout' && fail "watchdog timeout"
for i in $(seq 20); do
	st=$(systemctl show -p StatusText --value tracerd)
	[ "$st" = "$((na + 1)) attachments, $((na + n)) functions hooked" ] && break
	sleep 0.5
done
expect_eq "status text with the big glob" "$st" "$((na + 1)) attachments, $((na + n)) functions hooked"
t0=$(date +%s)
systemctl stop tracerd
echo "figures: systemd: stop with them attached: $(( $(date +%s) - t0 ))s (TimeoutStopSec=30s)"
expect_eq "stop result" "$(systemctl show -p Result --value tracerd)" success
expect_eq "ftrace hooks on syscalls after stop" \
	"$(grep -c '_sys_' /sys/kernel/tracing/enabled_functions)" 0
progs=$(bpftool prog show 2>/dev/null | grep -cE 'name (fentry_entry|fexit_return) ')
expect_eq "tracerd fentry programs after stop" "$progs" 0
expect_eq "BPF tracing links after stop" "$(bpftool link show 2>/dev/null | grep -c tracing)" 0
expect_eq "kmod users after stop" "$(cat /sys/module/tracerd_kmod/refcnt)" 0
journalctl -u tracerd --no-pager -o cat | grep -E 'stopping:|stopped' | tail -n 3

# --- hardening score (reported, not asserted)
systemd-analyze security tracerd.service --no-pager > /tmp/sec.txt 2>&1
grep '✗' /tmp/sec.txt | sed 's/  */ /g'
echo "SECURITY: $(grep 'Overall exposure level' /tmp/sec.txt)"
