# shellcheck shell=bash
# shellcheck disable=SC2086 # $MAKE is split into words on purpose
# SPDX-License-Identifier: MIT
# Gate for chapter 7's benchmark (sourced by tools/check, which defines gate and MAKE). Not its
# figures (benchmarks are measured, never asserted) but its plumbing: every solve of the FC3D table
# runs in a child process (bench/child.c) and its answer comes back to be re-checked (two small
# problems of the data folder, linked into a temporary folder, are solved by a cflab row: "2 of 2");
# a data folder without problems is skipped with a message; an unknown scene is refused with exit
# status 2. Skipped in a tree without solutions/ (a handout) or without the data.

BENCH7_BIN=build/rel/bin/solutions/bench_ch07
BENCH7_DATA=${CF_DATA_DIR:-../shared/data}/siconos-fc3d

bench7_check() {
  local tmp out rc bad=0 f
  tmp=$(mktemp -d) || return 1
  mkdir -p "$tmp/data/siconos-fc3d" "$tmp/empty" "$tmp/out"
  for f in FC3D_Example1.dat Rover1039.dat; do
    ln -s "$(cd "$BENCH7_DATA" && pwd)/$f" "$tmp/data/siconos-fc3d/$f"
  done
  out=$(CF_DATA_DIR=$tmp/data "$BENCH7_BIN" --fc3d-only --quick --out "$tmp/out" 2>&1)
  if ! grep -q "solved to 1e-6 in err/|q| by some cflab solver: 2 of 2" <<<"$out" ||
    grep -qE ',(timeout|crashed|failed),' "$tmp/out/ch07_fc3d.csv"; then
    echo "bench_ch07 on two small problems: expected both solved, every child back: $out"
    bad=1
  fi
  out=$(CF_DATA_DIR=$tmp/empty "$BENCH7_BIN" --fc3d-only --quick --out "$tmp/out" 2>&1)
  grep -q "none found under $tmp/empty" <<<"$out" || { echo "bench_ch07 without data: expected a skip message: $out"; bad=1; }
  out=$("$BENCH7_BIN" --scene nowhere 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "unknown scene 'nowhere'" <<<"$out"; then
    echo "bench_ch07 --scene nowhere: expected exit 2 and the name, got $rc: $out"
    bad=1
  fi
  rm -rf "$tmp"
  [ "$bad" -eq 0 ] && echo "ok: the FC3D table's children came back; no data is skipped; a bad scene is refused"
  return "$bad"
}

if [ -d solutions/ch07 ] && [ -d "$BENCH7_DATA" ]; then
  if gate "build: chapter 7's benchmark" $MAKE IMPL=solutions "$BENCH7_BIN"; then
    gate_bg "bench-ch7: the FC3D table's child processes and its skips" bench7_check
  fi
else
  echo "== bench-ch7 gate skipped (no solutions/ch07 or no $BENCH7_DATA)"
fi
