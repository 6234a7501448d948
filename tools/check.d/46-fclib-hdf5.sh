# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates for `cflab solve FILE.hdf5` (sourced by tools/check, which defines gate, LOG and MAKE).
# With Debian's libhdf5-dev (tools/install-deps --optional): cflab built with HDF5=1 (one object
# and a link, the rest is shared) solves a problem written by 46-fclib-hdf5.c with W in CSR, CSC
# and triplet storage exactly as its Siconos text form; every defect exits 2 with one line naming
# the file and the dataset; FCLIB's local problems in ../shared/data/fclib give what their
# converted .dat give with newton-ac (status, residuals, iterations, r: bit for bit), when that folder is there.
# A global problem (M diagonal) is condensed as its text form (a made-up one exactly, bit for bit;
# FCLIB's three global problems to rounding: W and q through --write-siconos, max |difference|
# over max |entry| <= 1e-13); --write-fclib writes a problem that reads back bit for bit.
# Without libhdf5 the default cflab refuses an HDF5 file with exit 2 and says how to read it.
# About 3 s.

FCLIB_DATA=../shared/data/fclib
FCLIB_CFLAB=build/rel/bin/solutions-hdf5/cflab

# `cflab solve --json --print-x` without what differs between two files of one problem
fclib_solve() {
  "$FCLIB_CFLAB" solve "$1" --solver "$2" --json --print-x | sed -E 's/"file": "[^"]*", //; s/, "seconds": [0-9.e+-]+//'
}

