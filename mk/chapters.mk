# SPDX-License-Identifier: MIT
# Chapters: which implementation of each chapter a binary links, and the per-chapter targets.
#
# A binary built for chapter N links chapter N from IMPL, chapters after N from exercises/ (stubs,
# never called by chapter N's code) and each chapter before N from PRIOR: when PRIOR is not set,
# from its solution when the tree has solutions/chNN (the reference in a course tree, a released
# solution in a handout), otherwise from exercises/chNN (yours); PRIOR=solutions or
# PRIOR=exercises takes every earlier chapter from there.

CHAPTER_DIRS := $(sort $(notdir $(wildcard solutions/ch[0-9][0-9] exercises/ch[0-9][0-9])))
# the chapters whose solutions are in this tree (all of them in the course tree)
RELEASED := $(sort $(notdir $(wildcard solutions/ch[0-9][0-9])))
# "yes" when every chapter of the tree has its solution (the course tree; a handout once all is released)
ALL_RELEASED := $(if $(filter-out $(RELEASED),$(CHAPTER_DIRS)),,yes)
HANDOUT := $(wildcard .handout)

ifneq ($(filter-out exercises solutions,$(IMPL)),)
$(error IMPL=$(IMPL): use IMPL=exercises (your code) or IMPL=solutions (the reference))
endif
ifneq ($(filter-out exercises solutions,$(PRIOR)),)
$(error PRIOR=$(PRIOR): use PRIOR=exercises, PRIOR=solutions, or leave it unset (each earlier chapter from its solution when the tree has it))
endif

# ch3 -> ch03; ch03 -> 3
pad = $(if $(filter 1 2 3 4 5 6 7 8 9,$1),0$1,$1)
num = $(patsubst 0%,%,$(patsubst ch%,%,$1))
# $1 before $2 (chapter names sort as strings because they are zero-padded)
is_before = $(and $(filter-out $2,$1),$(filter $1,$(firstword $(sort $1 $2))))
# the implementation of earlier chapter $1 when PRIOR is not set
released_or_yours = $(if $(filter $1,$(RELEASED)),solutions,exercises)
# implementation that chapter $1 uses in a binary for chapter $2
impl_of = $(if $(filter $1,$2),$(IMPL),$(if $(call is_before,$1,$2),$(or $(PRIOR),$(call released_or_yours,$1)),exercises))
# objects of implementation $1 of chapter $2; a solution's subfolders (solutions/ch05/fast/) hold
# faster paths that ship with the reference only: linked with it, never mirrored into exercises/
impl_objs = $(patsubst %.c,$(OBJ)/%.o,$(wildcard $1/$2/*.c) $(if $(filter solutions,$1),$(call not_tests,$(wildcard $1/$2/*/*.c))))
# the files of a list that are not tests (test_*.c)
not_tests = $(foreach f,$1,$(if $(filter test_%,$(notdir $f)),,$f))
# all chapters from implementation $1
all_impl_objs = $(foreach c,$(CHAPTER_DIRS),$(call impl_objs,$1,$c))
# chapter objects linked into a binary for chapter $1
link_objs = $(foreach c,$(CHAPTER_DIRS),$(call impl_objs,$(call impl_of,$c,$1),$c))
# the chapters before $1
before = $(strip $(foreach c,$(CHAPTER_DIRS),$(if $(call is_before,$c,$1),$c)))
# stop with one line when an implementation folder is absent (a handout has only the solutions
# the instructor released); $3 names the variable that asked for it
require_impls = for c in $2; do test -d $1/$$c || { \
  echo "$(or $3,IMPL)=$1: $1/$$c does not exist in this tree ($(if $(HANDOUT),a handout has only the released solutions: $(or $(RELEASED),none),it has $(or $(RELEASED),no solutions))$(if $(filter PRIOR,$3),; leave PRIOR unset to link each earlier chapter from its solution when there is one and from your exercises/ otherwise))" >&2; \
  exit 2; }; done
require_prior = $(if $(PRIOR),$(call require_impls,$(PRIOR),$(call before,$1),PRIOR),true)

