/* align-sweep: how much code placement alone moves a figure (the micro-benchmark pitfalls
 * note: the same loop 30% apart from its alignment). The timed loop's whole function,
 * [pp_chase, pp_chase_end) or [pp_addchain, pp_addchain_end) — position-independent, see
 * timed_loops.h — is copied byte for byte into a fresh executable mapping at each code
 * offset 0, step, 2*step, ... < span past a page boundary, checked against the original
 * (same bytes, same answer), then timed as mem-latency times it.
 *
 * The sweep runs --rounds times, every placement once per round from a fresh copy (round 0
 * in order, the others shuffled), so a placement's rounds are a sweep apart and what
 * differs between them, beyond a whole round's drift, is run-to-run noise. One result per
 * (kernel, offset, cpu) with the samples of every round: `loop_offset` (the loop head's
 * offset in its page), `code` (the bytes that ran) and `rounds` (each round's median in ns,
 * cost and preempted samples). The host tests placements against rounds (placement.py).
 * --events: the rounds' counts pooled alike, each sample per its own round's operations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buffer.h"
#include "chase.h"
#include "counter.h"
#include "event_pool.h"
#include "op_latency.h"
#include "params.h"
#include "record.h"
#include "summary.h"
#include "timed_loops.h"

/* The L1 chase's ring: 64 lines fit the L1 data cache of every core the probe targets. */
#define L1_RING_BYTES 4096
#define MAX_OFFSETS 4096

static const char *const kernel_choices[] = {"l1-chase", "add-chain", NULL};

static const struct kernel_param params[] = {
    {"kernel", "l1-chase,add-chain", kernel_choices,
     "timed loops to sweep: l1-chase (dependent loads around a 4 KiB ring), add-chain (dependent adds)", true, .kind = PARAM_CHOICE},
    {"step", "16", NULL, "bytes between two placements (a multiple of the instruction size: 4 on Arm)", false,
     .kind = PARAM_SIZE, .min = 1, .max = 65536},
    {"span", "256", NULL, "placements cover offsets 0 to span - step (at most one page)", false,
     .kind = PARAM_SIZE, .min = 1, .max = 65536},
    {"rounds", "3", NULL, "sweeps over every placement, one after the other (at least 2: the run-to-run "
                          "noise a placement's spread is compared with)", false, .kind = PARAM_COUNT, .min = 2, .max = 100},
    {NULL},
};

struct sweep_plan {
    int kernels[2];       /* indexes into kernel_choices */
    int nkernels;
    uint64_t step, span, rounds;
};

/* What one (kernel, offset, cpu) gathered over the rounds; emitted once all rounds ran. */
/* One round of one slot: its median, and the job whose samples it took (their cost and
 * marks, the flags copied; no ticks). */
struct sweep_round {
    double median_ns;
    struct cpu_job job;
};

struct sweep_slot {
    uint64_t *ticks, *ops;     /* rounds x samples */
    int n;
    struct sweep_round *rounds;
    int nrounds;
    const struct core_clock *cc;
    struct events_pool events; /* --events: the rounds' counts, sample for sample with ticks */
};

/* One placed copy, shared by the jobs of every CPU (code is read-only once placed). */
struct placement {
    int kernel;
    void *mapping;
    size_t mapping_bytes;
    uintptr_t entry;      /* the copy's address to call (with the Thumb bit of the original) */
    size_t loop_offset;   /* the loop head's offset in its page */
    const unsigned char *code;
    size_t code_bytes;
};

struct sweep_state {
    const struct placement *pl;
    void **p;
    uint64_t sum;
};

static void **volatile chase_sink;
static volatile uint64_t add_sink;

