# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make check, viewer gates (sourced by tools/check, which defines gate, MAKE and LOG): the
# rendering tests and command line, every demo's prediction on the reference solutions, the
# demos on the stubs ("not implemented", no crash), a 200-frame run under ASan + UBSan and every
# demo's first 10 steps under them. One gate builds every viewer they run; they then run beside
# each other (gate_bg).

viewer_build() {
  $MAKE IMPL=exercises build/rel/bin/exercises/cfview &&
    $MAKE SAN=1 IMPL=solutions build/asan/bin/solutions/cfview &&
    $MAKE IMPL=solutions PRIOR=solutions viewer-bins
}

viewer_stubs() {
  local st=0 d out
  for d in $(build/rel/bin/exercises/cfview --list | awk '{print $1}'); do
    out=$(build/rel/bin/exercises/cfview --demo "$d" --headless --size 160x120 2>&1 >/dev/null)
    case $? in
      0) ;; # a demo that needs no exercise
      3) grep -q "not implemented: ch[0-9][0-9]\.[0-9]" <<<"$out" || { echo "$d: $out"; st=1; } ;;
      # a demo on a reference-only fast path (the walls' soft step, chapter 9's sparse IPC: cfvDemo::needs)
      # says what it needs
      2) grep -q "is not in this build: it needs .*(solutions/ch[0-9][0-9]/fast/, with the reference solutions only" <<<"$out" ||
           { echo "$d: unexpected status 2: $out"; st=1; } ;;
      *) echo "$d: unexpected status: $out"; st=1 ;;
    esac
  done
  return $st
}

viewer_asan() {
  local bin=build/asan/bin/solutions/cfview dir=$LOG/viewer-asan-frames
  rm -rf "$dir"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" --demo ch01/soft_large_step --headless --steps 200 --size 320x240 --record "$dir" --overlay ids,velocity,labels \
    >/dev/null || return 1
  [ "$(ls "$dir" | wc -l)" -eq 201 ] || { echo "expected 201 frames in $dir"; return 1; }
  # every demo set up, stepped and drawn under the sanitizers; 10 steps each at most, since the
  # release build's demos-check runs each to its prediction (the full runs took 164 s here)
  local out
  out=$(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" --check --all --max-steps 10 --size 320x240) || { echo "$out" | grep -v ': prediction holds\|: ran '; return 1; }
  grep -E '^cfview --check: [0-9]+ demos, 0 failed, 0 not implemented' <<<"$out" || { echo "$out" | tail -n 3; return 1; }
}

viewer_tests() {
  $MAKE IMPL=solutions PRIOR=solutions viewer-test CFVIEW_STUBS=build/rel/bin/exercises/cfview
}

# valgrind, when installed (tools/install-deps --optional): no leaks, no invalid accesses
viewer_valgrind() {
  command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; return 0; }
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
    build/rel/bin/solutions/cfview --demo ch01/tennis_racket --headless --steps 60 --size 200x150 \
    --overlay ids,omega,momentum,labels --screenshot "$LOG/viewer-valgrind.png" >/dev/null
}

# the registry is the chapters' demo files: every demo defined there is listed, in chapter order,
# and a demo file that defines none stops the build with its name
viewer_registry() {
  local defined listed bad=$LOG/demo-list-bad.c out
  defined=$(sed -n 's/^const cfvDemo cfv_demo_\(ch[0-9][0-9]\)_\([A-Za-z0-9_]*\) *=.*/\1\/\2/p' \
    $(ls chapters/ch[0-9][0-9]/demos/*.c | sort))
  listed=$(build/rel/bin/solutions/cfview --list | awk '{print $1}')
  [ "$defined" = "$listed" ] || { echo "cfview --list is not the demos the chapter folders define:"; diff <(echo "$defined") <(echo "$listed"); return 1; }
  echo "ok: $(wc -l <<<"$listed") demos, each from its chapter's demos/ folder, in chapter order"
  printf '/* not a demo */\nint x;\n' >"$bad"
  out=$(tools/demo-list chapters/ch01/demos/01_tennis_racket.c "$bad" 2>&1 >/dev/null) &&
    { echo "tools/demo-list accepted a file that defines no demo"; return 1; }
  grep -q "demo-list-bad.c defines no" <<<"$out" || { echo "tools/demo-list's error does not name the file: $out"; return 1; }
}

if [ -f mk/viewer.mk ] && gate "build: the viewers (solutions per chapter, stubs, ASan, tests)" viewer_build; then
  gate_bg "viewer: 200 frames and every demo's first steps under AddressSanitizer + UBSan" viewer_asan
  gate_bg "viewer: rendering tests and command line" viewer_tests
  gate_bg "viewer: demos-check (every demo's prediction, solutions)" $MAKE demos-check
  gate_bg "viewer: demos on the stubs say 'not implemented'" viewer_stubs
  gate_bg "viewer: valgrind" viewer_valgrind
  gate_bg "viewer: the demo registry is the chapters' demo files" viewer_registry
fi
