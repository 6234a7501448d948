# SPDX-License-Identifier: MIT
# cflab: entry points. `make help` lists them; mk/ holds the rule fragments.
#
#   make demo                 the main job: the simulator on the best scene this tree can run
#   make check                the whole self-test (what CI runs)
#   make test-ch3             chapter 3's tests on your code (exercises/ch03)
#   make test-ch3 [IMPL=solutions] [PRIOR=solutions|exercises] [CASE=ch03.2] [SAN=1]
#
# IMPL picks chapter N's implementation (exercises | solutions). PRIOR picks the chapters before
# N; unset, each comes from its solution when the tree has solutions/chNN (a released one in a
# handout) and from your exercises/chNN otherwise. Chapters after N are linked as their stubs.

.DEFAULT_GOAL := all
SHELL := /bin/bash

IMPL ?= exercises
PRIOR ?=
CASE ?=
SAN ?= 0
CHOLMOD ?= 0

include mk/config.mk
include mk/confine.mk
include mk/chapters.mk
-include mk/viewer.mk
-include mk/statehash.mk
-include mk/grade.mk
-include mk/book.mk
GENERAL_HELP := $(EXTRA_HELP)
-include $(sort $(wildcard mk/ch[0-9][0-9].mk))

.SECONDARY:
.PHONY: all help deps libs libtests simtests tests apps test test-lib test-sim check fuzz certify demo demo-cli exercises \
        exercises-check stubs-werror clean

all: libs libtests simtests tests apps

comma := ,
help:
	@sed -n '2,11p' Makefile | sed 's/^# \{0,1\}//'
	@echo
	@echo "Chapters (N = $(call num,$(firstword $(CHAPTER_DIRS)))..$(call num,$(lastword $(CHAPTER_DIRS))); in this tree $(call runs_,$(foreach c,$(CHAPTER_DIRS),$c:$(call released_or_yours,$c)))):"
	@echo "  test-chN [CASE=chNN.K] [SAN=1], demo-chN [DEMO=name], and a chapter's own targets:"
	@$(foreach c,$(CHAPTER_DIRS),echo "  $c  test-ch$(call num,$c)$(if $(filter $c,$(DEMO_CHAPTERS)), demo-ch$(call num,$c))$$(sed -n 's/^EXTRA_HELP += /  /p' mk/$c.mk 2>/dev/null)";)
	@echo "Other targets: test, test-lib, test-sim, fuzz, certify, exercises, exercises-check, stubs-werror, install-deps, clean,"
	@echo "  $(subst $(space),$(comma)$(space),$(strip $(GENERAL_HELP)))"

# ---- dependencies: installed on demand from Debian's packages ------------------------------
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@mkdir -p $(@D)
	@pkg-config --exists $(PKGS) 2>/dev/null || tools/install-deps
	@pkg-config --exists $(PKGS) || { echo "missing packages: run tools/install-deps" >&2; exit 1; }
	@touch $@
install-deps:
	tools/install-deps

# ---- compile: every source maps to build/<variant>/obj/<its path>.o ------------------------
$(OBJ)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

# exercise stubs leave parameters and helpers unused until the student fills them in
$(OBJ)/exercises/%.o: EXTRA_CFLAGS += $(EXERCISE_CFLAGS)
# A student's file: its warnings show when it is compiled and again after every test run of a
# binary that links it (make compiles it once): tools/keep-warnings, the shell of this rule, keeps
# them in <object>.warn. The command itself is the plain one (`make -n` shows it, the grader runs it).
$(OBJ)/exercises/%.o: SHELL := tools/keep-warnings

