# dcbpf — build, test, demo, benchmark, install.
#
#   make            objects, skeletons, dcbpfd, dcbpf, test tools
#   make deps       install the Debian packages needed (idempotent; root)
#   make check      the test suite (root); closes with "N passed, N failed"
#   make demo       emulated dumbbell, CC comparison table and plot (root)
#   make bench      benchmarks → out/bench/summary.json
#   make vm-check   the suite inside a VM on another kernel (KERNEL=6.1)
#   make ethereal-results  collective completion times → out/ethereal/
#   make install    binaries, config, systemd unit (PREFIX, DESTDIR)

BUILD   ?= build
OUT     ?= out
PREFIX  ?= /usr/local
SYSCONFDIR ?= /etc
KERNEL  ?= 6.1
DESTDIR ?=

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool

# Minimum versions: libbpf 1.1 (struct_ops maps, open_mem opts), bpftool 7
# (skeletons with embedded ELF bytes).
LIBBPF_MIN  := 1.1
BPFTOOL_MIN := 7

DEB_PKGS := make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	    libinih-dev pkg-config iproute2 iputils-ping iperf3 ethtool jq gnuplot-nox \
	    tshark bc

CFLAGS  ?= -O2 -g
CFLAGS  += -Wall -Wextra -std=gnu11 -Iinclude -I. -I$(BUILD)
LDLIBS_BPF := -lbpf -lelf -lz
LDLIBS_LOADER := $(LDLIBS_BPF) -linih -lm

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
	      -I$(BUILD) -Iinclude -I.

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
# The congestion controls also build for the 6.1 cong_control ABI.
BPF_OBJS  += $(BUILD)/powertcp_v61.bpf.o
SKELS     := $(patsubst $(BUILD)/%.bpf.o,$(BUILD)/%.skel.h,$(BPF_OBJS))

LOADER_MAINS  := loader/dcbpfd.c loader/dcbpf.c
LOADER_COMMON := $(filter-out $(LOADER_MAINS),$(wildcard loader/*.c))
LOADER_HDRS   := $(wildcard loader/*.h)

TOOLS      := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*.c))
PROG_TESTS := $(patsubst tests/prog/%.c,$(BUILD)/prog/%,$(wildcard tests/prog/*.c))
BENCHES    := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))
HDRS       := $(wildcard include/dcbpf/*.h maps/*.h bpf/lib/*.h)

BINS := $(if $(wildcard loader/dcbpfd.c),$(BUILD)/dcbpfd) \
	$(if $(wildcard loader/dcbpf.c),$(BUILD)/dcbpf)

.PHONY: all deps probe check demo bench vm-check install uninstall clean ethereal-results

all: probe $(BPF_OBJS) $(SKELS) $(BINS) $(TOOLS) $(UNIT_TESTS) $(PROG_TESTS) $(BENCHES)

# ---- dependencies ---------------------------------------------------------
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "missing Debian packages: $$missing — run 'sudo make deps'" >&2; exit 1; \
		fi; \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# Feature probe: fail early with a clear message where tools are too old.
probe: deps
	@v=$$(pkg-config --modversion libbpf 2>/dev/null) || { echo "libbpf not found: install libbpf-dev (make deps)" >&2; exit 1; }; \
	if [ "$$(printf '%s\n%s\n' $(LIBBPF_MIN) $$v | sort -V | head -n1)" != "$(LIBBPF_MIN)" ]; then \
		echo "libbpf $$v is too old: dcbpf needs >= $(LIBBPF_MIN)" >&2; exit 1; fi; \
	b=$$($(BPFTOOL) version 2>/dev/null | sed -n 's/^bpftool v\([0-9]*\).*/\1/p'); \
	if [ -z "$$b" ] || [ "$$b" -lt $(BPFTOOL_MIN) ]; then \
		echo "bpftool '$$b' is missing or too old: dcbpf needs v$(BPFTOOL_MIN)+ (make deps)" >&2; exit 1; fi; \
	echo 'int x;' | $(CLANG) -target bpf -x c -c -o /dev/null - 2>/dev/null || \
		{ echo "$(CLANG) cannot target BPF: install clang/llvm (make deps)" >&2; exit 1; }; \
	[ -r /sys/kernel/btf/vmlinux ] || { echo "kernel BTF missing (/sys/kernel/btf/vmlinux): a kernel with CONFIG_DEBUG_INFO_BTF is required" >&2; exit 1; }

# ---- BPF objects and skeletons ---------------------------------------------
$(BUILD)/vmlinux.h: | $(BUILD)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/powertcp_v61.bpf.o: bpf/powertcp.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -DDC_CC_ABI_V61 -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# ---- user space -------------------------------------------------------------
$(BUILD)/dcbpfd: loader/dcbpfd.c $(LOADER_COMMON) $(LOADER_HDRS) $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) -o $@ loader/dcbpfd.c $(LOADER_COMMON) $(LDLIBS_LOADER)

$(BUILD)/dcbpf: loader/dcbpf.c $(LOADER_COMMON) $(LOADER_HDRS) $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) -o $@ loader/dcbpf.c $(LOADER_COMMON) $(LDLIBS_LOADER)

