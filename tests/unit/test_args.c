// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args_resolve and args_proto_json (daemon/args.c) on functions built in
 * a BTF of our own: what --args reads (nargs, the strings: a char *, not
 * a __user one nor a const void *), what --if compiles to (the argument,
 * its size and sign, the value as the BPF program compares it), and each
 * refusal's reason: no prototype, more than 6 arguments, variadic, a
 * struct by value, an unknown name, a pointer, a value that does not
 * parse or fit, an enumerator that is not the type's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <json-c/json.h>
#include "test.h"
#include "../../daemon/args.h"
#include "../../lib/spec.h"

struct fix {
	struct btf *btf;
	int f4, f7, fva, fstruct, tp;
};

/* f4(int n, enum color c, const char *name, char __user *ubuf, const void *p, u8 b) */
static void fix_init(struct fix *x)
{
	struct btf *b = btf__new_empty();
	int i32, u8, chr, cchr, pcchr, utag, puchr, cvoid, pcvoid, color, s, proto, i;

	x->btf = b;
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u8 = btf__add_int(b, "unsigned char", 1, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	cchr = btf__add_const(b, chr);
	pcchr = btf__add_ptr(b, cchr);
	utag = btf__add_type_tag(b, "user", chr);
	puchr = btf__add_ptr(b, utag);
	cvoid = btf__add_const(b, 0);
	pcvoid = btf__add_ptr(b, cvoid);
	color = btf__add_enum(b, "color", 4);
	btf__add_enum_value(b, "RED", 1);
	btf__add_enum_value(b, "BLUE", 40);
	s = btf__add_struct(b, "pair", 8);
	btf__add_field(b, "a", i32, 0, 0);
	btf__add_field(b, "b", i32, 32, 0);

	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "n", i32);
	btf__add_func_param(b, "c", color);
	btf__add_func_param(b, "name", pcchr);
	btf__add_func_param(b, "ubuf", puchr);
	btf__add_func_param(b, "p", pcvoid);
	btf__add_func_param(b, "b", u8);
	x->f4 = btf__add_func(b, "f4", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(b, i32);
	for (i = 0; i < 7; i++)
		btf__add_func_param(b, i ? "x" : "a", i32);
	x->f7 = btf__add_func(b, "f7", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "n", i32);
	btf__add_func_param(b, NULL, 0);	/* ... */
	x->fva = btf__add_func(b, "fva", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "p", s);
	x->fstruct = btf__add_func(b, "fstruct", BTF_FUNC_GLOBAL, proto);

	/* a tracepoint's probe: its data pointer first, left out */
	i = btf__add_ptr(b, 0);	/* before the prototype: its params follow it */
	proto = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", i);
	btf__add_func_param(b, "id", i32);
	x->tp = btf__add_func(b, "__bpf_trace_t", BTF_FUNC_STATIC, proto);
	ASSERT_TRUE(x->f4 > 0 && x->f7 > 0 && x->fva > 0 && x->fstruct > 0 && x->tp > 0,
		    "functions");
}

static struct tracerd_spec spec_of(bool args, const char *cond)
{
	struct tracerd_spec s;

	memset(&s, 0, sizeof(s));
	s.args = args;
	if (cond)
		snprintf(s.cond, sizeof(s.cond), "%s", cond);
	return s;
}

TEST(args_read)
{
	struct fix x;
	struct tracerd_spec s = spec_of(true, NULL);
	struct hook_args a;
	char why[200] = "";

	fix_init(&x);
	ASSERT_OK(args_resolve(x.btf, x.f4, false, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.nargs, 6, "six arguments read");
	ASSERT_EQ(a.strmask, 1U << 2, "a string: const char *, not char __user * nor const void *");
	ASSERT_EQ(a.btf_id, x.f4, "its FUNC");
	s = spec_of(false, "n>=4096");
	ASSERT_OK(args_resolve(x.btf, x.f4, false, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.nargs, 0, "--if alone reads none for the record");
	ASSERT_EQ(a.strmask, 0, "nor strings");
	ASSERT_EQ(a.if_idx, 0, "if: n");
	ASSERT_EQ(a.if_op, TRACERD_IF_GE, "if: >=");
	ASSERT_EQ(a.if_size, 4, "if: 4 bytes");
	ASSERT_EQ(a.if_signed, 1, "if: signed");
	ASSERT_EQ(a.if_val, 4096, "if: 4096");
	s = spec_of(false, "n<-1");
	ASSERT_OK(args_resolve(x.btf, x.f4, false, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.if_val, (__u64)-1LL, "if: -1 sign-extended");
	s = spec_of(false, "c==BLUE");
	ASSERT_OK(args_resolve(x.btf, x.f4, false, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.if_idx, 1, "if: c");
	ASSERT_EQ(a.if_val, 40, "if: BLUE is 40");
	s = spec_of(false, "b==0xff");
	ASSERT_OK(args_resolve(x.btf, x.f4, false, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.if_size, 1, "if: u8");
	ASSERT_EQ(a.if_signed, 0, "if: unsigned");
	s = spec_of(true, "id==3");
	ASSERT_OK(args_resolve(x.btf, x.tp, true, &s, &a, why, sizeof(why)), why);
	ASSERT_EQ(a.nargs, 1, "a tracepoint: its data pointer left out");
	ASSERT_EQ(a.if_idx, 0, "if: id, the first after it");
	btf__free(x.btf);
}

TEST(args_refused)
{
	static const struct {
		const char *fn, *cond, *why;
	} bad[] = {
		{ "f7", NULL, "has 7 arguments: --args and --if read the first 6" },
		{ "fva", NULL, "is variadic" },
		{ "fstruct", NULL, "takes a struct by value" },
		{ "f4", "count>=1", "--if: no argument named 'count'" },
		{ "f4", "name==0", "--if: argument 'name' is a pointer" },
		{ "f4", "p==0", "--if: argument 'p' is a pointer" },
		{ "f4", "n>=2147483648", "--if: 2147483648 does not fit its 4-byte signed type" },
		{ "f4", "n>=-2147483649", "--if: -2147483649 does not fit its 4-byte signed type" },
		{ "f4", "b==256", "--if: 256 does not fit its 1-byte unsigned type" },
		{ "f4", "b==-1", "--if: '-1' is no unsigned integer of 64 bits" },
		{ "f4", "n==12abc", "--if: '12abc' is no signed integer of 64 bits" },
		{ "f4", "n==RED", "--if: 'RED' is no integer" },
		{ "f4", "c==GREEN", "--if: 'GREEN' is no value of its enum type" },
	};
	struct fix x;
	struct tracerd_spec s;
	struct hook_args a;
	char why[200];
	size_t i;
	int id;

	fix_init(&x);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		id = btf__find_by_name_kind(x.btf, bad[i].fn, BTF_KIND_FUNC);
		s = spec_of(!bad[i].cond, bad[i].cond);
		why[0] = '\0';
		ASSERT_EQ(args_resolve(x.btf, id, false, &s, &a, why, sizeof(why)), -EINVAL,
			  bad[i].why);
		ASSERT_TRUE(strstr(why, bad[i].why) != NULL, why);
	}
	s = spec_of(true, NULL);
	ASSERT_EQ(args_resolve(x.btf, 0, false, &s, &a, why, sizeof(why)), -ENOENT, "no BTF");
	ASSERT_TRUE(strstr(why, "has no BTF prototype") != NULL, why);
	ASSERT_EQ(args_resolve(NULL, x.f4, false, &s, &a, why, sizeof(why)), -ENOENT,
		  "no BTF at all");
	btf__free(x.btf);
}

TEST(args_proto)
{
	struct fix x;
	json_object *o, *a, *e;
	char *js;

	fix_init(&x);
	js = args_proto_json(x.btf, x.f4, false);
	if (!ASSERT_TRUE(js != NULL, "proto"))
		return;
	o = json_tokener_parse(js);
	a = json_object_object_get(o, "args");
	ASSERT_EQ(json_object_array_length(a), 6, "six");
	e = json_object_array_get_idx(a, 1);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "name")), "c", "name");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "type")), "enum color",
		     "type");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "kind")), "enum", "kind");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(
		json_object_object_get(e, "enum"), "40")), "BLUE", "enum names by value");
	e = json_object_array_get_idx(a, 2);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "type")), "const char *",
		     "const char *");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "kind")), "str", "str");
	e = json_object_array_get_idx(a, 3);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(e, "kind")), "ptr",
		     "a __user string is a pointer");
	json_object_put(o);
	free(js);
	ASSERT_TRUE(args_proto_json(x.btf, 0, false) == NULL, "no prototype: none");
	btf__free(x.btf);
}

TEST_MAIN()
