# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates on the text of the tree (sourced by tools/check, which defines gate): no source, text or
# data file holds a control character other than tab and newline (a stray carriage return from
# `\r` in a script, a CRLF line end, an escape sequence; binary files such as PNG are skipped), and
# no test assertion inside a loop names an index without its value, and sim/ keeps its sizes (files,
# functions) and its map.

text_check_controls() {
  local hits
  hits=$(LC_ALL=C grep -rInP '[\x00-\x08\x0b-\x1f\x7f]' --exclude-dir=build --exclude-dir=.git . | cut -c1-160)
  if [ -n "$hits" ]; then
    echo "stray control characters (file:line):"
    cat -A <<<"$hits"
    return 1
  fi
  echo "ok: no control characters besides tab and newline"
}
gate "text: no stray control characters" text_check_controls

# an assertion inside a loop prints the loop's index values, not their names (tools/loop-asserts)
gate "tests: assertions in loops say where they failed" tools/loop-asserts

# sim/ files within ~600 lines, functions of sim/, the viewer and cflab within ~120, sim/README.md's
# map naming every file of sim/ (tools/sizes; an exception writes its reason at its top)
gate "sizes: sim/ files, functions of sim/, viewer/, cflab; the map of sim/" tools/sizes
