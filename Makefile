# toed - top-level build.
#
#   make            build everything into $(BUILD)/ (release flags)
#   make test       build the ASan/UBSan variants and run every test
#   make bench      run the benchmarks (release flags)
#   make fuzz       run each libFuzzer target for FUZZ_SECONDS
#   make demo       decode the bundled sample feed with the software path
#   make install    install into $(DESTDIR)$(PREFIX)
#
# Sources are found by folder, so a new file needs no Makefile change:
#   kernels/<block>/*.c        synthesisable core       -> libtoecore.a
#   kernels/<block>/host/*.c   host-only code (heap, libc, SIMD) -> libtoecore.a
#   client-lib/src/*.c         libtoeclient (.a and .so, exports toe_* only)
#   client-lib/examples/*.c    example programs linked with libtoeclient
#   daemon/<room>/*.c          daemon modules -> libtoed.a (base, conf, src, card, dp, ctl);
#                              daemon/main/<name>.c are the daemon's programs (toed, toectl)
#   tools/<name>.c             one command-line tool each
#   tools/feed/*.c             the tools' shared host code (generator, pacing, sockets, feed detection) -> libtoefeed.a
#   tests/lib/*.c              test helpers and test doubles (the fake card) -> libtoetest.a
#   tests/unit/test_*.c        one test program each (ASan+UBSan)
#   tests/*/test_*.sh          test scripts, run by tests/run.sh
#   tests/integration/*.c      helper programs of the integration tests (toed_test: toed with test doubles)
#   daemon/src/bpf/*.bpf.c         XDP/tc programs (clang -target bpf)
#   tests/unit/tsan_*.c        thread tests, built with ThreadSanitizer
#   tests/fuzz/fuzz_*.c        libFuzzer targets (clang)
#   tests/fuzz/gen_*.c         seed-corpus generators (release flags, $(BUILD)/fuzz-gen/)
#   tests/bench/bench_*.c      benchmarks

BUILD   ?= build
# every CPU unless the command line says otherwise (make -jN, or JOBS=N): a fresh `make test` compiles
# four variants of the tree (release, ASan/UBSan, TSan, libFuzzer), most of its time on CI's 2 cores
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
# (not with `clean` among the goals: `make clean test` must not build while it deletes)
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(JOBS)
endif
VERSION := 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
CC      := gcc
FUZZCC  ?= clang
FUZZ_SECONDS ?= 300

WARN     := -Wall -Wextra -Werror
CSTD     := -std=c11
INCLUDES := -Iclient-lib/include -Ikernels -Idaemon -Itools -Itests/lib
# TOE_CPU_DECODER: host builds may hand records to the CPU fast decoder (kernels/fast/host/,
# the guarded seam in kernels/rx/rx_pipe.c); the card build never defines it.
# TOE_HOST_FAST: host builds take host-only fast paths at guarded seams of the kernels (Internet checksums
# with SIMD: kernels/net/host/, the seam in net_csum.c; libc memcpy for the general TOE's buffer copies
# and its direct delivery); the card build never defines it, test_hw_csim.sh not for its C++ tops, which
# it links with this build's ASan kernels when they are up to date: no struct changes layout with it.
DEFS      = -D_GNU_SOURCE -DTOE_CPU_DECODER -DTOE_HOST_FAST -DTOED_DATADIR=\"$(PREFIX)/share/toed\" -DTOED_LIBDIR=\"$(PREFIX)/lib/toed\"
DEPFLAGS  = -MMD -MP
# Release builds optimise across files at link time (-flto): the receive path runs through the rx
# pipeline, the stream glue, the STEP framer and the record decoder, each its own file, and inlining
# across them measured 5-8 % more throughput (bench_rx, CPU 1: fastx_in_order 7.7-7.9 -> 8.1-8.3 Gb/s,
# alternated runs). Not for the client library: libtoeclient.a is installed, and an archive of GCC's
# LTO objects links only with this very compiler.
LTO      := -flto=auto
RELFLAGS  = -O2 -g $(LTO)
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

