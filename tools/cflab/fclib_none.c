/* SPDX-License-Identifier: MIT */
/* cflab built without HDF5 (the default): an FCLIB HDF5 file is refused with how to read it. */
#include <string.h>

#include "fclib.h"

cfStatus cflab_fc_read_fclib(const char *path, cfFrictionProblem *p, cfError *err)
{
    memset(p, 0, sizeof *p);
    return cf_error_set(err, CF_BAD_INPUT,
                        "%s: an HDF5 file (FCLIB): this cflab was built without HDF5; build it with make HDF5=1 "
                        "(Debian's libhdf5-dev: tools/install-deps --optional), or solve the file's Siconos text "
                        "conversion",
                        path);
}

cfStatus cflab_fc_write_fclib(const char *path, const cfFrictionProblem *p, cfError *err)
{
    (void)p;
    return cf_error_set(err, CF_BAD_INPUT, "%s: this cflab was built without HDF5 and cannot write FCLIB files; build it "
                        "with make HDF5=1 (Debian's libhdf5-dev: tools/install-deps --optional)", path);
}
