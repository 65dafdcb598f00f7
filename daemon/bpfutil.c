// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the BPF backends: skeleton loading, the per-hook
 * attach/detach loops, program clones, misses, logging.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/filter.h>
#include <tracerd/record.h>
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"

/* libbpf's print callback has no context argument: the one verbosity of
 * the process, set once at start (libbpf_log_setup) */
static int libbpf_verbose;

/* libbpf warnings are expected while probing: shown with -v, its debug with -vv */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int l = level == LIBBPF_WARN ? TLOG_INFO : TLOG_DEBUG;
	char *msg, *line, *save = NULL;

	if (level == LIBBPF_DEBUG && libbpf_verbose < 2)
		return 0;
	/* verifier logs come as one long message: log them line by line */
	if (vasprintf(&msg, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		tlog(l, "%s", line);
	free(msg);
	return 0;
}

void libbpf_log_setup(int verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

/*
 * net.core.bpf_jit_enable: 1 (2: with debug dumps) the JIT compiles every
 * program, 0 the kernel's interpreter runs them; -1 unreadable (taken as
 * on). Debian's riscv64 kernels boot with it off: riscv selects no
 * ARCH_WANT_DEFAULT_BPF_JIT, so there is no BPF_JIT_DEFAULT_ON.
 */
int bpf_jit_enabled(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "re");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool jit_off(void)
{
	return bpf_jit_enabled() == 0;
}

void bpf_jit_explain(char *err, size_t errlen)
{
	size_t n = strlen(err);

	if (jit_off() && n < errlen)
		snprintf(err + n, errlen - n, "%s",
			 "; the BPF JIT is off (net.core.bpf_jit_enable=0)");
}

/*
 * A kernel whose JIT inlines a helper (riscv64's bpf_jit_inlines_helper_call:
 * bpf_get_smp_processor_id, bpf_get_current_task[_btf]) marks every program
 * that calls it as needing the JIT (Linux 7.2's bpf_do_misc_fixups sets
 * jit_required whether the JIT is on or not), and with the JIT off
 * bpf_fixup_call_args refuses it once verified: "program requires BPF JIT
 * compiler but it is not available" (EINVAL), whatever the program type.
 * With the JIT off, each of obj's programs to load has its
 * bpf_get_smp_processor_id calls (the CPU of a recorded event) replaced by
 * w0 = TRACERD_CPU_UNKNOWN; the task-storage path, the one with
 * bpf_get_current_task_btf, is turned off in clones (task_storage_ok) and
 * is dead code in a template. 0 or -errno.
 */
int bpf_obj_for_interpreter(struct bpf_object *obj)
{
	const struct bpf_insn mov = {	/* w0 = imm */
		.code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		.imm = (__s32)TRACERD_CPU_UNKNOWN,
	};
	struct bpf_program *prog;
	struct bpf_insn *in;
	size_t i, n, hits;
	int ret;

	if (!jit_off())
		return 0;
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		n = bpf_program__insn_cnt(prog);
		in = malloc(n * sizeof(*in));
		if (!in)
			return -ENOMEM;
		memcpy(in, bpf_program__insns(prog), n * sizeof(*in));
		for (i = hits = 0; i < n; i++) {
			if (in[i].code == (BPF_JMP | BPF_CALL) && !in[i].src_reg &&
			    in[i].imm == BPF_FUNC_get_smp_processor_id) {
				in[i] = mov;
				hits++;
			}
		}
		/* same length, one instruction for another: relocations still hold */
		ret = hits ? bpf_program__set_insns(prog, in, n) : 0;
		free(in);
		if (ret)
			return ret;
	}
	return 0;
}

/* Set every MOV of the 32-bit immediate magic to val; how many there were. */
static size_t patch_imm32(struct bpf_insn *in, size_t n, __s32 magic, __s32 val)
{
	size_t i, hits = 0;

	for (i = 0; i < n; i++) {
		__u8 cls = BPF_CLASS(in[i].code);

		if ((cls == BPF_ALU64 || cls == BPF_ALU) && BPF_OP(in[i].code) == BPF_MOV &&
		    BPF_SRC(in[i].code) == BPF_K && in[i].imm == magic) {
			in[i].imm = val;
			hits++;
		}
	}
	return hits;
}

/* Set every 64-bit load of the immediate magic (ld_imm64) to val. */
static void patch_imm64(struct bpf_insn *in, size_t n, __u64 magic, __u64 val)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (in[i].code != (BPF_LD | BPF_DW | BPF_IMM) || in[i].src_reg ||
		    (__u32)in[i].imm != (__u32)magic || (__u32)in[i + 1].imm != magic >> 32)
			continue;
		in[i].imm = (__s32)(__u32)val;
		in[i + 1].imm = (__s32)(__u32)(val >> 32);
		i++;
	}
}

