# SPDX-License-Identifier: GPL-2.0
#
# MRC for Linux. See README.md for the two commands that matter:
#   make demo    boot a guest and show MRC at work
#   make check   build everything and run the whole test suite on every
#                supported kernel
#
# make                   the modules, mrc, mrcperf, the tc plugin and the
#                        examples, for the kernels below
# make install           install them (DESTDIR=, PREFIX=)
#
# Which kernels the modules are built for, each into build/<release>/:
#   KDIR=DIR             the kernel build tree DIR (installed headers or a
#                        built source tree); its release is the one in
#                        DIR/include/generated/utsrelease.h
#   KVER="REL ..."       the kernels whose trees are /lib/modules/REL/build
#   neither              the running kernel (uname -r) if its headers are
#                        installed, or else every kernel whose headers are
#                        (/lib/modules/*/build)
# Kernels from 6.1 on are supported; 6.1 and 6.12 LTS are the ones tested.

TOP := $(CURDIR)
BUILD := $(TOP)/build
TESTING := $(TOP)/tools/testing

RUNNING := $(shell uname -r)
NPROC := $(shell nproc 2>/dev/null || echo 1)
# The kernels make check, make demo and make bench boot.
TEST_KERNELS = $(shell $(TESTING)/kernels 2>/dev/null)

