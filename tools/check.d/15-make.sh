# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gate on the make command line (sourced by tools/check, which defines gate and LOG): the
# variables users type for one target (CHAPTERS for grade and handout) do not change the rules
# of the others (a `make demo-ch1 CHAPTERS="1 2"` once failed with "target 'demo-1' given more
# than once"), and `make handout CHAPTERS="1 2"` hands out those chapters.

make_check_chapters_var() {
  local t out st=0
  for t in demo-ch1 test-ch1 test-ch01 all; do
    out=$(env -u MAKEFLAGS -u MFLAGS make -n --no-print-directory "$t" CHAPTERS="1 2" 2>&1) || { echo "make -n $t CHAPTERS=\"1 2\" failed: $out" | head -n 5; st=1; continue; }
    if grep -q "given more than once\|overriding\|warning:" <<<"$out"; then
      echo "make -n $t CHAPTERS=\"1 2\": $(grep -m 1 "given more than once\|overriding\|warning:" <<<"$out")"
      st=1
    fi
  done
  [ -d solutions ] || { [ $st -eq 0 ] && echo "ok: CHAPTERS= leaves the other targets alone"; return $st; }
  rm -rf "$LOG/handout-1-2"
  out=$(make --no-print-directory handout OUT="$LOG/handout-1-2" CHAPTERS="1 2" 2>&1) || {
    echo "make handout CHAPTERS=\"1 2\" failed: $out"
    return 1
  }
  if ! grep -qx "chapters: ch01 ch02" "$LOG/handout-1-2/.handout" || [ -e "$LOG/handout-1-2/solutions/ch02" ]; then
    echo "make handout CHAPTERS=\"1 2\" did not hand out ch01 ch02: $(cat "$LOG/handout-1-2/.handout" 2>/dev/null)"
    st=1
  fi
  rm -rf "$LOG/handout-1-2"
  [ $st -eq 0 ] && echo "ok: CHAPTERS= leaves demo-ch1, test-ch1 and all alone; make handout CHAPTERS=\"1 2\" hands out ch01 ch02"
  return $st
}
gate "make: CHAPTERS= on the command line" make_check_chapters_var
