// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The entry sequences of sites.h, per architecture, from the bytes around
 * the recorded address: x86_64 (ENDBR, nop5, call rel32, other nops),
 * arm64 (CALL_OPS literal, BTI, nop;nop / mov x9,x30;nop / mov x9,x30;bl),
 * riscv64 (literal, c.nop/nop, auipc+jalr). Pure: bytes in, fields out.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include "sites.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#define A64_NOP		0xd503201fU
#define A64_MOV_X9_LR	0xaa1e03e9U
#define A64_BTI_C	0xd503245fU
#define A64_BTI_JC	0xd50324dfU
#define RV_NOP		0x00000013U
#define RV_CNOP		0x0001U

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool have_range(const bool have[32], int from, int len)
{
	int i;

	if (from < 0 || from + len > 32)
		return false;
	for (i = from; i < from + len; i++)
		if (!have[i])
			return false;
	return true;
}

/* Length of the x86 nop at p (the SDM's recommended forms), 0 if none. */
static int x86_nop_len(const uint8_t *p, int avail)
{
	static const uint8_t nops[][8] = {
		{ 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 }, { 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 }, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};
	int i;

	for (i = 8; i >= 1; i--)
		if (i <= avail && !memcmp(p, nops[i - 1], i))
			return i;
	return 0;
}

static bool x86_endbr(const uint8_t *p)
{
	return p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && (p[3] == 0xfa || p[3] == 0xfb);
}

/* x86_64: [ENDBR] then the 5-byte nop, a call rel32, or other nops. */
static void decode_x86(struct site *s, const uint8_t *w, const bool *have)
{
	int at = 8, n, len = 0, count = 0;

	if (s->func && s->offset == 4 && have_range(have, 4, 4) && x86_endbr(w + 4))
		s->flags |= SITE_F_ENDBR;
	else if (s->offset == 0 && have_range(have, 8, 4) && x86_endbr(w + 8)) {
		s->flags |= SITE_F_ENDBR;	/* patchable area recorded at ENDBR */
		at = 12;
	}
	if (s->func && s->offset != 0 && !(s->offset == 4 && (s->flags & SITE_F_ENDBR)))
		s->flags |= SITE_F_STALE;
	if (have_range(have, at, 5) && w[at] == 0xe8) {
		int32_t rel = (int32_t)le32(w + at + 1);

		s->kind = SITE_CALL;
		s->target = s->rec + (at - 8) + 5 + (int64_t)rel;
		snprintf(s->insn, sizeof(s->insn), "call");
		return;
	}
	while (at < 32 && have[at] && len < 16 && (n = x86_nop_len(w + at, 32 - at))) {
		if (!have_range(have, at, n))
			break;
		at += n;
		len += n;
		count++;
	}
	if (count == 1) {
		s->kind = SITE_NOP;
		snprintf(s->insn, sizeof(s->insn), "nop%d", len);
	} else if (count > 1) {
		s->kind = SITE_NOP;
		snprintf(s->insn, sizeof(s->insn), "nop x%d (%d bytes)", count, len);
	} else {
		s->kind = SITE_OTHER;
		if (have_range(have, at, 5))
			snprintf(s->insn, sizeof(s->insn), "%02x %02x %02x %02x %02x", w[at],
				 w[at + 1], w[at + 2], w[at + 3], w[at + 4]);
	}
}

/* The 8-byte pre-function slot of CALL_OPS (arm64, riscv64). */
static void decode_literal(struct site *s, const uint8_t *w, const bool *have)
{
	if (!s->func || s->func != s->rec + 8)
		return;
	s->flags |= SITE_F_LITERAL;
	if (!(s->rec & 7))
		s->flags |= SITE_F_LIT_ALIGNED;
}

static uint64_t a64_bl_target(uint64_t pc, uint32_t op)
{
	return pc + (int64_t)((int32_t)((op & 0x03ffffffU) << 6) >> 4);
}

