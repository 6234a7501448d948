# SPDX-License-Identifier: MIT
# The viewer cfview: built per IMPL/PRIOR like the test binaries; demos, demo checks, tests, benchmark.
#
#   make demo                 the viewer on the best available scene (headless + screenshot without a display)
#   make demo-ch1 [DEMO=name] chapter 1's demos (chapter 1 from IMPL, earlier chapters from PRIOR)
#   make demos-check          every demo headless, each checking its prediction (reference solutions)
#   make viewer-test          headless rendering tests and the command-line checks
#   make bench-viewer         bench/results/viewer.csv (headless: turning boxes, every demo's drawing and
#                             stepping times) and viewer-window.csv (every demo and the showcase in a
#                             1920x1080 window under Xvfb, SDL's software renderer); tools/bench-viewer

SDL_CFLAGS = $(call lazy,SDL_CFLAGS,pkg-config --cflags sdl2 stb 2>/dev/null)
SDL_LIBS = $(call lazy,SDL_LIBS,pkg-config --libs sdl2 stb 2>/dev/null)

VIEWER_SRC := $(wildcard viewer/*.c)
DEMO_SRC := $(wildcard chapters/ch[0-9][0-9]/demos/*.c)
VIEWER_OBJ := $(VIEWER_SRC:%.c=$(OBJ)/%.o)
VIEWER_LIB_OBJ := $(filter-out $(OBJ)/viewer/main.o,$(VIEWER_OBJ))
DEMO_OBJ := $(DEMO_SRC:%.c=$(OBJ)/%.o)
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
EXTRA_HELP += demo-chN [DEMO=name] (N = 1..4), demos-check, viewer-test, bench-viewer

# cfview for chapter N: chapter N from IMPL, earlier chapters from PRIOR, later ones as stubs
VIEWER_BIN_DIR := $(BLD)/bin/$(IMPL)-$(PRIOR)
define viewer_rules
# $1 = chNN
$$(VIEWER_BIN_DIR)/cfview-$1: $$(VIEWER_OBJ) $$(DEMO_OBJ) $$(call link_objs,$1) $$(LIBSIM) $$(LIBCF)
	@$$(call require_impls,$$(IMPL),$1)
	@$$(call require_impls,$$(PRIOR),$$(foreach c,$$(CHAPTER_DIRS),$$(if $$(call is_before,$$c,$1),$$c)))
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$^ -o $$@ $$(LDLIBS) $$(SDL_LIBS)

.PHONY: $(sort demo-$1 demo-$(patsubst ch0%,ch%,$1))
$(sort demo-$1 demo-$(patsubst ch0%,ch%,$1)): $$(VIEWER_BIN_DIR)/cfview-$1
	@echo "== demos of $1: chapter $1 from $$(IMPL), earlier chapters from $$(PRIOR)"
	$$< --chapter $(patsubst 0%,%,$(patsubst ch%,%,$1)) $$(if $$(DEMO),--demo $$(DEMO)) --shots $$(BLD)/demos/$$(IMPL)-$$(PRIOR)
endef
$(foreach c,$(CHAPTER_DIRS),$(eval $(call viewer_rules,$c)))

# `make demo`: the Makefile's demo target runs $(DEMO_TARGET); the viewer replaces the
# command-line run. Best available: the scene file when the scene loader is in the tree, else
# the first chapter demo. Without a display cfview runs headless and writes build/<v>/demo.png.
DEMO_TARGET := demo-view
# the showcase side by side with these solvers (the comparison panel: one line each in the HUD, their
# residuals in one plot; keys 1-2 choose a world, x changes its solver); headless: 200 steps
DEMO_COMPARE ?= pgs-blocked,dual
.PHONY: demo-view demos-check viewer-test bench-viewer
demo-view:
	@$(MAKE) --no-print-directory IMPL=$(DEMO_IMPL) $(BLD)/bin/$(DEMO_IMPL)/cfview
	$(BLD)/bin/$(DEMO_IMPL)/cfview $(if $(and $(wildcard $(DEMO_SCENE)),$(wildcard sim/scene.c)),$(DEMO_SCENE),--demo ch01/tennis_racket) \
	  $(if $(filter %showcase.json,$(DEMO_SCENE)),--compare $(DEMO_COMPARE) --steps 200) --screenshot $(BLD)/demo.png

# every demo headless, checking its prediction; the reference solutions when the tree has them
DEMOS_IMPL := $(if $(wildcard solutions/ch01),solutions,exercises)
demos-check:
	@$(MAKE) --no-print-directory IMPL=$(DEMOS_IMPL) PRIOR=$(DEMOS_IMPL) \
	  $(foreach c,$(DEMO_CHAPTERS),$(BLD)/bin/$(DEMOS_IMPL)-$(DEMOS_IMPL)/cfview-$c)
	@st=0; for c in $(DEMO_CHAPTERS); do \
	  $(BLD)/bin/$(DEMOS_IMPL)-$(DEMOS_IMPL)/cfview-$$c --check --chapter $${c#ch} \
	    --shots $(BLD)/demos/$(DEMOS_IMPL) || st=1; \
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
BENCH_VIEWER_OUT ?= bench/results
bench-viewer: $(CFVIEW)
	@OPENBLAS_NUM_THREADS=1 tools/bench-viewer $(CFVIEW) $(BENCH_VIEWER_OUT)
