// SPDX-License-Identifier: GPL-2.0
/*
 * tracerd_testmod: test-only module with stable, traceable targets for
 * tracerd's tests and benchmarks (like the kernel's bpf_testmod).
 *
 * Targets are __noipa (not only noinline): GCC would otherwise drop calls
 * whose result is unused, merge identical bodies (ICF), or clone them.
 *
 * debugfs interface, /sys/kernel/debug/tracerd_testmod/:
 *   call       write "N"       call tracerd_testmod_target() N times
 *   call_fn    write "I N"     call generated function I (0..1023) N times
 *   call_all   write "N"       call every generated function N times
 *   sleep_us   write "US"      call tracerd_testmod_sleep(US) once (sleeps)
 *   call_ret   write "N"       call each tracerd_testmod_ret_*() N times
 *   call_chain write "N M"     call tracerd_testmod_chain_a() N times (a -> b -> c)
 *                              and tracerd_testmod_chain_b() M times (b -> c):
 *                              c's stacks are known, with known counts (--stacks)
 *   call_args  write "N COLOR PTR NAME"  call tracerd_testmod_args(N, COLOR, PTR, NAME)
 *                              once: N an int, COLOR a number, PTR a hex address
 *                              (never dereferenced), NAME a word ("-": NULL, a
 *                              string that faults) (--args, --if)
 *   warn       write "1"       trigger a WARN (harness self-test)
 *   nr_fns     read            number of generated functions
 *   entry_sites read           bench entry: each twin's entry bytes, checked
 *   entry_bench write "N R", then read: bench entry, R rounds of N calls
 *
 * Symbols for tracerd_kmod's bad-input tests: tracerd_testmod_notrace (a
 * function ftrace knows nothing of) and tracerd_testmod_data (read-only
 * data, not code).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#ifndef __noipa
#define __noipa __attribute__((__noipa__))
#endif

int tracerd_testmod_target(int x);
int tracerd_testmod_sleep(unsigned int us);

/* The main target: cheap, with an argument and a return value. */
__noipa int tracerd_testmod_target(int x)
{
	return x + 1;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_target);

/* A function without an ftrace call site: hooks needing one must refuse it. */
static notrace __noipa __used int tracerd_testmod_notrace(int x)
{
	return x + 2;
}

/*
 * A call chain of known depth for stack tests: chain_c is reached by two
 * distinct paths (a -> b -> c and b -> c). None is a tail call (each adds
 * to its callee's result), so every frame stays on the stack.
 */
int tracerd_testmod_chain_a(int x);
int tracerd_testmod_chain_b(int x);
int tracerd_testmod_chain_c(int x);

__noipa int tracerd_testmod_chain_c(int x)
{
	return x + 3;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_chain_c);

__noipa int tracerd_testmod_chain_b(int x)
{
	return tracerd_testmod_chain_c(x) + 1;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_chain_b);

__noipa int tracerd_testmod_chain_a(int x)
{
	return tracerd_testmod_chain_b(x) + 1;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_chain_a);

/*
 * --args and --if: an int, an enum, a pointer and a string, as the test
 * wrote them to call_args. Neither pointer is dereferenced.
 */
enum tracerd_testmod_color {
	TM_RED = 1,
	TM_GREEN = 2,
	TM_BLUE = 40,
};

int tracerd_testmod_args(int n, enum tracerd_testmod_color color, const void *ptr,
			 const char *name);

__noipa int tracerd_testmod_args(int n, enum tracerd_testmod_color color, const void *ptr,
				 const char *name)
{
	return n + (int)color;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_args);

/*
 * A struct of 24 bytes by value: no trampoline takes it (fentry and its
 * multi links; daemon/btfargs.c tells it from its BTF), the other modes
 * do. Its name sorts before the counted functions', so a tracing-multi
 * glob of the module leaves a hole ahead of them (t/57: their counts
 * must still be theirs). Never called.
 */
struct tracerd_testmod_big {
	long a, b, c;
};
long tracerd_testmod_big_arg(struct tracerd_testmod_big big);

