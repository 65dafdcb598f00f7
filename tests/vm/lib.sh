# SPDX-License-Identifier: GPL-2.0-or-later
# Shared functions of the VM harness (sourced). See tests/vm/README.md.
# Everything is cached under $VM_DIR (build/vm), keyed on its inputs.

VM_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${O:=$VM_SRC/build}"
VM_DIR=$O/vm
VM_KERNELS_ALL="6.1 6.12 6.1-arm64 6.12-arm64 7.2 7.2-arm64 6.12-riscv64 7.2-riscv64"
# Boots of `make vm-check` (longest first: VM_JOBS run side by side): every
# kernel, plus variants (KERNEL@ARGS) that
# rerun the trampoline tests where TCG would otherwise hide a difference:
# call-depth tracking (retbleed=stuff) on x86, and on arm64 without KASLR,
# where call sites branch to the module's trampoline directly instead of
# through ftrace_caller; and the @mttcg boots, whose two vCPUs run truly
# in parallel (VM_MTTCG_TESTS below).
# Longest first (VM_JOBS boots side by side); the riscv64 boots come after
# the x86 ones, when prefetch.sh's foreign lane has built their roots.
# In make check, the tests whose kernel matters little run on a few
# kernels each ('# ci-kernels:' lines, spread so that the five full boots
# take about as long as each other: 10-15 minutes of slow TCG each).
VM_BOOTS_ALL="6.12 7.2 6.1-arm64 6.1 6.12-arm64 6.12-riscv64 6.12@systemd 6.12-arm64@nokaslr 6.12@retbleed=stuff 6.12-arm64@mttcg 6.12-riscv64@mttcg"
# check-full (PROFILE=full) also boots sid's arm64 7.2, and sid's riscv64
# 7.2 (before 6.12-riscv64, as it was in make check until 2026-12-07: its
# boot, cross-built user space and root took 8-10 minutes of a lane, and
# make check's hour had no room left for them)
VM_BOOTS_FULL="7.2-arm64"
[ "${PROFILE:-ci}" = full ] &&
	VM_BOOTS_ALL="$VM_BOOTS_FULL ${VM_BOOTS_ALL/6.12-riscv64/7.2-riscv64 6.12-riscv64}"
