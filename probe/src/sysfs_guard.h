/* A guardian for the system settings a kernel changes (CPU online state, cpuidle
 * `disable` files, a tracefs instance): whatever happens to the probe, they are put back.
 *
 * The kernel records every file it will change, with the value to restore, before it
 * changes anything, then calls guard_start(): a child process in a session of its own
 * (so Ctrl-C, a terminal's or sshd's SIGHUP and a kill of the probe's process group do not
 * reach it) and a name of its own, GUARD_NAME (so `pkill platperf-probe`, by name or by
 * command line, does not reach it), with /dev/null for stdin/stdout/stderr (so a reader of the probe's output, a
 * local pipe or an SSH channel, sees its end when the probe ends), blocks on a pipe whose
 * write end only the probe holds. When the probe exits for any reason - normal end,
 * SIGINT/SIGTERM, SIGKILL, SIGPIPE after a dropped SSH connection - the kernel closes that
 * end and the guardian writes every recorded value back, in reverse order, then exits.
 * guard_finish() restores from the probe itself and waits for the guardian, so a normal
 * run ends with everything restored. The guardian (sysfs_guard.c) calls down into the journal
 * that owns the restore (guard_journal.h) and the file reads and writes (sysfs_file.h).
 */
#ifndef PLATPERF_SYSFS_GUARD_H
#define PLATPERF_SYSFS_GUARD_H

#include <stddef.h>
#include <sys/types.h>

#include "guard_journal.h"   /* struct sysfs_guard, guard_restore, the journal */
#include "sysfs_file.h"      /* sysfs_root, sysfs_read_word, sysfs_write */

/* The guardian's process name and command line (both differ from the probe's). */
#define GUARD_NAME "platperf-guard"

/* Records `path` with its current value (first word of the file). -1 if unreadable. */
int guard_keep(struct sysfs_guard *g, const char *path);
/* Records `path` to be restored to `value`. */
int guard_set(struct sysfs_guard *g, const char *path, const char *value);
/* Records a directory to remove (a tracefs instance created by the kernel). */
int guard_rmdir(struct sysfs_guard *g, const char *path);
/* The probe's argv strings (argv[0] to the end of the last one): the guardian overwrites them
 * with GUARD_NAME, so that /proc/PID/cmdline no longer names the probe. */
void guard_title_area(char *area, size_t len);
/* Forks the guardian. 0, or -1 with a reason in err. */
int guard_start(struct sysfs_guard *g, char *err, size_t errlen);
/* guard_restore(), then the guardian is released and waited for. Returns guard_restore's. */
int guard_finish(struct sysfs_guard *g);

/* 1 when the reader of our stdout has gone (a closed pipe or socket: a dropped SSH
 * connection), so a long run can stop instead of changing settings for nobody. */
int output_reader_gone(void);

#endif
