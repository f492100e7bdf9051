#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "counter.h"
#include "jsonl.h"
#include "params.h"

volatile sig_atomic_t probe_signal;

static void on_signal(int sig) { probe_signal = sig; }

void exec_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

int cpus_online(int *out, int max)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    char line[1024];
    int n = -1;
    if (f) {
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            n = parse_cpu_list(line, out, max);
        }
        fclose(f);
    }
    if (n > 0)
        return n;
    /* no sysfs (some containers, qemu-user): the CPUs we may run on */
    cpu_set_t set;
    n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < max; c++)
            if (CPU_ISSET(c, &set))
                out[n++] = c;
    return n;
}

int cpu_is_online(int cpu)
{
    int cpus[PROBE_MAX_CPUS];
    int n = cpus_online(cpus, PROBE_MAX_CPUS);
    for (int i = 0; i < n; i++)
        if (cpus[i] == cpu)
            return 1;
    return 0;
}

/* A barrier whose last arriver also decides, for everybody, whether to go on: threads
 * that looked at probe_signal separately could disagree and leave the others waiting. */
struct start_barrier {
    pthread_mutex_t m;
    pthread_cond_t c;
    int parties, waiting, go;
    unsigned generation;
};

static struct start_barrier barrier = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 1, 0};

static void barrier_release_locked(void)
{
    barrier.waiting = 0;
    barrier.generation++;
    barrier.go = !probe_interrupted();
    pthread_cond_broadcast(&barrier.c);
}

static int barrier_wait(void)
{
    pthread_mutex_lock(&barrier.m);
    unsigned gen = barrier.generation;
    if (++barrier.waiting >= barrier.parties)
        barrier_release_locked();
    else
        while (gen == barrier.generation)
            pthread_cond_wait(&barrier.c, &barrier.m);
    int go = barrier.go;
    pthread_mutex_unlock(&barrier.m);
    return go;
}

/* A job that ends (done or failed) stops counting as a party. */
static void barrier_leave(void)
{
    pthread_mutex_lock(&barrier.m);
    barrier.parties--;
    if (barrier.waiting > 0 && barrier.waiting >= barrier.parties)
        barrier_release_locked();
    pthread_mutex_unlock(&barrier.m);
}

static void *job_thread(void *p)
{
    struct cpu_job *job = p;
    int e = pin_to_cpu(job->cpu);
    if (e) {
        job->status = -1;
        snprintf(job->err, sizeof job->err, "cannot pin to CPU %d: %s", job->cpu, strerror(e));
    } else {
        job->status = job->fn(job);
    }
    if (job->ctx->mode == MODE_PARALLEL)
        barrier_leave();
    return NULL;
}

int exec_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, struct cpu_job *jobs)
{
    pthread_t threads[PROBE_MAX_CPUS];
    for (int i = 0; i < ctx->ncpus; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].ctx = ctx;
        jobs[i].cpu = ctx->cpus[i];
        jobs[i].index = i;
        jobs[i].arg = arg;
        jobs[i].ticks = calloc((size_t)ctx->samples, sizeof(uint64_t));
        jobs[i].kept_preempted = calloc((size_t)ctx->samples, 1);
        jobs[i].kept_stolen = calloc((size_t)ctx->samples, 1);
        jobs[i].fn = fn;
    }
    if (ctx->mode == MODE_SERIAL) {
        /* Serially the calling thread measures itself, pinned in turn to each CPU: the
         * process stays single-threaded, as LMBench's are. In a process with a second
         * thread the kernel takes a reference on the file at every fd system call (fdget
         * on a shared descriptor table): read/write/fstat of one byte cost 20-27% more
         * here, select on 200 sockets twice as much (docs/probe.md). */
        cpu_set_t was;
        int saved = sched_getaffinity(0, sizeof was, &was) == 0;
        for (int i = 0; i < ctx->ncpus; i++)
            if (!probe_interrupted())
                job_thread(&jobs[i]);
        if (saved)
            sched_setaffinity(0, sizeof was, &was);
        return 0;
    }
    barrier.parties = ctx->ncpus;
    barrier.waiting = 0;
    int started = 0;
    for (; started < ctx->ncpus; started++)
        if (pthread_create(&threads[started], NULL, job_thread, &jobs[started]) != 0)
            break;
    if (started < ctx->ncpus) {
        pthread_mutex_lock(&barrier.m);
        barrier.parties -= ctx->ncpus - started;
        if (barrier.waiting > 0 && barrier.waiting >= barrier.parties)
            barrier_release_locked();
        pthread_mutex_unlock(&barrier.m);
    }
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return started == ctx->ncpus ? 0 : -1;
}

