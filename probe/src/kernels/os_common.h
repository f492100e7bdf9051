/* What the OS kernels (os_*.c, TI's LMBench OS rows) share: one timed operation per case,
 * sampled per CPU like the memory kernels, with LMBench's overhead subtractions done on
 * the same CPU right before, and a warning instead of a result where the system refuses
 * the operation (qemu-user lacks some syscalls). docs/probe.md defines each row. */
#ifndef PLATPERF_OS_COMMON_H
#define PLATPERF_OS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "exec.h"
#include "record.h"
#include "kernel.h"

enum os_figure {
    OS_LATENCY_US,    /* microseconds per operation, lower is better */
    OS_BANDWIDTH,     /* MB/s (10^6 bytes), per_rep = bytes per repetition, higher is better */
    OS_RATE,          /* operations per second, higher is better */
};

struct os_case {
    const char *benchmark;          /* "os-syscall" */
    struct json_obj params;
    const char *metric;             /* "latency" */
    enum os_figure figure;
    double per_rep;                 /* operations (or bytes) one repetition of body is */
    /* On the pinned thread before timing: set c->state. Return 0, or -1 with c->err set
     * (the row becomes a warning: unsupported here). */
    int (*setup)(struct os_case *c);
    void (*body)(void *c, uint64_t reps);   /* exec_sample's body; gets the case */
    void (*teardown)(struct os_case *c);    /* NULL or frees what setup made */
    /* Measured first on the same CPU; the median of its per-operation figure is
     * subtracted from every sample of this case (LMBench's overhead subtraction). */
    const struct os_case *baseline;
    int arg;                        /* the kernel's (an op index, a process count) */
    int with_clock;                 /* the result carries the CPU's core_clock (a figure of cycles) */
    uint64_t size;                  /* the kernel's (bytes) */
    /* filled while measuring: */
    void *state;
    int failed_errno;               /* a body sets it when a call fails: no result */
    char err[1200];
};

/* Measures `c` on every CPU of ctx (serial or parallel), emits one result per CPU, or a
 * warning "os-unsupported" naming the row and the reason. Returns 0, or 1 after an error
 * record (a measuring thread could not start). */
int os_run_case(struct run_ctx *ctx, const struct os_case *c);

/* Sets c->failed_errno once; a body calls it on a failed system call and stops. */
void os_fail(struct os_case *c, const char *what);
#define OS_FAIL(c, what) do { os_fail((c), (what)); return; } while (0)

/* LMBench's bread(): reads every word of buf, so file and mmap bandwidth include using the data. */
long os_bread(const void *buf, size_t bytes);

/* A helper process: fork, run fn(arg) in the child (which must _exit), pinned where the
 * caller is. Returns the pid or -1. os_reap() kills (SIGKILL) and waits for it. */
pid_t os_spawn(void (*fn)(void *arg), void *arg);
void os_reap(pid_t pid);

/* Loopback TCP: a listening socket on 127.0.0.1, port chosen by the kernel. */
int os_tcp_listen(int *port);
int os_tcp_connect(int port);

#endif
