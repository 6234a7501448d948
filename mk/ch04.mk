# SPDX-License-Identifier: MIT
# Chapter 4 extras: `cflab solve` (tools/cflab/solve.c) and the pivoting benchmark.
#
#   make bench-ch4 [BENCH_ARGS="--quick"]   Siconos LCP set + generated families; with Debian's
#                                            libsiconos-numerics-dev installed, Siconos LEMKE too
#
# Only BLD, OBJ, IMPL and the chapters.mk functions are used here (CFLAB and LIBCF are spelled
# out), so this file may be included anywhere after mk/chapters.mk.

# cflab links the solve subcommand (cflab.c's table calls cflab_solve_main)
$(BLD)/bin/$(IMPL)/cflab $(BLD)/bin/$(IMPL)-hdf5/cflab: $(OBJ)/tools/cflab/solve.o

# the benchmark always measures the reference solutions
BENCH_PIVOT := $(BLD)/bin/solutions/bench_pivot
SICONOS_NUMERICS_H := $(wildcard /usr/include/siconos/numerics/LCP_Solvers.h)
ifneq ($(SICONOS_NUMERICS_H),)
BENCH_PIVOT_CFLAGS := -DCF_HAVE_SICONOS -I/usr/include/siconos -Wno-strict-prototypes
BENCH_PIVOT_LIBS := -lsiconos_numerics
endif
$(OBJ)/bench/bench_pivot.o: EXTRA_CFLAGS += $(BENCH_PIVOT_CFLAGS)
$(BENCH_PIVOT): $(OBJ)/bench/bench_pivot.o $(call impl_objs,solutions,ch04) $(BLD)/libcf.a
	@$(call require_impls,solutions,ch04)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(BENCH_PIVOT_LIBS)

BENCH_ARGS ?=
.PHONY: bench-ch4 bench-pivot
bench-ch4 bench-pivot: $(BENCH_PIVOT)
	$(BENCH_PIVOT) $(BENCH_ARGS)

EXTRA_HELP += bench-ch4 (chapter 4 pivoting benchmark; BENCH_ARGS=--quick)