void exec_free_jobs(struct run_ctx *ctx, struct cpu_job *jobs)
{
    for (int i = 0; i < ctx->ncpus; i++) {
        free(jobs[i].ticks);
        free(jobs[i].kept_preempted);
        free(jobs[i].kept_stolen);
        jobs[i].ticks = NULL;
        jobs[i].kept_preempted = NULL;
        jobs[i].kept_stolen = NULL;
    }
}

void exec_ready(struct cpu_job *job)
{
    if (job->ctx->mode == MODE_PARALLEL)
        barrier_wait();
}

static uint64_t time_body(timed_body_fn body, void *state, uint64_t reps)
{
    uint64_t t0 = counter_start();
    body(state, reps);
    return counter_stop() - t0;
}

long thread_involuntary_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return ru.ru_nivcsw;
}

long long cpu_steal_ticks(int cpu)
{
    /* Read afresh each time (open, read, close: a test replaces the file while we run).
     * The cpuN lines come first; the buffer holds them up to this CPU's. */
    const char *path = getenv("PLATPERF_PROC_STAT");
    int fd = open(path && *path ? path : "/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[16384];
    size_t want = 256 + 160 * (size_t)(cpu + 2);
    if (want > sizeof buf - 1)
        want = sizeof buf - 1;
    ssize_t n = pread(fd, buf, want, 0);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char label[32];
    snprintf(label, sizeof label, "\ncpu%d ", cpu);
    const char *line = strstr(buf, label);
    if (!line)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    unsigned long long v[8];
    if (sscanf(line + strlen(label), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
        return -1;
    return (long long)v[7];
}

static void thread_switches(long *voluntary, long *involuntary)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *voluntary = *involuntary = -1;
        return;
    }
    *voluntary = ru.ru_nvcsw;
    *involuntary = ru.ru_nivcsw;
}

/* One timing of reps repetitions; *preempted tells whether the scheduler took the CPU
 * away meanwhile, so that the timing includes another task (only preemption the kernel
 * counts; a hypervisor's steal time is invisible here: see sample_attempt). */
static uint64_t time_attempt(timed_body_fn body, void *state, uint64_t reps, int *preempted)
{
    long before = thread_involuntary_switches();
    uint64_t t = time_body(body, state, reps);
    *preempted = before >= 0 && thread_involuntary_switches() != before;
    return t;
}

/* Repetitions for a sample of `target` ticks. The body is timed at growing repetition
 * counts (x10 at most per step) until one unpreempted timing reaches
 * target / CALIBRATION_FRACTION, then the count is scaled to the target, 5% over so a
 * slightly faster sample still reaches it. Timing a whole sample's length here would cost
 * a sample (or SAMPLE_RETAKES + 1 samples when preempted) before anything is measured.
 * The timings add up to about 2.2 x target / CALIBRATION_FRACTION, at most
 * (SAMPLE_RETAKES + 2.2) x that when the last one is preempted (docs/probe.md).
 * *estimate gets the expected length of one sample at the returned count. */
static uint64_t calibrate(struct cpu_job *job, timed_body_fn body, void *state, uint64_t reps,
                          uint64_t target, uint64_t *estimate)
{
    const uint64_t min_reps = reps;
    uint64_t cal_target = target / CALIBRATION_FRACTION;
    uint64_t floor_ticks = SAMPLE_MIN_TICKS + SAMPLE_MIN_TICKS / 2;
    if (cal_target < floor_ticks)
        cal_target = floor_ticks < target ? floor_ticks : target;
    /* the first pass touches everything */
    uint64_t t = time_body(body, state, reps);
    job->cost.calibration_ticks += t;
    while (!probe_interrupted()) {
        int preempted;
        t = time_attempt(body, state, reps, &preempted);
        job->cost.calibration_ticks += t;
        if (t >= cal_target) {
            /* this timing is scaled up to a sample: a preempted one is too long and would
             * make every sample short, so take the fastest of a few (growing steps need no
             * such care: a long one only slows the growth) */
            for (int attempt = 0; preempted && attempt < SAMPLE_RETAKES && !probe_interrupted(); attempt++) {
                uint64_t again = time_attempt(body, state, reps, &preempted);
                job->cost.calibration_ticks += again;
                if (again < t)
                    t = again;
            }
            break;
        }
        double scale = t ? (double)cal_target / (double)t : 10.0;
        if (scale > 10)
            scale = 10;
        uint64_t next = (uint64_t)((double)reps * scale * 1.05) + 1;
        reps = next > reps ? next : reps + 1;
    }
    *estimate = t;
    /* down as well as up: a last timing stretched past the target by the scheduler
     * would otherwise make every sample as long */
    if (t > 0) {
        uint64_t scaled = (uint64_t)ceil((double)reps * (double)target / (double)t * 1.05);
        if (scaled < min_reps)
            scaled = min_reps;
        *estimate = (uint64_t)((double)t * (double)scaled / (double)reps);
        reps = scaled;
    }
    return reps;
}

/* A sample's timing, and whether the hypervisor stole time from the CPU meanwhile
 * (*stolen: the CPU's steal count moved; it moves in USER_HZ ticks, so a steal of a few
 * microseconds shows only when it crosses a tick, and a short sample may miss one). The
 * steal is read outside the timed region. */
static uint64_t sample_attempt(struct cpu_job *job, timed_body_fn body, void *state, uint64_t reps,
                               int *preempted, int *stolen)
{
    long long before = cpu_steal_ticks(job->cpu);
    uint64_t t = time_attempt(body, state, reps, preempted);
    long long after = before >= 0 ? cpu_steal_ticks(job->cpu) : -1;
    *stolen = after > before && before >= 0;
    return t;
}

void exec_sample(struct cpu_job *job, timed_body_fn body, void *state, uint64_t min_reps)
{
    struct run_ctx *ctx = job->ctx;
    const struct counter_info *ci = counter_info();
    double want = ctx->min_time_s * ci->freq_hz;
    /* half as much again above the 1000-tick floor: one sample's length varies a little
     * from the next, and none may fall under the floor */
    uint64_t floor_ticks = SAMPLE_MIN_TICKS + SAMPLE_MIN_TICKS / 2;
    uint64_t target = want > floor_ticks ? (uint64_t)want : floor_ticks;
    uint64_t estimate = 0;
    memset(&job->cost, 0, sizeof job->cost);
    job->cost.target_ticks = target;
    uint64_t reps = calibrate(job, body, state, min_reps ? min_reps : 1, target, &estimate);
    job->reps = reps;
    job->retried = job->preempted = job->steal_retried = 0;

    /* warm-up runs: as long as a sample, but no longer than WARMUP_MAX_S */
    uint64_t warm_reps = reps;
    double warm_max = WARMUP_MAX_S * ci->freq_hz;
    if (estimate > warm_max) {
        warm_reps = (uint64_t)((double)reps * warm_max / (double)estimate);
        if (warm_reps < (min_reps ? min_reps : 1))
            warm_reps = min_reps ? min_reps : 1;
    }
    for (int i = 0; i < ctx->warmup && !probe_interrupted(); i++)
        job->cost.warmup_ticks += time_body(body, state, warm_reps);

    /* Ticks the retaken (discarded) attempts may take: what is left of
     * SAMPLE_COST_FACTOR x samples x target once the samples themselves are paid for. */
    double budget = SAMPLE_COST_FACTOR * ctx->samples * (double)target;
    double retake_budget = budget - (double)ctx->samples * (double)estimate;
    uint64_t discarded = 0, round_start = 0;
    job->cost.sample_estimate_ticks = estimate;
    job->nsamples = 0;
    int restarts = 0;
    long long steal_start = cpu_steal_ticks(job->cpu);
    long csw_vol_start, csw_invol_start;
    thread_switches(&csw_vol_start, &csw_invol_start);
    for (int i = 0; i < ctx->samples; i++) {
        if (ctx->mode == MODE_PARALLEL) {
            if (!barrier_wait())
                break;
        } else if (probe_interrupted()) {
            break;
        }
        int preempted, stolen, retakes = 0;
        uint64_t t;
        for (;;) {
            t = sample_attempt(job, body, state, reps, &preempted, &stolen);
            job->cost.sample_ticks += t;
            if ((!preempted && !stolen) || retakes == SAMPLE_RETAKES || probe_interrupted()
                || (double)(discarded + t) > retake_budget)
                break;
            discarded += t;
            retakes++;
            job->retried++;
            job->steal_retried += stolen;
        }
        job->ticks[i] = t;
        job->kept_preempted[i] = (unsigned char)preempted;
        job->kept_stolen[i] = (unsigned char)stolen;
        job->preempted += preempted;
        job->nsamples = i + 1;
        /* a sample under the floor (the calibration was misled, e.g. by a slow first
         * pass under emulation): lengthen and start the samples again, a few times; what
         * was timed so far counts as calibration */
        if (t < SAMPLE_MIN_TICKS && restarts < 8) {
            restarts++;
            uint64_t factor = 2 * (SAMPLE_MIN_TICKS / (t + 1) + 1);
            reps *= factor;
            estimate *= factor;
            job->reps = reps;
            job->cost.calibration_ticks += job->cost.sample_ticks - round_start;
            job->cost.sample_ticks = round_start;
            job->cost.sample_estimate_ticks = estimate;
            retake_budget = budget - (double)ctx->samples * (double)estimate;
            discarded = 0;
            job->preempted = 0;
            job->steal_retried = 0;
            job->nsamples = 0;
            steal_start = cpu_steal_ticks(job->cpu);
            thread_switches(&csw_vol_start, &csw_invol_start);
            i = -1;
        }
    }
    long long steal_end = steal_start >= 0 ? cpu_steal_ticks(job->cpu) : -1;
    job->steal_ticks = steal_end >= steal_start && steal_start >= 0 ? steal_end - steal_start : -1;
    long csw_vol, csw_invol;
    thread_switches(&csw_vol, &csw_invol);
    job->csw_voluntary = csw_vol_start >= 0 && csw_vol >= 0 ? csw_vol - csw_vol_start : -1;
    job->csw_involuntary = csw_invol_start >= 0 && csw_invol >= 0 ? csw_invol - csw_invol_start : -1;
}

void exec_report_preemption(const struct cpu_job *job)
{
    if (job->preempted) {
        char msg[240];
        snprintf(msg, sizeof msg, "%d of %d samples are kept although preempted (result \"preempted\" "
                 "lists them): each is retaken at most %d times and only while the samples cost under "
                 "%.1fx samples x min-time; the CPU is busy (%d retakes in all)", job->preempted,
                 job->nsamples, SAMPLE_RETAKES, SAMPLE_COST_FACTOR, job->retried);
        emit_warning("sample-preempted", msg, job->cpu);
    }
    int stolen = 0;
    for (int i = 0; i < job->nsamples; i++)
        stolen += job->kept_stolen[i];
    if (stolen) {
        char msg[240];
        snprintf(msg, sizeof msg, "%d of %d samples are kept although the hypervisor stole time from CPU %d "
                 "(result \"steal\" lists them; %d retaken for steal): other guests share this host",
                 stolen, job->nsamples, job->cpu, job->steal_retried);
        emit_warning("sample-steal", msg, job->cpu);
    }
}

/* ,"name":[i,...] for the flagged samples */
static size_t append_indexes(char *s, size_t used, size_t len, const char *name,
                             const unsigned char *flags, int n)
{
    if (used < len)
        used += (size_t)snprintf(s + used, len - used, "\"%s\":[", name);
    int first = 1;
    for (int i = 0; i < n && used < len; i++) {
        if (!flags[i])
            continue;
        used += (size_t)snprintf(s + used, len - used, "%s%d", first ? "" : ",", i);
        first = 0;
    }
    if (used < len)
        used += (size_t)snprintf(s + used, len - used, "]");
    return used;
}

char *exec_cost_json(const struct cpu_job *job)
{
    size_t len = 600 + 24 * (size_t)(job->nsamples > 0 ? job->nsamples : 0);
    char *s = malloc(len);
    if (!s)
        return NULL;
    const struct sample_cost *c = &job->cost;
    size_t used = (size_t)snprintf(s, len, "\"cost\":{\"target_ticks\":%llu,\"sample_estimate_ticks\":%llu,"
                                   "\"calibration_ticks\":%llu,\"warmup_ticks\":%llu,\"sample_ticks\":%llu,"
                                   "\"retakes\":%d},",
                                   (unsigned long long)c->target_ticks, (unsigned long long)c->sample_estimate_ticks,
                                   (unsigned long long)c->calibration_ticks, (unsigned long long)c->warmup_ticks,
                                   (unsigned long long)c->sample_ticks, job->retried);
    used = append_indexes(s, used, len, "preempted", job->kept_preempted, job->nsamples);
    if (job->steal_ticks >= 0 && used < len) {
        used += (size_t)snprintf(s + used, len - used, ",\"steal\":{\"ticks\":%lld,\"retakes\":%d,",
                                 job->steal_ticks, job->steal_retried);
        used = append_indexes(s, used, len, "samples", job->kept_stolen, job->nsamples);
        if (used < len)
            used += (size_t)snprintf(s + used, len - used, "}");
    }
    if (job->csw_voluntary >= 0 && used < len)
        snprintf(s + used, len - used, ",\"context_switches\":{\"voluntary\":%ld,\"involuntary\":%ld}",
                 job->csw_voluntary, job->csw_involuntary);
    return s;
}

int exec_job_outcome(const struct cpu_job *job)
{
    if (job->status != 0) {
        emit_error("cpu-failed", job->err);
        return -1;
    }
    exec_report_preemption(job);
    return job->nsamples > 0;
}

int exec_measure_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, job_emit_fn emit, void *emit_arg)
{
    struct cpu_job *jobs = calloc((size_t)ctx->ncpus, sizeof *jobs);
    int rc = 0;
    if (!jobs || exec_each_cpu(ctx, fn, arg, jobs) != 0) {
        emit_error("thread-failed", "cannot start a measuring thread");
        rc = 1;
    }
    for (int j = 0; jobs && j < ctx->ncpus; j++) {
        int outcome = exec_job_outcome(&jobs[j]);
        if (outcome < 0)
            rc = 1;
        if (outcome > 0 && emit(ctx, &jobs[j], emit_arg) != 0)
            rc = 1;
    }
    if (jobs)
        exec_free_jobs(ctx, jobs);
    free(jobs);
    return rc;
}

struct helper {
    pthread_t thread;
    int cpu;
    helper_fn fn;
    void *arg;
    volatile int stop;
};

static void *helper_thread(void *p)
{
    struct helper *h = p;
    if (pin_to_cpu(h->cpu) == 0)
        h->fn(h->arg, &h->stop);
    return NULL;
}

struct helper *helper_start(int cpu, helper_fn fn, void *arg)
{
    struct helper *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->cpu = cpu;
    h->fn = fn;
    h->arg = arg;
    if (pthread_create(&h->thread, NULL, helper_thread, h) != 0) {
        free(h);
        return NULL;
    }
    return h;
}

void helper_stop(struct helper *h)
{
    if (!h)
        return;
    h->stop = 1;
    pthread_join(h->thread, NULL);
    free(h);
}
