/* The raw reads of the counter (counter_read.h): every architecture #if of the probe's timing,
 * and the frequency the hardware states, else calibrated. Nothing here calls counter.c. */
#include "counter_read.h"

#include <math.h>
#include <stdlib.h>

#include "platperf_instr.h"   /* the counter reads, shared with user programs */

/* The test switch (docs/probe.md, "The counter's step"): PLATPERF_COUNTER_QUANTUM=N makes every
 * read a multiple of N ticks, a counter coarse on purpose, so that a test sees on any machine
 * (and under qemu-user) what a coarse counter does to the figures. */
static uint64_t quantum;
static inline uint64_t quantise(uint64_t v) { return quantum ? v - v % quantum : v; }

#if defined(__x86_64__)
#include <cpuid.h>

/* lfence before rdtsc waits for earlier instructions to finish; the one after keeps the
 * timed code from starting before the read (Intel's "How to benchmark code execution
 * times", also valid on AMD where Linux makes lfence dispatch-serialising). */
uint64_t counter_start(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return quantise(((uint64_t)hi << 32) | lo);
}

/* Set by arch_init from CPUID: QEMU's qemu64, Nehalem and Westmere models (LAVA's qemu
 * device type default) have no RDTSCP, and executing it there is SIGILL. Until then, and
 * without it, the stop read is lfence;rdtsc. */
static int have_rdtscp;

/* rdtscp waits for the timed code's instructions to execute; lfence keeps later ones out.
 * Without it, lfence;rdtsc waits the same way (lfence completes every earlier instruction). */
uint64_t counter_stop(void)
{
    uint32_t lo, hi, aux;
    if (have_rdtscp)
        __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
    else
        __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return quantise(((uint64_t)hi << 32) | lo);
}

uint64_t counter_read(void) { return quantise(pp_instr_counter_read()); }

static double tsc_freq_from_cpuid(const char **source)
{
    unsigned a, b, c, d;
    unsigned max = __get_cpuid_max(0, NULL);
    if (max >= 0x15) {
        __cpuid(0x15, a, b, c, d);
        if (a && b && c) {          /* crystal Hz * numerator / denominator */
            *source = "cpuid-0x15";
            return (double)c * b / a;
        }
    }
    if (max >= 0x16) {
        __cpuid(0x16, a, b, c, d);
        if (a & 0xffff) {           /* processor base frequency, MHz */
            *source = "cpuid-0x16";
            return (a & 0xffff) * 1e6;
        }
    }
    return 0;
}

static void arch_init(struct counter_info *ci)
{
    unsigned a, b, c, d;
    /* CPUID 0x80000001 EDX bit 27: RDTSCP */
    have_rdtscp = __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
    ci->name = PP_INSTR_COUNTER;
    ci->stop_read = have_rdtscp ? "rdtscp;lfence" : "lfence;rdtsc;lfence";
    ci->freq_hz = tsc_freq_from_cpuid(&ci->freq_source);
}

#elif defined(__aarch64__)

uint64_t counter_start(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
    return quantise(v);
}

uint64_t counter_stop(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return quantise(v);
}

uint64_t counter_read(void) { return quantise(pp_instr_counter_read()); }

static void arch_init(struct counter_info *ci)
{
    ci->name = PP_INSTR_COUNTER;
    ci->freq_hz = (double)pp_instr_counter_freq();
    ci->freq_source = "cntfrq";
}

#elif defined(__arm__)

/* The generic timer is readable from user space only if the kernel set CNTKCTL.PL0VCTEN
 * (probed once by pp_instr_arm_cntvct()); otherwise CLOCK_MONOTONIC_RAW. */
static int use_cntvct;

static inline uint64_t cntvct(void) { return pp_instr_counter_read(); }

uint64_t counter_start(void) { return quantise(use_cntvct ? cntvct() : pp_instr_monotonic_ns()); }
uint64_t counter_stop(void) { return quantise(use_cntvct ? cntvct() : pp_instr_monotonic_ns()); }
uint64_t counter_read(void) { return quantise(use_cntvct ? cntvct() : pp_instr_monotonic_ns()); }

static void arch_init(struct counter_info *ci)
{
    uint32_t freq = pp_instr_arm_cntvct();
    use_cntvct = freq != 0;
    if (use_cntvct) {
        ci->name = PP_INSTR_COUNTER;
        ci->freq_hz = freq;
        ci->freq_source = "cntfrq";
    } else {
        ci->name = PP_INSTR_MONOTONIC;
        ci->freq_hz = 1e9;
        ci->freq_source = "nominal";
    }
}

#else

uint64_t counter_start(void) { return quantise(pp_instr_monotonic_ns()); }
uint64_t counter_stop(void) { return quantise(pp_instr_monotonic_ns()); }
uint64_t counter_read(void) { return quantise(pp_instr_monotonic_ns()); }

static void arch_init(struct counter_info *ci)
{
    ci->name = PP_INSTR_MONOTONIC;
    ci->freq_hz = 1e9;
    ci->freq_source = "nominal";
}

#endif

/* Counter ticks against CLOCK_MONOTONIC_RAW over ~20 ms, median of three. */
static double calibrate(void)
{
    double f[3];
    for (int i = 0; i < 3; i++) {
        uint64_t n0 = pp_instr_monotonic_ns(), t0 = counter_start();
        while (pp_instr_monotonic_ns() - n0 < 20000000u)
            ;
        uint64_t t1 = counter_stop(), n1 = pp_instr_monotonic_ns();
        f[i] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    }
    double lo = fmin(f[0], fmin(f[1], f[2])), hi = fmax(f[0], fmax(f[1], f[2]));
    return f[0] + f[1] + f[2] - lo - hi;
}

void counter_read_init(struct counter_info *ci)
{
    const char *q = getenv("PLATPERF_COUNTER_QUANTUM");
    if (q && *q)
        quantum = strtoull(q, NULL, 10);
    ci->quantum_ticks = quantum;
    arch_init(ci);
    if (ci->freq_hz <= 0) {
        ci->freq_hz = calibrate();
        ci->freq_source = "calibrated";
    }
}
