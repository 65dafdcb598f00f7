// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/sites.c on objects built here with the host's gcc and the cross
 * compilers scripts/deps.sh installs (aarch64, riscv64), the way the
 * kernel builds them (-mrecord-mcount -mfentry, -fpatchable-function-entry
 * =N,M), and on hand-made instruction bytes for what a compiler cannot
 * be asked to emit (patched calls, stale and misaligned entries).
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include "../../lib/sites.h"
#include "test.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

static char dir[64];

/* The C file every test compiles: four traced functions, one notrace. */
static const char src[] =
	"int g;\n"
	"__attribute__((noinline)) int foo(int x) { return x + g; }\n"
	"__attribute__((noinline, no_instrument_function, patchable_function_entry(0, 0)))\n"
	"int bar(int x) { return x * 2; }\n"
	"__attribute__((noinline, aligned(64))) int big(int x) { return x - g; }\n"
	"__attribute__((noinline, section(\".init.text\"))) int setup(int x) { return x + 3; }\n"
	"int qux(int x) { return foo(x) + bar(x) + big(x) + setup(x); }\n";

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static bool setup_dir(void)
{
	FILE *f;
	char p[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/test_sites.XXXXXX");
		if (!mkdtemp(dir))
			return TEST_FAIL_("mkdtemp: %s", strerror(errno));
	}
	snprintf(p, sizeof(p), "%s/t.c", dir);
	f = fopen(p, "w");
	if (!f)
		return TEST_FAIL_("%s: %s", p, strerror(errno));
	fputs(src, f);
	fclose(f);
	return true;
}

/* Compile t.c with cc and flags into dir/out; load it. */
static struct sites *build(const char *cc, const char *flags, const char *out,
			   const char *symbols)
{
	struct sites_opts o = { .symbols = symbols };
	struct sites *s = NULL;
	char path[128], err[512] = "";
	int ret;

	if (!setup_dir())
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, out);
	if (run("%s -O2 %s %s/t.c -o %s", cc, flags, dir, path)) {
		TEST_FAIL_("'%s %s' failed (make deps installs the cross compilers)", cc, flags);
		return NULL;
	}
	ret = sites_load(path, &o, &s, err, sizeof(err));
	if (!ASSERT_OK(ret, err))
		return NULL;
	return s;
}

static const struct site *entry(const struct sites *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].name && !strcmp(s->v[i].name, name))
			return &s->v[i];
	TEST_FAIL_("no entry for %s", name);
	return NULL;
}

static const char *secname(const struct sites *s, const struct site *e)
{
	return e->section >= 0 ? s->secs[e->section].name : "(none)";
}

/* Common expectations: foo/big/qux in .text, setup in .init.text, bar none. */
static void check_funcs(const struct sites *s, const char *insn, int kind, int64_t off,
			unsigned int flags, int big_align)
{
	static const char *const traced[] = { "foo", "big", "qux", "setup" };
	struct sites_summary sum;
	const struct site *e;
	size_t i;

	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.entries, 4, "entries");
	ASSERT_EQ(sum.init, 1, "init entries");
	ASSERT_EQ(sum.stale + sum.nosym, 0, "stale or outside functions");
	ASSERT_EQ(sum.funcs, 5, "functions");
	ASSERT_EQ(sum.funcs_without, 1, "functions without an entry");
	for (i = 0; i < s->nfuncs; i++)
		if (!s->funcs[i].has_entry)
			ASSERT_STREQ(s->funcs[i].name, "bar", "the function without an entry");
	for (i = 0; i < 4; i++) {
		e = entry(s, traced[i]);
		if (!e)
			return;
		ASSERT_EQ(e->kind, kind, traced[i]);
		ASSERT_STREQ(e->insn, insn, traced[i]);
		ASSERT_EQ(e->offset, off, traced[i]);
		ASSERT_EQ(e->flags & ~SITE_F_INIT, flags, traced[i]);
		ASSERT_STREQ(secname(s, e), i == 3 ? ".init.text" : ".text", traced[i]);
		ASSERT_EQ(!!(e->flags & SITE_F_INIT), i == 3, traced[i]);
	}
	e = entry(s, "big");
	if (e)
		ASSERT_EQ(e->align_log2, big_align, "aligned(64)");
}

