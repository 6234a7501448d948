# SPDX-License-Identifier: MIT
# Install cflab for programs outside this tree (included by the Makefile):
#
#   make install PREFIX=/usr/local [DESTDIR=dir]     libcf.a, the public headers, cflab.pc,
#                                                    cflab and cfview and their man pages, scenes
#   make uninstall PREFIX=/usr/local [DESTDIR=dir]   removes exactly those files
#
# libcf.a is one static archive of the library (lib/), the simulation layer (sim/) and every
# chapter from its reference solution (solutions/): an installed library carries the solutions.
# Static only: the objects are the build's own (no second, position-independent compile), the API
# is a course's and changes between terms (no ABI or soname to keep), and a program built against
# it keeps the reference it was built with. Because a program links an archive's dependencies
# itself, cflab.pc lists them in Requires and Libs, so that `pkg-config --cflags --libs cflab`
# is a complete link line (for a shared library they would be Requires.private and Libs.private).

GENERAL_HELP += install uninstall

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/cflab
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# the version is cflab's (`cflab --version`), read from its source
CF_VERSION = $(call lazy,CF_VERSION,sed -n 's/^.define CFLAB_VERSION "\(.*\)"/\1/p' tools/cflab/cflab.c)

PUBLIC_HEADERS := $(wildcard lib/include/cf/*.h sim/include/cf/*.h)
# the scenes, in share/cflab/scenes: demos that load one name it as scenes/NAME.json, so they run
# from share/cflab (cd there first)
INSTALL_SCENES := $(wildcard scenes/*.json)
INSTALL_LIBCF := $(BLD)/install/libcf.a
INSTALL_PROGS := cflab cfview
INSTALL_MANS := $(INSTALL_PROGS:%=$(BLD)/install/%.1)
# what the programs are, for their man pages' NAME line
MAN_NAME_cflab := the Contact and Friction Lab on the command line: run scenes, compare and solve
MAN_NAME_cfview := the Contact and Friction Lab's viewer: demos, scenes, headless screenshots

# every installed file; uninstall removes these, then cflab's own folders when they are left empty
INSTALLED := $(INSTALL_PROGS:%=$(BINDIR)/%) $(LIBDIR)/libcf.a $(PKGCONFIGDIR)/cflab.pc \
             $(INSTALL_PROGS:%=$(MANDIR)/man1/%.1) $(addprefix $(INCLUDEDIR)/cf/,$(notdir $(PUBLIC_HEADERS))) \
             $(addprefix $(DATADIR)/,$(INSTALL_SCENES))
INSTALLED_DIRS := $(INCLUDEDIR)/cf $(DATADIR)/scenes $(DATADIR)

# a folder under the prefix as cflab.pc writes it (${prefix}/lib)
under_prefix = $(patsubst $(PREFIX)/%,$${prefix}/%,$1)

$(INSTALL_LIBCF): $(LIB_OBJ) $(SIM_OBJ) $(call all_impl_objs,solutions)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# the programs as `make IMPL=solutions` builds them (with HDF5=1, the cflab that reads FCLIB's files)
INSTALL_BINS := $(CFLAB) $(CFVIEW)
$(BLD)/install/cflab.1: $(CFLAB)
$(BLD)/install/cfview.1: $(CFVIEW)
# short man pages from --help (help2man; tools/install-deps installs it)
$(INSTALL_MANS):
	@command -v help2man >/dev/null || { echo "make install: help2man is missing (tools/install-deps installs it)" >&2; exit 1; }
	@mkdir -p $(@D)
	$(Q)help2man --no-info --version-string=$(CF_VERSION) --name="$(MAN_NAME_$(basename $(@F)))" --output=$@ $<

.PHONY: install uninstall
# the programs are cflab and cfview on the reference solutions: IMPL=solutions builds them
ifneq ($(IMPL),solutions)
install:
	@$(MAKE) --no-print-directory IMPL=solutions install
else
install: $(INSTALL_LIBCF) $(INSTALL_BINS) $(INSTALL_MANS)
	install -d $(addprefix $(DESTDIR),$(BINDIR) $(LIBDIR) $(PKGCONFIGDIR) $(INCLUDEDIR)/cf $(MANDIR)/man1 $(DATADIR)/scenes)
	install -m 755 $(INSTALL_BINS) $(DESTDIR)$(BINDIR)
	install -m 644 $(INSTALL_LIBCF) $(DESTDIR)$(LIBDIR)
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/cf
	install -m 644 $(INSTALL_MANS) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(INSTALL_SCENES) $(DESTDIR)$(DATADIR)/scenes
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call under_prefix,$(LIBDIR))' 'includedir=$(call under_prefix,$(INCLUDEDIR))' '' \
	  'Name: cflab' \
	  'Description: Contact and Friction Lab: library, simulation layer and reference solutions' \
	  'Version: $(CF_VERSION)' \
	  '# libcf is a static archive: its dependencies are linked by the program, so they are public' \
	  'Requires: $(LIB_PKGS)' \
	  'Cflags: -I$${includedir}' \
	  'Libs: $(strip -L$${libdir} -lcf $(OPENMP) $(if $(filter 1,$(CHOLMOD)),-lcholmod) -lm)' \
	  >$(DESTDIR)$(PKGCONFIGDIR)/cflab.pc
	@echo "installed cflab $(CF_VERSION) in $(DESTDIR)$(PREFIX): $(words $(INSTALLED)) files"
endif

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	@for d in $(addprefix $(DESTDIR),$(INSTALLED_DIRS)); do \
	  if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d"; fi; done
