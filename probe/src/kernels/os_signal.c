/* os-signal: LMBench lat_sig install/catch/prot, us per signal, per CPU.
 * install = sigaction(SIGUSR1) with a handler. catch = sending SIGUSR1 to oneself and
 * running its empty handler, less the cost of sending signal 0 (measured just before on the
 * same CPU), as LMBench subtracts it. prot = a write to a read-only shared mapping of a file
 * raising SIGSEGV, the handler returning, less catch (LMBench: "assume protection faults
 * cost the same as a normal catch"). The probe is multithreaded: signals go to the
 * measuring thread itself (tgkill), where LMBench's single-threaded kill() lands. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer.h"
#include "kernels/os_common.h"
#include "scratch.h"

enum { OP_INSTALL, OP_CATCH, OP_PROT, OP_SEND };
static const char *const op_choices[] = {"install", "catch", "prot", NULL};

static const struct kernel_param params[] = {
    {"op", "install,catch,prot", op_choices, "signal operations to time", .list = true, .kind = PARAM_CHOICE},
    {NULL},
};

static void on_usr1(int sig) { (void)sig; }

/* prot: the faults this thread still has to take before its page becomes writable */
static __thread volatile char *prot_page;
static __thread volatile uint64_t prot_left;
static __thread sigjmp_buf prot_done;

static void on_segv(int sig)
{
    /* a plain handler, as LMBench's (SA_SIGINFO would copy a siginfo per fault); outside
     * the prot body no fault is ours: a real crash stays a crash */
    if (!prot_page) {
        signal(sig, SIG_DFL);
        return;
    }
    /* returning retries the write, which faults again; the last fault leaves (an
     * mprotect() here would do, but qemu-user does not see it and faults forever) */
    if (--prot_left == 0 || probe_interrupted())
        siglongjmp(prot_done, 1);
}

struct signal_state {
    pid_t pid, tid;
    int fd;
    char *page;
};

static int setup(struct os_case *c)
{
    struct signal_state *st = calloc(1, sizeof *st);
    c->state = st;
    st->pid = getpid();
    st->tid = (pid_t)syscall(SYS_gettid);
    st->fd = -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (c->arg == OP_CATCH) {
        sa.sa_handler = on_usr1;
        sigaction(SIGUSR1, &sa, NULL);
    }
    if (c->arg == OP_PROT) {
        char path[1024];
        if (scratch_file("signal-prot", page_size(), path, sizeof path) != 0
            || (st->fd = open(path, O_RDWR)) < 0) {
            snprintf(c->err, sizeof c->err, "cannot make the file to map: %s", strerror(errno));
            return -1;
        }
        st->page = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, st->fd, 0);
        if (st->page == MAP_FAILED) {
            st->page = NULL;
            snprintf(c->err, sizeof c->err, "mmap: %s", strerror(errno));
            return -1;
        }
        sa.sa_handler = on_segv;
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
        prot_page = st->page;
    }
    return 0;
}

static void teardown(struct os_case *c)
{
    struct signal_state *st = c->state;
    /* the handler stays: in parallel mode another CPU's thread may still be faulting, and
     * a fault that is not on this thread's page resets it to the default anyway */
    if (c->arg == OP_PROT)
        prot_page = NULL;
    if (st->page)
        munmap(st->page, page_size());
    if (st->fd >= 0)
        close(st->fd);
    free(st);
}

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct signal_state *st = c->state;
    struct sigaction sa, old;
    switch (c->arg) {
    case OP_INSTALL:
        while (reps--) {
            sa.sa_handler = on_usr1;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = 0;
            sigaction(SIGUSR1, &sa, &old);
        }
        break;
    case OP_SEND:
    case OP_CATCH:
        while (reps--)
            if (syscall(SYS_tgkill, st->pid, st->tid, c->arg == OP_CATCH ? SIGUSR1 : 0) != 0)
                OS_FAIL(c, "tgkill");
        break;
    case OP_PROT:
        prot_left = reps;
        /* faults `reps` times: the handler returns and the write is retried, until the
         * last fault jumps back here */
        if (sigsetjmp(prot_done, 1) == 0)
            *(volatile char *)st->page = 1;
        break;
    }
}

static int run(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *ops = kernel_choice_list(ctx, "op", &n);
    struct os_case send = {.benchmark = "os-signal", .metric = "latency", .figure = OS_LATENCY_US,
                           .per_rep = 1, .setup = setup, .body = body, .teardown = teardown, .arg = OP_SEND};
    struct os_case catch = send;
    catch.arg = OP_CATCH;
    catch.baseline = &send;
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = send;
        c.arg = ops[i];
        c.baseline = ops[i] == OP_CATCH ? &send : ops[i] == OP_PROT ? &catch : NULL;
        json_obj_init(&c.params);
        json_obj_str(&c.params, "op", op_choices[ops[i]]);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

const struct kernel os_signal_kernel = {
    .name = "os-signal",
    .help = "signal latency as LMBench lat_sig: install, catch, prot (us per signal)",
    .params = params,
    .run = run,
};