__noipa long tracerd_testmod_big_arg(struct tracerd_testmod_big big)
{
	return big.a + big.b + big.c;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_big_arg);

/* Data, not code: every hook mode must refuse it. */
static const u8 tracerd_testmod_data[16] __used;

/* A target that takes a known minimum time (latency lower-bound tests). */
__noipa int tracerd_testmod_sleep(unsigned int us)
{
	usleep_range(us, us + us / 10 + 1);
	return (int)us;
}

/*
 * Argument layouts kmod-direct --latency refuses (its trampoline calls the
 * function with the register arguments only): ten longs (four on the
 * stack on x86_64, two on arm64), and a variadic function (its BTF cannot
 * say). Never called.
 */
long tracerd_testmod_args10(long a, long b, long c, long d, long e, long f,
			    long g, long h, long i, long j);
int tracerd_testmod_vararg(int n, ...);

__noipa long tracerd_testmod_args10(long a, long b, long c, long d, long e,
				    long f, long g, long h, long i, long j)
{
	return a + b + c + d + e + f + g + h + i + j;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_args10);

__noipa int tracerd_testmod_vararg(int n, ...)
{
	return n;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_vararg);

/*
 * --errors targets (tracectl attach --errors): what each returns, every
 * call. Two 64-bit values whose low 32 bits read as -EBUSY but are no
 * error (their upper half is not all ones), a real ERR_PTR(-ENOENT), and
 * an int -EBUSY. The pointers are never dereferenced.
 */
void *tracerd_testmod_ret_ptr(int x);
long tracerd_testmod_ret_long(int x);
void *tracerd_testmod_ret_errptr(int x);
int tracerd_testmod_ret_int(int x);

#define TM_FAKE_EBUSY(hi)	((unsigned long)(hi) << 32 | (u32)-EBUSY)

__noipa void *tracerd_testmod_ret_ptr(int x)
{
	return (void *)TM_FAKE_EBUSY(0xffff8881U);
}

__noipa long tracerd_testmod_ret_long(int x)
{
	return (long)TM_FAKE_EBUSY(1);
}

__noipa void *tracerd_testmod_ret_errptr(int x)
{
	return ERR_PTR(-ENOENT);
}

__noipa int tracerd_testmod_ret_int(int x)
{
	return -EBUSY;
}

/* 1024 distinct targets, tracerd_testmod_fn_000 .. tracerd_testmod_fn_3ff. */
#define TM_FN(n) int tracerd_testmod_fn_##n(int x);			\
	__noipa int tracerd_testmod_fn_##n(int x) { return x ^ 0x##n; }
