# SPDX-License-Identifier: MIT
# The book (pandoc, tools/book/) and the API reference (Doxygen, docs/Doxyfile).
# Included by the Makefile.
#
#   make book          build/book/{student,instructor}/index.html (a missing or unused snippet fails)
#   make book-pdf      the same plus a PDF per edition when weasyprint is installed
#   make docs          build/docs/html/index.html (warnings are errors)
#   make catalogue     build/book/catalogue/index.html: every catalogue scene run headless, one screenshot
#                      each, its expectation checked (tools/catalogue; fails when one does not hold)

EXTRA_HELP += book book-pdf docs catalogue

# the viewer that makes the demos' figures: the reference solutions when the tree has them
BOOK_IMPL := $(if $(wildcard solutions/ch01),solutions,exercises)
BOOK_CFVIEW := $(BUILD)/rel/bin/$(BOOK_IMPL)/cfview
.PHONY: book book-pdf docs catalogue
book:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(MAKE) --no-print-directory IMPL=$(BOOK_IMPL) PRIOR=$(BOOK_IMPL) $(BOOK_CFVIEW)
	@tools/book/build --cfview $(BOOK_CFVIEW) $(if $(EDITION),--edition $(EDITION))

book-pdf:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(MAKE) --no-print-directory IMPL=$(BOOK_IMPL) PRIOR=$(BOOK_IMPL) $(BOOK_CFVIEW)
	@tools/book/build --pdf --cfview $(BOOK_CFVIEW) $(if $(EDITION),--edition $(EDITION))

catalogue:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(MAKE) --no-print-directory IMPL=solutions PRIOR=solutions $(BLD)/bin/solutions/cfview
	@tools/catalogue --cfview $(BLD)/bin/solutions/cfview --out $(BUILD)/book/catalogue

# Doxygen writes build/docs/html; formulas use MathJax from Debian's libjs-mathjax (linked as
# html/mathjax, never downloaded; without it they show as their LaTeX source). A brief cut at an
# abbreviation ("notes Eq." with the rest in the details: write "Eq.\ 75") fails the build.
MATHJAX_DIR ?= /usr/share/javascript/mathjax
CUT_BRIEF := \b([Ee]qs?|e\.g|i\.e|vs|cf|Fig|Sec|Alg)\.\s*(</p>|</td>|<a href)
docs:
	@command -v doxygen >/dev/null && [ -f $(MATHJAX_DIR)/MathJax.js ] || tools/install-deps
	@rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs
	@doxygen docs/Doxyfile >$(BUILD)/docs/doxygen.log 2>$(BUILD)/docs/warnings.log || \
	  { cat $(BUILD)/docs/warnings.log >&2; echo "docs: doxygen failed (log: $(BUILD)/docs/doxygen.log)" >&2; exit 1; }
	@if [ -s $(BUILD)/docs/warnings.log ]; then cat $(BUILD)/docs/warnings.log >&2; \
	  echo "docs: doxygen warnings (they are errors)" >&2; exit 1; fi
	@if grep -oP '.{0,60}$(CUT_BRIEF)' $$(ls $(BUILD)/docs/html/*.html | grep -v _source.html) >&2; then \
	  echo "docs: descriptions cut at an abbreviation (write 'Eq.\\ 75', 'e.g.\\ x' in the header)" >&2; exit 1; fi
	@if [ -f $(MATHJAX_DIR)/MathJax.js ]; then ln -sfn $(MATHJAX_DIR) $(BUILD)/docs/html/mathjax; \
	  else echo "docs: formulas show as LaTeX: install libjs-mathjax to render them"; fi
	@echo "docs: $(BUILD)/docs/html/index.html"
