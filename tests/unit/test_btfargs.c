// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btf_func_argw_abi on functions built in a BTF of our own, with the
 * answers worked out by hand. x86_64: registers first, six of them, then
 * stack words; big structs in memory; a big returned struct takes a
 * register. arm64: eight registers; big structs by reference (one
 * register), a big returned struct through x8.
 */
#include <bpf/btf.h>
#include "test.h"
#include "../../daemon/btfargs.h"

#define X86(id) btf_func_argw_abi(f.btf, id, ARGW_ABI_X86_64)
#define A64(id) btf_func_argw_abi(f.btf, id, ARGW_ABI_ARM64)

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

/* A FUNC returning ret (0: void) with n params of types[]; its id. */
static int fn(struct fix *f, const char *name, int ret, const int *types, int n)
{
	int proto = btf__add_func_proto(f->btf, ret), i;

	ASSERT_TRUE(proto > 0, "proto");
	for (i = 0; i < n; i++)
		ASSERT_TRUE(!btf__add_func_param(f->btf, types[i] ? "x" : "", types[i]), "param");
	return btf__add_func(f->btf, name, BTF_FUNC_GLOBAL, proto);
}

TEST(registers_only)
{
	struct fix f;
	int none[1] = { 0 };

	fix_init(&f);
	{
		int t[] = { f.ptr, f.u64, f.i32 };

		ASSERT_EQ(X86(fn(&f, "three", f.i32, t, 3)), 1, "three");
	}
	{
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64 };

		ASSERT_EQ(X86(fn(&f, "six", 0, t, 6)), 1, "six");
	}
	ASSERT_EQ(X86(fn(&f, "none", f.i32, none, 0)), 1, "none");
	{
		int t[] = { f.s16, f.u64, f.u64, f.u64, f.u64 };	/* 2 + 4 registers */

		ASSERT_EQ(X86(fn(&f, "small_struct", 0, t, 5)), 1, "small_struct");
	}
	btf__free(f.btf);
}

TEST(stack_words)
{
	struct fix f;

	fix_init(&f);
	{
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64 };

		ASSERT_EQ(X86(fn(&f, "seven", 0, t, 7)), 2, "seven");
	}
	{
		int t[] = { f.ptr, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.ptr, f.i32 };

		ASSERT_EQ(X86(fn(&f, "nine", 0, t, 9)), 4, "nine");
	}
	{
		int t[] = { f.s24, f.i32 };	/* 3 words in memory, the int in rdi */

		ASSERT_EQ(X86(fn(&f, "big_struct", 0, t, 2)), 4, "big_struct");
	}
	{
		int t[] = { f.td24 };	/* through the typedef */

		ASSERT_EQ(X86(fn(&f, "big_typedef", 0, t, 1)), 4, "big_typedef");
	}
	{
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.s16 };	/* 5 + 2 > 6 */

		ASSERT_EQ(X86(fn(&f, "split_struct", 0, t, 6)), 3, "split_struct");
	}
	{
		/* the returned big struct's pointer takes rdi: the sixth is on the stack */
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64 };

		ASSERT_EQ(X86(fn(&f, "sret", f.s24, t, 6)), 2, "sret");
	}
	btf__free(f.btf);
}

TEST(unknown)
{
	struct fix f;

	fix_init(&f);
	{
		int t[] = { f.ptr, 0 };	/* printf-like: the last param is "..." */

		ASSERT_EQ(X86(fn(&f, "variadic", f.i32, t, 2)), 0, "variadic");
	}
	ASSERT_EQ(X86(f.u64), 0, "not a function");	/* not a FUNC */
	ASSERT_EQ(X86(0), 0, "not a function");
	ASSERT_EQ(X86(100000), 0, "not a function");
	btf__free(f.btf);
}

TEST(arm64)
{
	struct fix f;

	fix_init(&f);
	{
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64 };

		ASSERT_EQ(A64(fn(&f, "seven", 0, t, 7)), 1, "seven: in x0-x6");
	}
	{
		int t[] = { f.ptr, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.ptr, f.i32 };

		ASSERT_EQ(A64(fn(&f, "nine", 0, t, 9)), 2, "nine: one on the stack");
	}
	{
		int t[] = { f.s24, f.i32 };	/* a pointer to a copy, then w1 */

		ASSERT_EQ(A64(fn(&f, "big_struct", 0, t, 2)), 1, "big_struct by reference");
	}
	{
		/* 7 + 2 > 8: the struct goes to the stack whole, not split */
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.s16 };

		ASSERT_EQ(A64(fn(&f, "split_struct", 0, t, 8)), 3, "split_struct");
	}
	{
		/* a big result goes through x8: all eight stay for arguments */
		int t[] = { f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64, f.u64 };

		ASSERT_EQ(A64(fn(&f, "sret", f.s24, t, 8)), 1, "sret through x8");
	}
	{
		int t[] = { f.ptr, 0 };

		ASSERT_EQ(A64(fn(&f, "variadic", f.i32, t, 2)), 0, "variadic");
	}
	btf__free(f.btf);
}

TEST_MAIN()
