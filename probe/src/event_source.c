/* An event resolved against the kernel's event sources (event_source.h). */
#include "event_source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "params.h"

static const char *sources_dir(void)
{
    const char *dir = getenv("PLATPERF_EVENT_SOURCES");
    return dir && *dir ? dir : "/sys/bus/event_source/devices";
}

/* A small sysfs file's text without its newline; -1 if unreadable. */
static int read_text(const char *path, char *out, size_t outlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, out, outlen - 1);
    close(fd);
    if (n < 0)
        return -1;
    out[n] = 0;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

static int source_file(const char *source, const char *file, char *out, size_t outlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", sources_dir(), source, file);
    return read_text(path, out, outlen);
}

/* The first CPU of a CPU list file of source, or -1; with `cpu` >= 0: whether it lists cpu. */
static int source_cpu_list(const char *source, const char *file, int cpu)
{
    char text[1024];
    int cpus[PROBE_MAX_CPUS];
    if (source_file(source, file, text, sizeof text) != 0)
        return cpu >= 0 ? 0 : -1;
    int n = parse_cpu_list(text, cpus, PROBE_MAX_CPUS);
    if (cpu < 0)
        return n > 0 ? cpus[0] : -1;
    for (int i = 0; i < n; i++)
        if (cpus[i] == cpu)
            return 1;
    return 0;
}

/* A core PMU serving cpu (`cpus`), or a DSU of cpu's cluster (`associated_cpus`). */
static int source_has_cpu(const char *source, int cpu)
{
    return source_cpu_list(source, "cpus", cpu) || source_cpu_list(source, "associated_cpus", cpu);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void event_sources_list(char *out, size_t outlen)
{
    char names[64][64], *sorted[64];
    int n = 0;
    DIR *d = opendir(sources_dir());
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < 64;)
        if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof names[0]) {
            memcpy(names[n], e->d_name, strlen(e->d_name) + 1);
            sorted[n] = names[n];
            n++;
        }
    if (d)
        closedir(d);
    qsort(sorted, (size_t)n, sizeof sorted[0], by_name);   /* readdir's order is the filesystem's */
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && used < outlen; i++)
        used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? ", " : "", sorted[i]);
    if (!out[0])
        snprintf(out, outlen, "none");
}

/* The source spelled `spelled` (a name as perf takes it: armv8_pmuv3 for armv8_pmuv3_0): the
 * source of that very name, else one named spelled_N, that of cpu first. */
static int find_source(const char *spelled, int cpu, char *name, size_t namelen)
{
    char dummy[16];
    if (source_file(spelled, "type", dummy, sizeof dummy) == 0) {
        snprintf(name, namelen, "%s", spelled);
        return 0;
    }
    size_t len = strlen(spelled);
    int found = -1;
    DIR *d = opendir(sources_dir());
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, spelled, len) != 0 || e->d_name[len] != '_' || !isdigit((unsigned char)e->d_name[len + 1]))
            continue;
        size_t name_len = strlen(e->d_name);
        if (name_len >= namelen)
            continue;   /* no source of the kernel's is named that long */
        if (found < 0 || source_has_cpu(e->d_name, cpu)) {
            memcpy(name, e->d_name, name_len + 1);
            found = source_has_cpu(e->d_name, cpu);
        }
    }
    if (d)
        closedir(d);
    return found < 0 ? -1 : 0;
}

int event_core_pmu(int cpu, char *name, size_t namelen)
{
    name[0] = 0;
    DIR *d = opendir(sources_dir());
    for (struct dirent *e; d && (e = readdir(d)) != NULL && !name[0];) {
        char text[64];
        if (e->d_name[0] != '.' && source_has_cpu(e->d_name, cpu)
            && source_file(e->d_name, "events/cpu_cycles", text, sizeof text) == 0)
            snprintf(name, namelen, "%s", e->d_name);
    }
    if (d)
        closedir(d);
    return name[0] ? 0 : -1;
}

/* value into the bits a format file names: "config:0-7", "config:0-7,32-35", "config1:8". */
static int put_bits(const char *format, uint64_t value, struct event_attr *a)
{
    uint64_t *field = strncmp(format, "config1:", 8) == 0 ? &a->config1
                    : strncmp(format, "config2:", 8) == 0 ? &a->config2
                    : strncmp(format, "config:", 7) == 0 ? &a->config : NULL;
    if (!field)
        return -1;
    const char *p = strchr(format, ':') + 1;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || lo > 63)
            return -1;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        if (hi < lo || hi > 63)
            return -1;
        for (long bit = lo; bit <= hi; bit++, value >>= 1)
            if (value & 1)
                *field |= 1ull << bit;
            else
                *field &= ~(1ull << bit);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return value ? -1 : 0;   /* bits left over: the value does not fit its field */
}

static int apply_terms(const char *source, const char *terms, struct event_attr *a, int depth,
                       char *why, size_t whylen);

/* One term of a raw event: rHEX, config[12]=V, a format term (event=0x17, umask=1, edge), or
 * a named event of the source (l2d_cache_refill, itself terms in events/). */
