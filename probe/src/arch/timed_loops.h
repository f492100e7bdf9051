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
/* lat_proc procedure: n real calls (and returns) of pp_proccall_use_int(arg), LMBench's
 * use_int(), which adds arg to a 64-bit variable in memory; returns that variable. */
uint64_t pp_proccall(uint64_t n, int arg);

#if !defined(PLATPERF_FALLBACK)
/* Where pp_chase and pp_addchain end: [pp_chase, pp_chase_end) is the whole function,
 * position-independent (branches are pc-relative, no literal pools), so align-sweep can
 * run byte-for-byte copies of it at other code addresses. */
extern const unsigned char pp_chase_end[], pp_addchain_end[];
extern const unsigned char pp_chase_loop[], pp_addchain_loop[];
#endif
/* Copies go at multiples of the instruction alignment; on armv7 a code address's bit 0
 * says Thumb (the loops are ARM code, so it is 0; a copy keeps whatever the original has). */
#if defined(__x86_64__)
#define TIMED_CODE_ALIGN 1
#else
#define TIMED_CODE_ALIGN 4
#endif
#if defined(__arm__)
#define TIMED_CODE_THUMB_BIT 1u
#else
#define TIMED_CODE_THUMB_BIT 0u
#endif

/* Widest loads/stores: `passes` passes over bytes (a multiple of PEAK_BLOCK, 64-byte
 * aligned buffers). x86_64 (SSE2, AVX2, AVX-512) and aarch64 (NEON, SVE) have one per
 * vector width, picked at run time. */
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
#if defined(__aarch64__) && !defined(PLATPERF_FALLBACK)
void pp_peak_read_neon(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write_neon(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy_neon(void *dst, const void *src, size_t bytes, uint64_t passes);
/* SVE: whole vectors of the run-time length, any multiple of 16 bytes (peak_sve.S) */
void pp_peak_read_sve(const void *buf, size_t bytes, uint64_t passes);
void pp_peak_write_sve(void *buf, size_t bytes, uint64_t passes);
void pp_peak_copy_sve(void *dst, const void *src, size_t bytes, uint64_t passes);
int sve_vector_bytes(void);   /* 0 without SVE */
#endif

/* LMBench 3's lat_ops as dependent chains (cpu-ops, docs/probe.md): pp_ops_<type>_<op>(n)
 * runs n iterations of OPS_<OP>_UNROLL operations, each depending on the one before, from
 * lat_ops.c's start values (N = 1), and returns the chain's final value (a float's or
 * double's bits) so probe-selfcheck can follow the same chain in C (arch/generic/ops.c). */
#define OPS_ADD_UNROLL 100    /* 50 x (a += b; b -= a) */
#define OPS_BIT_UNROLL 99     /* 33 x (r ^= i; s ^= r; r |= s), i = iterations left */
#define OPS_MUL_UNROLL 100    /* 10 x (10 x r *= s; r -= t): the sub is not counted */
#define OPS_DIV_UNROLL 100    /* r = s / r */
#define OPS_MOD_UNROLL 100    /* r %= s; r |= s: the or is not counted */
#define OPS_FADD_UNROLL 99    /* 9 x (10 x f += f; f += g) */
#define OPS_FMUL_UNROLL 100   /* 50 x (f *= f; f *= g) */
#define OPS_FDIV_UNROLL 100   /* 5 x (10 x f = g / f; 10 x g = f / g) */
/* Single-cycle integer operations on the chain per counted one (the sub of mul, the or of
 * mod), taken out of the figures as LMBench takes out its measured add or bit time. */
#define OPS_MUL_EXTRA 0.1
#define OPS_MOD_EXTRA 1.0
/* Start values, as lat_ops.c sets them (bit and add values do not change a latency). */
#define OPS_INT_MUL_R 37432
#define OPS_INT_MUL_T 0x1c4a1640u            /* 37432 * 5^10 - 37432, 32-bit */
#define OPS_INT64_MUL_R 0x70000922dull        /* 37421 + (7 << 32) */
#define OPS_INT64_MUL_T 0x413151d15e2f598ull  /* r * 5^10 - r, 64-bit */
#define OPS_MUL_S 5
#define OPS_INT_DIV_R 37
#define OPS_INT_DIV_S (38 << 20)
#define OPS_INT64_DIV_R 0x4a00000025ll        /* 37 + (37 << 33) */
#define OPS_INT64_DIV_S 0x940000006c000ll     /* (r + 17) << 13 */
#define OPS_INT_MOD_S 63                      /* r starts at n + 1 */
#define OPS_INT64_MOD_S (1ll << 57)           /* r starts at 2n << 32 */
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
/* What a peak loop does, from its own code: a table in its .S file built from the loop's
 * labels (an A64 or A32 instruction is 4 bytes) or, on x86, from the accesses its macro
 * emits; kernels/bw_claim.c turns it into counts per byte, tests/probe/test_peak_shape.py
 * sets it against objdump. Seven 32-bit words, as the .S files lay them out. */
struct peak_shape {
    uint32_t inner;           /* instructions of an inner iteration; 0: not derived (x86) */
    uint32_t pass;            /* instructions a pass over the buffer runs besides them */
    uint32_t loads, stores;   /* load and store instructions of an inner iteration */
    uint32_t step;            /* bytes of each buffer an inner iteration advances; 0: SVE's */
    uint32_t vectors;         /* SVE: the step in vector lengths (rdvl) */
    uint32_t rest;            /* SVE: instructions of the rest loop, a vector of each buffer */
};
/* The chosen peak loop of `kernel` (0 read, 1 write, 2 copy) and, where its step is in
 * vectors, the vector length in bytes (else 0); NULL for the C loops. */
const struct peak_shape *peak_shape(int kernel, unsigned *vector_bytes);
/* 1 where the kernel's generic L1-dcache-loads event counts load instructions (Intel:
 * MEM_INST_RETIRED.ALL_LOADS and its forerunners), 0 where it counts something else or
 * varies by core (AMD family 17h on: data cache accesses, loads and stores; arm64:
 * L1D_CACHE_RD on some cores, L1D_CACHE on others). */
int generic_l1d_counts_loads(void);
/* CPU features worth recording in meta, comma-free names into out; returns count. */
int cpu_features(const char **out, int max);
/* 1 when the portable C loops are in use. */
int timed_loops_fallback(void);

#endif
