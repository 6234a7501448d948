# SPDX-License-Identifier: MIT
# Chapter 8 extras: the benchmark (bench/bench_ch08.c), paper 004 in small.
#
#   make bench-ch8          CA against ICA on fields of jelly cubes (time per step against contacts,
#                           log-log slopes, a PNG plot), ICA's inner sweeps, CMR rounds on the cloth
#                           over a box, the 50 x 50 falling cloth's detection/dynamics split, the
#                           sparse Cholesky (CHOLMOD=1: CHOLMOD's); BENCH8_ARGS="--quick" shortens it
# Results go to build/<variant>/bench_ch8/; the committed ones are in bench/results/.

STB_CFLAGS = $(call lazy,STB_CFLAGS,pkg-config --cflags stb 2>/dev/null)
STB_LIBS = $(call lazy,STB_LIBS,pkg-config --libs stb 2>/dev/null)
$(OBJ)/bench/bench_ch08.o: EXTRA_CFLAGS += $(STB_CFLAGS)
BENCH8 := $(BLD)/bin/solutions/bench_ch08
$(BENCH8): $(OBJ)/bench/bench_ch08.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(STB_LIBS)

BENCH8_ARGS ?=
.PHONY: bench-ch8
bench-ch8: $(BENCH8)
	@mkdir -p $(BLD)/bench_ch8
	$(BENCH8) --out $(BLD)/bench_ch8 $(BENCH8_ARGS) | tee $(BLD)/bench_ch8/bench_ch08.txt

EXTRA_HELP += bench-ch8 (chapter 8: paper 004's CA/ICA scaling, CMR and ICA histograms, the falling cloth)
