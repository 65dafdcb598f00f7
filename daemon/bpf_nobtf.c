// SPDX-License-Identifier: GPL-2.0-only
/*
 * The builds of the BPF objects that need no kernel BTF (Makefile,
 * BPF_NOBTF: comm by bpf_get_current_comm, bpf/hook.bpf.h task_comm):
 * their ELF bytes only, opened through the skeleton of the default build
 * (bpfutil.h, open_elf) when that one does not load. The skeletons are
 * included here alone: each defines the same programs and maps under
 * another struct name.
 */
#include <stddef.h>
#include "bpfutil.h"
#include "kprobe-nobtf.skel.h"
#include "kprobe_multi-nobtf.skel.h"
#include "kprobe_session-nobtf.skel.h"
#include "kprobe_session_v0-nobtf.skel.h"
#include "tp-nobtf.skel.h"

#define NOBTF_ELF(sk)						\
	const void *sk##_bpf_nobtf_elf(size_t *sz)		\
	{							\
		return sk##_nobtf_bpf__elf_bytes(sz);		\
	}

NOBTF_ELF(kprobe)
NOBTF_ELF(kprobe_multi)
NOBTF_ELF(kprobe_session)
NOBTF_ELF(kprobe_session_v0)
NOBTF_ELF(tp)
