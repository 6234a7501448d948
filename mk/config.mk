# SPDX-License-Identifier: MIT
# Compiler, flags, packages and build folders.

# build variant: rel (default) or asan (SAN=1: AddressSanitizer + UBSan)
ifeq ($(SAN),1)
VARIANT := asan
OPTFLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
else
VARIANT := rel
OPTFLAGS ?= -O2 -g
endif

# CHOLMOD=1 objects differ: give them their own folder
ifeq ($(CHOLMOD),1)
VARIANT := $(VARIANT)-cholmod
endif

BUILD ?= build
BLD := $(BUILD)/$(VARIANT)
OBJ := $(BLD)/obj
DEPS_STAMP := $(BUILD)/.deps-ok
LIBCF := $(BLD)/libcf.a
LIBSIM := $(BLD)/libcfsim.a
CFT_OBJ := $(OBJ)/lib/test/cft.o $(OBJ)/lib/test/cft_confine.o

# OpenBLAS on one thread unless the caller says otherwise: every dense system here is small (tens to
# a few hundred unknowns), and a threaded OpenBLAS on a busy machine spins: `make test-ch9`'s world
# cases took 40 s wall (13 s of it in the kernel) instead of 1 s. The grader and make check set it too.
export OPENBLAS_NUM_THREADS ?= 1

# packages the default build needs (SDL2 for the viewer, stb for PNG and text)
PKGS := check libcjson lapacke openblas sdl2 stb

# pkg-config is asked once, after the dependency stamp exists (lazy, evaluated on first use)
lazy = $(eval $1 := $$(shell $2))$($1)
# the library's own packages (also cflab.pc's Requires: mk/install.mk)
LIB_PKGS := libcjson lapacke openblas
PKG_CFLAGS = $(call lazy,PKG_CFLAGS,pkg-config --cflags $(LIB_PKGS) check 2>/dev/null)
PKG_LIBS = $(call lazy,PKG_LIBS,pkg-config --libs $(LIB_PKGS) 2>/dev/null)
CHECK_LIBS = $(call lazy,CHECK_LIBS,pkg-config --libs check 2>/dev/null)

CC ?= cc
# OpenMP (GCC's libgomp): chapter 8 builds W_A column by column in parallel (Algorithm 15)
OPENMP ?= -fopenmp
CPPFLAGS += -Ilib/include -Isim/include -Ilib/test -MMD -MP
CFLAGS ?=
CFLAGS += -std=c17 -Wall -Wextra -Werror $(OPTFLAGS) $(OPENMP) $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) $(OPENMP) -lm
# A student's exercise file shows its warnings but never fails the build on one (a compiler's
# false positive, such as GCC 12's -Wmaybe-uninitialized, must not cost a chapter); the library
# and the reference keep -Werror, and `make stubs-werror` holds the generated stubs to it.
EXERCISE_CFLAGS := -Wno-unused-parameter -Wno-unused-function -Wno-unused-variable \
                   -Wno-unused-but-set-variable -Wno-error

# optional CHOLMOD (SuiteSparse has GPL modules): never part of the default build
ifeq ($(CHOLMOD),1)
CPPFLAGS += -DCF_HAVE_CHOLMOD -I/usr/include/suitesparse
LDLIBS += -lcholmod
endif

# V=1 shows the full commands
ifeq ($(V),1)
Q :=
else
Q := @
endif

-include $(shell find $(BLD) -name '*.d' -type f 2>/dev/null)