/* May programs of type t keep entry times in task storage? Asked once per type. */
static bool task_storage_ok(enum bpf_prog_type t)
{
	static signed char ok[64];	/* 0: not asked yet, 1: yes, -1: no */

	if (jit_off())	/* bpf_get_current_task_btf may need the JIT: bpf_obj_for_interpreter */
		return false;
	if (t == BPF_PROG_TYPE_TRACING)	/* fentry/fexit: since Linux 5.11 */
		return true;
	if ((size_t)t >= sizeof(ok))
		return false;
	if (!ok[t])
		ok[t] = libbpf_probe_bpf_helper(t, BPF_FUNC_task_storage_get, NULL) == 1 ? 1 : -1;
	return ok[t] > 0;
}

/* Bake spec's flags and filters into insns (bpf/hook.bpf.h's immediates). */
static void patch_spec(struct bpf_insn *in, size_t n, enum bpf_prog_type type,
		       const struct tracerd_spec *spec)
{
	struct tracerd_slot_cfg cfg;
	__u64 comm[2];

	maps_spec_cfg(spec, &cfg);
	if ((cfg.flags & TRACERD_SLOT_LATENCY) && task_storage_ok(type))
		cfg.flags |= TRACERD_SLOT_TASK_TS;
	memcpy(comm, cfg.comm, sizeof(comm));
	patch_imm32(in, n, TRACERD_FLAGS_MAGIC, (__s32)cfg.flags);
	patch_imm32(in, n, TRACERD_TGID_MAGIC, (__s32)cfg.tgid);
	patch_imm64(in, n, TRACERD_COMM0_MAGIC, comm[0]);
	patch_imm64(in, n, TRACERD_COMM1_MAGIC, comm[1]);
}

/*
 * The template to clone for spec: tmpl, or its specialised form in obj
 * (bpf/hook.bpf.h's fast_*: no flag test per call) when spec's flags are
 * exactly that form's: NAME_count for an attachment that only counts
 * (a tgid filter or none), NAME_lat for one that only times calls with
 * task storage. A form obj did not load leaves tmpl.
 */
const struct bpf_program *bpf_hook_tmpl(const struct bpf_object *obj,
					const struct bpf_program *tmpl,
					const struct tracerd_spec *spec)
{
	const struct bpf_program *fast;
	struct tracerd_slot_cfg cfg;
	const char *form = NULL;
	char name[64];
	__u32 f;

	if (!spec)
		return tmpl;
	maps_spec_cfg(spec, &cfg);
	f = cfg.flags & ~TRACERD_SLOT_TGID;
	if (f == TRACERD_SLOT_ENABLED)
		form = "count";
	else if (f == (TRACERD_SLOT_ENABLED | TRACERD_SLOT_LATENCY) &&
		 task_storage_ok(bpf_program__type(tmpl)))
		form = "lat";
	if (!form || (size_t)snprintf(name, sizeof(name), "%s_%s", bpf_program__name(tmpl), form) >=
	    sizeof(name))
		return tmpl;
	fast = bpf_object__find_program_by_name(obj, name);
	return fast && bpf_program__fd(fast) >= 0 ? fast : tmpl;
}

/*
 * Point every map reference of insns to map fd from (a ld_imm64 with
 * BPF_PSEUDO_MAP_FD, as libbpf leaves a loaded program's) at map fd to
 * instead. How many were patched.
 */