VM_VARIANT_TESTS=${VM_VARIANT_TESTS:-"01-kmod-load 20-kmod-attach 24-kmod-bench 26-kmod-site"}
# and kmod-direct's timing trampoline, which calls and returns across the
# accounting (x86: call depth tracking) and is reached by the call site's
# own branch (arm64 without KASLR)
VM_VARIANT_TESTS_amd64=${VM_VARIANT_TESTS_amd64:-"29-kmod-latency"}
VM_VARIANT_TESTS_arm64=${VM_VARIANT_TESTS_arm64:-"29-kmod-latency"}
# The riscv64 guests (TCG runs them several times slower than the others)
# run only this subset in `make check`: module load, every BPF and kmod
# mode's exact count, the ops bench at small sizes, and the module's
# latency (its ci-kernels line: on 6.12-riscv64, 109 s); check-full runs
# all.
VM_SUBSET_KERNELS="6.12-riscv64 7.2-riscv64"
# (26-kmod-site is not in it: its bench-all over every traceable function
# outlasts the test's 300 s under riscv64 TCG)
VM_SUBSET_TESTS=${VM_SUBSET_TESTS:-"01-kmod-load 02-bpf-fentry 03-bpf-kprobe 04-warn-selftest 20-kmod-attach 41-daemon-modes 91-bench-kmod 29-kmod-latency"}
# A kernel's own subset: VM_SUBSET_TESTS_<kernel, . and - as _>. 7.2-riscv64
# (booted by PROFILE=full and `make vm-check VM_KERNEL=7.2-riscv64`, not by
# make check) keeps the module's load and attach and the BPF smoke tests;
# 41 (every mode through the daemon, 115 s there) and the WARN self-test
# run on 6.12-riscv64, whose BPF JIT is off too
VM_SUBSET_TESTS_7_2_riscv64=${VM_SUBSET_TESTS_7_2_riscv64:-"01-kmod-load 02-bpf-fentry 03-bpf-kprobe 20-kmod-attach"}
# KERNEL@systemd boots real systemd as PID 1 (guest/systemd-run reports
# like guest/init) and runs only these tests: the installed service.
# 69-deb-package installs the tracerd .deb, runs and purges it first, so
# 70-systemd starts from the same clean root.
VM_SYSTEMD_TESTS=${VM_SYSTEMD_TESTS:-"69-deb-package 70-systemd"}
# KERNEL@mttcg boots with both vCPUs truly parallel (multi-threaded TCG,
# one host thread each) and runs only these: the module's attach/detach
# cycles while the targets run hot on the other vCPU, and SIGKILL and
# rmmod with them hot. Under QEMU 7.2 (this host's) both arches run code
# the kernel has already rewritten: on arm64 a hooked site is never
# taken (22-kmod-cycles counts 0 of 100 calls, twice, while the site and
# its CALL_OPS literal read as ours), on x86 a call traps on the int3 of a
# text_poke that had finished (Oops: int3). sid's QEMU (VM_MTTCG_QEMU,
# 11.1, run from the sid build root) shows the arm64 one in no run, but
# the x86 one in 1 of 3 (under make check's load), so x86 has no @mttcg
# boot in make check (6.12@mttcg boots by hand); riscv64 6.12, whose
# ftrace patches under stop_machine, passes under both (tests/vm/README.md,
# "Truly parallel CPUs").
VM_MTTCG_TESTS=${VM_MTTCG_TESTS:-"22-kmod-cycles 23-kmod-lifetime"}
VM_MTTCG_QEMU=${VM_MTTCG_QEMU:-sid}
# the QEMU packages of those boots' architectures (vm_boot installs one
# on demand too)
VM_MTTCG_QEMU_PKGS="qemu-system-x86 qemu-system-arm qemu-system-riscv"
VM_SYSTEMD_CMDLINE="tracerd.init=/lib/systemd/systemd systemd.run=/opt/tracerd/tests/systemd-run
	systemd.run_success_action=reboot systemd.run_failure_action=reboot"
# Guest root packages. Bump VM_ROOTFS_RECIPE when the root's recipe (not
# the package list) changes, to rebuild the cached root.
VM_ROOTFS_RECIPE=2
VM_ROOT_PKGS="systemd,systemd-sysv,dbus,kmod,procps,iproute2,libbpf1,libelf1,libevent-2.1-7,libevent-core-2.1-7,libevent-pthreads-2.1-7,libjson-c5,zlib1g,libzstd1,libsystemd0,bpftool,curl,python3-minimal,busybox-static"
# The native root also carries bpftrace, the peer `bench trigger --peers` measures
# tracerd against (not on foreign roots: its LLVM under qemu-user costs minutes).
VM_ROOT_PKGS_NATIVE="bpftrace"
# The same for sid (7.x kernels): the t64 library names, and bpftrace for
# the peer benchmarks.
VM_ROOT_PKGS_sid="systemd,systemd-sysv,dbus,kmod,procps,iproute2,libbpf1,libelf1t64,libevent-2.1-7t64,libevent-core-2.1-7t64,libevent-pthreads-2.1-7t64,libjson-c5,zlib1g,libzstd1,libsystemd0,bpftool,curl,python3-minimal,busybox-static,bpftrace"
# A foreign-arch root doubles as the sysroot user space is cross-built against.
# trixie (riscv64 6.12): the t64 names too; no bpftrace (see VM_ROOT_NO_PEERS)
VM_ROOT_PKGS_trixie="systemd,systemd-sysv,dbus,kmod,procps,iproute2,libbpf1,libelf1t64,libevent-2.1-7t64,libevent-core-2.1-7t64,libevent-pthreads-2.1-7t64,libjson-c5,zlib1g,libzstd1,libsystemd0,bpftool,curl,python3-minimal,busybox-static"
# roots of these architectures leave bpftrace out: its LLVM under qemu-user
# costs minutes per root, and riscv64 guests run no peer benchmarks
VM_ROOT_NO_PEERS="riscv64"
VM_SYSROOT_PKGS="libc6-dev,libbpf-dev,libelf-dev,zlib1g-dev,libzstd-dev,libevent-dev,libjson-c-dev,libsystemd-dev"
VM_MIRROR=${VM_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}
: "${VM_MIRROR:=http://deb.debian.org/debian}"

