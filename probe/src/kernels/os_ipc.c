/* os-ipc and os-ipc-bw: LMBench's interprocess rows, both ends pinned to the measured CPU.
 *   os-ipc kind=pipe     lat_pipe: a 1-byte token's round trip through two pipes to a child (us)
 *          kind=unix     lat_unix: the same over an AF_UNIX stream socketpair
 *          kind=tcp      lat_tcp: the same over a loopback TCP connection to a child server
 *          kind=connect  lat_connect: connect() to a loopback server that accepts and closes, close()
 *          kind=select-tcp (fds)  lat_select -n fds tcp: select() for writing, zero timeout, on
 *                        one connected TCP socket dup()ed to fds descriptors (all of them checked)
 *          kind=sem      lat_sem: SysV semaphore ping-pong with a child, half a round trip
 *                        (LMBench divides by two)
 *   os-ipc-bw kind=pipe|unix  bw_pipe / bw_unix: a child writes 64 KiB chunks, this thread reads (MB/s)
 * Pinned to one CPU every message is a context switch; LMBench leaves the two processes to the
 * scheduler (docs/probe.md: bench/os_vs_lmbench.py pins LMBench the same way to compare).
 * peer-cpu N puts the child (echo peer, server, writer) on CPU N instead: the messages then
 * cross between two CPUs (two clusters' cores on a big.LITTLE board), and the key says so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec.h"
#include "kernels/os_common.h"

#define BW_CHUNK (64 * 1024)   /* LMBench's XFERSIZE */

enum { K_PIPE, K_UNIX, K_TCP, K_CONNECT, K_SELECT, K_SEM };
static const char *const kind_choices[] = {"pipe", "unix", "tcp", "connect", "select-tcp", "sem", NULL};
static const char *const bw_choices[] = {"pipe", "unix", NULL};

static const struct kernel_param params[] = {
    {"kind", "pipe,unix,tcp,connect,select-tcp,sem", kind_choices, "transports to time", .list = true,
     .kind = PARAM_CHOICE},
    {"fds", "200", NULL, "descriptors select-tcp waits on (TI's row: 200)", .kind = PARAM_COUNT, .min = 1, .max = 400},
    {"peer-cpu", "", NULL, "the CPU of the child (echo peer, server); default: the measured CPU, as TI's rows",
     .kind = PARAM_CPU_LIST},
    {NULL},
};

static const struct kernel_param bw_params[] = {
    {"kind", "pipe,unix", bw_choices, "transports to measure", .list = true, .kind = PARAM_CHOICE},
    {"peer-cpu", "", NULL, "the CPU of the writing child; default: the measured CPU", .kind = PARAM_CPU_LIST},
    {NULL},
};

static int peer_cpu = -1;   /* the child's CPU (peer-cpu), -1: where the measuring thread is */

/* peer-cpu: one online CPU other than the measured ones, or none. */
static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    int n;
    const int *cpus = kernel_cpus(ctx, "peer-cpu", &n);
    peer_cpu = n ? cpus[0] : -1;
    if (n > 1) {
        snprintf(err, errlen, "--peer-cpu takes one CPU (got %d)", n);
        return -1;
    }
    for (int i = 0; n && i < ctx->ncpus; i++)
        if (ctx->cpus[i] == peer_cpu) {
            snprintf(err, errlen, "CPU %d is both measured (--cpus) and the peer (--peer-cpu); give another", peer_cpu);
            return -1;
        }
    if (n && !cpu_is_online(peer_cpu)) {
        snprintf(err, errlen, "peer CPU %d is not online", peer_cpu);
        return -1;
    }
    return 0;
}

struct ipc_state {
    int to_child, from_child;   /* descriptors this thread writes / reads */
    int child_fds[2];           /* the child's ends, closed here after the fork */
    int listen_fd, port;
    int fds[400], nfds, maxfd, peer;   /* select: the descriptors, the accepted end */
    fd_set set;
    int semid;
    pid_t child;
    char *buf;
};

struct echo_arg {
    int rd, wr;
    int listen_fd;
    int semid;
    int mode;   /* K_* or -1 for the bandwidth writer */
};

