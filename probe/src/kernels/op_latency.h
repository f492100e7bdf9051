/* The records of a per-operation latency measured with exec_sample(): shared by the
 * kernels that time one dependent operation at a time (mem-latency, align-sweep). */
#ifndef PLATPERF_OP_LATENCY_H
#define PLATPERF_OP_LATENCY_H

#include <stdint.h>

#include "counter.h"
#include "exec.h"

/* `latency` in ns per operation and, when cc is valid, `latency_cycles` in core cycles per
 * operation with that CPU's clock (cc) in "core_clock"; `ops` operations per sample. Both
 * carry the job's cost and, when extra_json is not NULL, extra_json (`"key":value,...`). */
void emit_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                     const struct cpu_job *job, const struct core_clock *cc, uint64_t ops,
                     const char *extra_json);

#endif
