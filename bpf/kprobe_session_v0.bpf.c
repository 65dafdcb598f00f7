// SPDX-License-Identifier: GPL-2.0-only
/* kprobe_session.bpf.c for kernels whose session kfuncs take no argument
 * (6.10 to 6.x); the daemon loads the one matching the kernel's BTF. */
#define TRACERD_SESSION_KFUNC_VOID 1
#include "kprobe_session.bpf.c"