TEST(x86_mcount_nop_endbr)
{
	struct sites *s = build("gcc", "-c -fno-pic -pg -mrecord-mcount -mfentry -mnop-mcount "
				"-fcf-protection=branch", "x86_nop.o", NULL);

	if (!s)
		return;
	ASSERT_EQ(s->machine, EM_X86_64, "machine");
	ASSERT_TRUE(s->module, "ET_REL");
	ASSERT_STREQ(s->table, "__mcount_loc", "table");
	ASSERT_FALSE(s->callops, "no literal");
	check_funcs(s, "nop5", SITE_NOP, 4, SITE_F_ENDBR, 6);
	sites_free(s);
}

TEST(x86_mcount_call)
{
	struct sites *s = build("gcc", "-c -fno-pic -pg -mrecord-mcount -mfentry "
				"-fcf-protection=none", "x86_call.o", NULL);
	const struct site *e;

	if (!s)
		return;
	check_funcs(s, "call", SITE_CALL, 0, 0, 6);
	e = entry(s, "foo");
	if (e)
		ASSERT_STREQ(e->target_name, "__fentry__", "call target from the relocation");
	sites_free(s);
}

/* x86 CALL_PADDING: the padding is in __patchable_function_entries too */
TEST(x86_mcount_with_padding)
{
	struct sites *s = build("gcc", "-c -fno-pic -pg -mrecord-mcount -mfentry -mnop-mcount "
				"-fcf-protection=branch -fpatchable-function-entry=16,16",
				"x86_pad.o", NULL);

	if (!s)
		return;
	ASSERT_STREQ(s->table, "__mcount_loc", "the call sites, not the padding");
	/* gcc aligns the padding, so big lands 16 past a 64-byte boundary */
	check_funcs(s, "nop5", SITE_NOP, 4, SITE_F_ENDBR, 4);
	sites_free(s);
}

TEST(x86_patchable)
{
	struct sites *s = build("gcc", "-c -fno-pic -fpatchable-function-entry=5 "
				"-fcf-protection=none", "x86_pfe.o", NULL);
	struct sites_summary sum;

	if (!s)
		return;
	ASSERT_STREQ(s->table, "__patchable_function_entries", "table");
	check_funcs(s, "nop x5 (5 bytes)", SITE_NOP, 0, 0, 6);
	sites_summarize(s, "b*", &sum);
	ASSERT_EQ(sum.entries, 1, "glob b*: big");
	ASSERT_EQ(sum.funcs_without, 1, "glob b*: bar");
	ASSERT_EQ(sum.funcs, 2, "glob b* functions");
	sites_free(s);
}

TEST(arm64_callops)
{
	struct sites *s = build("aarch64-linux-gnu-gcc", "-c -fpatchable-function-entry=4,2 "
				"-falign-functions=8", "a64_callops.o", NULL);
	struct sites_summary sum;

	if (!s)
		return;
	ASSERT_EQ(s->machine, EM_AARCH64, "machine");
	ASSERT_TRUE(s->callops, "CALL_OPS literal");
	check_funcs(s, "nop;nop", SITE_NOP, -8, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, 3);
	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.literal, 4, "literals");
	ASSERT_EQ(sum.literal_aligned, 4, "aligned literals");
	sites_free(s);
}

TEST(arm64_bti)
{
	struct sites *s = build("aarch64-linux-gnu-gcc", "-c -fpatchable-function-entry=2 "
				"-mbranch-protection=bti", "a64_bti.o", NULL);

	if (!s)
		return;
	ASSERT_FALSE(s->callops, "no literal");
	check_funcs(s, "nop;nop", SITE_NOP, 4, SITE_F_BTI, 6);
	sites_free(s);
}