static void child_main(void *p)
{
    struct echo_arg *a = p;
    char c[1];
    if (peer_cpu >= 0 && pin_to_cpu(peer_cpu) != 0)
        return;
    if (a->mode == K_SEM) {
        struct sembuf sop[2] = {{0, -1, 0}, {1, 1, 0}};
        while (semop(a->semid, sop, 2) == 0)
            ;
        return;
    }
    if (a->mode == K_CONNECT) {
        for (;;) {
            int s = accept(a->listen_fd, NULL, NULL);
            if (s >= 0)
                close(s);
        }
    }
    if (a->mode == K_TCP) {
        a->rd = a->wr = accept(a->listen_fd, NULL, NULL);
        if (a->rd < 0)
            return;
    }
    if (a->mode < 0) {   /* bandwidth: write until the reader goes */
        char *buf = malloc(BW_CHUNK);
        memset(buf, 1, BW_CHUNK);
        for (;;)
            for (size_t done = 0; done < BW_CHUNK;) {
                ssize_t n = write(a->wr, buf + done, BW_CHUNK - done);
                if (n <= 0)
                    return;
                done += (size_t)n;
            }
    }
    while (read(a->rd, c, 1) == 1)
        if (write(a->wr, c, 1) != 1)
            return;
}

static int fail_setup(struct os_case *c, const char *what)
{
    snprintf(c->err, sizeof c->err, "%s: %s", what, strerror(errno));
    return -1;
}

/* The channel of the case (a pipe pair, a socketpair, a loopback listener, semaphores),
 * the child's ends into a. */
static int open_channel(struct os_case *c, struct ipc_state *st, struct echo_arg *a)
{
    if (c->arg == K_PIPE) {
        int p1[2], p2[2];
        if (pipe(p1) != 0)
            return fail_setup(c, "pipe");
        if (pipe(p2) != 0) {
            close(p1[0]); close(p1[1]);
            return fail_setup(c, "pipe");
        }
        st->to_child = p1[1];
        a->rd = st->child_fds[0] = p1[0];
        a->wr = st->child_fds[1] = p2[1];
        st->from_child = p2[0];
    } else if (c->arg == K_UNIX) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            return fail_setup(c, "socketpair");
        st->to_child = st->from_child = sv[0];
        a->rd = a->wr = st->child_fds[0] = sv[1];
    } else if (c->arg == K_TCP || c->arg == K_CONNECT || c->arg == K_SELECT) {
        if ((st->listen_fd = os_tcp_listen(&st->port)) < 0)
            return fail_setup(c, "listen on 127.0.0.1");
        a->listen_fd = st->listen_fd;
    } else if (c->arg == K_SEM) {
        st->semid = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
        if (st->semid < 0)
            return fail_setup(c, "semget");
        unsigned short init[2] = {0, 1};
        union { int val; struct semid_ds *buf; unsigned short *array; } arg = {.array = init};
        if (semctl(st->semid, 0, SETALL, arg) != 0)
            return fail_setup(c, "semctl");
        a->semid = st->semid;
    }
    return 0;
}

/* LMBench's select set: one loopback connection dup()ed fds times (200 distinct connections
 * cost ~25 % more per select here: a C loop, 21.3-22.0 against 17.0-18.8 us). All fds are
 * checked (maxfd + 1); LMBench passes nfds = 200 and so skips its highest few. No child: the
 * connection is accepted here. */
static int open_select_set(struct os_case *c, struct ipc_state *st)
{
    int conn = os_tcp_connect(st->port);
    st->peer = conn < 0 ? -1 : accept(st->listen_fd, NULL, NULL);
    if (conn < 0 || st->peer < 0) {
        if (conn >= 0)
            close(conn);
        return fail_setup(c, "connect the select descriptors");
    }
    FD_ZERO(&st->set);
    for (st->nfds = 0; st->nfds < (int)c->size; st->nfds++) {
        int fd = st->nfds == 0 ? conn : dup(conn);
        if (fd < 0 || fd >= FD_SETSIZE) {
            if (fd >= 0)
                close(fd);
            errno = fd < 0 ? errno : EMFILE;
            return fail_setup(c, "dup the select descriptors");
        }
        st->fds[st->nfds] = fd;
        FD_SET(fd, &st->set);
        if (fd > st->maxfd)
            st->maxfd = fd;
    }
    return 0;
}

static int setup(struct os_case *c)
{
    struct ipc_state *st = calloc(1, sizeof *st);
    c->state = st;
    st->to_child = st->from_child = st->listen_fd = st->peer = -1;
    st->child_fds[0] = st->child_fds[1] = -1;
    st->semid = -1;
    struct echo_arg a = {-1, -1, -1, -1, c->arg};
    int bw = c->figure == OS_BANDWIDTH;
    if (bw)
        a.mode = -1;
    if (open_channel(c, st, &a) != 0)
        return -1;
    if (c->arg == K_SELECT)
        return open_select_set(c, st);
    st->child = os_spawn(child_main, &a);
    if (st->child < 0)
        return fail_setup(c, "fork");
    for (int i = 0; i < 2; i++)
        if (st->child_fds[i] >= 0) {
            close(st->child_fds[i]);
            st->child_fds[i] = -1;
        }
    if (c->arg == K_TCP) {
        st->to_child = st->from_child = os_tcp_connect(st->port);
        if (st->to_child < 0)
            return fail_setup(c, "connect to 127.0.0.1");
    }
    if (bw)
        st->buf = malloc(BW_CHUNK);
    return 0;
}