# vm_arch NAME — Debian architecture of test kernel NAME
vm_arch() { case $1 in *-arm64) echo arm64 ;; *-riscv64) echo riscv64 ;; *) dpkg --print-architecture ;; esac; }
vm_native() { [ "$1" = "$(dpkg --print-architecture)" ]; }
# vm_suite NAME — Debian suite of test kernel NAME and of its guest root:
# bookworm (the host's own) for 6.x, sid for 7.x; trixie for riscv64 6.12
# (bookworm has no riscv64 port)
vm_suite() { case $1 in 7.*) echo sid ;; *-riscv64) echo trixie ;; *) echo bookworm ;; esac; }
# vm_rootname ARCH SUITE — name of that guest root's cache files
# (rootfs-NAME.tar, sysroot-NAME): ARCH for bookworm, SUITE-ARCH otherwise
vm_rootname() { if [ "${2:-bookworm}" = bookworm ]; then echo "$1"; else echo "$2-$1"; fi; }
# vm_rootof NAME — vm_rootname of kernel NAME's guest root
vm_rootof() { vm_rootname "$(vm_arch "$1")" "$(vm_suite "$1")"; }
# vm_host_built NAME — user space and kmods of NAME are built on this host
# (bookworm); other suites' are built in that suite's build root
vm_host_built() { [ "$(vm_suite "$1")" = bookworm ]; }
# vm_out NAME — build dir of the user-space binaries for kernel NAME
vm_out() {
	if vm_host_built "$1" && vm_native "$(vm_arch "$1")"; then echo "$O"; else echo "$O/$(vm_rootof "$1")"; fi
}

vm_log() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { printf 'vm: error: %s\n' "$*" >&2; exit 1; }
# vm_rm_tree DIR — rm -rf DIR once nothing is mounted at or below it: a
# debootstrap killed halfway (a stopped make check) leaves its /proc
# mounted in the unfinished root, and rm -rf would walk into it
vm_rm_tree() {
	local m
	[ -e "$1" ] || return 0
	awk -v d="$(realpath -m "$1")" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf "$1"
}

# vm_stage NAME BUDGET_S CMD... — run one stage with a time budget
vm_stage() {
	local name=$1 budget=$2 t0 rc
	shift 2
	t0=$(date +%s)
	timeout --kill-after=10 "$budget" "$@"
	rc=$?
	[ $rc = 124 ] && vm_log "stage '$name' exceeded its budget of ${budget}s"
	vm_log "stage '$name': $(( $(date +%s) - t0 ))s (rc $rc)"
	return $rc
}

