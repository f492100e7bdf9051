/* A job's counts cut or gathered (event_pool.h). */
#include "event_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

/* Samples [first, first + n) of from to `at` of into: counts, then each group's times. */
static void move_samples(struct job_events *into, int at, const struct job_events *from, int first, int n)
{
    size_t e = (size_t)from->n, g = (size_t)from->ngroups;
    memmove(into->count + (size_t)at * e, from->count + (size_t)first * e, sizeof *into->count * (size_t)n * e);
    memmove(into->enabled + (size_t)at * g, from->enabled + (size_t)first * g, sizeof *into->enabled * (size_t)n * g);
    memmove(into->running + (size_t)at * g, from->running + (size_t)first * g, sizeof *into->running * (size_t)n * g);
}

struct job_events *events_job_slice(const struct job_events *je, int first, int n)
{
    if (!je || first < 0 || n < 0 || first + n > je->kept)
        return NULL;
    struct job_events *slice = events_job_copy(je);
    if (!slice)
        return NULL;
    move_samples(slice, 0, slice, first, n);
    slice->kept = n;
    return slice;
}

/* The same counters, in the same groups and places of their reads. */
static int same_counters(const struct job_events *a, const struct job_events *b)
{
    if (a->n != b->n || a->ngroups != b->ngroups)
        return 0;
    for (int e = 0; e < a->n; e++)
        if (a->def[e] != b->def[e] || a->group[e] != b->group[e] || a->slot[e] != b->slot[e])
            return 0;
    return 1;
}

static struct job_events *empty_like(const struct job_events *from, int capacity)
{
    struct job_events *je = malloc(sizeof *je);
    if (!je)
        return NULL;
    *je = *from;
    for (int e = 0; e < je->n; e++)
        je->fd[e] = -1;
    je->samples = capacity;
    je->kept = 0;
    je->count = calloc((size_t)capacity * (size_t)(je->n ? je->n : 1), sizeof *je->count);
    je->enabled = calloc((size_t)capacity * (size_t)(je->ngroups ? je->ngroups : 1), sizeof *je->enabled);
    je->running = calloc((size_t)capacity * (size_t)(je->ngroups ? je->ngroups : 1), sizeof *je->running);
    if (je->count && je->enabled && je->running)
        return je;
    events_job_free(je);
    return NULL;
}

int events_job_pool(struct job_events **into, const struct job_events *from, int n, int capacity)
{
    if (!from)
        return 0;
    if (n > from->kept)
        n = from->kept;
    if (!*into && !(*into = empty_like(from, capacity)))
        return -1;
    struct job_events *pool = *into;
    if (!same_counters(pool, from) || pool->kept + n > pool->samples)
        return -1;
    move_samples(pool, pool->kept, from, 0, n);
    pool->kept += n;
    return 0;
}

void events_pool_add(struct events_pool *pool, const struct job_events *from, int n, int capacity)
{
    if (!pool->lost && events_job_pool(&pool->je, from, n, capacity) != 0)
        pool->lost = 1;
}

void events_pool_jw(const struct events_pool *pool, const char *per, const uint64_t *iterations, int n)
{
    if (!pool->lost)
        events_jw_record_each(pool->je, per, iterations, n);
}

void events_pool_warnings(const struct events_pool *pool, const char *per, uint64_t iterations,
                          const char *what, int cpu)
{
    if (pool->lost) {
        char msg[240];
        snprintf(msg, sizeof msg, "%s: its jobs counted different counters (one could not be opened in "
                 "one of them): their counts are not written", what);
        jw_warning("events-not-written", msg, cpu);
        return;
    }
    events_job_warnings(pool->je, per, iterations);
}

void events_pool_free(struct events_pool *pool)
{
    events_job_free(pool->je);
    pool->je = NULL;
    pool->lost = 0;
}
