/* os-fs: LMBench lat_fs, files created and deleted per second, per file size, in a
 * directory of the run's scratch directory (--dir). A create is open(O_CREAT) + writing
 * `size` bytes + close; a delete is unlink. Each sample creates N files (timed) then
 * deletes them (timed), N grown until a create pass lasts --min-time, so both figures come
 * from the same files; LMBench times the two in separate benchmp runs.
 *
 * --events: each pass is read on its own, around its timed part, with one set of counters
 * (the create pass's counts kept at sample i, the delete pass's at samples + i), and each
 * figure carries its pass's counts per file (`iterations`: N). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counter.h"
#include "event_pool.h"
#include "kernels/os_common.h"
#include "scratch.h"

#define MAX_FILES 200000

static const struct kernel_param params[] = {
    {"size", "0,1k,4k,10k", NULL, "bytes written to each file (TI's rows: lat_fs-0k/1k/4k/10k)", .list = true,
     .kind = PARAM_SIZE_LIST, .min = 0, .max = 1 << 20},
    {NULL},
};

struct fs_job {
    uint64_t size;
    uint64_t *create_ticks, *delete_ticks;
    uint64_t files;
    struct job_events *events;   /* --events: create pass at sample i, delete pass at samples + i */
};

static char fs_data[1 << 20];

static int create_files(const char *dir, uint64_t n, uint64_t size, uint64_t *ticks)
{
    char path[1200];
    uint64_t t0 = counter_start();
    for (uint64_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%llu", dir, (unsigned long long)i);
        int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0666);
        if (fd < 0)
            return -1;
        if (size && write(fd, fs_data, size) != (ssize_t)size) {
            close(fd);
            return -1;
        }
        close(fd);
    }
    *ticks = counter_stop() - t0;
    return 0;
}

static int delete_files(const char *dir, uint64_t n, uint64_t *ticks)
{
    char path[1200];
    uint64_t t0 = counter_start();
    for (uint64_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%llu", dir, (unsigned long long)i);
        if (unlink(path) != 0)
            return -1;
    }
    *ticks = counter_stop() - t0;
    return 0;
}

static int fs_cpu(struct cpu_job *job)
{
    struct fs_job *fj = &((struct fs_job *)job->arg)[job->index];
    struct run_ctx *ctx = job->ctx;
    char dir[1100], name[32];
    snprintf(name, sizeof name, "fs-cpu%d", job->cpu);
    if (scratch_path(dir, sizeof dir, name) != 0 || (mkdir(dir, 0700) != 0 && errno != EEXIST)) {
        snprintf(job->err, sizeof job->err, "cannot make a directory in the scratch directory: %s", strerror(errno));
        exec_ready(job);
        return -1;
    }
    double want = ctx->min_time_s * counter_info()->freq_hz;
    if (want < sample_min_ticks() * 1.5)
        want = sample_min_ticks() * 1.5;
    uint64_t n = 16, t, d;
    exec_ready(job);
    for (;;) {   /* grow N until a create pass is a sample long */
        if (create_files(dir, n, fj->size, &t) != 0 || delete_files(dir, n, &d) != 0)
            goto failed;
        if ((double)t >= want || n >= MAX_FILES || probe_interrupted())
            break;
        double scale = (double)t > 0 ? want / (double)t * 1.1 : 10;
        n = (uint64_t)((double)n * (scale > 10 ? 10 : scale < 1.5 ? 1.5 : scale));
        if (n > MAX_FILES)
            n = MAX_FILES;
    }
    fj->files = n;
    events_job_start(&fj->events, job->cpu, 2 * ctx->samples);
    for (int i = 0; i < ctx->samples && !probe_interrupted(); i++) {
        /* the counters are read outside each timed pass (events.h) */
        events_begin(fj->events);
        int failed = create_files(dir, n, fj->size, &fj->create_ticks[i]);
        events_end(fj->events);
        events_keep(fj->events, i);
        events_begin(fj->events);
        failed = failed || delete_files(dir, n, &fj->delete_ticks[i]);
        events_end(fj->events);
        events_keep(fj->events, ctx->samples + i);
        if (failed)
            goto failed;
        job->nsamples = i + 1;
    }
    events_job_stop(fj->events);
    rmdir(dir);
    return 0;
failed:
    events_job_stop(fj->events);
    snprintf(job->err, sizeof job->err, "os-fs: cannot create or delete files in the scratch directory: %s",
             strerror(errno));
    return -1;
}

