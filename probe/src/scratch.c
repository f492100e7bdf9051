#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char parent[768];
static char made[1024];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int scratch_set_parent(const char *dir, char *err, size_t errlen)
{
    if (!dir) {
        dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "--dir '%s' is not a writable directory (valid: an existing directory the "
                 "probe may write, e.g. /tmp)", dir);
        return -1;
    }
    snprintf(parent, sizeof parent, "%s", dir);
    return 0;
}

const char *scratch_dir(void)
{
    pthread_mutex_lock(&lock);
    if (!made[0]) {
        if (!parent[0]) {
            char err[64];
            scratch_set_parent(NULL, err, sizeof err);
        }
        snprintf(made, sizeof made, "%s/platperf-probe.XXXXXX", parent);
        if (!mkdtemp(made))
            made[0] = 0;
    }
    pthread_mutex_unlock(&lock);
    return made[0] ? made : NULL;
}

int scratch_path(char *out, size_t outlen, const char *name)
{
    const char *d = scratch_dir();
    if (!d)
        return -1;
    return (size_t)snprintf(out, outlen, "%s/%s", d, name) < outlen ? 0 : -1;
}

int scratch_file(const char *name, uint64_t bytes, char *path, size_t pathlen)
{
    char buf[65536];
    if (scratch_path(path, pathlen, name) != 0)
        return -1;
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0)
        return -1;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)(i * 7 + 1);
    for (uint64_t done = 0; done < bytes;) {
        size_t n = bytes - done < sizeof buf ? (size_t)(bytes - done) : sizeof buf;
        ssize_t w = write(fd, buf, n);
        if (w <= 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        done += (uint64_t)w;
    }
    return close(fd);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

void scratch_remove(void)
{
    pthread_mutex_lock(&lock);
    if (made[0])
        nftw(made, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    made[0] = 0;
    pthread_mutex_unlock(&lock);
}
