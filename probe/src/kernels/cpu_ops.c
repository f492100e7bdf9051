/* cpu-ops: LMBench's lat_ops — the latency of one integer, int64, float or double add, mul,
 * div, mod or bit operation, from a chain where each operation waits for the one before
 * (arch/<arch>/ops.S, defined op by op in docs/probe.md "cpu-ops"). Per CPU, in ns and in
 * that core's cycles (the add chain's clock, counter.h core_clock_on_cpu).
 *
 * Two chains carry a single-cycle ALU operation that is not the one measured, as in
 * LMBench: mod's r |= s (keeps the dividend from collapsing to 0) and mul's r -= t every
 * ten multiplications (brings r back to its start). LMBench subtracts its measured add or
 * bit time for them; here their known latency, one core cycle each, is subtracted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "params.h"
#include "timed_loops.h"

static const char *const type_choices[] = {"int", "int64", "float", "double", NULL};
static const char *const op_choices[] = {"add", "mul", "div", "mod", "bit", NULL};

static const struct kernel_param params[] = {
    {"type", "int,int64,float,double", type_choices, "operand types", true, .kind = PARAM_CHOICE},
    {"op", "add,mul,div,mod,bit", op_choices, "operations (mod and bit: int and int64 only)", true,
     .kind = PARAM_CHOICE},
    {NULL},
};

struct op_chain {
    const char *type, *op;
    uint64_t (*loop)(uint64_t n);
    int unroll;           /* operations per loop iteration */
    double extra_cycles;  /* single-cycle operations on the chain per operation, subtracted */
    int needs_int_div;    /* uses the integer divide instruction (ops_int_div_available) */
};

static const struct op_chain chains[] = {
    {"int", "add", pp_ops_int_add, OPS_ADD_UNROLL, 0, 0},
    {"int", "mul", pp_ops_int_mul, OPS_MUL_UNROLL, OPS_MUL_EXTRA, 0},
    {"int", "div", pp_ops_int_div, OPS_DIV_UNROLL, 0, 1},
    {"int", "mod", pp_ops_int_mod, OPS_MOD_UNROLL, OPS_MOD_EXTRA, 1},
    {"int", "bit", pp_ops_int_bit, OPS_BIT_UNROLL, 0, 0},
    {"int64", "add", pp_ops_int64_add, OPS_ADD_UNROLL, 0, 0},
    {"int64", "mul", pp_ops_int64_mul, OPS_MUL_UNROLL, OPS_MUL_EXTRA, 0},
    {"int64", "div", pp_ops_int64_div, OPS_DIV_UNROLL, 0, 0},
    {"int64", "mod", pp_ops_int64_mod, OPS_MOD_UNROLL, OPS_MOD_EXTRA, 0},
    {"int64", "bit", pp_ops_int64_bit, OPS_BIT_UNROLL, 0, 0},
    {"float", "add", pp_ops_float_add, OPS_FADD_UNROLL, 0, 0},
    {"float", "mul", pp_ops_float_mul, OPS_FMUL_UNROLL, 0, 0},
    {"float", "div", pp_ops_float_div, OPS_FDIV_UNROLL, 0, 0},
    {"double", "add", pp_ops_double_add, OPS_FADD_UNROLL, 0, 0},
    {"double", "mul", pp_ops_double_mul, OPS_FMUL_UNROLL, 0, 0},
    {"double", "div", pp_ops_double_div, OPS_FDIV_UNROLL, 0, 0},
};
#define NCHAINS ((int)(sizeof chains / sizeof chains[0]))

struct ops_plan {
    const struct op_chain *chosen[NCHAINS];
    int nchosen;
};

