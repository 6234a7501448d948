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

# the viewer that makes the demos' figures, from the reference solutions of every chapter (a tree
# without all of them, a handout that released some, gets the figures' captions and where to see them)
BOOK_CFVIEW := $(if $(ALL_RELEASED),$(BUILD)/rel/bin/solutions/cfview)
.PHONY: book book-pdf docs catalogue
book:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(if $(BOOK_CFVIEW),$(MAKE) --no-print-directory IMPL=solutions PRIOR=solutions $(BOOK_CFVIEW))
	@tools/book/build $(if $(BOOK_CFVIEW),--cfview $(BOOK_CFVIEW)) $(if $(EDITION),--edition $(EDITION))

book-pdf:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(if $(BOOK_CFVIEW),$(MAKE) --no-print-directory IMPL=solutions PRIOR=solutions $(BOOK_CFVIEW))
	@tools/book/build --pdf $(if $(BOOK_CFVIEW),--cfview $(BOOK_CFVIEW)) $(if $(EDITION),--edition $(EDITION))

catalogue:
	@command -v pandoc >/dev/null || tools/install-deps
	@$(MAKE) --no-print-directory IMPL=solutions PRIOR=solutions $(BLD)/bin/solutions/cfview
	@tools/catalogue --cfview $(BLD)/bin/solutions/cfview --out $(BUILD)/book/catalogue

# Doxygen writes build/docs/html (and build/docs/xml, which tools/docs-briefs reads: a brief
# description cut mid-sentence, "n . (x - p)" or "et al. 2009", fails the build). Formulas use
# MathJax 2 from Debian's libjs-mathjax, copied into html/mathjax (the part the pages load: TeX
# input, HTML-CSS output, TeX fonts; about 6 MB), so that build/docs/html works wherever it is
# copied; never downloaded. Without libjs-mathjax the formulas show as their LaTeX source.
MATHJAX_DIR ?= /usr/share/javascript/mathjax
MATHJAX_PARTS := MathJax.js extensions jax/input/TeX jax/element jax/output/HTML-CSS/config.js \
  jax/output/HTML-CSS/jax.js jax/output/HTML-CSS/imageFonts.js jax/output/HTML-CSS/autoload \
  jax/output/HTML-CSS/fonts/TeX fonts/HTML-CSS/TeX/woff fonts/HTML-CSS/TeX/otf
docs:
	@command -v doxygen >/dev/null && [ -f $(MATHJAX_DIR)/MathJax.js ] || tools/install-deps
	@rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs
	@doxygen docs/Doxyfile >$(BUILD)/docs/doxygen.log 2>$(BUILD)/docs/warnings.log || \
	  { cat $(BUILD)/docs/warnings.log >&2; echo "docs: doxygen failed (log: $(BUILD)/docs/doxygen.log)" >&2; exit 1; }
	@if [ -s $(BUILD)/docs/warnings.log ]; then cat $(BUILD)/docs/warnings.log >&2; \
	  echo "docs: doxygen warnings (they are errors)" >&2; exit 1; fi
	@if grep -o '.\{0,50\}\\f[][$$].\{0,30\}' $$(ls $(BUILD)/docs/html/*.html | grep -v _source.html) >&2; then \
	  echo "docs: a formula left as its source (\\f\$$ inside quotes, or unbalanced): Doxygen did not render it" >&2; exit 1; fi
	@tools/docs-briefs $(BUILD)/docs/xml || \
	  { echo "docs: write 'Eq.\\ 75', 'et al.\\ 2010', a formula \\f\$$n \\cdot x\\f\$$ or 'rows 3k to 3k + 2' in the header" >&2; exit 1; }
	@if [ -f $(MATHJAX_DIR)/MathJax.js ]; then \
	  for p in $(MATHJAX_PARTS); do mkdir -p $(BUILD)/docs/html/mathjax/$$(dirname $$p) && \
	    cp -RL $(MATHJAX_DIR)/$$p $(BUILD)/docs/html/mathjax/$$p || exit 1; done; \
	  else echo "docs: formulas show as LaTeX: install libjs-mathjax to render them"; fi
	@echo "docs: $(BUILD)/docs/html/index.html"
