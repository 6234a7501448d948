# SPDX-License-Identifier: MIT
# statehash: every demo and every scene stepped headless, the final states hashed bit for bit
# (tools/statehash/statehash.c). A change that must keep results shows it with the same lines:
#
#   make state-hashes [STATEHASH_STEPS=30]    writes build/<variant>/state-hashes.txt (reference solutions)
#   make state-hashes-check                   compares it with sim/test/data/state-hashes.txt
#
# The committed file is the record of the machine it was made on (floating point may differ on
# another processor or compiler); it is not a gate of make check.

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
	$(BLD)/bin/$(STATEHASH_IMPL)/statehash --steps $(STATEHASH_STEPS) > $(BLD)/state-hashes.txt
	@wc -l < $(BLD)/state-hashes.txt | sed 's/$$/ runs hashed: $(subst /,\/,$(BLD))\/state-hashes.txt/'
state-hashes-check: state-hashes
	@diff sim/test/data/state-hashes.txt $(BLD)/state-hashes.txt && echo "state hashes: the same bit for bit"
EXTRA_APPS += $(STATEHASH)
EXTRA_HELP += state-hashes, state-hashes-check
