// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btf_func_argw_abi on functions built in a BTF of our own, with the
 * answers worked out by hand. x86_64: registers first, six of them, then
 * stack words; big structs in memory; a big returned struct takes a
 * register. arm64: eight registers; big structs by reference (one
 * register), a big returned struct through x8. riscv64: eight registers;
 * big structs by reference, a big returned struct takes a0; a two-word
 * argument split between a7 and the stack.
 */
#include <string.h>
#include <bpf/btf.h>
#include "test.h"
#include "../../daemon/btfargs.h"

struct fix {
	struct btf *btf;
	int i32, u64, ptr, s16, s24, td24;
};

static void fix_init(struct fix *f)
{
	f->btf = btf__new_empty();
	ASSERT_TRUE(f->btf != NULL, "btf__new_empty");
	f->i32 = btf__add_int(f->btf, "int", 4, BTF_INT_SIGNED);
	f->u64 = btf__add_int(f->btf, "long unsigned int", 8, 0);
	f->ptr = btf__add_ptr(f->btf, f->i32);
	f->s16 = btf__add_struct(f->btf, "two", 16);	/* two u64: two registers */
	btf__add_field(f->btf, "a", f->u64, 0, 0);
	btf__add_field(f->btf, "b", f->u64, 64, 0);
	f->s24 = btf__add_struct(f->btf, "three", 24);	/* in memory */
	btf__add_field(f->btf, "a", f->u64, 0, 0);
	btf__add_field(f->btf, "b", f->u64, 64, 0);
	btf__add_field(f->btf, "c", f->u64, 128, 0);
	f->td24 = btf__add_typedef(f->btf, "three_t", f->s24);
	ASSERT_TRUE(f->i32 > 0 && f->u64 > 0 && f->ptr > 0 && f->s16 > 0 && f->s24 > 0 &&
		    f->td24 > 0, "types");
}

/* Parameter kinds of a case, turned into type ids by fix_type(). */
enum kind { I32 = 1, U64, PTR, S16, S24, TD24, VA, UN8, UN24, FLT, ARR };

static int fix_type(const struct fix *f, enum kind k)
{
	switch (k) {
	case I32: return f->i32;
	case U64: return f->u64;
	case PTR: return f->ptr;
	case S16: return f->s16;
	case S24: return f->s24;
	case TD24: return f->td24;
	default: return 0;	/* VA: the "..." of a variadic function */
	}
}

/* One function, its parameters, and the answers of the three conventions. */
struct argw_case {
	const char *name;
	enum kind ret;		/* 0: void */
	enum kind params[10];	/* up to the first 0 */
	__u32 x86, a64, rv64;
};

static const struct argw_case cases[] = {
	{ "three", I32, { PTR, U64, I32 }, 1, 1, 1 },
	{ "none", I32, { 0 }, 1, 1, 1 },
	{ "six", 0, { U64, U64, U64, U64, U64, U64 }, 1, 1, 1 },
	/* x86: 2 + 4 registers */
	{ "small_struct", 0, { S16, U64, U64, U64, U64 }, 1, 1, 1 },
	/* x86: one on the stack; arm64: in x0-x6 */
	{ "seven", 0, { U64, U64, U64, U64, U64, U64, U64 }, 2, 1, 1 },
	{ "nine", 0, { PTR, U64, U64, U64, U64, U64, U64, PTR, I32 }, 4, 2, 2 },
	/* x86: 3 words in memory, the int in rdi; arm64: a pointer to a copy */
	{ "big_struct", 0, { S24, I32 }, 4, 1, 1 },
	{ "big_typedef", 0, { TD24 }, 4, 1, 1 },
	/* x86: 5 + 2 > 6; arm64: 7 + 2 > 8, to the stack whole, not split;
	 * riscv64: a7 and one stack word */
	{ "split_struct", 0, { U64, U64, U64, U64, U64, S16 }, 3, 1, 1 },
	{ "split_struct8", 0, { U64, U64, U64, U64, U64, U64, U64, S16 }, 4, 3, 2 },
	/* a big result: x86 takes rdi for its pointer (riscv64: a0), arm64
	 * passes it in x8 */
	{ "sret", S24, { U64, U64, U64, U64, U64, U64 }, 2, 1, 1 },
	{ "sret8", S24, { U64, U64, U64, U64, U64, U64, U64, U64 }, 4, 1, 2 },
	/* printf-like: unknown */
	{ "variadic", I32, { PTR, VA }, 0, 0, 0 },
};

/* A FUNC for c in f's BTF; its id. */
static int case_fn(struct fix *f, const struct argw_case *c)
{
	int proto = btf__add_func_proto(f->btf, c->ret ? fix_type(f, c->ret) : 0), i;

	ASSERT_TRUE(proto > 0, "proto");
	for (i = 0; i < 10 && c->params[i]; i++)
		ASSERT_TRUE(!btf__add_func_param(f->btf, c->params[i] == VA ? "" : "x",
						 fix_type(f, c->params[i])), "param");
	return btf__add_func(f->btf, c->name, BTF_FUNC_GLOBAL, proto);
}

