/* See aggressors.h for the patterns' definitions. */
#define _GNU_SOURCE
#include "aggressors.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *const names[AGG_PATTERNS] = {
    "none", "way_hammer", "set_crawler", "bw-read", "bw-write", "memcpy",
};

int aggressor_pattern_from_name(const char *name)
{
    for (int p = 0; p < AGG_PATTERNS; p++)
        if (strcmp(name, names[p]) == 0)
            return p;
    return -1;
}

const char *aggressor_pattern_name(int pattern)
{
    return pattern >= 0 && pattern < AGG_PATTERNS ? names[pattern] : "?";
}

const char *aggressor_pattern_choices(void)
{
    return "none|way_hammer|set_crawler|bw-read|bw-write|memcpy";
}

static long read_long(const char *dir, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char text[64] = "";
    long v = -1;
    if (fgets(text, sizeof text, f)) {
        char *end;
        v = strtol(text, &end, 10);
        if (*end == 'K')
            v *= 1024;
        else if (*end == 'M')
            v *= 1024 * 1024;
    }
    fclose(f);
    return v;
}

int cache_geometry_detect(struct cache_geometry *g, const char *cpu_dir)
{
    char cache_dir[512], index_dir[800];
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", cpu_dir);
    long best_level = 0, sets = 0, ways = 0, line = 0, size = 0;
    DIR *d = opendir(cache_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strncmp(e->d_name, "index", 5) != 0)
                continue;
            snprintf(index_dir, sizeof index_dir, "%s/%s", cache_dir, e->d_name);
            char type[32] = "";
            char tpath[900];
            snprintf(tpath, sizeof tpath, "%s/type", index_dir);
            FILE *f = fopen(tpath, "r");
            if (f) {
                if (!fgets(type, sizeof type, f))
                    type[0] = 0;
                fclose(f);
            }
            if (strncmp(type, "Instruction", 11) == 0)
                continue;
            long level = read_long(index_dir, "level");
            if (level <= best_level)
                continue;
            best_level = level;
            sets = read_long(index_dir, "number_of_sets");
            ways = read_long(index_dir, "ways_of_associativity");
            line = read_long(index_dir, "coherency_line_size");
            size = read_long(index_dir, "size");
        }
        closedir(d);
    }
    /* Some Arm kernels give only size and line; derive what is missing when they allow. */
    if (sets <= 0 && size > 0 && ways > 0 && line > 0)
        sets = size / (ways * line);
    if (!g->line && line > 0)
        g->line = (size_t)line;
    if (!g->ways && ways > 0)
        g->ways = (size_t)ways;
    if (!g->sets && sets > 0)
        g->sets = (size_t)sets;
    return g->sets && g->ways && g->line ? 0 : -1;
}

size_t aggressor_buffer_bytes(const struct cache_geometry *g)
{
    return 4 * g->sets * g->ways * g->line;
}

/* One sweep. Without buf it only lists the offsets it would touch (at most max into out),
 * so the tests check the very loops the threads run. Returns the offsets in a sweep. */
static size_t sweep(int pattern, const struct cache_geometry *g, unsigned char *buf, size_t *out,
                    size_t max, uint64_t *sink)
{
    const size_t way_bytes = g->sets * g->line, lines = 4 * g->ways, bytes = aggressor_buffer_bytes(g);
    size_t n = 0;
    uint64_t acc = 0;
    switch (pattern) {
    case AGG_WAY_HAMMER:
        for (size_t set = 0; set < g->sets; set++)
            for (size_t way = 0; way < lines; way++, n++) {
                size_t off = way * way_bytes + set * g->line;
                if (!buf) {
                    if (n < max)
                        out[n] = off;
                } else {
                    acc += *(volatile uint64_t *)(buf + off);
                }
            }
        break;
    case AGG_SET_CRAWLER:
        for (size_t way = 0; way < lines; way++)
            for (size_t set = 0; set < g->sets; set++, n++) {
                size_t off = way * way_bytes + set * g->line;
                if (!buf) {
                    if (n < max)
                        out[n] = off;
                } else {
                    acc += *(volatile uint64_t *)(buf + off);
                }
            }
        break;
    case AGG_BW_READ:
    case AGG_BW_WRITE:
    case AGG_MEMCPY: {
        size_t end = pattern == AGG_MEMCPY ? bytes / 2 : bytes;
        if (!buf) {
            for (size_t off = 0; off < end; off += g->line, n++)
                if (n < max)
                    out[n] = off;
            break;
        }
        n = end / g->line;
        uint64_t *w = (uint64_t *)buf;
        if (pattern == AGG_BW_READ)
            for (size_t i = 0; i < end / 8; i++)
                acc += w[i];
        else if (pattern == AGG_BW_WRITE)
            for (size_t i = 0; i < end / 8; i++)
                w[i] = i;
        else
            memcpy(buf + end, buf, end);
        /* keeps the compiler from dropping the stores as dead */
        __asm__ volatile("" : : "r"(buf) : "memory");
        break;
    }
    default:
        break;
    }
    if (sink)
        *sink += acc;
    return n;
}

