/* The timed loops, one implementation per architecture in arch/<arch>/ (.S files), or the
 * portable C versions in arch/generic/ (results then carry "fallback": true).
 * Each loop head is a global symbol <name>_loop aligned to 64 bytes, which the
 * disassembly test in tests/probe/ checks. */
#ifndef PLATPERF_TIMED_LOOPS_H
#define PLATPERF_TIMED_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#define CHASE_UNROLL 16       /* loads per iteration of pp_chase */
#define ADDCHAIN_UNROLL 64    /* dependent adds per iteration of pp_addchain */
#define PEAK_BLOCK 512        /* bytes per iteration of the peak kernels */

/* n * CHASE_UNROLL dependent loads p = *p; returns the final p. */
void **pp_chase(void **p, uint64_t n);
/* n * ADDCHAIN_UNROLL dependent single-cycle adds; returns the sum (keeps it live). */
uint64_t pp_addchain(uint64_t n);

/* Widest loads/stores: `passes` passes over bytes (a multiple of PEAK_BLOCK, 64-byte
 * aligned buffers). x86_64 has one per vector width, picked at run time. */
void pp_peak_read(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy(void *dst, const void *src, size_t bytes, uint64_t passes);
#if defined(__x86_64__) && !defined(PLATPERF_FALLBACK)
void pp_peak_read_avx512(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write_avx512(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy_avx512(void *dst, const void *src, size_t bytes, uint64_t passes);
void pp_peak_read_avx2(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write_avx2(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy_avx2(void *dst, const void *src, size_t bytes, uint64_t passes);
void pp_peak_read_sse2(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write_sse2(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy_sse2(void *dst, const void *src, size_t bytes, uint64_t passes);
#endif

/* LMBench's lat_ops as dependent chains (cpu-ops, docs/probe.md): pp_ops_<type>_<op>(n)
 * runs n iterations of OPS_<OP>_UNROLL operations, each depending on the one before, from
 * the start values below, and returns the chain's final value (a float's or double's bits)
 * so probe-selfcheck can follow the same chain in C. */
#define OPS_ADD_UNROLL 100    /* 50 x (a += b; b -= a), a = b = 1 */
#define OPS_BIT_UNROLL 99     /* 33 x (r ^= i; s ^= r; r |= s), r = 1, s = n, i = iterations left */
#define OPS_MUL_UNROLL 100    /* r *= s, r = 1, s = 3 */
#define OPS_DIV_UNROLL 100    /* r = s / r: int r = 2, s = 3 << 20; int64 r = 1, s = 2 << 20 */
#define OPS_MOD_UNROLL 100    /* r = r % s; r |= s: r = 1, s = OPS_MOD_DIVISOR (the or is one cycle) */
#define OPS_FADD_UNROLL 99    /* 9 x (10 x f += f; f += g), f = 1, g = -1023 */
#define OPS_FMUL_UNROLL 100   /* f *= f, f = 1 */
#define OPS_FDIV_UNROLL 100   /* f = g / f, f = 1, g = 1000 */
#define OPS_MOD_DIVISOR 1000001
#define OPS_CHAINS(type) \
    uint64_t pp_ops_##type##_add(uint64_t n); uint64_t pp_ops_##type##_mul(uint64_t n); \
    uint64_t pp_ops_##type##_div(uint64_t n)
OPS_CHAINS(int);
OPS_CHAINS(int64);
OPS_CHAINS(float);
OPS_CHAINS(double);
uint64_t pp_ops_int_bit(uint64_t n);
uint64_t pp_ops_int_mod(uint64_t n);
uint64_t pp_ops_int64_bit(uint64_t n);
uint64_t pp_ops_int64_mod(uint64_t n);
/* 1 when the CPU has the integer divide instruction the int div/mod chains use (armv7:
 * the IDIVA hardware capability, absent on Cortex-A8/A9), else 0. */
int ops_int_div_available(void);

/* "avx512", "neon", "c" ... : what pp_peak_* use on this CPU. */
const char *peak_isa(void);
/* The widths this build has ("auto" first, NULL-terminated) and the choice of one:
 * 0, or -1 if this CPU lacks it. "auto" is the widest the CPU has. */
extern const char *const peak_isa_choices[];
int peak_select(const char *name);
/* CPU features worth recording in meta, comma-free names into out; returns count. */
int cpu_features(const char **out, int max);
/* 1 when the portable C loops are in use. */
int timed_loops_fallback(void);

#endif
