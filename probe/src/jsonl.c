#include "jsonl.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "summary.h"

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void jw_open(FILE *f) { out = f; }

void jw_string_value(const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* %.17g keeps every double exact; integers print without a fraction. Non-finite
 * values are not JSON: they become null. */
void jw_double_value(double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 9e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.10g", v);
}

void jw_begin(const char *type)
{
    pthread_mutex_lock(&lock);
    fputs("{\"type\":", out);
    jw_string_value(type);
}

void jw_key(const char *key)
{
    fputc(',', out);
    jw_string_value(key);
    fputc(':', out);
}

void jw_str(const char *key, const char *value) { jw_key(key); jw_string_value(value); }
void jw_num(const char *key, double value) { jw_key(key); jw_double_value(value); }
void jw_int(const char *key, int64_t value) { jw_key(key); fprintf(out, "%" PRId64, value); }
void jw_uint(const char *key, uint64_t value) { jw_key(key); fprintf(out, "%" PRIu64, value); }
void jw_bool(const char *key, int value) { jw_key(key); fputs(value ? "true" : "false", out); }
void jw_raw(const char *key, const char *json) { jw_key(key); fputs(json, out); }
void jw_text(const char *json) { fputs(json, out); }

void jw_end(void)
{
    fputs("}\n", out);
    fflush(out);
    pthread_mutex_unlock(&lock);
}

void emit_result(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                 int cpu, const char *metric, const char *unit, const char *direction,
                 const double *samples, int n, uint64_t iterations, const uint64_t *ticks)
{
    emit_result_extra(ctx, benchmark, params_json, cpu, metric, unit, direction, samples, n,
                      iterations, ticks, NULL);
}

void emit_result_extra(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                       int cpu, const char *metric, const char *unit, const char *direction,
                       const double *samples, int n, uint64_t iterations, const uint64_t *ticks,
                       const char *extra_json)
{
    struct summary s = summarize(samples, n);
    jw_begin("result");
    jw_str("benchmark", benchmark);
    jw_raw("params", params_json);
    jw_int("cpu", cpu);
    jw_str("mode", ctx->mode == MODE_PARALLEL ? "parallel" : "serial");
    jw_str("metric", metric);
    jw_str("unit", unit);
    jw_str("direction", direction);
    jw_key("samples");
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        jw_double_value(samples[i]);
    }
    fputc(']', out);
    jw_key("summary");
    fprintf(out, "{\"n\":%d", s.n);
    fputs(",\"min\":", out); jw_double_value(s.min);
    fputs(",\"median\":", out); jw_double_value(s.median);
    fputs(",\"mean\":", out); jw_double_value(s.mean);
    fputs(",\"max\":", out); jw_double_value(s.max);
    fputs(",\"stdev\":", out); jw_double_value(s.stdev);
    fputc('}', out);
    if (iterations)
        jw_uint("iterations", iterations);
    if (ticks) {
        jw_key("ticks");
        fputc('[', out);
        for (int i = 0; i < n; i++)
            fprintf(out, "%s%" PRIu64, i ? "," : "", ticks[i]);
        fputc(']', out);
    }
    if (extra_json && *extra_json) {
        fputc(',', out);
        fputs(extra_json, out);
    }
    jw_end();
    ctx->results++;
}

void emit_warning(const char *code, const char *message, int cpu)
{
    jw_begin("warning");
    jw_str("code", code);
    jw_str("message", message);
    if (cpu >= 0)
        jw_int("cpu", cpu);
    jw_end();
}

void emit_error(const char *code, const char *message)
{
    jw_begin("error");
    jw_str("code", code);
    jw_str("message", message);
    jw_end();
}

void emit_end(const char *status, int results, double elapsed_s)
{
    jw_begin("end");
    jw_str("status", status);
    jw_int("results", results);
    jw_num("elapsed_s", round(elapsed_s * 1000) / 1000);
    jw_end();
}
