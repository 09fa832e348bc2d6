# dcbpf — build, test, demo, benchmark, install.
#
#   make            objects, skeletons, dcbpfd, dcbpf, test tools
#   make deps       install the Debian packages needed (idempotent; root):
#                   deps-build (compilers, libraries) and deps-test (tools the
#                   suite, demo and benchmarks run)
#   make check      the test suite (root); closes with "N passed, N failed"
#   make demo       emulated dumbbell, CC comparison table and plot (root)
#   make bench      benchmarks → out/bench/summary.json (BENCH_RUNS=3 runs:
#                   median, min, max); make bench-compare BASE=FILE
#   make vm-check   the suite inside a VM on another kernel (KERNEL=6.1)
#   make ethereal-results  collective completion times → out/ethereal/
#   make install    binaries, config, systemd unit, man pages (PREFIX, DESTDIR,
#                   SYSTEMDUNITDIR); needs only the build dependencies
#   make deb        a Debian package in $(OUT)/ (dpkg-deb; no debhelper)

# A bare `make` is `make all` (the version stamp's rule comes first).
.DEFAULT_GOAL := all

# One job per CPU unless the command line says how many (-j1 builds
# serially): `make check` on a fresh clone spent half its build time on one
# core of two.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

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

# Build: compile the objects, skeletons and binaries (make, make install,
# make deb).  Test: what tests/, the demo and the benchmarks run besides
# them (systemd for systemd-analyze, prometheus for promtool, python3 to
# play the service manager in the readiness test).
DEB_PKGS_BUILD := make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	    libinih-dev pkg-config
DEB_PKGS_TEST := iproute2 iputils-ping iperf3 ethtool jq gnuplot-nox tshark bc \
	    python3 systemd lua5.2 lua5.4
DEB_PKGS := $(DEB_PKGS_BUILD) $(DEB_PKGS_TEST)

CFLAGS  ?= -O2 -g
CFLAGS  += -Wall -Wextra -std=gnu11 -Iinclude -I. -I$(BUILD) -iquote loader -iquote loader/lib
LDLIBS_BPF := -lbpf -lelf -lz
LDLIBS_LOADER := $(LDLIBS_BPF) -linih -lm

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
	      -I$(BUILD) -Iinclude -I.

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
# The congestion controls also build for the 6.1 cong_control ABI.
BPF_OBJS  += $(BUILD)/powertcp_v61.bpf.o $(BUILD)/baseline_v61.bpf.o $(BUILD)/perc_cc_v61.bpf.o
SKELS     := $(patsubst $(BUILD)/%.bpf.o,$(BUILD)/%.skel.h,$(BPF_OBJS))

# User space (loader/, see its README): loader/lib/ is the static library;
# the domain folders (and files still at the top) link into both binaries;
# loader/dcbpfd/ only into the daemon and loader/cmd/ only into the CLI.
# Sources include lib headers by bare name and domain headers by folder
# ("sw/swctl.h"); loader/README.md lists the folders.
DCBPFD_SRCS   := $(wildcard loader/dcbpfd/*.c)
DCBPF_SRCS    := $(wildcard loader/cmd/*.c)
LOADER_MAINS  := $(DCBPFD_SRCS) $(DCBPF_SRCS)
LOADER_COMMON := $(filter-out $(LOADER_MAINS) loader/lib/%,$(wildcard loader/*.c loader/*/*.c))
LOADER_HDRS   := $(wildcard loader/*.h loader/*/*.h)

# ---- version (loader/version.h) ---------------------------------------------
# The release, the tree it was built from and the features built in reach
# loader/version.c as -D options; $(BUILD)/version.txt changes only when one
# of them does, so a new commit relinks the binaries and nothing else.
VERSION  := 0.2.0
GIT_DESC := $(shell git -C $(CURDIR) describe --always --dirty 2>/dev/null || echo unknown)
# Feature words: the congestion-control ABIs built (cong_control with 4
# arguments, 6.10+; with 2, 6.1-6.9), the BPF objects built, the Wireshark
# dissector shipped.
DCBPF_FEATURES := $(if $(filter $(BUILD)/powertcp.bpf.o,$(BPF_OBJS)),cc-abi-6.10) \
	$(if $(filter $(BUILD)/powertcp_v61.bpf.o,$(BPF_OBJS)),cc-abi-6.1) \
	$(sort $(patsubst $(BUILD)/%.bpf.o,bpf-%,$(filter-out $(BUILD)/%_v61.bpf.o,$(BPF_OBJS)))) \
	$(if $(wildcard loader/wireshark/dcbpf_int.lua),wireshark-dissector) \
	$(if $(wildcard loader/metrics/metrics.c),prometheus-metrics)
