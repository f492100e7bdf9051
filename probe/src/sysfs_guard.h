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
 * run ends with everything restored.
 */
#ifndef PLATPERF_SYSFS_GUARD_H
#define PLATPERF_SYSFS_GUARD_H

#include <stddef.h>
#include <sys/types.h>

#define GUARD_MAX 4096
/* The guardian's process name and command line (both differ from the probe's). */
#define GUARD_NAME "platperf-guard"
#define GUARD_PATH_MAX 256

struct guard_entry {
    char path[GUARD_PATH_MAX];
    char value[32];      /* written back when the file reads otherwise */
    int remove_dir;      /* 1: rmdir(path) instead (a tracefs instance) */
};

struct sysfs_guard {
    struct guard_entry entries[GUARD_MAX];
    int n;
    pid_t pid;           /* the guardian, 0 before guard_start() */
    int fd;              /* write end of the pipe the guardian waits on */
    char journal[GUARD_PATH_MAX + 64];   /* the entries on disk ("" when none could be kept) */
};

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
/* Writes back every recorded value that differs, newest first; returns how many could not
 * be restored (each retried for up to ~5 s: a CPU busy in another hotplug operation). */
int guard_restore(const struct sysfs_guard *g);
/* guard_restore(), then the guardian is released and waited for. Returns guard_restore's. */
int guard_finish(struct sysfs_guard *g);

/* The journal (guard_journal.c): guard_start() also writes the entries to
 * $TMPDIR/platperf-UID/restore-PID (the directory private to the user, as the board's probe
 * directory: mode 0700, ours, not a symbolic link), with the guardian's pid; whoever restores
 * everything removes it. Should the probe and its guardian be killed together (a cgroup kill,
 * `kill -9` of both), the journal stays, and the next probe's `info` or `run` puts the
 * settings back. journal_path() fills g->journal before the fork; journal_write() writes it
 * once the guardian's pid is known; journal_done() removes it. */
void journal_path(struct sysfs_guard *g);
void journal_write(const struct sysfs_guard *g);
void journal_done(const struct sysfs_guard *g);
/* Restores what the journals of dead probes and guardians hold; returns how many settings
 * were put back, with the first journal's probe pid in *pid. */
int guard_replay(long *pid);

/* The tree a kernel changes: its --root checked (a directory path under 200 characters)
 * and copied into out without trailing slashes ("/" -> "": paths are root + "/sys/...");
 * 0, or -1 with one line in err naming the kernel. */
int sysfs_root(const char *kernel, const char *root, char *out, size_t outlen, char *err, size_t errlen);
/* The first word of a small file into out; -1 if unreadable. */
int sysfs_read_word(const char *path, char *out, size_t outlen);
/* Writes value to a sysfs file with a fresh open; 0 or an errno value. */
int sysfs_write(const char *path, const char *value);
/* 1 when the reader of our stdout has gone (a closed pipe or socket: a dropped SSH
 * connection), so a long run can stop instead of changing settings for nobody. */
int output_reader_gone(void);

#endif
