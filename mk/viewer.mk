# SPDX-License-Identifier: MIT
# The viewer cfview: built per IMPL/PRIOR like the test binaries; demos, demo checks, tests, benchmark.
#
#   make demo                 the viewer on the best scene this tree can run, and why that one
#                             (headless + screenshot without a display)
#   make demo-ch1 [DEMO=name] chapter 1's demos (chapter 1 from IMPL, earlier chapters from PRIOR)
#   make demos-check          every demo headless, each checking its prediction (reference solutions)
#                             (a heavy demo, of minutes, one step only: HEAVY=1 checks it whole)
#   make viewer-test          headless rendering tests and the command-line checks
#   make bench-viewer         bench/results/viewer.csv (headless: turning boxes, every demo's drawing and
#                             stepping times) and viewer-window.csv (every demo and the showcase in a
#                             1920x1080 window under Xvfb, SDL's software renderer); tools/bench-viewer

SDL_CFLAGS = $(call lazy,SDL_CFLAGS,pkg-config --cflags sdl2 stb 2>/dev/null)
SDL_LIBS = $(call lazy,SDL_LIBS,pkg-config --libs sdl2 stb 2>/dev/null)

VIEWER_SRC := $(wildcard viewer/*.c)
DEMO_SRC := $(sort $(wildcard chapters/ch[0-9][0-9]/demos/*.c))
VIEWER_OBJ := $(VIEWER_SRC:%.c=$(OBJ)/%.o)
VIEWER_LIB_OBJ := $(filter-out $(OBJ)/viewer/main.o,$(VIEWER_OBJ))
# The demo registry is generated: every `const cfvDemo cfv_demo_...` a chapter's demos/ defines, in
# chapter, file and definition order. Adding a demo touches only its chapter folder. The list is
# rewritten only when its text changes (a demo added, renamed or removed), so nothing rebuilds else.
DEMO_LIST := $(OBJ)/viewer/demo_list.c
DEMO_OBJ := $(DEMO_SRC:%.c=$(OBJ)/%.o) $(DEMO_LIST:.c=.o)
$(DEMO_LIST): FORCE
	@mkdir -p $(@D)
	@tools/demo-list $(DEMO_SRC) > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
$(DEMO_LIST:.c=.o): $(DEMO_LIST)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SDL_CFLAGS) -Iviewer -c $< -o $@
.PHONY: FORCE
FORCE:
VIEWER_TEST_OBJ := $(OBJ)/viewer/test/test_viewer.o
# chapters that have demos (ch01 ...)
DEMO_CHAPTERS := $(sort $(patsubst chapters/%/demos/,%,$(dir $(DEMO_SRC))))

$(VIEWER_OBJ) $(DEMO_OBJ) $(VIEWER_TEST_OBJ): EXTRA_CFLAGS += $(SDL_CFLAGS) -Iviewer
# the rasterizer's pixel loops (spans, fills, blends) want the vectorizer's full cost model: a 1080p
# frame is two million pixels per pass
$(OBJ)/viewer/raster.o: EXTRA_CFLAGS += -O3

# cfview with every chapter from IMPL (what `make all` and `make demo` build)
CFVIEW := $(BLD)/bin/$(IMPL)/cfview
$(CFVIEW): $(VIEWER_OBJ) $(DEMO_OBJ) $(call all_impl_objs,$(IMPL)) $(LIBSIM) $(LIBCF)
	@$(call require_impls,$(IMPL),$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(SDL_LIBS)

EXTRA_APPS += $(CFVIEW)
EXTRA_HELP += demos-check viewer-test bench-viewer

# cfview for chapter N: chapter N from IMPL, earlier chapters from PRIOR, later ones as stubs
VIEWER_BIN_DIR := $(BLD)/bin/$(IMPL)-$(PRIOR_TAG)
define viewer_rules
# $1 = chNN
$$(VIEWER_BIN_DIR)/cfview-$1: $$(VIEWER_OBJ) $$(DEMO_OBJ) $$(call link_objs,$1) $$(LIBSIM) $$(LIBCF)
	@$$(call require_impls,$$(IMPL),$1)
	@$$(call require_prior,$1)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$^ -o $$@ $$(LDLIBS) $$(SDL_LIBS)

.PHONY: $(sort demo-$1 demo-$(patsubst ch0%,ch%,$1))
$(sort demo-$1 demo-$(patsubst ch0%,ch%,$1)): $$(VIEWER_BIN_DIR)/cfview-$1
	@echo "== demos of $1: $$(call linked_text,$1)"
	$$< --chapter $(patsubst 0%,%,$(patsubst ch%,%,$1)) $$(if $$(DEMO),--demo $$(DEMO)) --shots $$(BLD)/demos/$$(IMPL)-$$(PRIOR_TAG)
endef
$(foreach c,$(CHAPTER_DIRS),$(eval $(call viewer_rules,$c)))

# `make demo`: cfview with every chapter from its solution when the tree has it and from your
# exercises/ otherwise (the last chapter's cfview, built as `make demo-chN` builds it), on the best
# scene those solutions can run: the capstone showcase (two solvers side by side) when every
# chapter has its solution, else the chapter-5 pyramid when chapters 1-5 have theirs, else chapter
# 1's tennis racket (on your chapter 1 when it has no solution). It says which and why.
# DEMO_SCENE=scenes/....json runs another scene with the same build; PRIOR=exercises runs your code.
# Without a display cfview runs headless and writes build/<v>/demo.png.
# the showcase side by side with these solvers (the comparison panel: one line each in the HUD, their
# residuals in one plot; keys 1-2 choose a world, x changes its solver); headless: the scene's 600 steps (the 3 s its expect line speaks of; about 20 s)
DEMO_COMPARE ?= pgs-blocked,dual
LAST_CHAPTER := $(lastword $(CHAPTER_DIRS))
DEMO_IMPL := $(if $(filter command line,$(origin IMPL)),$(IMPL),$(call released_or_yours,$(LAST_CHAPTER)))
DEMO_VIEW := $(BLD)/bin/$(DEMO_IMPL)-$(PRIOR_TAG)/cfview-$(LAST_CHAPTER)
# the chapters the demo build links from solutions/, and "yes" when chapters 1..$1 are among them
DEMO_SOLVED := $(foreach c,$(CHAPTER_DIRS),$(if $(filter solutions,$(if $(filter $c,$(LAST_CHAPTER)),$(DEMO_IMPL),$(or $(PRIOR),$(call released_or_yours,$c)))),$c))
solved_upto = $(if $(filter-out $(DEMO_SOLVED),$(call before,$1) $1),,yes)
DEMO_SHOWCASE := scenes/ch11_showcase.json
DEMO_PYRAMID := scenes/ch05_pyramid_10.json
DEMO_RACKET := scenes/ch01_tennis_racket.json
ifneq ($(call solved_upto,$(LAST_CHAPTER)),)
DEMO_BEST := $(DEMO_SHOWCASE)
DEMO_WHY := the capstone showcase with $(DEMO_COMPARE) side by side: every chapter has its solution in this tree
else ifneq ($(call solved_upto,ch05),)
DEMO_BEST := $(DEMO_PYRAMID)
DEMO_WHY := chapter 5's pyramid: chapters 1–5 have their solutions in this tree, not every chapter (the showcase needs all; DEMO_SCENE=$(DEMO_SHOWCASE) runs it on your code)
else ifneq ($(call solved_upto,ch01),)
DEMO_BEST := $(DEMO_RACKET)
DEMO_WHY := chapter 1's tennis racket: chapter 1 has its solution in this tree, not each of chapters 1–5 (the pyramid needs them)
else
DEMO_BEST := $(DEMO_RACKET)
DEMO_WHY := chapter 1's tennis racket on your chapter 1: no chapter has its solution in this tree (it stops with "not implemented" until you have written chapter 1)
endif
DEMO_SCENE ?= $(DEMO_BEST)
.PHONY: demo demo-run demos-check viewer-test bench-viewer
demo:
	@echo "make demo: $(if $(filter command line environment,$(origin DEMO_SCENE)),$(DEMO_SCENE) (DEMO_SCENE=),$(DEMO_WHY))"
	@$(MAKE) --no-print-directory IMPL=$(DEMO_IMPL) demo-run
# (IMPL on the command line: the build of the last chapter the demo uses, which the line says)
demo-run: $(DEMO_VIEW)
	@echo "make demo: $(call linked_text,$(LAST_CHAPTER))"
	$(DEMO_VIEW) $(DEMO_SCENE) $(if $(filter %showcase.json,$(DEMO_SCENE)),--compare $(DEMO_COMPARE)) \
	  --screenshot $(BLD)/demo.png

# every demo headless, checking its prediction: the demos of the chapters whose solutions are in
# the tree (every chapter in the course tree, the released ones in a handout), on those solutions
DEMOS_CHECKED := $(filter $(RELEASED),$(DEMO_CHAPTERS))
DEMOS_BIN := $(BLD)/bin/solutions-$(PRIOR_TAG)
demos-check:
	@$(if $(DEMOS_CHECKED),,echo "demos-check: no chapter with demos has its solution in this tree: nothing to check"; exit 0;) \
	  $(MAKE) --no-print-directory IMPL=solutions $(DEMOS_CHECKED:%=$(DEMOS_BIN)/cfview-%)
	@st=0; for c in $(DEMOS_CHECKED); do \
	  $(DEMOS_BIN)/cfview-$$c --check --chapter $${c#ch} $(if $(HEAVY),--heavy) --shots $(BLD)/demos/solutions || st=1; \
	done; exit $$st

# rendering tests (Check) and the command line (exit statuses, messages)
VIEWER_TEST := $(VIEWER_BIN_DIR)/test_viewer
$(VIEWER_TEST): $(VIEWER_TEST_OBJ) $(VIEWER_LIB_OBJ) $(DEMO_OBJ) $(call all_impl_objs,$(IMPL)) $(CFT_OBJ) $(LIBSIM) $(LIBCF)
	@$(call require_impls,$(IMPL),$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(SDL_LIBS) $(CHECK_LIBS)

# everything viewer-test and demos-check run (make check builds it first, then runs them side by side)
.PHONY: viewer-bins
viewer-bins: $(VIEWER_TEST) $(CFVIEW) $(foreach c,$(DEMO_CHAPTERS),$(VIEWER_BIN_DIR)/cfview-$c)

# CFVIEW_STUBS=path: a cfview already built on the stubs, checked to say "not implemented"
viewer-test: $(VIEWER_TEST) $(CFVIEW)
	@CK_FORK=$${CK_FORK:-yes} CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $(VIEWER_TEST)
	@viewer/test/cli.sh $(CFVIEW) $(BLD)/viewer-test $(CFVIEW_STUBS)

# the results go to bench/results/ (committed, with the machine, the method and the load average)
# the reference solutions' viewer when the tree has every chapter's (the course tree: IMPL's default
# there is the stubs, whose demos cannot run), else the one IMPL names
BENCH_VIEWER_BIN := $(if $(ALL_RELEASED),$(BUILD)/rel/bin/solutions/cfview,$(CFVIEW))
BENCH_VIEWER_OUT ?= bench/results
bench-viewer:
	@$(MAKE) --no-print-directory $(if $(ALL_RELEASED),IMPL=solutions PRIOR=solutions) $(BENCH_VIEWER_BIN)
	@OPENBLAS_NUM_THREADS=1 tools/bench-viewer $(BENCH_VIEWER_BIN) $(BENCH_VIEWER_OUT)
