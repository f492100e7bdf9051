/* The summary of a result's samples, as docs/results-format.md defines it. */
#ifndef PLATPERF_SUMMARY_H
#define PLATPERF_SUMMARY_H

struct summary {
    int n;
    double min, median, mean, max, stdev;   /* stdev: sample (n-1) standard deviation, 0 if n < 2 */
};

struct summary summarize(const double *samples, int n);

#endif