/* arm64: [literal] [bti c] then nop;nop, mov x9,x30;nop or mov x9,x30;bl. */
static void decode_arm64(struct site *s, const uint8_t *w, const bool *have)
{
	int at = 8;
	uint32_t a, b;

	decode_literal(s, w, have);
	if (s->flags & SITE_F_LITERAL)
		at = 16;
	else if (s->func && s->offset == 4 && have_range(have, 4, 4) &&
		 (le32(w + 4) == A64_BTI_C || le32(w + 4) == A64_BTI_JC))
		s->flags |= SITE_F_BTI;
	else if (s->func && s->offset != 0)
		s->flags |= SITE_F_STALE;
	if (have_range(have, at, 4) && (le32(w + at) == A64_BTI_C || le32(w + at) == A64_BTI_JC)) {
		s->flags |= SITE_F_BTI;
		at += 4;
	}
	if (!have_range(have, at, 8)) {
		s->kind = SITE_OTHER;
		return;
	}
	a = le32(w + at);
	b = le32(w + at + 4);
	if (a == A64_NOP && b == A64_NOP) {
		s->kind = SITE_NOP;
		snprintf(s->insn, sizeof(s->insn), "nop;nop");
	} else if (a == A64_MOV_X9_LR && b == A64_NOP) {
		s->kind = SITE_MOV_NOP;
		snprintf(s->insn, sizeof(s->insn), "mov x9,x30;nop");
	} else if (a == A64_MOV_X9_LR && (b & 0xfc000000U) == 0x94000000U) {
		s->kind = SITE_CALL;
		s->target = a64_bl_target(s->rec + (at - 8) + 4, b);
		snprintf(s->insn, sizeof(s->insn), "mov x9,x30;bl");
	} else {
		s->kind = SITE_OTHER;
		snprintf(s->insn, sizeof(s->insn), "%08x %08x", a, b);
	}
}

/* riscv64: count c.nop / nop from at, up to max bytes; bytes in *len. */
static int rv_nops(const uint8_t *w, const bool *have, int at, int max, int *len,
		   bool *compressed)
{
	int n = 0;

	*len = 0;
	while (*len < max && have_range(have, at + *len, 2)) {
		if ((w[at + *len] | w[at + *len + 1] << 8) == RV_CNOP) {
			*compressed = true;
			*len += 2;
		} else if (have_range(have, at + *len, 4) && le32(w + at + *len) == RV_NOP) {
			*len += 4;
		} else
			break;
		n++;
	}
	return n;
}

static const char *rv_reg(unsigned int r)
{
	return r == 1 ? "ra" : r == 5 ? "t0" : "x?";
}

/* riscv64: auipc rd, hi20 + jalr rd, lo12(rd) (rd t0, or ra before 6.6). */
static bool rv_call(struct site *s, const uint8_t *w, const bool *have, int at)
{
	uint32_t a, j;
	unsigned int rd;

	if (!have_range(have, at, 8))
		return false;
	a = le32(w + at);
	j = le32(w + at + 4);
	rd = (a >> 7) & 0x1f;
	if ((a & 0x7f) != 0x17 || (j & 0x707f) != 0x67 || ((j >> 15) & 0x1f) != rd)
		return false;
	s->kind = SITE_CALL;
	s->target = s->rec + (at - 8) + (int64_t)(int32_t)(a & 0xfffff000U) +
		    ((int32_t)j >> 20);
	snprintf(s->insn, sizeof(s->insn), "auipc %s;jalr %s", rv_reg(rd),
		 rv_reg((j >> 7) & 0x1f));
	return true;
}

/* riscv64: [literal: 8 bytes of nops] then nops (8 or 16 bytes) or auipc+jalr. */
static void decode_riscv(struct site *s, const uint8_t *w, const bool *have)
{
	int at = 8, n, len;
	bool c = false;

	decode_literal(s, w, have);
	if (s->flags & SITE_F_LITERAL)
		at = 16;
	else if (s->func && s->offset != 0)
		s->flags |= SITE_F_STALE;
	if (rv_call(s, w, have, at))
		return;
	n = rv_nops(w, have, at, 16, &len, &c);
	if (len < 4) {
		s->kind = SITE_OTHER;
		if (have_range(have, at, 4))
			snprintf(s->insn, sizeof(s->insn), "%08x", le32(w + at));
		return;
	}
	s->kind = SITE_NOP;
	snprintf(s->insn, sizeof(s->insn), "%s x%d", c ? "c.nop" : "nop", n);
}

void sites_decode(struct site *s, uint16_t machine, const uint8_t code[32],
		  const bool have[32])
{
	s->kind = SITE_OTHER;
	s->insn[0] = '\0';
	s->target = 0;
	s->flags &= ~(SITE_F_ENDBR | SITE_F_BTI | SITE_F_LITERAL | SITE_F_LIT_ALIGNED |
		      SITE_F_STALE);
	if (!s->rec) {
		s->kind = SITE_ZERO;
		return;
	}
	switch (machine) {
	case EM_X86_64: decode_x86(s, code, have); break;
	case EM_AARCH64: decode_arm64(s, code, have); break;
	case EM_RISCV: decode_riscv(s, code, have); break;
	}
}
