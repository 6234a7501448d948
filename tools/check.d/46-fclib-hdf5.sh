# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gates for `cflab solve FILE.hdf5` (sourced by tools/check, which defines gate, LOG and MAKE).
# With Debian's libhdf5-dev (tools/install-deps --optional): cflab built with HDF5=1 (one object
# and a link, the rest is shared) solves a problem written by 46-fclib-hdf5.c with W in CSR, CSC
# and triplet storage exactly as its Siconos text form; every defect exits 2 with one line naming
# the file and the dataset; FCLIB's local problems in ../shared/data/fclib give what their
# converted .dat give with newton-ac (status, residuals, iterations, r: bit for bit), when that folder is there.
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
    [ -f "$f" ] && { fclib_refused "$f" "/fclib_global: a global problem" || bad=1; }
  done
  return "$bad"
}

if pkg-config --exists hdf5 2>/dev/null; then
  # shellcheck disable=SC2086 # $MAKE is a command line
  if gate "build: cflab with HDF5=1" $MAKE HDF5=1 IMPL=solutions "$FCLIB_CFLAB"; then
    gate "cflab solve FILE.hdf5: FCLIB local problems as their text forms; errors name the dataset" fclib_check
  fi
else
  echo "== FCLIB HDF5 gates skipped (no libhdf5-dev: tools/install-deps --optional installs it)"
  if [ -f "$FCLIB_DATA/local_problem_test.hdf5" ]; then
    FCLIB_CFLAB=build/rel/bin/solutions/cflab
    gate "cflab solve FILE.hdf5 without HDF5: exit 2, how to read it" \
      fclib_refused "$FCLIB_DATA/local_problem_test.hdf5" "an HDF5 file (FCLIB): this cflab was built without HDF5"
  fi
fi
