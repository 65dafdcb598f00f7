// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Offline call sites (sites.h). The file is mapped once; libelf gives the
 * headers, symbols and relocations, and bytes are read from the mapping
 * through the section headers. In an ET_REL file (.ko, .o) every
 * allocated section gets a synthetic base address (page-aligned, so an
 * address's low bits are the symbol's own), which makes a module look
 * like a linked image to everything below the loader.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sites.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#define R_X86_64_64_		1
#define R_X86_64_RELATIVE_	8
#define R_AARCH64_ABS64_	257
#define R_AARCH64_RELATIVE_	1027
#define R_RISCV_64_		2
#define R_RISCV_RELATIVE_	3

/* a named address: symbols kept for lookups by name and the table range */
struct named {
	uint64_t addr;
	const char *name;
};

/* file bytes [off, off + size) are at [addr, addr + size) */
struct seg {
	uint64_t addr, off, size;
};

/* loader state, freed by load_done */
struct loader {
	const char *path;
	int fd;
	Elf *elf;
	const uint8_t *raw;
	size_t rawsize;
	GElf_Ehdr eh;
	size_t shstrndx, nsec;
	uint64_t *base;		/* per section index: its address */
	struct seg *segs;	/* where file bytes are, by address */
	size_t nsegs;
	bool image;		/* arm64/riscv64 Image: no ELF headers, kallsyms addresses */
	struct named *specials;	/* every named symbol, sorted by name */
	size_t nspecials;
	uint64_t *table;	/* table entries, file addresses */
	size_t ntable, captable;
	struct sites *s;
	char *err;
	size_t errlen;
};

static int fail(struct loader *l, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *l, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(l->err, l->errlen, "%s: ", l->path);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < l->errlen)
		vsnprintf(l->err + n, l->errlen - n, fmt, ap);
	va_end(ap);
	return err;
}