static void original(int kernel, const unsigned char **start, const unsigned char **loop, size_t *bytes)
{
#if defined(PLATPERF_FALLBACK)
    (void)kernel;                  /* not reached: available() refuses the fallback build */
    *start = *loop = NULL;
    *bytes = 0;
#else
    uintptr_t fn = kernel == 0 ? (uintptr_t)pp_chase : (uintptr_t)pp_addchain;
    const unsigned char *end = kernel == 0 ? pp_chase_end : pp_addchain_end;
    *start = (const unsigned char *)(fn & ~(uintptr_t)TIMED_CODE_THUMB_BIT);
    *loop = kernel == 0 ? pp_chase_loop : pp_addchain_loop;
    *bytes = (size_t)(end - *start);
#endif
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct sweep_plan *plan = calloc(1, sizeof *plan);
    char buf[64], *items[2];
    int n = split_list(kernel_value(ctx, "kernel"), buf, sizeof buf, items, 2);
    for (int i = 0; i < n; i++) {
        int k = choice_index(kernel_choices, items[i]);
        if (plan->nkernels == 0 || plan->kernels[0] != k)
            plan->kernels[plan->nkernels++] = k;
    }
    /* sizes and the round count are checked by their declared kinds (params.c); what is left
     * depends on this machine (instruction size, page size) or on the two values together */
    plan->step = kernel_size(ctx, "step");
    plan->span = kernel_size(ctx, "span");
    plan->rounds = (uint64_t)kernel_count(ctx, "rounds");
    if (plan->step % TIMED_CODE_ALIGN) {
        snprintf(err, errlen, "align-sweep: --step '%s' is not valid (valid: a multiple of %d bytes, e.g. 16)",
                 kernel_value(ctx, "step"), TIMED_CODE_ALIGN);
        free(plan);
        return -1;
    }
    if (plan->span < plan->step || plan->span > page_size()) {
        snprintf(err, errlen, "align-sweep: --span '%s' is not valid (valid: from --step to %zu bytes, e.g. 256)",
                 kernel_value(ctx, "span"), page_size());
        free(plan);
        return -1;
    }
    uint64_t need = L1_RING_BYTES;
    if (ctx->mode == MODE_PARALLEL)
        need *= (uint64_t)ctx->ncpus;
    if (buffer_check_cap(ctx, "align-sweep", "the 4 KiB ring", need, err, errlen) != 0) {
        free(plan);
        return -1;
    }
    ctx->kernel_state = plan;
    return 0;
}

/* The copy answers what the original answers: the same end of a 5-element ring after 16
 * loads, the same sum of 3 * 64 adds. */
static int same_answer(const struct placement *pl)
{
    if (pl->kernel == 0) {
        void *ring[5];
        for (int i = 0; i < 5; i++)
            ring[i] = &ring[(i + 1) % 5];
        void **(*copy)(void **, uint64_t) = (void **(*)(void **, uint64_t))pl->entry;
        return copy(ring, 1) == pp_chase(ring, 1);
    }
    uint64_t (*copy)(uint64_t) = (uint64_t (*)(uint64_t))pl->entry;
    return copy(3) == pp_addchain(3);
}

/* Maps, copies and checks the loop at `offset`; 0, or -1 after an error record. */
static int place(int kernel, uint64_t offset, struct placement *pl)
{
    const unsigned char *start, *loop;
    size_t bytes;
    original(kernel, &start, &loop, &bytes);
    size_t page = page_size();
    memset(pl, 0, sizeof *pl);
    pl->kernel = kernel;
    pl->mapping_bytes = (offset + bytes + page - 1) / page * page;
    pl->mapping = mmap(NULL, pl->mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pl->mapping == MAP_FAILED) {
        emit_error("map-failed", "align-sweep: cannot map memory for the code copies");
        return -1;
    }
    unsigned char *dst = (unsigned char *)pl->mapping + offset;
    memcpy(dst, start, bytes);
    /* write, then execute: never both at once (W^X kernels refuse it) */
    if (mprotect(pl->mapping, pl->mapping_bytes, PROT_READ | PROT_EXEC) != 0) {
        emit_error("exec-mapping-refused", "align-sweep: the kernel refuses executable anonymous memory "
                   "(SELinux execmem or a W^X policy); run where mprotect(PROT_EXEC) is allowed");
        munmap(pl->mapping, pl->mapping_bytes);
        return -1;
    }
    /* Arm: the copy went through the data cache; the instruction side must not see stale lines */
    __builtin___clear_cache((char *)dst, (char *)dst + bytes);
    pl->entry = (uintptr_t)dst | ((uintptr_t)(kernel == 0 ? (uintptr_t)pp_chase : (uintptr_t)pp_addchain)
                                  & TIMED_CODE_THUMB_BIT);
    pl->loop_offset = (size_t)(offset + (size_t)(loop - start)) % page;
    pl->code = dst;
    pl->code_bytes = bytes;
    if (memcmp(dst, start, bytes) != 0 || !same_answer(pl)) {
        emit_error("copy-differs", "align-sweep: the copied loop does not behave as the original "
                   "(instruction cache not synchronised?); report this with the probe's info output");
        munmap(pl->mapping, pl->mapping_bytes);
        return -1;
    }
    return 0;
}

static void chase_body(void *state, uint64_t reps)
{
    struct sweep_state *st = state;
    st->p = ((void **(*)(void **, uint64_t))st->pl->entry)(st->p, reps);
}

static void add_body(void *state, uint64_t reps)
{
    struct sweep_state *st = state;
    st->sum += ((uint64_t (*)(uint64_t))st->pl->entry)(reps);
}

