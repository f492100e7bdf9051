/* probe-selfcheck: the counter's step found over fake counters (counter_step.c,
 * counter_measure_step_with), the same every time: a counter that moves 2 ticks at a time
 * (a Xeon's TSC read 0 odd differences in 2,000,000, and `platperf-probe info` said 1 tick
 * twice and 2 once within a minute) reads 2 on every start, an odd difference now and then
 * included; a fine counter 1; a hypervisor's 26-tick steps 26; a fractional 24.45-tick step,
 * also read as multiples of 8, about 24.45. Each fake is a simulated clock whose reads come
 * 30 to 189 ticks apart (pseudo-random: the spread that delays between reads give), shown
 * as the counter would show it. */
#include "counter_fakes.h"

#include <math.h>
#include <stdio.h>

#include "counter_step.h"

static uint64_t sim_t, sim_lcg, sim_reads;

static uint64_t sim_advance(void)
{
    sim_lcg = sim_lcg * 6364136223846793005ull + 1442695040888963407ull;
    sim_t += 30 + (sim_lcg >> 33) % 160;
    sim_reads++;
    return sim_t;
}

static uint64_t fake_fine(void) { return sim_advance(); }

/* 2-tick granularity; one read in 1000 odd (each makes two odd differences: 0.2 %) */
static uint64_t fake_even(void)
{
    uint64_t t = sim_advance() & ~1ull;
    return sim_reads % 1000 == 0 ? t + 1 : t;
}

static uint64_t fake_26(void)
{
    uint64_t t = sim_advance();
    return t - t % 26;
}

static uint64_t fake_2445(void) { return (uint64_t)(floor((double)sim_advance() / 24.45) * 24.45); }

static uint64_t fake_2445_by8(void)
{
    uint64_t v = fake_2445();
    return v - v % 8;
}

static double step_of(uint64_t (*read)(void), uint64_t seed, struct counter_info *ci)
{
    sim_t = 1000000;
    sim_lcg = seed;
    sim_reads = 0;
    *ci = (struct counter_info){.name = "fake", .freq_hz = 1e9, .freq_source = "nominal"};
    return counter_measure_step_with(ci, read);
}

int counter_fake_checks(void)
{
    static const struct {
        const char *name;
        uint64_t (*read)(void);
        double step, within;
        int starts;
    } fakes[] = {
        {"a 2-tick counter with an odd difference now and then", fake_even, 2, 0, 20},
        {"a fine counter", fake_fine, 1, 0, 5},
        {"a 26-tick step", fake_26, 26, 0, 5},
        {"a 24.45-tick step", fake_2445, 24.45, 0.5, 5},
        {"a 24.45-tick step read as multiples of 8", fake_2445_by8, 24.45, 1.0, 5},
    };
    int failed = 0;
    for (size_t f = 0; f < sizeof fakes / sizeof fakes[0]; f++)
        for (int s = 0; s < fakes[f].starts; s++) {
            struct counter_info ci;
            double step = step_of(fakes[f].read, 12345 + 7919 * (uint64_t)s, &ci);
            int ok = fabs(step - fakes[f].step) <= fakes[f].within + 1e-9
                     && ci.read_overhead_ticks >= 1 && ci.read_overhead_ticks <= 30
                     && ci.overhead_pairs >= ci.pairs;
            if (!ok) {
                printf("FAIL the step of %s, start %d: %.3f ticks (expected %.2f), read overhead %llu "
                       "ticks over %llu pairs\n", fakes[f].name, s, step, fakes[f].step,
                       (unsigned long long)ci.read_overhead_ticks, (unsigned long long)ci.overhead_pairs);
                failed++;
            }
        }
    return failed;
}
