/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A function's arguments as its BTF types them (--args, --if): what the
 * BPF programs read (struct hook_args, into its slot's config) and how a
 * recording names them (the PROTO record, tracerd/record.h).
 */
#ifndef TRACERD_ARGS_H
#define TRACERD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct tracerd_spec;

/* What a hook's slot config carries of its arguments (tracerd/trace.h, slot_cfg) */
struct hook_args {
	__u8 nargs;		/* arguments recorded (--args) */
	__u8 strmask;		/* bit i: argument i is a char *: a kernel string */
	__u8 if_idx, if_op, if_size, if_signed;	/* --if: the argument and how it compares */
	__u64 if_val;		/* the value, extended from if_size as the type is signed */
	__s32 btf_id;		/* the FUNC whose parameters these are (args_resolve) */
};

/*
 * The arguments of FUNC id of btf (tracepoint: of its probe function
 * __bpf_trace_NAME, its first, the tracepoint's data, left out), checked for spec's
 * --args and --if, into out: 0, or -ENOENT (no BTF) / -EINVAL with the
 * reason in why ("has 7 arguments: ..."). A function without BTF, with
 * more than TRACERD_ARGS_MAX arguments, a variadic one or one taking a
 * struct, a union or a float by value is refused: its arguments cannot
 * be told apart in the registers.
 */
int args_resolve(const struct btf *btf, __s32 id, bool tracepoint, const struct tracerd_spec *spec,
		 struct hook_args *out, char *why, size_t whylen);

/*
 * The PROTO record's JSON of the same function (tracerd/record.h): names,
 * types, kinds, sizes, enumerator names as many as fit TRACERD_PROTO_MAX.
 * malloc'ed; NULL when the BTF does not say (then args_resolve refused it).
 */
char *args_proto_json(const struct btf *btf, __s32 id, bool tracepoint);

#endif
