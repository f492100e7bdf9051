/* os-proc: LMBench lat_proc, us per process, per CPU.
 *   fork      fork(); the child exits at once; the parent waits for it
 *   exec      the same, the child closing stdout and execve()ing a program that writes
 *             "Hello world" and exits: LMBench's /tmp/hello; here the probe itself
 *             (`platperf-probe hello`, before any setup), a static binary (docs/probe.md)
 *   shell     the same through /bin/sh -c
 *   proccall  a direct call of a function the compiler may not inline nor see through
 * Under qemu-user an exec of the probe needs binfmt_misc: without it the row is a warning. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/os_common.h"

enum { OP_FORK, OP_EXEC, OP_SHELL, OP_PROCCALL };
static const char *const op_choices[] = {"fork", "exec", "shell", "proccall", NULL};

static const struct kernel_param params[] = {
    {"op", "fork,exec,shell,proccall", op_choices, "process operations to time", .list = true,
     .kind = PARAM_CHOICE},
    {NULL},
};

struct proc_state {
    char exe[1024];
    char cmd[1100];
};

/* LMBench calls use_int() of another file: a direct call the compiler may not inline */
__attribute__((noipa)) static int procedure(int v) { return v + 1; }
static volatile int proc_sink;

static int setup(struct os_case *c)
{
    struct proc_state *st = calloc(1, sizeof *st);
    c->state = st;
    ssize_t n = readlink("/proc/self/exe", st->exe, sizeof st->exe - 1);
    if (n <= 0) {
        snprintf(c->err, sizeof c->err, "cannot find the probe's own binary (/proc/self/exe): %s", strerror(errno));
        return -1;
    }
    st->exe[n] = 0;
    snprintf(st->cmd, sizeof st->cmd, "'%s' hello", st->exe);
    return 0;
}

static void teardown(struct os_case *c) { free(c->state); }

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct proc_state *st = c->state;
    if (c->arg == OP_PROCCALL) {
        int v = 0;
        while (reps--)
            v = procedure(v);
        proc_sink = v;
        return;
    }
    while (reps--) {
        pid_t pid = fork();
        if (pid < 0)
            OS_FAIL(c, "fork");
        if (pid == 0) {
            if (c->arg == OP_FORK)
                _exit(0);
            close(1);
            if (c->arg == OP_EXEC) {
                char *const argv[] = {st->exe, "hello", NULL};
                execve(st->exe, argv, NULL);
            } else {
                /* a shell that cannot run the probe (qemu-user without binfmt_misc) would
                 * say so on the probe's stderr once per try: the row's warning says it */
                int null = open("/dev/null", O_WRONLY);
                if (null >= 0)
                    dup2(null, 2);
                execl("/bin/sh", "sh", "-c", st->cmd, (char *)NULL);
            }
            _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR)
                OS_FAIL(c, "waitpid");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            errno = ENOEXEC;
            OS_FAIL(c, c->arg == OP_EXEC ? "the child could not exec the probe" : "the child's /bin/sh failed");
        }
    }
}

static int run(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *ops = kernel_choice_list(ctx, "op", &n);
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = {.benchmark = "os-proc", .metric = "latency", .figure = OS_LATENCY_US,
                            .per_rep = 1, .setup = setup, .body = body, .teardown = teardown, .arg = ops[i]};
        json_obj_init(&c.params);
        json_obj_str(&c.params, "op", op_choices[ops[i]]);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

const struct kernel os_proc_kernel = {
    .name = "os-proc",
    .help = "process creation as LMBench lat_proc: fork, exec, shell, proccall (us)",
    .params = params,
    .run = run,
};
