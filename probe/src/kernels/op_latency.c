#include "op_latency.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

/* "a,b,c" of the non-empty parts, or NULL when out of memory. */
static char *joined(const char *a, const char *b, const char *c)
{
    const char *parts[3] = {a, b, c};
    size_t len = 1;
    for (int i = 0; i < 3; i++)
        len += parts[i] ? strlen(parts[i]) + 1 : 0;
    char *out = malloc(len);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (!parts[i] || !parts[i][0])
            continue;
        if (out[0])
            strcat(out, ",");
        strcat(out, parts[i]);
    }
    return out;
}

void emit_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                     const struct cpu_job *job, const struct core_clock *cc, uint64_t ops,
                     const char *extra_json)
{
    double *ns = malloc(sizeof(double) * (size_t)job->nsamples);
    double *cycles = malloc(sizeof(double) * (size_t)job->nsamples);
    char *cost = exec_cost_json(job);
    if (!ns || !cycles) {
        emit_error("out-of-memory", "cannot hold the samples of one result");
        goto out;
    }
    for (int i = 0; i < job->nsamples; i++) {
        ns[i] = ticks_to_ns(job->ticks[i]) / (double)ops;
        cycles[i] = cc ? (double)job->ticks[i] * cc->cycles_per_tick / (double)ops : 0;
    }
    char *extra = joined(cost, extra_json, NULL);
    emit_result_extra(ctx, benchmark, params_json, job->cpu, "latency", "ns", "lower",
                      ns, job->nsamples, ops, job->ticks, extra);
    free(extra);
    if (cc && cc->valid) {
        char clock[160];
        snprintf(clock, sizeof clock, "\"core_clock\":{\"hz\":%.0f,\"cycles_per_tick\":%.6g,"
                 "\"error_pct\":%.3g}", cc->hz, cc->cycles_per_tick, cc->error_pct);
        extra = joined(clock, cost, extra_json);
        emit_result_extra(ctx, benchmark, params_json, job->cpu, "latency_cycles", "cycles", "lower",
                          cycles, job->nsamples, ops, job->ticks, extra ? extra : clock);
        free(extra);
    }
out:
    free(cost);
    free(ns);
    free(cycles);
}