static size_t patch_map_fd(struct bpf_insn *in, size_t n, int from, int to)
{
	size_t i, k = 0;

	for (i = 0; i + 1 < n; i++) {
		if (in[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (in[i].src_reg == BPF_PSEUDO_MAP_FD && in[i].imm == from) {
			in[i].imm = to;
			k++;
		}
		i++;	/* the second half of the ld_imm64 */
	}
	return k;
}

/* A clone of tmpl loaded as attach_type, its slot (and spec, if any) patched
 * in; map_from >= 0: its references to map fd map_from go to map_to. */
static int clone_load(const struct bpf_program *tmpl, unsigned int attach_type, __u32 slot,
		      const struct tracerd_spec *spec, __u32 attach_btf_id, int attach_btf_obj_fd,
		      int map_from, int map_to, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = attach_type,
		.attach_btf_id = attach_btf_id,
		.attach_btf_obj_fd = attach_btf_obj_fd,
	);
	size_t n = bpf_program__insn_cnt(tmpl);
	struct bpf_insn *insns;
	char ebuf[96];
	int fd;

	insns = malloc(n * sizeof(*insns));
	if (!insns)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	memcpy(insns, bpf_program__insns(tmpl), n * sizeof(*insns));
	if (!patch_imm32(insns, n, TRACERD_SLOT_MAGIC, (__s32)slot)) {
		free(insns);
		return set_err(err, errlen, -EINVAL, "program '%s' has no slot immediate",
			       bpf_program__name(tmpl));
	}
	if (spec)
		patch_spec(insns, n, bpf_program__type(tmpl), spec);
	if (map_from >= 0 && !patch_map_fd(insns, n, map_from, map_to)) {
		free(insns);
		return set_err(err, errlen, -EINVAL, "program '%s' uses no map to redirect",
			       bpf_program__name(tmpl));
	}
	fd = bpf_prog_load(bpf_program__type(tmpl), bpf_program__name(tmpl), "GPL",
			   insns, n, &opts);
	if (fd < 0) {
		fd = -errno;
		set_err(err, errlen, fd, "failed to load %s clone: %s",
			bpf_program__name(tmpl), errno_str(fd, ebuf, sizeof(ebuf)));
		bpf_jit_explain(err, errlen);
	}
	free(insns);
	return fd;
}

int bpf_clone_hook(const struct bpf_program *tmpl, __u32 slot, const struct tracerd_spec *spec,
		   __u32 attach_btf_id, int attach_btf_obj_fd, char *err, size_t errlen)
{
	return clone_load(tmpl, bpf_program__expected_attach_type(tmpl), slot, spec,
			  attach_btf_id, attach_btf_obj_fd, -1, -1, err, errlen);
}

int bpf_clone_count(const struct bpf_program *tmpl, unsigned int attach_type,
		    const struct tracerd_spec *spec, int stats_fd, int calls_fd,
		    int attach_btf_obj_fd, char *err, size_t errlen)
{
	return clone_load(tmpl, attach_type, TRACERD_SLOT_COOKIE, spec, 0, attach_btf_obj_fd,
			  stats_fd, calls_fd, err, errlen);
}

int bpf_clone_prog_as(const struct bpf_program *tmpl, unsigned int attach_type, __u32 slot,
		      const struct tracerd_spec *spec, __u32 attach_btf_id,
		      int attach_btf_obj_fd, char *err, size_t errlen)
{
	return clone_load(tmpl, attach_type, slot, spec, attach_btf_id, attach_btf_obj_fd,
			  -1, -1, err, errlen);
}

int bpf_counts_create(struct bpf_counts *c, size_t n, const char *name, char *err,
		      size_t errlen)
{
	char ebuf[96];
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (!n || n > UINT32_MAX)
		return set_err(err, errlen, -EINVAL, "cannot count %zu functions in one map", n);
	c->fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, name, sizeof(__u32), sizeof(__u64),
			       (__u32)n, NULL);
	if (c->fd < 0) {
		ret = -errno;
		c->fd = -1;
		return set_err(err, errlen, ret, "failed to create the counters of %zu "
			       "functions (per-CPU array): %s", n, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	c->n = n;
	return 0;
}

void bpf_counts_close(struct bpf_counts *c)
{
	if (!c)
		return;
	bpf_counts_read_end(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->at);
	c->at = NULL;
	c->nat = 0;
}

int bpf_counts_settle(struct bpf_counts *c, const struct hook *hooks, size_t n)
{
	size_t i, k = 0;

	free(c->at);
	c->at = NULL;
	c->nat = 0;
	for (i = 0; i < n; i++)
		k += hooks[i].attached;
	if (k == n)
		return 0;	/* none dropped: the i-th */
	c->at = malloc((k ? k : 1) * sizeof(*c->at));
	if (!c->at) {
		c->n = 0;	/* no read: none misread */
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (hooks[i].attached)
			c->at[c->nat++] = (__u32)i;
	return 0;
}

/* c's counters one by one (a kernel without batch lookups on arrays: < 5.6) */
static int counts_read_each(const struct bpf_counts *c, __u64 *vals, int ncpus)
{
	__u32 k;
	int cpu;

	for (k = 0; k < c->n; k++) {
		if (bpf_map_lookup_elem(c->fd, &k, vals))
			return -errno;
		c->calls[k] = 0;
		for (cpu = 0; cpu < ncpus; cpu++)
			c->calls[k] += vals[cpu];
	}
	return 0;
}

void bpf_counts_read_begin(struct bpf_counts *c)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t chunk, done = 0, j;
	__u32 *keys = NULL, tok = 0, count;
	__u64 *vals = NULL;
	int cpu, ret = 0;

	bpf_counts_read_end(c);
	if (c->fd < 0 || ncpus <= 0)
		return;
	/* at most 256 KiB of per-CPU values per call */
	chunk = 32768 / (size_t)ncpus;
	if (!chunk)
		chunk = 1;
	if (chunk > c->n)
		chunk = c->n;
	c->calls = calloc(c->n, sizeof(*c->calls));
	keys = calloc(chunk, sizeof(*keys));
	vals = calloc(chunk * (size_t)ncpus, sizeof(*vals));
	if (!c->calls || !keys || !vals)
		goto fail;
	while (done < c->n) {
		count = (__u32)(c->n - done < chunk ? c->n - done : chunk);
		ret = bpf_map_lookup_batch(c->fd, done ? &tok : NULL, &tok, keys, vals, &count,
					   NULL);
		if (ret && errno != ENOENT) {
			if (done || counts_read_each(c, vals, ncpus))
				goto fail;
			break;
		}
		for (j = 0; j < count; j++) {
			if (keys[j] >= c->n)
				continue;
			c->calls[keys[j]] = 0;
			for (cpu = 0; cpu < ncpus; cpu++)
				c->calls[keys[j]] += vals[j * (size_t)ncpus + (size_t)cpu];
		}
		done += count;
		if (ret || !count)	/* ENOENT: past the last key */
			break;
	}
	c->cached = true;
	free(keys);
	free(vals);
	return;
fail:
	free(c->calls);
	c->calls = NULL;
	free(keys);
	free(vals);
}

void bpf_counts_read_end(struct bpf_counts *c)
{
	free(c->calls);
	c->calls = NULL;
	c->cached = false;
}

int bpf_counts_hook_read(struct tracerd *d, const struct bpf_counts *c,
			 const struct attachment *a, const struct hook *h,
			 struct tracerd_slot_stats *s)
{
	size_t i = (size_t)(h - a->hooks);

	if (!c || c->fd < 0)
		return maps_slot_read(d, h->slot, s);
	if (c->at && i >= c->nat)
		return -ENOENT;
	return bpf_counts_read(c, c->at ? c->at[i] : i, &s->calls);
}

int bpf_counts_read(const struct bpf_counts *c, size_t i, __u64 *out)
{
	int ncpus = libbpf_num_possible_cpus(), cpu;
	__u32 k = (__u32)i;
	__u64 *vals;

	*out = 0;
	if (i >= c->n)
		return -ENOENT;
	if (c->cached) {
		*out = c->calls[i];
		return 0;
	}
	if (c->fd < 0 || ncpus <= 0)
		return -EBADF;
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(c->fd, &k, vals)) {
		cpu = -errno;
		free(vals);
		return cpu;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		*out += vals[cpu];
	free(vals);
	return 0;
}

int bpf_prog_misses(int prog_fd, __u64 *out)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*out = info.recursion_misses;
	return 0;
}

struct bpf_hook *bpf_hook_new(struct hook *h)
{
	struct bpf_hook *b = calloc(1, sizeof(*b));

	if (b)
		b->prog_fd[0] = b->prog_fd[1] = b->link_fd[0] = b->link_fd[1] = -1;
	h->priv = b;
	return b;
}

void bpf_hook_close(struct bpf_hook *b)
{
	int i;

	for (i = 0; b && i < 2; i++) {
		if (b->link_fd[i] >= 0)
			close(b->link_fd[i]);
		if (b->prog_fd[i] >= 0)
			close(b->prog_fd[i]);
		b->link_fd[i] = b->prog_fd[i] = -1;
		bpf_link__destroy(b->link[i]);
		b->link[i] = NULL;
	}
}

void bpf_hook_free(struct tracerd *d, struct attachment *a, struct hook *h)
{
	bpf_hook_close(h->priv);
	free(h->priv);
	h->priv = NULL;
	h->attached = false;
}

/* bpf_skel_load of one build: sk's own (elf NULL) or the ELF given */
static int skel_load_build(struct tracerd *d, const struct bpf_skel *sk, const char *target,
			   const void *elf, size_t elf_sz, void **pskel, char *err, size_t errlen)
{
	const char *const *name;
	struct bpf_program *prog;
	char ebuf[96];
	void *skel;
	int ret;

	skel = elf ? sk->open_elf(elf, elf_sz) : sk->open();
	if (!skel) {
		ret = -errno;
		return set_err(err, errlen, ret, "failed to open %s BPF object: %s", sk->name,
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	for (name = sk->progs; *name; name++) {
		prog = bpf_object__find_program_by_name(sk->obj(skel), *name);
		if (!prog) {
			ret = set_err(err, errlen, -ENOENT, "no program %s in the %s BPF object",
				      *name, sk->name);
			goto cleanup;
		}
		bpf_program__set_autoload(prog, true);
		if (sk->attach_type)
			bpf_program__set_expected_attach_type(prog, sk->attach_type);
		if (!sk->aim)
			continue;
		ret = bpf_program__set_attach_target(prog, 0, target);
		if (ret && limit_explain(ret, ebuf, sizeof(ebuf))) {
			/* libbpf says ESRCH when it could not load the kernel's BTF at all */
			set_err(err, errlen, ret, "cannot load the kernel's BTF for %s '%s': %s",
				sk->aim, target, ebuf);
			goto cleanup;
		}
		if (ret) {
			set_err(err, errlen, ret, "no BTF for %s '%s': %s", sk->aim, target,
				errno_str(ret, ebuf, sizeof(ebuf)));
			goto cleanup;
		}
	}
	ret = bpf_obj_for_interpreter(sk->obj(skel));
	if (ret) {
		set_err(err, errlen, ret, "failed to prepare %s for the BPF interpreter: %s",
			sk->what, errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	ret = maps_reuse(d, sk->obj(skel));
	if (ret && !sk->maps_err_is_load_err) {
		set_err(err, errlen, ret, "failed to share maps: %s",
			errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	if (!ret)
		ret = sk->load(skel);
	if (ret) {
		if (target)
			set_err(err, errlen, ret, "failed to load %s for '%s': %s", sk->what,
				target, errno_str(ret, ebuf, sizeof(ebuf)));
		else
			set_err(err, errlen, ret, "failed to load %s: %s", sk->what,
				errno_str(ret, ebuf, sizeof(ebuf)));
		bpf_jit_explain(err, errlen);
		goto cleanup;
	}
	*pskel = skel;
	return 0;
cleanup:
	sk->destroy(skel);
	return ret;
}

int bpf_skel_load(struct tracerd *d, const struct bpf_skel *sk, const char *target,
		  void **pskel, char *err, size_t errlen)
{
	const void *elf;
	size_t sz;
	int ret;

	if (*pskel)
		return 0;
	ret = skel_load_build(d, sk, target, NULL, 0, pskel, err, errlen);
	if (!ret || !sk->nobtf_elf)
		return ret;
	/* the build that reads comm by helper needs no kernel BTF: its error
	 * is the one that stands if it fails too */
	log_notice("%s; loading its build that needs no kernel BTF (comm by helper)", err);
	elf = sk->nobtf_elf(&sz);
	return skel_load_build(d, sk, target, elf, sz, pskel, err, errlen);
}

void bpf_skel_free(const struct bpf_skel *sk, void **pskel)
{
	if (*pskel)
		sk->destroy(*pskel);
	*pskel = NULL;
}

int hooks_attach(struct tracerd *d, struct attachment *a,
		 int (*one)(struct tracerd *d, struct attachment *a, struct hook *h),
		 void (*undo)(struct tracerd *d, struct attachment *a, struct hook *h))
{
	int ret, first = 0, n = 0;
	size_t i;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->err) {	/* the registry found it lacks what the mode needs */
			if (!first)
				first = -ENOENT;
			continue;
		}
		ret = one(d, a, h);
		if (ret) {
			undo(d, a, h);
			if (!first)
				first = ret;
			continue;
		}
		h->attached = true;
		n++;
	}
	return n ? 0 : first;
}

int bpf_hooks_attach(struct tracerd *d, struct attachment *a,
		     int (*one)(struct tracerd *d, struct attachment *a, struct hook *h))
{
	return hooks_attach(d, a, one, bpf_hook_free);
}

void bpf_hooks_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	for (i = 0; i < a->nr_hooks; i++)
		bpf_hook_free(d, a, &a->hooks[i]);
}

int bpf_probe_link(struct bpf_link *l, const char *kind, const char *target,
		   char *reason, size_t len)
{
	char ebuf[96];
	int ret;

	if (!l) {
		ret = -errno;
		return set_err(reason, len, ret, "attach to %s'%s' refused: %s", kind, target,
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_link__destroy(l);
	return 0;
}

int hook_prog_misses(const struct hook *h, __u64 *out)
{
	const struct bpf_hook *b = bpf_hook(h);
	int i, n = 0, ret;
	__u64 m;

	*out = 0;
	for (i = 0; b && i < 2; i++) {
		if (b->prog_fd[i] < 0)
			continue;
		ret = bpf_prog_misses(b->prog_fd[i], &m);
		if (ret)
			return ret;
		*out += m;
		n++;
	}
	return n;
}

int bpf_hooks_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		    void *ctx)
{
	const struct bpf_hook *b;
	int i, ret, sum = 0;
	size_t k;

	for (k = 0; k < a->nr_hooks; k++) {
		b = a->hooks[k].attached ? bpf_hook(&a->hooks[k]) : NULL;
		for (i = 0; b && i < 2; i++) {
			if (b->prog_fd[i] < 0)
				continue;
			ret = fn(b->prog_fd[i], ctx);
			if (ret < 0)
				return ret;
			sum += ret;
		}
	}
	return sum;
}

struct bpf_job *bpf_job_new(size_t nr, bool detach, void *ctx)
{
	struct bpf_job *j = calloc(1, sizeof(*j) + nr * sizeof(j->link[0]));
	size_t i;

	if (!j)
		return NULL;
	j->detach = detach;
	j->ctx = ctx;
	j->nr = nr;
	for (i = 0; i < nr; i++)
		j->link[i].prog_fd = j->link[i].fd = -1;
	return j;
}

/* On the registry's worker thread: nothing but j (backend.h, job_run). */
void bpf_job_run(void *job)
{
	struct bpf_job *j = job;
	struct bpf_job_link *l;
	bool failed = false;
	__u64 t;
	size_t i;

	for (i = 0; i < j->nr; i++) {
		l = &j->link[i];
		t = now_mono_ns();
		if (j->detach) {
			if (l->fd >= 0)
				close(l->fd);
			l->fd = -1;
		} else if (failed) {
			l->fd = -ECANCELED;
		} else {
			l->fd = l->create(l->prog_fd, l->arg);
			failed = l->fd < 0;
		}
		l->ns = now_mono_ns() - t;
	}
}

size_t bpf_job_failed(const struct bpf_job *j)
{
	size_t i;

	for (i = 0; !j->detach && i < j->nr; i++)
		if (j->link[i].fd < 0)
			return i;
	return j->nr;
}

unsigned long long bpf_job_ms(const struct bpf_job *j)
{
	unsigned long long ns = 0;
	size_t i;

	for (i = 0; i < j->nr; i++)
		ns += j->link[i].ns;
	return ns / 1000000;
}
