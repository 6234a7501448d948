/* SPDX-License-Identifier: MIT */
/* FCLIB's HDF5 files for `cflab solve` (tools/cflab/fclib.c with HDF5=1, fclib_none.c without). */
#ifndef CFLAB_FCLIB_H
#define CFLAB_FCLIB_H

#include "cf/cf_problem.h"

/**
 * Read the FCLIB local problem (group /fclib_local: spacedim 3, W in CSR, CSC or triplet storage,
 * vectors q and mu), or the global one condensed (/fclib_global without G: M diagonal and > 0,
 * W = H' M^-1 H, q = H' M^-1 f + w), of @p path into @p p: u = W r + q, (N, T1, T2) per contact, as
 * cf_fc_read_siconos() gives it. Blocks of W are those holding a stored entry, and every diagonal
 * block. On any error nothing is kept (@p p zeroed) and @p err holds one line naming the file and
 * the dataset, e.g. "f.hdf5: /fclib_local/W/p: 12 values, CSR storage needs m + 1 = 10":
 * CF_IO_ERROR when the file cannot be opened, CF_BAD_INPUT for anything else (not HDF5, a mixed
 * problem or a global one with G or a non-diagonal M, a missing dataset, a value out of range, this cflab built without HDF5).
 */
cfStatus cflab_fc_read_fclib(const char *path, cfFrictionProblem *p, cfError *err);

/**
 * Write @p p as an FCLIB local problem to @p path (replaced): /fclib_local/spacedim 3, W in CSR
 * storage (every entry of its stored 3x3 blocks, zeros included), vectors q and mu, and
 * info/title; cflab_fc_read_fclib() reads back the same problem bit for bit. CF_IO_ERROR with the
 * file in @p err when it cannot be written; CF_BAD_INPUT for a problem without contacts or this
 * cflab built without HDF5.
 */
cfStatus cflab_fc_write_fclib(const char *path, const cfFrictionProblem *p, cfError *err);

#endif /* CFLAB_FCLIB_H */
