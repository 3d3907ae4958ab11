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
TARGET_SRCS := $(sort $(wildcard tests/targets/*.c))
TARGET_BINS := $(TARGET_SRCS:%.c=$(B)/%)
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:%.c=$(B)/%)

.PHONY: all clean install check check-unit check-integration check-vm \
	targets examples bench

all: ktrace

HDRS := $(wildcard lib/*.h lib/*/*.h cmd/*.h)

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(KT_CFLAGS) -c -o $@ $<

$(B)/libktrace.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libktrace-cmd.a: $(CMD_OBJS)
	@rm -f $@
	ar rcs $@ $^

ktrace: $(B)/cmd/main.o $(B)/libktrace-cmd.a $(B)/libktrace.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDFLAGS)

# Unit tests: each tests/unit/test_X.c is one cmocka binary, linked with the
# CLI objects too so that commands can be called in-process.
$(B)/tests/unit/%: tests/unit/%.c $(B)/libktrace-cmd.a $(B)/libktrace.a $(HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit -o $@ $< \
		$(B)/libktrace-cmd.a $(B)/libktrace.a $(PKG_LIBS) $(CMOCKA_LIBS)

# Programs the tests trace. Built with debuginfo, no optimisation games.
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

check: check-unit check-integration check-vm

bench: ktrace targets
	@bench/run.sh

install: ktrace
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/ktrace/probes
	install -m 0755 ktrace $(DESTDIR)$(PREFIX)/bin/ktrace
	install -m 0644 lib/ktrace.h $(DESTDIR)$(PREFIX)/include/ktrace.h
	install -m 0644 $(B)/libktrace.a $(DESTDIR)$(PREFIX)/lib/libktrace.a
	install -m 0644 probes/*.probe $(DESTDIR)$(PREFIX)/share/ktrace/probes/

clean:
	rm -rf $(B) ktrace