PKGS     := libxml-2.0 libpcap inih libxdp libbpf liburing libsystemd
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# what each kind of program links: the core needs libxml2 (template compiler), the tools libpcap too
CORE_PKG_LIBS = $(shell pkg-config --libs libxml-2.0 2>/dev/null)
TOOL_PKG_LIBS = $(shell pkg-config --libs libxml-2.0 libpcap 2>/dev/null)
# XRT (the card backend): daemon/card/card_xrt.c is real only with Debian's libxrt-dev; without it, it
# builds as a stub that says so. Link order per design.md: coreutil alone aborts without XILINX_XRT.
HAVE_XRT := $(shell test -f /usr/include/xrt/xrt/xrt_device.h -a -f /usr/include/uuid/uuid.h && echo 1)
ifeq ($(HAVE_XRT),1)
XRT_CFLAGS := -DTOED_HAVE_XRT -isystem /usr/include/xrt
XRT_LIBS   := -Wl,--no-as-needed -lxrt_core -Wl,--as-needed -lxrt_coreutil -luuid -lstdc++
DLIB_CXX   := $(wildcard daemon/card/*.cpp)
endif
LIBS       = $(PKG_LIBS) $(XRT_LIBS) -lm

CFLAGS_REL = $(CSTD) $(WARN) $(DEFS) $(INCLUDES) $(PKG_CFLAGS) $(RELFLAGS) $(DEPFLAGS)
CFLAGS_SAN = $(CSTD) $(WARN) $(DEFS) $(INCLUDES) $(PKG_CFLAGS) $(SANFLAGS) $(DEPFLAGS)

CORE_SRC  := $(wildcard kernels/*/*.c) $(wildcard kernels/*/host/*.c)
CLIB_SRC  := $(wildcard client-lib/src/*.c)
DLIB_SRC  := $(filter-out daemon/main/%,$(wildcard daemon/*/*.c))
DMAIN_SRC := $(wildcard daemon/main/*.c)
EXAM_SRC  := $(wildcard client-lib/examples/*.c)
TLIB_SRC  := $(wildcard tests/lib/*.c)
TOOL_SRC  := $(wildcard tools/*.c)
FEED_SRC  := $(wildcard tools/feed/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FZGEN_SRC := $(wildcard tests/fuzz/gen_*.c)
TSAN_SRC  := $(wildcard tests/unit/tsan_*.c)
ITEST_SRC := $(filter-out %.bpf.c,$(wildcard tests/integration/*.c))
BPF_SRC   := $(wildcard daemon/src/bpf/*.bpf.c tests/integration/*.bpf.c)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)

REL_CORE  := $(BUILD)/lib/libtoecore.a
SAN_CORE  := $(BUILD)/asan/lib/libtoecore.a
SAN_TLIB  := $(BUILD)/asan/lib/libtoetest.a
REL_TLIB  := $(BUILD)/lib/libtoetest.a
REL_FEED  := $(BUILD)/lib/libtoefeed.a
SAN_FEED  := $(BUILD)/asan/lib/libtoefeed.a

REL_CLIB  := $(BUILD)/lib/libtoeclient.a
SAN_CLIB  := $(BUILD)/asan/lib/libtoeclient.a
SO_CLIB   := $(BUILD)/lib/libtoeclient.so
REL_DLIB  := $(BUILD)/lib/libtoed.a
SAN_DLIB  := $(BUILD)/asan/lib/libtoed.a

TOOLS     := $(patsubst tools/%.c,$(BUILD)/bin/%,$(TOOL_SRC)) \
	     $(patsubst daemon/main/%.c,$(BUILD)/bin/%,$(DMAIN_SRC)) \
	     $(patsubst client-lib/examples/%.c,$(BUILD)/bin/%,$(EXAM_SRC))
SAN_TOOLS := $(patsubst $(BUILD)/bin/%,$(BUILD)/asan/bin/%,$(TOOLS))
UNITS     := $(patsubst tests/unit/%.c,$(BUILD)/test/%,$(UNIT_SRC))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FZGENS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-gen/%,$(FZGEN_SRC))
TSANS     := $(patsubst tests/unit/%.c,$(BUILD)/tsan/%,$(TSAN_SRC))
ITESTS    := $(patsubst tests/integration/%.c,$(BUILD)/itest/%,$(ITEST_SRC))
BPF_OBJS  := $(patsubst %.bpf.c,$(BUILD)/bpf/%.bpf.o,$(notdir $(BPF_SRC)))
DAEMON_BPF := $(patsubst daemon/src/bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(wildcard daemon/src/bpf/*.bpf.c))
BENCHES   := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

DEPS_OK   := $(BUILD)/.deps-ok

.PHONY: all deps test bench fuzz demo install clean test-build xclbin
# objects reached only through pattern rules are kept, so a rebuild recompiles only what changed
.SECONDARY:
.DEFAULT_GOAL := all

UNINST_PC := $(BUILD)/lib/pkgconfig/toeclient-uninstalled.pc

all: $(DEPS_OK) $(REL_CORE) $(REL_CLIB) $(if $(CLIB_SRC),$(SO_CLIB) $(SO_CLIB).1 $(UNINST_PC)) $(TOOLS) $(BPF_OBJS)

# --- dependencies (Debian packages) ---------------------------------------
$(DEPS_OK): mk/deps.sh
	@sh mk/deps.sh
	@mkdir -p $(@D) && touch $@
deps: $(DEPS_OK)

# --- objects -------------------------------------------------------------
$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_REL) -c $< -o $@

$(BUILD)/asan/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_SAN) -c $< -o $@

$(REL_CORE): $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SAN_CORE): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(CORE_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(REL_CLIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(CLIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SAN_CLIB): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(CLIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/client-lib/%.o $(BUILD)/pic/%.o: LTO :=

# the shared library is built from position-independent objects
$(BUILD)/pic/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_REL) -fPIC -fvisibility=hidden -c $< -o $@

$(SO_CLIB): $(patsubst %.c,$(BUILD)/pic/%.o,$(CLIB_SRC)) client-lib/toeclient.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libtoeclient.so.1 -Wl,--version-script=client-lib/toeclient.map \
		$(filter %.o,$^) -lpthread -o $@
# the soname, so programs linked in the build tree run from it (toeclient-uninstalled.pc)
$(SO_CLIB).1: $(SO_CLIB)
	ln -sf libtoeclient.so $@

# pkg-config in the build tree: PKG_CONFIG_PATH=$(BUILD)/lib/pkgconfig pkg-config toeclient
$(UNINST_PC): client-lib/toeclient-uninstalled.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@SRCDIR@|$(CURDIR)|g' -e 's|@LIBDIR@|$(abspath $(BUILD))/lib|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# only card_xrt.c and the C++ wrapper see the XRT headers (a global -isystem could shadow ours)
$(BUILD)/obj/daemon/card/card_xrt.o: CFLAGS_REL += $(XRT_CFLAGS)
$(BUILD)/asan/obj/daemon/card/card_xrt.o: CFLAGS_SAN += $(XRT_CFLAGS)
CXXFLAGS_REL = -std=c++17 $(WARN) $(DEFS) $(INCLUDES) $(XRT_CFLAGS) $(RELFLAGS) $(DEPFLAGS)
CXXFLAGS_SAN = -std=c++17 $(WARN) $(DEFS) $(INCLUDES) $(XRT_CFLAGS) $(SANFLAGS) $(DEPFLAGS)
$(BUILD)/obj/%.o: %.cpp | $(DEPS_OK)
	@mkdir -p $(@D)
	g++ $(CXXFLAGS_REL) -c $< -o $@
$(BUILD)/asan/obj/%.o: %.cpp | $(DEPS_OK)
	@mkdir -p $(@D)
	g++ $(CXXFLAGS_SAN) -c $< -o $@

$(REL_DLIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(DLIB_SRC)) $(patsubst %.cpp,$(BUILD)/obj/%.o,$(DLIB_CXX))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SAN_DLIB): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(DLIB_SRC)) $(patsubst %.cpp,$(BUILD)/asan/obj/%.o,$(DLIB_CXX))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(REL_FEED): $(patsubst %.c,$(BUILD)/obj/%.o,$(FEED_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SAN_FEED): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(FEED_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(REL_TLIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(TLIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SAN_TLIB): $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(TLIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# --- programs ------------------------------------------------------------
# Each kind of program links what it uses: the daemon's programs the daemon
# modules (and XRT), the tools the core and the feed code, the client
# examples libtoeclient alone; tests and benchmarks link everything.
DAEMON_LINK = $(1)/libtoed.a $(1)/libtoeclient.a $(1)/libtoecore.a $(PKG_LIBS) $(PROG_XRT_LIBS) -lm -lpthread
PROG_XRT_LIBS = $(XRT_LIBS)
# toectl talks to toed over the control socket only: no card library
$(BUILD)/bin/toectl $(BUILD)/asan/bin/toectl: PROG_XRT_LIBS :=
TOOL_LINK   = $(1)/libtoefeed.a $(1)/libtoeclient.a $(1)/libtoecore.a $(TOOL_PKG_LIBS) -lm -lpthread
EXAM_LINK   = $(1)/libtoeclient.a -lpthread
TEST_LINK   = $(1)/libtoetest.a $(1)/libtoefeed.a $(1)/libtoed.a $(1)/libtoeclient.a $(1)/libtoecore.a \
	      $(LIBS) -lpthread
REL_LIBS = $(REL_DLIB) $(REL_CLIB) $(REL_CORE) $(REL_FEED)
SAN_LIBS = $(SAN_DLIB) $(SAN_CLIB) $(SAN_CORE) $(SAN_FEED)

$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(REL_FEED) $(REL_CLIB) $(REL_CORE)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call TOOL_LINK,$(BUILD)/lib) -o $@

$(BUILD)/bin/%: $(BUILD)/obj/daemon/main/%.o $(REL_DLIB) $(REL_CLIB) $(REL_CORE)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call DAEMON_LINK,$(BUILD)/lib) -o $@

$(BUILD)/bin/%: $(BUILD)/obj/client-lib/examples/%.o $(REL_CLIB)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call EXAM_LINK,$(BUILD)/lib) -o $@

$(BUILD)/asan/bin/%: $(BUILD)/asan/obj/tools/%.o $(SAN_FEED) $(SAN_CLIB) $(SAN_CORE)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $< $(call TOOL_LINK,$(BUILD)/asan/lib) -o $@

$(BUILD)/asan/bin/%: $(BUILD)/asan/obj/daemon/main/%.o $(SAN_DLIB) $(SAN_CLIB) $(SAN_CORE)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $< $(call DAEMON_LINK,$(BUILD)/asan/lib) -o $@

$(BUILD)/asan/bin/%: $(BUILD)/asan/obj/client-lib/examples/%.o $(SAN_CLIB)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $< $(call EXAM_LINK,$(BUILD)/asan/lib) -o $@

$(BUILD)/test/%: $(BUILD)/asan/obj/tests/unit/%.o $(SAN_TLIB) $(SAN_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $< $(call TEST_LINK,$(BUILD)/asan/lib) -o $@

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(REL_TLIB) $(REL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call TEST_LINK,$(BUILD)/lib) -o $@

# libFuzzer targets: clang compiles the core, the feed code and the test helpers (not the fake card: it
# needs the daemon) once into $(BUILD)/fuzzobj/ with coverage instrumentation (fuzzer-no-link), archives
# them, and each target links the archive plus the daemon sources it names in FUZZ_DSRC (a
# target-specific variable). Compiling every source per target cost minutes of each CI run.
FUZZ_TLIB  := $(filter-out tests/lib/card_%.c,$(TLIB_SRC))
FUZZFLAGS  = $(CSTD) $(WARN) $(DEFS) $(INCLUDES) $(PKG_CFLAGS) $(FUZZOPT) -g -fsanitize=address,undefined \
	     -fno-sanitize-recover=all $(DEPFLAGS)
FUZZ_LIB   := $(BUILD)/fuzzobj/libtoefuzz.a
FUZZOPT    = -O1
# The specialised decoder's five copies are threaded code (computed gotos): with ASan and UBSan together
# clang's -O1 takes over four minutes on this one file, the longest step of `make test` on two cores, and
# -O0 about one. The bounded run in `make test` is time-limited, so it only runs fewer inputs; a long
# `make fuzz` can take FUZZX_OPT=-O1.
FUZZX_OPT ?= -O0
$(BUILD)/fuzzobj/kernels/fast/host/fastx_decode.o: FUZZOPT = $(FUZZX_OPT)
$(BUILD)/fuzzobj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_LIB): $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(CORE_SRC) $(FEED_SRC) $(FUZZ_TLIB))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/fuzz/fuzz_config: FUZZ_DSRC = $(wildcard daemon/conf/*.c)
$(BUILD)/fuzz/fuzz_ctl: FUZZ_DSRC = daemon/ctl/ctl_proto.c daemon/dp/dp_pub.c daemon/dp/dp_shm.c daemon/base/mem_touch.c
$(BUILD)/fuzz/%: $(BUILD)/fuzzobj/tests/fuzz/%.o $(FUZZ_LIB) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(FUZZCC) -fsanitize=fuzzer,address,undefined $< $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(FUZZ_DSRC)) \
		$(FUZZ_LIB) $(LIBS) -o $@
$(BUILD)/fuzz/fuzz_config: $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(wildcard daemon/conf/*.c))
$(BUILD)/fuzz/fuzz_ctl: $(patsubst %.c,$(BUILD)/fuzzobj/%.o,daemon/ctl/ctl_proto.c daemon/dp/dp_pub.c daemon/dp/dp_shm.c daemon/base/mem_touch.c)

# seed-corpus generators (tests/tools/test_fuzz_corpus.sh checks the committed corpora against them)
$(BUILD)/fuzz-gen/%: $(BUILD)/obj/tests/fuzz/%.o $(REL_TLIB) $(REL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call TEST_LINK,$(BUILD)/lib) -o $@

# helper programs of the integration tests (release flags: they carry traffic)
$(BUILD)/itest/%: $(BUILD)/obj/tests/integration/%.o $(REL_TLIB) $(REL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(RELFLAGS) $< $(call TEST_LINK,$(BUILD)/lib) -o $@
# toed with test doubles also in the ASan/UBSan build, as toed itself: the tests run the card path under it
$(BUILD)/asan/itest/toed_test: $(BUILD)/asan/obj/tests/integration/toed_test.o $(SAN_TLIB) $(SAN_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $< $(call TEST_LINK,$(BUILD)/asan/lib) -o $@

# XDP/tc programs
BPFFLAGS = -O2 -g -Wall -Werror -target bpf -I/usr/include/$(shell gcc -dumpmachine)
$(BUILD)/bpf/%.bpf.o: daemon/src/bpf/%.bpf.c daemon/src/bpf/toe_steer.h | $(DEPS_OK)
	@mkdir -p $(@D)
	clang $(BPFFLAGS) -c $< -o $@
$(BUILD)/bpf/%.bpf.o: tests/integration/%.bpf.c | $(DEPS_OK)
	@mkdir -p $(@D)
	clang $(BPFFLAGS) -c $< -o $@

# ThreadSanitizer tests are built straight from the sources too.
$(BUILD)/tsan/%: tests/unit/%.c $(CORE_SRC) $(CLIB_SRC) $(DLIB_SRC) $(FEED_SRC) $(TLIB_SRC) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(DEFS) $(INCLUDES) $(PKG_CFLAGS) -O1 -g -fsanitize=thread \
		$< $(CORE_SRC) $(CLIB_SRC) $(DLIB_SRC) $(FEED_SRC) $(TLIB_SRC) $(LIBS) -lpthread -o $@

# --- targets -------------------------------------------------------------
test-build: all $(UNITS) $(SAN_TOOLS) $(FUZZERS) $(FZGENS) $(TSANS) $(ITESTS) $(BUILD)/asan/itest/toed_test

test: test-build
	@BUILD=$(BUILD) sh tests/run.sh

bench: all $(BENCHES)
	@BUILD=$(BUILD) sh tests/bench/run.sh

fuzz: $(FUZZERS)
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

# the card's xclbin: needs Vitis (v++); stops with a clear message where it is absent
PLATFORM ?= xilinx_u50_gen3x16_xdma_5_202210_1
xclbin:
	sh kernels/hw/build_xclbin.sh $(PLATFORM) $(BUILD)/hw

demo: all $(BUILD)/itest/mkpcap
	@BUILD=$(BUILD) sh tests/demo.sh

SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSTEMDUNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/sysusers.d,$(PREFIX)/lib/sysusers.d)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/toe \
		$(DESTDIR)$(PREFIX)/share/toed/templates $(DESTDIR)$(PREFIX)/lib/toed \
		$(DESTDIR)$(SYSCONFDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 client-lib/include/toe/*.h $(DESTDIR)$(PREFIX)/include/toe/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(REL_CLIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SO_CLIB) $(DESTDIR)$(PREFIX)/lib/libtoeclient.so.1
	ln -sf libtoeclient.so.1 $(DESTDIR)$(PREFIX)/lib/libtoeclient.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PREFIX)/lib|g' -e 's|@VERSION@|$(VERSION)|g' \
		client-lib/toeclient.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/toeclient.pc
	install -m 644 client-lib/man/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 conf/templates/*.xml $(DESTDIR)$(PREFIX)/share/toed/templates/
	$(if $(DAEMON_BPF),install -m 644 $(DAEMON_BPF) $(DESTDIR)$(PREFIX)/lib/toed/)
	[ -e $(DESTDIR)$(SYSCONFDIR)/toed.conf ] || install -m 644 conf/toed.conf $(DESTDIR)$(SYSCONFDIR)/toed.conf
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 644 systemd/toed.sysusers $(DESTDIR)$(SYSUSERSDIR)/toed.conf
	sed -e 's|/usr/bin/|$(PREFIX)/bin/|g' -e 's|/etc/toed.conf|$(SYSCONFDIR)/toed.conf|g' \
		systemd/toed.service > $(DESTDIR)$(SYSTEMDUNITDIR)/toed.service

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
