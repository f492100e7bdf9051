#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Same definitions as src/platperf/stats.py summary(): median of the sorted samples
 * (mean of the middle two for even n), sample standard deviation with n-1. */
struct summary summarize(const double *samples, int n)
{
    struct summary s = {0};
    s.n = n;
    if (n <= 0)
        return s;
    double *v = malloc(sizeof(double) * (size_t)n);
    memcpy(v, samples, sizeof(double) * (size_t)n);
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
    free(v);
    return s;
}
