/* SPDX-License-Identifier: MIT */
/* The machine line every benchmark prints above its figures: the kernel, the architecture and the
 * processor's model name (from /proc/cpuinfo where there is one), so that a figure is never read
 * without the machine it was measured on. Header-only: each benchmark is one program. */
#ifndef CF_BENCH_MACHINE_H
#define CF_BENCH_MACHINE_H

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/** Write "<sysname> <release> <machine>; cpu: <model name>" into @p buf (cap bytes, always
 * terminated; "unknown" for what cannot be read). Returns @p buf. */
static inline char *bench_machine(char *buf, size_t cap)
{
    char cpu[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) snprintf(cpu, sizeof cpu, "%s", c + 1 + (c[1] == ' '));
                cpu[strcspn(cpu, "\n")] = '\0';
                break;
            }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(buf, cap, "%s %s %s; cpu: %s", u.sysname, u.release, u.machine, cpu);
    else
        snprintf(buf, cap, "unknown; cpu: %s", cpu);
    return buf;
}

#endif /* CF_BENCH_MACHINE_H */
