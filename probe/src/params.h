/* Parsing of command-line values: sizes with k/m/g suffixes, lists, CPU lists. */
#ifndef PLATPERF_PARAMS_H
#define PLATPERF_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* "16k" -> 16384. k/m/g are KiB/MiB/GiB. Returns 0 on success, -1 if not a size. */
int parse_size(const char *s, uint64_t *out);
/* "1k,16k,4m" -> sizes; returns the count, -1 (bad item copied to bad), or -2 when the
 * list has more than max items (or is over 1023 characters). */
int parse_size_list(const char *s, uint64_t *out, int max, char *bad, size_t badlen);
/* "0,2-3" -> cpus; returns the count, or -1. */
int parse_cpu_list(const char *s, int *out, int max);
/* Splits a comma list into items (pointers into a copy kept in buf). Returns the count. */
int split_list(const char *s, char *buf, size_t buflen, char **items, int max);
/* Index of s in NULL-terminated choices, or -1. */
int choice_index(const char *const *choices, const char *s);
/* "a|b|c" into out. */
void choices_joined(const char *const *choices, char *out, size_t outlen);
/* Sizes from lo to hi (inclusive of the first >= hi), `per_octave` geometric points,
 * each rounded down to a multiple of `align`, duplicates dropped. Returns the count. */
int size_sweep(uint64_t lo, uint64_t hi, int per_octave, uint64_t align, uint64_t *out, int max);
/* "16 KiB"-style text for messages. */
void format_size(uint64_t bytes, char *out, size_t outlen);

struct kernel;
struct kernel_param;
struct param_value;
/* Checks `text` against the declared kind of kp and fills *v (kernel.h lists the kinds).
 * On a bad value: one line into err naming kernel, option, the bad item and what is valid;
 * returns -1. */
int param_check(const struct kernel *k, const struct kernel_param *kp, const char *text,
                struct param_value *v, char *err, size_t errlen);

#endif