size_t aggressor_sequence(int pattern, const struct cache_geometry *g, size_t *out, size_t max)
{
    return sweep(pattern, g, NULL, out, max, NULL);
}

struct aggressor_thread {
    pthread_t thread;
    int cpu, ok;
    struct aggressors *group;
    unsigned char *buf;
    uint64_t sweeps, sink;
};

struct aggressors {
    int pattern, n;
    struct cache_geometry g;
    atomic_int ready;                /* threads that are set up (or failed to be) */
    atomic_int stop;
    struct aggressor_thread t[];
};

static void *aggressor_main(void *arg)
{
    struct aggressor_thread *t = arg;
    struct aggressors *a = t->group;
    size_t bytes = aggressor_buffer_bytes(&a->g);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(t->cpu, &set);
    t->ok = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
    /* allocated and touched on its own CPU: first touch puts the pages on its node */
    void *buf = MAP_FAILED;
    if (t->ok && a->pattern != AGG_NONE) {
        buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
            t->ok = 0;
        } else {
            madvise(buf, bytes, MADV_HUGEPAGE);
            memset(buf, 1, bytes);
            t->buf = buf;
        }
    }
    atomic_fetch_add(&a->ready, 1);
    if (t->ok && t->buf)
        while (!atomic_load_explicit(&a->stop, memory_order_relaxed)) {
            sweep(a->pattern, &a->g, t->buf, NULL, 0, &t->sink);
            t->sweeps++;
        }
    if (t->buf)
        munmap(t->buf, bytes);
    return NULL;
}

struct aggressors *aggressors_start(int pattern, const struct cache_geometry *g, const int *cpus,
                                    int ncpus, char *err, size_t errlen)
{
    if (pattern != AGG_NONE && !(g->sets && g->ways && g->line)) {
        snprintf(err, errlen, "last-level cache geometry unknown; give --cache-sets, "
                 "--cache-ways and --line-size");
        return NULL;
    }
    struct aggressors *a = calloc(1, sizeof *a + (size_t)ncpus * sizeof a->t[0]);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->pattern = pattern;
    a->n = ncpus;
    a->g = *g;
    atomic_init(&a->stop, 0);
    atomic_init(&a->ready, 0);
    int started = 0;
    for (int i = 0; i < ncpus; i++) {
        a->t[i].cpu = cpus[i];
        a->t[i].group = a;
        if (pthread_create(&a->t[i].thread, NULL, aggressor_main, &a->t[i]) != 0)
            break;
        started++;
    }
    a->n = started;
    if (started < ncpus) {
        snprintf(err, errlen, "could not start the aggressor thread for CPU %d", cpus[started]);
        aggressors_stop(a);
        return NULL;
    }
    /* the victim starts only once every aggressor is set up and about to hammer */
    while (atomic_load(&a->ready) < started)
        sched_yield();
    for (int i = 0; i < ncpus; i++)
        if (!a->t[i].ok) {
            snprintf(err, errlen, "aggressor on CPU %d could not be pinned or given its %zu-byte "
                     "buffer", a->t[i].cpu, aggressor_buffer_bytes(g));
            aggressors_stop(a);
            return NULL;
        }
    return a;
}

uint64_t aggressors_stop(struct aggressors *a)
{
    if (!a)
        return 0;
    atomic_store(&a->stop, 1);
    uint64_t sweeps = 0;
    for (int i = 0; i < a->n; i++) {
        pthread_join(a->t[i].thread, NULL);
        sweeps += a->t[i].sweeps;
    }
    free(a);
    return sweeps;
}
