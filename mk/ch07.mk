# SPDX-License-Identifier: MIT
# Chapter 7 extras: the OpenMP PROX-Jacobi of the reference (solutions/ch07/omp/), its tests, and
# the chapter's benchmark.
#
#   make test-omp           the parallel Jacobi equals the serial one bit for bit (OMP_NUM_THREADS 1, 2, 3)
#   make bench-ch7          paper 001 reproduced where it fits two cores (Wall, Tower, Spheres: per-step
#                           iterations, merit, convergence class, rollbacks; quartile plots as PNG), then
#                           every FC3D-capable solver of the registry on the 41 Siconos/FCLIB problems,
#                           beside Siconos numerics when Debian's libsiconos-numerics-dev is installed
#                           (BENCH7_ARGS="--quick" shortens both; "--scene wall|tower|spheres" runs one scene,
#                           "--fc3d-only" the table only; CF_DATA_DIR=... when the data are not in ../shared/data)
# Results go to build/<variant>/bench_ch7/; the committed ones are in bench/results/.

# OpenMP only where it is used: the faster path's object is compiled with -fopenmp, and binaries
# link the runtime only when that folder exists (an instructor tree; a handout has no solutions/)
OMP_SRC := $(wildcard solutions/ch07/omp/*.c)
ifneq ($(OMP_SRC),)
$(patsubst %.c,$(OBJ)/%.o,$(OMP_SRC)): EXTRA_CFLAGS += -fopenmp -Isolutions/ch07/omp
LDLIBS += -fopenmp
endif

TEST_OMP := $(BLD)/bin/solutions/test_omp
$(TEST_OMP): $(OBJ)/solutions/ch07/omp/test_omp.o $(call all_impl_objs,solutions) $(CFT_OBJ) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(CHECK_LIBS)

# the benchmark: paper 001's scenes and the 41 FC3D problems; Siconos numerics when installed
SICONOS_FC3D_H := $(wildcard /usr/include/siconos/numerics/FrictionContactProblem.h)
ifneq ($(SICONOS_FC3D_H),)
BENCH7_CFLAGS := -DCF_HAVE_SICONOS -I/usr/include/siconos -Wno-strict-prototypes
BENCH7_LIBS := -lsiconos_numerics
endif
$(OBJ)/bench/bench_ch07.o: EXTRA_CFLAGS += $(BENCH7_CFLAGS) $(SDL_CFLAGS) -Iviewer -Itools/cflab
# with HDF5=1 it reads FCLIB's HDF5 originals through cflab's reader (as bin/solutions-hdf5/bench_ch07)
BENCH7 := $(BLD)/bin/solutions$(if $(filter 1,$(HDF5)),-hdf5)/bench_ch07
$(BENCH7): $(OBJ)/bench/bench_ch07.o $(OBJ)/bench/child.o $(OBJ)/tools/cflab/$(if $(filter 1,$(HDF5)),fclib,fclib_none).o $(VIEWER_LIB_OBJ) $(DEMO_OBJ) $(call all_impl_objs,solutions) $(LIBSIM) $(BLD)/libcf.a
	@$(call require_impls,solutions,$(CHAPTER_DIRS))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(BENCH7_LIBS) $(SDL_LIBS) $(HDF5_LIBS)

BENCH7_ARGS ?=
.PHONY: test-omp bench-ch7
test-omp: $(TEST_OMP)
	@CK_FORK=$${CK_FORK:-yes} CK_VERBOSITY=$${CK_VERBOSITY:-normal} CFT_CASE=$(CASE) $<

bench-ch7: $(BENCH7)
	@mkdir -p $(BLD)/bench_ch7
	OPENBLAS_NUM_THREADS=1 $(BENCH7) --out $(BLD)/bench_ch7 $(BENCH7_ARGS) | tee $(BLD)/bench_ch7/bench_ch7.txt

EXTRA_HELP += test-omp bench-ch7 (chapter 7: the OpenMP Jacobi's tests; paper 001 and the 41 FC3D problems)
