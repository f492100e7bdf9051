/* JSON Lines writer (docs/results-format.md). One record = jw_begin() ... jw_end(); the
 * output lock is held in between so parallel threads never interleave lines; each
 * record is flushed so a killed run keeps everything before the cut. */
#ifndef PLATPERF_JSONL_H
#define PLATPERF_JSONL_H

#include <stdint.h>
#include <stdio.h>

#include "kernel.h"

void jw_open(FILE *out);
void jw_begin(const char *type);               /* {"type":"<type>" */
void jw_key(const char *key);                  /* ,"key": */
void jw_str(const char *key, const char *value);
void jw_num(const char *key, double value);    /* %.6g-ish; ints exactly */
void jw_int(const char *key, int64_t value);
void jw_uint(const char *key, uint64_t value);
void jw_bool(const char *key, int value);
void jw_raw(const char *key, const char *json);   /* value already JSON */
void jw_text(const char *json);                    /* verbatim, e.g. "[1,2]" after jw_key */
void jw_string_value(const char *s);               /* a quoted, escaped string */
void jw_double_value(double v);
void jw_end(void);                                 /* }\n, flush, unlock */

/* Arrays under the output lock, after jw_begin(): "key":[...]. */
void jw_double_array(const char *key, const double *v, int n);
void jw_uint_array(const char *key, const uint64_t *v, int n);
void jw_int_array(const char *key, const int *v, int n);
void jw_string_array(const char *key, const char *const *v, int n);

/* A small JSON object built before a record, e.g. a result's params:
 *   struct json_obj p; json_obj_init(&p); json_obj_str(&p, "op", "read");
 *   json_obj_uint(&p, "size", 1048576);  ->  p.text = {"op":"read","size":1048576}
 * Keys are written in the order given (the host canonicalises). Text past the buffer is
 * refused (json_obj.overflow), never cut into invalid JSON. */
struct json_obj {
    char text[512];
    size_t len;
    int overflow;
};
void json_obj_init(struct json_obj *o);
void json_obj_str(struct json_obj *o, const char *key, const char *value);
void json_obj_uint(struct json_obj *o, const char *key, uint64_t value);
void json_obj_num(struct json_obj *o, const char *key, double value);

struct cpu_job;
struct core_clock;
/* One `result` record (docs/results-format.md). samples[n] in `unit`; the optional parts
 * are written when set: iterations (> 0), ticks[n], job (its "cost" and "preempted"),
 * clock (the CPU's "core_clock"), extra_json (`"key":value,...` without braces). */
struct result_record {
    const char *benchmark;
    const char *params;          /* a JSON object: json_obj.text; NULL = {} */
    int cpu;                     /* < 0: not per CPU (no "cpu" field) */
    const char *metric, *unit, *direction;
    const double *samples;
    int n;
    uint64_t iterations;
    const uint64_t *ticks;
    const struct cpu_job *job;
    const struct core_clock *clock;
    const char *extra_json;
};
void emit_record(struct run_ctx *ctx, const struct result_record *r);

/* Older forms of emit_record(), kept for kernels written before it.
 * params_json: the params object, e.g. {"pattern":"random","size":16384,"stride":64}. */
void emit_result(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                 int cpu, const char *metric, const char *unit, const char *direction,
                 const double *samples, int n, uint64_t iterations, const uint64_t *ticks);
/* The same with extra fields appended: extra_json is `"key":value,...` without braces. */
void emit_result_extra(struct run_ctx *ctx, const char *benchmark, const char *params_json,
                       int cpu, const char *metric, const char *unit, const char *direction,
                       const double *samples, int n, uint64_t iterations, const uint64_t *ticks,
                       const char *extra_json);
void emit_warning(const char *code, const char *message, int cpu);   /* cpu < 0: none */
void emit_error(const char *code, const char *message);
void emit_end(const char *status, int results, double elapsed_s);

#endif
