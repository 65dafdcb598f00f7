/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offline call sites: every patchable function entry a kernel image or
 * module records (__mcount_loc, __patchable_function_entries), mapped to
 * its function and decoded per architecture (x86_64, arm64, riscv64).
 * Pure: reads the file with libelf, prints nothing (tracectl sites);
 * lib/sites.c loads, lib/sites_decode.c decodes.
 *
 * An entry's record ("rec") is what the table holds: the call site on
 * x86_64, the first patchable nop elsewhere. With pre-function nops
 * (arm64/riscv64 CALL_OPS: -fpatchable-function-entry=N,M) rec lies
 * 8 bytes before the function: that slot becomes the ftrace_ops literal.
 */
#ifndef TRACERD_LIB_SITES_H
#define TRACERD_LIB_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the entry holds in the file. */
enum site_kind {
	SITE_NOP,	/* the unpatched sequence: nop5, nop;nop, c.nop x4 ... */
	SITE_MOV_NOP,	/* arm64: mov x9, x30; nop (what ftrace_init_nop writes) */
	SITE_CALL,	/* a call: x86 call rel32, arm64 bl, riscv auipc+jalr */
	SITE_OTHER,	/* bytes that are none of these */
	SITE_ZERO,	/* the record is 0 (dropped at build time, or unresolved) */
	SITE_KIND_NR,
};

enum site_flag {
	SITE_F_ENDBR = 1 << 0,		/* x86: function starts with ENDBR64/32 */
	SITE_F_BTI = 1 << 1,		/* arm64: function starts with bti c/jc */
	SITE_F_LITERAL = 1 << 2,	/* 8-byte pre-function slot (CALL_OPS) */
	SITE_F_LIT_ALIGNED = 1 << 3,	/* ... and it is 8-byte aligned */
	SITE_F_INIT = 1 << 4,		/* in init text (freed after boot/load) */
	SITE_F_STALE = 1 << 5,		/* not at a function entry (weak, overridden) */
	SITE_F_NOSYM = 1 << 6,		/* no function symbol covers it */
};

struct site {
	uint64_t rec;		/* table value (0 for SITE_ZERO) */
	uint64_t func;		/* function symbol address, 0 without one */
	const char *name;	/* function name (owned by struct sites), or NULL */
	int64_t offset;		/* rec - func */
	uint64_t target;	/* SITE_CALL: where it goes (0: unknown) */
	const char *target_name;/* ... by name when known (reloc or symbol) */
	int section;		/* index in sites->secs, -1 when none */
	unsigned int flags;	/* enum site_flag */
	uint8_t kind;		/* enum site_kind */
	uint8_t align_log2;	/* log2 of the function's alignment (capped at 12) */
	char insn[40];		/* the decoded sequence, e.g. "nop5", "mov x9,x30;nop" */
};

struct sites_section {
	char name[48];
	uint64_t addr, size, align;	/* align: sh_addralign */
	bool init;
	unsigned int entries, funcs, funcs_without;
};

struct sites_func {
	uint64_t addr;
	const char *name;
	int section;
	bool has_entry;
	bool weak;		/* STB_WEAK, or 'w'/'W' in a map */
	uint32_t seq;		/* order in the symbol source */
};

struct sites {
	uint16_t machine;	/* EM_X86_64, EM_AARCH64, EM_RISCV */
	bool module;		/* ET_REL (.ko / .o) */
	char modname[64];	/* .ko: from .modinfo name=, else "" */
	char table[40];		/* table section (or symbol range) name */
	int64_t slide;		/* --symbols address - file address */
	bool callops;		/* any entry has a pre-function literal slot */
	struct site *v;
	size_t n;
	struct sites_func *funcs;	/* sorted by address */
	size_t nfuncs;
	struct sites_section *secs;
	size_t nsecs;
	char **strs;		/* owned names */
	size_t nstrs;
};

struct sites_opts {
	const char *symbols;	/* System.map / kallsyms file for a stripped vmlinux */
};

/*
 * Read path. 0 or -errno; on error err says why, naming the file or the
 * section. The caller frees *out with sites_free (NULL-safe).
 */
int sites_load(const char *path, const struct sites_opts *opts, struct sites **out,
	       char *err, size_t errlen);
void sites_free(struct sites *s);

/*
 * Decode the entry at rec for function func of arch machine. code holds
 * the bytes from rec - 8 (pre) to rec + 24: have[i] says byte i exists.
 * Fills kind, flags (ENDBR/BTI/LITERAL/LIT_ALIGNED/STALE) and insn.
 */
void sites_decode(struct site *s, uint16_t machine, const uint8_t code[32],
		  const bool have[32]);

/* Totals over the entries and functions whose name matches glob (NULL: all). */
struct sites_summary {
	unsigned int entries, kinds[SITE_KIND_NR];
	unsigned int endbr, bti, init, stale, nosym;
	unsigned int literal, literal_aligned;
	unsigned int align[13];		/* functions with an entry, by log2 alignment */
	unsigned int funcs, funcs_with, funcs_without;
};
void sites_summarize(const struct sites *s, const char *glob, struct sites_summary *sum);

const char *sites_kind_name(int kind);
const char *sites_machine_name(uint16_t machine);
bool sites_name_match(const char *glob, const char *name);

#endif
