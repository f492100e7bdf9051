/* One small sysfs file read or written, and a kernel's --root checked (sysfs_file.h). */
#include "sysfs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
