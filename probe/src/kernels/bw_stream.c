/* STREAM's four kernels on arrays of doubles: copy 16, scale 16, add 24, triad 24 bytes
 * per element (what STREAM counts). Compiled like STREAM usually is: the compiler may
 * vectorise; restrict tells it the arrays do not overlap (buffer.c guarantees it). */
#include "bw_loops.h"

#define PASS_BARRIER() __asm__ volatile("" : : : "memory")

void stream_copy(double *restrict c, const double *restrict a, size_t n, uint64_t passes)
{
    while (passes-- > 0) {
        for (size_t j = 0; j < n; j++)
            c[j] = a[j];
        PASS_BARRIER();
    }
}

void stream_scale(double *restrict b, const double *restrict c, size_t n, uint64_t passes)
{
    while (passes-- > 0) {
        for (size_t j = 0; j < n; j++)
            b[j] = STREAM_SCALAR * c[j];
        PASS_BARRIER();
    }
}

void stream_add(double *restrict c, const double *restrict a, const double *restrict b, size_t n, uint64_t passes)
{
    while (passes-- > 0) {
        for (size_t j = 0; j < n; j++)
            c[j] = a[j] + b[j];
        PASS_BARRIER();
    }
}

void stream_triad(double *restrict a, const double *restrict b, const double *restrict c, size_t n, uint64_t passes)
{
    while (passes-- > 0) {
        for (size_t j = 0; j < n; j++)
            a[j] = b[j] + STREAM_SCALAR * c[j];
        PASS_BARRIER();
    }
}
