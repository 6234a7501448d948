# SPDX-License-Identifier: MIT
# Chapters: which implementation of each chapter a binary links, and the per-chapter targets.
#
# A binary built for chapter N links chapter N from IMPL, chapters before N from PRIOR and
# chapters after N from exercises/ (stubs, never called by chapter N's code).

CHAPTER_DIRS := $(sort $(notdir $(wildcard solutions/ch[0-9][0-9] exercises/ch[0-9][0-9])))

# ch3 -> ch03
pad = $(if $(filter 1 2 3 4 5 6 7 8 9,$1),0$1,$1)
# $1 before $2 (chapter names sort as strings because they are zero-padded)
is_before = $(and $(filter-out $2,$1),$(filter $1,$(firstword $(sort $1 $2))))
# implementation that chapter $1 uses in a binary for chapter $2
impl_of = $(if $(filter $1,$2),$(IMPL),$(if $(call is_before,$1,$2),$(PRIOR),exercises))
# objects of implementation $1 of chapter $2; a solution's subfolders (solutions/ch05/fast/) hold
# faster paths that ship with the reference only: linked with it, never mirrored into exercises/
impl_objs = $(patsubst %.c,$(OBJ)/%.o,$(wildcard $1/$2/*.c) $(if $(filter solutions,$1),$(call not_tests,$(wildcard $1/$2/*/*.c))))
# the files of a list that are not tests (test_*.c)
not_tests = $(foreach f,$1,$(if $(filter test_%,$(notdir $f)),,$f))
# all chapters from implementation $1
all_impl_objs = $(foreach c,$(CHAPTER_DIRS),$(call impl_objs,$1,$c))
# chapter objects linked into a binary for chapter $1
link_objs = $(foreach c,$(CHAPTER_DIRS),$(call impl_objs,$(call impl_of,$c,$1),$c))
# stop with one line when an implementation folder is absent (a student handout has no solutions/)
require_impls = for c in $2; do test -d $1/$$c || { \
  echo "IMPL/PRIOR=$1: $1/$$c does not exist in this tree (a handout has no solutions; use IMPL=exercises)" >&2; \
  exit 2; }; done

TEST_BIN_DIR := $(BLD)/bin/$(IMPL)-$(PRIOR)
ALL_TEST_BINS := $(CHAPTER_DIRS:%=$(TEST_BIN_DIR)/test_%)
TAP_DIR := $(BLD)/tap/$(IMPL)-$(PRIOR)

define chapter_rules
# $1 = chNN
$1_TEST_OBJ := $$(patsubst %.c,$$(OBJ)/%.o,$$(wildcard chapters/$1/tests/*.c) $$(wildcard $$(HIDDEN)/$1/*.c))
$$(TEST_BIN_DIR)/test_$1: $$($1_TEST_OBJ) $$(call link_objs,$1) $$(call confine_objs,$1) $$(CFT_OBJ) $$(LIBSIM) $$(LIBCF) | $$(call confine_wraps,$1)
	@$$(call require_impls,$$(IMPL),$1)
	@$$(call require_impls,$$(PRIOR),$$(foreach c,$$(CHAPTER_DIRS),$$(if $$(call is_before,$$c,$1),$$c)))
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$^ -o $$@ $$(call confine_ldflags,$1) $$(LDLIBS) $$(CHECK_LIBS)

.PHONY: $(sort test-$1 test-$(patsubst ch0%,ch%,$1))
$(sort test-$1 test-$(patsubst ch0%,ch%,$1)): $$(TEST_BIN_DIR)/test_$1
	@mkdir -p $$(TAP_DIR)
	@echo "== $1: chapter $1 from $$(IMPL), earlier chapters from $$(PRIOR)"
	@CK_FORK=$$$${CK_FORK:-yes} CK_VERBOSITY=$$$${CK_VERBOSITY:-normal} CFT_CASE=$$(CASE) \
	  CK_TAP_LOG_FILE_NAME=$$(TAP_DIR)/$1.tap $$<
endef
$(foreach c,$(CHAPTER_DIRS),$(eval $(call chapter_rules,$c)))
