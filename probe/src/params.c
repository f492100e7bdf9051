#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