# vm_rootfs ARCH — the Debian root shared by every kernel of ARCH:
# debootstrapped once, cached as a tarball. A foreign ARCH runs the second
# stage under qemu-user (binfmt_misc), and its root is kept unpacked too,
# as the sysroot for cross-building user space.
# vm_rootfs ARCH [SUITE] — the same for SUITE (default bookworm): sid's
# root (7.x kernels) is cached as rootfs-sid-ARCH.tar.
vm_rootfs() {
	local arch=${1:-$(dpkg --print-architecture)} suite=${2:-bookworm} key pkgs=$VM_ROOT_PKGS
	[ "$suite" = bookworm ] || eval "pkgs=\$VM_ROOT_PKGS_$suite"
	[[ " $VM_ROOT_NO_PEERS " == *" $arch "* ]] && pkgs=${pkgs/,bpftrace/}
	local name; name=$(vm_rootname "$arch" "$suite")
	local tar=$VM_DIR/rootfs-$name.tar stamp=$VM_DIR/rootfs-$name.key
	if ! vm_native "$arch"; then
		pkgs="$pkgs,$VM_SYSROOT_PKGS"
	elif [ "$suite" = bookworm ]; then
		pkgs="$pkgs,$VM_ROOT_PKGS_NATIVE"	# sid's list has bpftrace already
	fi
	key=$(printf '%s %s %s %s' "$pkgs" "$VM_MIRROR" "$arch" "$VM_ROOTFS_RECIPE" | sha1sum | cut -c1-16)
	[ "$suite" = bookworm ] || key=$(printf '%s %s' "$key" "$suite" | sha1sum | cut -c1-16)
	if [ -f "$tar" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then return 0; fi
	vm_native "$arch" || vm_binfmt "$arch" || return 1
	vm_log "debootstrap $suite $arch ($VM_MIRROR)"
	local r=$VM_DIR/rootfs-$name.tmp
	vm_rm_tree "$r"; mkdir -p "$VM_DIR"
	debootstrap --arch="$arch" --variant=minbase --include="$pkgs" "$suite" \
		"$r" "$VM_MIRROR" > "$VM_DIR/debootstrap-$name.log" 2>&1 ||
		{ tail -n 20 "$VM_DIR/debootstrap-$name.log" >&2; vm_die "debootstrap $suite $arch failed"; }
	echo tracerd-vm > "$r/etc/hostname"
	printf '/dev/vda / ext4 rw 0 1\n' > "$r/etc/fstab"
	passwd -R "$r" -d root >/dev/null 2>&1 || true
	rm -rf "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"*
	tar -C "$r" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
	if vm_native "$arch"; then
		rm -rf "$r"
	else
		rm -rf "$VM_DIR/sysroot-$name"; mv "$r" "$VM_DIR/sysroot-$name"
	fi
	echo "$key" > "$stamp"
}

# vm_binfmt ARCH — make sure foreign ARCH binaries run here (qemu-user)
vm_binfmt() {
	local qarch=${1/arm64/aarch64} bm=/proc/sys/fs/binfmt_misc
	[ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm" ||
		{ vm_log "binfmt_misc unavailable: cannot run $1 binaries"; return 1; }
	[ -e "$bm/qemu-$qarch" ] && return 0
	[ -f "/usr/lib/binfmt.d/qemu-$qarch.conf" ] ||
		{ vm_log "qemu-user-static has no $qarch support"; return 1; }
	cat "/usr/lib/binfmt.d/qemu-$qarch.conf" > "$bm/register"
}

# vm_kernel NAME — fetch kernel NAME and run depmod on its modules
vm_kernel() {
	local k=$1 kd=$VM_DIR/k/$1
	"$VM_SRC/tests/vm/fetch-kernel.sh" "$k" "$kd" || return 1
	local rel; rel=$(cat "$kd/release")
	[ -f "$kd/root/lib/modules/$rel/modules.dep" ] || depmod -b "$kd/root" "$rel"
}

# vm_initramfs NAME — busybox initramfs that loads what a virtio ext4 root
# needs on this kernel (ext4, virtio_blk and, on 6.1, virtio_pci are modules)
# and the virtio console the arm64 and riscv64 guests report through (a
# module on arm64 6.1)
VM_INITRAMFS_MODS="virtio_pci virtio_blk ext4 crc32c_generic crc32c-intel virtio_console"
vm_initramfs() {
	local k=$1 kd=$VM_DIR/k/$1 rel out key
	rel=$(cat "$kd/release")
	out=$kd/initramfs.cpio.gz
	key=$( (cat "$kd/.done" "$VM_SRC/tests/vm/initramfs-init" "$VM_DIR/rootfs-$(vm_rootof "$k").key"
		echo "$VM_INITRAMFS_MODS") | sha1sum | cut -c1-16)
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then return 0; fi
	local d=$kd/initramfs.tmp m list=""
	rm -rf "$d"; mkdir -p "$d"/{bin,dev,proc,sys,newroot,lib/modules}
	local arch; arch=$(vm_arch "$k")
	tar -xOf "$VM_DIR/rootfs-$(vm_rootof "$k").tar" ./usr/bin/busybox > "$d/bin/busybox" || return 1
	chmod +x "$d/bin/busybox"
	for m in $VM_INITRAMFS_MODS; do
		list="$list $(modprobe -d "$kd/root" -S "$rel" --show-depends "$m" 2>/dev/null |
			sed -n 's/^insmod \([^ ]*\).*/\1/p')"
	done
	local n=0 f
	: > "$d/lib/modules/order"
	for f in $list; do
		grep -qxF "$f" "$d/lib/modules/seen" 2>/dev/null && continue
		echo "$f" >> "$d/lib/modules/seen"
		n=$((n + 1))
		local base; base=$(printf '%02d-%s' $n "$(basename "${f%.xz}")")
		case $f in
		*.xz) xz -dc "$f" > "$d/lib/modules/${base%.ko.xz}" ;;
		*.zst) zstd -qdc "$f" > "$d/lib/modules/${base%.ko.zst}" ;;
		*) cp "$f" "$d/lib/modules/$base" ;;
		esac
	done
	rm -f "$d/lib/modules/seen" "$d/lib/modules/order"
	cp "$VM_SRC/tests/vm/initramfs-init" "$d/init"
	chmod +x "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
	mv "$out.tmp" "$out"; echo "$key" > "$out.key"
	rm -rf "$d"
}

