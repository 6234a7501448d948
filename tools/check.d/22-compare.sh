# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates for `cflab compare` (sourced by tools/check, which defines gate and LOG). Its table and CSV
# files are checked against independent computations: `cflab run` of the same scene with each
# solver (the common residual it reports, the residual per iteration of --history, the energy,
# positions and velocities of its trajectory CSV); the PNG plots exist with the stated size; bad
# input exits 2 (1 for a solver that cannot step the scene) with a message naming the culprit.

COMPARE_CFLAB=build/rel/bin/solutions/cflab

# Four spheres of radius 0.5 (gap z - 0.5 to the ground, |c_i - c_j| - 1 between two), so that
# penetration and drift follow from the trajectory alone: a pile of three at rest (two on the
# ground touching, one on top of them: it rolls apart, an iterative solver does not converge in
# 15 sweeps), one thrown at the ground, which slides (not at rest at the start), and one let go in
# the air (not moving, but touching nothing: it falls, and is not a body at rest either).
compare_scene() {
  cat >"$1" <<'EOF'
{
  "name": "sphere pile",
  "description": "cflab compare check: three spheres piled up at rest, one thrown at the ground",
  "world": { "dt": 0.016666666666666666, "steps": 60, "detector": "primitives", "contact_margin": 0.02,
             "solver": "pgs", "solver_iterations": 15 },
  "bodies": [
    { "name": "ground", "fixed": true, "mu": 0.5, "shape": { "type": "plane", "normal": [0, 0, 1], "offset": 0 } },
    { "name": "left", "mass": 1, "mu": 0.5, "position": [-0.5, 0, 0.5], "shape": { "type": "sphere", "radius": 0.5 } },
    { "name": "right", "mass": 1, "mu": 0.5, "position": [0.5, 0, 0.5], "shape": { "type": "sphere", "radius": 0.5 } },
    { "name": "top", "mass": 3, "mu": 0.5, "position": [0, 0.01, 1.3660254037844386],
      "shape": { "type": "sphere", "radius": 0.5 } },
    { "name": "thrown", "mass": 1, "mu": 0.5, "position": [4, 0, 0.55], "velocity": [2, 0, -1.5],
      "shape": { "type": "sphere", "radius": 0.5 } },
    { "name": "dropped", "mass": 1, "mu": 0.5, "position": [-4, 0, 3.0], "shape": { "type": "sphere", "radius": 0.5 } }
  ]
}
EOF
}

compare_check_values() {
  local dir="$LOG/compare" scene="$LOG/compare/sphere_pile.json" out s bad=0
  local solvers="pgs newton-ac prox-gs"
  rm -rf "$dir" && mkdir -p "$dir"
  compare_scene "$scene"
  out=$("$COMPARE_CFLAB" compare "$scene" --solvers pgs,newton-ac,prox-gs --steps 60 --out "$dir/out" 2>&1) || {
    echo "cflab compare exited with status $?: $out"
    return 1
  }
  echo "$out"
  # the independent runs: one `cflab run` per solver, its summary, last-step history and trajectory
  for s in $solvers; do
    "$COMPARE_CFLAB" run "$scene" --solver "$s" --steps 60 --summary --history --csv "$dir/run-$s.csv" \
      >"$dir/run-$s.txt" || { echo "cflab run --solver $s failed"; return 1; }
  done
  python3 - "$dir" "$solvers" <<'EOF' || bad=1
import csv, math, re, struct, sys

d, solvers = sys.argv[1], sys.argv[2].split()
bad = []
def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))

with open(f"{d}/out/summary.csv") as f:
    rows = list(csv.DictReader(f))
    header = f"solver,status,steps,ms_per_step,solve_ms_per_step,iterations_mean,iterations_max,common_residual_last,common_residual_max,energy_start,energy_end,energy_change,energy_change_relative,max_penetration,resting_bodies,resting_drift,friction,islands"
with open(f"{d}/out/summary.csv") as f:
    if f.readline().strip() != header:
        bad.append("summary.csv: unexpected header")
if [r["solver"] for r in rows] != solvers:
    bad.append(f"summary.csv: solvers {[r['solver'] for r in rows]}, expected {solvers}")
with open(f"{d}/out/steps.csv") as f:
    steps = list(csv.DictReader(f))
with open(f"{d}/out/history.csv") as f:
    hist = list(csv.DictReader(f))

