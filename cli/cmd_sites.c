// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl sites FILE [GLOB]: the patchable function entries of a vmlinux
 * or a module, offline (lib/sites.c does the reading; no daemon). One row
 * per entry and a summary, or one JSON object (docs/sites.md).
 * tracectl sites --live [GLOB]: the running kernel's call sites now,
 * through the daemon and its module (the `sites` request).
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "../lib/sites.h"
#include "../lib/strutil.h"
#include "tracectl.h"

/* Names come from the file: escaped (lib/strutil.h) into buf, for one row. */
static const char *esc(char *buf, size_t len, const char *s)
{
	snprintf(buf, len, "%s", s ? tty_str(s) : "?");
	return buf;
}

static void flags_str(char *buf, size_t len, unsigned int f)
{
	static const struct { unsigned int bit; const char *name; } names[] = {
		{ SITE_F_ENDBR, "endbr" }, { SITE_F_BTI, "bti" }, { SITE_F_INIT, "init" },
		{ SITE_F_STALE, "stale" }, { SITE_F_NOSYM, "nosym" },
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit)
			o += snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "," : "",
				      names[i].name);
	if (f & SITE_F_LITERAL)
		snprintf(buf + o, o < len ? len - o : 0, "%sliteral%s", o ? "," : "",
			 f & SITE_F_LIT_ALIGNED ? "" : "-misaligned");
}

static const char *section_name(const struct sites *s, int sec)
{
	return sec >= 0 ? s->secs[sec].name : "-";
}

/* Where an entry is: its address, or in a module its offset in the section. */
static uint64_t shown_addr(const struct sites *s, const struct site *e)
{
	if (s->module && e->section >= 0 && e->rec >= s->secs[e->section].addr)
		return e->rec - s->secs[e->section].addr;
	return e->rec;
}

static void print_row(const struct sites *s, const struct site *e)
{
	char name[160], fl[80], tgt[160], fn[200], sec[64];

	if (e->name)
		snprintf(fn, sizeof(fn), "%s%+lld", esc(name, sizeof(name), e->name),
			 (long long)e->offset);
	else
		snprintf(fn, sizeof(fn), "-");
	tgt[0] = '\0';
	if (e->kind == SITE_CALL && e->target_name)
		esc(tgt, sizeof(tgt), e->target_name);
	flags_str(fl, sizeof(fl), e->flags);
	printf("%016llx  %-40s %-14s %5u  %-16s %-18s %s\n", (unsigned long long)shown_addr(s, e),
	       fn, esc(sec, sizeof(sec), section_name(s, e->section)), 1U << e->align_log2,
	       e->kind == SITE_ZERO ? "(zero)" : e->insn, tgt, fl);
}

/* A section's sh_addralign, "-" when unknown (an Image) */
static const char *align_str(char *buf, size_t len, uint64_t align)
{
	if (!align)
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)align);
	return buf;
}

