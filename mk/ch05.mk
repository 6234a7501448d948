# SPDX-License-Identifier: MIT
# Chapter 5 extras: the splitting and simulator benchmarks (bench/bench_splitting.c, bench/bench_sim.c).
#
#   make bench-splitting   sweeps and time to residual 1e-6 per method, generated LCPs n = 100..10000
#   make bench-sim         pyramid 10/20 and the 1000-box grid at 20 iterations; ODE QuickStep beside
#                          it when pkg-config finds Debian's libode-dev (optional)
# Both run on the reference solutions and write build/<variant>/bench_*.csv; the committed results
# are in bench/results/.

ODE_CFLAGS := $(shell pkg-config --exists ode 2>/dev/null && echo -DCF_HAVE_ODE $$(pkg-config --cflags ode))
ODE_LIBS := $(shell pkg-config --exists ode 2>/dev/null && pkg-config --libs ode)
BENCH_SIM := $(BLD)/bin/solutions/bench_sim
BENCH_SPLIT := $(BLD)/bin/solutions/bench_splitting

$(OBJ)/bench/bench_sim.o: EXTRA_CFLAGS += $(ODE_CFLAGS)

$(BENCH_SIM): $(OBJ)/bench/bench_sim.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(ODE_LIBS)

$(BENCH_SPLIT): $(OBJ)/bench/bench_splitting.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# the fast path's own tests (solutions/ch05/fast/test_fast.c): the reference solutions only
TEST_FAST := $(BLD)/bin/solutions/test_fast
$(TEST_FAST): $(OBJ)/solutions/ch05/fast/test_fast.o $(call all_impl_objs,solutions) $(CFT_OBJ) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(CHECK_LIBS)

.PHONY: bench-sim bench-splitting bench-ch5 test-fast
test-fast: $(TEST_FAST)
	@CK_FORK=$${CK_FORK:-yes} CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $<

bench-sim: $(BENCH_SIM)
	@$(BENCH_SIM) | tee $(BLD)/bench_sim.csv
bench-splitting: $(BENCH_SPLIT)
	@$(BENCH_SPLIT) | tee $(BLD)/bench_splitting.csv
bench-ch5: bench-splitting bench-sim

EXTRA_HELP += bench-sim bench-splitting (chapter 5 benchmarks); demo-ch5

