# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates for the cflab command line (sourced by tools/check, which defines gate and LOG):
# a short run writes exactly the expected CSV; --history prints the residual per iteration; every
# scene runs; a bad scene exits 2 with one line; help, version and usage errors behave.

CFLAB_BIN=build/rel/bin/solutions/cflab

# cflab run on the free-fall scene for 10 steps: exit 0, and the CSV holds the header plus one
# row per body for the initial state and each of the 10 steps (11 x 1 body), ending at t = 0.1
cflab_check_run() {
  local csv="$LOG/free_fall.csv" header rows bodies last_time
  [ -x "$CFLAB_BIN" ] || { echo "$CFLAB_BIN was not built"; return 1; }
  "$CFLAB_BIN" run scenes/ch01_free_fall.json --steps 10 --csv "$csv" --quiet || {
    echo "cflab run exited with status $?"
    return 1
  }
  header=$(head -n 1 "$csv")
  if [ "$header" != "time,body,name,kind,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,energy,solve" ]; then
    echo "unexpected CSV header: $header"
    return 1
  fi
  rows=$(($(wc -l <"$csv") - 1))
  bodies=$(awk -F, 'NR > 1 && $1 == 0' "$csv" | wc -l)
  last_time=$(tail -n 1 "$csv" | cut -d, -f1)
  if [ "$bodies" -ne 1 ] || [ "$rows" -ne $((11 * bodies)) ] || [ "$last_time" != 0.1 ]; then
    echo "expected 11 rows for 1 body ending at t = 0.1, got $rows rows for $bodies bodies ending at t = $last_time"
    return 1
  fi
  echo "ok: header + $rows rows in $csv"
}

# a scene with a typo: exit status 2 and exactly one line on stderr naming file, field and reason
cflab_check_bad_scene() {
  local scene="$LOG/bad_scene.json" err="$LOG/bad_scene.err" rc want
  printf '{\n  "bodies": [\n    { "shape": { "type": "sphere", "raduis": 1 }, "mass": 1 }\n  ]\n}\n' >"$scene"
  "$CFLAB_BIN" run "$scene" >/dev/null 2>"$err"
  rc=$?
  want="$scene: bodies[0].shape: unknown key 'raduis' (did you mean 'radius'?)"
  if [ "$rc" -ne 2 ] || [ "$(wc -l <"$err")" -ne 1 ] || [ "$(cat "$err")" != "$want" ]; then
    echo "expected exit status 2 and the line: $want"
    echo "got exit status $rc and:"
    cat "$err"
    return 1
  fi
  echo "ok: exit 2, $(cat "$err")"
}

# --help and --version succeed; an unknown command or option and a missing file exit 2
cflab_check_usage() {
  local rc
  "$CFLAB_BIN" --help | grep -q '^usage: cflab' || { echo "cflab --help"; return 1; }
  "$CFLAB_BIN" run --help | grep -q '^usage: cflab run' || { echo "cflab run --help"; return 1; }
  "$CFLAB_BIN" --version | grep -q '^cflab [0-9]' || { echo "cflab --version"; return 1; }
  "$CFLAB_BIN" frobnicate 2>/dev/null; rc=$?
  [ "$rc" -eq 2 ] || { echo "unknown command: exit $rc, expected 2"; return 1; }
  "$CFLAB_BIN" run scenes/ch01_free_fall.json --stpes 3 2>/dev/null; rc=$?
  [ "$rc" -eq 2 ] || { echo "unknown option: exit $rc, expected 2"; return 1; }
  "$CFLAB_BIN" run "$LOG/no_such_scene.json" 2>/dev/null; rc=$?
  [ "$rc" -eq 2 ] || { echo "missing scene: exit $rc, expected 2"; return 1; }
  echo "ok: help, version and usage errors"
}

# every committed scene runs to its end on the reference solutions with a finite state: exit 0
# and nothing on stderr (cflab warns there when the state stops being finite); the walls of 50 and
# 100 layers (up to a second per step on the soft step) run 12 and 3 steps only: make bench-sim
# runs them to the end, test_fast checks their prediction at 60 steps; the 10 000-node IPC cloth
# runs 1 (test_fast certifies 1, its demo 10); a scene that a demo runs
# (its chapter's demos/ name the file) runs 30 steps here: demos-check runs it to the demo's
# prediction
cflab_check_all_scenes() {
  local scene err="$LOG/scenes.err" bad=0 steps demoed
  demoed=$(grep -ho 'ch[0-9][0-9]_[a-z0-9_]*\.json' chapters/ch[0-9][0-9]/demos/*.c | sort -u)
  for scene in scenes/*.json; do
    steps=()
    grep -qx "$(basename "$scene")" <<<"$demoed" && steps=(--steps 30)
    case $scene in */ch05_pyramid_50.json) steps=(--steps 12) ;;
      */ch05_pyramid_100.json) steps=(--steps 3) ;;
      */ch11_showcase.json) steps=(--steps 60) ;; # 30 ms a step: make demo shows it, cflab compare measures it
      */ch09_ipc_cloth_10k.json) steps=(--steps 1) ;; # 10 000 nodes, ~5 s a step: test_fast certifies 1 step, the demo 10
      */ch09_ipc_cloth_sphere.json) steps=(--steps 2) ;; # 2 025 nodes and 4 boxes, ~1 s a step: bench_ch09 world runs it
    esac
    if ! "$CFLAB_BIN" run "$scene" "${steps[@]}" --quiet 2>"$err" || [ -s "$err" ]; then
      echo "$scene:"
      cat "$err"
      bad=1
    fi
  done
  [ "$bad" -eq 0 ] && echo "ok: $(ls scenes/*.json | wc -l) scenes run ($(wc -l <<<"$demoed") of them a demo's, 30 steps)"
}

