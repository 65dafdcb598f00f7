# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd — one entry point for build, tests, VM and demo.
#
#   make                 build tracerd, tracectl, BPF objects/skeletons, kmods
#   make check           deps + build + unit + host + VM tests (CI profile)
#   make check-full      the same with the full sizes, in parts of up to an
#                        hour (PART=name runs one; make check-full-status)
#   make demo            what tracerd measures, in minutes: this kernel when it
#                        allows every path, else 6.12 in the test VM
#   make demo-all        the seven test kernels at the full sizes (hours)
#   make vm-check        VM tests only (VM_KERNEL=6.1|6.12|7.2|... picks one)
#   make deps            install build/test dependencies (apt, idempotent)
#   make install / uninstall [PREFIX= DESTDIR= KVER=]; install-dkms / uninstall-dkms
#   make deb             tracerd + tracerd-dkms .debs in $(O)/deb (dpkg-buildpackage)
#   O=DIR  output dir (default build/)   V=1  show full commands
#   KDIR=  kernel build tree for the kmods (default: running kernel's, else
#          the 6.12 test kernel's headers, fetched under $(O)/vm/)
#   VMLINUX_BTF= / VMLINUX_H=  BTF source for vmlinux.h, or a ready vmlinux.h
#   make fuzz            run every libFuzzer target FUZZ_SECONDS (default 120) each
#   SANITIZE=1           ASan + UBSan build, in its own output dir (build/asan);
#                        'make check SANITIZE=1' runs the unit and host layers
#                        only ('make check' includes them as asan-unit/asan-host)

ifeq ($(SANITIZE),1)
O ?= build/asan
endif
O ?= build
override O := $(abspath $(O))
SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
V ?= 0
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(O)/%,%,$(2))"
endif

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:
.DEFAULT_GOAL := all

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
# ARCH=arm64 cross-builds everything for arm64 (kernel-style names:
# x86_64, arm64; riscv64 likewise); user space then links against SYSROOT
# (a Debian root of that architecture).
HOST_ARCH := $(patsubst aarch64,arm64,$(shell uname -m))
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst aarch64,arm64,$(patsubst x86,x86_64,$(ARCH)))
VERSION := $(shell cat $(SRC)/VERSION)
BPF_ARCH := $(patsubst riscv64,riscv,$(patsubst x86_64,x86,$(ARCH)))
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-,$(ARCH)-linux-gnu-)
CC := $(CROSS_COMPILE)gcc
ifneq ($(SYSROOT),)
CC += --sysroot=$(SYSROOT)
export PKG_CONFIG_SYSROOT_DIR := $(SYSROOT)
export PKG_CONFIG_LIBDIR := $(SYSROOT)/usr/lib/$(patsubst arm64,aarch64,$(ARCH))-linux-gnu/pkgconfig:$(SYSROOT)/usr/share/pkgconfig
endif
endif
# ARCH=riscv64 (Debian's name) is kbuild's riscv
KBUILD_ARCH_ARGS := $(if $(CROSS_COMPILE),ARCH=$(patsubst riscv64,riscv,$(ARCH)) CROSS_COMPILE=$(CROSS_COMPILE))

CFLAGS ?= -O2 -g
# SANITIZE=1: ASan + UBSan for the host build and tests
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wmissing-prototypes -Wstrict-prototypes -D_GNU_SOURCE \
	-DTRACERD_VERSION='"$(VERSION)"' -I$(SRC)/include -I$(O)/bpf
DEPFLAGS = -MMD -MP
LIBS := $(shell $(PKG_CONFIG) --libs libbpf libelf 2>/dev/null || echo -lbpf -lelf -lz)

