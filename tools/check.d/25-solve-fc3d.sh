# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gate for `cflab solve` on frictional-contact files (sourced by tools/check, which defines gate
# and LOG): every Siconos/FCLIB FC3D problem of ../shared/data/siconos-fc3d with at most 60
# contacts is solved by the blocked Gauss-Seidel of chapter 5 (pgs-blocked, cone) to 1e-8 in
# Siconos' measure, except BoxesStack1 (its README: Gauss-Seidel variants are expected to fail,
# here: max-iterations after 10000 sweeps); every splitting solver of the table that takes an
# assembled problem runs on the small ones and prints the common (Coulomb) residual; --json is
# one valid object. Skipped when the data are not there.

FC3D_CFLAB=build/rel/bin/solutions/cflab
FC3D_DATA=${CF_DATA_DIR:-../shared/data}/siconos-fc3d

fc3d_check_solve() {
  local f name out rc res n bad=0 count=0 s
  for f in "$FC3D_DATA"/*.dat; do
    name=$(basename "$f" .dat)
    n=$(awk 'NR == 1 { for (i = 1; i <= NF; ++i) { t[++k] = $i } } NR == 2 { for (i = 1; i <= NF; ++i) { t[++k] = $i } } k >= 2 { print t[2]; exit }' "$f")
    [ -n "$n" ] && [ "$n" -le 60 ] || continue
    count=$((count + 1))
    out=$("$FC3D_CFLAB" solve "$f" --solver pgs-blocked --json 2>&1)
    rc=$?
    res=$(sed -n 's/.*"residual_siconos": \([^,]*\),.*/\1/p' <<<"$out")
    case "$name" in
    BoxesStack1-*)
      grep -q '"status": "max-iterations"' <<<"$out" || { echo "$name: expected max-iterations, got: $out"; bad=1; } ;;
    *)
      if [ "$rc" -ne 0 ] || ! awk -v r="$res" 'BEGIN { exit !(r != "" && r <= 1e-8) }'; then
        echo "$name: expected solved to 1e-8 (Siconos measure), got exit $rc: $out"
        bad=1
      fi ;;
    esac
    python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" 2>/dev/null || { echo "$name: not one JSON object: $out"; bad=1; }
  done
  # every assembled splitting solver runs and reports the common residual on a small problem
  for s in pgs-boxed pgs-staggered pgs-sm nncg baraff lemke; do
    out=$("$FC3D_CFLAB" solve "$FC3D_DATA/NESpheres_10_1.dat" --solver "$s" 2>&1)
    grep -q 'Coulomb natural map' <<<"$out" || { echo "$s on NESpheres_10_1: no common residual: $out"; bad=1; }
  done
  out=$("$FC3D_CFLAB" solve "$FC3D_DATA/NESpheres_10_1.dat" --solver pgs 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "does not take FC3D problems" <<<"$out"; then
    echo "pgs (matrix-free rows) on an FC3D file: expected exit 2 and a reason, got $rc: $out"
    bad=1
  fi
  [ "$bad" -eq 0 ] && echo "ok: $count FC3D files with the expected outcome; 6 assembled solvers report the common residual"
  return "$bad"
}

if [ -d "$FC3D_DATA" ]; then
  $MAKE IMPL=solutions PRIOR=solutions "$FC3D_CFLAB" >/dev/null
  gate_bg "cflab solve: FC3D files solved by the splitting solvers" fc3d_check_solve
else
  echo "== cflab solve FC3D gate skipped (no $FC3D_DATA)"
fi