TEST(riscv64_callops)
{
	struct sites *s = build("riscv64-linux-gnu-gcc", "-c -march=rv64gc -mabi=lp64d "
				"-fpatchable-function-entry=8,4 -falign-functions=8 -mno-relax",
				"rv_callops.o", NULL);

	if (!s)
		return;
	ASSERT_EQ(s->machine, EM_RISCV, "machine");
	check_funcs(s, "c.nop x4", SITE_NOP, -8, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, 3);
	sites_free(s);
	s = build("riscv64-linux-gnu-gcc", "-c -march=rv64g -mabi=lp64d "
		  "-fpatchable-function-entry=4,2 -falign-functions=8 -mno-relax", "rv_nc.o", NULL);
	if (!s)
		return;
	check_funcs(s, "nop x2", SITE_NOP, -8, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, 3);
	sites_free(s);
}

/* nm's symbols of exe, moved by slide, written as a System.map */
static int shifted_map(const char *exe, const char *map, uint64_t slide, uint64_t text)
{
	char cmd[256], name[256], type;
	unsigned long long a;
	FILE *in, *out;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "nm %s", exe);
	in = popen(cmd, "r");
	out = fopen(map, "w");
	if (out)	/* a kernel's map has _text; a user-space program's nm does not */
		fprintf(out, "%016llx T _text\n", (unsigned long long)(text + slide));
	while (in && out && fscanf(in, "%llx %c %255s", &a, &type, name) == 3) {
		fprintf(out, "%016llx %c %s\n", a + (unsigned long long)slide, type, name);
		n++;
	}
	if (out)
		fclose(out);
	if (in)
		pclose(in);
	return n > 0 ? 0 : -ENOENT;
}

/* A linked image, then the same stripped with a KASLR-shifted System.map. */
TEST(x86_linked_and_symbols)
{
	struct sites *s = build("gcc", "-fno-pic -no-pie -nostdlib -static -Wl,-e,qux -pg "
				"-mrecord-mcount -mfentry -mnop-mcount", "x86_exe", NULL);
	struct sites_summary sum;
	char map[128], exe[128];
	const struct site *e;
	uint64_t foo, text = UINT64_MAX;
	size_t i;

	if (!s)
		return;
	ASSERT_FALSE(s->module, "ET_EXEC");
	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.entries, 4, "entries");
	ASSERT_EQ(sum.funcs_without, 1, "bar");
	e = entry(s, "foo");
	foo = e ? e->func : 0;
	for (i = 0; i < s->nsecs; i++)
		if (s->secs[i].addr < text)
			text = s->secs[i].addr;
	sites_free(s);
	snprintf(exe, sizeof(exe), "%s/x86_exe", dir);
	snprintf(map, sizeof(map), "%s/System.map", dir);
	/* text moved up by 2 MiB, as KASLR would; then the symbols are stripped */
	if (!ASSERT_OK(shifted_map(exe, map, 2097152, text), "nm > map") ||
	    !ASSERT_OK(run("strip %s", exe), "strip"))
		return;
	{
		char err[512] = "";
		struct sites_opts o = { .symbols = NULL };

		ASSERT_ERR(sites_load(exe, &o, &s, err, sizeof(err)), "stripped, no symbols");
		if (!ASSERT_TRUE(strstr(err, "--symbols") != NULL, err))
			return;
		o.symbols = map;
		if (!ASSERT_OK(sites_load(exe, &o, &s, err, sizeof(err)), err))
			return;
	}
	ASSERT_EQ(s->slide, 2097152, "slide");
	e = entry(s, "foo");
	if (e)
		ASSERT_EQ(e->func, foo, "foo at its file address");
	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.entries, 4, "entries");
	ASSERT_EQ(sum.funcs_without, 1, "bar");
	sites_free(s);
}

