/* instr_example: platperf_instr.h in a program shaped like TF-A's PSCI power-down path.
 *
 * On each CPU in turn (pinned), `rounds` times: ENTER_PSCI, a cache flush (ENTER_CFLUSH ..
 * EXIT_CFLUSH: write back a 256 KiB buffer), ENTER_HW_LOW_PWR, a 200 us sleep standing for
 * the low-power state, EXIT_HW_LOW_PWR, EXIT_PSCI — the points TF-A's PMF timestamps.
 * instr_example.toml names the intervals TF-A publishes (powerdown, wakeup, cache_flush).
 *
 *   cc -O2 -I probe/include probe/examples/instr_example.c -o instr_example
 *   ./instr_example 20 > points.jsonl
 *   platperf ingest instr points.jsonl --intervals probe/examples/instr_example.toml --label demo
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platperf_instr.h"

#define FLUSH_BYTES (256 * 1024)

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "instr_example: rounds '%s' is not valid (valid: 1 to 100000, e.g. 20)\n", argv[1]);
        return 2;
    }
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    int ncpus = CPU_COUNT(&allowed);
    static struct pp_instr_log log;
    static char buffer[FLUSH_BYTES];
    if (pp_instr_init(&log, (size_t)ncpus * (size_t)rounds * 6) != 0) {
        fprintf(stderr, "instr_example: out of memory for %d rounds\n", rounds);
        return 1;
    }
    struct timespec low_power = {0, 200000};
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        pin(cpu);
        for (int r = 0; r < rounds; r++) {
            pp_instr_point(&log, "ENTER_PSCI");
            pp_instr_point(&log, "ENTER_CFLUSH");
            memset(buffer, r, sizeof buffer);
            __asm__ volatile("" : : "r"(buffer) : "memory");
            pp_instr_point(&log, "EXIT_CFLUSH");
            pp_instr_point(&log, "ENTER_HW_LOW_PWR");
            nanosleep(&low_power, NULL);
            pp_instr_point(&log, "EXIT_HW_LOW_PWR");
            pp_instr_point(&log, "EXIT_PSCI");
        }
    }
    int rc = pp_instr_write(&log, stdout, "instr_example") == 0 ? 0 : 1;
    pp_instr_free(&log);
    return rc;
}
