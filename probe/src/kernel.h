/* The kernel interface: every benchmark the probe runs is one row of kernel_table
 * (kernels/table.c), defined in one file under kernels/.
 *
 * A new kernel is one file and one table row:
 *
 *   static const struct kernel_param params[] = {
 *       {"size", "1m", NULL, "bytes of the file", .kind = PARAM_SIZE, .min = 4096},
 *       {"op", "null,read", op_choices, "system calls", .kind = PARAM_CHOICE, .list = true},
 *       {NULL},
 *   };
 *   static int run(struct run_ctx *ctx) { ... kernel_size(ctx, "size") ... emit_record(...) }
 *   const struct kernel os_x_kernel = {"os-x", "one line for `list`", params, NULL, NULL, run};
 *
 * A run goes:  main parses --PARAM VALUE pairs against kernel->params (unknown names are
 * refused before anything is written) and checks every value against its declared kind
 * (param_check() in params.c: one message per kind, exit 2) -> kernel->prepare(ctx)
 * checks what only the kernel knows (values against each other, memory through
 * buffer_fits()) and may refuse: exit 2, nothing written -> meta record -> kernel->run(ctx)
 * emits result / histogram / warning records -> end record.
 *
 * Parameter kinds (struct kernel_param.kind), parsed once; the kernel reads the parsed
 * value with kernel_size(), kernel_sizes(), kernel_count(), kernel_number(), kernel_cpus(),
 * kernel_choice(), kernel_choice_list(), and the text as typed with kernel_value():
 *   PARAM_CHOICE     one of .choices (a comma list of them with .list)
 *   PARAM_SIZE       bytes, k/m/g suffixes, within [.min, .max] (max 0: no bound)
 *   PARAM_SIZE_LIST  comma list of sizes, each within [.min, .max], at most PARAM_MAX_ITEMS
 *   PARAM_COUNT      an integer within [.min, .max] (a comma list of them with .list)
 *   PARAM_NUMBER     a decimal number within [.min, .max]
 *   PARAM_CPU_LIST   "0,2-3", every CPU online
 *   PARAM_TEXT       free text, checked by the kernel (kind 0: rows written before kinds
 *                    existed stay valid; with .choices they are checked as a choice)
 * .keyword ("auto") is accepted as is for any kind and left to the kernel; an empty value
 * ("") means "not set" and is not parsed.
 *
 * Machinery a kernel may use (exec.h): exec_each_cpu() runs a function pinned on every
 * CPU of --cpus, serially or in parallel behind a start barrier; exec_sample() times a
 * body for warm-up + --samples samples of >= --min-time and >= 1000 counter ticks;
 * helper_start()/helper_stop() run pinned helper threads (aggressors) on other CPUs;
 * probe_interrupted() tells a duration-bounded loop to finish early; measure_each_cpu()
 * (record.h) measures on every CPU and hands each job to the kernel to write. Output
 * (record.h): a `struct result_record` passed to emit_record() (params built with struct
 * json_obj; emit_record_with() adds fields of the kernel's own), jw_* and the nested and
 * array helpers of jsonl.h to compose any other record (histogram) under the output lock. Memory (buffer.h): buffer_fits() checks a run's buffers against --max-memory,
 * buffer_alloc() maps them. Files (scratch.h): scratch_dir() is the run's --dir, removed
 * at exit and on SIGINT/SIGTERM.
 */
#ifndef PLATPERF_KERNEL_H
#define PLATPERF_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_MAX_PARAMS 16
#define PROBE_MAX_CPUS 1024
#define PARAM_MAX_ITEMS 256   /* items of a size list or choice list */

enum param_kind {
    PARAM_TEXT = 0,
    PARAM_CHOICE,
    PARAM_SIZE,
    PARAM_SIZE_LIST,
    PARAM_COUNT,
    PARAM_NUMBER,
    PARAM_CPU_LIST,
};

struct kernel_param {
    const char *name;            /* option name without "--": "size" -> --size */
    const char *default_value;   /* as typed on the command line; "" = not set */
    const char *const *choices;  /* NULL-terminated list, or NULL for free values */
    const char *help;
    bool list;                   /* value may be a comma list of choices/values */
    enum param_kind kind;
    double min, max;             /* bounds of sizes, counts and numbers; max 0 = none */
    const char *keyword;         /* a word accepted as is, e.g. "auto"; NULL = none */
};

/* A parameter's value once checked (params.c). */
struct param_value {
    const char *text;            /* as typed, or the default */
    bool set;                    /* not empty and not the keyword: the parsed fields hold */
    uint64_t size;               /* PARAM_SIZE */
    uint64_t *sizes;             /* PARAM_SIZE_LIST (malloc'd, lives for the run) */
    int nsizes;
    int64_t count;               /* PARAM_COUNT (the first item of a list) */
    int64_t *counts;             /* PARAM_COUNT with .list (malloc'd) */
    int ncounts;
    double number;               /* PARAM_NUMBER */
    int *cpus;                   /* PARAM_CPU_LIST (malloc'd) */
    int ncpus;
    int choice;                  /* PARAM_CHOICE: index in choices (the first item of a list) */
    int *choice_items;           /* PARAM_CHOICE with .list: indexes, in the order typed */
    int nchoice_items;
};

enum run_mode { MODE_SERIAL, MODE_PARALLEL };

struct run_ctx {
    const struct kernel *kernel;
    const char *values[KERNEL_MAX_PARAMS];   /* parallel to kernel->params: given or default */
    struct param_value parsed[KERNEL_MAX_PARAMS];
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
    /* NULL, or: check what the declared kinds cannot (values against each other, the
     * memory a run needs through buffer_fits()); on a bad value write one line naming it
     * and the valid choices into err and return nonzero (exit 2, nothing written yet). */
    int (*prepare)(struct run_ctx *ctx, char *err, size_t errlen);
    /* Measure and emit records. Return 0, or nonzero after emit_error() (end: failed). */
    int (*run)(struct run_ctx *ctx);
    /* NULL, or why the kernel runs in serial mode only: --mode parallel is refused with it
     * (main.c, before prepare). */
    const char *serial_only;
};

/* The readers of a run's parameters (kernel.c). The value of parameter `name` as typed (never
 * NULL for a declared parameter). */
const char *kernel_value(const struct run_ctx *ctx, const char *name);
/* The checked value of parameter `name` (NULL if undeclared: a bug, caught by the tests). */
const struct param_value *kernel_param(const struct run_ctx *ctx, const char *name);
uint64_t kernel_size(const struct run_ctx *ctx, const char *name);
/* The sizes of a PARAM_SIZE_LIST; *n = 0 when the keyword (e.g. auto) was given. */
const uint64_t *kernel_sizes(const struct run_ctx *ctx, const char *name, int *n);
int64_t kernel_count(const struct run_ctx *ctx, const char *name);
const int64_t *kernel_counts(const struct run_ctx *ctx, const char *name, int *n);
double kernel_number(const struct run_ctx *ctx, const char *name);
const int *kernel_cpus(const struct run_ctx *ctx, const char *name, int *n);
int kernel_choice(const struct run_ctx *ctx, const char *name);
const int *kernel_choice_list(const struct run_ctx *ctx, const char *name, int *n);
/* 1 when the parameter was given as its keyword (e.g. --size auto). */
int kernel_is_keyword(const struct run_ctx *ctx, const char *name);

extern const struct kernel *const kernel_table[];   /* NULL-terminated, kernels/table.c */
const struct kernel *kernel_find(const char *name);

#endif
