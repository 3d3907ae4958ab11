# SPDX-License-Identifier: GPL-2.0-only
# ktrace build. `make`, `make check`, `make clean`,
# `make install PREFIX=/usr DESTDIR=...`, `make uninstall`; `make STATIC=1`
# links ktrace as one static PIE (below); `make V=1` shows the commands;
# `make WERROR=1` (the tests, CI) turns warnings into errors.

B := build
# The ktrace binary (check-asan builds another one under its own B).
KTRACE_BIN := ktrace
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
# systemd reads units from /usr/local/lib/systemd/system too
SYSTEMDDIR ?= $(LIBDIR)/systemd/system
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
WERROR ?= 0
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

# capstone: annotate's disassembler (lib/sym/disasm.c). Debian builds it
# with every architecture it knows, all linked: about 7 MB of the static
# ktrace (5 MB -> 12 MB); the shared link only maps it.
PKGS := libtracefs libtraceevent libdw libelf libbpf liblzma capstone
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
# The command alone (not libktrace) links protobuf-c and zlib for report
# --pprof, shared or static.
PPROF_PKGS := libprotobuf-c zlib
PPROF_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PPROF_PKGS))
PPROF_LIBS := $(shell $(PKG_CONFIG) --libs $(PPROF_PKGS))
# The ktrace binary links libktrace in from libktrace.a (as perf links
# libperf.a: the CLI calls library internals that libktrace.so does not
# export) and, by default, every other library shared, glibc included, as
# perf, trace-cmd and bpftrace ship: a security update of a library
# reaches ktrace without a rebuild. The C++ demangler is not linked:
# lib/sym/demangle.c dlopen()s libstdc++ at the first C++ name, so that
# `ktrace list` does not load it at every start.
#
# STATIC=1 links one static PIE instead (ASLR kept): one file to copy to a
# machine without the libraries (the VM tier boots it; `make ktrace-static`
# builds it as $(B)/static/ktrace beside the default one). Its libraries
# are the -dev packages' .a files, as `pkg-config --static` names them;
# added by hand only what pkg-config does not say: -static-pie itself, and
# libstdc++.a for the demangler (-u: nothing else names it), so that the
# binary never dlopen()s (a second libc). ld still warns that dlopen is
# linked: libtraceevent's plugin loader, libdw's debuginfod client and
# demangle.c's fallback name it, and ktrace reaches none of them (debug
# files are found by lib/sym, never through debuginfod; tested). Both link
# the same objects (PIE: -fPIE below); the link flags are tracked apart
# ($(B)/link-flags), so switching STATIC relinks ktrace only.
STATIC ?= 0
# The command alone links libmicrohttpd, libyaml and libcrypt (ktrace
# export's server, cmd/httpd.c, and its --web-config, cmd/webconfig.c);
# libktrace does not. Not in the static link: Debian's
# libmicrohttpd needs gnutls and p11-kit, which has no static archive, so
# the static ktrace links cmd/static/httpd_none.c before libktrace-cmd.a
# (httpd.o is then never pulled in) and its export says so.
CMD_PKGS := libmicrohttpd yaml-0.1 libcrypt
CMD_PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(CMD_PKGS) 2>/dev/null)
CMD_PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(CMD_PKGS) 2>/dev/null)
DYNAMIC_LIBS := $(PKG_LIBS) $(CMD_PKG_LIBS) $(PPROF_LIBS)
STATIC_LIBS := -static-pie $(shell $(PKG_CONFIG) --static --libs $(PKGS) $(PPROF_PKGS)) \
	-Wl,-u,__cxa_demangle -lstdc++