ifneq ($(KDIR),)
KERNELS := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KDIR_OF = $(KDIR)
else ifneq ($(KVER),)
KERNELS := $(KVER)
else ifneq ($(wildcard /lib/modules/$(RUNNING)/build/Makefile),)
KERNELS := $(RUNNING)
else
KERNELS := $(patsubst /lib/modules/%/build/Makefile,%,\
	$(wildcard /lib/modules/*/build/Makefile))
endif
KDIR_OF ?= /lib/modules/$(KVER_ONE)/build

# Sources that make up the module; they are copied per kernel because an
# out-of-tree build writes its objects next to its sources.
MODULE_SRCS := Kbuild VERSION $(shell find net include uapi -name '*.[ch]' -o -name Kbuild)

.PHONY: all modules module-one deps check check-debug demo bench bench-pair selftests tools examples \
	checkpatch fuzz \
	install clean print-tc-libdir dkms-install dkms-uninstall

VERSION := $(shell cat $(TOP)/VERSION)
DKMS_SRC := /usr/src/mrc-$(VERSION)

# make install [DESTDIR=...] [PREFIX=...]: the modules for every built kernel
# (in /lib/modules/VER/updates), the tools, their man pages, the bash
# completion, the uapi header and the Wireshark dissector.
PREFIX ?= /usr/local
# tc(8) looks for its qdisc plugins in one directory, whatever PREFIX is:
# /usr/lib/<multiarch>/tc on Debian (tc -V; strings $(which tc)), /usr/lib/tc
# upstream. TC_LIB_DIR in tc's environment overrides it at run time.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
TC_LIBDIR ?= /usr/lib$(if $(MULTIARCH),/$(MULTIARCH))/tc
# Wireshark and tshark load Lua dissectors from their global Lua plugin
# directory (tshark -G folders: "Global Lua Plugins"), which is not under
# PREFIX either: /usr/lib/<multiarch>/wireshark/plugins on Debian.
WIRESHARK_LUA_DIR ?= /usr/lib$(if $(MULTIARCH),/$(MULTIARCH))/wireshark/plugins
INSTALL_FILES := \
	build/tools/mrc:$(PREFIX)/sbin/mrc:755 \
	build/tools/mrcperf:$(PREFIX)/bin/mrcperf:755 \
	build/tools/q_mrctrim.so:$(TC_LIBDIR)/q_mrctrim.so:644 \
	tools/mrc/mrc.8:$(PREFIX)/share/man/man8/mrc.8:644 \
	tools/tc/tc-mrctrim.8:$(PREFIX)/share/man/man8/tc-mrctrim.8:644 \
	tools/mrcperf/mrcperf.1:$(PREFIX)/share/man/man1/mrcperf.1:644 \
	tools/man/mrc.7:$(PREFIX)/share/man/man7/mrc.7:644 \
	tools/mrc/mrc.bash-completion:$(PREFIX)/share/bash-completion/completions/mrc:644 \
	uapi/linux/mrc.h:$(PREFIX)/include/linux/mrc.h:644 \
	uapi/linux/mrc_trim.h:$(PREFIX)/include/linux/mrc_trim.h:644 \
	tools/wireshark/mrc.lua:$(WIRESHARK_LUA_DIR)/mrc.lua:644

# What a user builds and installs; make check and make demo add the
# selftests (which need linux-source for kselftest_harness.h).
all: modules tools examples

modules:
	@if [ -n "$(KDIR)" ] && [ -z "$(KERNELS)" ]; then \
		echo "KDIR=$(KDIR): no include/generated/utsrelease.h there;" \
			"is it a configured kernel tree?" >&2; \
		exit 1; \
	fi
	@if [ -z "$(KERNELS)" ]; then \
		echo "no kernel headers: none for the running kernel" \
			"$(RUNNING) (/lib/modules/$(RUNNING)/build), nor for" \
			"any other; install them (linux-headers-$(RUNNING) on" \
			"Debian and Ubuntu, kernel-devel on Fedora), or give" \
			"KDIR=DIR" >&2; \
		exit 1; \
	fi
	@for k in $(KERNELS); do \
		test -f $(if $(KDIR),$(KDIR),/lib/modules/$$k/build)/Makefile || { \
			echo "no kernel build tree for $$k:" \
				"$(if $(KDIR),$(KDIR),/lib/modules/$$k/build)" >&2; \
			exit 1; }; \
	done
	@for k in $(KERNELS); do \
		$(MAKE) --no-print-directory module-one KVER_ONE=$$k || exit 1; \
	done

module-one:
	@mkdir -p $(BUILD)/$(KVER_ONE)/src
	@tar -cf - $(MODULE_SRCS) | tar -C $(BUILD)/$(KVER_ONE)/src -xf -
	@echo "  MODULE  $(KVER_ONE)"
	@$(MAKE) -C $(KDIR_OF) M=$(BUILD)/$(KVER_ONE)/src \
		W=1 KCFLAGS=-Werror modules > $(BUILD)/$(KVER_ONE)/build.log 2>&1; \
	rc=$$?; cat $(BUILD)/$(KVER_ONE)/build.log; \
	if [ $$rc -ne 0 ] || grep -qi 'warning' $(BUILD)/$(KVER_ONE)/build.log; then \
		echo "build for $(KVER_ONE) failed or warned" >&2; exit 1; \
	fi
	@cp $(BUILD)/$(KVER_ONE)/src/net/mrc/mrc.ko $(BUILD)/$(KVER_ONE)/mrc.ko
	@cp $(BUILD)/$(KVER_ONE)/src/net/sched/sch_mrctrim.ko \
		$(BUILD)/$(KVER_ONE)/sch_mrctrim.ko

selftests:
	@$(MAKE) --no-print-directory -C selftests/net/mrc OUTPUT=$(BUILD)/selftests

tools: $(BUILD)/tools/mrcperf $(BUILD)/tools/mrc \
	$(BUILD)/tools/q_mrctrim.so $(BUILD)/tools/conn_pairs

# tools/lib: what the tools share (the JSON writer).
TOOLS_LIB := $(wildcard tools/lib/*.[ch])

$(BUILD)/tools/mrc: $(wildcard tools/mrc/*.[ch]) $(TOOLS_LIB) uapi/linux/mrc.h VERSION
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -Iuapi $$(pkg-config --cflags libmnl) \
		-DMRC_TOOL_VERSION='"$(VERSION)"' \
		-o $@ $(filter %.c,$^) $$(pkg-config --libs libmnl)

$(BUILD)/tools/mrcperf: $(wildcard tools/mrcperf/*.[ch]) $(TOOLS_LIB) uapi/linux/mrc.h VERSION
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -Iuapi -pthread \
		-DMRCPERF_VERSION='"$(VERSION)"' -o $@ $(filter %.c,$^) -lm

# The tc plugin of the mrctrim qdisc: its undefined symbols are tc's own.
$(BUILD)/tools/q_mrctrim.so: tools/tc/q_mrctrim.c tools/tc/iproute2.h \
		uapi/linux/mrc_trim.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -fPIC -shared -Iuapi -o $@ $<

$(BUILD)/tools/conn_pairs: tools/testing/bench/conn_pairs.c uapi/linux/mrc.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Iuapi -o $@ $<

# The example programs of tools/examples/, for users to copy.
EXAMPLES := $(patsubst tools/examples/%.c,$(BUILD)/examples/%,$(wildcard tools/examples/*.c))

examples: $(EXAMPLES)

$(BUILD)/examples/%: tools/examples/%.c uapi/linux/mrc.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -Iuapi -o $@ $<

deps:
	@$(TESTING)/setup-deps

# make dkms-install: register the module sources with DKMS, which builds and
# installs them now for every supported kernel found (or KVER), and again
# whenever a kernel is installed later. As root, with dkms installed.
dkms-install:
	@command -v dkms > /dev/null || { echo "dkms is not installed" >&2; exit 1; }
	@if [ -z "$(KERNELS)" ]; then echo "no supported kernel installed" >&2; exit 1; fi
	@dkms remove -m mrc -v $(VERSION) --all > /dev/null 2>&1; true
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	@tar -cf - $(MODULE_SRCS) | tar -C $(DKMS_SRC) -xf -
	@sed 's/@VERSION@/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	@dkms add -m mrc -v $(VERSION)
	@for k in $(KERNELS); do \
		dkms build -m mrc -v $(VERSION) -k $$k && \
		dkms install -m mrc -v $(VERSION) -k $$k --force || exit 1; \
	done

dkms-uninstall:
	@dkms remove -m mrc -v $(VERSION) --all; rm -rf $(DKMS_SRC)

check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all selftests KVER="$(TEST_KERNELS)" KDIR=
	@$(TESTING)/check

demo: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all selftests KVER="$(TEST_KERNELS)" KDIR=
	@$(TESTING)/demo

# make bench boots its guests on the TSC, as real hosts keep time: the
# HPET that a TCG guest falls back to is an emulated device, which makes
# every clock read cost what no host pays (Documentation/networking/
# mrc-performance.rst, "The guest's clock"). BENCH_CLOCK=hpet keeps it.
BENCH_CLOCK ?= tsc
BENCH_APPEND = $(if $(filter tsc,$(BENCH_CLOCK)),clocksource=tsc tsc=reliable)

bench:
	@$(TESTING)/setup-deps bench
	@$(MAKE) --no-print-directory -j$(NPROC) all selftests KVER="$(TEST_KERNELS)" KDIR=
	@rm -rf $(BUILD)/bench && mkdir -p $(BUILD)/bench
	@VM_APPEND="$(BENCH_APPEND)" $(TESTING)/vm-run --timeout 5400 --outdir $(BUILD)/bench -- \
		$(TESTING)/bench/run $(BUILD)/bench; \
	rc=$$?; $(MAKE) --no-print-directory bench-pair || rc=$$((rc + 1)); \
	python3 $(TESTING)/bench/report.py $(BUILD)/bench bench/results && \
	echo "results: bench/results/latest.md" && exit $$rc

# make bench-pair: tools/testing/bench/pair.sh, MRC vs TCP between two
# guests of the first kernel over virtio-net, into $(BUILD)/bench/pair.json
# (make bench runs it after the one-guest benchmarks).
bench-pair:
	@k=$$($(TESTING)/kernels | head -n 1); rm -rf $(BUILD)/bench/pair && mkdir -p $(BUILD)/bench && \
	VM_APPEND="$(BENCH_APPEND)" $(TESTING)/vm-pair --kernel-a $$k --kernel-b $$k --timeout 1800 \
		--outdir $(BUILD)/bench/pair -- $(TESTING)/bench/pair.sh > $(BUILD)/bench/pair.log 2>&1; \
	rc=$$?; grep -a '^a: virtio-net' $(BUILD)/bench/pair.log; \
	cp $(BUILD)/bench/pair/a/pair.json $(BUILD)/bench/pair.json && exit $$rc

checkpatch:
	@$(TESTING)/checkpatch

# make check-debug: the suite on a debug 6.12 kernel (KASAN, kmemleak,
# lockdep, UBSAN) built here once; see tools/testing/check-debug.
check-debug:
	@$(TESTING)/setup-deps debug
	@$(MAKE) --no-print-directory -j$(NPROC) all selftests KVER="$(TEST_KERNELS)" KDIR=
	@$(TESTING)/check-debug

# make fuzz [FUZZ_SECS=60]: the libFuzzer targets of tools/testing/fuzz/,
# built from the module's own parse.c and sched.c, each for FUZZ_SECS;
# new inputs join tools/testing/fuzz/corpus/.
fuzz: deps
	@$(TESTING)/fuzz/run

# Needs only what make needs: a compiler, the kernel headers and libmnl.
install: modules tools
	@for k in $(KERNELS); do \
		install -D -m 644 $(BUILD)/$$k/mrc.ko \
			$(DESTDIR)/lib/modules/$$k/updates/mrc.ko || exit 1; \
		install -D -m 644 $(BUILD)/$$k/sch_mrctrim.ko \
			$(DESTDIR)/lib/modules/$$k/updates/sch_mrctrim.ko || exit 1; \
		if [ -z "$(DESTDIR)" ]; then depmod -a $$k; fi; \
	done
	@for f in $(INSTALL_FILES); do \
		src=$${f%%:*}; rest=$${f#*:}; dst=$${rest%:*}; mode=$${rest##*:}; \
		install -D -m $$mode $$src $(DESTDIR)$$dst || exit 1; \
	done

# Where make install puts the tc plugin (for tools/testing/check).
print-tc-libdir:
	@echo $(TC_LIBDIR)

clean:
	rm -rf $(BUILD)
