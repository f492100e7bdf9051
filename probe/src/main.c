/* platperf-probe: the command line. Times nothing itself; kernels/ do, through exec.h.
 *
 *   platperf-probe list [--json]
 *   platperf-probe info
 *   platperf-probe run KERNEL [--PARAM VALUE ...] [--cpus LIST] [--mode serial|parallel]
 *                      [--samples N] [--warmup N] [--min-time SECONDS] [--max-memory SIZE]
 *                      [--pages auto|4k|huge] [--events LIST] [--output FILE] [--dir DIR]
 * Exit: 0 done, 2 bad input (one line on stderr), 1 a kernel failed, 130/143 interrupted.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build_info.h"
#include "event_count.h"
#include "buffer.h"
#include "counter.h"
#include "events.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "params.h"
#include "run_options.h"
#include "scratch.h"
#include "sysfs_guard.h"
#include "timed_loops.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char usage[] =
    "usage: platperf-probe list [--json]\n"
    "       platperf-probe info\n"
    "       platperf-probe run KERNEL [--PARAM VALUE ...] [--cpus LIST] [--mode serial|parallel]\n"
    "                      [--samples N] [--warmup N] [--min-time SECONDS] [--max-memory SIZE]\n"
    "                      [--pages auto|4k|huge] [--events LIST] [--output FILE] [--dir DIR]\n"
    "\n"
    "Runs memory kernels pinned to CPUs and writes JSON Lines (docs/results-format.md).\n"
    "  --cpus LIST       CPUs to measure on, e.g. 0,2-3 (default: the first online CPU)\n"
    "  --mode M          serial: one CPU after another; parallel: all at once behind a barrier\n"
    "  --samples N       measured samples per point and CPU, 1 to " STR(MAX_SAMPLES) " (default 7)\n"
    "  --warmup N        warm-up runs before them, each at most 20 ms, 0 to " STR(MAX_WARMUP) " (default 1)\n"
    "  --min-time S      shortest sample, seconds, 0 to 3600 (default 0.002; never under 1000 counter ticks)\n"
    "  --max-memory SIZE cap on buffers, k/m/g suffixes (default 50% of MemAvailable)\n"
    "  --pages P         what backs the memory kernels' buffers: auto (default): transparent huge\n"
    "                    pages where the kernel offers them, else 4 KiB; huge: refuse to run without\n"
    "                    them; 4k: 4 KiB pages, as LMBench's malloc'd buffers (docs/probe.md)\n"
    "  --events LIST     count events around each sample, e.g. cycles,instructions,l1d,l2d,llc,bus,\n"
    "                    page_faults, or raw as perf spells them (armv8_pmuv3/r17/, cpu/event=0x24,\n"
    "                    umask=0x21/, r17); each result gets its counts (docs/results-format.md)\n"
    "  --output FILE     write the records there instead of stdout\n"
    "  --dir DIR         where the OS kernels make their scratch directory, removed at the end\n"
    "                    (default $TMPDIR, else /tmp)\n"
    "Kernel parameters: see `platperf-probe list`.\n"
    "\n"
    "example: platperf-probe run mem-latency --size 16k,8m --cpus 0-1 --samples 5\n";

static char **prog_argv;   /* keep_argv() */
static int prog_argc;

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("platperf-probe: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static int kernel_is_available(const struct kernel *k, const char **why)
{
    *why = NULL;
    return !k->available || k->available(why);
}

static void kernel_names(char *out, size_t len, int only_available)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; kernel_table[i]; i++) {
        const char *why;
        if (only_available && !kernel_is_available(kernel_table[i], &why))
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "|" : "", kernel_table[i]->name);
    }
}

/* One kernel of `list --json`: {"name","help","params":[{"name","default","choices","kind","help"}]} */
static void list_json(const struct kernel *k)
{
    static const char *const kinds[] = {"text", "choice", "size", "size-list", "count", "number", "cpu-list"};
    jw_element_object();
    jw_str("name", k->name);
    jw_str("help", k->help);
    jw_array("params");
    for (int p = 0; k->params[p].name; p++) {
        const struct kernel_param *kp = &k->params[p];
        int nchoices = 0;
        while (kp->choices && kp->choices[nchoices])
            nchoices++;
        jw_element_object();
        jw_str("name", kp->name);
        jw_str("default", kp->default_value);
        if (kp->choices)
            jw_string_array("choices", kp->choices, nchoices);
        else
            jw_raw("choices", "null");
        jw_str("kind", kinds[kp->kind == PARAM_TEXT && kp->choices ? PARAM_CHOICE : kp->kind]);
        jw_str("help", kp->help);
        jw_object_end();
    }
    jw_array_end();
    jw_object_end();
}