static void print_summary(const struct sites *s, const char *file, const char *glob)
{
	struct sites_summary sum;
	char buf[160], mod[80], sec[64], al[24];
	size_t i;

	sites_summarize(s, glob, &sum);
	printf("%s: %s %s%s%s, table %s, %s%s\n", esc(buf, sizeof(buf), file),
	       sites_machine_name(s->machine), s->module ? "module" : "image",
	       s->modname[0] ? " " : "", esc(mod, sizeof(mod), s->modname), s->table,
	       s->callops ? "CALL_OPS literal slots" : "no pre-function literal",
	       glob ? ", functions matching the glob" : "");
	if (s->slide)
		printf("  KASLR offset %s0x%llx (symbols against the file)\n",
		       s->slide < 0 ? "-" : "",
		       (unsigned long long)(s->slide < 0 ? -s->slide : s->slide));
	printf("  entries %u: nop %u, mov-nop %u, call %u, other %u, zero %u\n", sum.entries,
	       sum.kinds[SITE_NOP], sum.kinds[SITE_MOV_NOP], sum.kinds[SITE_CALL],
	       sum.kinds[SITE_OTHER], sum.kinds[SITE_ZERO]);
	printf("  init text %u, stale (not at a function entry) %u, outside any function %u\n",
	       sum.init, sum.stale, sum.nosym);
	if (s->machine == EM_X86_64)
		printf("  ENDBR %u\n", sum.endbr);
	else
		printf("  BTI %u, CALL_OPS literal %u (8-byte aligned %u, misaligned %u)\n",
		       sum.bti, sum.literal, sum.literal_aligned,
		       sum.literal - sum.literal_aligned);
	printf("  function alignment:");
	for (i = 0; i < 13; i++)
		if (sum.align[i])
			printf(" %s%u: %u", i == 12 ? ">=" : "", 1U << i, sum.align[i]);
	printf("\n  functions %u: with an entry %u, without %u (notrace or never instrumented)\n",
	       sum.funcs, sum.funcs_with, sum.funcs_without);
	printf("  %-22s %6s %8s %9s %8s\n", "section", "align", "entries", "functions",
	       "without");
	for (i = 0; i < s->nsecs; i++)
		if (s->secs[i].entries || s->secs[i].funcs)
			printf("  %-22s %6s %8u %9u %8u%s\n",
			       esc(sec, sizeof(sec), s->secs[i].name),
			       align_str(al, sizeof(al), s->secs[i].align), s->secs[i].entries,
			       s->secs[i].funcs, s->secs[i].funcs_without,
			       s->secs[i].init ? "  (init)" : "");
}

static json_object *jhex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

static json_object *json_site(const struct sites *s, const struct site *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "addr", jhex(shown_addr(s, e)));
	json_object_object_add(o, "function", e->name ? json_object_new_string(e->name) : NULL);
	json_object_object_add(o, "offset", json_object_new_int64(e->offset));
	json_object_object_add(o, "section", e->section >= 0 ?
			       json_object_new_string(s->secs[e->section].name) : NULL);
	json_object_object_add(o, "align", json_object_new_int(1 << e->align_log2));
	json_object_object_add(o, "kind", json_object_new_string(sites_kind_name(e->kind)));
	json_object_object_add(o, "insn", json_object_new_string(e->insn));
	if (e->kind == SITE_CALL)
		json_object_object_add(o, "target", e->target_name ?
				       json_object_new_string(e->target_name) : NULL);
	json_object_object_add(o, "endbr", json_object_new_boolean(e->flags & SITE_F_ENDBR));
	json_object_object_add(o, "bti", json_object_new_boolean(e->flags & SITE_F_BTI));
	json_object_object_add(o, "literal", !(e->flags & SITE_F_LITERAL) ? NULL :
			       json_object_new_string(e->flags & SITE_F_LIT_ALIGNED ?
						      "aligned" : "misaligned"));
	json_object_object_add(o, "init", json_object_new_boolean(e->flags & SITE_F_INIT));
	json_object_object_add(o, "stale", json_object_new_boolean(e->flags & SITE_F_STALE));
	return o;
}

static json_object *json_summary(const struct sites *s, const char *glob)
{
	json_object *o = json_object_new_object(), *k = json_object_new_object();
	json_object *al = json_object_new_object();
	struct sites_summary sum;
	char key[16];
	int i;

	sites_summarize(s, glob, &sum);
	json_object_object_add(o, "entries", json_object_new_int(sum.entries));
	for (i = 0; i < SITE_KIND_NR; i++)
		json_object_object_add(k, sites_kind_name(i), json_object_new_int(sum.kinds[i]));
	json_object_object_add(o, "kinds", k);
#define ADD(name, v) json_object_object_add(o, name, json_object_new_int(v))
	ADD("init", sum.init);
	ADD("stale", sum.stale);
	ADD("nosym", sum.nosym);
	ADD("endbr", sum.endbr);
	ADD("bti", sum.bti);
	ADD("literal", sum.literal);
	ADD("literal_aligned", sum.literal_aligned);
	ADD("functions", sum.funcs);
	ADD("functions_with_entry", sum.funcs_with);
	ADD("functions_without_entry", sum.funcs_without);
#undef ADD
	for (i = 0; i < 13; i++) {
		if (!sum.align[i])
			continue;
		snprintf(key, sizeof(key), "%u", 1U << i);
		json_object_object_add(al, key, json_object_new_int(sum.align[i]));
	}
	json_object_object_add(o, "align", al);
	return o;
}

