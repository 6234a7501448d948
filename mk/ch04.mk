# SPDX-License-Identifier: MIT
# Chapter 4 extras: `cflab solve` (tools/cflab/solve.c) and the pivoting benchmark.
#
#   make bench-ch4 [BENCH_ARGS="--quick"]   Siconos LCP set + generated families; with Debian's
#                                            libsiconos-numerics-dev installed, Siconos LEMKE too
#
# Included at the end of the Makefile, after CFLAB and LIBCF are defined.

# cflab links the solve subcommand (cflab.c's table calls cflab_solve_main)
$(CFLAB): $(OBJ)/tools/cflab/solve.o

# the benchmark always measures the reference solutions
BENCH_PIVOT := $(BLD)/bin/solutions/bench_pivot
SICONOS_NUMERICS_H := $(wildcard /usr/include/siconos/numerics/LCP_Solvers.h)
ifneq ($(SICONOS_NUMERICS_H),)
BENCH_PIVOT_CFLAGS := -DCF_HAVE_SICONOS -I/usr/include/siconos -Wno-strict-prototypes
BENCH_PIVOT_LIBS := -lsiconos_numerics
endif
$(OBJ)/bench/bench_pivot.o: EXTRA_CFLAGS += $(BENCH_PIVOT_CFLAGS)
$(BENCH_PIVOT): $(OBJ)/bench/bench_pivot.o $(patsubst %.c,$(OBJ)/%.o,$(wildcard solutions/ch04/*.c)) $(LIBCF)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(BENCH_PIVOT_LIBS)

BENCH_ARGS ?=
.PHONY: bench-ch4 bench-ch04
bench-ch4 bench-ch04: $(BENCH_PIVOT)
	$(BENCH_PIVOT) $(BENCH_ARGS)
