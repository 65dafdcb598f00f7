#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# gen-riscv64.py: writes bench-6.12-riscv64-ops.json and
# bench-7.2-riscv64-ops.json here. SYNTHETIC fixtures for the report's
# seed 000 table (docs/origins.md; tests/host/72-report-seed000.sh), not measurements: no
# riscv64 ops run at the demo's sizes existed when they were made. The
# document shape is the one `tracectl bench ops` writes (cli/bench_ops.c,
# docs/bench.schema.json; the recorded arm64/x86 files beside this one),
# the run is the demo's riscv64 one (--modes kmod-callops,kmod-direct
# --relevant 0,1,2,10 --irrelevant 0,1,2,10,100,200, seed 000's cross), and
# the values are shaped like the seed's two effects (6.12: no CALL_OPS, the
# list function grows with I; 7.2: CALL_OPS, flat) at TCG-like sizes.
# Deterministic: the same files on every run.
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS, REPS = 2000, 3
RELEVANT = [0, 1, 2, 10]
IRRELEVANT = [0, 1, 2, 10, 100, 200]
CONFIG_KEYS = ["CONFIG_DYNAMIC_FTRACE", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
               "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "CONFIG_DYNAMIC_FTRACE_WITH_ARGS",
               "CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_KPROBES", "CONFIG_KPROBES_ON_FTRACE",
               "CONFIG_X86_KERNEL_IBT", "CONFIG_CALL_DEPTH_TRACKING", "CONFIG_FPROBE"]


def stat(unit, xs):
    s = sorted(xs)
    return {"unit": unit, "min": s[0], "median": s[len(s) // 2], "max": s[-1], "samples": xs}


def points(rng, base, model):
    """model(mode, R, I) -> overhead ns; every sample jitters around it."""
    out = []
    for mode in ("kmod-callops", "kmod-direct"):
        keys = [(0, 0)]
        for r in RELEVANT:
            for i in IRRELEVANT:
                if (r or i) and (r <= 1 or i == 0) and not (mode == "kmod-direct" and r > 1):
                    keys.append((r, i))
        per0 = None
        for r, i in keys:
            per = [round(base + model(mode, r, i) + rng.uniform(-3, 3), 3) for _ in range(REPS)]
            if (r, i) == (0, 0):
                per0 = sorted(per)[REPS // 2]
            inc = [round(p - base + rng.uniform(-2, 2), 3) for p in per]
            hits = CALLS * r * REPS
            out.append({
                "key": f"{mode}/R{r}/I{i}",
                "labels": {"mode": mode, "relevant": r, "irrelevant": i},
                "status": "ok", "reason": None,
                "counts": {"relevant_hits": {"expected": hits, "counted": hits}},
                "values": {
                    "total_ns": stat("ns", [round(p * CALLS, 1) for p in per]),
                    "ns_per_call": stat("ns", per),
                    "overhead_ns": stat("ns", [round(p - per0, 3) for p in per]),
                    "overhead_in_call_ns": stat("ns", inc),
                },
            })
    return out


def doc(kernel, build, date, config, modes, pts):
    return {
        "schema": "tracerd-bench/1", "suite": "ops", "date": date,
        "tracerd_version": "0.1.0", "tracectl_version": "0.1.0",
        "machine": {"hostname": "tracerd-vm", "cpu_model": "unknown", "cpus": 2,
                    "arch": "riscv64", "kernel": kernel, "kernel_build": build,
                    "hypervisor": False},
        "kernel_config": {k: ("y" if k in config else "n") for k in CONFIG_KEYS},
        "kernel_config_source": "tracerd_kmod (TRACERD_IOC_FEATURES)",
        "modes": modes,
        "options": {"repetitions": REPS, "warmup": 0, "calls": CALLS,
                    "relevant": RELEVANT, "irrelevant": IRRELEVANT, "grid": False,
                    "modes": ["kmod-callops", "kmod-direct"]},
        "points": pts,
    }


def avail(**off):
    names = ["fentry", "kprobe", "kprobe-int3", "kprobe-multi", "tp-btf", "kmod-callops",
             "kmod-direct", "kmod-kprobe", "kprobe-session", "fsession", "fentry-multi",
             "kmod-kprobe-int3"]
    return {n: {"available": n.replace("-", "_") not in off,
                "reason": off.get(n.replace("-", "_"))} for n in names}


def without(mode, r, i):	# 6.12: ftrace_ops_list_func walks every ops per call
    if mode == "kmod-direct":
        return 0 if r == 0 else 410 + 0.05 * i
    if r == 0:
        return 0
    return 900 * r + (350 * i if r == 1 else 0)


def with_(mode, r, i):		# 7.2: the call site's own ops, the list only for R > 1
    if mode == "kmod-direct":
        return 0 if r == 0 else 380
    if r == 0:
        return 0
    return 290 if r == 1 else 900 * r


NOFPROBE = "kernel without fprobe (CONFIG_FPROBE)"
m612 = avail(kprobe="attach to '__riscv_sys_getpgid' refused: Invalid argument (EINVAL); a "
             "traceable function begins with its ftrace site, which this kernel (no "
             "KPROBES_ON_FTRACE) does not let a kprobe take: mode kprobe-int3 probes past it",
             kprobe_multi=NOFPROBE, kprobe_session=NOFPROBE,
             fsession="kernel without fsession (BPF_TRACE_FSESSION, Linux 7.x)",
             fentry_multi="kernel without fentry.multi (BPF_TRACE_FENTRY_MULTI, Linux 7.x)",
             kmod_kprobe="kmod ops benchmark: Cannot assign requested address (EADDRNOTAVAIL) "
             "(the mode cannot hook a traceable function of the module on this kernel)")
m72 = avail()
files = {
    "bench-6.12-riscv64-ops.json": doc(
        "6.12.117+deb13-riscv64", "#1 SMP Debian 6.12.117-1 (2026-11-14)",
        "2026-12-02T05:00:00Z",
        {"CONFIG_DYNAMIC_FTRACE", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
         "CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_KPROBES"},
        m612, points(random.Random(612), 61.0, without)),
    "bench-7.2-riscv64-ops.json": doc(
        "7.2.13+deb14-riscv64", "#1 SMP PREEMPT_DYNAMIC Debian 7.2.13-1 (2026-10-28)",
        "2026-12-02T05:10:00Z",
        {"CONFIG_DYNAMIC_FTRACE", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
         "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "CONFIG_DYNAMIC_FTRACE_WITH_ARGS",
         "CONFIG_KPROBES", "CONFIG_FPROBE"},
        m72, points(random.Random(72), 58.0, with_)),
}
for name, d in files.items():
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
