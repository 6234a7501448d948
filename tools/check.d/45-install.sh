# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gate for `make install` (sourced by tools/check, which defines gate, LOG and MAKE): install into
# a temporary prefix, build 45-install.c against it with `pkg-config --cflags --libs cflab` alone,
# run it outside the tree (an installed scene stepped to rest; a Siconos LCP from ../shared/data
# solved, when that folder is there), then uninstall and find nothing left; DESTDIR stages the
# same files. About 4 s (the programs and objects are the earlier gates'). Skipped in a tree
# where a chapter has no solution (a handout: the installed library carries the solutions).

install_check() {
  local dir prefix stage out rc z lcp=() files staged left p
  dir=$(realpath -m "$LOG/install")
  prefix=$dir/prefix stage=$dir/stage
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  $MAKE install PREFIX="$prefix" >"$dir/install.log" 2>&1 || { cat "$dir/install.log"; echo "make install failed"; return 1; }
  files=$(cd "$prefix" && find . -type f | sort)
  echo "ok: make install PREFIX=$prefix: $(wc -l <<<"$files") files ($(tail -n 1 "$dir/install.log"))"

  # the program sees only the prefix: compiled and linked by pkg-config's flags, run from elsewhere
  local -x PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  [ "$(pkg-config --modversion cflab)" = "$("$prefix/bin/cflab" --version | cut -d' ' -f2)" ] ||
    { echo "cflab.pc's version is not cflab --version's"; return 1; }
  # shellcheck disable=SC2046 # pkg-config's flags are words
  ${CC:-cc} -std=c17 -Wall -Wextra -Werror tools/check.d/45-install.c -o "$dir/example" \
    $(pkg-config --cflags --libs cflab) || { echo "the example did not build with pkg-config --cflags --libs cflab"; return 1; }
  if [ -f ../shared/data/siconos-lcp/lcp_tobenna.dat ]; then
    lcp=("$(realpath ../shared/data/siconos-lcp/lcp_tobenna.dat)")
  else
    echo "skipped: the LCP half (no ../shared/data/siconos-lcp/lcp_tobenna.dat)"
  fi
  out=$(cd "$dir" && ./example "$prefix/share/cflab/scenes/ch05_sphere_on_box.json" "${lcp[@]}" 2>&1)
  rc=$?
  [ "$rc" -eq 0 ] || { echo "$out"; echo "the example exited with status $rc"; return 1; }
  echo "$out"
  # the scene's sphere (r 0.5) dropped from z = 3 rests on the box top, z = 1.5 (within the margin)
  z=$(sed -n 's/^sphere: z = \([0-9.e+-]*\) m.*/\1/p' <<<"$out")
  awk -v z="${z:-nan}" 'BEGIN { exit !(z > 1.49 && z < 1.51) }' ||
    { echo "the sphere should rest on the box at z = 1.5, is at z = ${z:-?}"; return 1; }
  if [ ${#lcp[@]} -gt 0 ] && ! { grep -Eq '^lcp n = 40, lemke: converged, residual [0-9.e+-]+$' <<<"$out" &&
    awk -v r="$(sed -n 's/.*residual //p' <<<"$out")" 'BEGIN { exit !(r <= 1e-10) }'; }; then
    echo "lemke should solve lcp_tobenna.dat (n = 40) to a residual <= 1e-10"
    return 1
  fi
  # the man pages (roff, from --help): a NAME section and the program's usage line
  for p in cflab cfview; do
    if ! grep -q '^\.SH NAME' "$prefix/share/man/man1/$p.1" || ! grep -q "usage: $p " "$prefix/share/man/man1/$p.1"; then
      echo "$p.1 lacks its NAME section or $p's usage line"
      return 1
    fi
  done

  $MAKE uninstall PREFIX="$prefix" >"$dir/uninstall.log" 2>&1 || { cat "$dir/uninstall.log"; return 1; }
  left=$(find "$prefix" ! -type d; find "$prefix/include/cf" "$prefix/share/cflab" 2>/dev/null)
  [ -z "$left" ] || { echo "make uninstall left:"; echo "$left"; return 1; }
  echo "ok: make uninstall removed every file"

  # DESTDIR: the same files under the staging folder, and uninstall removes them there
  $MAKE install PREFIX=/usr/local DESTDIR="$stage" >"$dir/stage.log" 2>&1 || { cat "$dir/stage.log"; return 1; }
  staged=$(cd "$stage/usr/local" && find . -type f | sort)
  [ "$staged" = "$files" ] || { echo "DESTDIR=$stage installed other files:"; diff <(echo "$files") <(echo "$staged"); return 1; }
  grep -qx 'prefix=/usr/local' "$stage/usr/local/lib/pkgconfig/cflab.pc" || { echo "cflab.pc under DESTDIR names the staging folder"; return 1; }
  $MAKE uninstall PREFIX=/usr/local DESTDIR="$stage" >>"$dir/stage.log" 2>&1 || { cat "$dir/stage.log"; return 1; }
  left=$(find "$stage" ! -type d)
  [ -z "$left" ] || { echo "make uninstall DESTDIR=$stage left:"; echo "$left"; return 1; }
  echo "ok: DESTDIR stages the same $(wc -l <<<"$files") files and uninstall removes them"
}

released_all=yes
for c in exercises/ch[0-9][0-9]; do [ -d "solutions/${c#exercises/}" ] || released_all=""; done
if [ -n "$released_all" ]; then
  gate "install: make install, a program built with pkg-config, make uninstall" install_check
else
  echo "== install gate skipped (not every chapter has its solution in this tree)"
fi
unset released_all
