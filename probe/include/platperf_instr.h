/* platperf_instr.h — timestamps of named points in your own code, written as the JSON
 * Lines platperf-probe writes (docs/results-format.md), for `platperf ingest instr`.
 *
 * The userspace counterpart of TF-A's PMF: mark points, let a small TOML name intervals
 * as differences of points (as TF-A derives Powerdown = ENTER_HW_LOW_PWR - ENTER_PSCI),
 * and platperf stores the intervals per (cluster, core). See docs/instr.md.
 *
 *   #include "platperf_instr.h"
 *   static struct pp_instr_log log;
 *   pp_instr_init(&log, 4096);                  // room for 4096 points, any thread
 *   pp_instr_point(&log, "ENTER_WORK");         // a string literal: its pointer is kept
 *   ...
 *   pp_instr_point(&log, "EXIT_WORK");
 *   pp_instr_write(&log, stdout, "my-program"); // meta, one `point` per point, end
 *   pp_instr_free(&log);
 *
 * A point costs one counter read, one getcpu and an atomic increment; nothing is formatted
 * or written until pp_instr_write(). The counter is the probe's (probe/src/counter.c reads
 * it through this header): x86_64 TSC (lfence; rdtsc), aarch64 CNTVCT_EL0 (isb; mrs),
 * armv7 CNTVCT when the kernel lets user space read it, else CLOCK_MONOTONIC_RAW in ns. C11 with the POSIX/GNU
 * declarations (gcc's default -std=gnu17, or -D_GNU_SOURCE), Linux, no other file.
 */
#ifndef PLATPERF_INSTR_H
#define PLATPERF_INSTR_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define PP_INSTR_VERSION 1

struct pp_instr_point_rec {
    const char *name;
    uint64_t ticks;
    int cpu;
    int thread;
};

struct pp_instr_log {
    struct pp_instr_point_rec *points;
    size_t capacity;
    size_t next;                 /* atomically incremented; > capacity: points were dropped */
    const char *counter;         /* "tsc", "cntvct_el0", "cntvct", "clock_monotonic_raw" */
    double freq_hz;
    const char *freq_source;     /* "cntfrq", "calibrated", "nominal" */
    int monotonic;               /* no user-readable counter: ticks are CLOCK_MONOTONIC_RAW ns */
    uint64_t start_ticks, start_ns;
    time_t start_time;
};

/* sched_getcpu() without asking the including program for _GNU_SOURCE. */
int sched_getcpu(void);

static inline uint64_t pp_instr_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The counter's name as the probe's meta record and a program's log give it: the
 * architecture's counter, or PP_INSTR_MONOTONIC without one (armv7 without user access). */
#if defined(__x86_64__)
#define PP_INSTR_COUNTER "tsc"
#elif defined(__aarch64__)
#define PP_INSTR_COUNTER "cntvct_el0"
#elif defined(__arm__)
#define PP_INSTR_COUNTER "cntvct"
#endif
#define PP_INSTR_MONOTONIC "clock_monotonic_raw"

/* The probe's counter reads: probe/src/counter.c reads through these too, so a program's
 * points and the probe's figures on one machine come from the same instructions. */
#if defined(__x86_64__)
/* lfence waits for earlier instructions before the TSC is read (see counter.c) */
static inline uint64_t pp_instr_counter_read(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
static inline uint64_t pp_instr_counter_read(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}
static inline uint64_t pp_instr_counter_freq(void)
{
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
}
#elif defined(__arm__)
/* CNTVCT; only once pp_instr_arm_cntvct() said user space may read it */
static inline uint64_t pp_instr_counter_read(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r"(v) : : "memory");
    return v;
}
static sigjmp_buf pp_instr_jmp;
static inline void pp_instr_on_sigill(int sig)
{
    (void)sig;
    siglongjmp(pp_instr_jmp, 1);
}
/* CNTFRQ when user space may read the generic timer, else 0. It may only if the kernel set
 * CNTKCTL.PL0VCTEN; otherwise the read traps with SIGILL: tried once under a handler. */
static inline uint32_t pp_instr_arm_cntvct(void)
{
    struct sigaction sa, old;
    volatile uint32_t freq = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pp_instr_on_sigill;
    sigaction(SIGILL, &sa, &old);
    if (sigsetjmp(pp_instr_jmp, 1) == 0) {
        uint32_t f;
        __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(f));
        (void)pp_instr_counter_read();
        freq = f;
    }
    sigaction(SIGILL, &old, NULL);
    return freq;
}
#endif

static inline uint64_t pp_instr_ticks(const struct pp_instr_log *log)
{
#if defined(__x86_64__) || defined(__aarch64__)
    (void)log;
    return pp_instr_counter_read();
#elif defined(__arm__)
    return log->monotonic ? pp_instr_monotonic_ns() : pp_instr_counter_read();
#else
    (void)log;
    return pp_instr_monotonic_ns();
#endif
}