KTRACE_LIBS := $(if $(filter 1,$(STATIC)),$(STATIC_LIBS),$(DYNAMIC_LIBS))
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# The release, from lib/ktrace.h's KTRACE_VERSION_* macros (one place),
# and, built from git, the commit ("abc1234-dirty").
VERSION := $(shell sed -n 's/^\#define KTRACE_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' lib/ktrace.h | paste -sd.)
SOVERSION := 1
GIT_VERSION := $(shell git describe --always --dirty --match 'v*' 2>/dev/null)
FULL_VERSION := $(VERSION)$(if $(GIT_VERSION), (git $(GIT_VERSION)))
KT_CFLAGS := -std=gnu11 -fPIE -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
	-D_GNU_SOURCE -DKTRACE_VERSION='"$(VERSION)"' -Ilib -Icmd \
	-I$(B)/gen $(PKG_CFLAGS) $(CMD_PKG_CFLAGS) $(PPROF_CFLAGS)
# Header dependencies come from the compiler (-MMD -MP, build/**/*.d).
DEP_FLAGS = -MMD -MP

# The shared library's file: the soname's number, then the release's minor
# and patch (libktrace.so.1.2.0 for soname 1, release 0.2.0), as libbpf names
# its files; the soname moves only when the ABI breaks.
SHLIB_NAME := libktrace.so.$(SOVERSION).$(word 2,$(subst ., ,$(VERSION))).$(word 3,$(subst ., ,$(VERSION)))
SHLIB := $(B)/$(SHLIB_NAME)
LIB_SRCS := $(sort $(wildcard lib/*.c lib/*/*.c))
CMD_SRCS := $(sort $(filter-out cmd/main.c,$(wildcard cmd/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(B)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(B)/%)
TARGET_SRCS := $(sort $(wildcard tests/targets/*.c tests/targets/*.cc))
TARGET_BINS := $(patsubst %.cc,$(B)/%,$(patsubst %.c,$(B)/%,$(TARGET_SRCS)))
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:%.c=$(B)/%)

.PHONY: all clean install uninstall FORCE check-docs check check-unit check-integration check-vm \
	check-static analyze check-unused check-exports targets examples bench \
	check-fuzz fuzz check-asan asan-build arm64 ktrace-static check-layers

all: ktrace $(SHLIB)

HDRS := $(wildcard lib/*.h lib/*/*.h cmd/*.h)

# Every object depends on the flags it was built with: a changed CFLAGS,
# WERROR or version rebuilds (build/flags holds the last ones).
FLAGS_NOW := $(CC) $(CFLAGS) $(KT_CFLAGS) $(LDFLAGS)
$(B)/flags: FORCE
	@mkdir -p $(B)
	@echo '$(subst ','\'',$(FLAGS_NOW))' | cmp -s - $@ || \
		echo '$(subst ','\'',$(FLAGS_NOW))' >$@
# The same for the link of the ktrace binaries (STATIC, pkg-config's
# answers): a change relinks them and rebuilds nothing else.
LINK_NOW := $(KTRACE_LIBS) | $(STATIC_LIBS)
$(B)/link-flags: FORCE
	@mkdir -p $(B)
	@echo '$(subst ','\'',$(LINK_NOW))' | cmp -s - $@ || \
		echo '$(subst ','\'',$(LINK_NOW))' >$@
FORCE:

# The git version for ktrace --version, in a header only cmd/ktrace.c
# includes, rewritten only when it changes.
$(B)/gen/ktrace_version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define KTRACE_FULL_VERSION "$(FULL_VERSION)"' | cmp -s - $@ || \
		echo '#define KTRACE_FULL_VERSION "$(FULL_VERSION)"' >$@
$(B)/cmd/ktrace.o: $(B)/gen/ktrace_version.h

# libktrace: position independent (it is also a shared library), one
# section per function (scripts/check-unused.sh) and every symbol hidden but
# the public API (lib/ktrace.h makes its declarations visible), so that the
# installed libraries export ktrace_* only.
LIB_CFLAGS := -fPIC -ffunction-sections -fvisibility=hidden

$(B)/lib/%.o: lib/%.c $(B)/flags
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(KT_CFLAGS) $(LIB_CFLAGS) $(DEP_FLAGS) -c -o $@ $<

$(B)/%.o: %.c $(B)/flags
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(KT_CFLAGS) $(DEP_FLAGS) -c -o $@ $<

-include $(shell find $(B) -name '*.d' 2>/dev/null)

$(B)/libktrace.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The installed archive: one relocatable object whose library-internal
# (hidden) symbols are made local, so only ktrace_* is left to link with.
$(B)/install/libktrace.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(B)/install/libktrace.o $^
	objcopy --localize-hidden $(B)/install/libktrace.o
	@rm -f $@
	ar rcs $@ $(B)/install/libktrace.o

# The shared library: soname libktrace.so.$(SOVERSION), ktrace_* only
# (lib/libktrace.map), its dependencies as DT_NEEDED.
$(SHLIB): $(LIB_OBJS) lib/libktrace.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libktrace.so.$(SOVERSION) \
		-Wl,--version-script=lib/libktrace.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJS) $(PKG_LIBS) $(LDFLAGS)

# pprof's messages (cmd/pprof.proto) as C, generated by protoc-c into
# $(B)/gen, compiled into the command.
$(B)/gen/pprof.pb-c.c $(B)/gen/pprof.pb-c.h: cmd/pprof.proto
	@mkdir -p $(B)/gen
	$(if $(Q),@echo "  PROTOC  $<")
	$(Q)protoc-c --c_out=$(B)/gen --proto_path=cmd $<
$(B)/gen/pprof.pb-c.o: $(B)/gen/pprof.pb-c.c $(B)/flags
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(KT_CFLAGS) $(DEP_FLAGS) -c -o $@ $<
$(B)/cmd/pprof.o: $(B)/gen/pprof.pb-c.h
CMD_OBJS += $(B)/gen/pprof.pb-c.o

$(B)/libktrace-cmd.a: $(CMD_OBJS)
	@rm -f $@
	ar rcs $@ $^

KTRACE_OBJS := $(B)/cmd/main.o $(B)/libktrace-cmd.a $(B)/libktrace.a
STATIC_OBJS := $(B)/cmd/main.o $(B)/cmd/static/httpd_none.o \
	$(B)/libktrace-cmd.a $(B)/libktrace.a
LINK_OBJS := $(if $(filter 1,$(STATIC)),$(STATIC_OBJS),$(KTRACE_OBJS))
$(KTRACE_BIN): $(LINK_OBJS) $(B)/link-flags
	$(CC) $(CFLAGS) -o $@ $(LINK_OBJS) $(KTRACE_LIBS) $(LDFLAGS)

# The static binary beside the default one (same objects), whatever STATIC
# says: what the VM tier copies into its initramfs and
# tests/integration/t_static.sh checks.
ktrace-static: $(B)/static/ktrace
$(B)/static/ktrace: $(STATIC_OBJS) $(B)/link-flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(STATIC_OBJS) $(STATIC_LIBS) $(LDFLAGS)

# Unit tests: each tests/unit/test_X.c is one cmocka binary, linked with the
# CLI objects too so that commands can be called in-process.
$(B)/tests/unit/%: tests/unit/%.c $(B)/libktrace-cmd.a $(B)/libktrace.a $(B)/flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) $(CMOCKA_CFLAGS) $(DEP_FLAGS) -Itests/unit -o $@ $< \
		$(B)/libktrace-cmd.a $(B)/libktrace.a $(DYNAMIC_LIBS) $(CMOCKA_LIBS)

# Programs the tests trace. Built with debuginfo, no optimisation games;
# chain is built as Debian builds its binaries (-O2, no frame pointers).
$(B)/tests/targets/chain: tests/targets/chain.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fomit-frame-pointer -Wall -o $@ $<

$(B)/tests/targets/%: tests/targets/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -Wall -o $@ $<

$(B)/tests/targets/%: tests/targets/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -Wall -o $@ $< -lpthread

# Examples see the public header only (alone in build/include), as a
# program built against the installed library does.
$(B)/include/ktrace.h: lib/ktrace.h
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/examples/%: examples/%.c $(B)/libktrace.a $(B)/include/ktrace.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=gnu11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
		-I$(B)/include -o $@ $< $(B)/libktrace.a $(PKG_LIBS)

# Integration helpers that call libktrace's internals.
$(B)/tests/integration/%: tests/integration/%.c $(B)/libktrace.a $(B)/flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -o $@ $< $(B)/libktrace.a $(PKG_LIBS)

targets: $(TARGET_BINS) $(B)/tests/integration/fmtcheck_all
examples: $(EXAMPLE_BINS)

check-unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

check-integration: ktrace targets examples $(SHLIB)
	@KT_WERROR=$(WERROR) KT_STATIC=$(STATIC) tests/integration/run.sh

# ktrace (static: one file for the initramfs) and the test targets
# cross-built for arm64 (the arm64 -dev packages and the cross compiler
# come from `scripts/deps.sh vm`), for the VM tier's arm64 kernels.
ARM64_PKG_CONFIG_LIBDIR := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
arm64:
	$(Q)PKG_CONFIG_LIBDIR=$(ARM64_PKG_CONFIG_LIBDIR) $(MAKE) -s B=$(B)/arm64 \
		KTRACE_BIN=$(B)/arm64/ktrace STATIC=1 CC=aarch64-linux-gnu-gcc \
		CXX=aarch64-linux-gnu-g++ WERROR=$(WERROR) \
		$(B)/arm64/ktrace $(TARGET_BINS:$(B)/%=$(B)/arm64/%) \
		$(B)/arm64/tests/integration/fmtcheck_all

# Debian's 6.1 and 6.12 kernels for x86-64 and arm64 under qemu (TCG),
# booting the static ktrace (the dynamic one is the other tiers').
VM_KERNELS ?= arm64-6.1 arm64-6.12 6.1 6.12
check-vm: ktrace-static targets $(if $(findstring arm64,$(VM_KERNELS)),arm64)
	@KTRACE_VM_KERNELS="$(VM_KERNELS)" tests/vm/run.sh

# Static checks: clang's analyzer finds nothing, no function of lib/ is
# dead (only tests calling it), the installed library exports ktrace_* only.
analyze:
	@rm -rf $(B)/scan
	scan-build --status-bugs -o $(B)/scan/report $(MAKE) -s B=$(B)/scan \
		$(B)/scan/libktrace.a $(B)/scan/libktrace-cmd.a $(B)/scan/cmd/main.o

# Built apart without inlining: a function inlined into its own file's
# callers is used, not dead.
check-unused:
	@rm -rf $(B)/unused
	@$(MAKE) -s B=$(B)/unused CFLAGS="-O2 -g0 -fno-inline" \
		$(B)/unused/libktrace.a $(B)/unused/libktrace-cmd.a \
		$(B)/unused/cmd/main.o >/dev/null
	@CC="$(CC)" KT_CFLAGS="-O2 -g0 -fno-inline $(KT_CFLAGS)" \
		scripts/check-unused.sh $(B)/unused $(PKG_LIBS) $(CMD_PKG_LIBS) \
		$(PPROF_LIBS)

check-exports: $(B)/install/libktrace.a $(SHLIB)
	@bad=$$(nm -g --defined-only $< | awk 'NF == 3 && $$3 !~ /^ktrace_/ { print $$3 }'); \
	if [ -n "$$bad" ]; then echo "check-exports: libktrace.a exports internals:" $$bad; exit 1; fi; \
	echo "check-exports: libktrace.a exports $$(nm -g --defined-only $< | grep -c ' T ktrace_') ktrace_* functions and nothing else"
	@bad=$$(nm -D --defined-only $(SHLIB) | awk 'NF == 3 && $$3 !~ /^ktrace_/ && $$3 != "KTRACE_$(SOVERSION)" { print $$3 }'); \
	if [ -n "$$bad" ]; then echo "check-exports: $(SHLIB) exports internals:" $$bad; exit 1; fi; \
	so=$$(readelf -d $(SHLIB) | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'); \
	[ "$$so" = libktrace.so.$(SOVERSION) ] || { echo "check-exports: soname '$$so'"; exit 1; }; \
	echo "check-exports: $(SHLIB) (soname $$so) exports $$(nm -D --defined-only $(SHLIB) | grep -c ' T ktrace_') ktrace_* functions and nothing else"

# The documentation: man pages lint clean (mandoc), every option of the
# code is in its page and back, every function libktrace exports is in a
# man3 page with its prototype and back, the bash completion gives what it
# should.
check-docs: ktrace $(SHLIB)
	@for f in man/*.[0-9]; do mandoc -Tlint -Wwarning $$f || exit 1; done; \
		echo "check-docs: $$(ls man/*.[0-9] | wc -l) man pages lint clean"
	@tests/docs/man_options.py .
	@tests/docs/man_api.py . $(SHLIB)
	@tests/docs/completion.sh ./ktrace

# The tree's shape (scripts/check-layers.py): no function of lib/ or cmd/
# over 100 lines, no circle between the files of a lib/ folder (from the
# objects), no include or call a layer up; its self-test on a fixture
# tree first shows that each check fails where it must.
check-layers: $(LIB_OBJS) $(CMD_OBJS)
	@CC="$(CC)" scripts/check-layers.py --self-test tests/fixtures/layers
	@scripts/check-layers.py --build $(B)

check-static: check-layers analyze check-unused check-exports check-docs

# Fuzzing (fuzz/): libFuzzer targets for the hostile inputs (probe specs,
# filters, format text, record files, hist text). `make fuzz FUZZ_SECONDS=N` builds
# them with clang, ASan and UBSan and runs each for N seconds (new inputs
# under build/fuzz/corpus, crashes under build/fuzz/crashes); `make check`
# replays the corpora and crash regressions in the tree with the normal
# compiler (check-fuzz: seconds).
FUZZ_TARGETS := spec filter format kfile hist
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang-14
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined

$(B)/fuzz/replay-%: fuzz/fuzz_%.c fuzz/replay.c fuzz/common.c fuzz/fuzz.h \
		$(B)/libktrace.a $(B)/flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -Ifuzz -o $@ fuzz/fuzz_$*.c fuzz/replay.c \
		fuzz/common.c $(B)/libktrace.a $(PKG_LIBS)

check-fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/replay-%)
	@for t in $(FUZZ_TARGETS); do \
		$(B)/fuzz/replay-$$t fuzz/corpus/$$t fuzz/regress/$$t || exit 1; \
	done

fuzz:
	$(Q)$(MAKE) -s B=$(B)/fuzzlib CC=$(FUZZ_CC) WERROR=0 \
		CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		$(B)/fuzzlib/libktrace.a
	$(Q)mkdir -p $(B)/fuzz
	$(Q)for t in $(FUZZ_TARGETS); do \
		$(FUZZ_CC) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer \
			-std=gnu11 -D_GNU_SOURCE -Ilib -Ifuzz $(PKG_CFLAGS) \
			-o $(B)/fuzz/fuzz-$$t fuzz/fuzz_$$t.c fuzz/common.c \
			$(B)/fuzzlib/libktrace.a $(PKG_LIBS) || exit 1; \
	done
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus/$$t $(B)/fuzz/crashes/$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=fuzz/lsan.supp \
			$(B)/fuzz/fuzz-$$t \
			-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/crashes/$$t/ \
			$(B)/fuzz/corpus/$$t fuzz/corpus/$$t \
			>$(B)/fuzz/$$t.log 2>&1; \
		echo "fuzz: $$t: exit $$?, $$(grep -o 'stat::number_of_executed_units: *[0-9]*' $(B)/fuzz/$$t.log | grep -o '[0-9]*$$') execs, $$(ls $(B)/fuzz/crashes/$$t | wc -l) crashes"; \
	done

# The unit and integration tiers again, built with ASan and UBSan (any
# error stops the process and fails its test). Leaks are reported in the
# unit tier (libtraceevent's and libtracefs's own are suppressed); the
# integration tier kills processes on purpose, so it looks for memory
# errors only. Linked dynamically whatever STATIC says: the sanitizers'
# runtimes are shared libraries.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
ASAN_UNIT := $(UNIT_SRCS:%.c=$(B)/asan/%)
asan-build:
	$(Q)$(MAKE) -s B=$(B)/asan KTRACE_BIN=$(B)/asan/ktrace STATIC=0 \
		CFLAGS="$(ASAN_FLAGS)" WERROR=$(WERROR) \
		$(B)/asan/ktrace $(ASAN_UNIT) $(B)/asan/tests/integration/fmtcheck_all
check-asan: targets examples $(SHLIB) asan-build
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp \
		UBSAN_OPTIONS=print_stacktrace=1 tests/run-unit.sh $(ASAN_UNIT)
	$(Q)ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		KTRACE=$(CURDIR)/$(B)/asan/ktrace KT_FMTCHECK=$(B)/asan/tests/integration/fmtcheck_all \
		KT_WERROR=$(WERROR) tests/integration/run.sh

# make check: every tier, in under 25 minutes on two CPUs. The VM tier's
# guests (qemu, one CPU each, CPU bound) boot in the background as soon as
# their binaries are built, at the lowest CPU priority (nice 19: the host
# tiers' timing checks, such as top's sample rate, keep the CPU they
# need); the host tiers run meanwhile, one after the other, their builds
# made first in parallel (CHECK_JOBS: the CPUs), the static checks' too.
# While the host takes both CPUs the guests nearly stop and their clocks
# (the host's) go on: their timeouts, which catch hangs, are longer here
# (a kernel's whole run 1500 s, a script 240 s; three times that on
# arm64). The VM tier's report ($(B)/vm/check.out) comes last. Every
# tier runs whatever another said; make check fails if any failed.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# (a machine busy with other work starves nice 19 guests: CHECK_VM_NICE=0
# shares the CPUs evenly, and top's sample rate may then fall short)
CHECK_VM_NICE ?= 19
CHECK_HOST_TIERS := check-static check-unit check-fuzz check-integration check-asan
check:
	@t0=$$(date +%s); st=0; failed=; \
	$(MAKE) -j$(CHECK_JOBS) ktrace ktrace-static targets \
		$(if $(findstring arm64,$(VM_KERNELS)),arm64) || exit 1; \
	mkdir -p $(B)/vm; rm -f $(B)/vm/check.out $(B)/vm/check.rc; \
	echo "check: VM tier ($(VM_KERNELS)) started in the background after $$(($$(date +%s) - t0)) s, output in $(B)/vm/check.out"; \
	(KTRACE_VM_KERNELS="$(VM_KERNELS)" \
		KTRACE_VM_TIMEOUT=$${KTRACE_VM_TIMEOUT:-1500} \
		KTRACE_VM_TEST_TIMEOUT=$${KTRACE_VM_TEST_TIMEOUT:-240} \
		nice -n $(CHECK_VM_NICE) tests/vm/run.sh \
		>$(B)/vm/check.out 2>&1 & echo $$! >$(B)/check-vm.pid; \
		wait $$!; echo $$? >$(B)/vm/check.rc) & vm=$$!; \
	trap 'kill -TERM $$(cat $(B)/check-vm.pid) 2>/dev/null; exit 130' INT TERM; \
	$(MAKE) -j$(CHECK_JOBS) $(SHLIB) examples $(UNIT_BINS) \
		$(FUZZ_TARGETS:%=$(B)/fuzz/replay-%) asan-build || \
		{ st=1; failed=builds; }; \
	echo "check: builds done after $$(($$(date +%s) - t0)) s"; \
	for t in $(CHECK_HOST_TIERS); do \
		t1=$$(date +%s); \
		$(MAKE) --no-print-directory $$(case $$t in check-static) \
			echo -j$(CHECK_JOBS) -Otarget ;; esac) $$t || \
			{ st=1; failed="$$failed $$t"; }; \
		echo "check: $$t: $$(($$(date +%s) - t1)) s"; \
	done; \
	t1=$$(date +%s); echo "check: waiting for the VM tier"; \
	wait $$vm; cat $(B)/vm/check.out; \
	echo "check: check-vm: $$(($$(date +%s) - t1)) s after the host tiers"; \
	[ "$$(cat $(B)/vm/check.rc 2>/dev/null)" = 0 ] || \
		{ st=1; failed="$$failed check-vm"; }; \
	echo "check: $$(($$(date +%s) - t0)) s in all$${failed:+; failed:$$failed}"; \
	exit $$st

bench: ktrace targets
	@bench/run.sh

# What goes where (DESTDIR for staging): the binary, libktrace (shared,
# static, header, pkg-config file), man pages (and a FUNCTION.3 link to the
# man3 page whose NAME lists it: `man ktrace_record_open`), bash and zsh
# completion, the probe sets. ktrace finds its probe sets next to where it
# is installed (BINDIR/../share/ktrace/probes), so PREFIX matters only here.
MAN3_LINKS := $(addsuffix .3,$(shell sed -n 's/^\.Nm \(ktrace_[a-z0-9_]*\).*/\1/p' man/*.3))
install: ktrace $(SHLIB) $(B)/install/libktrace.a
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(DATADIR)/ktrace/probes \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions \
		$(DESTDIR)$(SYSTEMDDIR)
	install -m 0755 ktrace $(DESTDIR)$(BINDIR)/ktrace
	sed 's|@BINDIR@|$(BINDIR)|' systemd/ktrace-export.service.in \
		>$(DESTDIR)$(SYSTEMDDIR)/ktrace-export.service
	install -m 0644 lib/ktrace.h $(DESTDIR)$(INCLUDEDIR)/ktrace.h
	install -m 0755 $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SHLIB_NAME)
	ln -sf $(SHLIB_NAME) $(DESTDIR)$(LIBDIR)/libktrace.so.$(SOVERSION)
	ln -sf libktrace.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libktrace.so
	install -m 0644 $(B)/install/libktrace.a $(DESTDIR)$(LIBDIR)/libktrace.a
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
		-e 's|@REQUIRES_PRIVATE@|$(PKGS)|' lib/libktrace.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/libktrace.pc
	install -m 0644 probes/*.probe probes/*.hist $(DESTDIR)$(DATADIR)/ktrace/probes/
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 completion/ktrace.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/ktrace
	sed 's|@DATADIR@|$(DATADIR)|' completion/_ktrace.in \
		>$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ktrace
	ln -sf ktrace-enable.1 $(DESTDIR)$(MANDIR)/man1/ktrace-disable.1
	for p in man/*.3; do \
		for f in $$(sed -n 's/^\.Nm \(ktrace_[a-z0-9_]*\).*/\1/p' $$p); do \
			ln -sf $${p#man/} $(DESTDIR)$(MANDIR)/man3/$$f.3 || exit 1; \
		done; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ktrace $(DESTDIR)$(INCLUDEDIR)/ktrace.h \
		$(DESTDIR)$(LIBDIR)/$(SHLIB_NAME) \
		$(DESTDIR)$(LIBDIR)/libktrace.so.$(SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libktrace.so $(DESTDIR)$(LIBDIR)/libktrace.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/libktrace.pc \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/ktrace \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ktrace \
		$(DESTDIR)$(MANDIR)/man1/ktrace-disable.1 \
		$(DESTDIR)$(SYSTEMDDIR)/ktrace-export.service
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/*.3))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(MAN3_LINKS)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5)))
	rm -rf $(DESTDIR)$(DATADIR)/ktrace

clean:
	rm -rf $(B) ktrace
