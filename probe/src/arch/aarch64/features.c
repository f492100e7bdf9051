/* aarch64: which loops the peak kernels use, chosen once at run time. Advanced SIMD (NEON)
 * is architectural; SVE is there when HWCAP says so, with a vector length the kernel sets
 * per process (PR_SVE_GET_VL). auto takes SVE when its vectors are longer than NEON's
 * 128 bits; at 128 bits an ldp/stp of two q registers moves as many bytes per instruction
 * as two SVE accesses, and NEON stays. --isa overrides. */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#include "peak_dispatch.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2 (1 << 1)
#endif
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
#define SVE_VL_LEN_MASK 0xffff
#define NEON_BYTES 16


const char *const peak_isa_choices[] = {"auto", "sve", "neon", NULL};

/* The SVE vector length in bytes, or 0 without SVE. */
int sve_vector_bytes(void)
{
    if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
        return 0;
    int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
    return vl < 0 ? 0 : vl & SVE_VL_LEN_MASK;
}

int peak_select(const char *name)
{
    int sve = sve_vector_bytes();
    if (strcmp(name, "auto") == 0)
        name = sve > NEON_BYTES ? "sve" : "neon";
    if (strcmp(name, "sve") == 0 && sve > 0) {
        isa = "sve";
        read_fn = pp_peak_read_sve;
        write_fn = pp_peak_write_sve;
        copy_fn = pp_peak_copy_sve;
    } else if (strcmp(name, "neon") == 0) {
        isa = "neon";
        read_fn = pp_peak_read_neon;
        write_fn = pp_peak_write_neon;
        copy_fn = pp_peak_copy_neon;
    } else {
        return -1;
    }
    return 0;
}

int timed_loops_fallback(void) { return 0; }

/* peak.S's and peak_sve.S's tables of their loops (timed_loops.h struct peak_shape). */
extern const struct peak_shape pp_peak_neon_shape[3], pp_peak_sve_shape[3];

const struct peak_shape *peak_shape(int kernel, unsigned *vector_bytes)
{
    choose();
    if (kernel < 0 || kernel > 2)
        return NULL;
    int sve = strcmp(isa, "sve") == 0;
    *vector_bytes = sve ? (unsigned)sve_vector_bytes() : 0;   /* the one rdvl reads: this thread's */
    return (sve ? pp_peak_sve_shape : pp_peak_neon_shape) + kernel;
}

/* The kernel's L1-dcache-loads is a per-core map (L1D_CACHE_RD on the A57 and A72, L1D_CACHE
 * elsewhere); the probe counts the common event L1D_CACHE on the core PMU instead. */
int generic_l1d_counts_loads(void) { return 0; }

/* "asimd", "sve", "sve2", and the SVE vector length as "sve-vl512" (bits). */
int cpu_features(const char **out, int max)
{
    static char vl_name[16];
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    int n = 0, sve = sve_vector_bytes();
    if ((hw & HWCAP_ASIMD) && n < max)
        out[n++] = "asimd";
    if ((hw & HWCAP_SVE) && n < max)
        out[n++] = "sve";
    if ((hw2 & HWCAP2_SVE2) && n < max)
        out[n++] = "sve2";
    if (sve > 0 && n < max) {
        snprintf(vl_name, sizeof vl_name, "sve-vl%d", sve * 8);
        out[n++] = vl_name;
    }
    return n;
}
