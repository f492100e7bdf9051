/* The kernel interface: every benchmark the probe runs is one row of kernel_table
 * (kernels/table.c), defined in one file under kernels/.
 *
 * A run goes:  main parses --PARAM VALUE pairs against kernel->params (unknown names are
 * refused before anything is written) -> kernel->prepare(ctx) checks values and memory
 * (may refuse: exit 2, nothing written) -> meta record -> kernel->run(ctx) emits result /
 * histogram / warning records -> end record.
 *
 * Machinery a kernel may use (exec.h): exec_each_cpu() runs a function pinned on every
 * CPU of --cpus, serially or in parallel behind a start barrier; exec_sample() times a
 * body for warm-up + --samples samples of >= --min-time and >= 1000 counter ticks;
 * helper_start()/helper_stop() run pinned helper threads (aggressors) on other CPUs;
 * probe_interrupted() tells a duration-bounded loop to finish early. Output (jsonl.h):
 * emit_result() for the usual sample records, jw_* to compose any other record
 * (histogram) under the output lock. Buffers (buffer.h) count against --max-memory.
 */
#ifndef PLATPERF_KERNEL_H
#define PLATPERF_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_MAX_PARAMS 16
#define PROBE_MAX_CPUS 1024

struct kernel_param {
    const char *name;            /* option name without "--": "size" -> --size */
    const char *default_value;   /* as typed on the command line; "" = not set */
    const char *const *choices;  /* NULL-terminated list, or NULL for free values */
    const char *help;
    bool list;                   /* value may be a comma list of choices/values */
};

enum run_mode { MODE_SERIAL, MODE_PARALLEL };

struct run_ctx {
    const struct kernel *kernel;
    const char *values[KERNEL_MAX_PARAMS];   /* parallel to kernel->params: given or default */
    int cpus[PROBE_MAX_CPUS];
    int ncpus;
    enum run_mode mode;
    int samples;          /* measured samples per (point, cpu) */
    int warmup;           /* discarded samples before them */
    double min_time_s;    /* minimum length of one sample */
    uint64_t max_memory;  /* bytes all buffers of one point may take together */
    const char *max_memory_arg;   /* --max-memory as given, NULL for the default */
    void *kernel_state;   /* owned by the kernel: set in prepare, freed in run */
    int results;          /* records of type result/histogram written (for `end`) */
};

struct kernel {
    const char *name;                    /* "mem-latency" */
    const char *help;                    /* one line for `list` */
    const struct kernel_param *params;   /* terminated by a row with name == NULL */
    /* NULL = available on every CPU the probe runs on; else returns false with a reason. */
    bool (*available)(const char **why_not);
    /* Validate ctx->values; on a bad value write one line naming it and the valid choices
     * into err and return nonzero (exit 2, nothing written yet). Check the memory a run
     * will need against ctx->max_memory here (buffer_check_cap()). */
    int (*prepare)(struct run_ctx *ctx, char *err, size_t errlen);
    /* Measure and emit records. Return 0, or nonzero after emit_error() (end: failed). */
    int (*run)(struct run_ctx *ctx);
};

/* The value of parameter `name` for this run (never NULL for a declared parameter). */
const char *kernel_value(const struct run_ctx *ctx, const char *name);

extern const struct kernel *const kernel_table[];   /* NULL-terminated, kernels/table.c */
const struct kernel *kernel_find(const char *name);

#endif