/* arm64 PIE with --no-apply-dynamic-relocs: slots are 0, values in .rela.dyn. */
TEST(arm64_pie_rela_dyn)
{
	struct sites *s = build("aarch64-linux-gnu-gcc", "-fpie -pie -nostdlib -Wl,-e,qux "
				"-Wl,--no-apply-dynamic-relocs -fpatchable-function-entry=4,2 "
				"-falign-functions=8", "a64_pie", NULL);
	struct sites_summary sum;

	if (!s)
		return;
	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.kinds[SITE_ZERO], 0, "no zero slot left");
	check_funcs(s, "nop;nop", SITE_NOP, -8, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, 3);
	sites_free(s);
}

/* ---- hand-made bytes: code[8] is the recorded address */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static void decode(struct site *s, uint16_t m, const uint8_t code[32], uint64_t rec,
		   uint64_t func)
{
	bool have[32];

	memset(have, 1, sizeof(have));
	memset(s, 0, sizeof(*s));
	s->rec = rec;
	s->func = func;
	s->offset = (int64_t)(rec - func);
	sites_decode(s, m, code, have);
}

TEST(decode_x86)
{
	uint8_t c[32] = { 0 };
	struct site s;

	/* endbr64; call rel32 -0x1000 */
	memcpy(c + 4, "\xf3\x0f\x1e\xfa\xe8", 5);
	put32(c + 9, (uint32_t)-0x1000);
	decode(&s, EM_X86_64, c, 0x2004, 0x2000);
	ASSERT_EQ(s.kind, SITE_CALL, "call");
	ASSERT_EQ(s.target, 0x2004 + 5 - 0x1000, "call target");
	ASSERT_TRUE(s.flags & SITE_F_ENDBR, "endbr");
	/* a record 2 bytes into a function: a weak function's leftover */
	decode(&s, EM_X86_64, c, 0x2006, 0x2004);
	ASSERT_TRUE(s.flags & SITE_F_STALE, "stale");
	memset(c, 0xcc, sizeof(c));
	decode(&s, EM_X86_64, c, 0x2000, 0x2000);
	ASSERT_EQ(s.kind, SITE_OTHER, "int3 is no site");
	decode(&s, EM_X86_64, c, 0, 0);
	ASSERT_EQ(s.kind, SITE_ZERO, "zero record");
}

TEST(decode_arm64)
{
	uint8_t c[32] = { 0 };
	struct site s;

	/* literal slot at 0x1004 (misaligned), then mov x9, x30; bl -0x100 */
	put32(c + 8, 0xd503201f);
	put32(c + 12, 0xd503201f);
	put32(c + 16, 0xaa1e03e9);
	put32(c + 20, 0x94000000 | ((uint32_t)(-0x100 / 4) & 0x03ffffff));
	decode(&s, EM_AARCH64, c, 0x1004, 0x100c);
	ASSERT_EQ(s.kind, SITE_CALL, "bl");
	ASSERT_EQ(s.target, 0x1010 - 0x100, "bl target");
	ASSERT_TRUE(s.flags & SITE_F_LITERAL, "literal");
	ASSERT_FALSE(s.flags & SITE_F_LIT_ALIGNED, "literal misaligned");
	put32(c + 20, 0xd503201f);
	decode(&s, EM_AARCH64, c, 0x1008, 0x1010);
	ASSERT_EQ(s.kind, SITE_MOV_NOP, "mov x9, x30; nop");
	ASSERT_TRUE(s.flags & SITE_F_LIT_ALIGNED, "literal aligned");
	/* no literal: entry at the function */
	memmove(c, c + 8, 24);
	decode(&s, EM_AARCH64, c, 0x1010, 0x1010);
	ASSERT_EQ(s.kind, SITE_MOV_NOP, "at the function");
	ASSERT_FALSE(s.flags & SITE_F_LITERAL, "no literal");
}