#define TM_D1(p) TM_FN(p##0) TM_FN(p##1) TM_FN(p##2) TM_FN(p##3) \
		 TM_FN(p##4) TM_FN(p##5) TM_FN(p##6) TM_FN(p##7) \
		 TM_FN(p##8) TM_FN(p##9) TM_FN(p##a) TM_FN(p##b) \
		 TM_FN(p##c) TM_FN(p##d) TM_FN(p##e) TM_FN(p##f)
#define TM_D2(p) TM_D1(p##0) TM_D1(p##1) TM_D1(p##2) TM_D1(p##3) \
		 TM_D1(p##4) TM_D1(p##5) TM_D1(p##6) TM_D1(p##7) \
		 TM_D1(p##8) TM_D1(p##9) TM_D1(p##a) TM_D1(p##b) \
		 TM_D1(p##c) TM_D1(p##d) TM_D1(p##e) TM_D1(p##f)
TM_D2(0) TM_D2(1) TM_D2(2) TM_D2(3)

#undef TM_FN
#define TM_FN(n) tracerd_testmod_fn_##n,
static int (*const tm_fns[])(int) = { TM_D2(0) TM_D2(1) TM_D2(2) TM_D2(3) };
#define TM_NR_FNS ARRAY_SIZE(tm_fns)

/* Sink so the compiler keeps every call. */
static volatile int tm_sink;

#define TM_MAX_CALLS 100000000UL

static int tm_parse_ulong(const char __user *ubuf, size_t len, unsigned long *v)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return kstrtoul(strim(buf), 0, v);
}

static void tm_call_loop(int (*fn)(int), unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		tm_sink += fn((int)i);
		if ((i & 0xffff) == 0xffff)
			cond_resched();
	}
}

static ssize_t tm_call_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	unsigned long n;
	int ret = tm_parse_ulong(ubuf, len, &n);

	if (ret)
		return ret;
	if (n > TM_MAX_CALLS)
		return -E2BIG;
	tm_call_loop(tracerd_testmod_target, n);
	return len;
}

static ssize_t tm_call_fn_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[48];
	unsigned long idx, n;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%lu %lu", &idx, &n) != 2)
		return -EINVAL;
	if (idx >= TM_NR_FNS)
		return -ERANGE;
	if (n > TM_MAX_CALLS)
		return -E2BIG;
	tm_call_loop(tm_fns[idx], n);
	return len;
}

static ssize_t tm_call_all_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	unsigned long n, i;
	int ret = tm_parse_ulong(ubuf, len, &n);

	if (ret)
		return ret;
	if (n > TM_MAX_CALLS / TM_NR_FNS)
		return -E2BIG;
	for (i = 0; i < TM_NR_FNS; i++)
		tm_call_loop(tm_fns[i], n);
	return len;
}

static ssize_t tm_call_ret_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	unsigned long n, i;
	int ret = tm_parse_ulong(ubuf, len, &n);

	if (ret)
		return ret;
	if (n > TM_MAX_CALLS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		tm_sink += (long)tracerd_testmod_ret_ptr((int)i) != 0;
		tm_sink += tracerd_testmod_ret_long((int)i) != 0;
		tm_sink += IS_ERR(tracerd_testmod_ret_errptr((int)i));
		tm_sink += tracerd_testmod_ret_int((int)i);
		if ((i & 0xffff) == 0xffff)
			cond_resched();
	}
	return len;
}

static ssize_t tm_call_chain_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char buf[48];
	unsigned long n, m;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%lu %lu", &n, &m) != 2)
		return -EINVAL;
	if (n > TM_MAX_CALLS || m > TM_MAX_CALLS)
		return -E2BIG;
	tm_call_loop(tracerd_testmod_chain_a, n);
	tm_call_loop(tracerd_testmod_chain_b, m);
	return len;
}

static ssize_t tm_sleep_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned long us;
	int ret = tm_parse_ulong(ubuf, len, &us);

	if (ret)
		return ret;
	if (us > 10000000)	/* 10 s */
		return -E2BIG;
	tm_sink += tracerd_testmod_sleep(us);
	return len;
}

static ssize_t tm_call_args_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[160], name[128];
	unsigned long ptr;
	unsigned int color;
	int n;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%d %u %lx %127s", &n, &color, &ptr, name) != 4)
		return -EINVAL;
	tm_sink += tracerd_testmod_args(n, (enum tracerd_testmod_color)color, (const void *)ptr,
					strcmp(name, "-") ? name : NULL);
	return len;
}

static ssize_t tm_warn_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	WARN(1, "tracerd_testmod: WARN requested through debugfs (harness self-test)\n");
	return len;
}

