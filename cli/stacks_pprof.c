// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl stats --stacks --format pprof: the stacks as pprof's profile
 * (cli/profile.proto, encoded by protobuf-c), gzipped as go tool pprof,
 * Pyroscope and Parca take it. One sample per stack, its value the calls
 * (sample type "calls", unit "count"); one location per address, leaf
 * first, one function per frame name (the names folded output uses, the
 * module, "vmlinux" or "unresolved" as its file name); with several attachments, a root location
 * named after each. Built only where protobuf-c is (the Makefile's
 * TRACECTL_PPROF); elsewhere the format is refused with the reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stacks.h"

#ifndef TRACECTL_PPROF
const bool stacks_pprof_built = false;

int stacks_write_pprof(FILE *f, const struct stacks *s)
{
	(void)f;
	(void)s;
	return -ENOTSUP;
}
#else
#include <zlib.h>
#include "profile.pb-c.h"

const bool stacks_pprof_built = true;

/* string -> index, open addressing (a profile has up to top x depth frames per set) */
struct intern {
	char **keys;
	size_t *vals, cap, n;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int intern_grow(struct intern *t)
{
	struct intern n = { .cap = t->cap ? t->cap * 2 : 256 };
	size_t i, j;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->keys[i])
			continue;
		for (j = hash(t->keys[i]) & (n.cap - 1); n.keys[j]; j = (j + 1) & (n.cap - 1))
			;
		n.keys[j] = t->keys[i];
		n.vals[j] = t->vals[i];
	}
	n.n = t->n;
	free(t->keys);
	free(t->vals);
	*t = n;
	return 0;
}

/* key's value; a new key gets next (and *added set): -1 on ENOMEM */
static long long intern(struct intern *t, const char *key, size_t next, bool *added)
{
	size_t j;

	*added = false;
	if ((t->n + 1) * 2 > t->cap && intern_grow(t))
		return -1;
	for (j = hash(key) & (t->cap - 1); t->keys[j]; j = (j + 1) & (t->cap - 1))
		if (!strcmp(t->keys[j], key))
			return (long long)t->vals[j];
	t->keys[j] = strdup(key);
	if (!t->keys[j])
		return -1;
	t->vals[j] = next;
	t->n++;
	*added = true;
	return (long long)next;
}

static void intern_free(struct intern *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->vals);
}

/* growable arrays of the profile's messages: every pointer the encoder reads */
struct pp {
	Tracerd__Pprof__Profile prof;
	struct intern strings, funcs, locs;
	size_t cap_str, cap_fn, cap_loc, cap_sample;
	bool oom;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	q = realloc(p, (*cap ? *cap * 2 : 64) * size);
	if (q)
		*cap = *cap ? *cap * 2 : 64;
	return q;
}

static int64_t str_index(struct pp *p, const char *s)
{
	bool added;
	long long i = intern(&p->strings, s, p->prof.n_string_table, &added);
	char **t;

	if (i < 0 || !added)
		return i < 0 ? (p->oom = true, 0) : i;
	t = grow(p->prof.string_table, &p->cap_str, p->prof.n_string_table, sizeof(*t));
	if (!t || !(t[p->prof.n_string_table] = strdup(s))) {
		p->oom = true;
		if (t)
			p->prof.string_table = t;
		return 0;
	}
	p->prof.string_table = t;
	return (int64_t)p->prof.n_string_table++;
}

static uint64_t function_id(struct pp *p, const char *name, const char *file)
{
	Tracerd__Pprof__Function **v, *fn;
	char key[900];
	bool added;
	long long i;

	/* name and file: an attachment's root is not the kernel function of its name */
	snprintf(key, sizeof(key), "%s\037%s", name, file);
	i = intern(&p->funcs, key, p->prof.n_function, &added);

	if (i < 0)
		return p->oom = true, 0;
	if (!added)
		return (uint64_t)i + 1;
	v = grow(p->prof.function, &p->cap_fn, p->prof.n_function, sizeof(*v));
	fn = calloc(1, sizeof(*fn));
	if (v)
		p->prof.function = v;
	if (!v || !fn) {
		free(fn);
		return p->oom = true, 0;
	}
	tracerd__pprof__function__init(fn);
	fn->id = (uint64_t)i + 1;
	fn->name = fn->system_name = str_index(p, name);
	fn->filename = str_index(p, file);
	v[p->prof.n_function++] = fn;
	return fn->id;
}

/* the location of key (an address, or a root's name), its one line naming fn */
static uint64_t location_id(struct pp *p, const char *key, uint64_t addr, uint64_t fn)
{
	Tracerd__Pprof__Location **v, *loc;
	Tracerd__Pprof__Line *line;
	bool added;
	long long i = intern(&p->locs, key, p->prof.n_location, &added);

	if (i < 0)
		return p->oom = true, 0;
	if (!added)
		return (uint64_t)i + 1;
	v = grow(p->prof.location, &p->cap_loc, p->prof.n_location, sizeof(*v));
	loc = calloc(1, sizeof(*loc) + sizeof(*line) + sizeof(line));
	if (v)
		p->prof.location = v;
	if (!v || !loc) {
		free(loc);
		return p->oom = true, 0;
	}
	/* one allocation: the location, its line and the one-element line array */
	line = (Tracerd__Pprof__Line *)(loc + 1);
	tracerd__pprof__location__init(loc);
	tracerd__pprof__line__init(line);
	line->function_id = fn;
	loc->id = (uint64_t)i + 1;
	loc->address = addr;
	loc->n_line = 1;
	loc->line = (Tracerd__Pprof__Line **)(line + 1);
	loc->line[0] = line;
	v[p->prof.n_location++] = loc;
	return loc->id;
}

