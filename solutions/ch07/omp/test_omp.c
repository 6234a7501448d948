/* SPDX-License-Identifier: MIT */
/* placeholder, replaced below */
#include "cft.h"
static void build(Suite *s) { (void)s; }
int main(int argc, char **argv) { return cft_main(argc, argv, "omp", build); }
