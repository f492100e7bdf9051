/* os-syscall: LMBench lat_syscall null/read/write/stat/fstat/open, us per call, per CPU.
 * null = getppid(); read = 1 byte from /dev/zero; write = 1 byte to /dev/null; stat and
 * open (+close) on a file; fstat on an open descriptor of it. LMBench names a system header
 * as the file; here it is a file of the run's scratch directory (--dir), so the path's
 * length and file system are the same on every board (docs/probe.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/os_common.h"
#include "scratch.h"

enum { OP_NULL, OP_READ, OP_WRITE, OP_STAT, OP_FSTAT, OP_OPEN };
static const char *const op_choices[] = {"null", "read", "write", "stat", "fstat", "open", NULL};

static const struct kernel_param params[] = {
    {"op", "null,read,write,stat,fstat,open", op_choices, "system calls to time", .list = true,
     .kind = PARAM_CHOICE},
    {NULL},
};

struct syscall_state {
    int fd;
    char path[1024];
};

static int setup(struct os_case *c)
{
    struct syscall_state *st = calloc(1, sizeof *st);
    c->state = st;
    st->fd = -1;
    if (c->arg == OP_READ || c->arg == OP_WRITE) {
        st->fd = open(c->arg == OP_READ ? "/dev/zero" : "/dev/null", c->arg == OP_READ ? O_RDONLY : O_WRONLY);
        if (st->fd < 0) {
            snprintf(c->err, sizeof c->err, "cannot open %s: %s", c->arg == OP_READ ? "/dev/zero" : "/dev/null",
                     strerror(errno));
            return -1;
        }
    } else if (c->arg != OP_NULL) {
        if (scratch_file("syscall-file", 4096, st->path, sizeof st->path) != 0) {
            snprintf(c->err, sizeof c->err, "cannot write a file in the scratch directory: %s", strerror(errno));
            return -1;
        }
        if (c->arg == OP_FSTAT && (st->fd = open(st->path, O_RDONLY)) < 0) {
            snprintf(c->err, sizeof c->err, "cannot open %s: %s", st->path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void teardown(struct os_case *c)
{
    struct syscall_state *st = c->state;
    if (st->fd >= 0)
        close(st->fd);
    free(st);
}

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct syscall_state *st = c->state;
    struct stat sb;
    char ch = 0;
    switch (c->arg) {
    case OP_NULL:
        while (reps--)
            getppid();
        break;
    case OP_READ:
        while (reps--)
            if (read(st->fd, &ch, 1) != 1)
                OS_FAIL(c, "read /dev/zero");
        break;
    case OP_WRITE:
        while (reps--)
            if (write(st->fd, &ch, 1) != 1)
                OS_FAIL(c, "write /dev/null");
        break;
    case OP_STAT:
        while (reps--)
            if (stat(st->path, &sb) != 0)
                OS_FAIL(c, "stat");
        break;
    case OP_FSTAT:
        while (reps--)
            if (fstat(st->fd, &sb) != 0)
                OS_FAIL(c, "fstat");
        break;
    case OP_OPEN:
        while (reps--) {
            int fd = open(st->path, O_RDONLY);
            if (fd < 0)
                OS_FAIL(c, "open");
            close(fd);
        }
        break;
    }
}

static int run(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *ops = kernel_choice_list(ctx, "op", &n);
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = {.benchmark = "os-syscall", .metric = "latency", .figure = OS_LATENCY_US,
                            .per_rep = 1, .setup = setup, .body = body, .teardown = teardown, .arg = ops[i]};
        json_obj_init(&c.params);
        json_obj_str(&c.params, "op", op_choices[ops[i]]);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

const struct kernel os_syscall_kernel = {
    .name = "os-syscall",
    .help = "system call latency as LMBench lat_syscall: null, read, write, stat, fstat, open (us per call)",
    .params = params,
    .run = run,
};