# vm_disk NAME — ext4 root image: the Debian root plus this kernel's modules
vm_disk() {
	local k=$1 kd=$VM_DIR/k/$1 rel img key
	rel=$(cat "$kd/release")
	img=$kd/root.img
	key=$(cat "$VM_DIR/rootfs-$(vm_rootof "$k").key" "$kd/.done" | sha1sum | cut -c1-16)
	if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$key" ]; then return 0; fi
	local d=$kd/rootdir.tmp
	rm -rf "$d"; mkdir -p "$d"
	tar -C "$d" -xf "$VM_DIR/rootfs-$(vm_rootof "$k").tar" || return 1
	mkdir -p "$d/lib/modules"
	cp -a "$kd/root/lib/modules/$rel" "$d/lib/modules/"
	rm -f "$img.tmp"
	mke2fs -q -t ext4 -L tracerd-root -d "$d" "$img.tmp" 2G >/dev/null
	mv "$img.tmp" "$img"; echo "$key" > "$img.key"
	rm -rf "$d"
}

# vm_buildroot NAME — the build root of NAME's suite (tests/vm/buildroot.sh)
# with the compiler NAME's config names; that compiler is also the root's
# gcc (and CROSS_COMPILE-gcc), so kbuild and `make user` both use it
vm_buildroot() {
	local k=$1 kd=$VM_DIR/k/$1 br cc
	cc=$("$VM_SRC/tests/vm/buildroot.sh" cc-pkg "$kd/config") || return 1
	set -- $cc
	cc=$2
	br=$("$VM_SRC/tests/vm/buildroot.sh" ensure "$(vm_suite "$k")" "$1") || return 1
	# the sid root also carries the QEMU of the @mttcg boots, installed by
	# apt (not debootstrap's resolver) right after, before anything is
	# built in it
	if [ "$(vm_suite "$k")" = sid ] && [ "$VM_MTTCG_QEMU" = sid ]; then
		"$VM_SRC/tests/vm/buildroot.sh" ensure sid $VM_MTTCG_QEMU_PKGS > /dev/null || return 1
	fi
	mkdir -p "$br/usr/local/bin"
	if [ "$3" = native ]; then
		# make's default $(CC) is cc, which Debian points at clang when no gcc is the default
		ln -sfn "/usr/bin/$cc" "$br/usr/local/bin/gcc"
		ln -sfn "/usr/bin/$cc" "$br/usr/local/bin/cc"
	else
		# aarch64-linux-gnu-gcc-16 -> aarch64-linux-gnu-gcc ($(CROSS_COMPILE)gcc)
		ln -sfn "/usr/bin/$cc" "$br/usr/local/bin/${cc%-[0-9]*}"
	fi
	echo "$br" > "$kd/buildroot"
}

# vm_make NAME ARGS... — make in the source tree for kernel NAME: here for
# bookworm kernels, in the suite's build root for the others
vm_make() {
	local k=$1
	shift
	if vm_host_built "$k"; then
		make -s --no-print-directory -C "$VM_SRC" "$@"
	else
		"$VM_SRC/tests/vm/buildroot.sh" run "$(cat "$VM_DIR/k/$k/buildroot")" \
			make -s --no-print-directory -C "$VM_SRC" "$@"
	fi
}