TEST(decode_riscv64)
{
	uint8_t c[32] = { 0 };
	struct site s;
	int i;

	/* literal of 4 c.nop, then auipc t0, 0x1000; jalr t0, -16(t0) */
	for (i = 8; i < 16; i += 2) {
		c[i] = 0x01;
		c[i + 1] = 0x00;
	}
	put32(c + 16, 0x00001297);		/* auipc t0, 0x1 */
	put32(c + 20, 0xff0282e7);		/* jalr t0, -16(t0) */
	decode(&s, EM_RISCV, c, 0x8000, 0x8008);
	ASSERT_EQ(s.kind, SITE_CALL, "auipc+jalr");
	ASSERT_STREQ(s.insn, "auipc t0;jalr t0", "insn");
	ASSERT_EQ(s.target, 0x8008 + 0x1000 - 16, "target");
	ASSERT_TRUE(s.flags & SITE_F_LIT_ALIGNED, "literal aligned");
	/* without CALL_OPS: 2 uncompressed nops at the function */
	put32(c + 8, 0x00000013);
	put32(c + 12, 0x00000013);
	decode(&s, EM_RISCV, c, 0x8000, 0x8000);
	ASSERT_EQ(s.kind, SITE_NOP, "nops");
	ASSERT_STREQ(s.insn, "nop x2", "insn");
	put32(c + 8, 0x00a50533);		/* add a0, a0, a0 */
	decode(&s, EM_RISCV, c, 0x8000, 0x8000);
	ASSERT_EQ(s.kind, SITE_OTHER, "not a site");
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/*
 * A tiny arm64 Image as Debian ships it: no ELF headers, the table slots 0
 * (--no-apply-dynamic-relocs) and their values in the .rela.dyn the
 * kernel applies to itself, at link addresses; the symbols at run-time
 * addresses, KASLR-shifted.
 */
TEST(arm64_image_kaslr)
{
	const uint64_t link = 0xffff800080000000ULL, kaslr = 0x12340000ULL, run = link + kaslr;
	static const struct { const char *name; uint64_t off; } syms[] = {
		{ "_text", 0 }, { "_stext", 0x100 }, { "f1", 0x108 }, { "f2", 0x128 },
		{ "_etext", 0x200 }, { "__start_mcount_loc", 0x200 },
		{ "__stop_mcount_loc", 0x210 }, { "__rela_start", 0x300 },
		{ "__rela_end", 0x300 + 3 * 24 },
	};
	static const uint64_t rela[3][3] = {	/* offset, type, addend (link) */
		{ 0x1f8, 1027, 0x0 }, { 0x200, 1027, 0x100 }, { 0x208, 1027, 0x120 },
	};
	uint8_t img[0x400] = { 0 };
	char path[128], map[128], err[512] = "";
	struct sites_opts o = { .symbols = map };
	struct sites *s = NULL;
	const struct site *e;
	size_t i;
	FILE *f;

	if (!setup_dir())
		return;
	memcpy(img + 56, "ARMd", 4);
	for (i = 0x100; i < 0x140; i += 4)
		put32(img + i, 0xd503201f);	/* literal slots and entries: nops */
	for (i = 0; i < 3; i++) {
		put64(img + 0x300 + 24 * i, link + rela[i][0]);
		put64(img + 0x308 + 24 * i, rela[i][1]);
		put64(img + 0x310 + 24 * i, link + rela[i][2]);
	}
	snprintf(path, sizeof(path), "%s/Image", dir);
	snprintf(map, sizeof(map), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return;
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	f = fopen(map, "w");
	if (!ASSERT_OK_PTR(f, map))
		return;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		fprintf(f, "%016llx T %s\n", (unsigned long long)(run + syms[i].off), syms[i].name);
	fprintf(f, "%016llx t mod_fn\t[some_mod]\n", (unsigned long long)run);
	/* aliases kallsyms_lookup() does not report: a section bound, a weak alias */
	fprintf(f, "%016llx T __f2_text_start\n", (unsigned long long)(run + 0x120));
	fprintf(f, "%016llx W f2_alias\n", (unsigned long long)(run + 0x128));
	fclose(f);
	o.symbols = NULL;
	ASSERT_ERR(sites_load(path, &o, &s, err, sizeof(err)), "Image without symbols");
	o.symbols = map;
	if (!ASSERT_OK(sites_load(path, &o, &s, err, sizeof(err)), err))
		return;
	ASSERT_EQ(s->machine, EM_AARCH64, "machine");
	ASSERT_EQ(s->n, 2, "entries");
	ASSERT_EQ(s->slide, kaslr, "KASLR offset found from the relocations");
	ASSERT_TRUE(s->callops, "literal");
	e = entry(s, "f2");
	if (e) {
		ASSERT_EQ(e->rec, run + 0x120, "f2's record at run time");
		ASSERT_EQ(e->flags, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, "f2 flags");
		ASSERT_STREQ(e->insn, "nop;nop", "f2 entry");
		ASSERT_STREQ(secname(s, e), ".text", "f2 section");
	}
	sites_free(s);
}

/*
 * A tiny riscv64 Image as Debian ships it (an EFI stub: "MZ" at 0, "RISCV"
 * at 48, "RSC\x05" at 56, the bytes from _start, _text further on), with
 * CALL_OPS: an 8-byte literal slot of c.nops before each function, then
 * c.nop x4 or auipc t0;jalr t0. Not relocatable (CONFIG_RELOCATABLE=n, as
 * Debian's): the table slots are link addresses, kallsyms the same. Else
 * relocatable: slots 0, R_RISCV_RELATIVE records in
 * [__rela_dyn_start, __rela_dyn_end), the symbols KASLR-shifted.
 */
static void riscv_image(bool reloc)
{
	const uint64_t link = 0xffffffff80000000ULL, kaslr = reloc ? 0x200000ULL : 0;
	const uint64_t run = link + kaslr;
	static const struct { const char *name; uint64_t off; } syms[] = {
		{ "_start", 0 }, { "_text", 0x100 }, { "_stext", 0x100 }, { "f1", 0x108 },
		{ "f2", 0x128 }, { "ftrace_caller", 0x180 }, { "_etext", 0x200 },
		{ "__init_begin", 0x200 }, { "_sinittext", 0x200 }, { "f3", 0x208 },
		{ "_einittext", 0x240 }, { "__start_mcount_loc", 0x280 },
		{ "__stop_mcount_loc", 0x298 }, { "__rela_dyn_start", 0x300 },
		{ "__rela_dyn_end", 0x300 + 3 * 24 }, { "__init_end", 0x400 },
	};
	static const uint64_t slots[3] = { 0x100, 0x120, 0x200 };	/* f1, f2, f3 - 8 */
	uint8_t img[0x400] = { 0 };
	char path[128], map[128], err[512] = "";
	struct sites_opts o = { .symbols = NULL };
	struct sites_summary sum;
	struct sites *s = NULL;
	const struct site *e;
	size_t i;
	FILE *f;

	if (!setup_dir())
		return;
	memcpy(img, "MZ", 2);
	memcpy(img + 48, "RISCV\0\0\0RSC\x05", 12);
	memcpy(img + 64, "PE\0\0", 4);
	for (i = 0x100; i < 0x140; i += 2)
		img[i] = 0x01;			/* c.nop */
	for (i = 0x200; i < 0x210; i += 2)
		img[i] = 0x01;
	put32(img + 0x110, 0x00a50533);		/* f1's body: add a0, a0, a0 */
	put32(img + 0x210, 0x00a50533);		/* f3's */
	/* f2 patched: auipc t0, 0; jalr t0, 0x58(t0) -> ftrace_caller */
	put32(img + 0x128, 0x00000297);
	put32(img + 0x12c, (0x58U << 20) | (5U << 15) | (5U << 7) | 0x67);
	for (i = 0; i < 3; i++) {
		if (!reloc) {
			put64(img + 0x280 + 8 * i, link + slots[i]);
			continue;
		}
		put64(img + 0x300 + 24 * i, link + 0x280 + 8 * i);
		put64(img + 0x308 + 24 * i, 3);		/* R_RISCV_RELATIVE */
		put64(img + 0x310 + 24 * i, link + slots[i]);
	}
	snprintf(path, sizeof(path), "%s/Image-riscv64", dir);
	snprintf(map, sizeof(map), "%s/kallsyms-riscv64", dir);
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return;
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	/* Debian's placeholder System.map */
	f = fopen(map, "w");
	if (!ASSERT_OK_PTR(f, map))
		return;
	fprintf(f, "ffffffffffffffff B The real System.map is in the linux-image-x-dbg package\n");
	fclose(f);
	ASSERT_ERR(sites_load(path, &o, &s, err, sizeof(err)), "riscv64 Image without symbols");
	ASSERT_TRUE(strstr(err, "riscv64 Image has no symbols: pass --symbols") != NULL, err);
	o.symbols = map;
	ASSERT_ERR(sites_load(path, &o, &s, err, sizeof(err)), "placeholder System.map");
	ASSERT_TRUE(strstr(err, "no _start address (a placeholder?") != NULL, err);
	f = fopen(map, "w");
	if (!ASSERT_OK_PTR(f, map))
		return;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		fprintf(f, "%016llx %c %s\n", (unsigned long long)(run + syms[i].off),
			syms[i].name[0] == '_' && syms[i].off >= 0x280 ? 'D' : 'T', syms[i].name);
	fclose(f);
	if (!ASSERT_OK(sites_load(path, &o, &s, err, sizeof(err)), err))
		return;
	ASSERT_EQ(s->machine, EM_RISCV, "machine");
	ASSERT_EQ(s->n, 3, "entries");
	ASSERT_EQ(s->slide, kaslr, "KASLR offset (0: not relocatable)");
	ASSERT_TRUE(s->callops, "literal");
	ASSERT_STREQ(s->table, "__start_mcount_loc", "table");
	e = entry(s, "f1");
	if (e) {
		ASSERT_EQ(e->rec, run + 0x100, "f1's record at run time");
		ASSERT_EQ(e->kind, SITE_NOP, "f1 kind");
		ASSERT_EQ(e->flags, SITE_F_LITERAL | SITE_F_LIT_ALIGNED, "f1 flags");
		ASSERT_STREQ(e->insn, "c.nop x4", "f1 entry");
		ASSERT_STREQ(secname(s, e), ".text", "f1 section");
	}
	e = entry(s, "f2");
	if (e) {
		ASSERT_EQ(e->kind, SITE_CALL, "f2 kind");
		ASSERT_STREQ(e->insn, "auipc t0;jalr t0", "f2 entry");
		ASSERT_EQ(e->target, run + 0x180, "f2 target");
		ASSERT_STREQ(e->target_name ? e->target_name : "(null)", "ftrace_caller",
			     "f2 target name");
	}
	e = entry(s, "f3");
	if (e) {
		ASSERT_TRUE(e->flags & SITE_F_INIT, "f3 init");
		ASSERT_STREQ(secname(s, e), ".init.text", "f3 section");
	}
	sites_summarize(s, NULL, &sum);
	ASSERT_EQ(sum.kinds[SITE_NOP], 2, "nops");
	ASSERT_EQ(sum.kinds[SITE_CALL], 1, "calls");
	ASSERT_EQ(sum.kinds[SITE_OTHER], 0, "undecoded");
	ASSERT_EQ(sum.init, 1, "init");
	ASSERT_EQ(sum.literal_aligned, 3, "aligned literals");
	sites_free(s);
}

TEST(riscv64_image)
{
	riscv_image(false);
}

TEST(riscv64_image_relocatable)
{
	riscv_image(true);
}

TEST(errors_name_the_file)
{
	struct sites *s = NULL;
	char err[512] = "";

	ASSERT_ERR(sites_load("/nonexistent/vmlinux", NULL, &s, err, sizeof(err)), "missing");
	ASSERT_TRUE(strstr(err, "/nonexistent/vmlinux") != NULL, err);
	ASSERT_ERR(sites_load("/proc/self/status", NULL, &s, err, sizeof(err)), "not ELF");
	ASSERT_TRUE(strstr(err, "not an ELF") != NULL, err);
	ASSERT_TRUE(s == NULL, "no result on error");
	if (dir[0])
		run("rm -rf %s", dir);
}

TEST_MAIN()
