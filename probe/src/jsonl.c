#include "jsonl.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>


static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fresh;   /* an object or array was just opened: its first member takes no comma */

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
    fresh = 0;
}

void jw_begin_object(void)
{
    pthread_mutex_lock(&lock);
    fputc('{', out);
    fresh = 1;
}

void jw_key(const char *key)
{
    if (!fresh)
        fputc(',', out);
    fresh = 0;
    jw_string_value(key);
    fputc(':', out);
}

void jw_object(const char *key) { jw_key(key); fputc('{', out); fresh = 1; }
void jw_array(const char *key) { jw_key(key); fputc('[', out); fresh = 1; }
void jw_object_end(void) { fputc('}', out); fresh = 0; }
void jw_array_end(void) { fputc(']', out); fresh = 0; }

void jw_element_object(void)
{
    if (!fresh)
        fputc(',', out);
    fputc('{', out);
    fresh = 1;
}

static void element(void)
{
    if (!fresh)
        fputc(',', out);
    fresh = 0;
}

void jw_element_array(void) { element(); fputc('[', out); fresh = 1; }
void jw_element_uint(uint64_t v) { element(); fprintf(out, "%" PRIu64, v); }

static void g_value(double v, int digits)
{
    if (isfinite(v))
        fprintf(out, "%.*g", digits, v);
    else
        fputs("null", out);
}

void jw_element_g(double v, int digits) { element(); g_value(v, digits); }
void jw_g(const char *key, double v, int digits) { jw_key(key); g_value(v, digits); }

void jw_flag_indexes(const char *key, const unsigned char *flags, int n)
{
    jw_key(key);
    fputc('[', out);
    for (int i = 0, first = 1; i < n; i++)
        if (flags[i]) {
            fprintf(out, "%s%d", first ? "" : ",", i);
            first = 0;
        }
    fputc(']', out);
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

void jw_double_array(const char *key, const double *v, int n)
{
    jw_key(key);
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        jw_double_value(v[i]);
    }
    fputc(']', out);
}

void jw_uint_array(const char *key, const uint64_t *v, int n)
{
    jw_key(key);
    fputc('[', out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
    fputc(']', out);
}

void jw_int_array(const char *key, const int *v, int n)
{
    jw_key(key);
    fputc('[', out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? "," : "", v[i]);
    fputc(']', out);
}

void jw_string_array(const char *key, const char *const *v, int n)
{
    jw_key(key);
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        jw_string_value(v[i]);
    }
    fputc(']', out);
}

void json_obj_init(struct json_obj *o)
{
    snprintf(o->text, sizeof o->text, "{}");
    o->len = 1;
    o->overflow = 0;
}

/* appends `"key":` + value text before the closing brace */
static void json_obj_add(struct json_obj *o, const char *key, const char *value_json)
{
    size_t need = strlen(key) + strlen(value_json) + 5;
    if (o->overflow || o->len + need >= sizeof o->text) {
        o->overflow = 1;
        return;
    }
    o->len += (size_t)snprintf(o->text + o->len, sizeof o->text - o->len, "%s\"%s\":%s}",
                               o->len > 1 ? "," : "", key, value_json) - 1;
}

void json_obj_str(struct json_obj *o, const char *key, const char *value)
{
    char quoted[256];
    size_t j = 0;
    quoted[j++] = '"';
    for (const char *c = value; *c && j < sizeof quoted - 3; c++) {
        if (*c == '"' || *c == '\\')
            quoted[j++] = '\\';
        quoted[j++] = (unsigned char)*c < 0x20 ? '?' : *c;
    }
    quoted[j++] = '"';
    quoted[j] = 0;
    json_obj_add(o, key, quoted);
}

void json_obj_uint(struct json_obj *o, const char *key, uint64_t value)
{
    char v[24];
    snprintf(v, sizeof v, "%" PRIu64, value);
    json_obj_add(o, key, v);
}

void json_obj_g(struct json_obj *o, const char *key, double value, int digits)
{
    char v[40];
    if (isfinite(value))
        snprintf(v, sizeof v, "%.*g", digits, value);
    else
        snprintf(v, sizeof v, "null");
    json_obj_add(o, key, v);
}

void json_obj_num(struct json_obj *o, const char *key, double value)
{
    char v[32];
    if (!isfinite(value))
        snprintf(v, sizeof v, "null");
    else if (value == floor(value) && fabs(value) < 9e15)
        snprintf(v, sizeof v, "%.0f", value);
    else
        snprintf(v, sizeof v, "%.10g", value);
    json_obj_add(o, key, v);
}

void jw_warning(const char *code, const char *message, int cpu)
{
    jw_begin("warning");
    jw_str("code", code);
    jw_str("message", message);
    if (cpu >= 0)
        jw_int("cpu", cpu);
    jw_end();
}