# vm_kmods NAME — tracerd_kmod.ko and tracerd_testmod.ko for this kernel
vm_kmods() {
	local k=$1 kd=$VM_DIR/k/$1 arch
	arch=$(vm_arch "$k")
	vm_make "$k" O="$(vm_out "$k")" kmod \
		ARCH="${arch/amd64/x86_64}" KDIR="$(cat "$kd/kdir")" KMOD_OUT="$kd/kmod"
}

# vm_user NAME — build user space and BPF for a foreign-arch or other-suite
# kernel (bookworm's native binaries are built by the caller's `make user`)
vm_user() {
	local k=$1 arch btf=$VM_DIR/k/$1/vmlinux
	arch=$(vm_arch "$k")
	vm_native "$arch" && vm_host_built "$k" && return 0
	[ -f "$btf.btf" ] && btf=$btf.btf
	if vm_native "$arch"; then
		vm_make "$k" O="$(vm_out "$k")" user VMLINUX_BTF="$btf"
	else
		vm_make "$k" O="$(vm_out "$k")" user ARCH="$arch" \
			SYSROOT="$VM_DIR/sysroot-$(vm_rootof "$k")" VMLINUX_BTF="$btf"
	fi
}

# vm_fetch NAME — what a boot of kernel NAME needs that is not built from
# our sources: its guest root, the kernel, the build root of its suite, the
# initramfs and the root disk. prefetch.sh runs it while make check's host
# layers run (boot.sh's lock makes the boot wait for it)
vm_fetch() {
	local k=$1
	mkdir -p "$VM_DIR"
	# the root is shared by all kernels: the first to get the lock builds it
	local arch suite; arch=$(vm_arch "$k") suite=$(vm_suite "$k")
	vm_stage "rootfs $suite $arch" "${VM_BUDGET_ROOTFS:-1200}" flock "$VM_DIR/rootfs-$(vm_rootof "$k").lock" \
		bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_rootfs $arch $suite" || return 1
	vm_stage "kernel $k" "${VM_BUDGET_FETCH:-900}" bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_kernel $k" || return 1
	if ! vm_host_built "$k"; then
		vm_stage "buildroot $suite" "${VM_BUDGET_ROOTFS:-1200}" \
			bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_buildroot $k" || return 1
	fi
	vm_stage "initramfs $k" 300 bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_initramfs $k" || return 1
	vm_stage "disk $k" 600 bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_disk $k" || return 1
}

# vm_prepare NAME — everything a boot of kernel NAME needs, with budgets
vm_prepare() {
	local k=$1
	vm_fetch "$k" || return 1
	vm_stage "kmods $k" "${VM_BUDGET_BUILD:-600}" bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_kmods $k" || return 1
	# kernels of one root share its user-space build dir (6.1-arm64 and
	# 6.12-arm64: build/arm64): one builder at a time, or one links while
	# the other rewrites an object
	mkdir -p "$(vm_out "$k")"
	vm_stage "user $k" "${VM_BUDGET_BUILD:-600}" flock "$(vm_out "$k")/.build.lock" \
		bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_user $k" || return 1
}

