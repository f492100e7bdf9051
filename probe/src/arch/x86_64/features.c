/* x86_64: which vector width the peak kernels use, chosen once by CPUID (gcc's
 * __builtin_cpu_supports also checks that the OS saves the registers, XCR0): the widest,
 * except on Zen 4 (below). --isa overrides. */
#include <cpuid.h>
#include <stddef.h>
#include <string.h>

#include "peak_dispatch.h"


const char *const peak_isa_choices[] = {"auto", "avx512", "avx2", "sse2", NULL};

static int supported(const char *name)
{
    __builtin_cpu_init();
    if (strcmp(name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f");
    if (strcmp(name, "avx2") == 0)
        return __builtin_cpu_supports("avx2");
    return strcmp(name, "sse2") == 0;
}

/* AMD family 0x19 with AVX-512 is Zen 4, which executes a 512-bit load or store as two
 * 256-bit halves: on the development machine (EPYC, KVM) 256-bit loads streamed 5-25%
 * faster from L2, L3 and DRAM and never slower from L1, so auto picks AVX2 there. */
static int double_pumped_avx512(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541)   /* "Auth"enticAMD */
        return 0;
    __get_cpuid(1, &a, &b, &c, &d);
    unsigned family = ((a >> 8) & 0xf) + (((a >> 8) & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
    return family == 0x19;
}

int peak_select(const char *name)
{
    if (strcmp(name, "auto") == 0)
        name = supported("avx512") && !double_pumped_avx512() ? "avx512"
               : supported("avx2") ? "avx2" : "sse2";
    if (!supported(name))
        return -1;
    if (strcmp(name, "avx512") == 0) {
        isa = "avx512";
        read_fn = pp_peak_read_avx512;
        write_fn = pp_peak_write_avx512;
        copy_fn = pp_peak_copy_avx512;
    } else if (strcmp(name, "avx2") == 0) {
        isa = "avx2";
        read_fn = pp_peak_read_avx2;
        write_fn = pp_peak_write_avx2;
        copy_fn = pp_peak_copy_avx2;
    } else {
        isa = "sse2";
        read_fn = pp_peak_read_sse2;
        write_fn = pp_peak_write_sse2;
        copy_fn = pp_peak_copy_sse2;
    }
    return 0;
}

/* peak.S's tables of its loops (timed_loops.h struct peak_shape): accesses, no instructions
 * (an x86 instruction has no one length: not derivable from addresses). */
extern const struct peak_shape pp_peak_avx512_shape[3], pp_peak_avx2_shape[3], pp_peak_sse2_shape[3];

const struct peak_shape *peak_shape(int kernel, unsigned *vector_bytes)
{
    choose();
    *vector_bytes = 0;
    if (kernel < 0 || kernel > 2)
        return NULL;
    return (strcmp(isa, "avx512") == 0 ? pp_peak_avx512_shape
            : strcmp(isa, "avx2") == 0 ? pp_peak_avx2_shape : pp_peak_sse2_shape) + kernel;
}

/* perf's L1-dcache-loads is MEM_INST_RETIRED.ALL_LOADS on Intel's cores (MEM_UOPS_RETIRED or
 * MEM_INST_RETIRED loads on older ones: a vector load is one), the load instructions retired.
 * On AMD from family 17h it is PMCx040, data cache accesses, loads and stores, an event
 * Zen 4's lists no longer have (Linux amd_hw_cache_event_ids_f17h): no claim there. */
int generic_l1d_counts_loads(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;   /* GenuineIntel */
}

int timed_loops_fallback(void) { return 0; }

int cpu_features(const char **out, int max)
{
    static const char *const names[] = {"sse2", "sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"};
    int n = 0;
    __builtin_cpu_init();
    for (size_t i = 0; i < sizeof names / sizeof names[0] && n < max; i++) {
        int has = 0;
        switch (i) {   /* __builtin_cpu_supports takes only string literals */
        case 0: has = __builtin_cpu_supports("sse2"); break;
        case 1: has = __builtin_cpu_supports("sse4.2"); break;
        case 2: has = __builtin_cpu_supports("avx"); break;
        case 3: has = __builtin_cpu_supports("avx2"); break;
        case 4: has = __builtin_cpu_supports("fma"); break;
        case 5: has = __builtin_cpu_supports("avx512f"); break;
        case 6: has = __builtin_cpu_supports("avx512bw"); break;
        case 7: has = __builtin_cpu_supports("avx512vl"); break;
        }
        if (has)
            out[n++] = names[i];
    }
    return n;
}
