/* os-proc: LMBench lat_proc, us per process, per CPU.
 *   fork      fork(); the child exits at once; the parent waits for it
 *   exec      the same, the child closing stdout and execve()ing --program (no arguments,
 *             empty environment): LMBench's /tmp/hello is a dynamically linked program that
 *             writes one line and exits; the default /bin/true is one every board has, also
 *             dynamically linked, so the row pays the dynamic loader as LMBench's does
 *   shell     the same through /bin/sh -c PROGRAM
 *   proccall  one real call and return of LMBench's use_int() (arch/<arch>/proccall.S,
 *             checked by disassembly); the record carries the CPU's core clock, for the
 *             call in cycles
 * A program the system cannot exec (a foreign binary under qemu-user without binfmt_misc)
 * makes the row a warning. docs/probe.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/os_common.h"
#include "timed_loops.h"

#define DEFAULT_PROGRAM "/bin/true"

enum { OP_FORK, OP_EXEC, OP_SHELL, OP_PROCCALL };
static const char *const op_choices[] = {"fork", "exec", "shell", "proccall", NULL};

static const struct kernel_param params[] = {
    {"op", "fork,exec,shell,proccall", op_choices, "process operations to time", .list = true,
     .kind = PARAM_CHOICE},
    {"program", DEFAULT_PROGRAM, NULL, "the program exec and shell run (absolute path; LMBench: a dynamic hello)",
     .kind = PARAM_TEXT},
    {NULL},
};

static volatile uint64_t proc_sink;

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    const char *program = c->state;
    if (c->arg == OP_PROCCALL) {
        proc_sink = pp_proccall(reps, 1);
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
                char *const argv[] = {(char *)program, NULL};
                execve(program, argv, NULL);
            } else {
                /* a shell that cannot run the program would say so on the probe's stderr
                 * once per try: the row's warning says it */
                int null = open("/dev/null", O_WRONLY);
                if (null >= 0)
                    dup2(null, 2);
                execl("/bin/sh", "sh", "-c", program, (char *)NULL);
            }
            _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR)
                OS_FAIL(c, "waitpid");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            errno = ENOEXEC;
            OS_FAIL(c, c->arg == OP_EXEC ? "the child could not exec --program" : "the child's /bin/sh -c --program failed");
        }
    }
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    const char *program = kernel_value(ctx, "program");
    if (program[0] != '/' || access(program, X_OK) != 0) {
        snprintf(err, errlen, "os-proc: --program '%s' is not an executable file given by its absolute path "
                 "(e.g. %s)", program, DEFAULT_PROGRAM);
        return -1;
    }
    return 0;
}

static int run(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *ops = kernel_choice_list(ctx, "op", &n);
    const char *program = kernel_value(ctx, "program");
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = {.benchmark = "os-proc", .metric = "latency", .figure = OS_LATENCY_US,
                            .per_rep = 1, .body = body, .arg = ops[i], .state = (void *)program,
                            .with_clock = ops[i] == OP_PROCCALL};
        json_obj_init(&c.params);
        json_obj_str(&c.params, "op", op_choices[ops[i]]);
        /* another program is another measurement; the default keeps LMBench's key */
        if ((ops[i] == OP_EXEC || ops[i] == OP_SHELL) && strcmp(program, DEFAULT_PROGRAM) != 0)
            json_obj_str(&c.params, "program", program);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

const struct kernel os_proc_kernel = {
    .name = "os-proc",
    .help = "process creation as LMBench lat_proc: fork, exec, shell, proccall (us)",
    .params = params,
    .prepare = prepare,
    .run = run,
};
