/* JSON Lines writer (docs/results-format.md). One record = jw_begin() ... jw_end(); the
 * output lock is held in between so parallel threads never interleave lines; each
 * record is flushed so a killed run keeps everything before the cut. The records
 * themselves (result, warning, error, end) are record.h's: this file knows only JSON. */
#ifndef PLATPERF_JSONL_H
#define PLATPERF_JSONL_H

#include <stdint.h>
#include <stdio.h>

void jw_open(FILE *out);
void jw_begin(const char *type);               /* {"type":"<type>" */
void jw_begin_object(void);                    /* { : a line that is not a record (list --json) */
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
/* A whole `warning` record: code, message and, for cpu >= 0, the CPU it concerns. */
void jw_warning(const char *code, const char *message, int cpu);

/* Nested values inside a record: "key":{...} and "key":[...]; jw_element_object() opens an
 * object as the next element of an open array. Commas are written where they belong. */
void jw_object(const char *key);
void jw_array(const char *key);
void jw_element_object(void);
void jw_object_end(void);
void jw_array_end(void);
/* Elements of an open array: an array or a number (a count, or a figure to `digits`
 * significant digits, as %.<digits>g writes it; non-finite: null). */
void jw_element_array(void);
void jw_element_uint(uint64_t v);
void jw_element_g(double v, int digits);
/* "key":<v to `digits` significant digits>, as jw_element_g. */
void jw_g(const char *key, double v, int digits);
/* "key":[i,...]: the indexes i < n whose flags[i] is set. */
void jw_flag_indexes(const char *key, const unsigned char *flags, int n);

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
void json_obj_g(struct json_obj *o, const char *key, double value, int digits);   /* %.<digits>g */

#endif
