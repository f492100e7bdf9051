/* The portable C timed loops, for architectures without assembly (or -DPLATPERF_FALLBACK).
 * Results are labelled "fallback": true: the compiler chooses the instructions, so they
 * are not checked by disassembly and may differ between toolchains. The empty asm
 * statements (GNU C) keep the compiler from folding the chains or the repeated passes. */
#include <string.h>

#include "timed_loops.h"

void **pp_chase(void **p, uint64_t n)
{
    while (n-- > 0)
        for (int i = 0; i < CHASE_UNROLL; i++)
            p = (void **)*p;
    return p;
}

uint64_t pp_addchain(uint64_t n)
{
    uint64_t x = 0, one = 1;
    __asm__ volatile("" : "+r"(one));
    while (n-- > 0)
        for (int i = 0; i < ADDCHAIN_UNROLL; i++) {
            x += one;
            __asm__ volatile("" : "+r"(x));
        }
    return x;
}

/* LMBench's use_int(): a call the compiler must keep (noipa: neither inlined nor seen
 * through), as far as the compiler honours the attribute */
volatile uint64_t pp_proccall_sink;
__attribute__((noipa)) void pp_proccall_use_int(int v) { pp_proccall_sink += (uint64_t)(int64_t)v; }

uint64_t pp_proccall(uint64_t n, int arg)
{
    while (n-- > 0)
        pp_proccall_use_int(arg);
    return pp_proccall_sink;
}

void pp_peak_read(const void *buf, size_t bytes, uint64_t passes)
{
    uint64_t sum = 0;
    while (passes-- > 0) {
        const uint64_t *p = buf;
        for (size_t i = 0; i < bytes / 8; i++)
            sum += p[i];
        __asm__ volatile("" : "+r"(sum) : : "memory");
    }
}

void pp_peak_write(void *buf, size_t bytes, uint64_t passes)
{
    while (passes-- > 0) {
        memset(buf, 0, bytes);
        __asm__ volatile("" : : : "memory");
    }
}

void pp_peak_copy(void *dst, const void *src, size_t bytes, uint64_t passes)
{
    while (passes-- > 0) {
        memcpy(dst, src, bytes);
        __asm__ volatile("" : : : "memory");
    }
}

const char *peak_isa(void) { return "c"; }
const char *const peak_isa_choices[] = {"auto", "c", NULL};
int peak_select(const char *name) { return strcmp(name, "auto") == 0 || strcmp(name, "c") == 0 ? 0 : -1; }
const struct peak_shape *peak_shape(int kernel, unsigned *vector_bytes)
{
    (void)kernel;
    *vector_bytes = 0;
    return NULL;   /* the compiler's loops: no disassembly contract */
}
int generic_l1d_counts_loads(void) { return 0; }
int timed_loops_fallback(void) { return 1; }
int cpu_features(const char **out, int max) { (void)out; (void)max; return 0; }
