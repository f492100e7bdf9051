/* The options of `platperf-probe run KERNEL`: the execution options every kernel takes
 * (--cpus, --mode, --samples, ...) and the kernel's own --PARAM VALUE pairs, into a run_ctx. */
#ifndef PLATPERF_RUN_OPTIONS_H
#define PLATPERF_RUN_OPTIONS_H

#include <stddef.h>

#include "kernel.h"

/* Bounds of --samples and --warmup: a million samples of 8-byte ticks per CPU is still a
 * small array; more would be a typing slip, not a plan. */
#define MAX_SAMPLES 1000000
#define MAX_WARMUP 1000

struct run_options {
    const char *output, *cpus, *dir;   /* --output, --cpus, --dir as given; NULL: not given */
};

/* argv[1..] (argv[0] is the kernel) into ctx (its values: the defaults, or as given) and o.
 * 0; 1 for --help; -1 with one line in err for anything wrong (an unknown option lists the
 * valid ones). */
int run_options(const struct kernel *k, struct run_ctx *ctx, struct run_options *o, int argc, char **argv,
                char *err, size_t errlen);
/* ctx's CPUs: the --cpus list (each online, none twice), else the first online CPU; 0, or
 * -1 with one line in err. */
int run_cpus(struct run_ctx *ctx, const char *cpus, char *err, size_t errlen);

#endif
