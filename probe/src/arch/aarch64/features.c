/* aarch64: Advanced SIMD (NEON) is architectural; record what else HWCAP reports. */
#include <string.h>
#include <sys/auxv.h>

#include "timed_loops.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif

const char *peak_isa(void) { return "neon"; }
const char *const peak_isa_choices[] = {"auto", "neon", NULL};
int peak_select(const char *name) { return strcmp(name, "auto") == 0 || strcmp(name, "neon") == 0 ? 0 : -1; }
int timed_loops_fallback(void) { return 0; }

int cpu_features(const char **out, int max)
{
    unsigned long hw = getauxval(AT_HWCAP);
    int n = 0;
    if ((hw & HWCAP_ASIMD) && n < max)
        out[n++] = "asimd";
    if ((hw & HWCAP_SVE) && n < max)
        out[n++] = "sve";
    return n;
}
