// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A flame graph of the stacks (struct stacks), drawn by tracectl: one
 * self-contained SVG, for `tracectl flame` and, inline, the report page.
 * The stacks merge into a tree by frame name (the names of folded output:
 * one frame per function), the root "all" at the bottom, each frame as
 * wide as its calls; with several attachments each one's label is the
 * frame above the root. Colours: vmlinux warm, modules blue (a hue per
 * module), unresolved addresses grey. A click zooms on a frame (its
 * ancestors fill the width, the rest hides), a click on the root or on
 * "Reset zoom" resets; each frame's <title> gives its calls and percent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/strutil.h"
#include "bench.h"
#include "stacks.h"

#define FLAME_ROW	17	/* px per level */
#define FLAME_PAD	10
#define FLAME_TOP	46	/* title, reset button */
#define FLAME_CHAR	7.0	/* px per character of the 12px font, to clip names */

struct fnode {
	char *name;
	const char *module;	/* the frame's, for its colour; NULL: vmlinux */
	int kind;		/* 0 all, 1 attachment, 2 kernel frame, 3 unresolved */
	uint64_t count;
	size_t n, cap;
	struct fnode *kids;
};

static struct fnode *child(struct fnode *p, const char *name, int kind, const char *module)
{
	struct fnode *v;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->kids[i].name, name))
			return &p->kids[i];
	if (p->n == p->cap) {
		v = realloc(p->kids, (p->cap ? p->cap * 2 : 4) * sizeof(*v));
		if (!v)
			return NULL;
		p->kids = v;
		p->cap = p->cap ? p->cap * 2 : 4;
	}
	v = &p->kids[p->n];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	if (!v->name)
		return NULL;
	v->kind = kind;
	v->module = module;
	p->n++;
	return v;
}

static int tree_add(struct fnode *root, const struct stack_set *set, const struct stack_row *r,
		    bool label)
{
	struct fnode *at = root;
	char name[640];
	size_t k;

	root->count += r->count;
	if (label) {
		at = child(at, stack_name_safe(set->label, name, sizeof(name)), 1, NULL);
		if (!at)
			return -ENOMEM;
		at->count += r->count;
	}
	if (stack_errno_frame(r, name, sizeof(name))) {
		at = child(at, name, 1, NULL);
		if (!at)
			return -ENOMEM;
		at->count += r->count;
	}
	for (k = r->nframes; k-- > 0;) {
		const struct stack_frame *fr = &r->frames[k];

		at = child(at, stack_frame_name(fr, name, sizeof(name)), fr->sym ? 2 : 3,
			   fr->module);
		if (!at)
			return -ENOMEM;
		at->count += r->count;
	}
	return 0;
}

static void tree_free(struct fnode *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		tree_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

static int kid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fnode *)a)->name, ((const struct fnode *)b)->name);
}

/* children in name order (as flamegraph.pl: the x axis is not time); the depth */
static int tree_sort(struct fnode *n)
{
	int d = 0, k;
	size_t i;

	if (n->n > 1)	/* a leaf has no array: NULL is no argument for qsort */
		qsort(n->kids, n->n, sizeof(*n->kids), kid_cmp);
	for (i = 0; i < n->n; i++) {
		k = tree_sort(&n->kids[i]);
		d = k > d ? k : d;
	}
	return d + 1;
}

