/* probe-selfcheck's fake counters (counter_fakes.c). */
#ifndef PLATPERF_COUNTER_FAKES_H
#define PLATPERF_COUNTER_FAKES_H

/* The step found over each fake counter, several starts each; prints a FAIL line per wrong
 * one and returns how many. */
int counter_fake_checks(void);

#endif