static uint64_t frame_location(struct pp *p, const struct stack_frame *fr)
{
	char name[640], key[32];

	const char *file = fr->module ? fr->module : fr->sym ? "vmlinux" : "unresolved";

	snprintf(key, sizeof(key), "a%llx", (unsigned long long)fr->addr);
	return location_id(p, key, fr->addr,
			   function_id(p, stack_frame_name(fr, name, sizeof(name)), file));
}

static void add_sample(struct pp *p, const struct stack_set *set, const struct stack_row *r,
		       bool root)
{
	Tracerd__Pprof__Sample **v, *smp;
	char name[200], key[220];
	size_t k;

	v = grow(p->prof.sample, &p->cap_sample, p->prof.n_sample, sizeof(*v));
	if (v)
		p->prof.sample = v;
	smp = v ? calloc(1, sizeof(*smp) + sizeof(int64_t)) : NULL;
	if (smp) {
		tracerd__pprof__sample__init(smp);
		smp->location_id = calloc(r->nframes + 2, sizeof(*smp->location_id));
	}
	if (!smp || !smp->location_id) {
		free(smp);
		p->oom = true;
		return;
	}
	for (k = 0; k < r->nframes; k++)
		smp->location_id[smp->n_location_id++] = frame_location(p, &r->frames[k]);
	if (stack_errno_frame(r, name, sizeof(name))) {	/* below the label, as folded */
		snprintf(key, sizeof(key), "e%s", name);
		smp->location_id[smp->n_location_id++] =
			location_id(p, key, 0, function_id(p, name, "tracerd errno"));
	}
	if (root) {
		stack_name_safe(set->label, name, sizeof(name));
		snprintf(key, sizeof(key), "r%s", name);
		smp->location_id[smp->n_location_id++] =
			location_id(p, key, 0, function_id(p, name, "tracerd attachment"));
	}
	smp->value = (int64_t *)(smp + 1);
	smp->value[0] = (int64_t)r->count;
	smp->n_value = 1;
	v[p->prof.n_sample++] = smp;
}

static void pp_free(struct pp *p)
{
	size_t i;

	for (i = 0; i < p->prof.n_sample; i++) {
		free(p->prof.sample[i]->location_id);
		free(p->prof.sample[i]);
	}
	for (i = 0; i < p->prof.n_location; i++)
		free(p->prof.location[i]);
	for (i = 0; i < p->prof.n_function; i++)
		free(p->prof.function[i]);
	for (i = 0; i < p->prof.n_string_table; i++)
		free(p->prof.string_table[i]);
	free(p->prof.sample);
	free(p->prof.location);
	free(p->prof.function);
	free(p->prof.string_table);
	intern_free(&p->strings);
	intern_free(&p->funcs);
	intern_free(&p->locs);
}

/* buf gzipped onto f */
static int gzip_to(FILE *f, const uint8_t *buf, size_t len)
{
	z_stream z = { 0 };
	unsigned char out[16384];
	int zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			deflateEnd(&z);
			return -EIO;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int stacks_write_pprof(FILE *f, const struct stacks *s)
{
	Tracerd__Pprof__ValueType type = TRACERD__PPROF__VALUE_TYPE__INIT,
				  period = TRACERD__PPROF__VALUE_TYPE__INIT, *types[1] = { &type };
	struct pp p = { .prof = TRACERD__PPROF__PROFILE__INIT };
	struct timespec ts;
	uint8_t *buf = NULL;
	size_t i, k, len;
	int ret;

	str_index(&p, "");	/* string_table[0] is "" */
	type.type = period.type = str_index(&p, "calls");
	type.unit = period.unit = str_index(&p, "count");
	p.prof.sample_type = types;
	p.prof.n_sample_type = 1;
	p.prof.period_type = &period;
	p.prof.period = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	p.prof.time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	for (i = 0; i < s->nsets && !p.oom; i++)
		for (k = 0; k < s->sets[i].nrows && !p.oom; k++)
			add_sample(&p, &s->sets[i], &s->sets[i].rows[k], s->nsets > 1);
	len = p.oom ? 0 : tracerd__pprof__profile__get_packed_size(&p.prof);
	buf = p.oom ? NULL : malloc(len + 1);
	if (buf)
		tracerd__pprof__profile__pack(&p.prof, buf);
	ret = buf ? gzip_to(f, buf, len) : -ENOMEM;
	free(buf);
	pp_free(&p);
	return ret;
}
#endif
