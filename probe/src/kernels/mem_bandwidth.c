/* mem-bandwidth: LMBench bw_mem, STREAM and peak (widest vector) kernels per size, MB/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "bw_claim.h"
#include "bw_loops.h"
#include "cache.h"
#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "params.h"
#include "timed_loops.h"

#define MAX_SIZES 256
#define MAX_KERNELS 32

struct bw_run {
    void *buf[3];
    uint64_t bytes;   /* of each buffer */
};

struct bw_kernel {
    const char *name;
    int nbuf;              /* buffers of `size` bytes each */
    unsigned counted;      /* bytes counted per pass = counted * size (docs/probe.md) */
    void (*pass)(struct bw_run *r, uint64_t passes);
    int peak;              /* the peak loop it is (0 read, 1 write, 2 copy: bw_claim.h), else -1 */
};

static volatile unsigned sum_sink;   /* the read kernels' sums go here so they stay live */

static void k_rd(struct bw_run *r, uint64_t n) { sum_sink += lmb_rd(r->buf[0], r->bytes, n); }
static void k_wr(struct bw_run *r, uint64_t n) { lmb_wr(r->buf[0], r->bytes, n); }
static void k_rdwr(struct bw_run *r, uint64_t n) { sum_sink += lmb_rdwr(r->buf[0], r->bytes, n); }
static void k_cp(struct bw_run *r, uint64_t n) { lmb_cp(r->buf[1], r->buf[0], r->bytes, n); }
static void k_frd(struct bw_run *r, uint64_t n) { sum_sink += lmb_frd(r->buf[0], r->bytes, n); }
static void k_fwr(struct bw_run *r, uint64_t n) { lmb_fwr(r->buf[0], r->bytes, n); }
static void k_fcp(struct bw_run *r, uint64_t n) { lmb_fcp(r->buf[1], r->buf[0], r->bytes, n); }
static void k_bzero(struct bw_run *r, uint64_t n) { lmb_bzero(r->buf[0], r->bytes, n); }
static void k_bcopy(struct bw_run *r, uint64_t n) { lmb_bcopy(r->buf[1], r->buf[0], r->bytes, n); }
/* STREAM arrays: buf[0] = a, buf[1] = b, buf[2] = c */
static void k_copy(struct bw_run *r, uint64_t n) { stream_copy(r->buf[2], r->buf[0], r->bytes / 8, n); }
static void k_scale(struct bw_run *r, uint64_t n) { stream_scale(r->buf[1], r->buf[2], r->bytes / 8, n); }
static void k_add(struct bw_run *r, uint64_t n) { stream_add(r->buf[2], r->buf[0], r->buf[1], r->bytes / 8, n); }
static void k_triad(struct bw_run *r, uint64_t n) { stream_triad(r->buf[0], r->buf[1], r->buf[2], r->bytes / 8, n); }
static void k_peak_read(struct bw_run *r, uint64_t n) { pp_peak_read(r->buf[0], r->bytes, n); }
static void k_peak_write(struct bw_run *r, uint64_t n) { pp_peak_write(r->buf[0], r->bytes, n); }
static void k_peak_copy(struct bw_run *r, uint64_t n) { pp_peak_copy(r->buf[1], r->buf[0], r->bytes, n); }

/* LMBench counts the buffer size once for every kernel, copies included; STREAM and the
 * peak copy count bytes read plus bytes written. */
static const struct bw_kernel bw_kernels[] = {
    {"rd", 1, 1, k_rd, -1},       {"wr", 1, 1, k_wr, -1},       {"rdwr", 1, 1, k_rdwr, -1},
    {"cp", 2, 1, k_cp, -1},       {"frd", 1, 1, k_frd, -1},     {"fwr", 1, 1, k_fwr, -1},
    {"fcp", 2, 1, k_fcp, -1},     {"bzero", 1, 1, k_bzero, -1}, {"bcopy", 2, 1, k_bcopy, -1},
    {"copy", 3, 2, k_copy, -1},   {"scale", 3, 2, k_scale, -1}, {"add", 3, 3, k_add, -1},
    {"triad", 3, 3, k_triad, -1},
    {"peak-read", 1, 1, k_peak_read, 0}, {"peak-write", 1, 1, k_peak_write, 1},
    {"peak-copy", 2, 2, k_peak_copy, 2},
};
#define NKERNELS (sizeof bw_kernels / sizeof bw_kernels[0])

