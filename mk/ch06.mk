# SPDX-License-Identifier: MIT
# Chapter 6 extras: the Newton benchmark (bench/bench_newton.c).
#
#   make bench-ch6 [BENCH6_ARGS="--lcp-only"]  (or --fc-only, --compare-only)   all Siconos LCP and FC3D/FCLIB problems with the
#                                                chapter-6 solvers; with Debian's
#                                                libsiconos-numerics-dev installed, Siconos'
#                                                Newton solvers in the same run
# It measures the reference solutions (one BLAS thread) and writes build/<variant>/bench_newton.txt;
# the committed result is bench/results/ch06_newton.txt.

BENCH_NEWTON := $(BLD)/bin/solutions/bench_newton
SICONOS_FC_H := $(wildcard /usr/include/siconos/numerics/FrictionContactProblem.h)
ifneq ($(SICONOS_FC_H),)
BENCH_NEWTON_CFLAGS := -DCF_HAVE_SICONOS -I/usr/include/siconos -Wno-strict-prototypes
BENCH_NEWTON_LIBS := -lsiconos_numerics
endif
$(OBJ)/bench/bench_newton.o: EXTRA_CFLAGS += $(BENCH_NEWTON_CFLAGS)
$(BENCH_NEWTON): $(OBJ)/bench/bench_newton.o $(call all_impl_objs,solutions) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(BENCH_NEWTON_LIBS)

BENCH6_ARGS ?=
.PHONY: bench-ch6 bench-newton
bench-ch6 bench-newton: $(BENCH_NEWTON)
	@OPENBLAS_NUM_THREADS=1 $(BENCH_NEWTON) $(BENCH6_ARGS) | tee $(BLD)/bench_newton.txt

EXTRA_HELP += bench-ch6 (chapter 6 Newton benchmark; BENCH6_ARGS=--lcp-only)

# the sparse Newton's tests (solutions/ch06/fast/test_newton_sparse.c) run in the fast path's binary
# (mk/ch05.mk's test_fast, reference only)
$(TEST_FAST): $(OBJ)/solutions/ch06/fast/test_newton_sparse.o
