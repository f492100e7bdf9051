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
