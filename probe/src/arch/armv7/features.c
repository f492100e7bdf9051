/* armv7: the peak kernels need NEON; HWCAP says whether this CPU has it. */
#include <string.h>
#include <sys/auxv.h>

#include "timed_loops.h"

#ifndef HWCAP_ARM_NEON
#define HWCAP_ARM_NEON (1 << 12)
#endif
#ifndef HWCAP_ARM_VFPv4
#define HWCAP_ARM_VFPv4 (1 << 16)
#endif

const char *peak_isa(void) { return "neon"; }
const char *const peak_isa_choices[] = {"auto", "neon", NULL};
int peak_select(const char *name) { return strcmp(name, "auto") == 0 || strcmp(name, "neon") == 0 ? 0 : -1; }
double peak_instructions_per_byte(int kernel, uint64_t size, unsigned counted)
{
    (void)kernel; (void)size; (void)counted;
    return 0;   /* not derived for these loops yet */
}
int timed_loops_fallback(void) { return 0; }

int cpu_features(const char **out, int max)
{
    unsigned long hw = getauxval(AT_HWCAP);
    int n = 0;
    if ((hw & HWCAP_ARM_NEON) && n < max)
        out[n++] = "neon";
    if ((hw & HWCAP_ARM_VFPv4) && n < max)
        out[n++] = "vfpv4";
    return n;
}