static const char *const kernel_choices[] = {
    "rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy",
    "copy", "scale", "add", "triad", "peak-read", "peak-write", "peak-copy", NULL};

static const struct kernel_param params[] = {
    {"kernel", "rd,wr,rdwr,cp,frd,fwr,fcp,bzero,bcopy,copy,scale,add,triad,peak-read,peak-write,peak-copy",
     kernel_choices, "access patterns to run (docs/probe.md has bytes per pass of each)", .list = true,
     .kind = PARAM_CHOICE},
    {"size", "1m,2m,4m,8m,16m", NULL,
     "bytes of each buffer, e.g. 16k,8m; auto: 1 KiB to 4x the last-level cache, 4 per octave", .list = true,
     .kind = PARAM_SIZE_LIST, .min = LMBENCH_CHUNK, .keyword = "auto"},
    {"isa", "auto", peak_isa_choices,
     "vector width of the peak kernels; auto: the fastest this CPU has (meta.peak_isa)", .kind = PARAM_CHOICE},
    {NULL},
};

struct bw_plan {
    const struct bw_kernel *kernels[MAX_KERNELS];
    int nkernels;
    uint64_t sizes[MAX_SIZES];
    int nsizes;
    const char *isa;   /* given --isa, or NULL for auto */
};

struct bw_point {
    const struct bw_kernel *k;
    uint64_t size;
    struct page_backing *backing;   /* one per job (job->index) */
};

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct bw_plan *plan = calloc(1, sizeof *plan);
    int n;
    const int *chosen = kernel_choice_list(ctx, "kernel", &n);
    for (int i = 0; i < n && plan->nkernels < MAX_KERNELS; i++)
        plan->kernels[plan->nkernels++] = &bw_kernels[chosen[i]];   /* kernel_choices[i] is bw_kernels[i] */
    const char *isa = kernel_value(ctx, "isa");
    if (peak_select(isa) != 0) {
        snprintf(err, errlen, "mem-bandwidth: --isa %s is not supported by this CPU (valid: auto or one it has)", isa);
        free(plan);
        return -1;
    }
    /* an explicit width is part of what was measured; auto stays out of the key */
    plan->isa = strcmp(isa, "auto") == 0 ? NULL : isa;
    const uint64_t *sizes = kernel_sizes(ctx, "size", &plan->nsizes);
    if (plan->nsizes == 0) {   /* auto */
        uint64_t llc = cache_llc_size(ctx->cpus[0], 8u << 20);
        plan->nsizes = size_sweep(1024, 4 * llc, 4, LMBENCH_CHUNK, plan->sizes, MAX_SIZES);
    } else {
        memcpy(plan->sizes, sizes, sizeof(uint64_t) * (size_t)plan->nsizes);
    }
    int most_buffers = 1;
    for (int k = 0; k < plan->nkernels; k++)
        if (plan->kernels[k]->nbuf > most_buffers)
            most_buffers = plan->kernels[k]->nbuf;
    /* whole 512-byte chunks: bw_mem's inner iteration and the peak kernels' block */
    for (int i = 0; i < plan->nsizes; i++)
        plan->sizes[i] = plan->sizes[i] / LMBENCH_CHUNK * LMBENCH_CHUNK;
    if (buffer_check_sizes(ctx, "mem-bandwidth", plan->sizes, plan->nsizes, most_buffers, err, errlen) != 0) {
        free(plan);
        return -1;
    }
    ctx->kernel_state = plan;
    return 0;
}

