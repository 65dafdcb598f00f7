// SPDX-License-Identifier: GPL-2.0-or-later
/* A function's arguments by its BTF (--args, --if); see args.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <json-c/json.h>
#include <tracerd/record.h>
#include <tracerd/trace.h>
#include "../lib/spec.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "args.h"

enum arg_kind {
	ARG_INT,
	ARG_UINT,
	ARG_ENUM,
	ARG_PTR,
	ARG_STR,
};

static const char *const kind_names[] = {
	[ARG_INT] = "int", [ARG_UINT] = "uint", [ARG_ENUM] = "enum", [ARG_PTR] = "ptr",
	[ARG_STR] = "str",
};

/* What an argument is: its kind, size, sign; an enum's type id */
struct arg_type {
	enum arg_kind kind;
	__u32 size;
	bool sign;
	__s32 enum_id;
};

/* id past its typedefs and modifiers (const, volatile, restrict, type tags) */
static __s32 skip_mods(const struct btf *btf, __s32 id)
{
	const struct btf_type *t;
	int n;

	for (n = 0; n < 32 && id > 0; n++) {
		t = btf__type_by_id(btf, id);
		if (!t || !(btf_is_typedef(t) || btf_is_mod(t)))
			break;
		id = (__s32)t->type;
	}
	return id;
}

/* Does the pointer's target carry the "user" type tag (char __user *)? */
static bool ptr_is_user(const struct btf *btf, __s32 id)
{
	const struct btf_type *t;
	const char *name;
	int n;

	for (n = 0; n < 32 && id > 0; n++) {
		t = btf__type_by_id(btf, id);
		if (!t || !btf_is_mod(t))
			return false;
		name = btf__name_by_offset(btf, t->name_off);
		if (btf_is_type_tag(t) && name && !strcmp(name, "user"))
			return true;
		id = (__s32)t->type;
	}
	return false;
}

/* Classify parameter type id: 0, or -EINVAL with why */
static int arg_classify(const struct btf *btf, __s32 id, struct arg_type *a, char *why,
			size_t whylen)
{
	const struct btf_type *t, *pt;
	const char *name;
	__s32 rid = skip_mods(btf, id), pid;

	memset(a, 0, sizeof(*a));
	t = rid > 0 ? btf__type_by_id(btf, rid) : NULL;
	if (!t)
		return set_err(why, whylen, -EINVAL, "an argument BTF does not type");
	if (btf_is_int(t)) {
		if (t->size > 8)
			return set_err(why, whylen, -EINVAL, "takes a %u-byte integer", t->size);
		a->kind = (btf_int_encoding(t) & BTF_INT_SIGNED) ? ARG_INT : ARG_UINT;
		a->sign = a->kind == ARG_INT;
		a->size = t->size;
		return 0;
	}
	if (btf_is_any_enum(t)) {
		a->kind = ARG_ENUM;
		a->size = t->size;
		a->sign = btf_kflag(t);
		a->enum_id = rid;
		return 0;
	}
	if (btf_is_ptr(t)) {
		a->kind = ARG_PTR;
		a->size = 8;
		pid = skip_mods(btf, (__s32)t->type);
		pt = pid > 0 ? btf__type_by_id(btf, pid) : NULL;
		name = pt ? btf__name_by_offset(btf, pt->name_off) : NULL;
		/* a kernel string: char *, not a user one (read as one, it would fault) */
		if (pt && btf_is_int(pt) && pt->size == 1 && name && strstr(name, "char") &&
		    !ptr_is_user(btf, (__s32)t->type))
			a->kind = ARG_STR;
		return 0;
	}
	if (btf_is_composite(t))
		return set_err(why, whylen, -EINVAL, "takes a %s by value",
			       btf_is_struct(t) ? "struct" : "union");
	return set_err(why, whylen, -EINVAL, "takes an argument that is no integer, enum nor "
		       "pointer (BTF kind %u)", btf_kind(t));
}

/*
 * The FUNC_PROTO of FUNC id and its first parameter tracerd reads: a
 * tracepoint's is its probe __bpf_trace_NAME(void *__data, ARGS), whose
 * BTF names them (btf_trace_NAME's prototype does not): 1.
 */
static const struct btf_type *args_proto(const struct btf *btf, __s32 id, bool tracepoint,
					 __u32 *first)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	*first = tracepoint ? 1 : 0;
	if (!t || !btf_is_func(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) >= *first ? t : NULL;
}

