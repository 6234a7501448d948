# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates for a status that tells the truth (sourced by tools/check, which defines gate, gate_bg and
# LOG): cflab solve's and run's exit codes follow what happened; every "converged" row of the
# small Siconos problems (the LCP files and the FC3D files with a reference solution, every solver)
# has its common residual at or below the tolerance, recomputed by tools/certify from the printed
# solution; and a short run of the fuzzer (tools/fuzz --small, 20 s on one job, on the
# AddressSanitizer + UBSan cflab) finds nothing. `make fuzz` is the long run.

TRUTH_CFLAB=build/rel/bin/solutions/cflab
TRUTH_ASAN_CFLAB=build/asan/bin/solutions/cflab
TRUTH_DATA=${CF_DATA_DIR:-../shared/data}

# expect RC TEXT CMD...: CMD exits RC and prints TEXT (stdout or stderr)
truth_expect() {
  local want=$1 text=$2 out rc
  shift 2
  out=$(timeout 30 "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "$*: expected exit $want and '$text', got exit $rc: $out"
    return 1
  fi
}

truth_check_codes() {
  local d="$LOG/truth" bad=0
  mkdir -p "$d"
  rm -f "$d/fifo" && mkfifo "$d/fifo"
  # inputs that are not regular files are refused at once (a FIFO would block, /dev/zero never end)
  truth_expect 2 "a FIFO (pipe), not a regular file" "$TRUTH_CFLAB" solve "$d/fifo" || bad=1
  truth_expect 2 "/dev/zero: a device, not a regular file" "$TRUTH_CFLAB" solve /dev/zero || bad=1
  truth_expect 2 "a FIFO (pipe), not a regular file" "$TRUTH_CFLAB" run "$d/fifo" || bad=1
  # an FC3D file with a corrupted header is read as FC3D, with its line
  printf '3\n1\n0\n6\n6\n' >"$d/header.dat"
  truth_expect 2 "header.dat:4: token 4 ('6'): matrix rows (3 x contacts)" "$TRUTH_CFLAB" solve "$d/header.dat" || bad=1
  # a rank-1 W: PROX may not say converged with a Coulomb residual of order 1 (it did, after its step underflowed)
  python3 - "$d/rank1.dat" <<'PY'
import random, sys
random.seed(4)
nc = 3; n = 3 * nc
v = [random.gauss(0, 1) for _ in range(n)]
rows = ["3", str(nc), "0", str(n), str(n), str(n), str(n)]
rows += [" ".join(repr(v[i] * v[j]) for i in range(n)) for j in range(n)]
rows.append(" ".join(repr(random.gauss(0, 1)) for _ in range(n)))
rows.append(" ".join(repr(random.uniform(0.1, 1)) for _ in range(nc)))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
  tools/certify --cflab "$TRUTH_CFLAB" --jobs 1 --solvers prox-gs,prox-jacobi,prox-gs-aniso,baraff "$d/rank1.dat" || bad=1
  # command-line settings go through the scene's checks: exit 2 naming the field and the option
  truth_expect 2 "world.preconditioner: 'lumped' is a choice of the dual-form solvers" \
    "$TRUTH_CFLAB" run scenes/ch05_stack_10.json --preconditioner lumped --steps 1 || bad=1
  truth_expect 2 "(with the command line's --iters 5)" "$TRUTH_CFLAB" run scenes/ch09_ipc_block_slide.json --iters 5 --steps 1 || bad=1
  # a body through the ground: exit 1 naming it and the step
  printf '%s\n' '{"world": {"dt": 0.01, "detector": "primitives", "solver": "pgs"}, "bodies": [' \
    '{"name": "ground", "fixed": true, "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}},' \
    '{"name": "speck", "mass": 1e-6, "position": [0, 0, 0.001], "shape": {"type": "box", "half_extents": [5e-7, 5e-7, 5e-7]}}]}' \
    >"$d/speck.json"
  truth_expect 1 "rigid body 1 'speck' went through the static plane 0 'ground' in step 2" \
    "$TRUTH_CFLAB" run "$d/speck.json" --steps 5 || bad=1
  # a step whose solves spend world.step_budget stops in about a second, exit 1 naming the work
  # (make fuzz seed 20261203, case scene:356: ch08's cloth as a 1 um strip under 2^31 m/s^2 ran for minutes)
  truth_expect 1 "step 2 (t = 0.004 s) failed: solve: the step's work budget is spent" \
    "$TRUTH_CFLAB" run sim/test/data/fuzz_cloth_gravity_2e31.json || bad=1
  # the summary says what converged; the CSV has the solve column
  truth_expect 0 "converged:  0 of the 5 solves; 5 did not" "$TRUTH_CFLAB" run scenes/ch05_stack_10.json --steps 5 --summary || bad=1
  rm -f "$d/fifo"
  [ "$bad" -eq 0 ] && echo "ok: refusals, headers, rank-1 PROX, overrides, a body through the ground, the step budget, the summary"
  return "$bad"
}

truth_certify_small() {
  local d="$LOG/truth-small" f n
  mkdir -p "$d"
  for f in "$TRUTH_DATA"/siconos-fc3d/*.dat; do
    n=$(basename "$f")
    [ -f "$TRUTH_DATA/siconos-fc3d/reference/$n.ref" ] && ln -sf "$(realpath "$f")" "$d/$n"
  done
  tools/certify --cflab "$TRUTH_CFLAB" --jobs 1 "$d" "$TRUTH_DATA/siconos-lcp"
}

if [ -x tools/certify ] && [ -x tools/fuzz ]; then
  $MAKE IMPL=solutions PRIOR=solutions "$TRUTH_CFLAB" >/dev/null
  gate_bg "truth: cflab's exit codes and refusals follow what happened" truth_check_codes
  if [ -d "$TRUTH_DATA/siconos-lcp" ] && [ -d "$TRUTH_DATA/siconos-fc3d" ]; then
    gate_bg "truth: every converged row of the small Siconos problems has its common residual within the tolerance" \
      truth_certify_small
  else
    echo "== truth: certify gate skipped (no $TRUTH_DATA)"
  fi
  if $MAKE SAN=1 IMPL=solutions PRIOR=solutions "$TRUTH_ASAN_CFLAB" >/dev/null; then
    gate_bg "truth: 20 s of the fuzzer (make fuzz is the long run) find nothing" \
      tools/fuzz --seconds 20 --jobs 1 --small --cpu 20 --cflab "$TRUTH_ASAN_CFLAB" --out "$LOG/fuzz"
  else
    gate "truth: the AddressSanitizer cflab for the fuzzer builds" false
  fi
else
  echo "== truth gates skipped (no tools/certify or tools/fuzz)"
fi
