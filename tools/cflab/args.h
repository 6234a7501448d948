/* SPDX-License-Identifier: MIT */
/* Command-line helpers shared by the cflab subcommands (tools/cflab/args.c). */
#ifndef CFLAB_ARGS_H
#define CFLAB_ARGS_H

/**
 * "--name=value" or "--name value": the value of option @p name at argv[*i], or NULL when
 * argv[*i] is another option. Advances *i past a separate value. Sets *missing to 1 when the
 * option matches but has no value (it is the last argument).
 */
const char *cflab_option_value(int argc, char **argv, int *i, const char *name, int *missing);

/** True, with the value in *out, when all of @p s is a decimal integer in [lo, hi]. */
int cflab_parse_long(const char *s, long lo, long hi, long *out);

#endif /* CFLAB_ARGS_H */
