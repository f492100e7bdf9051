#include "run_options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "events.h"
#include "exec.h"
#include "params.h"

static const char *const mode_choices[] = {"serial", "parallel", NULL};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void online_text(char *out, size_t len)
{
    int cpus[PROBE_MAX_CPUS];
    int n = cpus_online(cpus, PROBE_MAX_CPUS);
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && used < len; i++) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        if (j > i)
            used += (size_t)snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", cpus[i], cpus[j]);
        else
            used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", cpus[i]);
        i = j;
    }
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* An option that is not an execution option: one of the kernel's, or unknown. */
static int kernel_option(const struct kernel *k, struct run_ctx *ctx, const char *opt, const char *val,
                         char *err, size_t errlen)
{
    char names[512];
    int p = 0;
    while (k->params[p].name && strcmp(k->params[p].name, opt) != 0)
        p++;
    if (!k->params[p].name) {
        size_t used = (size_t)snprintf(names, sizeof names, "--cpus --mode --samples --warmup "
                                       "--min-time --max-memory --pages --events --output --dir");
        for (int q = 0; k->params[q].name && used < sizeof names; q++)
            used += (size_t)snprintf(names + used, sizeof names - used, " --%s", k->params[q].name);
        return fail(err, errlen, "%s: unknown option '--%s' (valid: %s)", k->name, opt, names);
    }
    ctx->values[p] = val;
    return 0;
}

/* One execution option; 1 when opt is none of them. */
static int execution_option(struct run_ctx *ctx, struct run_options *o, const char *opt, const char *val,
                            char *err, size_t errlen)
{
    if (strcmp(opt, "cpus") == 0) {
        o->cpus = val;
    } else if (strcmp(opt, "mode") == 0) {
        int m = choice_index(mode_choices, val);
        if (m < 0)
            return fail(err, errlen, "--mode '%s' is not valid (valid: serial|parallel)", val);
        ctx->mode = m == 1 ? MODE_PARALLEL : MODE_SERIAL;
    } else if (strcmp(opt, "samples") == 0) {
        if (parse_int(val, 1, MAX_SAMPLES, &ctx->samples))
            return fail(err, errlen, "--samples '%s' is not valid (valid: an integer from 1 to %d)", val, MAX_SAMPLES);
    } else if (strcmp(opt, "warmup") == 0) {
        if (parse_int(val, 0, MAX_WARMUP, &ctx->warmup))
            return fail(err, errlen, "--warmup '%s' is not valid (valid: an integer from 0 to %d)", val, MAX_WARMUP);
    } else if (strcmp(opt, "min-time") == 0) {
        char *end;
        ctx->min_time_s = strtod(val, &end);
        if (*end || end == val || !(ctx->min_time_s >= 0) || ctx->min_time_s > 3600)
            return fail(err, errlen, "--min-time '%s' is not valid (valid: a number of seconds from 0 to 3600)", val);
    } else if (strcmp(opt, "max-memory") == 0) {
        if (parse_size(val, &ctx->max_memory) || ctx->max_memory == 0)
            return fail(err, errlen, "--max-memory '%s' is not valid (valid: a size above 0 with k/m/g "
                               "suffixes, such as 512m or 2g)", val);
        ctx->max_memory_arg = val;
    } else if (strcmp(opt, "pages") == 0) {
        int m = choice_index(page_choices, val);
        if (m < 0)
            return fail(err, errlen, "--pages '%s' is not valid (valid: auto|4k|huge)", val);
        if (m == PAGES_HUGE && !thp_offered())
            return fail(err, errlen, "--pages huge: this kernel offers no transparent huge pages "
                               "(/sys/kernel/mm/transparent_hugepage/enabled is 'never' or absent); "
                               "use --pages auto or 4k");
        buffer_set_pages((enum page_mode)m);
    } else if (strcmp(opt, "events") == 0) {
        if (events_configure(val, err, errlen) != 0)
            return -1;
    } else if (strcmp(opt, "output") == 0) {
        o->output = val;
    } else if (strcmp(opt, "dir") == 0) {
        o->dir = val;
    } else {
        return 1;
    }
    return 0;
}

int run_options(const struct kernel *k, struct run_ctx *ctx, struct run_options *o, int argc, char **argv,
                char *err, size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        char opt[128];
        const char *val = NULL;
        if (strncmp(argv[i], "--", 2) != 0)
            return fail(err, errlen, "unexpected argument '%s' (options are --NAME VALUE)", argv[i]);
        snprintf(opt, sizeof opt, "%s", argv[i] + 2);
        char *eq = strchr(opt, '=');
        if (eq) {
            *eq = 0;
            val = argv[i] + 2 + (eq - opt) + 1;
        }
        if (strcmp(opt, "help") == 0)
            return 1;
        if (!val) {
            if (i + 1 >= argc)
                return fail(err, errlen, "option --%s needs a value", opt);
            val = argv[++i];
        }
        int rc = execution_option(ctx, o, opt, val, err, errlen);
        if (rc == 1)
            rc = kernel_option(k, ctx, opt, val, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int run_cpus(struct run_ctx *ctx, const char *cpus, char *err, size_t errlen)
{
    char online[512];
    online_text(online, sizeof online);
    if (cpus) {
        ctx->ncpus = parse_cpu_list(cpus, ctx->cpus, PROBE_MAX_CPUS);
        if (ctx->ncpus <= 0)
            return fail(err, errlen, "--cpus '%s' is not a CPU list (valid: e.g. 0,2-3; online: %s)", cpus, online);
        for (int i = 0; i < ctx->ncpus; i++) {
            for (int j = 0; j < i; j++)
                if (ctx->cpus[j] == ctx->cpus[i])
                    return fail(err, errlen, "--cpus lists CPU %d twice", ctx->cpus[i]);
            if (!cpu_is_online(ctx->cpus[i]))
                return fail(err, errlen, "CPU %d is not online (online: %s)", ctx->cpus[i], online);
        }
    } else {
        int all[PROBE_MAX_CPUS];
        if (cpus_online(all, PROBE_MAX_CPUS) < 1)
            return fail(err, errlen, "no online CPU found");
        ctx->cpus[0] = all[0];
        ctx->ncpus = 1;
    }

    return 0;
}