static int apply_term(const char *source, char *term, struct event_attr *a, int depth, char *why, size_t whylen)
{
    char *eq = strchr(term, '='), text[256], *end;
    if (term[0] == 'r' && term[1] && strspn(term + 1, "0123456789abcdefABCDEF") == strlen(term + 1)) {
        a->config = strtoull(term + 1, NULL, 16);
        return 0;
    }
    if (eq)
        *eq = 0;
    uint64_t value = eq ? strtoull(eq + 1, &end, 0) : 1;
    int bad_value = eq && (end == eq + 1 || *end);
    char file[128];
    snprintf(file, sizeof file, "format/%s", term);
    if (!bad_value && source_file(source, file, text, sizeof text) == 0) {
        if (put_bits(text, value, a) == 0)
            return 0;
        snprintf(why, whylen, "%s: %s=%s does not fit its format (%s)", source, term, eq ? eq + 1 : "1", text);
        return -1;
    }
    if (!bad_value && eq && (strcmp(term, "config") == 0 || strcmp(term, "config1") == 0 || strcmp(term, "config2") == 0)) {
        *(term[6] == '1' ? &a->config1 : term[6] == '2' ? &a->config2 : &a->config) = value;
        return 0;
    }
    snprintf(file, sizeof file, "events/%s", term);
    if (!eq && depth == 0 && source_file(source, file, text, sizeof text) == 0)
        return apply_terms(source, text, a, depth + 1, why, whylen);
    snprintf(why, whylen, "%s has no format term or named event '%s'%s%s (see %s/%s/format and events)",
             source, term, eq ? " taking " : "", eq ? eq + 1 : "", sources_dir(), source);
    return -1;
}

static int apply_terms(const char *source, const char *terms, struct event_attr *a, int depth,
                       char *why, size_t whylen)
{
    char buf[256], *items[32];
    int n = split_list(terms, buf, sizeof buf, items, 32);
    for (int i = 0; i < n; i++)
        if (apply_term(source, items[i], a, depth, why, whylen) != 0)
            return -1;
    return 0;
}

static int resolve_raw(const struct event_def *def, int cpu, struct event_attr *a, char *why, size_t whylen)
{
    const char *slash = strchr(def->raw, '/');
    if (!slash) {   /* rHEX: the CPU's own raw event, as perf -e r17 */
        a->type = PERF_TYPE_RAW;
        a->config = strtoull(def->raw + 1, NULL, 16);
        snprintf(a->pmu, sizeof a->pmu, "raw");
        snprintf(a->code, sizeof a->code, "0x%llx", (unsigned long long)a->config);
        return 0;
    }
    char spelled[64], terms[128], type[32];
    snprintf(spelled, sizeof spelled, "%.*s", (int)(slash - def->raw), def->raw);
    snprintf(terms, sizeof terms, "%s", slash + 1);
    terms[strcspn(terms, "/")] = 0;
    if (find_source(spelled, cpu, a->pmu, sizeof a->pmu) != 0 || source_file(a->pmu, "type", type, sizeof type) != 0) {
        char have[400];
        event_sources_list(have, sizeof have);
        snprintf(why, whylen, "no event source '%s' on this machine (it has: %s)", spelled, have);
        return -1;
    }
    a->type = (uint32_t)strtoul(type, NULL, 10);
    /* an uncore PMU counts for a CPU, not a thread: the one its cpumask names */
    a->cpu = source_cpu_list(a->pmu, "cpumask", -1);
    snprintf(a->code, sizeof a->code, "%s", terms);
    return apply_terms(a->pmu, terms, a, 0, why, whylen);
}

static void lower(const char *s, char *out, size_t outlen)
{
    size_t i = 0;
    for (; s[i] && i + 1 < outlen; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = 0;
}

int event_resolve(const struct event_def *def, int cpu, struct event_attr *a, char *why, size_t whylen)
{
    memset(a, 0, sizeof *a);
    a->cpu = -1;
    if (def->raw[0])
        return resolve_raw(def, cpu, a, why, whylen);
    char pmu[48], file[96], text[64];
    if (def->arm_number >= 0 && event_core_pmu(cpu, pmu, sizeof pmu) == 0) {
        char named[48];
        lower(def->arm, named, sizeof named);
        snprintf(file, sizeof file, "events/%s", named);
        if (source_file(pmu, file, text, sizeof text) != 0) {
            snprintf(why, whylen, "CPU %d's PMU %s does not list %s (%s, 0x%02X): the core does not "
                     "implement it (its PMCEID registers)", cpu, pmu, named, def->arm, def->arm_number);
            return -1;
        }
        source_file(pmu, "type", text, sizeof text);
        a->type = (uint32_t)strtoul(text, NULL, 10);
        a->config = (uint64_t)def->arm_number;
        /* Linux's armv7 driver puts an event on the dedicated cycle counter only when it is
         * its own 0xFF (perf's "cycles"); 0x11 would take one of the event counters */
        if (def->arm_number == 0x11 && strncmp(pmu, "armv7_", 6) == 0)
            a->config = 0xff;
        snprintf(a->pmu, sizeof a->pmu, "%s", pmu);
        snprintf(a->code, sizeof a->code, "0x%02llx", (unsigned long long)a->config);
        return 0;
    }
    if (def->generic_type < 0) {
        snprintf(why, whylen, "CPU %d has no Arm PMU and the kernel has no generic event for %s (%s, 0x%02X); "
                 "name the core's own event as perf spells it (cpu/event=0x..,umask=0x../)", cpu,
                 def->asked, def->arm, def->arm_number);
        return -1;
    }
    a->type = (uint32_t)def->generic_type;
    a->config = def->generic_config;
    snprintf(a->pmu, sizeof a->pmu, "%s", def->generic_type == PERF_TYPE_HARDWARE ? "hardware"
             : def->generic_type == PERF_TYPE_HW_CACHE ? "hw_cache" : "software");
    /* the type is in pmu: the code is its config, as perf -vv shows it */
    snprintf(a->code, sizeof a->code, "0x%llx", (unsigned long long)def->generic_config);
    return 0;
}