# exit status 2 and one line on stderr naming the file and the dataset
fclib_refused() {
  local file=$1 dataset=$2 err rc
  err=$("$FCLIB_CFLAB" solve "$file" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || [[ $err != "cflab solve: $file: $dataset"* ]]; then
    echo "expected exit 2 and one line 'cflab solve: $file: $dataset...', got exit $rc and: $err"
    return 1
  fi
  echo "ok: exit 2, $err"
}

fclib_check() {
  local dir out ref k a b f dat n=0 bad=0
  dir=$LOG/fclib
  mkdir -p "$dir"
  # shellcheck disable=SC2046 # pkg-config's flags are words
  ${CC:-cc} -std=c17 -Wall -Wextra -Werror tools/check.d/46-fclib-hdf5.c -o "$dir/write" $(pkg-config --cflags --libs hdf5) ||
    return 1
  "$dir/write" "$dir/p.dat" dat || return 1
  ref=$(fclib_solve "$dir/p.dat" newton-ac)
  grep -q '"status": "converged"' <<<"$ref" || { echo "newton-ac on $dir/p.dat: $ref"; return 1; }
  for k in csr csc triplet; do
    "$dir/write" "$dir/p_$k.hdf5" "$k" || return 1
    out=$(fclib_solve "$dir/p_$k.hdf5" newton-ac)
    [ "$out" = "$ref" ] || { echo "W in $k storage: $out"; echo "the text form: $ref"; bad=1; }
  done
  [ "$bad" -eq 0 ] && echo "ok: W in CSR, CSC and triplet storage solves as its Siconos text form, bit for bit"
  for k in no-mu:/fclib_local/vectors/mu bad-index:/fclib_local/W/i m-float:/fclib_local/W/m \
           spacedim-2:/fclib_local/spacedim mixed:/fclib_local/V; do
    "$dir/write" "$dir/${k%%:*}.hdf5" "${k%%:*}" || return 1
    fclib_refused "$dir/${k%%:*}.hdf5" "${k#*:}" || bad=1
  done
  # a global problem, condensed exactly (its numbers are exact in floating point)
  "$dir/write" "$dir/g.dat" global-dat && "$dir/write" "$dir/g.hdf5" global || return 1
  a=$(fclib_solve "$dir/g.hdf5" newton-ac) b=$(fclib_solve "$dir/g.dat" newton-ac)
  if [ "$a" = "$b" ] && grep -q '"status": "converged"' <<<"$a"; then
    echo "ok: a global problem (diagonal M, H in triplets) solves as its condensed text form, bit for bit"
  else
    echo "the global problem: $a"; echo "its condensed text form: $b"; bad=1
  fi
  for k in global-G:/fclib_global/G global-offdiag:/fclib_global/M; do
    "$dir/write" "$dir/${k%%:*}.hdf5" "${k%%:*}" || return 1
    fclib_refused "$dir/${k%%:*}.hdf5" "${k#*:}" || bad=1
  done
  # --write-fclib: what cflab writes reads back as the same problem
  a=$("$FCLIB_CFLAB" solve "$dir/p.dat" --write-fclib "$dir/w.hdf5" --solver newton-ac --json --print-x | sed -E 's/"file": "[^"]*", //; s/, "seconds": [0-9.e+-]+//')
  b=$(fclib_solve "$dir/w.hdf5" newton-ac)
  [ -n "$a" ] && [ "$a" = "$b" ] && echo "ok: --write-fclib of the text form reads back bit for bit" ||
    { echo "--write-fclib: $a"; echo "read back: $b"; bad=1; }
  head -c 3000 "$dir/p_csr.hdf5" >"$dir/cut.hdf5"
  fclib_refused "$dir/cut.hdf5" "the HDF5 file cannot be opened" || bad=1

  if [ ! -d "$FCLIB_DATA" ]; then
    echo "skipped: FCLIB's files (no $FCLIB_DATA)"
    return "$bad"
  fi
  for f in "$FCLIB_DATA"/*.hdf5; do
    dat=$FCLIB_DATA/converted/$(basename "$f").dat
    [ -f "$dat" ] || continue
    a=$(fclib_solve "$f" newton-ac) b=$(fclib_solve "$dat" newton-ac)
    if [ -z "$a" ] || [ "$a" != "$b" ]; then
      echo "$f and $dat differ:"; echo "$a"; echo "$b"; bad=1
    fi
    n=$((n + 1))
    echo "ok: $(basename "$f"): newton-ac $(sed -E 's/.*"status": "([^"]*)".*"residual_abs": ([^,]*),.*"iterations": ([0-9]*).*/\1, residual \2 after \3 iterations/' <<<"$a"), as its .dat"
  done
  [ "$n" -ge 3 ] || { echo "only $n FCLIB local problems with a converted .dat in $FCLIB_DATA"; bad=1; }
  for f in "$FCLIB_DATA"/global/*.hdf5; do
    dat=$FCLIB_DATA/converted/$(basename "$f" .hdf5).condensed.dat
    [ -f "$dat" ] || continue
    # one sweep only: the files are what is compared (exit 1, "not solved", is expected)
    rm -f "$dir/g_h5.dat" "$dir/g_dat.dat"
    "$FCLIB_CFLAB" solve "$f" --solver pgs-blocked --max-iter 1 --write-siconos "$dir/g_h5.dat" >/dev/null
    "$FCLIB_CFLAB" solve "$dat" --solver pgs-blocked --max-iter 1 --write-siconos "$dir/g_dat.dat" >/dev/null
    [ -s "$dir/g_h5.dat" ] && [ -s "$dir/g_dat.dat" ] || { echo "$f: --write-siconos wrote nothing"; bad=1; continue; }
    python3 - "$dir/g_h5.dat" "$dir/g_dat.dat" "$(basename "$f")" <<'PY' || bad=1
import sys
a, b = (open(p).read().split() for p in sys.argv[1:3])
if len(a) != len(b):
    sys.exit(f"{sys.argv[3]}: the condensed problem has {len(a)} numbers, its converted text form {len(b)}")
scale = max(abs(float(x)) for x in b)
d = max(abs(float(x) - float(y)) for x, y in zip(a, b)) / scale
if d > 1e-13:
    sys.exit(f"{sys.argv[3]}: condensed W, q differ from the converted text form by {d:.3g} of the largest entry")
print(f"ok: {sys.argv[3]}: condensed as its converted text form ({len(a)} numbers, largest difference {d:.2g} of the largest entry)")
PY
  done
  # --write-fclib of a converted local problem reads back as the original HDF5 file does
  f=$FCLIB_DATA/local_problem_test.hdf5
  if [ -f "$f" ]; then
    "$FCLIB_CFLAB" solve "$f" --write-fclib "$dir/again.hdf5" --solver newton-ac >/dev/null
    a=$(fclib_solve "$f" newton-ac) b=$(fclib_solve "$dir/again.hdf5" newton-ac)
    [ -n "$b" ] && [ "$a" = "$b" ] && echo "ok: $(basename "$f") written again by --write-fclib solves bit for bit as the original" ||
      { echo "--write-fclib of $f: $b"; bad=1; }
  fi
  return "$bad"
}

if pkg-config --exists hdf5 2>/dev/null; then
  # shellcheck disable=SC2086 # $MAKE is a command line
  if gate "build: cflab with HDF5=1" $MAKE HDF5=1 IMPL=solutions "$FCLIB_CFLAB"; then
    gate "cflab solve FILE.hdf5: FCLIB local and global problems as their text forms; --write-fclib; errors name the dataset" fclib_check
  fi
else
  echo "== FCLIB HDF5 gates skipped (no libhdf5-dev: tools/install-deps --optional installs it)"
  if [ -f "$FCLIB_DATA/local_problem_test.hdf5" ]; then
    FCLIB_CFLAB=build/rel/bin/solutions/cflab
    gate "cflab solve FILE.hdf5 without HDF5: exit 2, how to read it" \
      fclib_refused "$FCLIB_DATA/local_problem_test.hdf5" "an HDF5 file (FCLIB): this cflab was built without HDF5"
  fi
fi