/* The --if value text as the argument's type holds it: 0, or -EINVAL with why */
static int if_value(const struct btf *btf, const struct arg_type *a, const char *text,
		    __u64 *out, char *why, size_t whylen)
{
	const struct btf_type *t;
	long long s = 0;
	unsigned long long u = 0;
	char *end = NULL;
	__u32 i, n, bits = a->size * 8;
	bool named = false;

	if ((text[0] >= '0' && text[0] <= '9') || text[0] == '-' || text[0] == '+') {
		errno = 0;
		if (a->sign)
			s = strtoll(text, &end, 0);
		else if (text[0] != '-')
			u = strtoull(text, &end, 0);
		if (!end || *end || errno)
			return set_err(why, whylen, -EINVAL, "--if: '%s' is no %s integer of 64 bits",
				       text, a->sign ? "signed" : "unsigned");
	} else if (a->kind == ARG_ENUM) {
		t = btf__type_by_id(btf, a->enum_id);
		n = btf_vlen(t);
		for (i = 0; i < n && !named; i++) {
			const char *en = btf__name_by_offset(btf, btf_is_enum(t) ?
							      btf_enum(t)[i].name_off :
							      btf_enum64(t)[i].name_off);

			if (!en || strcmp(en, text))
				continue;
			named = true;
			s = btf_is_enum(t) ? (a->sign ? (long long)btf_enum(t)[i].val :
					      (long long)(__u32)btf_enum(t)[i].val) :
					     (long long)btf_enum64_value(&btf_enum64(t)[i]);
			u = (unsigned long long)s;
		}
		if (!named)
			return set_err(why, whylen, -EINVAL, "--if: '%s' is no value of its enum type "
				       "(an integer or one of its enumerators' names)", text);
	} else {
		return set_err(why, whylen, -EINVAL, "--if: '%s' is no integer", text);
	}
	if (bits < 64 && a->sign && (s < -(1LL << (bits - 1)) || s > (1LL << (bits - 1)) - 1))
		return set_err(why, whylen, -EINVAL, "--if: %s does not fit its %u-byte signed type",
			       text, a->size);
	if (bits < 64 && !a->sign && !named && u > (1ULL << bits) - 1)
		return set_err(why, whylen, -EINVAL, "--if: %s does not fit its %u-byte unsigned type",
			       text, a->size);
	*out = a->sign ? (__u64)s : (named ? (__u64)s & (bits < 64 ? (1ULL << bits) - 1 : ~0ULL) :
			 (__u64)u);
	return 0;
}

int args_resolve(const struct btf *btf, __s32 id, bool tracepoint, const struct tracerd_spec *spec,
		 struct hook_args *out, char *why, size_t whylen)
{
	const struct btf_type *fp = btf ? args_proto(btf, id, tracepoint, &(__u32){ 0 }) : NULL;
	const struct btf_param *p;
	struct arg_type a;
	struct spec_if c;
	__u32 first, n, i;
	bool found = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!fp)
		return set_err(why, whylen, -ENOENT, "has no BTF prototype: its arguments' names "
			       "and types are unknown");
	out->btf_id = id;
	args_proto(btf, id, tracepoint, &first);
	n = btf_vlen(fp) - first;
	p = btf_params(fp) + first;
	if (n && !p[n - 1].type)
		return set_err(why, whylen, -EINVAL, "is variadic: its arguments cannot be told "
			       "apart");
	if (n > TRACERD_ARGS_MAX)
		return set_err(why, whylen, -EINVAL, "has %u arguments: --args and --if read the "
			       "first %d, in registers, only", n, TRACERD_ARGS_MAX);
	for (i = 0; i < n; i++) {
		ret = arg_classify(btf, (__s32)p[i].type, &a, why, whylen);
		if (ret)
			return ret;
		if (a.kind == ARG_STR)
			out->strmask |= (__u8)(1U << i);
	}
	out->nargs = spec->args ? (__u8)n : 0;
	if (!spec->args)
		out->strmask = 0;
	if (!spec->cond[0])
		return 0;
	if (spec_if_parse(spec->cond, &c, why, whylen))
		return -EINVAL;
	for (i = 0; i < n && !found; i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (!name || strcmp(name, c.name))
			continue;
		found = true;
		arg_classify(btf, (__s32)p[i].type, &a, why, whylen);
		if (a.kind == ARG_PTR || a.kind == ARG_STR)
			return set_err(why, whylen, -EINVAL, "--if: argument '%s' is a pointer: "
				       "--if compares an integer or enum argument", c.name);
		ret = if_value(btf, &a, c.value, &out->if_val, why, whylen);
		if (ret)
			return ret;
		out->if_idx = (__u8)i;
		out->if_op = (__u8)c.op;
		out->if_size = (__u8)a.size;
		out->if_signed = a.sign;
	}
	if (!found)
		return set_err(why, whylen, -EINVAL, "--if: no argument named '%s'", c.name);
	return 0;
}

