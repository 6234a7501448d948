# SPDX-License-Identifier: MIT
# Chapter 10 extras: Table 5 of the course notes, measured.
#
#   make bench-ch10   each friction model's parameters, bytes per contact, distance from maximal
#                     dissipation and accepting solvers, and the polyhedral LCP's growth; written to
#                     build/<variant>/bench_ch10/table5.txt (committed: bench/results/ch10_table5.txt)

BENCH10 := $(BLD)/bin/solutions/bench_ch10
$(BENCH10): $(OBJ)/bench/bench_ch10.o $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-ch10
bench-ch10: $(BENCH10)
	@mkdir -p $(BLD)/bench_ch10
	$(BENCH10) --out $(BLD)/bench_ch10
	@cat $(BLD)/bench_ch10/table5.txt

EXTRA_HELP += bench-ch10 (chapter 10: Table 5 of the notes, measured)