# the generated stubs compile without a warning: the same flags plus -Werror, objects apart
STUBS_WERROR_OBJ := $(patsubst %.c,$(BLD)/stubs-werror/%.o,$(wildcard exercises/ch[0-9][0-9]/*.c))
$(BLD)/stubs-werror/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(EXERCISE_CFLAGS) -Werror -c $< -o $@
stubs-werror: $(STUBS_WERROR_OBJ)

# ---- the library: depends on nothing above it (tools/layers checks it) ------------------
LIB_SRC := $(wildcard lib/src/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(OBJ)/%.o)

$(LIBCF): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# ---- the simulation layer: world, stages, detection, solver registry, scenes -------------
# It sits above the chapters and is the only code that calls chapter functions; binaries link
# it before the chapters they call and the library.
SIM_SRC := $(wildcard sim/*.c)
SIM_OBJ := $(SIM_SRC:%.c=$(OBJ)/%.o)

$(LIBSIM): $(SIM_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

libs: $(LIBCF) $(LIBSIM) $(CFT_OBJ)

# library tests: one binary per lib/test/test_*.c, linked with the library alone
LIBTEST_SRC := $(wildcard lib/test/test_*.c)
LIBTEST_BINS := $(LIBTEST_SRC:lib/test/%.c=$(BLD)/bin/lib/%)
$(BLD)/bin/lib/%: $(OBJ)/lib/test/%.o $(CFT_OBJ) $(LIBCF)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(CHECK_LIBS)

# simulation tests: one binary per sim/test/test_*.c, with every chapter from IMPL
SIMTEST_SRC := $(wildcard sim/test/test_*.c)
SIMTEST_BINS := $(SIMTEST_SRC:sim/test/%.c=$(BLD)/bin/$(IMPL)/sim/%)
$(BLD)/bin/$(IMPL)/sim/%: $(OBJ)/sim/test/%.o $(CFT_OBJ) $(call all_impl_objs,$(IMPL)) $(LIBSIM) $(LIBCF)
	@$(call require_impls,$(IMPL),$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(CHECK_LIBS)

libtests: $(LIBTEST_BINS)
simtests: $(SIMTEST_BINS)
tests: $(ALL_TEST_BINS)

test-lib: $(LIBTEST_BINS)
	@st=0; for t in $(LIBTEST_BINS); do \
	  CK_FORK=yes CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $$t || st=1; done; exit $$st

test-sim: $(SIMTEST_BINS)
	@st=0; for t in $(SIMTEST_BINS); do \
	  CK_FORK=yes CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $$t || st=1; done; exit $$st

# ---- applications --------------------------------------------------------------------------
APP_BIN := $(BLD)/bin/$(IMPL)
# cflab's own parts; `cflab compare` writes its PNG plots with stb (tools/cflab/plot.c)
CFLAB_OBJ := $(patsubst %.c,$(OBJ)/%.o,tools/cflab/cflab.c tools/cflab/args.c tools/cflab/compare.c tools/cflab/plot.c)
STB_CFLAGS = $(call lazy,STB_CFLAGS,pkg-config --cflags stb 2>/dev/null)
STB_LIBS = $(call lazy,STB_LIBS,pkg-config --libs stb 2>/dev/null)
$(OBJ)/tools/cflab/plot.o: EXTRA_CFLAGS += $(STB_CFLAGS)
# HDF5=1: `cflab solve` reads FCLIB's HDF5 files too (tools/cflab/fclib.c on Debian's libhdf5-dev,
# tools/install-deps --optional), as build/<v>/bin/<IMPL>-hdf5/cflab beside the default cflab; only
# that link differs (every object is shared). Without it tools/cflab/fclib_none.c refuses them.
HDF5 ?= 0
ifeq ($(HDF5),1)
CFLAB := $(APP_BIN)-hdf5/cflab
CFLAB_OBJ += $(OBJ)/tools/cflab/fclib.o
HDF5_CFLAGS = $(call lazy,HDF5_CFLAGS,pkg-config --cflags hdf5 2>/dev/null)
HDF5_LIBS = $(call lazy,HDF5_LIBS,pkg-config --libs hdf5 2>/dev/null)
$(OBJ)/tools/cflab/fclib.o: EXTRA_CFLAGS += $(HDF5_CFLAGS)
$(OBJ)/tools/cflab/fclib.o: | $(BUILD)/.hdf5-ok
$(BUILD)/.hdf5-ok:
	@pkg-config --exists hdf5 || { echo "HDF5=1: Debian's libhdf5-dev is missing (tools/install-deps --optional installs it)" >&2; exit 1; }
	@mkdir -p $(@D) && touch $@
else
CFLAB := $(APP_BIN)/cflab
CFLAB_OBJ += $(OBJ)/tools/cflab/fclib_none.o
endif
$(CFLAB): $(CFLAB_OBJ) $(call all_impl_objs,$(IMPL)) $(LIBSIM) $(LIBCF)
	@$(call require_impls,$(IMPL),$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(STB_LIBS) $(HDF5_LIBS)

apps: $(CFLAB) $(EXTRA_APPS)

# make install / uninstall (PREFIX, DESTDIR): libcf.a, headers, cflab.pc, programs, man pages
include mk/install.mk

# ---- tests ---------------------------------------------------------------------------------
test: $(ALL_TEST_BINS)
	@st=0; for c in $(CHAPTER_DIRS); do $(MAKE) --no-print-directory test-$$c || st=1; done; exit $$st

check:
	@tools/check

# ---- fuzzing: tools/fuzz (its --help says what it fails on) for FUZZ_SECONDS on FUZZ_JOBS jobs,
# on the AddressSanitizer + UBSan build of cflab; FUZZ_SEED picks the cases (each is reproducible) -
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= 2
FUZZ_SEED ?= 1
fuzz:
	@$(MAKE) --no-print-directory SAN=1 IMPL=solutions PRIOR=solutions $(BUILD)/asan/bin/solutions/cflab
	nice -n 10 tools/fuzz --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --seed $(FUZZ_SEED) \
	  --cflab $(BUILD)/asan/bin/solutions/cflab

# ---- certify every Siconos file of ../shared/data (the LCP files, the FC3D files, FCLIB's converted
# ones) with every solver that takes it: each "converged" row's common residual recomputed from the
# printed solution (tools/certify). make check's truth gate runs the small ones; this is the whole set.
CERTIFY_DATA ?= $(or $(CF_DATA_DIR),../shared/data)
certify:
	@$(MAKE) --no-print-directory IMPL=solutions PRIOR=solutions $(BUILD)/rel/bin/solutions/cflab
	nice -n 10 tools/certify --cflab $(BUILD)/rel/bin/solutions/cflab --jobs $(FUZZ_JOBS) \
	  $(wildcard $(CERTIFY_DATA)/siconos-lcp $(CERTIFY_DATA)/siconos-fc3d $(CERTIFY_DATA)/fclib/converted)

# ---- exercises/ is generated from solutions/ -----------------------------------------------
exercises:
	tools/mkexercises
exercises-check:
	tools/mkexercises --check

clean:
	rm -rf build
