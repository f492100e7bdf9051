/* The restore guardian (sysfs_guard.h). The child uses only async-signal-safe calls:
 * the probe may have threads when it forks. What it puts back, and how, is the journal's
 * (guard_journal.c); the files are read and written by sysfs_file.c. */
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
#include <unistd.h>

static char *title_area;     /* the probe's argv strings: the guardian writes its name there */
static size_t title_len;

void guard_title_area(char *area, size_t len)
{
    title_area = area;
    title_len = len;
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
