/* platperf-probe: the command line. Times nothing itself; kernels/ do, through exec.h.
 *
 *   platperf-probe list [--json]
 *   platperf-probe info
 *   platperf-probe run KERNEL [--PARAM VALUE ...] [--cpus LIST] [--mode serial|parallel]
 *                      [--samples N] [--warmup N] [--min-time SECONDS] [--max-memory SIZE]
 *                      [--pages auto|4k|huge] [--output FILE] [--dir DIR]
 * Exit: 0 done, 2 bad input (one line on stderr), 1 a kernel failed, 130/143 interrupted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build_info.h"
#include "buffer.h"
#include "counter.h"
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
    "                      [--pages auto|4k|huge] [--output FILE] [--dir DIR]\n"
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
    "  --output FILE     write the records there instead of stdout\n"
    "  --dir DIR         where the OS kernels make their scratch directory, removed at the end\n"
    "                    (default $TMPDIR, else /tmp)\n"
    "Kernel parameters: see `platperf-probe list`.\n"
    "\n"
    "example: platperf-probe run mem-latency --size 16k,8m --cpus 0-1 --samples 5\n";

static const char *prog_argv_json;

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
    if (json)
        fputs("{\"kernels\":[", stdout);
    int first = 1;
    for (int i = 0; kernel_table[i]; i++) {
        const struct kernel *k = kernel_table[i];
        const char *why;
        if (!kernel_is_available(k, &why))
            continue;
        if (json) {
            printf("%s{\"name\":", first ? "" : ",");
            jw_string_value(k->name);
            fputs(",\"help\":", stdout);
            jw_string_value(k->help);
            fputs(",\"params\":[", stdout);
            for (int p = 0; k->params[p].name; p++) {
                const struct kernel_param *kp = &k->params[p];
                printf("%s{\"name\":", p ? "," : "");
                jw_string_value(kp->name);
                fputs(",\"default\":", stdout);
                jw_string_value(kp->default_value);
                fputs(",\"choices\":", stdout);
                if (kp->choices) {
                    fputc('[', stdout);
                    for (int c = 0; kp->choices[c]; c++) {
                        if (c)
                            fputc(',', stdout);
                        jw_string_value(kp->choices[c]);
                    }
                    fputc(']', stdout);
                } else {
                    fputs("null", stdout);
                }
                static const char *const kinds[] = {"text", "choice", "size", "size-list", "count",
                                                    "number", "cpu-list"};
                fputs(",\"kind\":", stdout);
                jw_string_value(kinds[kp->kind == PARAM_TEXT && kp->choices ? PARAM_CHOICE : kp->kind]);
                fputs(",\"help\":", stdout);
                jw_string_value(kp->help);
                fputc('}', stdout);
            }
            fputs("]}", stdout);
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
        first = 0;
    }
    if (json)
        fputs("]}\n", stdout);
    return 0;
}

static void utc_now(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

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
    jw_key("counter");
    jw_text("{\"name\":");
    jw_string_value(ci->name);
    jw_text(",\"freq_hz\":");
    jw_double_value(ci->freq_hz);
    jw_text(",\"freq_source\":");
    jw_string_value(ci->freq_source);
    jw_text(",\"resolution_ns\":");
    jw_double_value(ci->resolution_ns);
    jw_text(",\"read_overhead_ticks\":");
    jw_double_value((double)ci->read_overhead_ticks);
    jw_text(",\"read_overhead_ns\":");
    jw_double_value(ticks_to_ns(ci->read_overhead_ticks));
    if (ci->stop_read) {
        jw_text(",\"stop_read\":");
        jw_string_value(ci->stop_read);
    }
    jw_text("}");
    if (cc->valid) {
        jw_key("core_clock");
        jw_text("{\"hz\":");
        jw_double_value(cc->hz);
        jw_text(",\"cycles_per_tick\":");
        jw_double_value(cc->cycles_per_tick);
        jw_text(",\"method\":\"add-chain\",\"error_pct\":");
        jw_double_value(cc->error_pct);
        jw_text("}");
    }
    jw_str("start_time", start);
    jw_raw("argv", prog_argv_json);
    int cpus[PROBE_MAX_CPUS];
    int n = cpus_online(cpus, PROBE_MAX_CPUS);
    jw_key("cpus_online");
    jw_text("[");
    for (int i = 0; i < n; i++) {
        if (i)
            jw_text(",");
        jw_double_value(cpus[i]);
    }
    jw_text("]");
    jw_int("page_size", (int64_t)page_size());
    const char *feat[32];
    int nf = cpu_features(feat, 32);
    jw_key("features");
    jw_text("[");
    for (int i = 0; i < nf; i++) {
        if (i)
            jw_text(",");
        jw_string_value(feat[i]);
    }
    jw_text("]");
    jw_str("peak_isa", peak_isa());
    jw_bool("fallback", timed_loops_fallback());
    jw_end();
    if (strcmp(ci->name, "clock_monotonic_raw") == 0)
        emit_warning("counter-fallback", "no user-readable hardware counter; timing with "
                     "clock_gettime(CLOCK_MONOTONIC_RAW)", -1);
    if (ci->freq_hz < 1e8) {
        char msg[160];
        snprintf(msg, sizeof msg, "counter runs at %.3g MHz; samples are lengthened to %d ticks",
                 ci->freq_hz / 1e6, SAMPLE_MIN_TICKS);
        emit_warning("counter-low-resolution", msg, -1);
    }
    if (timed_loops_fallback())
        emit_warning("fallback-loops", "timed loops are the portable C versions, not assembly", -1);
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
                   "Writes the meta record (counter, core clock, build) and end.\n"
                   "example: platperf-probe info\n");
            return 0;
        }
        return usage_error("info: unknown option '%s' (info takes none)", argv[i]);
    }
    double t0 = now_s();
    jw_open(stdout);
    write_meta();
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
    int rc = k->run(&ctx);
    scratch_remove();
    if (probe_interrupted()) {
        emit_end("interrupted", ctx.results, now_s() - t0);
        return 128 + probe_signal;
    }
    emit_end(rc == 0 ? "complete" : "failed", ctx.results, now_s() - t0);
    return rc == 0 ? 0 : 1;
}

static char *argv_json(int argc, char **argv)
{
    size_t len = 3;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) * 6 + 4;
    char *s = malloc(len), *p = s;
    *p++ = '[';
    for (int i = 0; i < argc; i++) {
        if (i)
            *p++ = ',';
        *p++ = '"';
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '"' || *c == '\\') {
                *p++ = '\\';
                *p++ = *c;
            } else if ((unsigned char)*c < 0x20) {
                p += sprintf(p, "\\u%04x", (unsigned char)*c);
            } else {
                *p++ = *c;
            }
        }
        *p++ = '"';
    }
    *p++ = ']';
    *p = 0;
    return s;
}

int main(int argc, char **argv)
{
    prog_argv_json = argv_json(argc, argv);
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
