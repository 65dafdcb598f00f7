// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint templates: tp_btf (BTF-typed raw tracepoint) and plain
 * raw_tp as the fallback; cloned per tracepoint like fentry.
 */
#include "hook.bpf.h"

SEC("?tp_btf")
int tp_btf_hit(void *ctx)
{
	return hook_entry(slot_imm());
}

SEC("?raw_tp")
int raw_tp_hit(void *ctx)
{
	return hook_entry(slot_imm());
}
