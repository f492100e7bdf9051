/* The run's scratch directory on the target: files the OS kernels create (lat_fs files,
 * the file bw_file_rd reads, ...) live in one fresh directory made under --dir (default
 * $TMPDIR, else /tmp) the first time a kernel asks, and removed with everything in it when
 * the run ends, also after SIGINT/SIGTERM (main calls scratch_remove()). */
#ifndef PLATPERF_SCRATCH_H
#define PLATPERF_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/* main: where to make it (NULL: $TMPDIR or /tmp). Returns 0, or -1 with err set when the
 * directory does not exist or is not writable. */
int scratch_set_parent(const char *dir, char *err, size_t errlen);
/* The directory's path (made on first call), or NULL with errno set. Thread-safe. */
const char *scratch_dir(void);
/* path = <scratch>/<name>; returns 0 or -1. */
int scratch_path(char *out, size_t outlen, const char *name);
/* A file of `bytes` bytes (pattern-filled) in the scratch directory; returns 0 or -1 (errno). */
int scratch_file(const char *name, uint64_t bytes, char *path, size_t pathlen);
/* Removes the directory and its contents (no-op if never made). */
void scratch_remove(void);

#endif
