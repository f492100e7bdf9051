#include "op_latency.h"

#include <stdlib.h>

#include "record.h"

void emit_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json, int cpu,
                     int n, const uint64_t *ticks, const uint64_t *ops, const struct core_clock *cc,
                     const struct cpu_job *job, void (*more)(const void *more_arg), const void *more_arg)
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
    struct result_record r = {benchmark, params_json, cpu, "latency", "ns", "lower",
                              ns, n, iterations, ticks, job, NULL};
    emit_record_with(ctx, &r, more, more_arg);
    if (cc && cc->valid) {
        r.metric = "latency_cycles";
        r.unit = "cycles";
        r.samples = cycles;
        r.clock = cc;
        emit_record_with(ctx, &r, more, more_arg);
    }
    free(ns);
    free(cycles);
}

void emit_job_op_latency(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                         const struct cpu_job *job, const struct core_clock *cc, uint64_t ops,
                         void (*more)(const void *more_arg), const void *more_arg)
{
    uint64_t *each = malloc(sizeof(uint64_t) * (size_t)(job->nsamples > 0 ? job->nsamples : 1));
    if (!each) {
        emit_error("out-of-memory", "cannot hold the samples of one result");
        return;
    }
    for (int i = 0; i < job->nsamples; i++)
        each[i] = ops;
    emit_op_latency(ctx, benchmark, params_json, job->cpu, job->nsamples, job->ticks, each, cc,
                    job, more, more_arg);
    free(each);
}