/* A C-like name of type id ("size_t", "struct file *", "const char *"), into buf */
static void type_name(const struct btf *btf, __s32 id, char *buf, size_t len, int depth)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	char inner[128];

	if (!t) {
		str_fmt(buf, len, "void");
		return;
	}
	if (depth > 8) {
		str_fmt(buf, len, "...");
		return;
	}
	if (btf_is_ptr(t)) {
		type_name(btf, (__s32)t->type, inner, sizeof(inner), depth + 1);
		str_fmt(buf, len, "%s *", inner);
	} else if (btf_is_const(t) || btf_is_volatile(t)) {
		type_name(btf, (__s32)t->type, inner, sizeof(inner), depth + 1);
		str_fmt(buf, len, "%s %s", btf_is_const(t) ? "const" : "volatile", inner);
	} else if (btf_is_mod(t)) {	/* restrict, type tags: not part of the name */
		type_name(btf, (__s32)t->type, buf, len, depth + 1);
	} else if (btf_is_struct(t) || btf_is_union(t) || btf_is_any_enum(t)) {
		str_fmt(buf, len, "%s %s", btf_is_struct(t) ? "struct" :
			btf_is_union(t) ? "union" : "enum", name && *name ? name : "(anon)");
	} else if (btf_is_func_proto(t)) {
		str_fmt(buf, len, "function");
	} else {
		str_fmt(buf, len, "%s", name && *name ? name : "?");
	}
}

/* An enum's names, value -> name, while the whole JSON stays under budget bytes */
static json_object *enum_names(const struct btf *btf, __s32 id, size_t *budget)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	json_object *o = json_object_new_object();
	__u32 i, n = btf_vlen(t);
	char key[24];

	for (i = 0; i < n; i++) {
		const char *en = btf__name_by_offset(btf, btf_is_enum(t) ?
						      btf_enum(t)[i].name_off :
						      btf_enum64(t)[i].name_off);
		long long v = btf_is_enum(t) ? (btf_kflag(t) ? (long long)btf_enum(t)[i].val :
						(long long)(__u32)btf_enum(t)[i].val) :
					       (long long)btf_enum64_value(&btf_enum64(t)[i]);
		size_t need;

		if (!en)
			continue;
		if (btf_kflag(t))
			snprintf(key, sizeof(key), "%lld", v);
		else
			snprintf(key, sizeof(key), "%llu", (unsigned long long)v);
		need = strlen(key) + strlen(en) + 8;
		if (need > *budget)
			break;
		*budget -= need;
		json_object_object_add(o, key, json_object_new_string(en));
	}
	return o;
}

char *args_proto_json(const struct btf *btf, __s32 id, bool tracepoint)
{
	const struct btf_type *fp = btf ? args_proto(btf, id, tracepoint, &(__u32){ 0 }) : NULL;
	json_object *root, *arr, *o;
	const struct btf_param *p;
	size_t budget = TRACERD_PROTO_MAX - 64;
	struct arg_type a;
	char tname[160], why[8];
	__u32 first, n, i;
	const char *js;
	char *out = NULL;

	if (!fp)
		return NULL;
	args_proto(btf, id, tracepoint, &first);
	n = btf_vlen(fp) - first;
	p = btf_params(fp) + first;
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "args", arr);
	for (i = 0; i < n && i < TRACERD_ARGS_MAX; i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (arg_classify(btf, (__s32)p[i].type, &a, why, sizeof(why)))
			goto out;
		type_name(btf, (__s32)p[i].type, tname, sizeof(tname), 0);
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name && *name ? name :
									  "?"));
		json_object_object_add(o, "type", json_object_new_string(tname));
		json_object_object_add(o, "kind", json_object_new_string(kind_names[a.kind]));
		json_object_object_add(o, "size", json_object_new_int((int)a.size));
		if (a.kind == ARG_ENUM)	/* how its value reads back: its names' keys */
			json_object_object_add(o, "signed", json_object_new_boolean(a.sign));
		json_object_array_add(arr, o);
		budget = budget > 96 + strlen(tname) ? budget - 96 - strlen(tname) : 0;
	}
	/* enumerator names last: the budget left after every argument's line */
	for (i = 0; i < n && i < TRACERD_ARGS_MAX; i++) {
		arg_classify(btf, (__s32)p[i].type, &a, why, sizeof(why));
		if (a.kind == ARG_ENUM)
			json_object_object_add(json_object_array_get_idx(arr, i), "enum",
					       enum_names(btf, a.enum_id, &budget));
	}
	js = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (strlen(js) <= TRACERD_PROTO_MAX)
		out = strdup(js);
out:
	json_object_put(root);
	return out;
}
