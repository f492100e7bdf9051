/* os-ctx: LMBench lat_ctx, context switch time (us) for a ring of `procs` processes passing
 * a token through pipes, each summing its own `size`-byte working set (bread) when it has
 * the token; all the ring's processes pinned to the measured CPU, so every hop is a switch.
 *
 * LMBench's overhead subtraction, done right: a hop costs a pipe write + read + summing the
 * working set even without a switch. LMBench times that once, in one process with
 * max(procs) pipes, and subtracts it from every process count; it then hides results that
 * came out negative. Here the overhead loop (write + read on the i-th of `procs` pipes,
 * then the bread, in this process, cache-warm like LMBench's) is timed on the same CPU
 * with the same procs and size right before the ring, its median subtracted from every
 * sample of the ring per hop, and the subtracted figure kept in the result
 * ("overhead_subtracted"); nothing is hidden. docs/probe.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffer.h"
#include "kernels/os_common.h"

#define MAX_PROCS 64

static const struct kernel_param params[] = {
    {"procs", "2,4,8,16", NULL, "processes in the ring (TI's rows: lat_ctx-P-Sk)", .list = true,
     .kind = PARAM_COUNT, .min = 2, .max = MAX_PROCS},
    {"size", "0,16k,64k,128k,256k", NULL, "working set each process sums per hop", .list = true,
     .kind = PARAM_SIZE_LIST, .min = 0, .max = 64 << 20},
    {NULL},
};

struct ctx_state {
    int pipes[MAX_PROCS][2];
    pid_t pids[MAX_PROCS];
    int npipes, nprocs;
    long *data;
    int hop;   /* overhead loop: the pipe of the next iteration */
};

static volatile long ctx_sink;

struct member { int rd, wr; size_t size; };

static void member_main(void *p)
{
    struct member *m = p;
    long *data = m->size ? malloc(m->size) : NULL;
    /* written, as LMBench's bzero(): untouched memory reads the one shared zero page */
    if (data)
        memset(data, 1, m->size);
    int token;
    for (;;) {
        if (read(m->rd, &token, sizeof token) != sizeof token)
            return;
        ctx_sink += data ? os_bread(data, m->size) : 0;
        if (write(m->wr, &token, sizeof token) != sizeof token)
            return;
    }
}

static int setup_pipes(struct os_case *c, struct ctx_state *st)
{
    for (st->npipes = 0; st->npipes < c->arg; st->npipes++)
        if (pipe(st->pipes[st->npipes]) != 0) {
            snprintf(c->err, sizeof c->err, "pipe: %s", strerror(errno));
            return -1;
        }
    if (c->size) {
        st->data = malloc(c->size);
        if (st->data)
            memset(st->data, 1, c->size);
    }
    return 0;
}

/* the ring: this thread writes pipe 0 and reads pipe procs-1; member k reads k-1, writes k */
static int setup_ring(struct os_case *c)
{
    struct ctx_state *st = calloc(1, sizeof *st);
    c->state = st;
    if (setup_pipes(c, st) != 0)
        return -1;
    for (int k = 1; k < c->arg; k++) {
        struct member m = {st->pipes[k - 1][0], st->pipes[k][1], (size_t)c->size};
        st->pids[st->nprocs] = os_spawn(member_main, &m);
        if (st->pids[st->nprocs] < 0) {
            snprintf(c->err, sizeof c->err, "fork: %s", strerror(errno));
            return -1;
        }
        st->nprocs++;
    }
    return 0;
}

static int setup_overhead(struct os_case *c)
{
    struct ctx_state *st = calloc(1, sizeof *st);
    c->state = st;
    return setup_pipes(c, st);
}

static void teardown(struct os_case *c)
{
    struct ctx_state *st = c->state;
    for (int i = 0; i < st->nprocs; i++)
        os_reap(st->pids[i]);
    for (int i = 0; i < st->npipes; i++) {
        close(st->pipes[i][0]);
        close(st->pipes[i][1]);
    }
    free(st->data);
    free(st);
}

static void ring_body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct ctx_state *st = c->state;
    int token = 1;
    while (reps--) {
        if (write(st->pipes[0][1], &token, sizeof token) != sizeof token
            || read(st->pipes[c->arg - 1][0], &token, sizeof token) != sizeof token)
            OS_FAIL(c, "ring pipe");
        ctx_sink += st->data ? os_bread(st->data, c->size) : 0;
    }
}

static void overhead_body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct ctx_state *st = c->state;
    int token = 1;
    while (reps--) {
        if (write(st->pipes[st->hop][1], &token, sizeof token) != sizeof token
            || read(st->pipes[st->hop][0], &token, sizeof token) != sizeof token)
            OS_FAIL(c, "overhead pipe");
        if (++st->hop == c->arg)
            st->hop = 0;
        ctx_sink += st->data ? os_bread(st->data, c->size) : 0;
    }
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    int n;
    const uint64_t *sizes = kernel_sizes(ctx, "size", &n);
    const int64_t *procs;
    int np;
    procs = kernel_counts(ctx, "procs", &np);
    uint64_t most = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < np; j++)
            if (sizes[i] * (uint64_t)procs[j] > most)
                most = sizes[i] * (uint64_t)procs[j];
    return buffer_fits(ctx, "the largest ring's working sets", most, err, errlen) ? 0 : -1;
}

static int run(struct run_ctx *ctx)
{
    int nsizes, nprocs, rc = 0;
    const uint64_t *sizes = kernel_sizes(ctx, "size", &nsizes);
    const int64_t *procs = kernel_counts(ctx, "procs", &nprocs);
    for (int p = 0; p < nprocs && rc == 0; p++)
        for (int s = 0; s < nsizes && !probe_interrupted() && rc == 0; s++) {
            struct os_case overhead = {.benchmark = "os-ctx", .metric = "latency", .figure = OS_LATENCY_US,
                                       .per_rep = 1, .setup = setup_overhead, .body = overhead_body,
                                       .teardown = teardown, .arg = (int)procs[p], .size = sizes[s]};
            struct os_case c = overhead;
            c.per_rep = (double)procs[p];   /* one token round = procs switches */
            c.setup = setup_ring;
            c.body = ring_body;
            c.baseline = &overhead;
            json_obj_init(&c.params);
            json_obj_uint(&c.params, "procs", (uint64_t)procs[p]);
            json_obj_uint(&c.params, "size", sizes[s]);
            rc = os_run_case(ctx, &c);
        }
    return rc;
}

const struct kernel os_ctx_kernel = {
    .name = "os-ctx",
    .help = "context switch time as LMBench lat_ctx: a token ring of P processes with S-byte working sets (us)",
    .params = params,
    .prepare = prepare,
    .run = run,
};