$(BUILD)/tools/%: tests/tools/%.c $(HDRS) | $(BUILD)/tools
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS_BPF)

# Host unit tests run with the undefined-behaviour sanitizer: overflow in
# the fixed-point code must be found here, not in the kernel.  Order-only on
# the skeletons: the loader sources a test compiles include them.
$(BUILD)/tests/%: tests/unit/%.c $(HDRS) $(LOADER_COMMON) $(LOADER_HDRS) tests/lib/check.h | $(BUILD)/tests $(SKELS)
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(if $(findstring config,$*),$(LOADER_COMMON) $(LDLIBS_LOADER)) -lm

# Program fixtures (BPF_PROG_TEST_RUN): need root, run by tests/run.
$(BUILD)/prog/%: tests/prog/%.c $(HDRS) $(SKELS) tests/lib/check.h | $(BUILD)/prog
	$(CC) $(CFLAGS) -Itests/lib -o $@ $< $(LDLIBS_BPF)

$(BUILD)/bench/%: tests/bench/%.c $(HDRS) $(SKELS) | $(BUILD)/bench
	$(CC) $(CFLAGS) -O2 -o $@ $< $(LDLIBS_BPF)

$(BUILD) $(BUILD)/tools $(BUILD)/tests $(BUILD)/prog $(BUILD)/bench:
	mkdir -p $@

# ---- running ------------------------------------------------------------------
check: all
	BUILD=$(BUILD) OUT=$(OUT) tests/run

demo: all
	BUILD=$(BUILD) OUT=$(OUT)/demo tests/demo/run

bench: all
	BUILD=$(BUILD) OUT=$(OUT)/bench tests/bench/run

# Ethereal results (tests/exp/ethereal, docs/collective.md): one batch of
# ETH_SEEDS_PER seeds per (rate, CC) at a time under the shared netns lock,
# then the summary, table and plot in $(OUT)/ethereal.
ETH_RATES ?= 1000
ETH_CCS   ?= dctcp powertcp
ETH_SEEDS ?= 10
ETH_SEEDS_PER ?= 5
ethereal-results: all
	rm -f $(OUT)/ethereal/runs.jsonl
	for r in $(ETH_RATES); do for cc in $(ETH_CCS); do \
		s=1; while [ $$s -le $(ETH_SEEDS) ]; do \
			flock /tmp/dcbpf-netns.lock env BUILD=$(BUILD) OUT=$(OUT)/ethereal RATE=$$r CC=$$cc \
				SEED0=$$s SEEDS=$(ETH_SEEDS_PER) tests/exp/ethereal || exit 1; \
			s=$$((s + $(ETH_SEEDS_PER))); \
		done; done; done
	OUT=$(OUT)/ethereal tests/exp/ethereal-summary

vm-check: all
	vm/run --kernel $(KERNEL) --out $(OUT)/vm -- env BUILD=$(BUILD) OUT=$(OUT)/vm tests/run

