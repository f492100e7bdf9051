#include "exec.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "events.h"
#include "params.h"


volatile sig_atomic_t probe_signal;

static void on_signal(int sig) { probe_signal = sig; }

/* A probe platperf started on its own machine dies with it: platperf killed by SIGKILL runs no
 * code to stop it, and a probe whose next write is seconds away (one long sample) would run on
 * until that write met the closed pipe. Linux's PR_SET_PDEATHSIG kills it when its parent
 * goes; platperf's pid in $PLATPERF_PARENT_PID closes the race of a parent gone before the
 * prctl. A fork (the sysfs guardian) does not inherit it: the guardian outlives the probe on
 * purpose. On a board the probe's parent is the SSH session, whose end closes its pipe. */
static void die_with_parent(void)
{
    const char *text = getenv("PLATPERF_PARENT_PID");
    char *end;
    long parent = text ? strtol(text, &end, 10) : 0;
    if (!text || *end || parent <= 1)
        return;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != (pid_t)parent)
        raise(SIGKILL);
}

void exec_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    die_with_parent();
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

int exec_barrier(void)
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
        events_job_free(jobs[i].events);
        jobs[i].events = NULL;
    }
}

static unsigned char *copy_marks(const unsigned char *marks, int n)
{
    unsigned char *copy = malloc((size_t)(n > 0 ? n : 1));
    if (copy && n > 0)
        memcpy(copy, marks, (size_t)n);
    return copy;
}

int exec_keep_account(struct cpu_job *copy, const struct cpu_job *job)
{
    *copy = *job;
    copy->ticks = NULL;
    copy->kept_preempted = copy_marks(job->kept_preempted, job->nsamples);
    copy->kept_stolen = copy_marks(job->kept_stolen, job->nsamples);
    copy->events = events_job_copy(job->events);
    if (copy->kept_preempted && copy->kept_stolen && (copy->events || !job->events))
        return 0;
    exec_free_account(copy);
    return -1;
}

void exec_free_account(struct cpu_job *copy)
{
    free(copy->kept_preempted);
    free(copy->kept_stolen);
    events_job_free(copy->events);
    copy->kept_preempted = copy->kept_stolen = NULL;
    copy->events = NULL;
}

void exec_ready(struct cpu_job *job)
{
    if (job->ctx->mode == MODE_PARALLEL)
        exec_barrier();
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
