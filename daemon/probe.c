// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feature probing at start: for every mode, really load and attach (then
 * detach) a do-nothing hook, as bcc's fentry_can_attach does, and keep the
 * kernel's answer as the reason when it refuses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/util.h"
#include "backend.h"
#include "bpfutil.h"

/* The function every probe hooks: the arch's getpgid syscall handler. */
static const char *probe_function(void)
{
	struct utsname u;

	if (uname(&u))
		return "__x64_sys_getpgid";
	if (!strcmp(u.machine, "aarch64"))
		return "__arm64_sys_getpgid";
	if (!strncmp(u.machine, "riscv", 5))
		return "__riscv_sys_getpgid";
	return "__x64_sys_getpgid";
}

void probe_features(struct tracerd *d)
{
	struct feature *f;
	int m, ret;

	str_copy(d->probe_fn, probe_function(), sizeof(d->probe_fn));
	d->kmod.int3_probe = 0;	/* the variant's own probe, when it is asked for */
	if (bpf_jit_enabled() == 0)
		log_info(
			"BPF JIT off (net.core.bpf_jit_enable=0): the kernel's interpreter runs "
			"the "
			"BPF modes (slower; recorded events carry no CPU), and the modes that call "
			"kfuncs are unavailable");
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		f = &d->features[m];
		f->reason[0] = '\0';
		ret = backend_get(m)->probe(d, f->reason, sizeof(f->reason));
		f->available = ret == 0;
		if (ret && !f->reason[0])
			snprintf(f->reason, sizeof(f->reason), "probe failed: %s", strerror(-ret));
		if (f->available)
			log_info("mode %s: available", tracerd_mode_name(m));
		else
			log_info("mode %s: unavailable: %s", tracerd_mode_name(m), f->reason);
	}
	log_info("raw_tp: %s%s", d->raw_tp.available ? "available" : "unavailable: ",
		 d->raw_tp.reason);
}