static ssize_t tm_nr_fns_read(struct file *f, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%zu\n", TM_NR_FNS);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

#define TM_FOPS(name, op, fn)					\
	static const struct file_operations name = {		\
		.owner = THIS_MODULE, .op = fn,			\
		.llseek = noop_llseek }
TM_FOPS(tm_call_fops, write, tm_call_write);
TM_FOPS(tm_call_fn_fops, write, tm_call_fn_write);
TM_FOPS(tm_call_all_fops, write, tm_call_all_write);
TM_FOPS(tm_call_ret_fops, write, tm_call_ret_write);
TM_FOPS(tm_call_chain_fops, write, tm_call_chain_write);
TM_FOPS(tm_sleep_fops, write, tm_sleep_write);
TM_FOPS(tm_call_args_fops, write, tm_call_args_write);
TM_FOPS(tm_warn_fops, write, tm_warn_write);
TM_FOPS(tm_nr_fns_fops, read, tm_nr_fns_read);

/*
 * ---- bench entry (tracectl bench entry; seed 003, docs/origins.md): identical-bodied twins
 * that differ only in their entry sequence, timed in the kernel.
 *
 *   traceable   C, with the patchable entry ftrace left after init (x86_64:
 *               the 5-byte nop; arm64: `mov x9, x30; nop`)
 *   notrace     C, notrace: no patchable entry
 *   asm-*       hand-written (top-level asm, bytes exactly known, never
 *               patched: ftrace does not know them): arm64 `nop; nop`,
 *               `mov x9, x30; nop` and none; x86_64 the 5-byte nop and none
 *
 * Every body is `return x + 1`, behind the arch's landing pad (ENDBR64,
 * `bti c`) when the kernel is built with one. tm_entry_check() reads each
 * entry back and refuses a variant whose bytes are not what it claims.
 */
int tracerd_testmod_entry_traceable(int x);
int tracerd_testmod_entry_notrace(int x);
int tracerd_testmod_entry_asm_none(int x);

__noipa int tracerd_testmod_entry_traceable(int x)
{
	return x + 1;
}

notrace __noipa int tracerd_testmod_entry_notrace(int x)
{
	return x + 1;
}

#define TM_ASM_FN(name, entry)						\
	asm(".pushsection .text, \"ax\"\n"				\
	    ".globl " #name "\n"					\
	    ".type " #name ", " TM_ASM_FUNC "\n"			\
	    ".balign 16\n"						\
	    #name ":\n"							\
	    TM_LANDING entry TM_BODY					\
	    ".size " #name ", .-" #name "\n"				\
	    ".popsection\n")

#if defined(CONFIG_X86_64)
#define TM_ASM_FUNC	"@function"
#ifdef CONFIG_X86_KERNEL_IBT
#define TM_LANDING	"endbr64\n"
#else
#define TM_LANDING	""
#endif
#define TM_BODY		"leal 1(%rdi), %eax\n" ASM_RET
#define TM_INSN_NOP5	0x0f, 0x1f, 0x44, 0x00, 0x00
int tracerd_testmod_entry_asm_nop5(int x);
TM_ASM_FN(tracerd_testmod_entry_asm_nop5, ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n");
TM_ASM_FN(tracerd_testmod_entry_asm_none, "");
static const u8 tm_pad[] = { 0xf3, 0x0f, 0x1e, 0xfa };		/* endbr64 */
static const u8 tm_body[] = { 0x8d, 0x47, 0x01 };		/* lea 0x1(%rdi),%eax */
static const u8 tm_nop5[] = { TM_INSN_NOP5 };
#define TM_PAD_NAME	"endbr64"
#define TM_ENTRY_VARIANTS						\
	{ "traceable", tracerd_testmod_entry_traceable, "5-byte nop",	\
	  tm_nop5, sizeof(tm_nop5), true },				\
	{ "notrace", tracerd_testmod_entry_notrace, "none", NULL, 0 },	\
	{ "asm-nop5", tracerd_testmod_entry_asm_nop5, "5-byte nop",		\
	  tm_nop5, sizeof(tm_nop5) },					\
	{ "asm-none", tracerd_testmod_entry_asm_none, "none", NULL, 0 }
/* what ftrace writes when it traces the site: a call (e8 rel32) */
static bool tm_entry_traced(const u8 *site)
{
	return site[0] == 0xe8;
}
#elif defined(CONFIG_ARM64)
#define TM_ASM_FUNC	"%function"
#ifdef CONFIG_ARM64_BTI_KERNEL
#define TM_LANDING	"hint 34\n"	/* bti c */
#else
#define TM_LANDING	""
#endif
#define TM_BODY		"add w0, w0, #1\nret\n"
int tracerd_testmod_entry_asm_nop_nop(int x);
int tracerd_testmod_entry_asm_mov_nop(int x);
TM_ASM_FN(tracerd_testmod_entry_asm_nop_nop, "nop\nnop\n");
TM_ASM_FN(tracerd_testmod_entry_asm_mov_nop, "mov x9, x30\nnop\n");
TM_ASM_FN(tracerd_testmod_entry_asm_none, "");
#define TM_A64(i)	((i) & 0xff), (((i) >> 8) & 0xff), (((i) >> 16) & 0xff), ((i) >> 24)
static const u8 tm_pad[] = { TM_A64(0xd503245fU) };		/* bti c */
static const u8 tm_body[] = { TM_A64(0x11000400U) };		/* add w0, w0, #1 */
static const u8 tm_nop_nop[] = { TM_A64(0xd503201fU), TM_A64(0xd503201fU) };
static const u8 tm_mov_nop[] = { TM_A64(0xaa1e03e9U), TM_A64(0xd503201fU) };
#define TM_PAD_NAME	"bti c"
#define TM_ENTRY_VARIANTS						\
	{ "traceable", tracerd_testmod_entry_traceable, "mov x9, x30; nop", \
	  tm_mov_nop, sizeof(tm_mov_nop), true },			\
	{ "notrace", tracerd_testmod_entry_notrace, "none", NULL, 0 },	\
	{ "asm-nop-nop", tracerd_testmod_entry_asm_nop_nop, "nop; nop",	\
	  tm_nop_nop, sizeof(tm_nop_nop) },				\
	{ "asm-mov-nop", tracerd_testmod_entry_asm_mov_nop,		\
	  "mov x9, x30; nop", tm_mov_nop, sizeof(tm_mov_nop) },		\
	{ "asm-none", tracerd_testmod_entry_asm_none, "none", NULL, 0 }
/* what ftrace writes when it traces the site: `bl` in the second slot */
static bool tm_entry_traced(const u8 *site)
{
	return (site[7] & 0xfc) == 0x94;
}
#endif

#ifdef TM_ENTRY_VARIANTS
struct tm_entry {
	const char *name;
	int (*fn)(int);
	const char *claim;	/* the entry it must have */
	const u8 *entry;	/* its bytes (NULL: none) */
	size_t entry_len;
	bool ftrace;		/* ftrace owns the site: refuse while it is traced */
	char found[80];		/* the bytes read back, hex, '|' after the pad */
	char refused[160];	/* why it cannot run; "" when it can */
};

static struct tm_entry tm_entries[] = { TM_ENTRY_VARIANTS };
#define TM_NR_ENTRIES		ARRAY_SIZE(tm_entries)
#define TM_ENTRY_MAX_CALLS	10000000UL
#define TM_ENTRY_MAX_ROUNDS	64
static DEFINE_MUTEX(tm_entry_lock);

static void tm_hex(char *out, size_t len, const u8 *p, size_t n)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < n && o + 3 < len; i++)
		o += scnprintf(out + o, len - o, "%02x", p[i]);
}