TEST(three_conventions)
{
	struct fix f;
	size_t i;

	fix_init(&f);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int id = case_fn(&f, &cases[i]);

		ASSERT_EQ(btf_func_argw_abi(f.btf, id, ARGW_ABI_X86_64), cases[i].x86,
			  cases[i].name);
		ASSERT_EQ(btf_func_argw_abi(f.btf, id, ARGW_ABI_ARM64), cases[i].a64,
			  cases[i].name);
		ASSERT_EQ(btf_func_argw_abi(f.btf, id, ARGW_ABI_RISCV64), cases[i].rv64,
			  cases[i].name);
	}
	btf__free(f.btf);
}

TEST(not_a_function)
{
	struct fix f;

	fix_init(&f);
	ASSERT_EQ(btf_func_argw_abi(f.btf, f.u64, ARGW_ABI_X86_64), 0, "an INT");
	ASSERT_EQ(btf_func_argw_abi(f.btf, 0, ARGW_ABI_ARM64), 0, "id 0");
	ASSERT_EQ(btf_func_argw_abi(f.btf, 100000, ARGW_ABI_X86_64), 0, "no such id");
	ASSERT_EQ(btf_func_argw_abi(f.btf, f.i32, ARGW_ABI_RISCV64), 0, "an INT (riscv64)");
	btf__free(f.btf);
}

/*
 * btf_tramp_refusal: the verifier's btf_distill_func_proto rules and deny
 * lists, on functions of the same BTF: NULL (taken), doubtful, or refused
 * with the reason (a word of it checked).
 */
struct refusal_case {
	const char *name;
	enum kind ret;
	enum kind params[14];
	bool ret_too;
	const char *why;	/* NULL: taken */
	bool doubt;		/* on x86_64 */
};

TEST(tramp_refusal)
{
	struct fix f;
	int flt, arr, un8, un24;
	size_t i;
	static const struct refusal_case rc[] = {
		{ "plain", I32, { PTR, U64 }, false, NULL, false },
		{ "seven_ok", 0, { U64, U64, U64, U64, U64, U64, U64 }, false, NULL, false },
		{ "twelve", 0, { U64, U64, U64, U64, U64, U64, U64, U64, U64, U64, U64, U64 },
		  false, NULL, false },
		{ "thirteen", 0, { U64, U64, U64, U64, U64, U64, U64, U64, U64, U64, U64, U64,
				   U64 }, false, "13 arguments", false },
		{ "variadic", I32, { PTR, VA }, false, "variable arguments", false },
		{ "struct16_arg", 0, { S16 }, false, NULL, false },
		{ "struct24_arg", 0, { PTR, S24 }, false, "argument 2 is a struct of 24", false },
		{ "typedef24_arg", 0, { TD24 }, false, "struct of 24", false },
		{ "struct_ret", S16, { U64 }, false, "returns a struct", false },
		{ "union_arg", 0, { UN8 }, false, NULL, true },
		{ "union24_arg", 0, { UN24 }, false, "union of 24", false },
		{ "union_ret", UN8, { U64 }, false, "returns a union", false },
		{ "float_arg", 0, { FLT }, false, "a float", false },
		{ "array_arg", 0, { ARR }, false, "an array", false },
		/* deny lists: the name */
		{ "migrate_disable", 0, { 0 }, false, "btf_id_deny", false },
		{ "do_exit", 0, { I32 }, false, NULL, false },
		{ "do_exit", 0, { I32 }, true, "noreturn_deny", false },
	};

	fix_init(&f);
	flt = btf__add_float(f.btf, "double", 8);
	arr = btf__add_array(f.btf, f.i32, f.i32, 2);
	un8 = btf__add_union(f.btf, "u8b", 8);
	btf__add_field(f.btf, "a", f.u64, 0, 0);
	un24 = btf__add_union(f.btf, "u24b", 24);
	btf__add_field(f.btf, "a", f.s24, 0, 0);
	ASSERT_TRUE(flt > 0 && arr > 0 && un8 > 0 && un24 > 0, "types");
	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++) {
		const struct refusal_case *c = &rc[i];
		int proto, id, j, ty;
		const char *why;
		char buf[160];
		bool doubt = true;

#define KIND_TYPE(k) ((k) == UN8 ? un8 : (k) == FLT ? flt : (k) == ARR ? arr : \
		      (k) == UN24 ? un24 : fix_type(&f, (k)))
		proto = btf__add_func_proto(f.btf, c->ret ? KIND_TYPE(c->ret) : 0);
		for (j = 0; j < 14 && c->params[j]; j++) {
			ty = KIND_TYPE(c->params[j]);
			ASSERT_TRUE(!btf__add_func_param(f.btf, c->params[j] == VA ? "" : "x", ty),
				    "param");
		}
#undef KIND_TYPE
		id = btf__add_func(f.btf, c->name, BTF_FUNC_GLOBAL, proto);
		ASSERT_TRUE(id > 0, c->name);
		why = btf_tramp_refusal(f.btf, id, c->ret_too, &doubt, buf, sizeof(buf));
		if (!c->why) {
			ASSERT_TRUE(why == NULL, c->name);
#if defined(__x86_64__)
			ASSERT_EQ(doubt, c->doubt, c->name);
#endif
		} else {
			ASSERT_TRUE(why && strstr(why, c->why), c->name);
		}
	}
	ASSERT_TRUE(btf_tramp_refusal(f.btf, f.u64, false, &(bool){ false }, NULL, 0) != NULL,
		    "an INT is no function");
	btf__free(f.btf);
}

TEST_MAIN()