static inline void pp_instr_counter_init(struct pp_instr_log *log)
{
#if defined(__x86_64__)
    log->counter = PP_INSTR_COUNTER;
    log->freq_source = "calibrated";   /* against CLOCK_MONOTONIC_RAW, in pp_instr_write() */
#elif defined(__aarch64__)
    log->counter = PP_INSTR_COUNTER;
    log->freq_hz = (double)pp_instr_counter_freq();
    log->freq_source = "cntfrq";
#else
#if defined(__arm__)
    uint32_t freq = pp_instr_arm_cntvct();
    if (freq) {
        log->counter = PP_INSTR_COUNTER;
        log->freq_hz = freq;
        log->freq_source = "cntfrq";
        return;
    }
#endif
    log->counter = PP_INSTR_MONOTONIC;
    log->freq_hz = 1e9;
    log->freq_source = "nominal";
    log->monotonic = 1;
#endif
}

#if defined(__x86_64__)
#define PP_INSTR_ARCH "x86_64"
#elif defined(__aarch64__)
#define PP_INSTR_ARCH "aarch64"
#elif defined(__arm__)
#define PP_INSTR_ARCH "armv7"
#else
#define PP_INSTR_ARCH "generic"
#endif

/* Room for `capacity` points. Returns 0, or -1 when the memory is not there. */
static inline int pp_instr_init(struct pp_instr_log *log, size_t capacity)
{
    memset(log, 0, sizeof *log);
    log->points = calloc(capacity ? capacity : 1, sizeof *log->points);
    if (!log->points)
        return -1;
    log->capacity = capacity;
    pp_instr_counter_init(log);
    log->start_time = time(NULL);
    log->start_ns = pp_instr_monotonic_ns();
    log->start_ticks = pp_instr_ticks(log);
    /* fault the buffer in now, not at the first points */
    memset(log->points, 0, (capacity ? capacity : 1) * sizeof *log->points);
    return 0;
}

/* Timestamps the point `name` (kept by pointer: a string literal or longer-lived) on the
 * calling thread's CPU. Safe from any thread; past the capacity points are counted, not kept. */
static inline void pp_instr_point(struct pp_instr_log *log, const char *name)
{
    uint64_t ticks = pp_instr_ticks(log);
    int cpu = sched_getcpu();
    size_t i = __atomic_fetch_add(&log->next, 1, __ATOMIC_RELAXED);
    if (i >= log->capacity)
        return;
    struct pp_instr_point_rec *p = &log->points[i];
    p->ticks = ticks;
    p->cpu = cpu;
    p->thread = (int)syscall(SYS_gettid);
    p->name = name;
}

static inline void pp_instr_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* Writes the meta record, one `point` record per kept point in the order they were taken
 * per thread, a `warning` if points were dropped, and `end`. `program` names the run.
 * Call once every thread has stopped marking points. Returns 0, or -1 on a write error. */
static inline int pp_instr_write(struct pp_instr_log *log, FILE *out, const char *program)
{
    if (log->freq_hz == 0) {
        /* the TSC's rate against CLOCK_MONOTONIC_RAW over at least 20 ms since init */
        uint64_t ns, ticks;
        do {
            ns = pp_instr_monotonic_ns();
            ticks = pp_instr_ticks(log);
        } while (ns - log->start_ns < 20000000u);
        log->freq_hz = (double)(ticks - log->start_ticks) * 1e9 / (double)(ns - log->start_ns);
    }
    char when[32], host[256] = "";
    struct tm tm;
    gmtime_r(&log->start_time, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(host, sizeof host - 1);
    size_t kept = log->next < log->capacity ? log->next : log->capacity;
    fprintf(out, "{\"type\":\"meta\",\"schema\":1,\"source\":\"platperf_instr.h\",\"instr_version\":%d,"
            "\"arch\":\"%s\",\"program\":", PP_INSTR_VERSION, PP_INSTR_ARCH);
    pp_instr_json_string(out, program ? program : "");
    fputs(",\"host\":", out);
    pp_instr_json_string(out, host);
    fprintf(out, ",\"counter\":{\"name\":\"%s\",\"freq_hz\":%.17g,\"freq_source\":\"%s\"},"
            "\"start_time\":\"%s\"}\n", log->counter, log->freq_hz, log->freq_source, when);
    for (size_t i = 0; i < kept; i++) {
        const struct pp_instr_point_rec *p = &log->points[i];
        fputs("{\"type\":\"point\",\"name\":", out);
        pp_instr_json_string(out, p->name ? p->name : "");
        fprintf(out, ",\"ticks\":%llu,\"cpu\":%d,\"thread\":%d}\n", (unsigned long long)p->ticks,
                p->cpu, p->thread);
    }
    if (log->next > log->capacity)
        fprintf(out, "{\"type\":\"warning\",\"code\":\"instr-points-dropped\",\"message\":\"%llu points "
                "past the capacity of %llu were not kept; give pp_instr_init() more room\"}\n",
                (unsigned long long)(log->next - log->capacity), (unsigned long long)log->capacity);
    fprintf(out, "{\"type\":\"end\",\"status\":\"complete\",\"results\":0,\"points\":%llu}\n",
            (unsigned long long)kept);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

static inline void pp_instr_free(struct pp_instr_log *log)
{
    free(log->points);
    log->points = NULL;
    log->capacity = log->next = 0;
}

#endif
