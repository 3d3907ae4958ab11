# SPDX-License-Identifier: GPL-2.0-only
# ktrace build. `make`, `make check`, `make clean`, `make install PREFIX=... DESTDIR=...`

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

PKGS := libtracefs libtraceevent libdw libelf libbpf
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
# The ktrace binary carries libdw, libelf and libbpf (their .a files come
# with the -dev packages): loading three more shared objects at every start
# costs ~1 ms, as much as `ktrace list` itself. STATIC_DEPS=0 links them
# dynamically.
STATIC_DEPS ?= 1
ifeq ($(STATIC_DEPS),1)
KTRACE_LIBS := $(shell $(PKG_CONFIG) --libs libtracefs libtraceevent) \
	-Wl,-Bstatic -lbpf -ldw -lelf -Wl,-Bdynamic \
	-Wl,--as-needed -lz -llzma -lbz2 -pthread -Wl,--no-as-needed
else
KTRACE_LIBS := $(PKG_LIBS)
endif
# ktrace top draws its screen with ncurses (only the CLI links it).
CURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

VERSION := 0.1.0
KT_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-DKTRACE_VERSION='"$(VERSION)"' \
	-DKTRACE_PROBES_DIR='"$(PREFIX)/share/ktrace/probes"' \
	-Ilib -Icmd $(PKG_CFLAGS)

B := build
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

.PHONY: all clean install check check-unit check-integration check-vm \
	check-static analyze check-unused check-exports targets examples bench

all: ktrace

HDRS := $(wildcard lib/*.h lib/*/*.h cmd/*.h)

# libktrace: one section per function (scripts/check-unused.sh) and every
# symbol hidden but the public API (lib/ktrace.h makes its declarations
# visible), so that the installed library exports ktrace_* only.
LIB_CFLAGS := -ffunction-sections -fvisibility=hidden

$(B)/lib/%.o: lib/%.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(KT_CFLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(KT_CFLAGS) -c -o $@ $<

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

$(B)/libktrace-cmd.a: $(CMD_OBJS)
	@rm -f $@
	ar rcs $@ $^

ktrace: $(B)/cmd/main.o $(B)/libktrace-cmd.a $(B)/libktrace.a
	$(CC) $(CFLAGS) -o $@ $^ $(KTRACE_LIBS) $(CURSES_LIBS) $(LDFLAGS)

# Unit tests: each tests/unit/test_X.c is one cmocka binary, linked with the
# CLI objects too so that commands can be called in-process.
$(B)/tests/unit/%: tests/unit/%.c $(B)/libktrace-cmd.a $(B)/libktrace.a $(HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit -o $@ $< \
		$(B)/libktrace-cmd.a $(B)/libktrace.a $(PKG_LIBS) $(CURSES_LIBS) \
		$(CMOCKA_LIBS)

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

$(B)/examples/%: examples/%.c $(B)/libktrace.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -o $@ $< $(B)/libktrace.a $(PKG_LIBS)

targets: $(TARGET_BINS)
examples: $(EXAMPLE_BINS)

check-unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

check-integration: ktrace targets examples
	@tests/integration/run.sh

check-vm: ktrace targets
	@tests/vm/run.sh

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
		scripts/check-unused.sh $(B)/unused $(PKG_LIBS) $(CURSES_LIBS)

check-exports: $(B)/install/libktrace.a
	@bad=$$(nm -g --defined-only $< | awk 'NF == 3 && $$3 !~ /^ktrace_/ { print $$3 }'); \
	if [ -n "$$bad" ]; then echo "check-exports: libktrace.a exports internals:" $$bad; exit 1; fi; \
	echo "check-exports: libktrace.a exports $$(nm -g --defined-only $< | grep -c ' T ktrace_') ktrace_* functions and nothing else"

check-static: analyze check-unused check-exports

check: check-static check-unit check-integration check-vm

bench: ktrace targets
	@bench/run.sh

install: ktrace $(B)/install/libktrace.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/ktrace/probes
	install -m 0755 ktrace $(DESTDIR)$(PREFIX)/bin/ktrace
	install -m 0644 lib/ktrace.h $(DESTDIR)$(PREFIX)/include/ktrace.h
	install -m 0644 $(B)/install/libktrace.a $(DESTDIR)$(PREFIX)/lib/libktrace.a
	install -m 0644 probes/*.probe $(DESTDIR)$(PREFIX)/share/ktrace/probes/

clean:
	rm -rf $(B) ktrace
