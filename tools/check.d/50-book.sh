# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make check gates of the book and the API reference, sourced by tools/check (which defines
# `gate`): both editions of the book (a missing or unused snippet fails), Doxygen with
# warnings as errors, no brief description cut mid-sentence, no formula left as its source, and
# the brief checker's own rules on made-up members (so that a broken checker cannot pass).
# shellcheck shell=bash
gate_bg "book: student and instructor editions" make --no-print-directory book
gate_bg "docs: API reference (Doxygen warnings, cut briefs and unrendered formulas are errors)" make --no-print-directory docs
gate "docs: tools/docs-briefs finds cut briefs (self-test)" tools/docs-briefs --self-test

# the scene catalogue's generator on one scene (the full page is `make catalogue`; every
# catalogue scene's expectation is already checked by demos-check)
catalogue_one() {
  make --no-print-directory IMPL=solutions PRIOR=solutions build/rel/bin/solutions/cfview >/dev/null &&
    tools/catalogue --cfview build/rel/bin/solutions/cfview --only ch11/cradle --size 320x200 --out "$LOG/catalogue" &&
    grep -q '!\[.*\](ch11_cradle.png)' "$LOG/catalogue/index.md" && [ -s "$LOG/catalogue/ch11_cradle.png" ] &&
    grep -q 'held' "$LOG/catalogue/index.html"
}
if [ -f viewer/main.c ]; then
  gate_bg "catalogue: tools/catalogue on the Newton's cradle" catalogue_one
fi
