/* The C timed loops of mem-bandwidth: LMBench bw_mem's kernels (bw_lmbench.c, built
 * with vectorisation and store merging off so each access stays the 4-byte int access
 * bw_mem makes) and STREAM's four (bw_stream.c). Each does `passes` passes. */
#ifndef PLATPERF_BW_LOOPS_H
#define PLATPERF_BW_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#define LMBENCH_CHUNK 512        /* bytes per inner iteration, as bw_mem */
#define STREAM_SCALAR 3.0

/* bytes is a multiple of LMBENCH_CHUNK. The read kernels return their sum. */
unsigned lmb_rd(const int *buf, size_t bytes, uint64_t passes);     /* every 4th int */
void lmb_wr(int *buf, size_t bytes, uint64_t passes);
unsigned lmb_rdwr(int *buf, size_t bytes, uint64_t passes);
void lmb_cp(int *dst, const int *src, size_t bytes, uint64_t passes);
unsigned lmb_frd(const int *buf, size_t bytes, uint64_t passes);    /* every int */
void lmb_fwr(int *buf, size_t bytes, uint64_t passes);
void lmb_fcp(int *dst, const int *src, size_t bytes, uint64_t passes);
void lmb_bzero(void *buf, size_t bytes, uint64_t passes);      /* libc memset, as bw_mem's bzero */
void lmb_bcopy(void *dst, const void *src, size_t bytes, uint64_t passes);   /* libc memmove */

/* n doubles per array. */
void stream_copy(double *c, const double *a, size_t n, uint64_t passes);              /* c = a */
void stream_scale(double *b, const double *c, size_t n, uint64_t passes);             /* b = s*c */
void stream_add(double *c, const double *a, const double *b, size_t n, uint64_t passes);    /* c = a+b */
void stream_triad(double *a, const double *b, const double *c, size_t n, uint64_t passes);  /* a = b+s*c */

#endif