# ---------------------------------------------------------------- BPF
VMLINUX_BTF ?= $(firstword $(wildcard /sys/kernel/btf/vmlinux) $(O)/vm/k/6.12/vmlinux)
VMLINUX_H ?= $(O)/bpf/vmlinux.h
BPF_SRCS := $(wildcard $(SRC)/bpf/*.bpf.c)
BPF_OBJS := $(patsubst $(SRC)/bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
# objects built twice: as the others (comm read from the task through the
# kernel's BTF, a CO-RE relocation) and with -DHOOK_NO_TASK_BTF (comm by
# helper, no kernel BTF needed), the build the daemon loads when the first
# does not (bpf/hook.bpf.h, task_comm; daemon/bpf_nobtf.c)
BPF_NOBTF := kprobe kprobe_multi kprobe_session kprobe_session_v0 tp
BPF_SKELS := $(BPF_OBJS:.bpf.o=.skel.h) $(BPF_NOBTF:%=$(O)/bpf/%-nobtf.skel.h)
# -Wno-missing-declarations: bpftool's vmlinux.h of a 7.x kernel holds
# forward declarations inside structs that clang 21 warns about, 8 per object
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
	-I$(dir $(VMLINUX_H)) -I$(SRC)/include -Wall -Wno-unused-function \
	-Wno-missing-declarations

$(O)/bpf/vmlinux.h:
	$(Q)mkdir -p $(@D)
	$(Q)if [ ! -e "$(VMLINUX_BTF)" ]; then \
		echo "no BTF for vmlinux.h: set VMLINUX_BTF=FILE or VMLINUX_H=FILE" >&2; exit 1; fi
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

# the Makefile too: a change of BPF_CFLAGS (-mcpu) rebuilds the objects
$(O)/bpf/%.bpf.o: $(SRC)/bpf/%.bpf.c $(VMLINUX_H) $(SRC)/Makefile
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -MT $@ -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(O)/bpf/%-nobtf.bpf.o: $(SRC)/bpf/%.bpf.c $(VMLINUX_H) $(SRC)/Makefile
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DHOOK_NO_TASK_BTF $(DEPFLAGS) -MT $@ -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# ---------------------------------------------------------------- user space
DAEMON_SRCS := $(wildcard $(SRC)/daemon/*.c)
CLI_SRCS := $(wildcard $(SRC)/cli/*.c)
LIB_SRCS := $(wildcard $(SRC)/lib/*.c)
obj = $(patsubst $(SRC)/%.c,$(O)/obj/%.o,$(1))

DAEMON_LIBS := $(LIBS) $(shell $(PKG_CONFIG) --libs libevent json-c zlib libzstd 2>/dev/null || echo -levent -ljson-c -lz -lzstd)
# sd_notify(3): tracerd only (daemon/notify.c)
SYSTEMD_LIBS := $(shell $(PKG_CONFIG) --libs libsystemd 2>/dev/null || echo -lsystemd)
CLI_LIBS := $(shell $(PKG_CONFIG) --libs json-c zlib libzstd libelf 2>/dev/null || echo -ljson-c -lz -lzstd -lelf)

$(O)/obj/%.o: $(SRC)/%.c | $(BPF_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(O)/tracerd: $(call obj,$(DAEMON_SRCS) $(LIB_SRCS))
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS) $(SYSTEMD_LIBS)

# tracectl stats --format pprof: cli/profile.proto through protoc-c into
# $(O)/gen, protobuf-c linked statically (the VM guests' roots and the
# Debian package then need no libprotobuf-c1 at run time). Built where
# protoc-c and the library for ARCH are (scripts/deps.sh); elsewhere (an
# arm64 sysroot without libprotobuf-c-dev) tracectl refuses the format and
# says why.
MULTIARCH := $(patsubst arm64,aarch64,$(ARCH))-linux-gnu
PROTOC_C ?= $(shell command -v protoc-c 2>/dev/null)
PROTOBUF_C_A ?= $(firstword $(wildcard $(SYSROOT)/usr/lib/$(MULTIARCH)/libprotobuf-c.a))
PPROF_OBJS :=
PPROF_LIBS :=
ifneq ($(and $(PROTOC_C),$(PROTOBUF_C_A)),)
PPROF_OBJS := $(O)/obj/gen/profile.pb-c.o
PPROF_LIBS := $(PROTOBUF_C_A)
$(O)/gen/%.pb-c.c $(O)/gen/%.pb-c.h: $(SRC)/cli/%.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(PROTOC_C) --proto_path=$(SRC)/cli --c_out=$(O)/gen $<
$(call obj,$(SRC)/cli/stacks_pprof.c): CPPFLAGS += -DTRACECTL_PPROF -I$(O)/gen
$(call obj,$(SRC)/cli/stacks_pprof.c): $(O)/gen/profile.pb-c.h
# generated code: compiled as protoc-c writes it, without our warnings
$(O)/obj/gen/%.pb-c.o: $(O)/gen/%.pb-c.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -w -c $< -o $@
endif

$(O)/tracectl: $(call obj,$(CLI_SRCS) $(LIB_SRCS)) $(PPROF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PPROF_LIBS) $(CLI_LIBS)

# the reference programs `bench trigger --peers` measures tracerd against
$(O)/tracerd-ref: $(O)/obj/ref/ref.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# test programs: tests/prog/NAME.c -> $(O)/tests/NAME (BPF loaders, helpers)
TEST_PROG_SRCS := $(wildcard $(SRC)/tests/prog/*.c)
TEST_PROGS := $(patsubst $(SRC)/tests/prog/%.c,$(O)/tests/%,$(TEST_PROG_SRCS))
$(O)/tests/%: $(O)/obj/tests/prog/%.o $(call obj,$(LIB_SRCS))
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

# LD_PRELOAD shims of the guest tests: tests/preload/NAME.c -> $(O)/tests/NAME.so
TEST_SO_SRCS := $(wildcard $(SRC)/tests/preload/*.c)
TEST_SOS := $(patsubst $(SRC)/tests/preload/%.c,$(O)/tests/%.so,$(TEST_SO_SRCS))
$(O)/tests/%.so: $(SRC)/tests/preload/%.c $(SRC)/include/tracerd/kmod_abi.h
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

# unit tests: tests/unit/test_*.c, each linked with lib/ and the framework
UNIT_SRCS := $(wildcard $(SRC)/tests/unit/test_*.c)
UNIT_BINS := $(patsubst $(SRC)/tests/unit/%.c,$(O)/tests/unit/%,$(UNIT_SRCS))
$(O)/tests/unit/%: $(O)/obj/tests/unit/%.o $(call obj,$(LIB_SRCS))
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)
# a unit test of a daemon file links that file too
$(O)/tests/unit/test_args: $(call obj,$(SRC)/daemon/args.c)
$(O)/tests/unit/test_btfargs: $(call obj,$(SRC)/daemon/btfargs.c)
$(O)/tests/unit/test_fds: $(call obj,$(SRC)/daemon/fds.c)
# the registry alone: the test file fakes the backends, maps, resolve and recorder
$(O)/tests/unit/test_registry: $(call obj,$(SRC)/daemon/registry.c $(SRC)/daemon/hook.c \
	$(SRC)/daemon/worker.c)
# and of a cli file
$(O)/tests/unit/test_bench_hooks: $(call obj,$(SRC)/cli/bench_hooks.c)

# ---------------------------------------------------------------- fuzzers
# tests/fuzz/NAME/fuzz_NAME.c -> $(O)/fuzz/fuzz_NAME: libFuzzer + ASan + UBSan
# (clang), linked with lib/ built the same way, plus FUZZ_EXTRA_NAME sources.
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -std=gnu11 -Wall -Wextra \
	-Wno-unused-parameter -D_GNU_SOURCE -DTRACERD_VERSION='"$(VERSION)"' -I$(SRC)/include
FUZZ_NAMES := $(patsubst $(SRC)/tests/fuzz/%/,%,$(dir $(wildcard $(SRC)/tests/fuzz/*/fuzz_*.c)))
FUZZ_BINS := $(patsubst %,$(O)/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_EXTRA_record := cli/dump.c
FUZZ_EXTRA_http := daemon/http.c daemon/fds.c
fuzz_obj = $(patsubst $(SRC)/%.c,$(O)/fuzz/obj/%.o,$(1))
FUZZ_SECONDS ?= 120

$(O)/fuzz/obj/%.o: $(SRC)/%.c
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

.SECONDEXPANSION:
$(O)/fuzz/fuzz_%: $(O)/fuzz/obj/tests/fuzz/$$*/fuzz_$$*.o $(call fuzz_obj,$(LIB_SRCS)) \
		$$(call fuzz_obj,$$(addprefix $(SRC)/,$$(FUZZ_EXTRA_$$*)))
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(DAEMON_LIBS)

# ---------------------------------------------------------------- kernel modules
# Kbuild writes next to its sources, so we point M= at a directory of links
# under $(O). KDIR default: the running kernel's build tree, else the 6.12
# test kernel's headers (fetched on demand).
HOST_KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
KDIR ?= $(if $(HOST_KDIR),$(HOST_KDIR),$(O)/vm/k/6.12/kdir-link)
KMOD_OUT ?= $(O)/kmod
override KMOD_OUT := $(abspath $(KMOD_OUT))
# kmod/arch/ is linked as a directory: arch.h includes "arch/<arch>.h"
KMOD_SRCS := $(wildcard $(SRC)/kmod/*.c $(SRC)/kmod/*.h $(SRC)/kmod/*.S $(SRC)/kmod/Kbuild) \
	$(SRC)/kmod/arch
TESTMOD_SRCS := $(wildcard $(SRC)/tests/kmod/*.c $(SRC)/tests/kmod/Kbuild)

$(O)/vm/k/6.12/kdir-link:
	$(Q)$(SRC)/tests/vm/fetch-kernel.sh 6.12 $(O)/vm/k/6.12
	$(Q)ln -sfn "$$(cat $(O)/vm/k/6.12/kdir)" $@

# kbuild-module DIR, SOURCES: link sources into DIR and run kbuild there
# (scripts/kbuild-module.sh also checks every .ko carries .BTF).
kbuild-module = $(Q)V=$(V) KBUILD_ARCH_ARGS="$(KBUILD_ARCH_ARGS)" $(SRC)/scripts/kbuild-module.sh $(1) $(KDIR) $(SRC) $(2)

# kbuild runs every time (FORCE): its own dependency tracking knows exactly
# which headers each module uses; the copy below only changes on a rebuild.
$(KMOD_OUT)/tracerd_kmod.ko: FORCE | $(if $(filter $(O)/vm/k/6.12/kdir-link,$(KDIR)),$(KDIR))
	$(call kbuild-module,$(KMOD_OUT)/tracerd_kmod,$(KMOD_SRCS))
	$(Q)cmp -s $(KMOD_OUT)/tracerd_kmod/tracerd_kmod.ko $@ || \
		{ cp $(KMOD_OUT)/tracerd_kmod/tracerd_kmod.ko $@ && printf '  %-8s %s\n' KBUILD $(notdir $@); }

$(KMOD_OUT)/tracerd_testmod.ko: FORCE | $(if $(filter $(O)/vm/k/6.12/kdir-link,$(KDIR)),$(KDIR))
	$(call kbuild-module,$(KMOD_OUT)/tracerd_testmod,$(TESTMOD_SRCS))
	$(Q)cmp -s $(KMOD_OUT)/tracerd_testmod/tracerd_testmod.ko $@ || \
		{ cp $(KMOD_OUT)/tracerd_testmod/tracerd_testmod.ko $@ && printf '  %-8s %s\n' KBUILD $(notdir $@); }

# ---------------------------------------------------------------- top-level
PROGS := $(O)/tracerd $(O)/tracectl $(O)/tracerd-ref
USER_BINS := $(PROGS) $(TEST_PROGS) $(TEST_SOS) $(UNIT_BINS)
KMODS := $(KMOD_OUT)/tracerd_kmod.ko $(KMOD_OUT)/tracerd_testmod.ko

.PHONY: FORCE
FORCE:
.PHONY: all user progs bpf kmod deps check check-full check-full-part check-full-status unit host vm-check demo demo-all clean distclean help \
	install install-nobuild install-dkms uninstall uninstall-dkms deb check-version \
	fuzz fuzz-bins fuzz-ci sanitize-check

all: user kmod
user: $(USER_BINS)
# progs: what `make install` and the Debian package ship (no test programs)
progs: $(PROGS)
bpf: $(BPF_SKELS)
kmod: $(KMODS)

deps:
	$(Q)$(SRC)/scripts/deps.sh

PROFILE ?= ci
export PROFILE O SRC

unit: $(UNIT_BINS)
	$(Q)$(SRC)/tests/run-layer.sh unit

host: user
	$(Q)$(SRC)/tests/run-layer.sh host

# fuzz-ci: the check layer (PROFILE sets the budget, tests/run-layer.sh);
# fuzz: FUZZ_SECONDS per target, corpus kept in $(O)/fuzz/corpus/NAME
fuzz-bins: $(FUZZ_BINS)
fuzz-ci: fuzz-bins
	$(Q)$(SRC)/tests/run-layer.sh fuzz
fuzz: deps
	$(Q)$(MAKE) --no-print-directory fuzz-bins
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) $(SRC)/tests/run-layer.sh fuzz

# deps first, then the build (a recipe step, not a prerequisite beside deps:
# under -j they would race on a fresh machine)
vm-check: deps
	$(Q)$(MAKE) --no-print-directory user
	$(Q)$(SRC)/tests/vm/vm-check.sh $(VM_KERNEL)

# check: every layer runs even when an earlier one failed; the summary
# decides (and prints the 'N passed, N failed' line CI reads). The VM
# layer's downloads and debootstraps (tests/vm/prefetch.sh) run in the
# background beside the unit, host and fuzz layers.
# SANITIZE=1: unit and host layers only, ASan+UBSan binaries in build/asan.
check: deps
	$(Q)rm -rf $(O)/results
ifeq ($(SANITIZE),1)
	$(Q)$(MAKE) --no-print-directory user
	-$(Q)$(MAKE) --no-print-directory unit
	-$(Q)$(MAKE) --no-print-directory host
	$(Q)SUMMARY_LAYERS="unit host" $(SRC)/tests/summary.sh
else
	$(Q)$(MAKE) --no-print-directory all
	$(Q)mkdir -p $(O)/vm && { $(SRC)/tests/vm/prefetch.sh $(VM_KERNEL) > $(O)/vm/prefetch.log 2>&1 & }
	-$(Q)$(MAKE) --no-print-directory unit
	-$(Q)$(MAKE) --no-print-directory host
	-$(Q)$(MAKE) --no-print-directory sanitize-check
	-$(Q)$(MAKE) --no-print-directory fuzz-ci
	-$(Q)$(MAKE) --no-print-directory vm-check
	$(Q)$(SRC)/tests/summary.sh
endif

# sanitize-check: the unit and host layers again with ASan+UBSan binaries
# built in $(O)/asan; their results join this check as asan-unit, asan-host.
sanitize-check:
	$(Q)rm -rf $(O)/asan/results
	-$(Q)$(MAKE) --no-print-directory SANITIZE=1 O=$(O)/asan user
	-$(Q)$(MAKE) --no-print-directory SANITIZE=1 O=$(O)/asan unit
	-$(Q)$(MAKE) --no-print-directory SANITIZE=1 O=$(O)/asan host
	$(Q)mkdir -p $(O)/results && for l in unit host; do \
		[ ! -f $(O)/asan/results/$$l.tsv ] || \
		sed "s|^$$l/|asan-$$l/|" $(O)/asan/results/$$l.tsv > $(O)/results/asan-$$l.tsv; done

# check-full: `make check` at the full sizes, in parts of at most about an
# hour each (tests/check-full.sh list; tests/vm/README.md, "check-full in
# parts"), each part's result recorded with the git tree it ran on under
# $(O)/check-full/. PART=name (or check-full-part) runs one part, PART="a b"
# those; without PART every part runs in order, then the summary line of
# all of them. check-full-status: which parts passed on which tree; exits
# non-zero unless every part passed on HEAD's tree.
check-full: deps
	$(Q)MAKE="$(MAKE)" $(SRC)/tests/check-full.sh run $(PART)

check-full-part:
	$(Q)[ -n "$(PART)" ] || { echo "check-full-part: PART=name, one of:" >&2; \
		$(SRC)/tests/check-full.sh list >&2; exit 2; }
	$(Q)$(MAKE) --no-print-directory check-full PART="$(PART)"

check-full-status:
	$(Q)$(SRC)/tests/check-full.sh status

# demo: minutes, on this kernel when it allows every path, else 6.12 in
# the test VM; demo-all: the seven test kernels at the full sizes, its
# expected time first (tests/vm/demo.sh; tests/vm/README.md)
# (demo.sh builds user space itself, beside the VM cache's downloads)
demo: deps
	$(Q)MAKE="$(MAKE)" $(SRC)/tests/vm/demo.sh

demo-all: deps
	$(Q)MAKE="$(MAKE)" DEMO_ALL=1 $(SRC)/tests/vm/demo.sh

# ---------------------------------------------------------------- install
# make install [DESTDIR=...] [PREFIX=/usr/local]: binaries, systemd unit,
# default config (kept if present), man pages, bash completion, docs, the
# monitoring package (Prometheus rules, Grafana dashboard) and,
# when it was built, the module (+ depmod when DESTDIR is empty).
# The module goes under /lib/modules/KVER/extra of the kernel it was built
# for (its vermagic; KDIR picks the tree), and install says which. Without
# DESTDIR, a module built for another kernel than the running one (KDIR
# fell back to the test kernel's headers) is refused unless KVER= names
# that kernel; KVER= that is not the module's kernel is always refused.
# make install-dkms: module sources + dkms.conf under $(PREFIX)/src.
# make uninstall [DESTDIR=] [PREFIX=] [KVER=]: removes what install put
# there, except a tracerd.conf that differs from the shipped one and any
# conf.d/ drop-in (said so); directories shared with other software (bin,
# man/man8, lib/systemd/system, lib/modules/KVER, ...) stay.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/tracerd
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DKMSDIR ?= $(PREFIX)/src/tracerd-$(VERSION)
KMOD_KVER = $(shell modinfo -F vermagic $(KMOD_OUT)/tracerd_kmod.ko 2>/dev/null | cut -d' ' -f1)
RUNNING_KVER ?= $(shell uname -r)
subst_paths = sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g'
MAN_PAGES := $(notdir $(wildcard $(SRC)/docs/man/*.[58]))
DOC_FILES := $(SRC)/docs/metrics.md $(SRC)/docs/metrics.schema.json \
	$(SRC)/docs/protocol.md $(SRC)/docs/fleet.md $(SRC)/systemd/tracerd-modules-load.conf
MON_FILES := $(wildcard $(SRC)/monitoring/*.yml $(SRC)/monitoring/*.json)
CONF := $(DESTDIR)$(SYSCONFDIR)/tracerd/tracerd.conf

# install: the build tools first (scripts/deps.sh build; quiet when present)
install:
	$(Q)$(SRC)/scripts/deps.sh build
	$(Q)$(MAKE) --no-print-directory progs
	$(Q)$(MAKE) --no-print-directory install-nobuild
# install-nobuild: what is built already (the VM harness stages it this way)
# The module check runs first: a refused module installs nothing at all.
install-nobuild:
	$(Q)kv="$(KMOD_KVER)"; \
	if [ -n "$$kv" ] && [ -n "$(KVER)" ] && [ "$(KVER)" != "$$kv" ]; then \
		echo "install: $(KMOD_OUT)/tracerd_kmod.ko is built for kernel $$kv, not KVER=$(KVER);" \
			"rebuild it with KDIR=/lib/modules/$(KVER)/build (make kmod), or use make install-dkms" >&2; exit 1; fi; \
	if [ -n "$$kv" ] && [ -z "$(DESTDIR)" ] && [ -z "$(KVER)" ] && [ "$$kv" != "$(RUNNING_KVER)" ]; then \
		echo "install: $(KMOD_OUT)/tracerd_kmod.ko is built for kernel $$kv (KDIR=$(KDIR))," \
			"not the running kernel $(RUNNING_KVER): refusing to install it under /lib/modules/$$kv." \
			"KVER=$$kv installs it there anyway; KDIR=/lib/modules/$(RUNNING_KVER)/build make kmod" \
			"builds it for this kernel; make install-dkms builds it for every installed kernel" >&2; exit 1; fi
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSCONFDIR)/tracerd $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(Q)install -m 0755 $(O)/tracerd $(DESTDIR)$(SBINDIR)/tracerd
	$(Q)install -m 0755 $(O)/tracectl $(DESTDIR)$(BINDIR)/tracectl
	$(Q)install -D -m 0755 $(O)/tracerd-ref $(DESTDIR)$(PREFIX)/lib/tracerd/tracerd-ref
	$(Q)$(subst_paths) $(SRC)/systemd/tracerd.service.in > $(DESTDIR)$(UNITDIR)/tracerd.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/tracerd.service
	$(Q)install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/tracerd/conf.d
	$(Q)[ -e $(CONF) ] || install -m 0644 $(SRC)/systemd/tracerd.conf $(CONF)
	$(Q)for m in $(MAN_PAGES); do \
		$(subst_paths) $(SRC)/docs/man/$$m > $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done
	$(Q)install -m 0644 $(SRC)/cli/tracectl.bash $(DESTDIR)$(BASHCOMPDIR)/tracectl
	$(Q)install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(Q)install -d $(DESTDIR)$(DOCDIR)/monitoring
	$(Q)install -m 0644 $(MON_FILES) $(DESTDIR)$(DOCDIR)/monitoring/
	$(Q)kv="$(KMOD_KVER)"; if [ -n "$$kv" ]; then \
		echo "install: tracerd_kmod.ko for kernel $$kv -> $(DESTDIR)/lib/modules/$$kv/extra/tracerd_kmod.ko"; \
		install -D -m 0644 $(KMOD_OUT)/tracerd_kmod.ko \
			$(DESTDIR)/lib/modules/$$kv/extra/tracerd_kmod.ko; \
		[ -n "$(DESTDIR)" ] || depmod -a $$kv; \
	else echo "install: no $(KMOD_OUT)/tracerd_kmod.ko built, module not installed"; fi

# uninstall: the module of kernel KVER (default: the built module's kernel,
# else the running one)
uninstall:
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/tracerd $(DESTDIR)$(BINDIR)/tracectl \
		$(DESTDIR)$(PREFIX)/lib/tracerd/tracerd-ref $(DESTDIR)$(UNITDIR)/tracerd.service \
		$(foreach m,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(m)) \
		$(DESTDIR)$(BASHCOMPDIR)/tracectl \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES))) \
		$(addprefix $(DESTDIR)$(DOCDIR)/monitoring/,$(notdir $(MON_FILES)))
	$(Q)if [ -e $(CONF) ]; then \
		if cmp -s $(SRC)/systemd/tracerd.conf $(CONF); then rm -f $(CONF); \
		else echo "uninstall: keeping $(CONF): it differs from the shipped one"; fi; fi
	$(Q)for f in $(DESTDIR)$(SYSCONFDIR)/tracerd/conf.d/*; do \
		[ ! -e "$$f" ] || echo "uninstall: keeping the drop-in $$f"; done
	$(Q)for d in $(DESTDIR)$(SYSCONFDIR)/tracerd/conf.d $(DESTDIR)$(SYSCONFDIR)/tracerd \
		$(DESTDIR)$(DOCDIR)/monitoring $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PREFIX)/lib/tracerd; do \
		[ ! -d $$d ] || rmdir --ignore-fail-on-non-empty $$d; done
	$(Q)kv="$(or $(KVER),$(KMOD_KVER),$(RUNNING_KVER))"; \
	ko=$(DESTDIR)/lib/modules/$$kv/extra/tracerd_kmod.ko; \
	if [ -e $$ko ]; then echo "uninstall: removing $$ko"; rm -f $$ko; \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)/lib/modules/$$kv/extra; \
		[ -n "$(DESTDIR)" ] || depmod -a $$kv; \
	else echo "uninstall: no module for kernel $$kv ($$ko)"; fi

install-dkms:
	$(Q)install -d $(DESTDIR)$(DKMSDIR)/kmod/arch $(DESTDIR)$(DKMSDIR)/include/tracerd
	$(Q)install -m 0644 $(SRC)/kmod/Kbuild $(wildcard $(SRC)/kmod/*.c $(SRC)/kmod/*.h $(SRC)/kmod/*.S) \
		$(DESTDIR)$(DKMSDIR)/kmod/
	$(Q)install -m 0644 $(wildcard $(SRC)/kmod/arch/*.h) $(DESTDIR)$(DKMSDIR)/kmod/arch/
	$(Q)install -m 0644 $(SRC)/include/tracerd/*.h $(DESTDIR)$(DKMSDIR)/include/tracerd/
	$(Q)install -m 0644 $(SRC)/VERSION $(DESTDIR)$(DKMSDIR)/VERSION
	$(Q)$(subst_paths) $(SRC)/systemd/dkms.conf.in > $(DESTDIR)$(DKMSDIR)/dkms.conf
# uninstall-dkms: the sources only (`dkms remove tracerd/VERSION --all` first)
uninstall-dkms:
	$(Q)rm -rf $(DESTDIR)$(DKMSDIR)

# deb: tracerd and tracerd-dkms .debs in $(O)/deb, built by
# dpkg-buildpackage from a copy of the checkout (scripts/build-deb.sh)
# (installs what it needs first, as check and demo do: the build tools and
# the packaging tools, scripts/deps.sh deb)
deb: deps
	$(Q)$(SRC)/scripts/deps.sh deb
	$(Q)$(SRC)/scripts/build-deb.sh $(O)/deb

# check-version: VERSION, debian/changelog and the built module agree
check-version:
	$(Q)$(SRC)/scripts/check-version.sh $(KMOD_OUT)/tracerd_kmod.ko

clean:
	rm -rf $(O)/obj $(O)/gen $(O)/bpf $(O)/tests $(O)/kmod $(O)/tracerd $(O)/tracectl $(O)/results \
		$(O)/fuzz/obj $(FUZZ_BINS)
distclean:
	rm -rf $(O)

-include $(shell find $(O)/obj $(O)/bpf $(O)/fuzz/obj -name '*.d' 2>/dev/null)