/* Read e's entry back; e->refused says what is wrong with it, if anything. */
static void tm_entry_check(struct tm_entry *e)
{
	u8 code[16];
	size_t pad = 0, n;

	e->refused[0] = '\0';
	if (copy_from_kernel_nofault(code, (void *)e->fn, sizeof(code))) {
		snprintf(e->refused, sizeof(e->refused), "cannot read its code");
		return;
	}
	if (!memcmp(code, tm_pad, sizeof(tm_pad)))
		pad = sizeof(tm_pad);
	n = pad + e->entry_len;
	tm_hex(e->found, sizeof(e->found), code, pad);
	strlcat(e->found, "|", sizeof(e->found));
	tm_hex(e->found + strlen(e->found), sizeof(e->found) - strlen(e->found), code + pad,
	       e->entry_len + sizeof(tm_body));
	if (e->ftrace && tm_entry_traced(code + pad))
		snprintf(e->refused, sizeof(e->refused), "it is being traced (its entry "
			 "calls out): detach every tracer from tracerd_testmod_entry_traceable");
	else if (e->entry_len && memcmp(code + pad, e->entry, e->entry_len))
		snprintf(e->refused, sizeof(e->refused), "its entry is not `%s` after the %s",
			 e->claim, pad ? TM_PAD_NAME : "start");
	else if (memcmp(code + n, tm_body, sizeof(tm_body)))
		snprintf(e->refused, sizeof(e->refused), "the body does not follow an entry of "
			 "`%s` (the compiler emitted something else)", e->claim);
}

