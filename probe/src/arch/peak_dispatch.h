/* The dispatch of the peak kernels that an architecture with several vector widths shares
 * (aarch64, x86_64): the chosen ISA and its loops, set by that architecture's peak_select(),
 * "auto" on first use. Included once, by the architecture's features.c. */
#ifndef PLATPERF_PEAK_DISPATCH_H
#define PLATPERF_PEAK_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "timed_loops.h"

static const char *isa;
static void (*read_fn)(const void *, size_t, uint64_t);
static void (*write_fn)(void *, size_t, uint64_t);
static void (*copy_fn)(void *, const void *, size_t, uint64_t);

static void choose(void)
{
    if (!isa)
        peak_select("auto");
}

const char *peak_isa(void) { choose(); return isa; }
void pp_peak_read(const void *buf, size_t bytes, uint64_t passes) { choose(); read_fn(buf, bytes, passes); }
void pp_peak_write(void *buf, size_t bytes, uint64_t passes) { choose(); write_fn(buf, bytes, passes); }
void pp_peak_copy(void *dst, const void *src, size_t bytes, uint64_t passes) { choose(); copy_fn(dst, src, bytes, passes); }

#endif
