# SPDX-License-Identifier: MIT
# Chapter 9 extras: the IPC benchmark (bench/bench_ch09.c).
#
#   make bench-ch9    projected Newton against dhat and kappa (iterations, halvings, CCD clamps, time
#                     per step), Newton against gradient descent, the incline's creep and sliding,
#                     penalty against IPC on the 100 m/s particle; the sparse path's scaling on a cloth
#                     and on a stack of tet blocks (minutes: its 10 000-node rows)
# It measures the reference solutions (one BLAS thread) and writes build/<variant>/bench_ch9.txt;
# the committed results are bench/results/ch09_ipc.txt, ch09_ipc_scaling.txt and ch09_ipc_tets.txt.

BENCH9 := $(BLD)/bin/solutions/bench_ch09
$(BENCH9): $(OBJ)/bench/bench_ch09.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-ch9
bench-ch9: $(BENCH9)
	@OPENBLAS_NUM_THREADS=1 $(BENCH9) | tee $(BLD)/bench_ch9.txt

EXTRA_HELP += bench-ch9 (chapter 9 IPC benchmark)

# the sparse path's tests (solutions/ch09/fast/test_ipc_sparse.c) run in the fast path's binary
# (mk/ch05.mk's test_fast, reference only)
$(TEST_FAST): $(OBJ)/solutions/ch09/fast/test_ipc_sparse.o $(OBJ)/solutions/ch09/fast/test_ipc_tets.o