static int measure_on_cpu(struct cpu_job *job)
{
    const struct placement *pl = job->arg;
    struct sweep_state st = {pl, NULL, 0};
    void *mapping = NULL, *buf;
    if (pl->kernel == 0) {
        mapping = buffer_alloc(L1_RING_BYTES, 1, &buf);
        if (!mapping) {
            snprintf(job->err, sizeof job->err, "cannot map the %d-byte ring", L1_RING_BYTES);
            exec_ready(job);
            return -1;
        }
        st.p = chase_build(buf, L1_RING_BYTES, 64, page_size(), CHASE_RANDOM, 1);
    }
    job->result = (void *)core_clock_on_cpu(job->cpu);
    exec_ready(job);
    exec_sample(job, pl->kernel == 0 ? chase_body : add_body, &st, 1);
    chase_sink = st.p;     /* results are data: the loops are never dead code */
    add_sink = st.sum;
    if (mapping)
        buffer_free(mapping, L1_RING_BYTES, 1);
    return 0;
}

static int add_round(struct sweep_slot *slot, const struct cpu_job *job, uint64_t ops, size_t capacity)
{
    double *ns = malloc(sizeof(double) * (size_t)job->nsamples);
    struct sweep_round *grown = realloc(slot->rounds, sizeof *grown * (size_t)(slot->nrounds + 1));
    if (grown)
        slot->rounds = grown;
    if (!ns || !grown) {
        free(ns);
        return -1;
    }
    int added = 0;
    for (int i = 0; i < job->nsamples && (size_t)slot->n < capacity; i++, added++) {
        ns[i] = ticks_to_ns(job->ticks[i]) / (double)ops;
        slot->ticks[slot->n] = job->ticks[i];
        slot->ops[slot->n++] = ops;
    }
    events_pool_add(&slot->events, job->events, added, (int)capacity);   /* the kept samples' counts */
    struct sweep_round *r = &slot->rounds[slot->nrounds];
    r->median_ns = summarize(ns, job->nsamples).median;
    slot->cc = job->result;
    free(ns);
    if (exec_keep_account(&r->job, job) != 0)
        return -1;
    slot->nrounds++;
    return 0;
}

static void free_rounds(struct sweep_slot *slot)
{
    for (int i = 0; i < slot->nrounds; i++)
        exec_free_account(&slot->rounds[i].job);
    free(slot->rounds);
    events_pool_free(&slot->events);
}

/* One placement's round, per CPU: its samples join the slot of (placement, job's CPU). */
struct round_target {
    struct sweep_slot *slots;   /* this placement's, one per CPU of ctx */
    uint64_t ops_per_rep;
    size_t capacity;
};

static int keep_round(struct run_ctx *ctx, struct cpu_job *job, void *arg)
{
    (void)ctx;
    struct round_target *rt = arg;
    if (add_round(&rt->slots[job->index], job, job->reps * rt->ops_per_rep, rt->capacity) != 0) {
        emit_error("out-of-memory", "align-sweep: cannot hold the sweep's samples");
        return 1;
    }
    return 0;
}

struct slot_fields {
    const struct placement *pl;
    const struct sweep_slot *slot;
    const char *per;      /* what one of the slot's operations is: an access, an op */
};

/* The medians of the rounds as the record has kept them since its first version: 6 digits. */
static double six_digits(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.6g", v);
    return strtod(text, NULL);
}

/* "loop_offset", "code" (the bytes that ran, hex) and "rounds" of a slot's records. */
static void write_slot_fields(const void *arg)
{
    const struct slot_fields *f = arg;
    char *hex = malloc(2 * f->pl->code_bytes + 1);
    jw_uint("loop_offset", f->pl->loop_offset);
    if (hex) {
        for (size_t i = 0; i < f->pl->code_bytes; i++)
            snprintf(hex + 2 * i, 3, "%02x", f->pl->code[i]);
        hex[2 * f->pl->code_bytes] = 0;
        jw_str("code", hex);
        free(hex);
    }
    jw_array("rounds");
    for (int i = 0; i < f->slot->nrounds; i++) {
        jw_element_object();
        jw_num("median_ns", six_digits(f->slot->rounds[i].median_ns));
        jw_job(&f->slot->rounds[i].job);
        jw_object_end();
    }
    jw_array_end();
    events_pool_jw(&f->slot->events, f->per, f->slot->ops, f->slot->n);
}

static void emit_slot(struct run_ctx *ctx, int kernel, uint64_t offset, int cpu, const struct placement *pl,
                      const struct sweep_slot *slot)
{
    struct json_obj params;
    json_obj_init(&params);
    json_obj_str(&params, "kernel", kernel_choices[kernel]);
    json_obj_uint(&params, "offset", offset);
    struct slot_fields fields = {pl, slot, kernel == 0 ? "access" : "op"};
    emit_op_latency(ctx, "align-sweep", params.text, cpu, slot->n, slot->ticks, slot->ops, slot->cc, NULL,
                    write_slot_fields, &fields);
    char what[80];
    snprintf(what, sizeof what, "align-sweep %s at offset %llu", kernel_choices[kernel], (unsigned long long)offset);
    events_pool_warnings(&slot->events, fields.per, slot->n > 0 ? slot->ops[0] : 0, what, cpu);
}

