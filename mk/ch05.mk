# SPDX-License-Identifier: MIT
# Chapter 5 extras: the splitting and simulator benchmarks (bench/bench_splitting.c, bench/bench_sim.c).
#
#   make bench-splitting   sweeps and time to residual 1e-6 per method, generated LCPs n = 100..10000
#   make bench-sim         pyramid 10/20 and the 1000-box grid at 20 iterations; ODE QuickStep and
#                          Bullet 3 beside it when pkg-config finds Debian's libode-dev and
#                          libbullet-dev (optional); then the scaling table (pyramids 10-100, grid
#                          1000; BENCH_LARGE=1 adds the grids of 8000 and 27000 boxes)
# Both run on the reference solutions and write build/<variant>/bench_*.csv; the committed results
# are in bench/results/.

ODE_CFLAGS := $(shell pkg-config --exists ode 2>/dev/null && echo -DCF_HAVE_ODE $$(pkg-config --cflags ode))
ODE_LIBS := $(shell pkg-config --exists ode 2>/dev/null && pkg-config --libs ode)
BENCH_SIM := $(BLD)/bin/solutions/bench_sim
BENCH_SPLIT := $(BLD)/bin/solutions/bench_splitting

# Bullet 3 (Debian's libbullet-dev, C++) as a second peer when pkg-config finds it
BULLET_FOUND := $(shell pkg-config --exists bullet 2>/dev/null && echo yes)
ifeq ($(BULLET_FOUND),yes)
BULLET_OBJ := $(OBJ)/bench/peer_bullet.o
BULLET_LIBS := $(shell pkg-config --libs bullet) -lstdc++
ODE_CFLAGS += -DCF_HAVE_BULLET
$(BULLET_OBJ): bench/peer_bullet.cc bench/peer.h
	@mkdir -p $(@D)
	$(Q)$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror $$(pkg-config --cflags bullet) -Ibench -c $< -o $@
endif

$(OBJ)/bench/bench_sim.o: EXTRA_CFLAGS += $(ODE_CFLAGS)

$(BENCH_SIM): $(OBJ)/bench/bench_sim.o $(BULLET_OBJ) $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(ODE_LIBS) $(BULLET_LIBS)

$(BENCH_SPLIT): $(OBJ)/bench/bench_splitting.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# the fast path's own tests (solutions/ch05/fast/test_fast.c): the reference solutions only. Other
# chapters add their fast path's test objects as prerequisites (mk/ch09.mk); the objects are linked
# before the archives, so that what they call is taken from them (sim/ipc_certify.o for ch09's).
TEST_FAST := $(BLD)/bin/solutions/test_fast
$(TEST_FAST): $(OBJ)/solutions/ch05/fast/test_fast.o $(call all_impl_objs,solutions) $(CFT_OBJ) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(filter-out %.a,$^) $(filter %.a,$^) -o $@ $(LDLIBS) $(CHECK_LIBS)

.PHONY: bench-sim bench-splitting bench-ch5 test-fast
test-fast: $(TEST_FAST)
	@CK_FORK=$${CK_FORK:-yes} CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $<

bench-sim: $(BENCH_SIM)
	@$(BENCH_SIM) --scaling $(if $(BENCH_LARGE),--large) | tee $(BLD)/bench_sim.csv
bench-splitting: $(BENCH_SPLIT)
	@$(BENCH_SPLIT) | tee $(BLD)/bench_splitting.csv
bench-ch5: bench-splitting bench-sim

EXTRA_HELP += bench-sim bench-splitting test-fast (chapter 5 benchmarks; the reference fast paths' tests)