static int cmd_list(int argc, char **argv)
{
    int json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: platperf-probe list [--json]\n"
                   "Kernels and parameters supported on this CPU.\n"
                   "example: platperf-probe list --json\n");
            return 0;
        } else
            return usage_error("list: unknown option '%s' (valid: --json)", argv[i]);
    }
    jw_open(stdout);
    if (json) {
        jw_begin_object();
        jw_array("kernels");
    }
    for (int i = 0; kernel_table[i]; i++) {
        const struct kernel *k = kernel_table[i];
        const char *why;
        if (!kernel_is_available(k, &why))
            continue;
        if (json) {
            list_json(k);
        } else {
            printf("%s\n    %s\n", k->name, k->help);
            for (int p = 0; k->params[p].name; p++) {
                const struct kernel_param *kp = &k->params[p];
                char ch[512] = "";
                if (kp->choices)
                    choices_joined(kp->choices, ch, sizeof ch);
                printf("    --%-10s %s\n               default %s%s%s%s\n", kp->name, kp->help,
                       kp->default_value[0] ? kp->default_value : "none",
                       kp->choices ? "; " : "", kp->choices && kp->list ? "comma list of " : "", ch);
            }
        }
    }
    if (json) {
        jw_array_end();
        jw_end();
    }
    return 0;
}

