/* A job's counts cut or gathered (struct job_events, events.h), for the kernels whose figures
 * are not the samples of one exec_sample loop: os-fs keeps a sample's create pass and delete
 * pass in one job (one set of counters open, never two that would take turns on the PMU) and
 * cuts them apart; align-sweep gathers the rounds of a placement, each its own job, into the
 * placement's record. */
#ifndef PLATPERF_EVENT_POOL_H
#define PLATPERF_EVENT_POOL_H

#include "events.h"

/* A copy holding samples first .. first + n - 1 of je as its samples 0 .. n - 1 (no counter
 * open). NULL for NULL, out of memory or a range je did not keep. */
struct job_events *events_job_slice(const struct job_events *je, int first, int n);
/* The first n kept samples of `from` appended to *into, made on the first call with room for
 * `capacity` samples. 0; 0 for from NULL (nothing counted); -1 when from's counters are not
 * into's (another set opened in another round), there is no room, or out of memory. */
int events_job_pool(struct job_events **into, const struct job_events *from, int n, int capacity);

/* The counts of one record gathered from several jobs (align-sweep: a placement's rounds). */
struct events_pool {
    struct job_events *je;
    int lost;       /* a job counted other counters than the first (one failed to open there) */
};
/* events_job_pool of the first n kept samples of from; on a mismatch the pool is lost. */
void events_pool_add(struct events_pool *pool, const struct job_events *from, int n, int capacity);
/* Inside the record: its "events", sample i divided by iterations[i] (events_jw_record_each). */
void events_pool_jw(const struct events_pool *pool, const char *per, const uint64_t *iterations, int n);
/* After the record: its warnings (events_job_warnings), and events-not-written when the pool
 * was lost, naming `what` was measured ("align-sweep add-chain at offset 16"). */
void events_pool_warnings(const struct events_pool *pool, const char *per, uint64_t iterations,
                          const char *what, int cpu);
void events_pool_free(struct events_pool *pool);

#endif
