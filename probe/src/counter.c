/* Counter reads, frequency discovery and the core clock estimate (see counter.h). */
#include "counter.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "platperf_instr.h"   /* the counter reads, shared with user programs */
#include "timed_loops.h"

static struct counter_info info;

#if defined(__x86_64__)
#include <cpuid.h>

/* lfence before rdtsc waits for earlier instructions to finish; the one after keeps the
 * timed code from starting before the read (Intel's "How to benchmark code execution
 * times", also valid on AMD where Linux makes lfence dispatch-serialising). */
uint64_t counter_start(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
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
    return ((uint64_t)hi << 32) | lo;
}

uint64_t counter_read(void) { return pp_instr_counter_read(); }

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

static void arch_init(void)
{
    unsigned a, b, c, d;
    /* CPUID 0x80000001 EDX bit 27: RDTSCP */
    have_rdtscp = __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
    info.name = PP_INSTR_COUNTER;
    info.stop_read = have_rdtscp ? "rdtscp;lfence" : "lfence;rdtsc;lfence";
    info.freq_hz = tsc_freq_from_cpuid(&info.freq_source);
}

#elif defined(__aarch64__)

uint64_t counter_start(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
    return v;
}

uint64_t counter_stop(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

uint64_t counter_read(void) { return pp_instr_counter_read(); }

static void arch_init(void)
{
    info.name = PP_INSTR_COUNTER;
    info.freq_hz = (double)pp_instr_counter_freq();
    info.freq_source = "cntfrq";
}

#elif defined(__arm__)

/* The generic timer is readable from user space only if the kernel set CNTKCTL.PL0VCTEN
 * (probed once by pp_instr_arm_cntvct()); otherwise CLOCK_MONOTONIC_RAW. */
static int use_cntvct;

static inline uint64_t cntvct(void) { return pp_instr_counter_read(); }

uint64_t counter_start(void) { return use_cntvct ? cntvct() : pp_instr_monotonic_ns(); }
uint64_t counter_stop(void) { return use_cntvct ? cntvct() : pp_instr_monotonic_ns(); }
uint64_t counter_read(void) { return use_cntvct ? cntvct() : pp_instr_monotonic_ns(); }

static void arch_init(void)
{
    uint32_t freq = pp_instr_arm_cntvct();
    use_cntvct = freq != 0;
    if (use_cntvct) {
        info.name = PP_INSTR_COUNTER;
        info.freq_hz = freq;
        info.freq_source = "cntfrq";
    } else {
        info.name = PP_INSTR_MONOTONIC;
        info.freq_hz = 1e9;
        info.freq_source = "nominal";
    }
}

#else

uint64_t counter_start(void) { return pp_instr_monotonic_ns(); }
uint64_t counter_stop(void) { return pp_instr_monotonic_ns(); }
uint64_t counter_read(void) { return pp_instr_monotonic_ns(); }

static void arch_init(void)
{
    info.name = PP_INSTR_MONOTONIC;
    info.freq_hz = 1e9;
    info.freq_source = "nominal";
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

void counter_init(void)
{
    if (info.name)
        return;
    arch_init();
    if (info.freq_hz <= 0) {
        info.freq_hz = calibrate();
        info.freq_source = "calibrated";
    }
    info.resolution_ns = 1e9 / info.freq_hz;
    if (counter_is_monotonic()) {
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC_RAW, &res);
        info.resolution_ns = res.tv_sec * 1e9 + res.tv_nsec;
    }
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = counter_read(), b = counter_read();
        if (b - a < best)
            best = b - a;
    }
    info.read_overhead_ticks = best;
}

int counter_is_monotonic(void) { return strcmp(info.name, PP_INSTR_MONOTONIC) == 0; }

const struct counter_info *counter_info(void)
{
    counter_init();
    return &info;
}

double ticks_to_ns(uint64_t ticks)
{
    return (double)ticks * 1e9 / info.freq_hz;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static long involuntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}

/* A chain of dependent adds retires one add per core cycle on every core the probe
 * targets, so adds/ticks is core cycles per counter tick. 15 runs of ~1 ms, leaving out
 * those the scheduler preempted: the fastest is the estimate (interruptions only
 * lengthen a run); the gap from it to the median, plus one tick of quantisation, is the
 * stated error. */
#define CLOCK_RUNS 15
static void estimate(struct core_clock *cc)
{
    counter_init();
    uint64_t n = 16, t;
    for (;;) {
        uint64_t t0 = counter_start();
        pp_addchain(n);
        t = counter_stop() - t0;
        if (ticks_to_ns(t) >= 1e6 || n > (UINT64_MAX >> 2))
            break;
        n *= 2;
    }
    uint64_t runs[CLOCK_RUNS];
    int kept = 0;
    for (int i = 0; i < 4 * CLOCK_RUNS && kept < CLOCK_RUNS; i++) {
        long before = involuntary_switches();
        uint64_t t0 = counter_start();
        pp_addchain(n);
        uint64_t dt = counter_stop() - t0;
        if (before < 0 || involuntary_switches() == before || i >= 3 * CLOCK_RUNS)
            runs[kept++] = dt;
    }
    qsort(runs, (size_t)kept, sizeof runs[0], cmp_u64);
    if (kept == 0 || runs[0] == 0)
        return;
    double adds = (double)n * ADDCHAIN_UNROLL;
    cc->valid = 1;
    cc->cycles_per_tick = adds / (double)runs[0];
    cc->hz = cc->cycles_per_tick * info.freq_hz;
    cc->error_pct = 100.0 * ((double)(runs[kept / 2] - runs[0]) + 1.0) / (double)runs[0];
}

static struct core_clock cc_main;
static void estimate_main(void) { estimate(&cc_main); }

const struct core_clock *core_clock_estimate(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, estimate_main);
    return &cc_main;
}

/* Per CPU: big.LITTLE clusters run at different clocks, so a latency in cycles must use
 * the estimate of the core it was measured on. Each CPU is estimated once, by the first
 * thread pinned to it that asks (the probe never runs two measuring threads on one CPU). */
const struct core_clock *core_clock_on_cpu(int cpu)
{
    static struct core_clock per_cpu[COUNTER_MAX_CPUS];
    static unsigned char done[COUNTER_MAX_CPUS];
    if (cpu < 0 || cpu >= COUNTER_MAX_CPUS)
        return core_clock_estimate();
    if (!done[cpu]) {
        estimate(&per_cpu[cpu]);
        done[cpu] = 1;
    }
    return &per_cpu[cpu];
}
