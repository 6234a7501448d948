# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make check gates of the instructor kit, sourced by tools/check (which defines `gate`): the
# autograder graded against deliberately broken student trees, and a handout cloned and used
# the way a student uses it. A handout has neither solutions/ nor the grader's suite: skipped.
# shellcheck shell=bash
if [ -d solutions ] && [ -x tools/grade-tests/run ]; then
  gate_bg "grader: broken student trees get the expected statuses" tools/grade-tests/run
  gate_bg "handout: a mid-course handout (chapters 6-11) in a fresh clone, released chapter by chapter" tools/grade-tests/handout-check
  gate_bg "handout: nothing of a solution ships (every chapter)" tools/grade-tests/handout-leaks
  gate_bg "grader: an exercise that calls the reference's fast path is refused" tools/grade-tests/cheat-fast-solver
  gate_bg "gradescope: the bundle graded in a simulated /autograder on a reference, a stub and a broken submission; results.json against the specification's schema" tools/grade-tests/gradescope-check
fi