static json_object *json_all(const struct sites *s, const char *file, const char *glob,
			     bool rows)
{
	json_object *o = json_object_new_object(), *v = json_object_new_array();
	json_object *secs = json_object_new_array(), *none = json_object_new_array();
	size_t i;

	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "machine",
			       json_object_new_string(sites_machine_name(s->machine)));
	json_object_object_add(o, "type", json_object_new_string(s->module ? "module" : "image"));
	json_object_object_add(o, "module",
			       s->modname[0] ? json_object_new_string(s->modname) : NULL);
	json_object_object_add(o, "table", json_object_new_string(s->table));
	json_object_object_add(o, "slide", json_object_new_int64(s->slide));
	json_object_object_add(o, "callops", json_object_new_boolean(s->callops));
	json_object_object_add(o, "glob", glob ? json_object_new_string(glob) : NULL);
	json_object_object_add(o, "summary", json_summary(s, glob));
	for (i = 0; i < s->nsecs; i++) {
		json_object *x;

		if (!s->secs[i].entries && !s->secs[i].funcs)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "name", json_object_new_string(s->secs[i].name));
		json_object_object_add(x, "align", json_object_new_int64(s->secs[i].align));
		json_object_object_add(x, "init", json_object_new_boolean(s->secs[i].init));
		json_object_object_add(x, "entries", json_object_new_int(s->secs[i].entries));
		json_object_object_add(x, "functions", json_object_new_int(s->secs[i].funcs));
		json_object_object_add(x, "without_entry",
				       json_object_new_int(s->secs[i].funcs_without));
		json_object_array_add(secs, x);
	}
	json_object_object_add(o, "sections", secs);
	for (i = 0; rows && i < s->n; i++)
		if (sites_name_match(glob, s->v[i].name))
			json_object_array_add(v, json_site(s, &s->v[i]));
	json_object_object_add(o, "sites", v);
	for (i = 0; rows && i < s->nfuncs; i++)
		if (!s->funcs[i].has_entry && s->funcs[i].section >= 0 &&
		    sites_name_match(glob, s->funcs[i].name))
			json_object_array_add(none, json_object_new_string(s->funcs[i].name));
	json_object_object_add(o, "without_entry", none);
	return o;
}

static void print_table(const struct sites *s, const char *glob)
{
	size_t i;

	printf("%-16s  %-40s %-14s %5s  %-16s %-18s %s\n", "ADDR", "FUNCTION+OFF", "SECTION",
	       "ALIGN", "SITE", "TARGET", "FLAGS");
	for (i = 0; i < s->n; i++)
		if (sites_name_match(glob, s->v[i].name))
			print_row(s, &s->v[i]);
}

/* --live: one row per function (docs/sites.md, "Live sites") */
static void print_live(json_object *r)
{
	json_object *arr = jarr(r, "sites");
	size_t i, n = jlen(arr);
	char ops[160];

	printf("%-40s %-18s %-18s %-34s %-28s %s\n", "FUNCTION", "ADDR", "KIND", "TARGET",
	       "OPS", "ENABLED");
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(arr, i), *o = jobj(f, "ops");

		if (jstr(f, "error", NULL)) {
			printf("%-40s %-18s %-18s %s\n", jtty(f, "name", "?"), jtty(f, "addr", "?"),
			       "-", jtty(f, "error", ""));
			continue;
		}
		if (o)
			str_fmt(ops, sizeof(ops), "%s:%s", jtty(o, "kind", "?"),
				jtty(o, "call_sym", jstr(o, "sym", "?")));
		else
			str_fmt(ops, sizeof(ops), "-");
		printf("%-40s %-18s %-18s %-34s %-28s %s\n", jtty(f, "name", "?"),
		       jtty(f, "addr", "?"), jtty(f, "kind", "?"), jtty(f, "target_sym", "-"), ops,
		       jbool(f, "enabled") ? jtty(f, "enabled_with", "") : "-");
	}
	if (jbool(r, "truncated"))
		printf("(the first %zu of %lld: narrow the GLOB, or --limit up to 4096)\n", n,
		       jint(r, "total", 0));
	else
		printf("%zu %s\n", n, n == 1 ? "function" : "functions");
}