static int listed(const char *list, const char *name)
{
    char buf[256], *items[16];
    int n = split_list(list, buf, sizeof buf, items, 16);
    for (int i = 0; i < n; i++)
        if (strcmp(items[i], name) == 0)
            return 1;
    return 0;
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    const char *types = kernel_value(ctx, "type"), *ops = kernel_value(ctx, "op");
    struct ops_plan *plan = calloc(1, sizeof *plan);
    if (!plan) {
        snprintf(err, errlen, "cpu-ops: out of memory");
        return -1;
    }
    for (int i = 0; i < NCHAINS; i++)
        if (listed(types, chains[i].type) && listed(ops, chains[i].op))
            plan->chosen[plan->nchosen++] = &chains[i];
    if (plan->nchosen == 0) {
        snprintf(err, errlen, "cpu-ops: --type %s has no --op %s (valid: mod and bit with int or int64; "
                 "add, mul, div with any type)", types, ops);
        free(plan);
        return -1;
    }
    ctx->kernel_state = plan;
    return 0;
}

struct chain_state {
    const struct op_chain *chain;
    uint64_t value;
};

static volatile uint64_t chain_sink;

static void chain_body(void *state, uint64_t reps)
{
    struct chain_state *st = state;
    st->value = st->chain->loop(reps);
}

static int measure_on_cpu(struct cpu_job *job)
{
    struct chain_state st = {job->arg, 0};
    /* this CPU's own clock: on big.LITTLE the clusters differ */
    job->result = (void *)core_clock_on_cpu(job->cpu);
    job->events_per = "op";   /* iterations: the chain's operations */
    exec_ready(job);
    exec_sample(job, chain_body, &st, 1);
    chain_sink = st.value;
    return 0;
}

struct chain_emit {
    const struct op_chain *chain;
    double *ns, *cycles;   /* ctx->samples each */
};

static int emit_chain(struct run_ctx *ctx, struct cpu_job *job, void *arg)
{
    const struct chain_emit *ce = arg;
    const struct op_chain *chain = ce->chain;
    double *ns = ce->ns, *cycles = ce->cycles;
    const struct core_clock *cc = job->result;
    uint64_t ops = job->reps * (uint64_t)chain->unroll;
    struct json_obj params;
    json_obj_init(&params);
    json_obj_str(&params, "op", chain->op);
    json_obj_str(&params, "type", chain->type);
    if (chain->extra_cycles && !cc->valid) {
        emit_warning("no-core-clock", "cpu-ops: mul and mod need the core clock to take their "
                     "extra cycle out; not measured", job->cpu);
        return 0;
    }
    for (int i = 0; i < job->nsamples; i++) {
        double per_op = (double)job->ticks[i] / (double)ops;
        ns[i] = ticks_to_ns(job->ticks[i]) / (double)ops;
        cycles[i] = per_op * cc->cycles_per_tick;
        if (chain->extra_cycles) {
            ns[i] -= chain->extra_cycles * 1e9 / cc->hz;
            cycles[i] -= chain->extra_cycles;
        }
    }
    struct result_record r = {"cpu-ops", params.text, job->cpu, "latency", "ns", "lower",
                              ns, job->nsamples, ops, job->ticks, job, NULL};
    emit_record(ctx, &r);
    if (cc->valid) {
        r.metric = r.unit = "cycles";
        r.samples = cycles;
        r.clock = cc;
        emit_record(ctx, &r);
    }
    return 0;
}

static int run(struct run_ctx *ctx)
{
    struct ops_plan *plan = ctx->kernel_state;
    double *ns = malloc(sizeof(double) * (size_t)ctx->samples);
    double *cycles = malloc(sizeof(double) * (size_t)ctx->samples);
    int rc = 0;
    for (int c = 0; c < plan->nchosen && !probe_interrupted() && rc == 0; c++) {
        const struct op_chain *chain = plan->chosen[c];
        if (chain->needs_int_div && !ops_int_div_available()) {
            char msg[128];
            snprintf(msg, sizeof msg, "cpu-ops: this CPU has no integer divide instruction; %s %s not measured",
                     chain->type, chain->op);
            emit_warning("no-int-div", msg, -1);
            continue;
        }
        struct chain_emit ce = {chain, ns, cycles};
        rc = measure_each_cpu(ctx, measure_on_cpu, (void *)chain, emit_chain, &ce);
    }
    free(ns);
    free(cycles);
    free(plan);
    return rc;
}

const struct kernel cpu_ops_kernel = {
    .name = "cpu-ops",
    .help = "latency of one int/int64/float/double add, mul, div, mod, bit operation (lat_ops; ns and cycles)",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};
