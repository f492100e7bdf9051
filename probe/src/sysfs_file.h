/* One small sysfs file read or written, and the tree a kernel changes (sysfs_file.c). */
#ifndef PLATPERF_SYSFS_FILE_H
#define PLATPERF_SYSFS_FILE_H

#include <stddef.h>

/* The tree a kernel changes: its --root checked (a directory path under 200 characters)
 * and copied into out without trailing slashes ("/" -> "": paths are root + "/sys/...");
 * 0, or -1 with one line in err naming the kernel. */
int sysfs_root(const char *kernel, const char *root, char *out, size_t outlen, char *err, size_t errlen);
/* The first word of a small file into out; -1 if unreadable. */
int sysfs_read_word(const char *path, char *out, size_t outlen);
/* Writes value to a sysfs file with a fresh open; 0 or an errno value. */
int sysfs_write(const char *path, const char *value);

#endif