static unsigned int name_hash(const char *s)
{
	unsigned int h = 2166136261u;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void color(const struct fnode *n, char *buf, size_t len)
{
	unsigned int h = name_hash(n->name);

	switch (n->kind) {
	case 0:
		snprintf(buf, len, "#d8d8d8");
		break;
	case 1:
		snprintf(buf, len, "hsl(270,45%%,%u%%)", 72 + h % 10);
		break;
	case 3:
		snprintf(buf, len, "#b4b4b4");
		break;
	default:
		if (n->module)	/* a hue per module, blues and greens */
			snprintf(buf, len, "hsl(%u,55%%,%u%%)", 175 + name_hash(n->module) % 50,
				 62 + h % 14);
		else
			snprintf(buf, len, "hsl(%u,80%%,%u%%)", 8 + h % 38, 58 + h % 12);
	}
}

struct flame_ctx {
	FILE *f;
	double scale;	/* px per call */
	int height, width;
	uint64_t total;
};

/* the name cut to what fits in w px ("..": cut), on a UTF-8 boundary */
static void clipped(FILE *f, const char *name, double w)
{
	double fit = (w - 6) / FLAME_CHAR;
	size_t n = strlen(name), keep;
	char buf[640];

	if (fit < 3)
		return;
	if ((double)n <= fit) {
		svg_esc(f, name);
		return;
	}
	keep = utf8_boundary(name, (size_t)fit - 2);
	if (keep >= sizeof(buf))
		keep = utf8_boundary(name, sizeof(buf) - 1);
	memcpy(buf, name, keep);
	buf[keep] = '\0';
	svg_esc(f, buf);
	fputs("..", f);
}

static void draw(struct flame_ctx *c, const struct fnode *n, double x, int level)
{
	double w = (double)n->count * c->scale;
	int y = c->height - FLAME_PAD - (level + 1) * FLAME_ROW;
	char fill[40];
	size_t i;

	color(n, fill, sizeof(fill));
	fprintf(c->f, "<g class=\"frame\" data-level=\"%d\" data-x=\"%.3f\" data-w=\"%.3f\" "
		"data-n=\"%llu\" data-name=\"", level, x, w, (unsigned long long)n->count);
	svg_esc(c->f, n->name);
	fprintf(c->f, "\"><title>");
	svg_esc(c->f, n->name);
	fprintf(c->f, " (%llu calls, %.2f%%)</title>", (unsigned long long)n->count,
		c->total ? 100.0 * (double)n->count / (double)c->total : 0);
	fprintf(c->f, "<rect x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/>", x, y, w, FLAME_ROW - 1, fill);
	fprintf(c->f, "<text x=\"%.3f\" y=\"%d\">", x + 3, y + FLAME_ROW - 5);
	clipped(c->f, n->name, w);
	fprintf(c->f, "</text></g>\n");
	for (i = 0; i < n->n; i++) {
		draw(c, &n->kids[i], x, level + 1);
		x += (double)n->kids[i].count * c->scale;
	}
}

/* zoom: a frame's subtree fills the width, its ancestors stay (full width),
 * everything else hides; names re-clipped to their new widths */
static const char flame_script[] =
	"(function(svg){\n"
	"var W=+svg.getAttribute('data-inner'),P=+svg.getAttribute('data-pad'),C=7;\n"
	"var fs=svg.querySelectorAll('g.frame');\n"
	"function clip(g,w){var t=g.querySelector('text'),s=g.getAttribute('data-name'),"
	"n=Math.floor((w-6)/C);t.textContent=n<3?'':(s.length<=n?s:s.slice(0,n-2)+'..');}\n"
	"function show(g,x,w){var r=g.querySelector('rect');g.style.display='';"
	"r.setAttribute('x',x);r.setAttribute('width',w);"
	"g.querySelector('text').setAttribute('x',x+3);clip(g,w);}\n"
	"function zoom(z){var zl=+z.getAttribute('data-level'),zx=+z.getAttribute('data-x'),"
	"zw=+z.getAttribute('data-w');\n"
	"fs.forEach(function(g){var l=+g.getAttribute('data-level'),x=+g.getAttribute('data-x'),"
	"w=+g.getAttribute('data-w');\n"
	"if(l<zl&&x<=zx+1e-6&&x+w>=zx+zw-1e-6){show(g,P,W);g.style.opacity=0.6;}\n"
	"else if(l>=zl&&x>=zx-1e-6&&x+w<=zx+zw+1e-6){show(g,P+(x-zx)*W/zw,w*W/zw);"
	"g.style.opacity=1;}\n"
	"else g.style.display='none';});}\n"
	"function reset(){fs.forEach(function(g){show(g,+g.getAttribute('data-x'),"
	"+g.getAttribute('data-w'));g.style.opacity=1;});}\n"
	"fs.forEach(function(g){g.addEventListener('click',function(){"
	"if(+g.getAttribute('data-level')===0)reset();else zoom(g);});});\n"
	"svg.querySelector('.reset').addEventListener('click',reset);\n"
	"})(document.currentScript.parentNode);\n";

void flame_svg(FILE *f, const struct stacks *s, const char *title, int width, bool standalone)
{
	struct fnode root = { .name = "all" };
	struct flame_ctx c = { .f = f, .width = width };
	bool label = s->nsets > 1, oom = false;
	char attrs[80];
	size_t i, k;
	int depth;

	for (i = 0; i < s->nsets && !oom; i++)
		for (k = 0; k < s->sets[i].nrows && !oom; k++)
			oom = tree_add(&root, &s->sets[i], &s->sets[i].rows[k], label) != 0;
	root.name = NULL;	/* not ours to free */
	depth = tree_sort(&root);
	c.total = root.count;
	c.height = FLAME_TOP + depth * FLAME_ROW + 2 * FLAME_PAD;
	c.scale = root.count ? (double)(width - 2 * FLAME_PAD) / (double)root.count : 0;
	snprintf(attrs, sizeof(attrs), "class=\"flame\" data-inner=\"%d\" data-pad=\"%d\"",
		 width - 2 * FLAME_PAD, FLAME_PAD);
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	svg_open(f, width, c.height, attrs);
	fprintf(f, "<style>g.frame{cursor:pointer}g.frame text{font-size:11px;"
		"pointer-events:none}g.frame:hover rect{stroke:#000;stroke-width:0.5}"
		".reset{cursor:pointer;fill:#1f5fbf}</style>\n");
	fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">",
		width / 2);
	svg_esc(f, title);
	fprintf(f, "</text>\n<text class=\"reset\" x=\"%d\" y=\"38\">Reset zoom</text>\n",
		FLAME_PAD);
	if (oom)
		fprintf(f, "<text x=\"%d\" y=\"38\" fill=\"#c00\">out of memory: part of the "
			"stacks are missing</text>\n", width / 2);
	root.name = "all";
	draw(&c, &root, FLAME_PAD, 0);
	root.name = NULL;
	fprintf(f, "<script><![CDATA[\n%s]]></script>\n", flame_script);
	svg_end(f);
	tree_free(&root);
}