# vm_payload NAME DIR — stage binaries, module, BPF objects and guest
# scripts into DIR (becomes /opt/tracerd in the guest)
vm_payload() {
	local k=$1 dir=$2 kd=$VM_DIR/k/$1 ob
	ob=$(vm_out "$k")
	mkdir -p "$dir/bin" "$dir/kmod" "$dir/bpf" "$dir/tests"
	cp "$ob/tracerd" "$ob/tracectl" "$ob/tracerd-ref" "$dir/bin/" 2>/dev/null || true
	[ -d "$ob/tests" ] && find "$ob/tests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$dir/bin/" \;
	cp "$kd"/kmod/*.ko "$dir/kmod/"
	cp "$ob"/bpf/*.bpf.o "$dir/bpf/" 2>/dev/null || true
	cp -r "$VM_SRC/tests/vm/guest/." "$dir/tests/"
	# the session README.md shows, which t/94-readme-session runs
	cp "$VM_SRC/README.md" "$dir/"
	# the booted image itself, for 27-sites (tracectl sites against ftrace)
	ln -f "$kd/vmlinux" "$dir/vmlinux" 2>/dev/null || cp "$kd/vmlinux" "$dir/vmlinux"
	echo "$k" > "$dir/kernel-name"
	echo "${PROFILE:-ci}" > "$dir/profile"
	# `make install` staged for the service tests (native builds only)
	if vm_native "$(vm_arch "$k")"; then
		make -s --no-print-directory -C "$VM_SRC" O="$ob" KMOD_OUT="$kd/kmod" \
			DESTDIR="$dir/install" PREFIX=/usr install-nobuild >/dev/null
	fi
	# systemd boots: the tracerd .deb too (t/69-deb-package installs it),
	# from $O/deb when built from these sources (tests/host/88 leaves it
	# there), else built now; without the packaging tools, none (69 skips)
	if [[ ${VM_CMDLINE:-} == *tracerd.init=/lib/systemd/systemd* ]] && vm_native "$(vm_arch "$k")" &&
	   [ "$(vm_suite "$k")" = bookworm ]; then
		mkdir -p "$O/deb" "$dir/deb"
		if flock "$O/deb/.lock" "$VM_SRC/scripts/build-deb.sh" --cached "$O/deb" > "$O/deb/stage.log" 2>&1; then
			cp "$O/deb"/tracerd_*.deb "$dir/deb/"
		else
			vm_log "no tracerd .deb staged: $(tail -n1 "$O/deb/stage.log")"
			tail -n1 "$O/deb/stage.log" > "$dir/deb/why-none"
		fi
	fi
}

# vm_boot NAME RUNDIR TIMEOUT EXTRA_CMDLINE — boot with RUNDIR/payload as
# /opt/tracerd; console -> RUNDIR/console.log, guest output -> RUNDIR/out.log
# (x86: second UART; arm64 virt has one PL011, riscv64 virt one 16550, so a
# virtio console there). riscv64: OpenSBI (QEMU's default -bios) boots the
# raw Image.
# vm_x86_cpu EXTRA — QEMU's -cpu for an x86 boot with kernel arguments
# EXTRA. TCG's "max" CPU is not affected by retbleed, so retbleed=stuff
# alone changes nothing ("Not affected"): for it, the same CPU claims to be
# an Intel Skylake (family 6, model 94), which the kernel mitigates by
# call depth tracking, patched into every call and return.
vm_x86_cpu() {
	case " $1 " in
	*" retbleed=stuff "*) echo "max,vendor=GenuineIntel,family=6,model=94,stepping=3" ;;
	*) echo max ;;
	esac
}

vm_boot() {
	local k=$1 run=$2 tmo=$3 extra=$4 kd=$VM_DIR/k/$1 qemu dev
	rm -f "$run/payload.img"
	mke2fs -q -t ext4 -L tracerd-payload -d "$run/payload" "$run/payload.img" 256M >/dev/null
	: > "$run/console.log"; : > "$run/out.log"
	case $(vm_arch "$k") in
	arm64)
		qemu=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on
			-serial file:"$run/console.log"
			-device virtio-serial-pci -chardev file,id=out,path="$run/out.log"
			-device virtconsole,chardev=out)
		dev="console=ttyAMA0 tracerd.out=/dev/hvc0" ;;
	riscv64)
		qemu=(qemu-system-riscv64 -machine virt -cpu rv64
			-serial file:"$run/console.log"
			-device virtio-serial-pci -chardev file,id=out,path="$run/out.log"
			-device virtconsole,chardev=out)
		dev="console=ttyS0 tracerd.out=/dev/hvc0" ;;
	*)
		qemu=(qemu-system-x86_64 -machine q35 -cpu "$(vm_x86_cpu "$extra")"
			-serial file:"$run/console.log" -serial file:"$run/out.log")
		dev="console=ttyS0 tracerd.out=/dev/ttyS1"
		# call depth tracking needs retpolines under it
		case " $extra " in *" retbleed=stuff "*) extra="$extra spectre_v2=retpoline" ;; esac ;;
	esac
	local append="$dev root=/dev/vda rw panic=-1 softlockup_panic=1
		watchdog_thresh=5 oops=panic slub_debug=FZPU loglevel=5
		tracerd.init=/opt/tracerd/tests/init $extra"
	# VM_ICOUNT=N (tests/vm/run --icount N): QEMU counts instructions and
	# the guest's clock advances 2^N ns per instruction, so a benchmark's
	# times become instruction counts, the same from run to run (no host
	# noise; no cache, no atomics' price either)
	[ -n "${VM_ICOUNT:-}" ] && qemu+=(-icount "shift=$VM_ICOUNT,sleep=off")
	# VM_TCG_THREAD=multi (tests/vm/run --mttcg): one host thread per
	# vCPU, so the guest's two CPUs run at the same time (tests/vm/README.md,
	# "Truly parallel CPUs": where that is sound); default single
	local tcg=${VM_TCG_THREAD:-single}
	case $tcg in single|multi) ;; *) vm_die "VM_TCG_THREAD=$tcg: single or multi" ;; esac
	# VM_QEMU=sid: QEMU from Debian sid, run inside the sid build root
	# (tests/vm/buildroot.sh; qemu-system-arm, -x86 or -riscv installed
	# there once) instead of this host's QEMU 7.2
	# QEMU 7.2 under -icount never brings up 6.1's second vCPU (it stops
	# at "x86: Booting SMP configuration") and never starts a riscv64
	# kernel (silent after OpenSBI for 12 minutes, 6.12); sid's does both
	# (31 s and 15 s to the command): those icount boots take sid's QEMU
	# unless VM_QEMU says
	local vq=${VM_QEMU:-host}
	if [ -n "${VM_ICOUNT:-}" ] && [ -z "${VM_QEMU:-}" ]; then
		case $k in 6.1|*-riscv64) vq=sid ;; esac
	fi
	case $vq in
	host) ;;
	sid)
		local qpkg qroot
		case $(vm_arch "$k") in
		arm64) qpkg=qemu-system-arm ;;
		riscv64) qpkg=qemu-system-riscv ;;
		*) qpkg=qemu-system-x86 ;;
		esac
		qroot=$("$VM_SRC/tests/vm/buildroot.sh" ensure sid "$qpkg") || return 1
		qemu=(bash "$VM_SRC/tests/vm/buildroot.sh" run "$qroot" "${qemu[@]}") ;;
	*) vm_die "VM_QEMU=${VM_QEMU}: host or sid" ;;
	esac
	# A boot that never reaches the guest's init is stopped after
	# VM_BOOT_STALL_S and started once more: one 7.2-riscv64 boot of make
	# check sat after OpenSBI, the kernel silent, until its 45-minute
	# timeout, where the same command line reached init in 42 s when run
	# again (2026-12-07). 0: no such watch.
	local stall=${VM_BOOT_STALL_S:-600} attempt rc qpid waited
	for attempt in 1 2; do
		: > "$run/console.log"; : > "$run/out.log"
		timeout --kill-after=5 "$tmo" "${qemu[@]}" \
			-accel tcg,thread="$tcg" -smp 2 -m 1536 \
			-display none -no-reboot -nic none -monitor none \
			-kernel "$kd/vmlinux" -initrd "$kd/initramfs.cpio.gz" \
			-append "$(echo $append)" \
			-drive file="$kd/root.img",if=virtio,format=raw,snapshot=on \
			-drive file="$run/payload.img",if=virtio,format=raw \
			> "$run/qemu.log" 2>&1 &
		qpid=$! waited=0
		while [ "$stall" -gt 0 ] && kill -0 "$qpid" 2>/dev/null; do
			grep -q '@@BOOTED' "$run/out.log" 2>/dev/null && break
			if [ "$waited" -ge "$stall" ]; then
				kill "$qpid" 2>/dev/null	# timeout passes it on to QEMU
				break
			fi
			sleep 5
			waited=$((waited + 5))
		done
		wait "$qpid"
		rc=$?
		grep -q '@@BOOTED' "$run/out.log" 2>/dev/null || [ "$stall" = 0 ] ||
			[ "$waited" -lt "$stall" ] || {
			vm_log "$k: no init after ${stall}s (attempt $attempt); console: $(tr -d '\r' < "$run/console.log" | tail -n 1)"
			cp "$run/console.log" "$run/console-stalled-$attempt.log"
			rc=125
			continue
		}
		break
	done
	[ $rc = 124 ] && echo "@@TIMEOUT ${tmo}s" >> "$run/out.log"
	return $rc
}