for r in rows:
    s = r["solver"]
    if r["status"] != "ok" or r["steps"] != "60":
        bad.append(f"{s}: status {r['status']} after {r['steps']} steps, expected ok after 60")
    if not (float(r["ms_per_step"]) > 0 and float(r["solve_ms_per_step"]) >= 0):
        bad.append(f"{s}: times {r['ms_per_step']}, {r['solve_ms_per_step']} ms")
    text = open(f"{d}/run-{s}.txt").read()
    # the common residual of the last step, as cflab run --summary prints it (%.3e)
    m = re.search(r"common ([0-9.e+-]+) \(Coulomb natural map\)", text)
    if not m or "%.3e" % float(r["common_residual_last"]) != m.group(1):
        bad.append(f"{s}: common residual of the last step {r['common_residual_last']}, cflab run says {m and m.group(1)}")
    # the residual per iteration of the last step: the rows of cflab run --history
    run_hist = [l.split(",") for l in text.split("iteration,residual\n", 1)[1].split()]
    mine = [(h["iteration"], h["residual"]) for h in hist if h["solver"] == s]
    if [(a, float(b)) for a, b in run_hist] != [(a, float(b)) for a, b in mine] or not mine:
        bad.append(f"{s}: history.csv ({len(mine)} rows) differs from cflab run --history ({len(run_hist)} rows)")
    if any(h["step"] != "60" for h in hist if h["solver"] == s):
        bad.append(f"{s}: history.csv is not of step 60")
    # the trajectory: energy, penetration (gap z - 0.5 of each sphere over the states the 60 steps
    # start from) and the drift of the bodies at rest at the start
    with open(f"{d}/run-{s}.csv") as f:
        traj = list(csv.DictReader(f))
    t0, t1 = traj[0]["time"], traj[-1]["time"]
    e0 = sum(float(x["energy"]) for x in traj if x["time"] == t0)
    e1 = sum(float(x["energy"]) for x in traj if x["time"] == t1)
    spheres = [x for x in traj if x["name"] != "ground"]
    pen = 0.0
    for t in sorted({x["time"] for x in spheres if x["time"] != t1}, key=float):
        c = [[float(x[k]) for k in "xyz"] for x in spheres if x["time"] == t]
        pen = max([pen] + [0.5 - p[2] for p in c] + [1.0 - math.dist(p, q) for i, p in enumerate(c) for q in c[:i]])
    start = {x["name"]: x for x in spheres if x["time"] == t0}
    # at rest at the start: not moving and touching something (the ground or a sphere, within the
    # contact margin 0.02)
    def touching(n):
        p = [float(start[n][k]) for k in "xyz"]
        return p[2] - 0.5 <= 0.02 or any(math.dist(p, [float(start[m][k]) for k in "xyz"]) - 1.0 <= 0.02
                                         for m in start if m != n)
    resting = [n for n, x in start.items()
               if all(float(x[k]) == 0.0 for k in ("vx", "vy", "vz", "wx", "wy", "wz")) and touching(n)]
    drift = max(math.dist([float(x[k]) for k in "xyz"], [float(start[x["name"]][k]) for k in "xyz"])
                for x in spheres if x["time"] == t1 and x["name"] in resting)
    for name, want, got in (("energy_start", e0, r["energy_start"]), ("energy_change", e1 - e0, r["energy_change"]),
                            ("max_penetration", pen, r["max_penetration"]), ("resting_drift", drift, r["resting_drift"]),
                            ("resting_bodies", len(resting), r["resting_bodies"])):
        if not close(want, float(got)):
            bad.append(f"{s}: {name} {got}, from the trajectory of cflab run {want!r}")
    if not (pen > 1e-4 and drift > 1e-2 and len(resting) == 3):
        bad.append(f"{s}: the pile should penetrate (got {pen} m), collapse (drift {drift} m) and rest at the start ({resting})")
    # steps.csv: 60 rows; the mean iterations over the steps with contacts and the last residual
    mine = [x for x in steps if x["solver"] == s]
    solved = [int(x["iterations"]) for x in mine if int(x["contacts"]) > 0]
    if len(mine) != 60 or [int(x["step"]) for x in mine] != list(range(1, 61)):
        bad.append(f"{s}: steps.csv has {len(mine)} rows, expected steps 1..60")
    elif not close(sum(solved) / len(solved), float(r["iterations_mean"])) or max(solved) != int(r["iterations_max"]):
        bad.append(f"{s}: iterations mean {r['iterations_mean']} max {r['iterations_max']} unlike steps.csv")
    elif float(mine[-1]["common_residual"]) != float(r["common_residual_last"]):
        bad.append(f"{s}: steps.csv's last common residual differs from summary.csv")

# the plots: PNG files of 1000 x 600 pixels
for name in ("residual", "common", "energy", "step_time"):
    with open(f"{d}/out/{name}.png", "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or struct.unpack(">II", head[16:24]) != (1000, 600):
        bad.append(f"{name}.png: not a 1000x600 PNG")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
  # the table: a header and one row per solver, each "ok"
  for s in $solvers; do
    grep -Eq "^$s +ok +[0-9]" <<<"$out" || { echo "no table row '$s ok' in the output"; bad=1; }
  done
  grep -q "^solver *status *ms/step *solve ms *iters *common last *common max *dE (J) *dE/|E0| *max pen *rest drift *friction$" <<<"$out" ||
    { echo "unexpected table header"; bad=1; }
  [ "$bad" -eq 0 ] && echo "ok: table, summary.csv, steps.csv and history.csv agree with cflab run of each solver; 4 plots of 1000x600"
  return "$bad"
}