/*
 * n calls of fn, ns spent; *good counts the calls that returned x + 1.
 * __nocfi: the asm twins carry no kCFI type hash (a CFI kernel would trap
 * on them), so no call here is checked, the C twins' neither.
 */
static __nocfi u64 tm_entry_time(int (*fn)(int), unsigned long n, unsigned long *good)
{
	unsigned long i, ok = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		ok += fn((int)i) == (int)i + 1;
		if ((i & 0xffff) == 0xffff)
			cond_resched();
	}
	*good += ok;
	return ktime_get_ns() - t0;
}

/* entry_sites: one line per variant: name, ok|refused, claim, bytes, reason */
static int tm_entry_sites(char *buf, size_t len)
{
	size_t i, o = 0;

	mutex_lock(&tm_entry_lock);
	for (i = 0; i < TM_NR_ENTRIES; i++) {
		struct tm_entry *e = &tm_entries[i];

		tm_entry_check(e);
		o += scnprintf(buf + o, len - o, "%s\t%s\t%s\t%s\t%s\n", e->name,
			       e->refused[0] ? "refused" : "ok", e->claim, e->found,
			       e->refused[0] ? e->refused : "-");
	}
	mutex_unlock(&tm_entry_lock);
	return (int)o;
}

/*
 * entry_bench: R rounds; in each, N calls of every variant that passes its
 * check, the order rotated per round. Lines: "calls N", "rounds R", then
 * per variant "name\tGOOD\tNS,NS,..." (ns per round) or "name\trefused\tWHY".
 */
static int tm_entry_bench(char *buf, size_t len, unsigned long n, unsigned long rounds)
{
	u64 (*ns)[TM_ENTRY_MAX_ROUNDS] = kcalloc(TM_NR_ENTRIES, sizeof(*ns), GFP_KERNEL);
	unsigned long good[TM_NR_ENTRIES] = {}, r, j;
	size_t i, o = 0;
	int ret = 0;

	if (!ns)
		return -ENOMEM;
	mutex_lock(&tm_entry_lock);
	for (i = 0; i < TM_NR_ENTRIES; i++)
		tm_entry_check(&tm_entries[i]);
	for (r = 0; r < rounds && !ret; r++)
		for (j = 0; j < TM_NR_ENTRIES; j++) {
			i = (j + r) % TM_NR_ENTRIES;
			if (tm_entries[i].refused[0])
				continue;
			ns[i][r] = tm_entry_time(tm_entries[i].fn, n, &good[i]);
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
		}
	o += scnprintf(buf + o, len - o, "calls\t%lu\nrounds\t%lu\n", n, rounds);
	for (i = 0; i < TM_NR_ENTRIES && !ret; i++) {
		struct tm_entry *e = &tm_entries[i];

		if (e->refused[0]) {
			o += scnprintf(buf + o, len - o, "%s\trefused\t%s\n", e->name, e->refused);
			continue;
		}
		o += scnprintf(buf + o, len - o, "%s\t%lu\t", e->name, good[i]);
		for (r = 0; r < rounds; r++)
			o += scnprintf(buf + o, len - o, "%s%llu", r ? "," : "", ns[i][r]);
		o += scnprintf(buf + o, len - o, "\n");
	}
	mutex_unlock(&tm_entry_lock);
	kfree(ns);
	return ret ? ret : (int)o;
}

