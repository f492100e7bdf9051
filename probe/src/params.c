#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

int parse_size(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    uint64_t mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I')   /* accept "16KiB" / "16kib" */
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end)
        return -1;
    if (v > UINT64_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

int split_list(const char *s, char *buf, size_t buflen, char **items, int max)
{
    snprintf(buf, buflen, "%s", s);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        items[n++] = tok;
    return n;
}

int parse_size_list(const char *s, uint64_t *out, int max, char *bad, size_t badlen)
{
    char buf[1024], *items[256];
    /* a list longer than what is kept must be refused, not cut short without a word */
    int commas = 0;
    for (const char *c = s; *c; c++)
        commas += *c == ',';
    if (commas + 1 > max || commas + 1 > 256 || strlen(s) >= sizeof buf)
        return -2;
    int n = split_list(s, buf, sizeof buf, items, 256);
    if (n == 0) {
        snprintf(bad, badlen, "%s", s);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (parse_size(items[i], &out[i]) != 0) {
            snprintf(bad, badlen, "%s", items[i]);
            return -1;
        }
    }
    return n;
}

int parse_cpu_list(const char *s, int *out, int max)
{
    char buf[1024], *items[256];
    int n = split_list(s, buf, sizeof buf, items, 256), count = 0;
    if (n == 0)
        return -1;
    for (int i = 0; i < n; i++) {
        char *end;
        if (!isdigit((unsigned char)items[i][0]))
            return -1;
        long lo = strtol(items[i], &end, 10), hi = lo;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return -1;
            hi = strtol(end + 1, &end, 10);
        }
        if (*end || hi < lo || hi >= 1 << 20)
            return -1;
        for (long c = lo; c <= hi; c++) {
            if (count >= max)
                return -1;
            out[count++] = (int)c;
        }
    }
    return count;
}

int choice_index(const char *const *choices, const char *s)
{
    for (int i = 0; choices && choices[i]; i++)
        if (strcmp(choices[i], s) == 0)
            return i;
    return -1;
}

void choices_joined(const char *const *choices, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; choices && choices[i] && len < outlen; i++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%s", i ? "|" : "", choices[i]);
}

int size_sweep(uint64_t lo, uint64_t hi, int per_octave, uint64_t align, uint64_t *out, int max)
{
    int n = 0;
    for (int k = 0; n < max; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_octave);
        uint64_t s = (uint64_t)(v + 0.5) / align * align;
        if (s == 0)
            s = align;
        if (n == 0 || s != out[n - 1])
            out[n++] = s;
        if (s >= hi)
            break;
    }
    return n;
}