# compare_expect STATUS PATTERN ARGS...: cflab compare ARGS exits with STATUS and says PATTERN on stderr
compare_expect() {
  local want=$1 pattern=$2 rc err
  shift 2
  err=$("$COMPARE_CFLAB" compare "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" <<<"$err"; then
    echo "cflab compare $*: expected exit $want and '$pattern', got exit $rc: $err"
    return 1
  fi
}

compare_check_bad_input() {
  local scene="$LOG/compare/sphere_pile.json" out="$LOG/compare/bad" bad=0
  mkdir -p "$LOG/compare"
  compare_scene "$scene"
  compare_expect 2 "unknown solver 'frobnitz'" "$scene" --solvers pgs,frobnitz --out "$out" || bad=1
  compare_expect 2 "solver 'dantzig' cannot step a world" "$scene" --solvers dantzig --out "$out" || bad=1
  compare_expect 2 "empty solver name" "$scene" --solvers "" --out "$out" || bad=1
  compare_expect 2 "empty solver name" "$scene" --solvers pgs,,nncg --out "$out" || bad=1
  compare_expect 2 "solver 'pgs' named twice" "$scene" --solvers pgs,pgs --out "$out" || bad=1
  compare_expect 2 "--solvers missing" "$scene" --out "$out" || bad=1
  compare_expect 2 "--steps: expected an integer" "$scene" --solvers pgs --steps 0 --out "$out" || bad=1
  compare_expect 2 "$LOG/compare/no_such_scene.json: cannot open" "$LOG/compare/no_such_scene.json" --solvers pgs --out "$out" || bad=1
  compare_expect 2 "--history-step 9: after the last step (3)" "$scene" --solvers pgs --steps 3 --history-step 9 --out "$out" || bad=1
  compare_expect 2 "unknown option '--stpes'" "$scene" --solvers pgs --stpes 3 || bad=1
  # a solver that cannot take the scene's contacts (matrix-free pgs, a soft body) fails with its
  # reason; the other one is still compared: exit 1 and both rows in the table
  compare_expect 1 "pgs: .*step 1 .*failed: solver 'pgs' works on rigid rows" scenes/ch05_box_on_soft_slab.json \
    --solvers pgs,pgs-blocked --steps 3 --out "$out" || bad=1
  grep -q "^pgs-blocked,ok,3," "$out/summary.csv" && grep -q "^pgs,failed@1,0," "$out/summary.csv" ||
    { echo "summary.csv after a failing solver:"; cat "$out/summary.csv"; bad=1; }
  "$COMPARE_CFLAB" compare --help | grep -q '^usage: cflab compare' || { echo "cflab compare --help"; bad=1; }
  [ "$bad" -eq 0 ] && echo "ok: unknown, unsuitable, empty and repeated solvers, --steps 0, a missing scene, a solver that cannot step the scene"
  return "$bad"
}

# per-island on the four islands of scenes/ch11_islands.json: under its row, the last step's solver of
# each island and the law it solves there (table and summary.csv's islands column)
compare_check_islands() {
  local dir="$LOG/compare-islands" out bad=0 row
  rm -rf "$dir"
  out=$("$COMPARE_CFLAB" compare scenes/ch11_islands.json --solvers per-island,pgs-texture --steps 20 --out "$dir" 2>&1) ||
    { echo "cflab compare exited with status $?: $out"; return 1; }
  echo "$out"
  for row in "pgs +1 island, 40 contacts +cone" "lemke +1 island, 4 contacts +polyhedral cone" \
    "pgs-blocked-aniso +1 island, 4 contacts +elliptic cone" "pgs-texture +1 island, 4 contacts +texture \(directional boxes\)"; do
    grep -Eq "^  $row\$" <<<"$out" || { echo "no island row '$row'"; bad=1; }
  done
  grep -q '^per-island,ok,20,.*,"pgs:1:40:cone;lemke:1:4:polyhedral cone;pgs-blocked-aniso:1:4:elliptic cone;pgs-texture:1:4:texture (directional boxes)"$' \
    "$dir/summary.csv" || { echo "summary.csv: no islands column for per-island"; cat "$dir/summary.csv"; bad=1; }
  [ "$bad" -eq 0 ] && echo "ok: per-island lists the four islands' solvers and laws"
  return "$bad"
}

gate_bg "cflab compare: per-island names each island's solver and law" compare_check_islands
gate_bg "cflab compare: table and CSV agree with cflab run of each solver; the plots exist" compare_check_values
gate_bg "cflab compare: bad input exits 2 (a failing solver 1) naming the culprit" compare_check_bad_input
