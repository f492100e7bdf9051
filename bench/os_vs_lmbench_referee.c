/* bench/os_vs_lmbench.py's referee: the lat_syscall calls (and fork) in a plain loop, timed
 * with clock_gettime around 5 ms of calls, median of 7 (our own code, built in /tmp). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
volatile double keep_libm;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
    const char *op = argv[1], *file = argv[2];
    int fd = -1; char c = 0; struct stat sb;
    if (!strcmp(op, "read")) fd = open("/dev/zero", O_RDONLY);
    else if (!strcmp(op, "write")) fd = open("/dev/null", O_WRONLY);
    else if (!strcmp(op, "fstat")) fd = open(file, O_RDONLY);
    keep_libm = sqrt((double)argc);          /* libm stays linked, as in LMBench's programs */
    long n = 1; double v[7];
    for (int s = -1; s < 7; s++) {          /* s = -1: grow n until one timing lasts 5 ms */
        for (;;) {
            double t0 = now();
            for (long i = 0; i < n; i++) {
                if (!strcmp(op, "null")) getppid();
                else if (!strcmp(op, "read")) { if (read(fd, &c, 1) != 1) return 1; }
                else if (!strcmp(op, "write")) { if (write(fd, &c, 1) != 1) return 1; }
                else if (!strcmp(op, "stat")) { if (stat(file, &sb)) return 1; }
                else if (!strcmp(op, "fstat")) { if (fstat(fd, &sb)) return 1; }
                else if (!strcmp(op, "fork")) { pid_t p = fork(); if (p == 0) _exit(0); if (p < 0) return 1;
                                                  waitpid(p, NULL, 0); }
                else { int f = open(file, O_RDONLY); if (f < 0) return 1; close(f); }
            }
            double dt = now() - t0;
            if (s >= 0) { v[s] = dt / n / 1e3; break; }
            if (dt >= 5e6) break;
            n = dt < 5e5 ? n * 10 : (long)(n * 5.5e6 / dt) + 1;
        }
    }
    qsort(v, 7, sizeof v[0], cmp);
    printf("%.4f\n", v[3]);
    return 0;
}
