/* What a guard puts back and how (guard_journal.h): the restore of its settings, by the probe,
 * its guardian or the next probe, and their journal on disk for the case where the probe and
 * its guardian die together. Nothing here calls the guardian (sysfs_guard.c). */
#include "guard_journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sysfs_file.h"

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

/* $TMPDIR/platperf-UID (or /tmp's), made 0700 if missing; -1 unless it is a directory of
 * ours that nobody else can write, in a base directory others cannot swap it out of. */
static int journal_dir(char *out, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] != '/' || strlen(base) > 128)
        base = "/tmp";
    struct stat st;
    if (stat(base, &st) != 0 || ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        || (st.st_uid != 0 && st.st_uid != getuid()))
        return -1;
    snprintf(out, len, "%s/platperf-%u", base, (unsigned)getuid());
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return -1;
    if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return -1;
    return 0;
}

void journal_path(struct sysfs_guard *g)
{
    char dir[200];
    g->journal[0] = 0;
    for (int i = 0; i < g->n; i++)      /* one entry a line, its fields split by tabs */
        if (strpbrk(g->entries[i].path, "\t\n") || strpbrk(g->entries[i].value, "\t\n"))
            return;
    if (journal_dir(dir, sizeof dir) == 0)
        snprintf(g->journal, sizeof g->journal, "%s/restore-%ld", dir, (long)getpid());
}

void journal_write(const struct sysfs_guard *g)
{
    if (!g->journal[0])
        return;
    char tmp[sizeof g->journal + 8];
    snprintf(tmp, sizeof tmp, "%s.new", g->journal);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    fprintf(f, "guardian\t%ld\n", (long)g->pid);
    for (int i = 0; i < g->n; i++)
        fprintf(f, "%s\t%s\t%s\n", g->entries[i].remove_dir ? "rmdir" : "write",
                g->entries[i].path, g->entries[i].value);
    if (fclose(f) != 0 || rename(tmp, g->journal) != 0)
        unlink(tmp);
}

void journal_done(const struct sysfs_guard *g)
{
    if (g->journal[0])
        unlink(g->journal);       /* async-signal-safe: the guardian calls it too */
}

static int alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* One journal, already renamed to `path` (ours alone): its settings put back, skipping files
 * that are gone (a test's tree). Returns how many were restored, -1 if some could not be. */
static int replay_one(const char *path)
{
    static struct sysfs_guard g;
    g.n = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char line[GUARD_PATH_MAX + 64];
    while (fgets(line, sizeof line, f) && g.n < GUARD_MAX) {
        line[strcspn(line, "\n")] = 0;
        char *kind = strtok(line, "\t"), *file = strtok(NULL, "\t"), *value = strtok(NULL, "\t");
        if (kind == NULL || file == NULL || file[0] != '/' || strstr(file, "/../"))
            continue;
        int rm = strcmp(kind, "rmdir") == 0;
        if ((rm || strcmp(kind, "write") == 0) && access(file, F_OK) == 0
                && strlen(file) < GUARD_PATH_MAX) {
            struct guard_entry *e = &g.entries[g.n++];
            snprintf(e->path, sizeof e->path, "%s", file);
            snprintf(e->value, sizeof e->value, "%s", value ? value : "");
            e->remove_dir = rm;
        }
    }
    fclose(f);
    return guard_restore(&g) == 0 ? g.n : -1;
}

int guard_replay(long *pid)
{
    char dir[200];
    int restored = 0;
    *pid = 0;
    if (journal_dir(dir, sizeof dir) != 0)
        return 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char *end;
        if (strncmp(de->d_name, "restore-", 8) != 0)
            continue;
        long probe = strtol(de->d_name + 8, &end, 10);
        if (*end != 0 || probe <= 0 || alive(probe))
            continue;
        char path[512], taken[540], head[64] = "";
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        long guardian = fgets(head, sizeof head, f) && strncmp(head, "guardian\t", 9) == 0
                        ? strtol(head + 9, NULL, 10) : 0;
        fclose(f);
        if (alive(guardian))       /* it restores when it sees the probe gone */
            continue;
        snprintf(taken, sizeof taken, "%s.replay-%ld", path, (long)getpid());
        if (rename(path, taken) != 0)      /* another probe took it */
            continue;
        int n = replay_one(taken);
        if (n < 0) {
            rename(taken, path);           /* the next probe tries again */
            continue;
        }
        unlink(taken);
        if (n > 0 && *pid == 0)
            *pid = probe;
        restored += n;
    }
    closedir(d);
    return restored;
}