#define TM_ENTRY_BUF	8192

/* Each open has its own result: write "N R" runs, read returns it. */
static int tm_entry_open(struct inode *inode, struct file *f)
{
	char *buf = kzalloc(TM_ENTRY_BUF, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	f->private_data = buf;
	return 0;
}

static int tm_entry_release(struct inode *inode, struct file *f)
{
	kfree(f->private_data);
	return 0;
}

static ssize_t tm_entry_sites_read(struct file *f, char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	char *buf = f->private_data;

	if (*ppos == 0)
		tm_entry_sites(buf, TM_ENTRY_BUF);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static ssize_t tm_entry_bench_write(struct file *f, const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	char in[48], *buf = f->private_data;
	unsigned long n, rounds;
	int ret;

	if (len == 0 || len >= sizeof(in))
		return -EINVAL;
	if (copy_from_user(in, ubuf, len))
		return -EFAULT;
	in[len] = '\0';
	if (sscanf(in, "%lu %lu", &n, &rounds) != 2 || !n || !rounds)
		return -EINVAL;
	if (n > TM_ENTRY_MAX_CALLS || rounds > TM_ENTRY_MAX_ROUNDS)
		return -E2BIG;
	buf[0] = '\0';
	ret = tm_entry_bench(buf, TM_ENTRY_BUF, n, rounds);
	return ret < 0 ? ret : (ssize_t)len;
}

static ssize_t tm_entry_bench_read(struct file *f, char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	char *buf = f->private_data;

	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations tm_entry_sites_fops = {
	.owner = THIS_MODULE, .open = tm_entry_open, .release = tm_entry_release,
	.read = tm_entry_sites_read, .llseek = noop_llseek,
};

static const struct file_operations tm_entry_bench_fops = {
	.owner = THIS_MODULE, .open = tm_entry_open, .release = tm_entry_release,
	.read = tm_entry_bench_read, .write = tm_entry_bench_write, .llseek = noop_llseek,
};

static void tm_entry_init(struct dentry *dir)
{
	size_t i;

	for (i = 0; i < TM_NR_ENTRIES; i++) {
		tm_entry_check(&tm_entries[i]);
		if (tm_entries[i].refused[0])
			pr_warn("bench entry: %s refused: %s (found %s)\n", tm_entries[i].name,
				tm_entries[i].refused, tm_entries[i].found);
	}
	debugfs_create_file("entry_sites", 0400, dir, NULL, &tm_entry_sites_fops);
	debugfs_create_file("entry_bench", 0600, dir, NULL, &tm_entry_bench_fops);
}
#else
static void tm_entry_init(struct dentry *dir)
{
}
#endif
/* ---- end of bench entry */

static struct dentry *tm_dir;

static int __init tm_init(void)
{
	tm_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(tm_dir))
		return PTR_ERR(tm_dir);
	debugfs_create_file("call", 0200, tm_dir, NULL, &tm_call_fops);
	debugfs_create_file("call_fn", 0200, tm_dir, NULL, &tm_call_fn_fops);
	debugfs_create_file("call_all", 0200, tm_dir, NULL, &tm_call_all_fops);
	debugfs_create_file("call_ret", 0200, tm_dir, NULL, &tm_call_ret_fops);
	debugfs_create_file("call_chain", 0200, tm_dir, NULL, &tm_call_chain_fops);
	debugfs_create_file("sleep_us", 0200, tm_dir, NULL, &tm_sleep_fops);
	debugfs_create_file("call_args", 0200, tm_dir, NULL, &tm_call_args_fops);
	debugfs_create_file("warn", 0200, tm_dir, NULL, &tm_warn_fops);
	debugfs_create_file("nr_fns", 0400, tm_dir, NULL, &tm_nr_fns_fops);
	tm_entry_init(tm_dir);
	return 0;
}

static void __exit tm_exit(void)
{
	debugfs_remove(tm_dir);
}

module_init(tm_init);
module_exit(tm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracerd test-only module: traceable targets");
