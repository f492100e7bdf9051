/* What a guard (sysfs_guard.h) puts back, and the restore that does it: the settings in memory,
 * written back newest first by the probe, its guardian or, from the journal on disk, the next
 * probe (guard_journal.c). Below the guardian: nothing here calls sysfs_guard.c. */
#ifndef PLATPERF_GUARD_JOURNAL_H
#define PLATPERF_GUARD_JOURNAL_H

#include <stddef.h>
#include <sys/types.h>

#define GUARD_MAX 4096
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

/* Writes back every recorded value that differs, newest first; returns how many could not
 * be restored (each retried for up to ~5 s: a CPU busy in another hotplug operation). */
int guard_restore(const struct sysfs_guard *g);

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

#endif
