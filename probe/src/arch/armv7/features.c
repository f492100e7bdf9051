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
/* peak.S's table of its loops (timed_loops.h struct peak_shape). */
extern const struct peak_shape pp_peak_neon_shape[3];
const struct peak_shape *peak_shape(int kernel, unsigned *vector_bytes)
{
    *vector_bytes = 0;
    return kernel >= 0 && kernel <= 2 ? pp_peak_neon_shape + kernel : NULL;
}
/* ARMv7 PMUs map it per core: the probe counts the common event L1D_CACHE instead. */
int generic_l1d_counts_loads(void) { return 0; }
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