static const char *own(struct sites *s, const char *str)
{
	char **v, *d;

	v = realloc(s->strs, (s->nstrs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->strs = v;
	d = strdup(str);
	if (d)
		s->strs[s->nstrs++] = d;
	return d;
}

const char *sites_machine_name(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64";
	case EM_AARCH64: return "arm64";
	case EM_RISCV: return "riscv64";
	default: return "unknown";
	}
}

const char *sites_kind_name(int kind)
{
	static const char *const names[SITE_KIND_NR] = {
		[SITE_NOP] = "nop", [SITE_MOV_NOP] = "mov-nop", [SITE_CALL] = "call",
		[SITE_OTHER] = "other", [SITE_ZERO] = "zero",
	};

	return kind >= 0 && kind < SITE_KIND_NR ? names[kind] : "?";
}

bool sites_name_match(const char *glob, const char *name)
{
	return !glob || (name && fnmatch(glob, name, 0) == 0);
}

/* ------------------------------------------------------------ reading */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Index of the allocated section holding addr (with file bytes if bytes), or -1. */
static int sec_of(struct loader *l, uint64_t addr, bool bytes)
{
	size_t i;

	for (i = 1; i < l->nsec; i++) {
		Elf_Scn *scn = elf_getscn(l->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (bytes && sh.sh_type == SHT_NOBITS)
			continue;
		if (addr >= l->base[i] && addr - l->base[i] < sh.sh_size)
			return (int)i;
	}
	return -1;
}

/* Copy the bytes at [addr, addr+len) into buf, have[] per byte. */
static void read_at(struct loader *l, uint64_t addr, uint8_t *buf, bool *have, size_t len)
{
	const struct seg *g = NULL;
	size_t i, j;

	for (i = 0; i < len; i++) {
		uint64_t a = addr + i, off;

		have[i] = false;
		if (!g || a < g->addr || a - g->addr >= g->size) {
			for (g = NULL, j = 0; j < l->nsegs && !g; j++)
				if (a >= l->segs[j].addr && a - l->segs[j].addr < l->segs[j].size)
					g = &l->segs[j];
			if (!g)
				continue;
		}
		off = g->off + (a - g->addr);
		if (off < l->rawsize) {
			buf[i] = l->raw[off];
			have[i] = true;
		}
	}
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

static const struct named *special(struct loader *l, const char *name)
{
	struct named key = { .name = name };

	if (!l->nspecials)
		return NULL;
	return bsearch(&key, l->specials, l->nspecials, sizeof(key), cmp_named);
}

/* __start_X, __stop_X, __end_X, __X_start, __X_end: section bounds, not functions */
static bool linker_provided(const char *name)
{
	size_t len = strlen(name);

	if (len < 8 || name[0] != '_' || name[1] != '_')
		return false;
	return !strncmp(name + 2, "start_", 6) || !strncmp(name + 2, "stop_", 5) ||
	       !strncmp(name + 2, "end_", 4) || !strcmp(name + len - 6, "_start") ||
	       !strcmp(name + len - 4, "_end");
}

static bool padding_sym(const char *name)
{
	return !strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6);
}

static int add_func(struct loader *l, uint64_t addr, const char *name, int sec, bool weak)
{
	struct sites *s = l->s;
	struct sites_func *f;

	if (!(s->nfuncs & (s->nfuncs + 1)) || !s->funcs) {
		f = realloc(s->funcs, (2 * s->nfuncs + 2) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->funcs = f;
	}
	f = &s->funcs[s->nfuncs];
	f->addr = addr;
	f->name = own(s, name);
	f->section = sec;
	f->has_entry = false;
	f->weak = weak;
	f->seq = (uint32_t)s->nfuncs;
	if (!f->name)
		return -ENOMEM;
	s->nfuncs++;
	return 0;
}

static int add_special(struct loader *l, uint64_t addr, const char *name)
{
	struct named *v;

	if (!(l->nspecials & (l->nspecials + 1)) || !l->specials) {
		v = realloc(l->specials, (2 * l->nspecials + 2) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->specials = v;
	}
	l->specials[l->nspecials].addr = addr;
	l->specials[l->nspecials].name = own(l->s, name);
	if (!l->specials[l->nspecials].name)
		return -ENOMEM;
	l->nspecials++;
	return 0;
}

/* Functions and named symbols of .symtab, at their (synthetic) addresses. */
static int read_symtab(struct loader *l, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int err;

	for (i = 1; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t addr;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= l->nsec || !sym.st_name)
			continue;
		name = elf_strptr(l->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		addr = sym.st_value + (l->s->module ? l->base[sym.st_shndx] : 0);
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && !padding_sym(name))
			err = add_func(l, addr, name, sym.st_shndx,
				       GELF_ST_BIND(sym.st_info) == STB_WEAK);
		else
			err = GELF_ST_TYPE(sym.st_info) == STT_SECTION ? 0
								       : add_special(l, addr, name);
		if (err)
			return fail(l, err, "reading .symtab: %s", strerror(-err));
	}
	return 0;
}

/* System.map / /proc/kallsyms: "addr type name [module]", module lines skipped. */
static int read_map(struct loader *l, const char *path)
{
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen(path, "r");
	int err = 0, rest;

	if (!f)
		return fail(l, -errno, "cannot open symbols '%s': %s", path, strerror(errno));
	while (!err && fgets(line, sizeof(line), f)) {
		rest = 0;
		if (sscanf(line, "%llx %c %255s %n", &addr, &type, name, &rest) < 3 ||
		    line[rest] == '[')
			continue;
		if ((type == 't' || type == 'T' || type == 'w' || type == 'W') &&
		    !padding_sym(name))
			err = add_func(l, addr, name, -1, type == 'w' || type == 'W');
		/* _text, _stext, __init_begin ... are text symbols too */
		if (!err && (name[0] == '_' || !strchr("tTwW", type)))
			err = add_special(l, addr, name);
	}
	fclose(f);
	if (err)
		return fail(l, err, "reading symbols '%s': %s", path, strerror(-err));
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct sites_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int exec_sec(const struct sites *s, uint64_t addr);

/* ------------------------------------------------------------ the table */

static int table_add(struct loader *l, uint64_t v)
{
	uint64_t *t;

	if (l->ntable == l->captable) {
		l->captable = l->captable ? 2 * l->captable : 1024;
		t = realloc(l->table, l->captable * sizeof(*t));
		if (!t)
			return -ENOMEM;
		l->table = t;
	}
	l->table[l->ntable++] = v;
	return 0;
}

static int64_t abs64_type(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return R_X86_64_64_;
	case EM_AARCH64: return R_AARCH64_ABS64_;
	case EM_RISCV: return R_RISCV_64_;
	}
	return -1;
}

static int64_t relative_type(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return R_X86_64_RELATIVE_;
	case EM_AARCH64: return R_AARCH64_RELATIVE_;
	case EM_RISCV: return R_RISCV_RELATIVE_;
	}
	return -1;
}

/* Value of symbol symndx of symtab section symsec, at its synthetic address. */
static int sym_value(struct loader *l, size_t symsec, size_t symndx, uint64_t *v)
{
	Elf_Scn *scn = elf_getscn(l->elf, symsec);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Sym sym;

	if (!d || !gelf_getsym(d, (int)symndx, &sym) || sym.st_shndx == SHN_UNDEF ||
	    sym.st_shndx >= l->nsec)
		return -ENOENT;
	*v = l->base[sym.st_shndx] + sym.st_value;
	return 0;
}

/* ET_REL: the entries of table section idx are its relocations. */
static int table_rel(struct loader *l, size_t idx, const char *tname)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, n;
	int err;

	while ((scn = elf_nextscn(l->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != idx)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++) {
			GElf_Rela r;
			uint64_t v = 0;

			if (!gelf_getrela(d, (int)i, &r))
				return fail(l, -EINVAL, "bad relocation %zu for %s", i, tname);
			if ((int64_t)GELF_R_TYPE(r.r_info) != abs64_type(l->eh.e_machine))
				return fail(l, -EINVAL, "relocation %zu for %s: unexpected type %u",
					    i, tname, (unsigned int)GELF_R_TYPE(r.r_info));
			if (sym_value(l, sh.sh_link, GELF_R_SYM(r.r_info), &v))
				v = 0;	/* against an undefined symbol: not in this file */
			else
				v += r.r_addend;
			err = table_add(l, v);
			if (err)
				return fail(l, err, "%s: %s", tname, strerror(-err));
		}
	}
	return 0;
}

/* Is there a RELATIVE record (R_AARCH64_ or R_RISCV_) at run-time address a? */
static bool image_rel_at(struct loader *l, uint64_t a, uint8_t r[24])
{
	bool have[24];

	read_at(l, a, r, have, 24);
	return have[0] && have[23] && (int64_t)le64(r + 8) == relative_type(l->eh.e_machine) &&
	       le64(r) >> 48 == 0xffff;
}

/*
 * Where .rela.dyn is: [__rela_start, __rela_end) (riscv64:
 * [__rela_dyn_start, __rela_dyn_end)) when the symbols have them;
 * kallsyms does not, so else the first run of 4 RELATIVE records in init
 * data (the linker script puts .rela.dyn there), to its end. A riscv64
 * kernel without CONFIG_RELOCATABLE (Debian's) has none: its table slots
 * hold the link addresses themselves.
 */
static void image_rela_range(struct loader *l, uint64_t *from, uint64_t *to)
{
	bool rv = l->eh.e_machine == EM_RISCV;
	const struct named *b = special(l, rv ? "__rela_dyn_start" : "__rela_start");
	const struct named *e = special(l, rv ? "__rela_dyn_end" : "__rela_end");
	const struct named *ib = special(l, "__init_begin"), *ie = special(l, "__init_end");
	uint64_t a, end;
	uint8_t r[24];

	*from = *to = 0;
	if (b && e && e->addr > b->addr) {
		*from = b->addr;
		*to = e->addr;
		return;
	}
	a = ib ? ib->addr : l->segs[0].addr;
	end = ie ? ie->addr : l->segs[0].addr + l->segs[0].size;
	for (; a + 4 * 24 <= end; a += 8)
		if (image_rel_at(l, a, r) && image_rel_at(l, a + 24, r) &&
		    image_rel_at(l, a + 48, r) && image_rel_at(l, a + 72, r))
			break;
	if (a + 4 * 24 > end)
		return;
	*from = a;
	while (a + 24 <= end && image_rel_at(l, a, r))
		a += 24;
	*to = a;
}

/* Image: the RELATIVE relocations the kernel applies to itself at boot (if any). */
static int image_relative(struct loader *l, uint64_t **out, size_t *nout)
{
	uint64_t *v, a, from, to;
	size_t cnt = 0;
	uint8_t r[24];

	*out = NULL;
	*nout = 0;
	image_rela_range(l, &from, &to);
	if (to <= from)
		return 0;
	v = malloc(((to - from) / 24 + 1) * 2 * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (a = from; a + 24 <= to; a += 24) {
		if (!image_rel_at(l, a, r))
			continue;
		v[2 * cnt] = le64(r);
		v[2 * cnt + 1] = le64(r + 16);
		cnt++;
	}
	if (cnt)
		qsort(v, cnt, 2 * sizeof(*v), cmp_u64);
	*out = v;
	*nout = cnt;
	return 0;
}

/* Linked image: RELATIVE relocations (.rela.dyn), sorted by offset, as pairs. */
static int read_relative(struct loader *l, uint64_t **out, size_t *nout)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t *v = NULL, *nv;
	size_t i, n, cnt = 0;

	if (l->image)
		return image_relative(l, out, nout);
	while ((scn = elf_nextscn(l->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		nv = realloc(v, (cnt + n) * 2 * sizeof(*v));
		if (!nv) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		for (i = 0; d && i < n; i++) {
			GElf_Rela r;

			if (!gelf_getrela(d, (int)i, &r) ||
			    (int64_t)GELF_R_TYPE(r.r_info) != relative_type(l->eh.e_machine))
				continue;
			v[2 * cnt] = r.r_offset;
			v[2 * cnt + 1] = r.r_addend;
			cnt++;
		}
	}
	if (cnt)
		qsort(v, cnt, 2 * sizeof(*v), cmp_u64);
	*out = v;
	*nout = cnt;
	return 0;
}

/* The addend of the relocation at link address at, or false when none. */
static bool rel_addend(const uint64_t *rel, size_t nrel, uint64_t at, uint64_t *addend)
{
	const uint64_t *hit;
	uint64_t key[2] = { at, 0 };

	hit = bsearch(key, rel, nrel, 2 * sizeof(*rel), cmp_u64);
	if (hit)
		*addend = hit[1];
	return hit != NULL;
}

/*
 * Does offset k put a relocation on 64 slots spread over the table, each
 * pointing into executable text (or 0: an entry dropped at build time)?
 */
static bool offset_fits(const struct sites *s, const uint64_t *rel, size_t nrel,
			uint64_t addr, uint64_t n, uint64_t k)
{
	uint64_t i, step = n > 64 ? n / 64 : 1, a;

	for (i = 0; i < n; i += step) {
		if (!rel_addend(rel, nrel, addr + 8 * i - k, &a))
			return false;
		if (a && exec_sec(s, a + k) < 0)
			return false;
	}
	return rel_addend(rel, nrel, addr + 8 * (n - 1) - k, &a);
}

/*
 * Image named by kallsyms: the relocations are at link addresses,
 * the table at run-time ones. The KASLR offset is the one that puts a
 * relocation on the table's slots, their values in text (0 first, for a
 * System.map); -ENOENT when none does. Data around the table is dense
 * with relocations too, hence the check of the values. The offset is a
 * multiple of the page size (the image is mapped by pages).
 */
static int image_offset(const struct sites *s, const uint64_t *rel, size_t nrel,
			uint64_t addr, uint64_t size, int64_t *d)
{
	size_t j;

	if (size < 8)
		return -ENOENT;
	for (j = 0; j <= nrel; j++) {
		uint64_t k = j ? addr - rel[2 * (j - 1)] : 0;

		if (!(k & 0xfff) && offset_fits(s, rel, nrel, addr, size / 8, k)) {
			*d = (int64_t)k;
			return 0;
		}
	}
	return -ENOENT;
}

/* Linked image: slots [addr, addr + size), each 8 bytes, else from .rela.dyn. */
static int table_linked(struct loader *l, uint64_t addr, uint64_t size, const char *tname)
{
	uint64_t *rel = NULL, off, v;
	int64_t d = 0;
	size_t nrel = 0;
	uint8_t b[8];
	bool have[8];
	int err;

	/*
	 * A riscv64 Image without CONFIG_RELOCATABLE has addresses in its
	 * slots and no .rela.dyn: do not look for one (a stray match in init
	 * data would only be a wrong KASLR offset to fail on).
	 */
	read_at(l, addr, b, have, 8);
	if (l->image && l->eh.e_machine == EM_RISCV && have[0] && have[7] && le64(b))
		err = 0;
	else
		err = read_relative(l, &rel, &nrel);
	if (!err && l->image && nrel) {
		err = image_offset(l->s, rel, nrel, addr, size, &d);
		if (err)
			err = fail(l, err, "no relocation offset fits %s", tname);
		l->s->slide = d;
	}
	for (off = 0; !err && off + 8 <= size; off += 8) {
		read_at(l, addr + off, b, have, 8);
		if (!have[0] || !have[7]) {
			err = fail(l, -EINVAL, "%s: slot at 0x%llx not in the file", tname,
				   (unsigned long long)(addr + off));
			break;
		}
		v = le64(b);
		if (!v && nrel) {
			uint64_t key[2] = { addr + off - d, 0 }, *hit;

			hit = bsearch(key, rel, nrel, 2 * sizeof(*rel), cmp_u64);
			if (hit && hit[1])	/* addend 0: dropped at build time */
				v = hit[1] + d;
		}
		err = table_add(l, v);
	}
	free(rel);
	if (err == -ENOMEM)
		return fail(l, err, "%s: %s", tname, strerror(-err));
	return err;
}

/* Is there a PROGBITS section called name? */
static bool has_section(struct loader *l, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *n;

	while (l->elf && (scn = elf_nextscn(l->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (n = elf_strptr(l->elf, l->shstrndx, sh.sh_name)) && !strcmp(n, name))
			return true;
	return false;
}

/*
 * Collect the table: its sections, else the __start/__stop_mcount_loc
 * range. One kind only, as the kernel's FTRACE_CALLSITE_SECTION: with
 * __mcount_loc present, __patchable_function_entries holds the x86
 * CALL_PADDING areas (-fpatchable-function-entry=16,16), not call sites.
 */
static int read_table(struct loader *l)
{
	const char *want = has_section(l, "__mcount_loc") ? "__mcount_loc" :
			   "__patchable_function_entries";
	const struct named *start, *stop;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while (!err && l->elf && (scn = elf_nextscn(l->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(l->elf, l->shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		snprintf(l->s->table, sizeof(l->s->table), "%s", name);
		if (l->s->module)
			err = table_rel(l, elf_ndxscn(scn), name);
		else
			err = table_linked(l, sh.sh_addr, sh.sh_size, name);
	}
	if (err || l->s->table[0])
		return err;
	start = special(l, "__start_mcount_loc");
	stop = special(l, "__stop_mcount_loc");
	if (!start || !stop || stop->addr < start->addr)
		return fail(l, -ENOENT, "no __mcount_loc or __patchable_function_entries section "
			    "and no __start_mcount_loc/__stop_mcount_loc symbols%s",
			    l->s->nfuncs ? "" : " (no symbols: pass --symbols System.map or "
			    "/proc/kallsyms)");
	snprintf(l->s->table, sizeof(l->s->table), "__start_mcount_loc");
	return table_linked(l, start->addr, stop->addr - start->addr, "__start_mcount_loc");
}

/* ------------------------------------------------------------ sections, symbols */

/* Section bases (synthetic in ET_REL) and the executable sections list. */
static int read_sections(struct loader *l)
{
	uint64_t next = 0x10000;
	size_t i;

	l->base = calloc(l->nsec ? l->nsec : 1, sizeof(*l->base));
	l->s->secs = calloc(l->nsec ? l->nsec : 1, sizeof(*l->s->secs));
	l->segs = calloc(l->nsec ? l->nsec : 1, sizeof(*l->segs));
	if (!l->base || !l->s->secs || !l->segs)
		return fail(l, -ENOMEM, "%s", strerror(ENOMEM));
	for (i = 1; i < l->nsec; i++) {
		GElf_Shdr sh;
		const char *name;
		struct sites_section *sec;

		if (!gelf_getshdr(elf_getscn(l->elf, i), &sh))
			return fail(l, -EINVAL, "section %zu: %s", i, elf_errmsg(-1));
		if (l->s->module && (sh.sh_flags & SHF_ALLOC)) {
			l->base[i] = next;
			next = (next + sh.sh_size + 0xfff) & ~0xfffULL;
		} else if (!l->s->module)
			l->base[i] = sh.sh_addr;
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS)
			l->segs[l->nsegs++] = (struct seg){ l->base[i], sh.sh_offset, sh.sh_size };
		name = elf_strptr(l->elf, l->shstrndx, sh.sh_name);
		if (!(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC) || !name)
			continue;
		sec = &l->s->secs[l->s->nsecs++];
		snprintf(sec->name, sizeof(sec->name), "%s", name);
		sec->addr = l->base[i];
		sec->size = sh.sh_size;
		sec->align = sh.sh_addralign;
		sec->init = !strncmp(name, ".init", 5) ||
			    (!l->s->module && !strncmp(name, ".exit", 5));
	}
	return 0;
}

/* Index in s->secs of the executable section holding addr, or -1. */
static int exec_sec(const struct sites *s, uint64_t addr)
{
	size_t i;

	for (i = 0; i < s->nsecs; i++)
		if (addr >= s->secs[i].addr && addr - s->secs[i].addr < s->secs[i].size)
			return (int)i;
	return -1;
}

/* Lowest executable address of the file: where _text is in a vmlinux. */
static uint64_t file_text(struct loader *l)
{
	const struct named *t = special(l, "_text");
	uint64_t lo = UINT64_MAX;
	size_t i;

	if (t)
		return t->addr;
	for (i = 0; i < l->s->nsecs; i++)
		if (l->s->secs[i].addr && l->s->secs[i].addr < lo)
			lo = l->s->secs[i].addr;
	return lo == UINT64_MAX ? 0 : lo;
}

/* Symbols from --symbols: shift them by the slide of _text to file addresses. */
static int read_symbols(struct loader *l, const char *map)
{
	const struct named *t;
	uint64_t text;
	size_t i;
	int err;

	text = file_text(l);
	err = read_map(l, map);
	if (err)
		return err;
	qsort(l->specials, l->nspecials, sizeof(*l->specials), cmp_named);
	t = special(l, "_text");
	if (!t || !t->addr)
		return fail(l, -EINVAL, "symbols '%s' have no _text address (kallsyms read "
			    "without root shows zeros)", map);
	l->s->slide = (int64_t)(t->addr - text);
	for (i = 0; i < l->s->nfuncs; i++)
		l->s->funcs[i].addr -= l->s->slide;
	for (i = 0; i < l->nspecials; i++)
		l->specials[i].addr -= l->s->slide;
	return 0;
}

static int read_elf_symbols(struct loader *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(l->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		err = read_symtab(l, scn, &sh);
		if (err)
			return err;
	}
	if (l->nspecials)
		qsort(l->specials, l->nspecials, sizeof(*l->specials), cmp_named);
	return 0;
}

/*
 * Sort functions by address; of aliases keep the one kallsyms_lookup()
 * reports (scripts/kallsyms.c compare_symbols): not weak, not a linker
 * section bound, fewest leading underscores, then first in the source.
 */
static int cmp_func_name(const void *a, const void *b)
{
	const struct sites_func *x = a, *y = b;
	int c = cmp_func(a, b);
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");

	if (c)
		return c;
	if (x->weak != y->weak)
		return x->weak - y->weak;
	if (linker_provided(x->name) != linker_provided(y->name))
		return linker_provided(x->name) - linker_provided(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_funcs(struct sites *s)
{
	size_t i, j = 0;

	if (!s->nfuncs)
		return;
	qsort(s->funcs, s->nfuncs, sizeof(*s->funcs), cmp_func_name);
	for (i = 1; i < s->nfuncs; i++)
		if (s->funcs[i].addr != s->funcs[j].addr)
			s->funcs[++j] = s->funcs[i];
	s->nfuncs = j + 1;
	for (i = 0; i < s->nfuncs; i++)
		s->funcs[i].section = exec_sec(s, s->funcs[i].addr);
}

/* The last function at or below addr, or -1. */
static ssize_t func_at_or_below(const struct sites *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

static void module_name(struct loader *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(l->elf, scn))) {
		const char *name, *p, *end;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(l->elf, l->shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".modinfo") || sh.sh_offset + sh.sh_size > l->rawsize)
			continue;
		p = (const char *)l->raw + sh.sh_offset;
		end = p + sh.sh_size;
		for (; p < end; p += strnlen(p, end - p) + 1)
			if (!strncmp(p, "name=", 5) && memchr(p, '\0', end - p))
				snprintf(l->s->modname, sizeof(l->s->modname), "%s", p + 5);
	}
}

/* ------------------------------------------------------------ entries */

/* ET_REL: name of the symbol a relocation at addr refers to, or NULL. */
static const char *reloc_name(struct loader *l, uint64_t addr)
{
	int idx = sec_of(l, addr, true);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, n;

	while (idx > 0 && (scn = elf_nextscn(l->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != (size_t)idx)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			GElf_Shdr symsh;
			Elf_Scn *symscn;
			Elf_Data *sd;

			if (!gelf_getrela(d, (int)i, &r) || l->base[idx] + r.r_offset != addr)
				continue;
			symscn = elf_getscn(l->elf, sh.sh_link);
			sd = symscn ? elf_getdata(symscn, NULL) : NULL;
			if (!sd || !gelf_getshdr(symscn, &symsh) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
				return NULL;
			return elf_strptr(l->elf, symsh.sh_link, sym.st_name);
		}
	}
	return NULL;
}

/* Which function an entry belongs to: 8 bytes past rec (CALL_OPS), at rec, or below. */
static ssize_t entry_func(const struct sites *s, uint64_t rec)
{
	ssize_t i = func_at_or_below(s, rec);

	/* CALL_OPS first: a symbol at rec itself is then a label (_stext, __X_start) */
	if (s->machine != EM_X86_64 && (size_t)(i + 1) < s->nfuncs &&
	    s->funcs[i + 1].addr == rec + 8)
		return i + 1;
	if (i >= 0 && s->funcs[i].addr == rec)
		return i;
	if (i >= 0 && s->funcs[i].section == exec_sec(s, rec))
		return i;
	return -1;
}

static void call_target(struct loader *l, struct site *e)
{
	const struct sites *s = l->s;
	const char *name = NULL;
	ssize_t f;

	if (s->module) {
		/* the operand is a relocation: x86 rel32 at +1, arm64/riscv at the insn */
		uint64_t at = e->rec + (e->flags & SITE_F_LITERAL ? 8 : 0) +
			      (e->flags & SITE_F_BTI ? 4 : 0);

		if (s->machine == EM_X86_64)
			name = reloc_name(l, e->rec + 1);
		else
			name = reloc_name(l, at + (s->machine == EM_AARCH64 ? 4 : 0));
		e->target = 0;
	} else if (e->target) {
		f = func_at_or_below(s, e->target);
		if (f >= 0 && s->funcs[f].addr == e->target)
			name = s->funcs[f].name;
	}
	if (name)
		e->target_name = own(l->s, name);
}

static uint8_t align_log2(uint64_t addr)
{
	uint8_t n = 0;

	while (n < 12 && !(addr & (1ULL << n)))
		n++;
	return n;
}

static void fill_entry(struct loader *l, struct site *e, uint64_t rec)
{
	struct sites *s = l->s;
	ssize_t f = rec ? entry_func(s, rec) : -1;
	uint8_t code[32];
	bool have[32];

	memset(e, 0, sizeof(*e));
	e->rec = rec;
	e->section = -1;
	if (f >= 0) {
		e->func = s->funcs[f].addr;
		e->name = s->funcs[f].name;
		e->offset = (int64_t)(rec - e->func);
		e->section = s->funcs[f].section;
		s->funcs[f].has_entry = true;
	} else if (rec) {
		e->flags |= SITE_F_NOSYM;
		e->section = exec_sec(s, rec);
	}
	read_at(l, rec - 8, code, have, sizeof(code));
	sites_decode(e, s->machine, code, have);
	if (e->kind == SITE_CALL)
		call_target(l, e);
	e->align_log2 = align_log2(e->func ? e->func : rec);
	if (e->section >= 0) {
		struct sites_section *sec = &s->secs[e->section];

		if (s->module && sec->align && e->align_log2 > align_log2(sec->align))
			e->align_log2 = align_log2(sec->align);
		if (sec->init)
			e->flags |= SITE_F_INIT;
	}
}

/* Init text by the image's own bounds (vmlinux: ftrace frees [__init_begin, __init_end)). */
static void mark_init(struct loader *l)
{
	const struct named *b = special(l, "__init_begin"), *e = special(l, "__init_end");
	size_t i;

	if (l->s->module || !b || !e)
		return;
	for (i = 0; i < l->s->n; i++)
		if (l->s->v[i].rec >= b->addr && l->s->v[i].rec < e->addr)
			l->s->v[i].flags |= SITE_F_INIT;
}

static int build_entries(struct loader *l)
{
	struct sites *s = l->s;
	size_t i;

	s->v = calloc(l->ntable ? l->ntable : 1, sizeof(*s->v));
	if (!s->v)
		return fail(l, -ENOMEM, "%s", strerror(ENOMEM));
	for (i = 0; i < l->ntable; i++) {
		fill_entry(l, &s->v[i], l->table[i]);
		if (s->v[i].flags & SITE_F_LITERAL)
			s->callops = true;
	}
	s->n = l->ntable;
	mark_init(l);
	for (i = 0; i < s->n; i++)
		if (s->v[i].section >= 0)
			s->secs[s->v[i].section].entries++;
	for (i = 0; i < s->nfuncs; i++) {
		int sec = s->funcs[i].section;

		if (sec < 0)
			continue;
		s->secs[sec].funcs++;
		s->secs[sec].funcs_without += !s->funcs[i].has_entry;
	}
	return 0;
}

/* ------------------------------------------------------------ load, free */

/*
 * A raw kernel Image, no ELF headers: arm64 ("ARMd" at 56, the kernel's
 * bytes from _text) or riscv64 ("RISCV\0\0\0" at 48 and "RSC\x05" at 56,
 * the bytes from _start: the header is the first instructions, the EFI
 * "MZ" a c.li; _text is a page or more further on).
 */
static int open_image(struct loader *l, uint16_t machine)
{
	struct stat st;
	void *p;

	if (fstat(l->fd, &st) || st.st_size < 64)
		return fail(l, -EINVAL, "cannot read the %s Image", sites_machine_name(machine));
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, l->fd, 0);
	if (p == MAP_FAILED)
		return fail(l, -errno, "mmap: %s", strerror(errno));
	l->raw = p;
	l->rawsize = st.st_size;
	l->image = true;
	l->eh.e_machine = machine;
	l->eh.e_type = ET_EXEC;
	return 0;
}

/*
 * Image: everything at the run-time addresses of the symbols (kallsyms),
 * the file mapped at the symbol of its first byte (arm64 _text, riscv64
 * _start); sections from the text bounds. The table is then
 * [__start_mcount_loc, __stop_mcount_loc) (read_table), its slots filled
 * from the image's RELATIVE relocations when they are 0 (arm64) or used
 * as they are (riscv64 without CONFIG_RELOCATABLE: link addresses).
 */
static int load_image(struct loader *l, const char *map)
{
	static const char *const bounds[][3] = {
		{ ".text", "_stext", "_etext" },
		{ ".init.text", "_sinittext", "_einittext" },
	};
	const char *arch = sites_machine_name(l->eh.e_machine);
	const char *first = l->eh.e_machine == EM_RISCV ? "_start" : "_text";
	const struct named *t, *b, *e;
	size_t i;
	int err;

	if (!map)
		return fail(l, -EINVAL, "the %s Image has no symbols: pass --symbols "
			    "/proc/kallsyms (or the System.map) of this kernel", arch);
	err = read_map(l, map);
	if (err)
		return err;
	qsort(l->specials, l->nspecials, sizeof(*l->specials), cmp_named);
	t = special(l, first);
	l->segs = calloc(1, sizeof(*l->segs));
	l->s->secs = calloc(2, sizeof(*l->s->secs));
	if (!l->segs || !l->s->secs)
		return fail(l, -ENOMEM, "%s", strerror(ENOMEM));
	if (!t || !t->addr)
		return fail(
			l, -EINVAL, "symbols '%s' have no %s address%s", map, first,
			l->nspecials + l->s->nfuncs <= 1
				? " (a placeholder? Debian's "
				  "System.map is: the real one is in the linux-image-*-dbg package)"
				: "");
	l->segs[l->nsegs++] = (struct seg){ t->addr, 0, l->rawsize };
	for (i = 0; i < 2; i++) {
		struct sites_section *sec = &l->s->secs[l->s->nsecs];

		b = special(l, bounds[i][1]);
		e = special(l, bounds[i][2]);
		if (!b || !e || e->addr <= b->addr)
			continue;
		snprintf(sec->name, sizeof(sec->name), "%s", bounds[i][0]);
		sec->addr = b->addr;
		sec->size = e->addr - b->addr;
		sec->init = i == 1;
		l->s->nsecs++;
	}
	return 0;
}

static int open_elf(struct loader *l)
{
	uint8_t h[64];
	ssize_t n;
	bool elf;

	l->fd = open(l->path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return fail(l, -errno, "cannot open: %s", strerror(errno));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(l, -EINVAL, "libelf: %s", elf_errmsg(-1));
	n = pread(l->fd, h, sizeof(h), 0);
	elf = n >= 4 && !memcmp(h, ELFMAG, 4);
	if (!elf && n == sizeof(h) && !memcmp(h + 56, "ARMd", 4))
		return open_image(l, EM_AARCH64);
	if (!elf && n == sizeof(h) && !memcmp(h + 48, "RISCV\0\0\0RSC\x05", 12))
		return open_image(l, EM_RISCV);
	if (!elf)
		return fail(l, -ENOEXEC,
			    "not an ELF file, arm64 or riscv64 Image (a compressed kernel? "
			    "tests/vm/extract-vmlinux.sh extracts an ELF vmlinux)");
	l->elf = elf_begin(l->fd, ELF_C_READ_MMAP, NULL);
	if (!l->elf || !gelf_getehdr(l->elf, &l->eh))
		return fail(l, -EINVAL, "libelf: %s", elf_errmsg(-1));
	if (l->eh.e_ident[EI_CLASS] != ELFCLASS64 || l->eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(l, -ENOTSUP, "not a 64-bit little-endian ELF file");
	if (l->eh.e_machine != EM_X86_64 && l->eh.e_machine != EM_AARCH64 &&
	    l->eh.e_machine != EM_RISCV)
		return fail(l, -ENOTSUP, "machine %u is not x86_64, arm64 or riscv64",
			    l->eh.e_machine);
	l->raw = (const uint8_t *)elf_rawfile(l->elf, &l->rawsize);
	if (!l->raw || elf_getshdrstrndx(l->elf, &l->shstrndx) || elf_getshdrnum(l->elf, &l->nsec))
		return fail(l, -EINVAL, "libelf: %s", elf_errmsg(-1));
	return 0;
}

static void load_done(struct loader *l)
{
	free(l->base);
	free(l->segs);
	free(l->specials);
	free(l->table);
	if (l->elf)
		elf_end(l->elf);
	if (l->image && l->raw)
		munmap((void *)l->raw, l->rawsize);
	if (l->fd >= 0)
		close(l->fd);
}

int sites_load(const char *path, const struct sites_opts *opts, struct sites **out,
	       char *err, size_t errlen)
{
	struct loader l = { .path = path, .fd = -1, .err = err, .errlen = errlen };
	int ret;

	*out = NULL;
	l.s = calloc(1, sizeof(*l.s));
	if (!l.s)
		return -ENOMEM;
	ret = open_elf(&l);
	if (ret)
		goto cleanup;
	l.s->machine = l.eh.e_machine;
	l.s->module = l.eh.e_type == ET_REL;
	if (l.image)
		ret = load_image(&l, opts ? opts->symbols : NULL);
	else
		ret = read_sections(&l);
	if (!ret && !l.image)
		ret = read_elf_symbols(&l);
	if (!ret && !l.image && opts && opts->symbols && !l.s->module) {
		l.s->nfuncs = 0;	/* the map replaces the file's own symbols */
		l.nspecials = 0;
		ret = read_symbols(&l, opts->symbols);
	}
	if (ret)
		goto cleanup;
	sort_funcs(l.s);
	if (!l.s->module && !l.s->nfuncs) {
		ret = fail(&l, -ENOENT, "no function symbols: pass --symbols System.map or "
			   "/proc/kallsyms (of this kernel)");
		goto cleanup;
	}
	if (l.s->module)
		module_name(&l);
	ret = read_table(&l);
	if (!ret)
		ret = build_entries(&l);
cleanup:
	load_done(&l);
	if (ret)
		sites_free(l.s);
	else
		*out = l.s;
	return ret;
}

void sites_free(struct sites *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->v);
	free(s->funcs);
	free(s->secs);
	free(s);
}

void sites_summarize(const struct sites *s, const char *glob, struct sites_summary *sum)
{
	size_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < s->n; i++) {
		const struct site *e = &s->v[i];

		if (glob && !sites_name_match(glob, e->name))
			continue;
		sum->entries++;
		sum->kinds[e->kind]++;
		sum->endbr += !!(e->flags & SITE_F_ENDBR);
		sum->bti += !!(e->flags & SITE_F_BTI);
		sum->init += !!(e->flags & SITE_F_INIT);
		sum->stale += !!(e->flags & SITE_F_STALE);
		sum->nosym += !!(e->flags & SITE_F_NOSYM);
		sum->literal += !!(e->flags & SITE_F_LITERAL);
		sum->literal_aligned += !!(e->flags & SITE_F_LIT_ALIGNED);
		if (e->rec && !(e->flags & (SITE_F_STALE | SITE_F_NOSYM)))
			sum->align[e->align_log2]++;
	}
	for (i = 0; i < s->nfuncs; i++) {
		if (s->funcs[i].section < 0 || !sites_name_match(glob, s->funcs[i].name))
			continue;
		sum->funcs++;
		if (s->funcs[i].has_entry)
			sum->funcs_with++;
		else
			sum->funcs_without++;
	}
}
