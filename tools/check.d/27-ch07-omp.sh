# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Gate for chapter 7's OpenMP PROX-Jacobi (reference only; sourced by tools/check, which defines
# gate, run_suite and MAKE): its tests, built and run as the fast path's are, and under
# AddressSanitizer + UBSan. Skipped in a tree without solutions/ch07/omp (a handout).

if [ -d solutions/ch07/omp ]; then
  gate "build: the OpenMP Jacobi's tests (reference only)" $MAKE IMPL=solutions build/rel/bin/solutions/test_omp
  run_suite "omp-solutions" build/rel/bin/solutions/test_omp pass
  if gate "build: the OpenMP Jacobi's tests, AddressSanitizer + UBSan" $MAKE SAN=1 IMPL=solutions \
       build/asan/bin/solutions/test_omp; then
    CK_TIMEOUT_MULTIPLIER=4 ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      run_suite "asan-omp" build/asan/bin/solutions/test_omp pass
  fi
else
  echo "== OpenMP Jacobi gate skipped (no solutions/ch07/omp)"
fi
