#include "op_latency.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

/* "a,b" of the non-empty parts, or NULL when out of memory. */
static char *joined(const char *a, const char *b)
{
    size_t len = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s%s%s", a ? a : "", a && *a && b && *b ? "," : "", b ? b : "");
    return out;
}

void emit_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json, int cpu,
                     int n, const uint64_t *ticks, const uint64_t *ops, const struct core_clock *cc,
                     const char *extra_json)
{
    double *ns = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *cycles = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!ns || !cycles) {
        emit_error("out-of-memory", "cannot hold the samples of one result");
        free(ns);
        free(cycles);
        return;
    }
    uint64_t iterations = n > 0 ? ops[0] : 0;
    for (int i = 0; i < n; i++) {
        ns[i] = ticks_to_ns(ticks[i]) / (double)ops[i];
        cycles[i] = cc ? (double)ticks[i] * cc->cycles_per_tick / (double)ops[i] : 0;
        if (ops[i] != iterations)
            iterations = 0;
    }
    emit_result_extra(ctx, benchmark, params_json, cpu, "latency", "ns", "lower", ns, n, iterations,
                      ticks, extra_json);
    if (cc && cc->valid) {
        char clock[160];
        snprintf(clock, sizeof clock, "\"core_clock\":{\"hz\":%.0f,\"cycles_per_tick\":%.6g,"
                 "\"error_pct\":%.3g}", cc->hz, cc->cycles_per_tick, cc->error_pct);
        char *extra = joined(clock, extra_json);
        emit_result_extra(ctx, benchmark, params_json, cpu, "latency_cycles", "cycles", "lower",
                          cycles, n, iterations, ticks, extra ? extra : clock);
        free(extra);
    }
    free(ns);
    free(cycles);
}

void emit_job_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                         const struct cpu_job *job, const struct core_clock *cc, uint64_t ops,
                         const char *extra_json)
{
    uint64_t *each = malloc(sizeof(uint64_t) * (size_t)(job->nsamples > 0 ? job->nsamples : 1));
    char *cost = exec_cost_json(job);
    char *extra = joined(cost, extra_json);
    if (!each) {
        emit_error("out-of-memory", "cannot hold the samples of one result");
    } else {
        for (int i = 0; i < job->nsamples; i++)
            each[i] = ops;
        emit_op_latency(ctx, benchmark, params_json, job->cpu, job->nsamples, job->ticks, each, cc,
                        extra ? extra : cost);
    }
    free(extra);
    free(cost);
    free(each);
}
