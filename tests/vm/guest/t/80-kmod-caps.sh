# SPDX-License-Identifier: GPL-2.0-or-later
# /dev/tracerd needs CAP_SYS_ADMIN, whatever the node's mode: with the node
# made 0666, every ioctl is refused (EPERM) to
#   1. uid 65534 opening the node itself;
#   2. uid 0 without CAP_SYS_ADMIN (dropped from the bounding set);
#   3. a process that got an fd from a privileged opener (opened as root,
#      then dropped to uid 65534, as after fd passing or a setuid exec).
# ioctl numbers come from the module's own BTF (struct sizes) and the
# command table of include/tracerd/kmod_abi.h (numbers are never reused).
source ./lib.sh
load_kmod
[ -c /dev/tracerd ] || fail "no /dev/tracerd after loading the module"
command -v python3 > /dev/null || skip "no python3 in the guest"
command -v setpriv > /dev/null || skip "no setpriv in the guest"
command -v bpftool > /dev/null || skip "no bpftool in the guest"
[ -e /sys/kernel/btf/tracerd_kmod ] || skip "tracerd_kmod has no BTF in /sys/kernel/btf"
expect_eq "device mode as created" "$(stat -c %a /dev/tracerd)" 600

sizes=/tmp/tracerd-abi-sizes
bpftool btf dump file /sys/kernel/btf/tracerd_kmod format raw 2>/dev/null |
	sed -n "s/^\[[0-9]*\] STRUCT 'tracerd_\([a-z_]*\)' size=\([0-9]*\).*/\1 \2/p" > $sizes
grep -q '^version ' $sizes || skip "struct tracerd_version not in the module's BTF"

cat > /tmp/kmod-caps.py <<'PY'
import errno, fcntl, os, sys
sizes = dict(l.split() for l in open(sys.argv[2]))
R, W = 2, 1
# (name, nr, direction, struct): include/tracerd/kmod_abi.h
CMDS = [("VERSION", 1, R, "version"), ("FEATURES", 2, R, "features"),
        ("ATTACH", 3, R | W, "attach"), ("DETACH", 4, W, "detach"),
        ("COUNTERS", 5, R | W, "counters"), ("STATS", 6, R, "stats"),
        ("BENCH_OPS", 7, R | W, "bench_ops"), ("BENCH_PATCH", 8, R | W, "bench_patch")]

def ioc(d, nr, size):
    return (d << 30) | (size << 16) | (ord("x") << 8) | nr

def drop():
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)   # leaving uid 0 clears every capability

how = sys.argv[1]
if how == "inherited":
    fd = os.open("/dev/tracerd", os.O_RDWR)
    drop()
else:
    try:
        fd = os.open("/dev/tracerd", os.O_RDWR)
    except OSError as e:
        print(f"open: {errno.errorcode[e.errno]}")
        sys.exit(0 if e.errno == errno.EPERM else 1)
    print("open: succeeded")
bad = 0
for name, nr, d, st in CMDS:
    if st not in sizes:
        print(f"{name}: struct tracerd_{st} not in BTF, not tried")
        continue
    buf = bytearray(int(sizes[st]))        # all zero: invalid arguments anyway
    try:
        fcntl.ioctl(fd, ioc(d, nr, len(buf)), buf)
        print(f"{name}: allowed")
        bad += 1
    except OSError as e:
        print(f"{name}: {errno.errorcode[e.errno]}")
        bad += e.errno != errno.EPERM
sys.exit(1 if bad else 0)
PY

chmod 666 /dev/tracerd
trap 'chmod 600 /dev/tracerd' EXIT
fails=0
check() { # WHAT CMD...
	local out
	out=$("${@:2}" 2>&1)
	local rc=$?
	echo "$1: $(echo $out)"
	[ $rc = 0 ] || { echo "  -> not refused with EPERM"; fails=$((fails + 1)); }
}
check "uid 65534, node 0666" setpriv --reuid=65534 --regid=65534 --clear-groups \
	python3 /tmp/kmod-caps.py open $sizes
check "uid 0 without CAP_SYS_ADMIN" setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin \
	python3 /tmp/kmod-caps.py open $sizes
check "fd opened by root, used by uid 65534" python3 /tmp/kmod-caps.py inherited $sizes
kmodctl stats --clean > /dev/null || fail "module accounting not clean afterwards"
[ $fails = 0 ] || fail "$fails of 3 unprivileged cases were not refused: the module checks CAP_SYS_ADMIN in open() only, not per ioctl (kmod/main.c tracerd_ioctl)"
echo "ok: every unprivileged case refused with EPERM"