static int sites_live(struct cli *cli, const char *glob, const char *limit)
{
	json_object *args = json_object_new_object();
	unsigned long long n;

	if (limit) {
		if (cli_number(cli, "--limit", limit, 1, 4096, &n)) {
			json_object_put(args);
			return EXIT_USAGE;
		}
		json_object_object_add(args, "limit", json_object_new_int64((long long)n));
	}
	if (glob)
		json_object_object_add(args, "glob", json_object_new_string(glob));
	if (cli->timeout < 0)	/* up to 4096 functions read through the module */
		cli->timeout = CLI_TIMEOUT_MUTATE_S;
	return client_show(cli, "sites", args, print_live);
}

static int sites_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "symbols", required_argument, NULL, 'm' },
		{ "summary", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "live", no_argument, NULL, 'L' },
		{ "limit", required_argument, NULL, 'l' },
		{ 0 }
	};
	const char *limit = NULL;
	bool live = false;
	struct sites_opts so = { 0 };
	struct sites *s = NULL;
	const char *glob;
	bool summary = false;
	char err[512];
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "m:Sjhl:", opts, NULL)) != -1) {
		switch (c) {
		case 'L': live = true; break;
		case 'l': limit = optarg; break;
		case 'm': so.symbols = optarg; break;
		case 'S': summary = true; break;
		case 'j': cli->json = true; break;
		case 'h':
			printf("Usage: tracectl sites %s\n%s\n\nOptions:\n%s", cmd_sites.args,
			       cmd_sites.summary, cmd_sites.help);
			return 0;
		default:
			return cli_usage(cli, &cmd_sites, "unknown or incomplete option '%s'",
					 argv[optind - 1]);
		}
	}
	if (live) {
		if (so.symbols || summary)
			return cli_usage(cli, &cmd_sites, "--symbols and --summary are for a FILE, "
					 "not --live");
		if (argc - optind > 1)
			return cli_usage(cli, &cmd_sites,
					 "--live takes at most one GLOB (no FILE)");
		return sites_live(cli, optind < argc ? argv[optind] : NULL, limit);
	}
	if (limit)
		return cli_usage(cli, &cmd_sites, "--limit is for --live");
	if (optind >= argc || argc - optind > 2)
		return cli_usage(cli, &cmd_sites, "expected FILE and at most one GLOB");
	glob = argc - optind == 2 ? argv[optind + 1] : NULL;
	ret = sites_load(argv[optind], &so, &s, err, sizeof(err));
	if (ret)
		return cli_error(cli, ret == -ENOENT ? EXIT_NOT_FOUND : EXIT_FAILURE_, "sites",
				 "%s", err);
	if (cli->json) {
		json_object *o = json_all(s, argv[optind], glob, !summary);

		cli_print_json(o);
		json_object_put(o);
	} else {
		if (!summary)
			print_table(s, glob);
		print_summary(s, argv[optind], glob);
	}
	sites_free(s);
	return 0;
}

const struct cmd_entry cmd_sites = {
	.name = "sites",
	.args = "FILE [GLOB] [--symbols MAP] [--summary] | --live [GLOB] [--limit N]",
	.summary =
		"patchable function entries of a vmlinux, Image or .ko (offline), or the running "
		"kernel's (--live)",
	.exec = sites_exec,
	.help = "  FILE             a vmlinux, an arm64 or riscv64 Image, or a .ko: read\n"
		"                   offline, no daemon\n"
		"  GLOB             function names (* ? [...]); default every function\n"
		"  -m, --symbols=MAP  System.map or /proc/kallsyms for a stripped vmlinux;\n"
		"                   required for an Image\n"
		"  -S, --summary    counts only\n"
		"  --live           the running kernel's call sites now, through the daemon\n"
		"                   (needs tracerd_kmod loaded): kind, target, arm64 CALL_OPS\n"
		"                   literal, enabled_functions\n"
		"  -l, --limit=N    --live: at most N functions (1 to 4096, the default)\n"
		"  --json           the whole result as JSON\n",
	.own_help = true,
};
