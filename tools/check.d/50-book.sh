# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make check gates of the book and the API reference, sourced by tools/check (which defines
# `gate`): both editions of the book (a missing or unused snippet fails, and the rule that an
# exercise snippet shows its algorithm on a one-snippet page), Doxygen with
# warnings as errors, no brief description cut mid-sentence, no formula left as its source, and
# the brief checker's own rules on made-up members (so that a broken checker cannot pass).
# shellcheck shell=bash
gate_bg "book: student and instructor editions" make --no-print-directory book

# the filter on a one-snippet page: an exercise snippet without its algorithm fails the build
# (naming the snippet); with it, the student edition shows the algorithm and the place to write
# it and never the stub, the instructor edition the algorithm and the code (0.2 s)
book_algorithm_rule() {
  local d="$LOG/book-rule" out
  rm -rf "$d" && mkdir -p "$d" || return 1
  cat >"$d/snippets.lua" <<'LUA'
return {
  ["chXX:sum"] = {file = "exercises/chXX/sum.c", line = 3, kind = "exercise", exercises = "chXX.1",
                  code = "// TODO(chXX.1): implement this\nreturn CF_TODO_F(\"chXX.1\");"},
}
LUA
  printf '%s\n' '# Sum' '' '```{.c snippet="chXX:sum"}' '```' >"$d/empty.md"
  printf '%s\n' '# Sum' '' '```{.c snippet="chXX:sum"}' 'sum(x) → s:' '    for each i: s ← s + xᵢ' '```' >"$d/full.md"
  book_rule_run() { pandoc "$1" --from markdown --to html5 --lua-filter tools/book/snippets.lua \
            -M snippets_file="$d/snippets.lua" -M edition="$2" -M source_name="$1" -o "$3"; }
  if out=$(book_rule_run "$d/empty.md" student "$d/empty.html" 2>&1); then
    echo "an exercise snippet without pseudo-code was accepted"; return 1
  fi
  grep -q 'chXX:sum (exercise chXX.1)' <<<"$out" || { echo "the failure does not name the snippet: $out"; return 1; }
  book_rule_run "$d/full.md" student "$d/student.html" && book_rule_run "$d/full.md" instructor "$d/instructor.html" || return 1
  if ! grep -q 'pseudo' "$d/student.html" || ! grep -q 'exercises/chXX/sum.c:3' "$d/student.html" ||
    grep -q 'CF_TODO' "$d/student.html"; then
    echo "student edition: no algorithm, or the stub shown"; return 1
  fi
  if ! grep -q 'pseudo' "$d/instructor.html" || ! grep -q 'CF_TODO' "$d/instructor.html"; then
    echo "instructor edition: the algorithm and the code expected"; return 1
  fi
  echo "ok: an exercise snippet needs its algorithm; the student edition shows it instead of the stub"
}
gate "book: an exercise snippet shows its algorithm, never an empty stub" book_algorithm_rule
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
