/* The records of a per-operation latency measured with exec_sample(): shared by the
 * kernels that time one dependent operation at a time (mem-latency, align-sweep). */
#ifndef PLATPERF_OP_LATENCY_H
#define PLATPERF_OP_LATENCY_H

#include <stdint.h>

#include "counter.h"
#include "exec.h"

/* `latency` in ns per operation and, when cc is valid, `latency_cycles` in core cycles per
 * operation with that CPU's clock in "core_clock". Sample i took ticks[i] counter ticks for
 * ops[i] operations (`iterations` is written when every sample did the same number). Both
 * records carry job's cost and preempted samples when job is not NULL, and the fields
 * more(more_arg) writes with the jw_* calls when more is not NULL (emit_record_with). */
void emit_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json, int cpu,
                     int n, const uint64_t *ticks, const uint64_t *ops, const struct core_clock *cc,
                     const struct cpu_job *job, void (*more)(const void *more_arg), const void *more_arg);
/* The same for one job of exec_sample(), `ops` operations per sample. */
void emit_job_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                         const struct cpu_job *job, const struct core_clock *cc, uint64_t ops,
                         void (*more)(const void *more_arg), const void *more_arg);

#endif
