# SPDX-License-Identifier: MIT
# The proxies between a chapter's tests and its exercise functions (lib/test/cft_confine.h):
# tools/confine-gen writes them from lib/test/confine/chNN.tbl and the chapter's header, and a
# chapter's test binary links those of chapters 1..N with -Wl,--wrap for each function.

CONFINE_TABLES := $(sort $(wildcard lib/test/confine/ch[0-9][0-9].tbl))
CONFINE_CHAPTERS := $(patsubst lib/test/confine/%.tbl,%,$(CONFINE_TABLES))
CONFINE_GEN := $(BLD)/gen/confine

$(CONFINE_GEN)/confine_%.c $(CONFINE_GEN)/confine_%.wrap: lib/test/confine/%.tbl tools/confine-gen $(wildcard lib/include/cf/*.h) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)tools/confine-gen --chapter $* --out $(CONFINE_GEN)/confine_$*.c --wrap $(CONFINE_GEN)/confine_$*.wrap

$(OBJ)/lib/test/confine/confine_%.o: $(CONFINE_GEN)/confine_%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# proxies linked into the test binary of chapter $1 (chapters 1..$1), and the linker options
confine_chapters = $(foreach c,$(CONFINE_CHAPTERS),$(if $(or $(filter $c,$1),$(call is_before,$c,$1)),$c))
confine_objs = $(foreach c,$(call confine_chapters,$1),$(OBJ)/lib/test/confine/confine_$c.o) $(OBJ)/lib/test/confine/types.o
confine_wraps = $(foreach c,$(call confine_chapters,$1),$(CONFINE_GEN)/confine_$c.wrap)
confine_ldflags = $(foreach c,$(call confine_wraps,$1),-Wl,@$c)
