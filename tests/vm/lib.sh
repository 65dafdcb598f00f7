# SPDX-License-Identifier: GPL-2.0-or-later
# Shared functions of the VM harness (sourced). See tests/vm/README.md.
# Everything is cached under $VM_DIR (build/vm), keyed on its inputs.

VM_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${O:=$VM_SRC/build}"
VM_DIR=$O/vm
VM_KERNELS_ALL="6.1 6.12"
VM_ROOT_PKGS="systemd,systemd-sysv,dbus,kmod,procps,iproute2,libbpf1,libelf1,libevent-2.1-7,libevent-core-2.1-7,libevent-pthreads-2.1-7,libjson-c5,zlib1g,libsystemd0,bpftool,curl,python3-minimal"
VM_MIRROR=${VM_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}
: "${VM_MIRROR:=http://deb.debian.org/debian}"

vm_log() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { printf 'vm: error: %s\n' "$*" >&2; exit 1; }

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

# Debian root shared by every kernel: debootstrap once, cached as a tarball.
vm_rootfs() {
	local key stamp tar=$VM_DIR/rootfs.tar
	key=$(printf '%s %s %s' "$VM_ROOT_PKGS" "$VM_MIRROR" "$(sha1sum "$VM_SRC/tests/vm/lib.sh" | cut -c1-12)" | sha1sum | cut -c1-16)
	stamp=$VM_DIR/rootfs.key
	if [ -f "$tar" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then return 0; fi
	vm_log "debootstrap bookworm ($VM_MIRROR)"
	rm -rf "$VM_DIR/rootfs.tmp"
	mkdir -p "$VM_DIR"
	debootstrap --variant=minbase --include="$VM_ROOT_PKGS" bookworm \
		"$VM_DIR/rootfs.tmp" "$VM_MIRROR" > "$VM_DIR/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$VM_DIR/debootstrap.log" >&2; vm_die "debootstrap failed"; }
	local r=$VM_DIR/rootfs.tmp
	echo tracerd-vm > "$r/etc/hostname"
	printf '/dev/vda / ext4 rw 0 1\n' > "$r/etc/fstab"
	passwd -R "$r" -d root >/dev/null 2>&1 || true
	rm -rf "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"*
	tar -C "$r" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
	rm -rf "$r"
	echo "$key" > "$stamp"
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
vm_initramfs() {
	local k=$1 kd=$VM_DIR/k/$1 rel out key
	rel=$(cat "$kd/release")
	out=$kd/initramfs.cpio.gz
	key=$(cat "$kd/.done" "$VM_SRC/tests/vm/initramfs-init" | sha1sum | cut -c1-16)
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then return 0; fi
	local d=$kd/initramfs.tmp m list=""
	rm -rf "$d"; mkdir -p "$d"/{bin,dev,proc,sys,newroot,lib/modules}
	cp /bin/busybox "$d/bin/busybox"
	for m in virtio_pci virtio_blk ext4 crc32c_generic crc32c-intel; do
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
	key=$(cat "$VM_DIR/rootfs.key" "$kd/.done" | sha1sum | cut -c1-16)
	if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$key" ]; then return 0; fi
	local d=$kd/rootdir.tmp
	rm -rf "$d"; mkdir -p "$d"
	tar -C "$d" -xf "$VM_DIR/rootfs.tar" || return 1
	mkdir -p "$d/lib/modules"
	cp -a "$kd/root/lib/modules/$rel" "$d/lib/modules/"
	rm -f "$img.tmp"
	mke2fs -q -t ext4 -L tracerd-root -d "$d" "$img.tmp" 2G >/dev/null
	mv "$img.tmp" "$img"; echo "$key" > "$img.key"
	rm -rf "$d"
}

# vm_kmods NAME — tracerd_kmod.ko and tracerd_testmod.ko for this kernel
vm_kmods() {
	local k=$1 kd=$VM_DIR/k/$1
	make -s --no-print-directory -C "$VM_SRC" O="$O" kmod \
		KDIR="$(cat "$kd/kdir")" KMOD_OUT="$kd/kmod"
}

# vm_prepare NAME — everything a boot of kernel NAME needs, with budgets
vm_prepare() {
	local k=$1
	mkdir -p "$VM_DIR"
	# the root is shared by all kernels: the first to get the lock builds it
	vm_stage "rootfs" "${VM_BUDGET_ROOTFS:-900}" flock "$VM_DIR/rootfs.lock" \
		bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_rootfs" || return 1
	vm_stage "kernel $k" "${VM_BUDGET_FETCH:-900}" bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_kernel $k" || return 1
	vm_stage "kmods $k" "${VM_BUDGET_BUILD:-600}" bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_kmods $k" || return 1
	vm_stage "initramfs $k" 300 bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_initramfs $k" || return 1
	vm_stage "disk $k" 600 bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_disk $k" || return 1
}

# vm_payload NAME DIR — stage binaries, module, BPF objects and guest
# scripts into DIR (becomes /opt/tracerd in the guest)
vm_payload() {
	local k=$1 dir=$2 kd=$VM_DIR/k/$1
	mkdir -p "$dir/bin" "$dir/kmod" "$dir/bpf" "$dir/tests"
	cp "$O/tracerd" "$O/tracectl" "$dir/bin/" 2>/dev/null || true
	[ -d "$O/tests" ] && find "$O/tests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$dir/bin/" \;
	cp "$kd"/kmod/*.ko "$dir/kmod/"
	cp "$O"/bpf/*.bpf.o "$dir/bpf/" 2>/dev/null || true
	cp -r "$VM_SRC/tests/vm/guest/." "$dir/tests/"
	echo "$k" > "$dir/kernel-name"
	echo "${PROFILE:-ci}" > "$dir/profile"
}

# vm_boot NAME RUNDIR TIMEOUT EXTRA_CMDLINE — boot with RUNDIR/payload as
# /opt/tracerd; console -> RUNDIR/console.log, guest output -> RUNDIR/out.log
vm_boot() {
	local k=$1 run=$2 tmo=$3 extra=$4 kd=$VM_DIR/k/$1
	rm -f "$run/payload.img"
	mke2fs -q -t ext4 -L tracerd-payload -d "$run/payload" "$run/payload.img" 256M >/dev/null
	: > "$run/console.log"; : > "$run/out.log"
	local append="console=ttyS0 root=/dev/vda rw panic=-1 softlockup_panic=1
		watchdog_thresh=5 oops=panic slub_debug=FZPU loglevel=5
		tracerd.init=/opt/tracerd/tests/init $extra"
	timeout --kill-after=5 "$tmo" qemu-system-x86_64 \
		-accel tcg,thread=single -machine q35 -cpu max -smp 2 -m 1536 \
		-display none -no-reboot -nic none -monitor none \
		-kernel "$kd/vmlinux" -initrd "$kd/initramfs.cpio.gz" \
		-append "$(echo $append)" \
		-drive file="$kd/root.img",if=virtio,format=raw,snapshot=on \
		-drive file="$run/payload.img",if=virtio,format=raw \
		-serial file:"$run/console.log" -serial file:"$run/out.log" \
		> "$run/qemu.log" 2>&1
	local rc=$?
	[ $rc = 124 ] && echo "@@TIMEOUT ${tmo}s" >> "$run/out.log"
	return $rc
}
