# SPDX-License-Identifier: MIT
# Instructor kit: autograder, class grading and handouts (tools/grade, tools/grade-all,
# tools/handout). Included by the Makefile.
#
#   make grade STUDENT=dir [CHAPTERS="1 3"] [HIDDEN=dir] [OUT=dir] [PRIOR=solutions] [CASE=ch01.2]
#   make grade-all STUDENTS=dir [JOBS=N] [CHAPTERS=...] [HIDDEN=dir] [OUT=dir]
#   make handout OUT=dir [CHAPTERS="1"]
#   make release OUT=dir CHAPTERS="6"   add chapter 6's solutions to the handout in dir
#   make gradescope OUT=dir [CHAPTERS="6"] [HIDDEN=dir] [DATA=dir]   Gradescope's autograder bundle
#   make grade-tests            the grader's own test suite (also part of make check)

EXTRA_HELP += grade grade-all handout release gradescope grade-tests

# Only what the user typed is passed on: CHAPTERS from the environment is not a request.
typed = $(filter command line,$(origin $1))
GRADE_ARGS = $(if $(call typed,CHAPTERS),--chapters "$(CHAPTERS)") \
             $(if $(HIDDEN),--hidden "$(HIDDEN)") \
             $(if $(call typed,PRIOR),--prior "$(PRIOR)") \
             $(if $(CASE),--case "$(CASE)") \
             $(if $(OUT),--out "$(OUT)")

# make exits 2 whenever a recipe fails, which would turn "not full marks" (tools/grade's exit 1)
# into the code for "grading could not be done". In question mode (-q) GNU make still runs a
# recipe marked `+` and exits with 1 when it fails with 1 (2 for any other failure), so
# `make grade` alone exits 0, 1 or 2 as tools/grade does (and `make grade-all` as tools/grade-all).
ifneq ($(filter-out grade grade-all,$(MAKECMDGOALS)),$(MAKECMDGOALS))
ifeq ($(words $(MAKECMDGOALS)),1)
MAKEFLAGS += -q
endif
endif

.PHONY: grade grade-all handout release gradescope grade-tests
grade:
	+@test -n "$(STUDENT)" || { echo 'usage: make grade STUDENT=dir [CHAPTERS="1 3"] [HIDDEN=dir] [OUT=dir] [PRIOR=solutions] [CASE=ch01.2]' >&2; exit 2; }
	+@tools/grade --student "$(STUDENT)" $(GRADE_ARGS)

grade-all:
	+@test -n "$(STUDENTS)" || { echo 'usage: make grade-all STUDENTS=dir [JOBS=N] [CHAPTERS="1 3"] [HIDDEN=dir] [OUT=dir]' >&2; exit 2; }
	+@tools/grade-all --students "$(STUDENTS)" $(if $(JOBS),--jobs $(JOBS)) $(GRADE_ARGS)

handout:
	@test -n "$(OUT)" || { echo 'usage: make handout OUT=dir [CHAPTERS="1 2"] [CLASSROOM=1]' >&2; exit 2; }
	@tools/handout --out "$(OUT)" $(if $(call typed,CHAPTERS),--chapters "$(CHAPTERS)") $(if $(CLASSROOM),--classroom)

# run in the course tree (it has the solutions); in a handout it says so
release:
	@test -z "$(HANDOUT)" || { echo 'make release: run it in the course tree, where the solutions are: make release OUT=$(CURDIR) CHAPTERS="..."' >&2; exit 2; }
	@test -n "$(OUT)" -a -n "$(call typed,CHAPTERS)" || { echo 'usage: make release OUT=dir CHAPTERS="6"' >&2; exit 2; }
	@tools/handout --update "$(OUT)" --release "$(CHAPTERS)"

gradescope:
	@test -n "$(OUT)" || { echo 'usage: make gradescope OUT=dir [CHAPTERS="6"] [HIDDEN=dir] [DATA=dir]' >&2; exit 2; }
	@tools/gradescope --out "$(OUT)" $(if $(call typed,CHAPTERS),--chapters "$(CHAPTERS)") $(if $(HIDDEN),--hidden "$(HIDDEN)") $(if $(DATA),--data "$(DATA)")

grade-tests:
	@tools/grade-tests/run