_Static_assert(sizeof kernel_choices / sizeof kernel_choices[0] == NKERNELS + 1, "one choice per bw_kernels row");

struct bw_state {
    struct bw_run run;
    const struct bw_kernel *k;
};

static void pass_body(void *state, uint64_t passes)
{
    struct bw_state *st = state;
    st->k->pass(&st->run, passes);
}

static int measure_on_cpu(struct cpu_job *job)
{
    const struct bw_point *pt = job->arg;
    struct bw_state st = {{{NULL, NULL, NULL}, pt->size}, pt->k};
    void *mapping = buffer_alloc(pt->size, pt->k->nbuf, st.run.buf);
    if (!mapping) {
        snprintf(job->err, sizeof job->err, "cannot map %d x %llu bytes", pt->k->nbuf, (unsigned long long)pt->size);
        exec_ready(job);
        return -1;
    }
    buffer_backing(mapping, pt->size, pt->k->nbuf, &pt->backing[job->index]);
    if (pt->k->nbuf == 3) {   /* STREAM's initial values: a = 1, b = 2, c = 0 */
        for (uint64_t j = 0; j < pt->size / 8; j++) {
            ((double *)st.run.buf[0])[j] = 1.0;
            ((double *)st.run.buf[1])[j] = 2.0;
        }
    }
    job->events_per = "byte";   /* iterations: the bytes counted (STREAM's and bw_mem's count) */
    if (pt->k->peak >= 0)   /* what the loop's own code says a counted byte holds */
        job->events_expected = peak_expected(pt->k->peak, pt->size, pt->k->counted);
    exec_ready(job);
    exec_sample(job, pass_body, &st, 1);
    buffer_free(mapping, pt->size, pt->k->nbuf);
    return 0;
}

struct bw_emit {
    const struct bw_point *pt;
    const char *params;
    double *mbs;
};

static int emit_point(struct run_ctx *ctx, struct cpu_job *job, void *arg)
{
    const struct bw_emit *e = arg;
    uint64_t bytes = e->pt->k->counted * e->pt->size * job->reps;
    for (int i = 0; i < job->nsamples; i++)   /* bytes per ns = GB/s; x1000 = MB/s */
        e->mbs[i] = (double)bytes / ticks_to_ns(job->ticks[i]) * 1e3;
    struct result_record r = {"mem-bandwidth", e->params, job->cpu, "bandwidth", "MB/s", "higher",
                              e->mbs, job->nsamples, bytes, job->ticks, job, NULL};
    emit_record_with(ctx, &r, jw_page_backing, &e->pt->backing[job->index]);
    return 0;
}

static int run(struct run_ctx *ctx)
{
    struct bw_plan *plan = ctx->kernel_state;
    double *mbs = malloc(sizeof(double) * (size_t)ctx->samples);
    struct page_backing *backing = calloc((size_t)ctx->ncpus, sizeof *backing);
    int rc = 0;
    for (int k = 0; k < plan->nkernels && rc == 0; k++) {
        for (int s = 0; s < plan->nsizes && !probe_interrupted() && rc == 0; s++) {
            struct bw_point pt = {plan->kernels[k], plan->sizes[s], backing};
            struct json_obj params;
            json_obj_init(&params);
            if (plan->isa && strncmp(pt.k->name, "peak-", 5) == 0)
                json_obj_str(&params, "isa", plan->isa);
            json_obj_str(&params, "kernel", pt.k->name);
            json_obj_uint(&params, "size", pt.size);
            struct bw_emit e = {&pt, params.text, mbs};
            rc = measure_each_cpu(ctx, measure_on_cpu, &pt, emit_point, &e);
        }
    }
    free(mbs);
    free(backing);
    free(plan);
    return rc;
}

const struct kernel mem_bandwidth_kernel = {
    .name = "mem-bandwidth",
    .help = "memory bandwidth per size: LMBench bw_mem, STREAM and peak vector kernels (MB/s)",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};