DCBPF_FEATURES := $(strip $(DCBPF_FEATURES))
VERSION_DEFS := -DDCBPF_VERSION='"$(VERSION)"' -DDCBPF_GIT='"$(GIT_DESC)"' \
	-DDCBPF_FEATURES='"$(DCBPF_FEATURES)"'
CFLAGS += $(VERSION_DEFS)
VERSION_STAMP := $(BUILD)/version.txt
.PHONY: FORCE
$(VERSION_STAMP): FORCE | $(BUILD)
	@echo '$(VERSION) $(GIT_DESC) $(DCBPF_FEATURES)' > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

TOOLS      := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*.c))
PROG_TESTS := $(patsubst tests/prog/%.c,$(BUILD)/prog/%,$(wildcard tests/prog/*.c))
BENCHES    := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))
HDRS       := $(wildcard include/dcbpf/*.h maps/*.h bpf/lib/*.h)
# What the tests, fixtures and benches share (tests/lib/).
TEST_HDRS  := $(wildcard tests/lib/*.h)

BINS := $(if $(DCBPFD_SRCS),$(BUILD)/dcbpfd) $(if $(DCBPF_SRCS),$(BUILD)/dcbpf)
# Generated from dcbpf's command table: bash completion and man page.
DCBPF_GEN := $(if $(DCBPF_SRCS),$(BUILD)/dcbpf.bash $(BUILD)/dcbpf.8)

.PHONY: all deps deps-build deps-test probe check demo bench bench-compare vm-check install uninstall clean \
	ethereal-results deb

all: probe $(BPF_OBJS) $(SKELS) $(BINS) $(DCBPF_GEN) $(TOOLS) $(UNIT_TESTS) $(PROG_TESTS) $(BENCHES)

# ---- dependencies ---------------------------------------------------------
# apt_missing TARGET,PKGS: install those of PKGS not installed yet (root),
# or name them and the target that installs them.
define apt_missing
	@missing=$$(for p in $(2); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "missing Debian packages:" $$missing "— run 'sudo make $(1)'" >&2; exit 1; \
		fi; \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef
deps:
	$(call apt_missing,deps,$(DEB_PKGS))
deps-build:
	$(call apt_missing,deps-build,$(DEB_PKGS_BUILD))
# After deps-build: two apt-get runs at once (make -j) would fight over the
# dpkg lock.
deps-test: deps-build
	$(call apt_missing,deps-test,$(DEB_PKGS_TEST))

# Feature probe: fail early with a clear message where tools are too old.
probe: deps-build
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
# Order-only on probe (after deps-build): under make -j nothing that runs
# bpftool, clang or the compiler starts before the tools are installed and
# checked.  Everything else built depends on vmlinux.h or is made in one of
# the directories below, which wait for probe as well.
$(BUILD)/vmlinux.h: | $(BUILD) probe
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%_v61.bpf.o: bpf/%.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -DDC_CC_ABI_V61 -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# ---- user space -------------------------------------------------------------
$(BUILD)/dcbpfd: $(DCBPFD_SRCS) $(LOADER_COMMON) $(LOADER_HDRS) $(HDRS) $(SKELS) $(VERSION_STAMP) $(BUILD)/libdcbpf.a
	$(CC) $(CFLAGS) -o $@ $(DCBPFD_SRCS) $(LOADER_COMMON) $(BUILD)/libdcbpf.a $(LDLIBS_LOADER)

$(BUILD)/dcbpf: $(DCBPF_SRCS) $(LOADER_COMMON) $(LOADER_HDRS) $(HDRS) $(SKELS) $(VERSION_STAMP) $(BUILD)/libdcbpf.a
	$(CC) $(CFLAGS) -o $@ $(DCBPF_SRCS) $(LOADER_COMMON) $(BUILD)/libdcbpf.a $(LDLIBS_LOADER)

# The table's own files, written by the binary that runs it (`dcbpf __gen`,
# loader/cmd/hidden.c).  The man page is docs/man/dcbpf.8 with the COMMANDS
# section of the generated page at its marker line; the rest stays prose.
$(BUILD)/dcbpf.bash: $(BUILD)/dcbpf
	$< __gen bash > $@.tmp && mv $@.tmp $@
$(BUILD)/dcbpf.8.gen: $(BUILD)/dcbpf
	$< __gen man > $@.tmp && mv $@.tmp $@
$(BUILD)/dcbpf.8: docs/man/dcbpf.8 $(BUILD)/dcbpf.8.gen
	@grep -q '^\.\\" @COMMANDS@' $< || { echo "$<: no '.\\\" @COMMANDS@' line for the commands" >&2; exit 1; }
	awk 'FNR == NR { if (/^\.SH /) cmds = ($$2 == "COMMANDS"); else if (cmds) text = text $$0 "\n"; next } \
	     /^\.\\" @COMMANDS@/ { printf "%s", text; next } { print }' $(BUILD)/dcbpf.8.gen $< > $@.tmp && mv $@.tmp $@

# A tool too large for one file keeps its parts in tests/tools/NAME/.
TOOL_PARTS := $(wildcard tests/tools/*/*.c tests/tools/*/*.h)
$(BUILD)/tools/%: tests/tools/%.c $(HDRS) tests/tools/tool.h $(TOOL_PARTS) | $(BUILD)/tools
	$(CC) $(CFLAGS) -Itests/tools -o $@ $< $(wildcard tests/tools/$*/*.c) $(LDLIBS_BPF)
# The workload harness draws exponential gaps and interpolates sizes (libm).
$(BUILD)/tools/workload: LDLIBS_BPF += -lm

# Host unit tests run with the undefined-behaviour sanitizer: overflow in
# the fixed-point code must be found here, not in the kernel.  Order-only on
# the skeletons: the loader sources a test compiles include them.
$(BUILD)/tests/%: tests/unit/%.c $(HDRS) $(LOADER_COMMON) $(LOADER_HDRS) $(TEST_HDRS) | $(BUILD)/tests $(SKELS) $(BUILD)/libdcbpf.a
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(if $(findstring config,$*),$(LOADER_COMMON) $(BUILD)/libdcbpf.a $(LDLIBS_LOADER)) -lm

# Program fixtures (BPF_PROG_TEST_RUN): need root, run by tests/run.
$(BUILD)/prog/%: tests/prog/%.c $(HDRS) $(SKELS) $(TEST_HDRS) | $(BUILD)/prog
	$(CC) $(CFLAGS) -Itests/lib -o $@ $< $(LDLIBS_BPF)

$(BUILD)/bench/%: tests/bench/%.c $(HDRS) $(SKELS) $(TEST_HDRS) | $(BUILD)/bench
	$(CC) $(CFLAGS) -Itests/lib -O2 -o $@ $< $(LDLIBS_BPF)

$(BUILD) $(BUILD)/tools $(BUILD)/tests $(BUILD)/prog $(BUILD)/bench: | probe
	mkdir -p $@

# ---- running ------------------------------------------------------------------
check: all deps-test
	BUILD=$(BUILD) OUT=$(OUT) tests/run

demo: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/demo tests/demo/run

bench: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/bench tests/bench/run

# The last `make bench` against an earlier summary (BASE=FILE): ratios,
# noise from each figure's runs, better / worse per figure.
bench-compare:
	@[ -n "$(BASE)" ] || { echo "make bench-compare BASE=path/to/summary.json (a saved out/bench/summary.json)" >&2; exit 2; }
	tests/bench/compare $(BASE) $(OUT)/bench/summary.json

# PowerTCP's incast, fairness and websearch figures (NSDI'22; thesis Figs
# 2.4, 2.5, 2.6/2.7) in the fabric, docs/results.md: one command each,
# JSON + CSV + PNG in $(OUT)/ptcp-*; SHORT=0 for the full runs.
.PHONY: exp-ptcp-incast exp-ptcp-fairness exp-ptcp-websearch
exp-ptcp-incast: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/ptcp-incast tests/exp/ptcp_incast.sh
exp-ptcp-fairness: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/ptcp-fairness tests/exp/ptcp_fairness.sh
exp-ptcp-websearch: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/ptcp-websearch tests/exp/ptcp_websearch.sh

# Reconfigurable networks (Addanki's thesis §2.4 Fig. 2.8; Ch. 7-8): PowerTCP,
# theta-PowerTCP, HPCC and a reTCP-style baseline over a rotor circuit, and
# Mars / Vermilion schedules against the theorems; docs/results.md.  JSON +
# CSV + PNG in $(OUT)/rdcn-exp/{ptcp,mars}; SHORT=1 is the form
# tests/integ/rdcn_exp.sh runs.
.PHONY: exp-rdcn-ptcp exp-rdcn-mars exp-rdcn
exp-rdcn-ptcp: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/rdcn-exp/ptcp tests/exp/rdcn_ptcp.sh
exp-rdcn-mars: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/rdcn-exp/mars tests/exp/rdcn_mars.sh
exp-rdcn: exp-rdcn-ptcp exp-rdcn-mars

# Slytherin, ResQueue, ICON and SmartBuf against their baselines (Rezaei,
# PhD thesis UIC 2021, §4.1-§4.3, §4.5; docs/results.md): one script, one
# fabric per system, JSON + CSV + PNG in $(OUT)/rezaei-*; SHORT=0 for two loads.
.PHONY: exp-slytherin exp-resqueue exp-icon exp-smartbuf exp-rezaei
exp-slytherin exp-resqueue exp-icon exp-smartbuf: exp-%: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/rezaei-$* tests/exp/rezaei.sh $*
exp-rezaei: exp-slytherin exp-resqueue exp-icon exp-smartbuf

# s-PERC* against DCTCP and PowerTCP on the leaf-spine (Jose, PhD thesis
# Stanford 2019, §4.3.1, §4.3.3, Table 4.2; docs/results.md): churn,
# incast onto a long flow, dropped control packets; one fabric and lock hold
# per part, JSON + CSV + PNG in $(OUT)/perc-exp; SHORT=1 is make check's.
.PHONY: exp-perc
exp-perc: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/perc-exp tests/exp/perc_fabric.sh

# cosy on the leaf-spine fabric ("Building a Partial Communication Synchrony
# Abstraction on Asynchronous Datacenters", Fig. 4, Thms 3.4, 3.5, Lemma
# 3.3; docs/results.md): Poisson all-to-all messages, K = 1 (RSVP) .. 16,
# rising load; JSON + CSV + PNG in $(OUT)/cosy-exp.  SHORT=1 is the form
# tests/integ/cosy_exp.sh runs.
.PHONY: exp-cosy
exp-cosy: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/cosy-exp tests/exp/cosy.sh

# Credence against its paper (docs/results.md, "Credence: the gap to the
# paper"): simulator only, a few minutes on one core; JSON + CSV + PNG in
# $(OUT)/credence-gap.  SHORT=1 is the seconds-long form tests/loader runs.
.PHONY: credence-gap
credence-gap: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/credence-gap tests/exp/credence_gap.sh

# Soak and fault injection (docs/operations.md, "Soak"): the leaf-spine
# fabric with every dcbpf program, mixed traffic and a fault schedule for
# DURATION seconds (default 3600), then the leak check; summary.json,
# samples.csv, faults.csv and soak.png in $(OUT)/soak. Needs root; takes
# the suite lock as the tests do. The 2-minute form is tests/integ/soak.sh.
.PHONY: soak
soak: all deps-test
	flock /tmp/dcbpf-suite.lock env DURATION=$(or $(DURATION),3600) BUILD=$(BUILD) OUT=$(OUT)/soak nice tests/exp/soak.sh

# Ethereal results (tests/exp/ethereal-results, docs/collective.md): one
# batch of ETH_SEEDS_PER seeds per (rate, CC) at a time under the shared
# netns lock, then the summary, table and plot in $(OUT)/ethereal.
# Resumable: finished runs are kept (FRESH=1 starts over).
ETH_RATES ?= 1000
ETH_CCS   ?= dctcp powertcp powertcp-int
ETH_SEEDS ?= 10
ETH_SEEDS_PER ?= 5
ethereal-results: all deps-test
	BUILD=$(BUILD) OUT=$(OUT)/ethereal ETH_RATES="$(ETH_RATES)" ETH_CCS="$(ETH_CCS)" \
		ETH_SEEDS=$(ETH_SEEDS) ETH_SEEDS_PER=$(ETH_SEEDS_PER) tests/exp/ethereal-results

# --see: a BUILD under /tmp is otherwise hidden by the guest's fresh /tmp.
# The guest has no network: promtool (tests/lib/promtool.sh) is unpacked
# into the host's cache first, which the guest sees through its root.
vm-check: all
	@bash -c 'source tests/lib/promtool.sh; dc_promtool' >/dev/null || true
	vm/run --kernel $(KERNEL) --out $(OUT)/vm --see $(BUILD) -- env BUILD=$(BUILD) OUT=$(OUT)/vm tests/run

# The unit goes where systemd says units of packages go; /lib/systemd/system
# where systemd's pkg-config file is absent.
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
MANDIR ?= $(PREFIX)/share/man
MAN8 := $(BUILD)/dcbpf.8 docs/man/dcbpfd.8
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MAN5 := docs/man/dcbpfd.conf.5

# Only what is installed: the build dependencies, the objects and the two
# binaries (no test tools, so no test dependencies).
install: probe $(BPF_OBJS) $(BINS) $(DCBPF_GEN)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(SYSCONFDIR)/dcbpf \
		$(DESTDIR)$(PREFIX)/lib/dcbpf $(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(PREFIX)/share/dcbpf $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 $(BUILD)/dcbpf.bash $(DESTDIR)$(BASHCOMPDIR)/dcbpf
	install -m 0755 $(BUILD)/dcbpfd $(BUILD)/dcbpf $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(BPF_OBJS) $(DESTDIR)$(PREFIX)/lib/dcbpf/
	install -m 0644 loader/wireshark/dcbpf_int.lua loader/dcbpfd.conf.example \
		$(DESTDIR)$(PREFIX)/share/dcbpf/
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	[ -e $(DESTDIR)$(SYSCONFDIR)/dcbpf/dcbpfd.conf ] || \
		install -m 0600 loader/dcbpfd.conf.example $(DESTDIR)$(SYSCONFDIR)/dcbpf/dcbpfd.conf
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' loader/dcbpfd.service.in \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/dcbpfd.service

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/dcbpfd $(DESTDIR)$(PREFIX)/sbin/dcbpf \
		$(DESTDIR)$(BASHCOMPDIR)/dcbpf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/dcbpfd.service \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -rf $(DESTDIR)$(PREFIX)/lib/dcbpf $(DESTDIR)$(PREFIX)/share/dcbpf

# ---- Debian package (loader/pkg/) --------------------------------------------------
# Staged by `make install` into $(BUILD)/deb (PREFIX=/usr), man pages
# compressed as Debian does, the example config a conffile, then packed by
# dpkg-deb with root as owner.  Depends: the shared libraries the binaries
# link (their Debian 12 package names).
DEB_ARCH    = $(shell dpkg --print-architecture)
DEB_ROOT    := $(BUILD)/deb/root
DEB_FILE    = $(OUT)/dcbpf_$(VERSION)_$(DEB_ARCH).deb
DEB_DEPENDS := libbpf1 (>= 1:$(LIBBPF_MIN)), libelf1, zlib1g, libinih1, libc6
deb: probe $(BPF_OBJS) $(BINS)
	rm -rf $(BUILD)/deb
	$(MAKE) --no-print-directory install BUILD=$(BUILD) DESTDIR=$(abspath $(DEB_ROOT)) \
		PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man SYSTEMDUNITDIR=/lib/systemd/system
	gzip -9n $(DEB_ROOT)/usr/share/man/man*/*
	install -d $(DEB_ROOT)/DEBIAN $(DEB_ROOT)/usr/share/doc/dcbpf
	install -m 0644 loader/pkg/copyright $(DEB_ROOT)/usr/share/doc/dcbpf/copyright
	install -m 0644 loader/pkg/conffiles $(DEB_ROOT)/DEBIAN/conffiles
	install -m 0755 loader/pkg/postinst loader/pkg/prerm loader/pkg/postrm $(DEB_ROOT)/DEBIAN/
	sed -e 's|@VERSION@|$(VERSION)|; s|@ARCH@|$(DEB_ARCH)|; s|@DEPENDS@|$(DEB_DEPENDS)|' \
		-e "s|@SIZE@|$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)|" \
		loader/pkg/control.in > $(DEB_ROOT)/DEBIAN/control
	cd $(DEB_ROOT) && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | \
		xargs -0 md5sum > DEBIAN/md5sums
	mkdir -p $(OUT)
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB_FILE)
	@echo "built $(DEB_FILE)"

clean:
	rm -rf $(BUILD) $(OUT)

# ---- switch buffer sharing (bpf/switch.bpf.c, loader/sim/) ------------------
# The switch tracker swaps and compares map words atomically (xchg,
# cmpxchg): BPF ISA v3.
$(BUILD)/switch.bpf.o: BPF_CFLAGS += -mcpu=v3
# Ethereal's flow state changes by compare-and-swap (LRU hash values hold
# no spin lock): BPF ISA v3 as well.
$(BUILD)/ethereal.bpf.o: BPF_CFLAGS += -mcpu=v3
# The simulator tests link the simulator, Credence's model file, trainer
# and train command, and the option and command sources of loader/lib/
# (libc and libm only; credence.c, which needs the switch, stays out).
SIM_SRCS := $(filter-out loader/credence/credence.c,$(wildcard loader/sim/*.c loader/credence/*.c)) \
	$(addprefix loader/lib/,err.c opts.c optcheck.c opthelp.c suggest.c cmd.c cmdhelp.c gen.c json.c)
$(BUILD)/tests/test_sim $(BUILD)/tests/test_sim_io $(BUILD)/tests/test_credence $(BUILD)/tests/test_forest $(BUILD)/tests/test_simpfc: $(BUILD)/tests/test_%: tests/unit/test_%.c $(SIM_SRCS) $(wildcard loader/sim/*.h loader/credence/*.h loader/lib/*.h) $(HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(SIM_SRCS) -lm
# BPF_PROG_TEST_RUN fixtures of the XDP admission program (root; libbpf).
$(BUILD)/tests/test_xdp_admit: tests/unit/test_xdp_admit.c $(BUILD)/switch.skel.h $(HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ tests/unit/test_xdp_admit.c $(LDLIBS_BPF)
$(BUILD)/bench/xdp_admit: $(BUILD)/switch.skel.h tests/lib/swfixture.h
# SmartBuf and EDT: the simulator against the XDP program (links the simulator).
$(BUILD)/prog/test_sb_xdp: tests/prog/test_sb_xdp.c $(SIM_SRCS) $(BUILD)/switch.skel.h tests/lib/swfixture.h $(HDRS) $(TEST_HDRS) | $(BUILD)/prog
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -o $@ $< $(SIM_SRCS) $(LDLIBS_BPF) -lm

# ---- s-PERC (bpf/perc.bpf.c, loader/perc/) ------------------------------------
# The model's tests link the topology parser, the oracle and the simulator
# (libc and libm only; the command file stays out).
PERC_SRCS := loader/perc/topo.c loader/perc/oracle.c loader/perc/psim.c loader/lib/err.c loader/lib/textfile.c
$(BUILD)/tests/test_perc: tests/unit/test_perc.c $(PERC_SRCS) $(wildcard loader/perc/*.h loader/lib/*.h) $(HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(PERC_SRCS) -lm

# ---- reconfigurable networks (loader/rdcn/) ------------------------------------
# The schedule tests link the generators, files, bounds and the writer
# (libc and libm only; the map store and the command file stay out).
RDCN_SRCS := loader/rdcn/sched.c loader/rdcn/file.c loader/rdcn/bounds.c loader/rdcn/rdpub.c loader/lib/err.c
$(BUILD)/tests/test_rdcn $(BUILD)/tests/test_rdcn_io: $(BUILD)/tests/%: tests/unit/%.c $(RDCN_SRCS) $(wildcard loader/rdcn/*.h loader/lib/*.h) $(HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(RDCN_SRCS) -lm

# The live schedule maps read in BPF: a test object (tests/prog/bpf/, not
# installed) and its fixture, which publishes through the pinned maps.
$(BUILD)/rd_sched.bpf.o: tests/prog/bpf/rd_sched.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
RDCN_PROG_SRCS := loader/rdcn/sched.c loader/rdcn/rdpub.c loader/rdcn/rdmap.c loader/lib/err.c
$(BUILD)/prog/test_rdcn_prog: tests/prog/test_rdcn_prog.c $(BUILD)/rd_sched.skel.h $(RDCN_PROG_SRCS) $(wildcard loader/rdcn/*.h) $(HDRS) $(TEST_HDRS) | $(BUILD)/prog
	$(CC) $(CFLAGS) -Itests/lib -iquote loader -o $@ $< $(RDCN_PROG_SRCS) $(LDLIBS_BPF) -lm
# make bench: the cost per packet of the schedule lookup, on the same object.
$(BUILD)/bench/rdcn_prog: $(BUILD)/rd_sched.skel.h $(BUILD)/rdcn.skel.h

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
FUZZ_CONFIG_SRCS := loader/lib/config.c loader/lib/params.c loader/lib/prefix.c loader/lib/err.c
$(BUILD)/fuzz/fuzz_config: tests/fuzz/fuzz_config.c $(FUZZ_CONFIG_SRCS) $(wildcard loader/lib/*.h) $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_config.c $(FUZZ_CONFIG_SRCS) -linih
$(BUILD)/fuzz/fuzz_model: tests/fuzz/fuzz_model.c loader/credence/forest.c loader/credence/forest.h $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -iquote loader -o $@ tests/fuzz/fuzz_model.c loader/credence/forest.c
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
# The counter tables against the BTF of the objects (loader/lib/counters.h).
$(BUILD)/tests/test_counters: tests/unit/test_counters.c loader/lib/counters.c loader/lib/json.c \
		$(LIB_HDRS) $(HDRS) $(BPF_OBJS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< loader/lib/counters.c loader/lib/json.c $(LDLIBS_BPF)
# test_config links the loader sources, which include the skeletons.
$(BUILD)/tests/test_config: $(SKELS)

# ---- user-space library (loader/lib/, see its README) --------------------------
# A static archive linked into both binaries (their objects first, so only
# the members they use are pulled in).  Some members include the skeletons
# (object.c) or the config header still at loader/; version.c takes the
# version -D options.
LIB_SRCS := $(wildcard loader/lib/*.c)
LIB_HDRS := $(wildcard loader/lib/*.h)
LIB_OBJS := $(patsubst loader/%.c,$(BUILD)/libobj/%.o,$(LIB_SRCS))
all: $(BUILD)/libdcbpf.a
$(BUILD)/libdcbpf.a: $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libobj/%.o: loader/%.c $(LIB_HDRS) $(LOADER_HDRS) $(HDRS) | $(BUILD) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/libobj/lib/version.o: $(VERSION_STAMP)
# The pin registry's map table, generated from the objects (loader/lib/pins.h).
$(BUILD)/pinsgen: loader/lib/tools/pinsgen.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS_BPF)
$(BUILD)/pins.gen.h: $(BUILD)/pinsgen $(BPF_OBJS)
	$(BUILD)/pinsgen $(BPF_OBJS) > $@.tmp && mv $@.tmp $@
$(BUILD)/libobj/lib/pins.o: $(BUILD)/pins.gen.h
# The shared leaves' tests link the archive.
$(BUILD)/tests/test_leaves: tests/unit/test_leaves.c $(BUILD)/libdcbpf.a $(LIB_HDRS) $(HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(BUILD)/libdcbpf.a $(LDLIBS_BPF) -lm
# Its unit tests compile the option and command sources with the sanitizer,
# like the others; the rest of the archive links as built.
LIB_CLI_SRCS := $(addprefix loader/lib/,err.c opts.c optcheck.c opthelp.c suggest.c cmd.c \
	cmdhelp.c gen.c json.c)
$(BUILD)/tests/test_options $(BUILD)/tests/test_cmd $(BUILD)/tests/test_cmdgen: $(BUILD)/tests/test_%: tests/unit/test_%.c $(LIB_SRCS) $(LIB_HDRS) $(TEST_HDRS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib -fsanitize=undefined -fno-sanitize-recover=all \
		-o $@ $< $(LIB_CLI_SRCS) -lm

# ---- ns-3 models (tests/ns3/README.md) ----------------------------------------
# The admission, INT and PowerTCP cores inside ns-3 models, built against
# Debian's ns-3 (libns3-dev: `make ns3-deps`), never by `make all`: nothing
# else needs ns-3.  Debian's ns3-*.pc carry a stray "-I/usr;" (a CMake list
# that leaked into Cflags) and name libgsl.so and libsqlite3.so by path (of
# -dev packages libns3-dev does not pull in), so only their -l flags are
# taken: the ns-3 libraries link those themselves.  The headers are in
# /usr/include/ns3.  tests/ns3/check.sh runs the tests when built.
NS3_PKGS := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-traffic-control \
	ns3-applications ns3-flow-monitor
NS3_CXX ?= g++
NS3_CXXFLAGS ?= -O2 -g
NS3_CXXFLAGS += -std=c++17 -Wall -Wextra -Wno-unused-parameter -Iinclude -Itests/ns3 \
	-iquote loader -iquote loader/lib
NS3_MODEL_SRCS := $(wildcard tests/ns3/model/*.cc)
NS3_MODEL_HDRS := $(wildcard tests/ns3/model/*.h)
NS3_MODEL_OBJS := $(patsubst tests/ns3/model/%.cc,$(BUILD)/ns3/model/%.o,$(NS3_MODEL_SRCS))
# The simulator's engine and trace reader, for the tests that compare with it.
NS3_SIM_SRCS := loader/sim/simengine.c loader/sim/simtrace.c loader/sim/simwork.c loader/lib/err.c
NS3_SIM_OBJS := $(patsubst loader/%.c,$(BUILD)/ns3/c/%.o,$(NS3_SIM_SRCS))
NS3_PROGS := $(patsubst tests/ns3/%.cc,$(BUILD)/ns3/%,$(wildcard tests/ns3/*.cc))
.PHONY: ns3 ns3-deps
ns3-deps:
	$(call apt_missing,ns3-deps,libns3-dev)
ns3: $(NS3_PROGS)
$(BUILD)/ns3/.pkg:
	@pkg-config --exists $(NS3_PKGS) || { echo "ns-3 not found (pkg-config $(NS3_PKGS)): run 'sudo make ns3-deps'" >&2; exit 1; }
	@mkdir -p $(BUILD)/ns3/model $(BUILD)/ns3/c/sim $(BUILD)/ns3/c/lib && touch $@
$(BUILD)/ns3/model/%.o: tests/ns3/model/%.cc $(NS3_MODEL_HDRS) $(HDRS) | $(BUILD)/ns3/.pkg
	$(NS3_CXX) $(NS3_CXXFLAGS) -c -o $@ $<
$(BUILD)/ns3/c/%.o: loader/%.c $(HDRS) $(LOADER_HDRS) | $(BUILD)/ns3/.pkg
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/ns3/%: tests/ns3/%.cc $(NS3_MODEL_OBJS) $(NS3_SIM_OBJS) $(NS3_MODEL_HDRS) $(HDRS) | $(BUILD)/ns3/.pkg
	$(NS3_CXX) $(NS3_CXXFLAGS) -o $@ $< $(NS3_MODEL_OBJS) $(NS3_SIM_OBJS) \
		$$(pkg-config --libs $(NS3_PKGS) | tr ' ' '\n' | grep -v '^/' | sort -u) -lm
.SECONDARY: $(NS3_MODEL_OBJS) $(NS3_SIM_OBJS)
# The fabric's 10:1 PowerTCP incast in ns-3 (docs/results.md): JSON + CSV +
# PNG in $(OUT)/ns3-incast; SHORT=0 for the incast at 500 ms.
.PHONY: exp-ns3-incast
exp-ns3-incast: ns3
	BUILD=$(BUILD) OUT=$(OUT)/ns3-incast tests/exp/ns3_incast.sh
# Under CI nothing may skip (tests/lib/harness.sh), so there `make check`
# installs and builds the models as it installs the suite's tools (about
# 12 MB of packages and 15-25 s of build on 2 cores; tests/ns3/README.md).
# Elsewhere it runs them when built and says SKIP otherwise.  One apt-get
# at a time: after deps-test.
ifeq ($(CI),true)
check: ns3
ns3-deps: deps-test
$(BUILD)/ns3/.pkg: | ns3-deps
endif
