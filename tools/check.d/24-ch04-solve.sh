# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gate for `cflab solve` (chapter 4; sourced by tools/check, which defines gate and LOG): every
# Siconos LCP file gets the outcome its class implies with --solver lemke: solved to 1e-10 in
# Siconos' measure, except the bimatrix game CPS_3 (secondary ray, expected) and the perturbed
# Pang problem (no solution: infeasible); --json is one valid object; bad files exit 2.
# Skipped when cflab, its `solve` entry or the data are not there.
# shellcheck shell=bash

CH04_CFLAB=build/rel/bin/solutions/cflab
CH04_DATA=${CF_DATA_DIR:-../shared/data}/siconos-lcp

ch04_check_solve() {
  local f name out rc res bad=0 count=0
  for f in "$CH04_DATA"/*.dat; do
    name=$(basename "$f" .dat)
    out=$("$CH04_CFLAB" solve "$f" --solver lemke --json 2>&1)
    rc=$?
    count=$((count + 1))
    case "$name" in
    lcp_CPS_3 | lcp_Pang_isolated_sol_perturbed)
      if [ "$rc" -ne 1 ] || ! grep -q '"status": "infeasible"' <<<"$out"; then
        echo "$name: expected exit 1 and status infeasible, got $rc: $out"
        bad=1
      fi
      ;;
    *)
      res=$(sed -n 's/.*"residual_siconos": \([^,]*\),.*/\1/p' <<<"$out")
      if [ "$rc" -ne 0 ] || ! awk -v r="$res" 'BEGIN { exit !(r != "" && r <= 1e-10) }'; then
        echo "$name: expected solved to 1e-10, got exit $rc: $out"
        bad=1
      fi
      ;;
    esac
    if ! python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" 2>/dev/null; then
      echo "$name: --json output is not one JSON object: $out"
      bad=1
    fi
  done
  printf '2\n7\n' >"$LOG/ch04_bad.dat"  # n = 2: an LCP (a file starting with 3 may be FC3D)
  "$CH04_CFLAB" solve "$LOG/ch04_bad.dat" >/dev/null 2>"$LOG/ch04_bad.err"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "ch04_bad.dat:2: token 2: matrix storage type" "$LOG/ch04_bad.err"; then
    echo "a malformed file: expected exit 2 and 'ch04_bad.dat:2: token 2: matrix storage type', got $rc: $(cat "$LOG/ch04_bad.err")"
    bad=1
  fi
  # --print-x gives z at round-trip precision, the same doubles in text and JSON
  f=$CH04_DATA/lcp_ortiz.dat
  if [ -f "$f" ] && ! python3 - "$("$CH04_CFLAB" solve "$f" --print-x)" "$("$CH04_CFLAB" solve "$f" --print-x --json)" <<'PY'
import json, sys
text = [ln.split()[1:] for ln in sys.argv[1].splitlines() if ln.split()[:1] == ["z"]][0]
js = json.loads(sys.argv[2])["x"]
ok = len(text) == len(js) > 0 and all(float(t) == v for t, v in zip(text, js)) and \
     all("%.17g" % float(t) == t for t in text) and '"x": [' + ", ".join(text) + "]" in sys.argv[2]
sys.exit(0 if ok else 1)
PY
  then
    echo "--print-x: z not printed at round-trip precision (%.17g) in text and JSON alike"
    bad=1
  fi
  [ "$bad" -eq 0 ] && echo "ok: $count Siconos files, each with the expected outcome; --print-x at round-trip precision"
  return "$bad"
}

if [ -f tools/cflab/cflab.c ] && [ -d "$CH04_DATA" ]; then
  $MAKE IMPL=solutions PRIOR=solutions "$CH04_CFLAB" >/dev/null
  if "$CH04_CFLAB" solve --help >/dev/null 2>&1; then
    gate_bg "cflab solve: every Siconos LCP file gets its expected outcome" ch04_check_solve
  else
    echo "== cflab solve gate skipped ('solve' is not in cflab's command table yet)"
  fi
else
  echo "== cflab solve gate skipped (no tools/cflab/cflab.c or no $CH04_DATA)"
fi