static void teardown(struct os_case *c)
{
    struct ipc_state *st = c->state;
    os_reap(st->child);
    if (st->to_child >= 0)
        close(st->to_child);
    if (st->from_child >= 0 && st->from_child != st->to_child)
        close(st->from_child);
    for (int i = 0; i < 2; i++)
        if (st->child_fds[i] >= 0)
            close(st->child_fds[i]);
    for (int i = 0; i < st->nfds; i++)
        close(st->fds[i]);
    if (st->peer >= 0)
        close(st->peer);
    if (st->listen_fd >= 0)
        close(st->listen_fd);
    if (st->semid >= 0)
        semctl(st->semid, 0, IPC_RMID);
    free(st->buf);
    free(st);
}

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct ipc_state *st = c->state;
    char ch = 'x';
    if (c->figure == OS_BANDWIDTH) {
        while (reps--)
            for (size_t done = 0; done < BW_CHUNK;) {
                ssize_t n = read(st->from_child, st->buf + done, BW_CHUNK - done);
                if (n <= 0)
                    OS_FAIL(c, "read");
                done += (size_t)n;
            }
        return;
    }
    switch (c->arg) {
    case K_PIPE:
    case K_UNIX:
    case K_TCP:
        while (reps--)
            if (write(st->to_child, &ch, 1) != 1 || read(st->from_child, &ch, 1) != 1)
                OS_FAIL(c, "round trip");
        break;
    case K_CONNECT:
        while (reps--) {
            int s = os_tcp_connect(st->port);
            if (s < 0)
                OS_FAIL(c, "connect");
            close(s);
        }
        break;
    case K_SELECT:
        while (reps--) {
            fd_set w = st->set;
            struct timeval tv = {0, 0};
            if (select(st->maxfd + 1, NULL, &w, NULL, &tv) < 0)
                OS_FAIL(c, "select");
        }
        break;
    case K_SEM: {
        struct sembuf sop[2] = {{1, -1, 0}, {0, 1, 0}};
        while (reps--)
            if (semop(st->semid, sop, 2) != 0)
                OS_FAIL(c, "semop");
        break;
    }
    }
}

static int run(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *kinds = kernel_choice_list(ctx, "kind", &n);
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = {.benchmark = "os-ipc", .metric = "latency", .figure = OS_LATENCY_US,
                            .per_rep = kinds[i] == K_SEM ? 2 : 1, .setup = setup, .body = body,
                            .teardown = teardown, .arg = kinds[i]};
        json_obj_init(&c.params);
        if (kinds[i] == K_SELECT) {
            c.size = (uint64_t)kernel_count(ctx, "fds");
            json_obj_uint(&c.params, "fds", c.size);
        }
        json_obj_str(&c.params, "kind", kind_choices[kinds[i]]);
        if (peer_cpu >= 0 && kinds[i] != K_SELECT)   /* select has no child */
            json_obj_uint(&c.params, "peer_cpu", (uint64_t)peer_cpu);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

static int run_bw(struct run_ctx *ctx)
{
    int n, rc = 0;
    const int *kinds = kernel_choice_list(ctx, "kind", &n);
    for (int i = 0; i < n && !probe_interrupted() && rc == 0; i++) {
        struct os_case c = {.benchmark = "os-ipc-bw", .metric = "bandwidth", .figure = OS_BANDWIDTH,
                            .per_rep = BW_CHUNK, .setup = setup, .body = body, .teardown = teardown,
                            .arg = kinds[i]};
        json_obj_init(&c.params);
        json_obj_str(&c.params, "kind", bw_choices[kinds[i]]);
        if (peer_cpu >= 0)
            json_obj_uint(&c.params, "peer_cpu", (uint64_t)peer_cpu);
        rc = os_run_case(ctx, &c);
    }
    return rc;
}

const struct kernel os_ipc_kernel = {
    .name = "os-ipc",
    .help = "IPC latency as LMBench lat_pipe, lat_unix, lat_tcp, lat_connect, lat_select, lat_sem (us)",
    .params = params,
    .prepare = prepare,
    .run = run,
};

const struct kernel os_ipc_bw_kernel = {
    .name = "os-ipc-bw",
    .help = "IPC bandwidth as LMBench bw_pipe, bw_unix: 64 KiB chunks from a child process (MB/s)",
    .params = bw_params,
    .prepare = prepare,
    .run = run_bw,
};