/* The placements in order for round 0, shuffled for each later one (Fisher-Yates, xorshift64). */
static void shuffle(size_t *order, size_t n, uint64_t round, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; round > 0 && i > 1; i--) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        size_t j = (size_t)(*seed % i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

static int run(struct run_ctx *ctx)
{
    struct sweep_plan *plan = ctx->kernel_state;
    size_t noffsets = (size_t)((plan->span + plan->step - 1) / plan->step);
    size_t nslots = (size_t)plan->nkernels * noffsets * (size_t)ctx->ncpus;
    size_t capacity = (size_t)plan->rounds * (size_t)ctx->samples;
    struct sweep_slot *slots = calloc(nslots, sizeof *slots);
    /* the last round's copies: `code` and `loop_offset` of the records */
    struct placement *last = calloc((size_t)plan->nkernels * noffsets, sizeof *last);
    int rc = 0;
    if (!slots || !last) {
        emit_error("out-of-memory", "align-sweep: cannot hold the sweep's samples");
        rc = 1;
    }
    for (size_t i = 0; rc == 0 && i < nslots; i++) {
        slots[i].ticks = malloc(sizeof(uint64_t) * capacity);
        slots[i].ops = malloc(sizeof(uint64_t) * capacity);
        if (!slots[i].ticks || !slots[i].ops) {
            emit_error("out-of-memory", "align-sweep: cannot hold the sweep's samples");
            rc = 1;
        }
    }
    /* Round 0 visits the placements in order, every later round in its own shuffled order:
     * a load or clock that drifts along the sweep then lands at different placements in
     * each round (noise) instead of always at the same ones (a fake placement effect). */
    size_t nplaces = (size_t)plan->nkernels * noffsets;
    size_t *order = malloc(sizeof(size_t) * (nplaces ? nplaces : 1));
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    if (!order && rc == 0) {
        emit_error("out-of-memory", "align-sweep: cannot hold the sweep's samples");
        rc = 1;
    }
    for (uint64_t round = 0; round < plan->rounds && rc == 0 && !probe_interrupted(); round++) {
        shuffle(order, nplaces, round, &seed);
        for (size_t at = 0; at < nplaces && rc == 0 && !probe_interrupted(); at++) {
            size_t k = order[at] / noffsets, o = order[at] % noffsets;
            int kernel = plan->kernels[k];
            uint64_t ops_per_rep = kernel == 0 ? CHASE_UNROLL : ADDCHAIN_UNROLL;
            struct placement *pl = &last[order[at]];
            if (pl->mapping)
                munmap(pl->mapping, pl->mapping_bytes);
            if (place(kernel, o * plan->step, pl) != 0) {
                pl->mapping = NULL;
                rc = 1;
                break;
            }
            struct round_target rt = {&slots[order[at] * (size_t)ctx->ncpus], ops_per_rep, capacity};
            rc = measure_each_cpu(ctx, measure_on_cpu, pl, keep_round, &rt);
        }
    }
    free(order);
    /* what was measured is written, also after an interruption or a failed placement */
    for (int k = 0; slots && last && k < plan->nkernels; k++)
        for (size_t o = 0; o < noffsets; o++)
            for (int j = 0; j < ctx->ncpus; j++) {
                struct sweep_slot *slot = &slots[((size_t)k * noffsets + o) * (size_t)ctx->ncpus + (size_t)j];
                if (slot->n > 0 && last[(size_t)k * noffsets + o].mapping)
                    emit_slot(ctx, plan->kernels[k], o * plan->step, ctx->cpus[j], &last[(size_t)k * noffsets + o],
                              slot);
            }
    for (size_t i = 0; slots && i < nslots; i++) {
        free(slots[i].ticks);
        free(slots[i].ops);
        free_rounds(&slots[i]);
    }
    for (size_t i = 0; last && i < (size_t)plan->nkernels * noffsets; i++)
        if (last[i].mapping)
            munmap(last[i].mapping, last[i].mapping_bytes);
    free(last);
    free(slots);
    free(plan);
    return rc;
}

static bool available(const char **why_not)
{
    if (timed_loops_fallback()) {
        *why_not = "the fallback build has C loops, whose code is not position-independent to copy";
        return false;
    }
    return true;
}

const struct kernel align_sweep_kernel = {
    .name = "align-sweep",
    .help = "code-placement sensitivity: the L1 chase and the add chain copied to N code offsets, "
            "ns and cycles per operation at each",
    .params = params,
    .available = available,
    .prepare = prepare,
    .run = run,
};