# What a binary for chapter $1 links, said in one line ("chapters 1–5: released solutions;
# chapters 6–7: yours"), and "(PRIOR=...)" when it was forced
impl_name = $(if $(filter exercises,$1),yours,$(if $(HANDOUT),released solutions,reference solutions))
linked_text = $(call runs_,$(foreach c,$(call before,$1) $1,$c:$(call impl_of,$c,$1)))$(if $(PRIOR), (PRIOR=$(PRIOR)))
# runs of consecutive chapters that take the same implementation
pair_ch = $(word 1,$(subst :, ,$1))
pair_impl = $(word 2,$(subst :, ,$1))
runs_ = $(if $1,$(call run_,$(wordlist 2,999,$1),$(call pair_impl,$(firstword $1)),$(call pair_ch,$(firstword $1)),$(call pair_ch,$(firstword $1))))
run_ = $(if $(filter %:$2,$(firstword $1)),$(call run_,$(wordlist 2,999,$1),$2,$3,$(call pair_ch,$(firstword $1))),$(call span_,$3,$4): $(call impl_name,$2)$(if $1,; $(call runs_,$1)))
span_ = $(if $(filter $1,$2),chapter $(call num,$1),chapters $(call num,$1)–$(call num,$2))

# Each combination builds in its own folder: build/<v>/bin/<IMPL>-<how earlier chapters are
# linked>. Unset PRIOR shares PRIOR=solutions' folder when every chapter has its solution in the
# tree and PRIOR=exercises' when none has; otherwise the folder names the released chapters
# (exercises-released-01-02-03-04-05).
space := $(subst x,,x x)
PRIOR_TAG := $(or $(PRIOR),$(if $(filter-out $(RELEASED),$(CHAPTER_DIRS)),$(if $(RELEASED),released-$(subst $(space),-,$(RELEASED:ch%=%)),exercises),solutions))
# after a test run: the compiler's warnings in the exercise files linked into chapter $1's binary
# (kept by tools/keep-warnings when they were compiled), then the run's summary line again
show_warnings = w=$$(cat $(addsuffix .warn,$(filter $(OBJ)/exercises/%,$(call link_objs,$1))) 2>/dev/null); \
  if [ -n "$$w" ]; then echo "== compiler warnings in your files (shown after every run until you fix them):"; \
  echo "$$w"; [ -f $(TAP_DIR)/$1.log ] && echo "$1: $$(tail -n 1 $(TAP_DIR)/$1.log)"; fi; true

TEST_BIN_DIR := $(BLD)/bin/$(IMPL)-$(PRIOR_TAG)
ALL_TEST_BINS := $(CHAPTER_DIRS:%=$(TEST_BIN_DIR)/test_%)
TAP_DIR := $(BLD)/tap/$(IMPL)-$(PRIOR_TAG)

define chapter_rules
# $1 = chNN
$1_TEST_OBJ := $$(patsubst %.c,$$(OBJ)/%.o,$$(wildcard chapters/$1/tests/*.c) $$(wildcard $$(HIDDEN)/$1/*.c))
$$(TEST_BIN_DIR)/test_$1: $$($1_TEST_OBJ) $$(call link_objs,$1) $$(call confine_objs,$1) $$(CFT_OBJ) $$(LIBSIM) $$(LIBCF) | $$(call confine_wraps,$1)
	@$$(call require_impls,$$(IMPL),$1)
	@$$(call require_prior,$1)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$^ -o $$@ $$(call confine_ldflags,$1) $$(LDLIBS) $$(CHECK_LIBS)

.PHONY: $(sort test-$1 test-$(patsubst ch0%,ch%,$1))
$(sort test-$1 test-$(patsubst ch0%,ch%,$1)): $$(TEST_BIN_DIR)/test_$1
	@mkdir -p $$(TAP_DIR)
	@echo "== $1: $$(call linked_text,$1)"
	@st=0; CK_FORK=$$$${CK_FORK:-yes} CK_VERBOSITY=$$$${CK_VERBOSITY:-normal} CFT_CASE=$$(CASE) \
	  CK_TAP_LOG_FILE_NAME=$$(TAP_DIR)/$1.tap CK_LOG_FILE_NAME=$$(TAP_DIR)/$1.log $$< || st=$$$$?; \
	  $$(call show_warnings,$1); exit $$$$st
endef
$(foreach c,$(CHAPTER_DIRS),$(eval $(call chapter_rules,$c)))
