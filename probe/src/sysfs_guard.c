/* The restore guardian (sysfs_guard.h). The child uses only async-signal-safe calls:
 * the probe may have threads when it forks. */
#include "sysfs_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *title_area;     /* the probe's argv strings: the guardian writes its name there */
static size_t title_len;

void guard_title_area(char *area, size_t len)
{
    title_area = area;
    title_len = len;
}

int sysfs_read_word(const char *path, char *out, size_t outlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    size_t len = strcspn(buf, " \t\n");
    if (len >= outlen)
        len = outlen - 1;
    memcpy(out, buf, len);
    out[len] = 0;
    return 0;
}

int sysfs_root(const char *kernel, const char *root, char *out, size_t outlen, char *err, size_t errlen)
{
    if (strlen(root) > 200 || root[0] == 0 || strlen(root) >= outlen) {
        snprintf(err, errlen, "%s: --root '%.40s' is not valid (valid: a directory path under 200 "
                 "characters, / on a target)", kernel, root);
        return -1;
    }
    snprintf(out, outlen, "%s", root);
    for (size_t n = strlen(out); n > 0 && out[n - 1] == '/'; n--)
        out[n - 1] = 0;
    return 0;
}

int sysfs_write(const char *path, const char *value)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t len = strlen(value);
    ssize_t n;
    do
        n = write(fd, value, len);
    while (n < 0 && errno == EINTR);
    int rc = n == (ssize_t)len ? 0 : (n < 0 ? errno : EIO);
    close(fd);
    return rc;
}

static int add(struct sysfs_guard *g, const char *path, const char *value, int remove_dir)
{
    if (g->n >= GUARD_MAX || strlen(path) >= GUARD_PATH_MAX)
        return -1;
    struct guard_entry *e = &g->entries[g->n++];
    snprintf(e->path, sizeof e->path, "%s", path);
    snprintf(e->value, sizeof e->value, "%s", value);
    e->remove_dir = remove_dir;
    return 0;
}

int guard_keep(struct sysfs_guard *g, const char *path)
{
    char value[32];
    if (sysfs_read_word(path, value, sizeof value) != 0)
        return -1;
    return add(g, path, value, 0);
}

int guard_set(struct sysfs_guard *g, const char *path, const char *value)
{
    return add(g, path, value, 0);
}

int guard_rmdir(struct sysfs_guard *g, const char *path)
{
    return add(g, path, "", 1);
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int guard_restore(const struct sysfs_guard *g)
{
    int failed = 0;
    for (int i = g->n - 1; i >= 0; i--) {
        const struct guard_entry *e = &g->entries[i];
        if (e->remove_dir) {
            if (rmdir(e->path) != 0 && errno != ENOENT)
                failed++;
            continue;
        }
        /* EBUSY/EAGAIN: another hotplug operation holds the CPU; it ends within ms. */
        int ok = 0;
        for (int attempt = 0; attempt < 50 && !ok; attempt++) {
            char now[32];
            if (sysfs_read_word(e->path, now, sizeof now) == 0 && strcmp(now, e->value) == 0)
                ok = 1;
            else if (sysfs_write(e->path, e->value) == 0)
                ok = 1;
            else
                pause_ms(100);
        }
        failed += !ok;
    }
    return failed;
}

int guard_start(struct sysfs_guard *g, char *err, size_t errlen)
{
    int p[2];
    if (pipe(p) != 0) {
        snprintf(err, errlen, "cannot create the restore guardian's pipe: %s", strerror(errno));
        return -1;
    }
    journal_path(g);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot fork the restore guardian: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        setsid();
        /* A name of its own: `pkill platperf-probe` (comm) and `pkill -f platperf-probe`
         * (the command line) must reach the probe, never the one process that undoes its
         * changes. */
        prctl(PR_SET_NAME, GUARD_NAME, 0, 0, 0);
        if (title_area != NULL && title_len > 0) {
            memset(title_area, 0, title_len);
            memcpy(title_area, GUARD_NAME, strlen(GUARD_NAME) < title_len ? strlen(GUARD_NAME) : title_len - 1);
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_IGN;
        int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU};
        for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
            sigaction(ignored[i], &sa, NULL);
        int null = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; fd++)
            if (null >= 0 && fd != p[0])
                dup2(null, fd);
        /* nothing of the probe's may stay open here: an inherited stdout would keep the
         * reader (the runner, sshd) waiting for the probe's end until the guardian's */
        for (int fd = 3; fd < 1024; fd++)
            if (fd != p[0])
                close(fd);
        char byte;
        ssize_t n;
        do
            n = read(p[0], &byte, 1);
        while (n > 0 || (n < 0 && errno == EINTR));
        if (guard_restore(g) != 0)
            _exit(1);
        journal_done(g);
        _exit(0);
    }
    close(p[0]);
    g->pid = pid;
    journal_write(g);
    g->fd = p[1];
    fcntl(g->fd, F_SETFD, FD_CLOEXEC);
    return 0;
}

int guard_finish(struct sysfs_guard *g)
{
    int failed = guard_restore(g);
    if (g->pid > 0) {
        close(g->fd);
        int status;
        while (waitpid(g->pid, &status, 0) < 0 && errno == EINTR)
            ;
        g->pid = 0;
    }
    if (failed == 0)
        journal_done(g);
    return failed;
}

int output_reader_gone(void)
{
    struct pollfd pfd = {STDOUT_FILENO, 0, 0};
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)) != 0;
}
