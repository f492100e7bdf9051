/* first-touch: the first write to fresh anonymous pages. Each repetition maps `size` bytes
 * (mmap MAP_PRIVATE|MAP_ANONYMOUS, MADV_NOHUGEPAGE so every page is its own base page), writes
 * one byte of each in address order, and unmaps them: each write is one page fault that
 * allocates and zeroes a page. ns per page, the mmap and munmap included (docs/probe.md).
 *
 * Its known answer (tests/probe/test_probe_events.py): with --events page_faults, one page
 * fault per page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buffer.h"
#include "exec.h"
#include "kernel.h"
#include "op_latency.h"
#include "record.h"

static const struct kernel_param params[] = {
    {"size", "1m", NULL, "bytes mapped, touched (a byte a page) and unmapped in each repetition, "
     "whole pages", .kind = PARAM_SIZE, .min = 4096, .max = 1ull << 32},
    {NULL},
};

struct touch_state {
    size_t pages, page;
    int failed;            /* an mmap failed inside the timed body: its errno */
};

static volatile char touch_sink;

static void touch_body(void *state, uint64_t reps)
{
    struct touch_state *st = state;
    size_t bytes = st->pages * st->page;
    for (uint64_t r = 0; r < reps; r++) {
        char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            st->failed = 1;
            return;
        }
        /* a huge page would take all the faults of its 512 base pages in one */
        madvise(p, bytes, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < st->pages; i++)
            p[i * st->page] = (char)i;
        touch_sink = p[bytes - st->page];
        munmap(p, bytes);
    }
}

static uint64_t pages_of(const struct run_ctx *ctx)
{
    return kernel_size(ctx, "size") / page_size();
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    if (kernel_size(ctx, "size") % page_size()) {
        snprintf(err, errlen, "first-touch: --size '%s' is not valid (valid: a multiple of the page size, "
                 "%zu bytes, e.g. 1m)", kernel_value(ctx, "size"), page_size());
        return -1;
    }
    char what[64];
    snprintf(what, sizeof what, "size %llu", (unsigned long long)kernel_size(ctx, "size"));
    return buffer_fits(ctx, what, kernel_size(ctx, "size"), err, errlen) ? 0 : -1;
}

static int measure_on_cpu(struct cpu_job *job)
{
    struct touch_state st = {(size_t)pages_of(job->ctx), page_size(), 0};
    job->events_per = "page";   /* iterations: the pages touched */
    exec_ready(job);
    exec_sample(job, touch_body, &st, 1);
    if (st.failed) {
        snprintf(job->err, sizeof job->err, "cannot map %zu pages of %zu bytes", st.pages, st.page);
        return -1;
    }
    return 0;
}

static int emit_job(struct run_ctx *ctx, struct cpu_job *job, void *params_json)
{
    emit_job_op_latency(ctx, "first-touch", params_json, job, NULL,
                        job->reps * pages_of(ctx), NULL, NULL);
    return 0;
}

static int run(struct run_ctx *ctx)
{
    struct json_obj params;
    json_obj_init(&params);
    json_obj_uint(&params, "size", kernel_size(ctx, "size"));
    json_obj_uint(&params, "page_size", page_size());
    return measure_each_cpu(ctx, measure_on_cpu, NULL, emit_job, params.text);
}

const struct kernel first_touch_kernel = {
    .name = "first-touch",
    .help = "first write to fresh anonymous pages: mmap, one byte per page, munmap (ns per page)",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};
