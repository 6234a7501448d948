# SPDX-License-Identifier: MIT
# statehash: every demo and every scene stepped headless, the final states hashed bit for bit
# (tools/statehash/statehash.c). A change that must keep results shows it with the same lines:
#
#   make state-hashes [STATEHASH_STEPS=30]    writes build/<variant>/state-hashes.txt (reference solutions)
#   make state-hashes-check                   compares it with sim/test/data/state-hashes.txt
#
# The committed file is not a gate of make check. OpenBLAS picks its kernels by the processor (its
# DYNAMIC_ARCH build), and kernels round differently: on an AMD EPYC (OpenBLAS's "Zen", which runs
# the Haswell kernels) ten runs (ch05/mass_ratio, nine of ch09's ipc) differed from the record made
# where OpenBLAS chose other kernels (none of Haswell, Sandybridge, Nehalem reproduces it here,
# and each of the last two changes those runs again: presumably an AVX-512 machine's SkylakeX,
# which this processor cannot run). So the record is made with the kernels pinned,
# STATEHASH_CORETYPE (default Haswell: AVX2 and FMA, every x86-64 processor since 2013-2015, Zen
# included): such a machine with the same Debian packages (OpenBLAS, glibc with its FMA variants
# of libm, GCC) should give the same lines (checked on one machine only). Another architecture (arm64) has other
# kernel names: set STATEHASH_CORETYPE to one of them, or empty for OpenBLAS's own choice, and
# expect differences in the runs that go through BLAS or LAPACK.
STATEHASH_CORETYPE ?= Haswell

STATEHASH_STEPS ?= 30
STATEHASH_IMPL := $(if $(wildcard solutions/ch01),solutions,exercises)
STATEHASH := $(BLD)/bin/$(IMPL)/statehash
$(OBJ)/tools/statehash/statehash.o: EXTRA_CFLAGS += $(SDL_CFLAGS) -Iviewer
$(STATEHASH): $(OBJ)/tools/statehash/statehash.o $(VIEWER_LIB_OBJ) $(DEMO_OBJ) $(call all_impl_objs,$(IMPL)) $(LIBSIM) $(LIBCF)
	@$(call require_impls,$(IMPL),$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(SDL_LIBS)

.PHONY: state-hashes state-hashes-check
state-hashes:
	@$(MAKE) --no-print-directory IMPL=$(STATEHASH_IMPL) $(BLD)/bin/$(STATEHASH_IMPL)/statehash
	OPENBLAS_CORETYPE=$(STATEHASH_CORETYPE) $(BLD)/bin/$(STATEHASH_IMPL)/statehash --steps $(STATEHASH_STEPS) > $(BLD)/state-hashes.txt
	@wc -l < $(BLD)/state-hashes.txt | sed 's/$$/ runs hashed: $(subst /,\/,$(BLD))\/state-hashes.txt/'
state-hashes-check: state-hashes
	@diff sim/test/data/state-hashes.txt $(BLD)/state-hashes.txt && echo "state hashes: the same bit for bit"
EXTRA_APPS += $(STATEHASH)
EXTRA_HELP += state-hashes state-hashes-check