install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(SYSCONFDIR)/dcbpf \
		$(DESTDIR)$(PREFIX)/lib/dcbpf $(DESTDIR)/lib/systemd/system \
		$(DESTDIR)$(PREFIX)/share/dcbpf
	install -m 0755 $(BUILD)/dcbpfd $(BUILD)/dcbpf $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(BPF_OBJS) $(DESTDIR)$(PREFIX)/lib/dcbpf/
	install -m 0644 loader/wireshark/dcbpf_int.lua loader/dcbpfd.conf.example \
		$(DESTDIR)$(PREFIX)/share/dcbpf/
	[ -e $(DESTDIR)$(SYSCONFDIR)/dcbpf/dcbpfd.conf ] || \
		install -m 0600 loader/dcbpfd.conf.example $(DESTDIR)$(SYSCONFDIR)/dcbpf/dcbpfd.conf
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' loader/dcbpfd.service.in \
		> $(DESTDIR)/lib/systemd/system/dcbpfd.service

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/dcbpfd $(DESTDIR)$(PREFIX)/sbin/dcbpf \
		$(DESTDIR)/lib/systemd/system/dcbpfd.service
	rm -rf $(DESTDIR)$(PREFIX)/lib/dcbpf $(DESTDIR)$(PREFIX)/share/dcbpf

clean:
	rm -rf $(BUILD) $(OUT)

# ---- switch buffer sharing (bpf/switch.bpf.c, loader/sim.c) ------------------
# The switch tracker swaps and compares map words atomically (xchg,
# cmpxchg): BPF ISA v3.
$(BUILD)/switch.bpf.o: BPF_CFLAGS += -mcpu=v3
# Ethereal's flow state changes by compare-and-swap (LRU hash values hold
# no spin lock): BPF ISA v3 as well.
$(BUILD)/ethereal.bpf.o: BPF_CFLAGS += -mcpu=v3
# The simulator tests link the engine (libc only).
# Credence's model file and trainer link with it (libc and libm only).
SIM_SRCS := loader/sim.c loader/forest.c loader/credtrain.c loader/json.c
$(BUILD)/tests/test_sim $(BUILD)/tests/test_credence $(BUILD)/tests/test_forest: $(BUILD)/tests/test_%: tests/unit/test_%.c $(SIM_SRCS) loader/sim.h loader/forest.h loader/cli.h $(HDRS) tests/lib/check.h | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(SIM_SRCS) -lm
# BPF_PROG_TEST_RUN fixtures of the XDP admission program (root; libbpf).
$(BUILD)/tests/test_xdp_admit: tests/unit/test_xdp_admit.c $(BUILD)/switch.skel.h $(HDRS) tests/lib/check.h | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ tests/unit/test_xdp_admit.c $(LDLIBS_BPF)
$(BUILD)/bench/xdp_admit: $(BUILD)/switch.skel.h tests/lib/swfixture.h

# ---- fuzzing (libFuzzer; tests/fuzz/*.c) ---------------------------------------
# `make fuzz` builds the harnesses with clang's libFuzzer and sanitizers
# into $(BUILD)/fuzz/ and runs each for FUZZ_SECONDS; `make check` runs
# them for 10 s each (tests/loader/fuzz_smoke.sh).  Not part of `all`.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	       -Wall -Wextra -std=gnu11 -Iinclude -I. -I$(BUILD)
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/*.c))
.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZERS)
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=$(BUILD) OUT=$(OUT) CLANG=$(CLANG) bash tests/loader/fuzz_smoke.sh
$(BUILD)/fuzz/fuzz_config: tests/fuzz/fuzz_config.c loader/config.c $(LOADER_HDRS) $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_config.c loader/config.c -linih
$(BUILD)/fuzz/fuzz_model: tests/fuzz/fuzz_model.c loader/forest.c loader/forest.h $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_model.c loader/forest.c
$(BUILD)/fuzz/%: tests/fuzz/%.c $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $<
$(BUILD)/fuzz:
	mkdir -p $@

# ---- Credence in XDP -------------------------------------------------------------
# Test object: the XDP forest evaluator alone (tests/prog/bpf/), for the
# BPF-versus-host equality test.  Not installed.
$(BUILD)/rf_eval.bpf.o: tests/prog/bpf/rf_eval.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(BUILD)/prog/test_forest_prog: $(BUILD)/rf_eval.skel.h tests/lib/rfgen.h
$(BUILD)/prog/test_cred_xdp: $(BUILD)/switch.skel.h tests/lib/rfgen.h tests/lib/swfixture.h
$(BUILD)/bench/xdp_admit: tests/lib/rfgen.h
$(BUILD)/tests/test_vlqd: tests/lib/rfgen.h
# test_config links the loader sources, which include the skeletons.
$(BUILD)/tests/test_config: $(SKELS)
