# SPDX-License-Identifier: GPL-2.0-or-later
# Static checks of the built tracerd_kmod.ko for every test kernel, for
# what the VM cannot catch (TCG emulates no CET/IBT nor BTI): every direct
# trampoline stub and the common body start with ENDBR64 when the kernel
# has X86_KERNEL_IBT (BTI C on arm64), the x86 common body accounts for
# call depth (its ALTERNATIVE site) when the kernel tracks it, and objtool
# had nothing to say about the module.
set -u
shopt -s nullglob
checked=0
for kd in "$O"/vm/k/*/; do
	k=$(basename "$kd")
	ko=$kd/kmod/tracerd_kmod.ko
	[ -f "$ko" ] && [ -f "$kd/kdir" ] || continue
	cfg=$(cat "$kd/kdir")/.config
	[ -f "$cfg" ] || continue
	log=$kd/kmod/tracerd_kmod/build.log
	if [ -f "$log" ] && grep -i 'objtool' "$log"; then
		echo "FAIL $k: objtool warnings"; exit 1
	fi
	case $(file -b "$ko") in
	*x86-64*) od=objdump want=endbr64 need=CONFIG_X86_KERNEL_IBT ;;
	*aarch64*) od=aarch64-linux-gnu-objdump want='bti[[:space:]]+c' need=CONFIG_ARM64_BTI_KERNEL ;;
	*) continue ;;
	esac
	command -v "$od" > /dev/null || { echo "skip $k: no $od"; continue; }
	dis=$("$od" -d --no-show-raw-insn "$ko")
	# first instruction of each trampoline stub: the addresses ftrace branches
	# to indirectly (the common body is reached by a direct jmp; 7.x's
	# SYM_FUNC_START no longer gives it an ENDBR, and it needs none)
	firsts=$(printf '%s\n' "$dis" | awk '
		/^[0-9a-f]+ <tracerd_direct_tramp_[0-9]+>:$/ { name = $2; getline; sub(/^ *[0-9a-f]+:[ \t]*/, ""); print name, $0 }')
	n=$(printf '%s\n' "$firsts" | grep -c .)
	[ "$n" -gt 1 ] || { echo "FAIL $k: no trampolines found in $ko"; exit 1; }
	if grep -q "^$need=y" "$cfg"; then
		bad=$(printf '%s\n' "$firsts" | grep -Evc ">: +$want")
		if [ "$bad" != 0 ]; then
			printf '%s\n' "$firsts" | grep -Ev ">: +$want" | head -n 5
			echo "FAIL $k: $bad of $n trampoline entries lack $want"; exit 1
		fi
		echo "ok: $k: all $n trampoline entries start with $want"
	else
		echo "ok: $k: $n trampolines ($need not set: no landing pad needed)"
	fi
	if grep -q '^CONFIG_MITIGATION_CALL_DEPTH_TRACKING=y' "$cfg"; then
		# CALL_DEPTH_ACCOUNT leaves an alternative site (nops) right after
		# the frame setup of tracerd_direct_common
		body=$(printf '%s\n' "$dis" | sed -n '/<tracerd_direct_common>:$/,/^$/p')
		printf '%s\n' "$body" | sed -n '2,4p' | grep -Eq 'mov +%rsp,%rbp' &&
		printf '%s\n' "$body" | sed -n '5p' | grep -q 'nop' ||
			{ echo "FAIL $k: no call-depth accounting site in the common body"; exit 1; }
		echo "ok: $k: call-depth accounting site present"
	fi
	checked=$((checked + 1))
done
[ $checked -gt 0 ] || { echo "no per-kernel tracerd_kmod.ko built yet (make vm-check builds them)"; exit 77; }
