/* bench/os_vs_lmbench.py's lat_ctx referee (our own code, built in /tmp): a token ring of P
 * processes through pipes, each summing its own S-byte working set when it has the token, as
 * LMBench's lat_ctx and platperf's os-ctx define it; all processes on the CPU the program is
 * started on (taskset), so every hop is a context switch.
 *
 *   ctx-referee P S written     every process wrote its working set (its own pages)
 *   ctx-referee P S untouched   the P-1 forked processes never wrote theirs: the pages are
 *                               the kernel's one shared zero page, what LMBench's doit()
 *                               reads when gcc -O2 turns its malloc + bzero into calloc and
 *                               glibc's calloc leaves a fresh mapping unwritten
 *
 * Prints the hop, the overhead and their difference in us: the hop is a token round over P;
 * the overhead is LMBench's, in one process: a write and a read on the i-th of P pipes and
 * the sum over its own cache-warm S bytes. Each is the median of 7 timings of at least 5 ms
 * (clock_gettime), after one of each untimed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 64
static int ring[MAX_PROCS][2];
static volatile long sink;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* every word, one add chain per 1 KiB block (LMBench's bread sums 128 words in one expression) */
static long sum_words(const long *p, size_t bytes)
{
    long sum = 0;
    for (size_t i = 0; i + 128 <= bytes / sizeof(long); i += 128) {
        long block = 0;
#pragma GCC unroll 128          /* one unrolled chain per block, as bread's one expression compiles */
        for (int k = 0; k < 128; k++)
            block += p[i + k];
        sum += block;
    }
    return sum;
}

static long *working_set(size_t bytes, int written)
{
    if (!bytes)
        return NULL;
    long *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    if (written)
        memset(p, 1, bytes);
    return p;
}

static void member(int k, size_t bytes, int written)
{
    long *data = working_set(bytes, written);
    int token;
    for (;;) {
        if (read(ring[k - 1][0], &token, sizeof token) != sizeof token)
            _exit(0);
        sink += data ? sum_words(data, bytes) : 0;
        if (write(ring[k][1], &token, sizeof token) != sizeof token)
            _exit(0);
    }
}

/* ns per repetition of `round` (median of 7 timings of >= 5 ms) */
static double timed(void (*round)(int procs, long *data, size_t bytes, long n), int procs, long *data, size_t bytes)
{
    long n = 1;
    double v[7];
    round(procs, data, bytes, 1);
    for (int s = -1; s < 7; s++)
        for (;;) {
            double t0 = now_ns();
            round(procs, data, bytes, n);
            double dt = now_ns() - t0;
            if (s >= 0) {
                v[s] = dt / n;
                break;
            }
            if (dt >= 5e6)
                break;
            n = dt < 5e5 ? n * 10 : (long)(n * 5.5e6 / dt) + 1;
        }
    qsort(v, 7, sizeof v[0], cmp);
    return v[3];
}

static void token_round(int procs, long *data, size_t bytes, long n)
{
    int token = 1;
    while (n--) {
        if (write(ring[0][1], &token, sizeof token) != sizeof token
            || read(ring[procs - 1][0], &token, sizeof token) != sizeof token)
            exit(1);
        sink += data ? sum_words(data, bytes) : 0;
    }
}

static int hop_pipe;
static void overhead_round(int procs, long *data, size_t bytes, long n)
{
    int token = 1;
    while (n--) {
        if (write(ring[hop_pipe][1], &token, sizeof token) != sizeof token
            || read(ring[hop_pipe][0], &token, sizeof token) != sizeof token)
            exit(1);
        hop_pipe = (hop_pipe + 1) % procs;
        sink += data ? sum_words(data, bytes) : 0;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "written") && strcmp(argv[3], "untouched"))) {
        fprintf(stderr, "usage: %s PROCS BYTES written|untouched\n", argv[0]);
        return 2;
    }
    int procs = atoi(argv[1]), written = !strcmp(argv[3], "written");
    size_t bytes = strtoul(argv[2], NULL, 10);
    if (procs < 2 || procs > MAX_PROCS)
        return 2;
    for (int i = 0; i < procs; i++)
        if (pipe(ring[i]) != 0)
            return 1;
    long *data = working_set(bytes, 1);      /* this process's own, written in both modes */
    double overhead = timed(overhead_round, procs, data, bytes);
    pid_t pids[MAX_PROCS];
    for (int k = 1; k < procs; k++) {
        pids[k] = fork();
        if (pids[k] == 0)
            member(k, bytes, written);
    }
    double hop = timed(token_round, procs, data, bytes) / procs;
    for (int k = 1; k < procs; k++) {      /* each holds every pipe: no end-of-file reaches it */
        kill(pids[k], SIGKILL);
        waitpid(pids[k], NULL, 0);
    }
    printf("%.4f %.4f %.4f\n", hop / 1e3, overhead / 1e3, (hop - overhead) / 1e3);
    return 0;
}