# --history: a header and one row per iteration of the last step's solve (the stack of 10 on
# its 20 PGS sweeps), numbered 1..20, every residual a finite number >= 0
cflab_check_history() {
  local out="$LOG/history.csv" rows
  "$CFLAB_BIN" run scenes/ch05_stack_10.json --steps 30 --history --quiet >"$out" || {
    echo "cflab run --history exited with status $?"
    return 1
  }
  [ "$(head -n 1 "$out")" = "iteration,residual" ] || { echo "unexpected header: $(head -n 1 "$out")"; return 1; }
  rows=$(awk -F, 'NR > 1 && $1 == NR - 1 && $2 + 0 >= 0 && $2 ~ /^[0-9.e+-]+$/' "$out" | wc -l)
  if [ "$rows" -ne 20 ] || [ "$(wc -l <"$out")" -ne 21 ]; then
    echo "expected 20 rows 1..20 with residuals >= 0, got:"
    cat "$out"
    return 1
  fi
  echo "ok: header + $rows rows in $out"
}

# every world solver of the table (`cflab solvers`) runs the stack of ten from --solver for half a
# second and reports its own and the common residual
cflab_check_world_solvers() {
  local s out n=0 bad=0
  for s in $("$CFLAB_BIN" solvers | awk 'NR > 1 && $4 ~ /^world/ { print $1 }'); do
    n=$((n + 1))
    out=$("$CFLAB_BIN" run scenes/ch05_stack_10.json --solver "$s" --steps 30 --summary 2>&1) || {
      echo "$s: exit $?: $out"
      bad=1
      continue
    }
    grep -q "^residual: .*common [0-9.e+-]* (Coulomb natural map)" <<<"$out" || { echo "$s: no common residual in: $out"; bad=1; }
  done
  [ "$n" -ge 8 ] || { echo "only $n world solvers listed by cflab solvers"; bad=1; }
  [ "$bad" -eq 0 ] && echo "ok: $n world solvers step the stack of ten and report the common residual"
  return "$bad"
}

# the summary names the friction law the row solves (cf_world_friction_law()), not the world's
# friction_model: the texture pull's directional boxes and their residual, a boxed row's pyramid
cflab_check_friction_law() {
  local out bad=0
  out=$("$CFLAB_BIN" run scenes/ch10_texture_pull.json --steps 5 --summary 2>&1) || { echo "texture pull: exit $?: $out"; return 1; }
  grep -q "^solver: *pgs-texture, 50 iterations, friction: texture (directional boxes)," <<<"$out" ||
    { echo "texture pull: the solver line does not name the directional boxes: $out"; bad=1; }
  grep -q "^residual: .*common [0-9.e+-]* (directional-box natural map)" <<<"$out" ||
    { echo "texture pull: the common residual is not named the directional box's: $out"; bad=1; }
  out=$("$CFLAB_BIN" run scenes/ch05_stack_10.json --solver pgs-boxed --steps 5 --summary 2>&1) || { echo "pgs-boxed: exit $?"; return 1; }
  grep -q "^solver: *pgs-boxed, .* friction: box," <<<"$out" || { echo "pgs-boxed: the solver line does not name the box: $out"; bad=1; }
  # --solver per-island: the texture island gets pgs-texture, and the summary says so
  out=$("$CFLAB_BIN" run scenes/ch10_texture_pull.json --solver per-island --steps 5 --summary 2>&1) ||
    { echo "--solver per-island: exit $?: $out"; return 1; }
  grep -q "^islands: *last step 1 with contacts: pgs-texture on 1 (4 contacts, friction: texture (directional boxes))$" <<<"$out" ||
    { echo "--solver per-island: no texture island on pgs-texture in: $out"; bad=1; }
  [ "$bad" -eq 0 ] && echo "ok: the summary names texture's directional boxes, a boxed row's box, each island's row and law"
  return "$bad"
}

# --dump-problem of a texture step: refused (exit 1), naming the file and the directional boxes
cflab_check_dump_texture() {
  local f="$LOG/texture.dat" err rc
  rm -f "$f"
  err=$("$CFLAB_BIN" run scenes/ch10_texture_pull.json --steps 5 --quiet --dump-problem "$f" 2>&1)
  rc=$?
  if [ "$rc" -ne 1 ] || [ -e "$f" ] || ! grep -q "^cflab run: --dump-problem: $f: not written: 4 of the last step's 4 contacts have texture friction, whose directional boxes" <<<"$err"; then
    echo "expected exit 1, no file and the directional boxes named; got exit $rc: $err"
    return 1
  fi
  echo "ok: exit 1, $err"
}

gate_bg "cflab: run writes the trajectory CSV" cflab_check_run
gate_bg "cflab: --dump-problem refuses texture friction's directional boxes" cflab_check_dump_texture
gate_bg "cflab: --summary names the friction law the row solves (and each island's)" cflab_check_friction_law
gate_bg "cflab: every world solver runs the stack of ten (--solver)" cflab_check_world_solvers
gate_bg "cflab: --history prints the last step's residual per iteration" cflab_check_history
gate_bg "cflab: every scene runs" cflab_check_all_scenes
gate_bg "cflab: bad scene exits 2 with one line" cflab_check_bad_scene
gate_bg "cflab: help, version, usage errors" cflab_check_usage