/* A pass's counts, written inside its record: per file, `files` of them a sample. */
struct pass_events {
    const struct job_events *je;
    uint64_t files;
    int n;
};

static void write_pass_events(const void *arg)
{
    const struct pass_events *pe = arg;
    events_jw_record(pe->je, "file", pe->files, pe->n, NULL);
}

/* The create (pass 0) or delete (pass 1) figure of one job, with that pass's counts. */
static void emit_pass(struct run_ctx *ctx, const struct cpu_job *job, const struct fs_job *fj, int pass,
                      const char *params, double *values)
{
    const uint64_t *ticks = pass ? fj->delete_ticks : fj->create_ticks;
    for (int i = 0; i < job->nsamples; i++)
        values[i] = (double)fj->files / ticks_to_ns(ticks[i]) * 1e9;
    struct result_record r = {"os-fs", params, job->cpu, pass ? "delete" : "create", "files/s",
                              "higher", values, job->nsamples, fj->files, ticks, NULL, NULL};
    struct pass_events pe = {events_job_slice(fj->events, pass ? ctx->samples : 0, job->nsamples),
                             fj->files, job->nsamples};
    emit_record_with(ctx, &r, write_pass_events, &pe);
    events_job_warnings(pe.je, "file", fj->files);
    events_job_free((struct job_events *)pe.je);
}

static int run(struct run_ctx *ctx)
{
    int nsizes, rc = 0;
    const uint64_t *sizes = kernel_sizes(ctx, "size", &nsizes);
    struct cpu_job *jobs = calloc((size_t)ctx->ncpus, sizeof *jobs);
    struct fs_job *fjs = calloc((size_t)ctx->ncpus, sizeof *fjs);
    double *values = malloc(sizeof(double) * (size_t)ctx->samples);
    for (int s = 0; s < nsizes && !probe_interrupted() && rc == 0; s++) {
        for (int j = 0; j < ctx->ncpus; j++) {
            fjs[j].size = sizes[s];
            fjs[j].create_ticks = calloc((size_t)ctx->samples, sizeof(uint64_t));
            fjs[j].delete_ticks = calloc((size_t)ctx->samples, sizeof(uint64_t));
        }
        if (exec_each_cpu(ctx, fs_cpu, fjs, jobs) != 0) {
            emit_error("thread-failed", "cannot start a measuring thread");
            rc = 1;
        }
        struct json_obj params;
        json_obj_init(&params);
        json_obj_uint(&params, "size", sizes[s]);
        for (int j = 0; j < ctx->ncpus; j++) {
            struct cpu_job *job = &jobs[j];
            if (job->status != 0) {
                emit_warning("os-unsupported", job->err, job->cpu);
                continue;
            }
            for (int pass = 0; pass < 2 && job->nsamples > 0; pass++)
                emit_pass(ctx, job, &fjs[j], pass, params.text, values);
        }
        for (int j = 0; j < ctx->ncpus; j++) {
            free(fjs[j].create_ticks);
            free(fjs[j].delete_ticks);
            events_job_free(fjs[j].events);
            fjs[j].events = NULL;
        }
        exec_free_jobs(ctx, jobs);
    }
    free(values);
    free(fjs);
    free(jobs);
    return rc;
}

const struct kernel os_fs_kernel = {
    .name = "os-fs",
    .help = "file system create and delete rates as LMBench lat_fs (files per second)",
    .params = params,
    .run = run,
};
