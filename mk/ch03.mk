# SPDX-License-Identifier: MIT
# Chapter 3 extras: the contact-detection benchmark (bench/bench_detect.c).
#
#   make bench-detect [BENCH_REPEATS=20]   runs it on the reference solutions and writes
#                                          build/<variant>/bench_detect.csv
#
# Only BLD, OBJ, CHAPTER_DIRS and the chapters.mk functions are used here, so this file may be
# included anywhere after mk/chapters.mk.

BENCH_REPEATS ?= 20
BENCH_DETECT := $(BLD)/bin/solutions/bench_detect

$(BENCH_DETECT): $(OBJ)/bench/bench_detect.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-detect bench-ch3
bench-detect bench-ch3: $(BENCH_DETECT)
	@$(BENCH_DETECT) $(BENCH_REPEATS) | tee $(BLD)/bench_detect.csv

EXTRA_HELP += bench-detect (chapter 3 detection benchmark)