void format_size(uint64_t b, char *out, size_t outlen)
{
    if (b >= (1ull << 30))
        snprintf(out, outlen, "%.1f GiB", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(out, outlen, "%.1f MiB", (double)b / (1ull << 20));
    else if (b >= 1024)
        snprintf(out, outlen, "%.1f KiB", (double)b / 1024);
    else
        snprintf(out, outlen, "%llu B", (unsigned long long)b);
}

/* What a kind accepts, for the one-line message of a bad value. */
static void kind_valid(const struct kernel_param *kp, char *out, size_t len)
{
    char lo[32] = "", hi[32] = "", ch[512] = "";
    size_t used = 0;
    if (kp->keyword)
        used = (size_t)snprintf(out, len, "%s or ", kp->keyword);
    out += used;
    len -= used < len ? used : len;
    switch (kp->kind) {
    case PARAM_SIZE:
    case PARAM_SIZE_LIST:
        format_size((uint64_t)kp->min, lo, sizeof lo);
        if (kp->max > 0)
            format_size((uint64_t)kp->max, hi, sizeof hi);
        snprintf(out, len, "%s from %s%s%s, k/m/g suffixes", kp->kind == PARAM_SIZE ? "a size such as 16k"
                 : "sizes such as 16k,8m", lo, hi[0] ? " to " : " up", hi[0] ? hi : "");
        break;
    case PARAM_COUNT:
        if (kp->max > 0)
            snprintf(out, len, "%s from %.0f to %.0f", kp->list ? "a comma list of integers" : "an integer",
                     kp->min, kp->max);
        else
            snprintf(out, len, "%s from %.0f up", kp->list ? "a comma list of integers" : "an integer", kp->min);
        break;
    case PARAM_NUMBER:
        if (kp->max > 0)
            snprintf(out, len, "a number from %g to %g", kp->min, kp->max);
        else
            snprintf(out, len, "a number from %g up", kp->min);
        break;
    case PARAM_CPU_LIST:
        snprintf(out, len, "a list of online CPUs such as 0,2-3");
        break;
    default:
        choices_joined(kp->choices, ch, sizeof ch);
        snprintf(out, len, "%s%s", kp->list ? "a comma list of " : "", ch);
        break;
    }
}

static int bad_value(const struct kernel *k, const struct kernel_param *kp, const char *item,
                     char *err, size_t errlen)
{
    char valid[640];
    kind_valid(kp, valid, sizeof valid);
    snprintf(err, errlen, "%s: --%s '%s' is not valid (valid: %s)", k->name, kp->name, item, valid);
    return -1;
}

static int out_of_bounds(const struct kernel_param *kp, double v)
{
    return v < kp->min || (kp->max > 0 && v > kp->max);
}

static int size_bounds(const struct kernel *k, const struct kernel_param *kp, uint64_t v,
                       char *err, size_t errlen)
{
    char lo[32], hi[32];
    if (!out_of_bounds(kp, (double)v))
        return 0;
    format_size((uint64_t)kp->min, lo, sizeof lo);
    if (v < kp->min) {
        snprintf(err, errlen, "%s: --%s %llu is too small (valid: at least %s)", k->name, kp->name,
                 (unsigned long long)v, lo);
    } else {
        format_size((uint64_t)kp->max, hi, sizeof hi);
        snprintf(err, errlen, "%s: --%s %llu is too large (valid: at most %s)", k->name, kp->name,
                 (unsigned long long)v, hi);
    }
    return -1;
}

/* The items of a value: the comma list of a .list parameter, else the value itself. */
static int param_items(const struct kernel_param *kp, const char *text, char *buf, size_t buflen,
                       char **items)
{
    if (kp->list)
        return split_list(text, buf, buflen, items, PARAM_MAX_ITEMS);
    items[0] = (char *)text;
    return 1;
}

static int check_choices(const struct kernel *k, const struct kernel_param *kp, const char *text,
                         struct param_value *v, char *err, size_t errlen)
{
    char buf[1024], *items[PARAM_MAX_ITEMS];
    int n = param_items(kp, text, buf, sizeof buf, items);
    if (n == 0)
        return bad_value(k, kp, text, err, errlen);
    v->choice_items = calloc((size_t)n, sizeof(int));
    for (int j = 0; j < n; j++) {
        int c = choice_index(kp->choices, items[j]);
        if (c < 0)
            return bad_value(k, kp, items[j], err, errlen);
        v->choice_items[j] = c;
    }
    v->nchoice_items = n;
    v->choice = v->choice_items[0];
    return 0;
}

static int check_counts(const struct kernel *k, const struct kernel_param *kp, const char *text,
                        struct param_value *v, char *err, size_t errlen)
{
    char buf[1024], *items[PARAM_MAX_ITEMS];
    int n = param_items(kp, text, buf, sizeof buf, items);
    if (n == 0)
        return bad_value(k, kp, text, err, errlen);
    v->counts = calloc((size_t)n, sizeof(int64_t));
    for (int j = 0; j < n; j++) {
        char *end;
        errno = 0;
        long long c = strtoll(items[j], &end, 10);
        if (errno || *end || end == items[j] || out_of_bounds(kp, (double)c))
            return bad_value(k, kp, items[j], err, errlen);
        v->counts[j] = c;
    }
    v->ncounts = n;
    v->count = v->counts[0];
    return 0;
}

static int check_sizes(const struct kernel *k, const struct kernel_param *kp, const char *text,
                       struct param_value *v, char *err, size_t errlen)
{
    char bad[64];
    v->sizes = calloc(PARAM_MAX_ITEMS, sizeof(uint64_t));
    v->nsizes = parse_size_list(text, v->sizes, PARAM_MAX_ITEMS, bad, sizeof bad);
    if (v->nsizes == -2) {
        snprintf(err, errlen, "%s: --%s lists too many sizes (valid: at most %d, in under 1024 characters%s%s)",
                 k->name, kp->name, PARAM_MAX_ITEMS, kp->keyword ? "; or " : "", kp->keyword ? kp->keyword : "");
        return -1;
    }
    if (v->nsizes < 0)
        return bad_value(k, kp, bad, err, errlen);
    for (int i = 0; i < v->nsizes; i++)
        if (size_bounds(k, kp, v->sizes[i], err, errlen))
            return -1;
    return 0;
}

int param_check(const struct kernel *k, const struct kernel_param *kp, const char *text,
                struct param_value *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->text = text;
    if (!*text || (kp->keyword && strcmp(text, kp->keyword) == 0))
        return 0;
    v->set = true;
    enum param_kind kind = kp->kind;
    if (kind == PARAM_TEXT && kp->choices)
        kind = PARAM_CHOICE;
    switch (kind) {
    case PARAM_TEXT:
        return 0;
    case PARAM_CHOICE:
        return check_choices(k, kp, text, v, err, errlen);
    case PARAM_SIZE:
        if (parse_size(text, &v->size))
            return bad_value(k, kp, text, err, errlen);
        return size_bounds(k, kp, v->size, err, errlen);
    case PARAM_SIZE_LIST:
        return check_sizes(k, kp, text, v, err, errlen);
    case PARAM_COUNT:
        return check_counts(k, kp, text, v, err, errlen);
    case PARAM_NUMBER: {
        char *end;
        double d = strtod(text, &end);
        if (*end || end == text || !isfinite(d) || out_of_bounds(kp, d))
            return bad_value(k, kp, text, err, errlen);
        v->number = d;
        return 0;
    }
    case PARAM_CPU_LIST: {
        v->cpus = calloc(PROBE_MAX_CPUS, sizeof(int));
        v->ncpus = parse_cpu_list(text, v->cpus, PROBE_MAX_CPUS);
        if (v->ncpus <= 0)
            return bad_value(k, kp, text, err, errlen);
        return 0;
    }
    }
    return 0;
}
