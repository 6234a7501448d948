/* SPDX-License-Identifier: MIT */
/* FCLIB's HDF5 files for `cflab solve` (tools/cflab/fclib.c with HDF5=1, fclib_none.c without). */
#ifndef CFLAB_FCLIB_H
#define CFLAB_FCLIB_H

#include "cf/cf_problem.h"

/**
 * Read the FCLIB local problem (group /fclib_local: spacedim 3, W in CSR, CSC or triplet storage,
 * vectors q and mu) of @p path into @p p: u = W r + q, (N, T1, T2) per contact, as
 * cf_fc_read_siconos() gives it. Blocks of W are those holding a stored entry, and every diagonal
 * block. On any error nothing is kept (@p p zeroed) and @p err holds one line naming the file and
 * the dataset, e.g. "f.hdf5: /fclib_local/W/p: 12 values, CSR storage needs m + 1 = 10":
 * CF_IO_ERROR when the file cannot be opened, CF_BAD_INPUT for anything else (not HDF5, a global
 * or mixed problem, a missing dataset, a value out of range, this cflab built without HDF5).
 */
cfStatus cflab_fc_read_fclib(const char *path, cfFrictionProblem *p, cfError *err);

#endif /* CFLAB_FCLIB_H */