static void utc_now(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* meta.counter: what the counter is, its step and its back-to-back reads. */
static void write_counter(const struct counter_info *ci)
{
    jw_object("counter");
    jw_str("name", ci->name);
    jw_num("freq_hz", ci->freq_hz);
    jw_str("freq_source", ci->freq_source);
    jw_num("step_ticks", round(ci->step_ticks * 1000) / 1000);
    jw_num("resolution_ns", ci->resolution_ns);
    jw_num("read_overhead_ticks", (double)ci->read_overhead_ticks);
    jw_num("read_overhead_ns", ticks_to_ns(ci->read_overhead_ticks));
    jw_num("read_mean_ns", ci->read_mean_ns);
    jw_object("back_to_back");
    jw_num("pairs", (double)ci->pairs);
    jw_num("min_nonzero_ticks", (double)ci->pair_min_ticks);
    jw_num("mode_nonzero_ticks", (double)ci->pair_mode_ticks);
    jw_num("overhead_pairs", (double)ci->overhead_pairs);   /* read_overhead_ticks is their floor */
    jw_object_end();
    if (ci->quantum_ticks)
        jw_num("quantum_ticks", (double)ci->quantum_ticks);
    if (ci->stop_read)
        jw_str("stop_read", ci->stop_read);
    jw_object_end();
}

/* The warnings of a counter without hardware, or too coarse to resolve short events. */
static void counter_warnings(const struct counter_info *ci)
{
    if (counter_is_monotonic())
        emit_warning("counter-fallback", "no user-readable hardware counter; timing with "
                     "clock_gettime(CLOCK_MONOTONIC_RAW)", -1);
    if (ci->resolution_ns >= COUNTER_COARSE_NS || ci->step_ticks >= 2) {
        char msg[320];
        int n = ci->step_ticks >= 2
            ? snprintf(msg, sizeof msg, "the counter advances in steps of %.6g ticks (%.5g ns), coarser "
                       "than its %.6g MHz implies", ci->step_ticks, ci->resolution_ns, ci->freq_hz / 1e6)
            : snprintf(msg, sizeof msg, "the counter runs at %.3g MHz: one step is %.5g ns",
                       ci->freq_hz / 1e6, ci->resolution_ns);
        snprintf(msg + n, sizeof msg - (size_t)n, "; samples are at least %d steps (%.5g us) and figures "
                 "within %d steps (%.5g ns) say so (resolution_steps)", SAMPLE_MIN_STEPS,
                 ticks_to_ns(sample_min_ticks()) / 1e3, COUNTER_NEAR_STEPS, COUNTER_NEAR_STEPS * ci->resolution_ns);
        emit_warning(ci->step_ticks >= 2 ? "counter-coarse-step" : "counter-low-resolution", msg, -1);
    }
}

static int info_pmu;   /* `info` measures the core PMUs' events at once (event_count.c) */

static void write_meta(void)
{
    const struct counter_info *ci = counter_info();
    const struct core_clock *cc = core_clock_estimate();
    char start[32];
    utc_now(start, sizeof start);
    jw_begin("meta");
    jw_int("schema", 1);
    jw_str("probe_version", PROBE_VERSION);
    jw_str("build_id", PROBE_BUILD_ID);
    jw_str("arch", PROBE_ARCH);
    jw_str("compiler", PROBE_COMPILER);
    jw_str("cflags", PROBE_CFLAGS);
    write_counter(ci);
    if (cc->valid) {
        jw_object("core_clock");
        jw_num("hz", cc->hz);
        jw_num("cycles_per_tick", cc->cycles_per_tick);
        jw_str("method", "add-chain");
        jw_num("error_pct", cc->error_pct);
        jw_object_end();
    }
    jw_str("start_time", start);
    jw_string_array("argv", (const char *const *)prog_argv, prog_argc);
    int cpus[PROBE_MAX_CPUS];
    jw_int_array("cpus_online", cpus, cpus_online(cpus, PROBE_MAX_CPUS));
    jw_int("page_size", (int64_t)page_size());
    const char *feat[32];
    jw_string_array("features", feat, cpu_features(feat, 32));
    jw_str("peak_isa", peak_isa());
    jw_bool("fallback", timed_loops_fallback());
    if (info_pmu)
        pmu_counters_jw();
    events_jw_meta();
    jw_end();
    counter_warnings(ci);
    events_warnings();
    if (timed_loops_fallback())
        emit_warning("fallback-loops", "timed loops are the portable C versions, not assembly", -1);
}

/* Settings a probe killed together with its guardian left changed, put back (sysfs_guard.h). */
static void replay_leftovers(void)
{
    long pid;
    int n = guard_replay(&pid);
    if (n > 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "put back %d setting(s) (CPU online states, idle states, tracefs "
                 "instances) that probe %ld changed before it and its guardian were killed", n, pid);
        emit_warning("restored-after-kill", msg, -1);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_info(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: platperf-probe info\n"
                   "Writes the meta record (counter, core clock, build, the hardware events each core\n"
                   "PMU counts at once) and end.\n"
                   "example: platperf-probe info\n");
            return 0;
        }
        return usage_error("info: unknown option '%s' (info takes none)", argv[i]);
    }
    double t0 = now_s();
    jw_open(stdout);
    info_pmu = 1;
    write_meta();
    replay_leftovers();
    emit_end("complete", 0, now_s() - t0);
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    char names[512];
    if (argc < 1) {
        kernel_names(names, sizeof names, 1);
        return usage_error("run: which kernel? (valid: %s)", names);
    }
    if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    const struct kernel *k = kernel_find(argv[0]);
    if (!k) {
        kernel_names(names, sizeof names, 1);
        return usage_error("unknown kernel '%s' (valid: %s)", argv[0], names);
    }
    const char *why;
    if (!kernel_is_available(k, &why))
        return usage_error("kernel '%s' is not available on this CPU: %s", k->name, why ? why : "?");

    static struct run_ctx ctx;
    ctx.kernel = k;
    ctx.mode = MODE_SERIAL;
    ctx.samples = 7;
    ctx.warmup = 1;
    ctx.min_time_s = 0.002;
    ctx.max_memory = default_memory_cap();
    int nparams = 0;
    while (k->params[nparams].name)
        nparams++;
    for (int p = 0; p < nparams; p++)
        ctx.values[p] = k->params[p].default_value;

    struct run_options opts = {0};
    char err[512] = "";
    int parsed = run_options(k, &ctx, &opts, argc, argv, err, sizeof err);
    if (parsed > 0) {
        fputs(usage, stdout);
        printf("\n%s: %s\n", k->name, k->help);
        for (int p = 0; p < nparams; p++)
            printf("  --%-10s %s (default %s)\n", k->params[p].name, k->params[p].help,
                   k->params[p].default_value);
        return 0;
    }
    if (parsed < 0 || run_cpus(&ctx, opts.cpus, err, sizeof err) != 0)
        return usage_error("%s", err);

    if (scratch_set_parent(opts.dir, err, sizeof err) != 0)
        return usage_error("%s", err);
    /* every value checked against its declared kind, defaults included, once for all kernels */
    for (int p = 0; p < nparams; p++)
        if (param_check(k, &k->params[p], ctx.values[p], &ctx.parsed[p], err, sizeof err) != 0)
            return usage_error("%s", err);
    if (k->serial_only && ctx.mode == MODE_PARALLEL)
        return usage_error("%s: --mode parallel is not valid (valid: serial; %s)", k->name, k->serial_only);
    if (k->prepare && k->prepare(&ctx, err, sizeof err) != 0)
        return usage_error("%s", err);
    events_check(ctx.cpus, ctx.ncpus);

    FILE *out = stdout;
    if (opts.output) {
        out = fopen(opts.output, "w");
        if (!out)
            return usage_error("cannot write --output '%s': %s", opts.output, strerror(errno));
    }
    jw_open(out);
    exec_install_signals();
    double t0 = now_s();
    write_meta();
    replay_leftovers();
    int rc = k->run(&ctx);
    events_run_end(k->name, ctx.results);
    scratch_remove();
    if (probe_interrupted()) {
        emit_end("interrupted", ctx.results, now_s() - t0);
        return 128 + probe_signal;
    }
    emit_end(rc == 0 ? "complete" : "failed", ctx.results, now_s() - t0);
    return rc == 0 ? 0 : 1;
}

/* A copy of argv for the meta record: the guardian renames itself in the strings' place. */
static void keep_argv(int argc, char **argv)
{
    prog_argv = malloc(sizeof(char *) * (size_t)argc);
    for (int i = 0; prog_argv && i < argc; i++)
        prog_argv[i] = strdup(argv[i]);
    prog_argc = prog_argv ? argc : 0;
}

int main(int argc, char **argv)
{
    keep_argv(argc, argv);
    /* Linux lays the argv strings out one after the other: the guardian renames itself there */
    guard_title_area(argv[0], (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]));
    counter_init();
    if (argc < 2)
        return usage_error("which command? (valid: list|info|run; --help for usage)");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "list") == 0)
        return cmd_list(argc - 2, argv + 2);
    if (strcmp(argv[1], "info") == 0)
        return cmd_info(argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    return usage_error("unknown command '%s' (valid: list|info|run)", argv[1]);
}
