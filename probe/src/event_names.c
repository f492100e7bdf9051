/* The names --events takes and the run's list of counters (event_names.h). */
#include "event_names.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#define CACHE(id, op, result) ((uint64_t)(id) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))
#define HW PERF_TYPE_HARDWARE
#define HWC PERF_TYPE_HW_CACHE
#define SW PERF_TYPE_SOFTWARE

/* One counter of an alias: its stem, the PMUv3 common event, the kernel's generic event. */
struct counter_row {
    const char *name, *arm;
    int arm_number, generic_type;
    uint64_t generic_config;
    const char *generic, *count_unit;
    int software, needs_kernel;
};

struct alias {
    const char *names;            /* perf's spellings, '|' between */
    struct counter_row rows[2];   /* the second one's name NULL: a single counter */
};

/* The x86 generic cache events count reads only (L1D read access / miss), where the Arm
 * PMUv3's L1D_CACHE and L1D_CACHE_REFILL count loads and stores: docs/events.md says so. No
 * generic event stands for the Arm L2D, L3D or BUS_ACCESS counters: on x86 those are raw
 * events of the core's own list (cpu/event=..,umask=../). */
static const struct alias aliases[] = {
    {"cycles|cpu-cycles", {{"cycles", "CPU_CYCLES", 0x11, HW, PERF_COUNT_HW_CPU_CYCLES, "cycles", "cycles", 0, 0}}},
    {"instructions", {{"instructions", "INST_RETIRED", 0x08, HW, PERF_COUNT_HW_INSTRUCTIONS, "instructions",
                       "instructions", 0, 0}}},
    {"branches|branch-instructions", {{"branches", "BR_RETIRED", 0x21, HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
                                       "branches", "events", 0, 0}}},
    {"branch-misses", {{"branch_misses", "BR_MIS_PRED_RETIRED", 0x22, HW, PERF_COUNT_HW_BRANCH_MISSES,
                        "branch-misses", "events", 0, 0}}},
    {"l1d", {{"l1d", "L1D_CACHE", 0x04, HWC, CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                                                   PERF_COUNT_HW_CACHE_RESULT_ACCESS), "L1-dcache-loads", "events", 0, 0},
             {"l1d_refill", "L1D_CACHE_REFILL", 0x03, HWC, CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                                                               PERF_COUNT_HW_CACHE_RESULT_MISS),
              "L1-dcache-load-misses", "events", 0, 0}}},
    {"l2d", {{"l2d", "L2D_CACHE", 0x16, -1, 0, NULL, "events", 0, 0},
             {"l2d_refill", "L2D_CACHE_REFILL", 0x17, -1, 0, NULL, "events", 0, 0}}},
    {"l3d", {{"l3d", "L3D_CACHE", 0x2B, -1, 0, NULL, "events", 0, 0},
             {"l3d_refill", "L3D_CACHE_REFILL", 0x2A, -1, 0, NULL, "events", 0, 0}}},
    {"llc", {{"llc", "LL_CACHE_RD", 0x36, HWC, CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                                                     PERF_COUNT_HW_CACHE_RESULT_ACCESS), "LLC-loads", "events", 0, 0},
             {"llc_miss", "LL_CACHE_MISS_RD", 0x37, HWC, CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                                                              PERF_COUNT_HW_CACHE_RESULT_MISS),
              "LLC-load-misses", "events", 0, 0}}},
    {"bus", {{"bus_access", "BUS_ACCESS", 0x19, -1, 0, NULL, "events", 0, 0}}},
    {"page-faults|faults", {{"page_faults", NULL, -1, SW, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", "events", 1, 0}}},
    {"minor-faults", {{"minor_faults", NULL, -1, SW, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", "events", 1, 0}}},
    {"major-faults", {{"major_faults", NULL, -1, SW, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", "events", 1, 0}}},
    {"context-switches|cs", {{"context_switches", NULL, -1, SW, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches",
                              "events", 1, 1}}},
    {"cpu-migrations|migrations", {{"cpu_migrations", NULL, -1, SW, PERF_COUNT_SW_CPU_MIGRATIONS,
                                    "cpu-migrations", "events", 1, 1}}},
    {"task-clock", {{"task_clock", NULL, -1, SW, PERF_COUNT_SW_TASK_CLOCK, "task-clock", "ns", 1, 0}}},
    {"alignment-faults", {{"alignment_faults", NULL, -1, SW, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults",
                           "events", 1, 0}}},
    {NULL, {{NULL}}},
};

static struct event_def defs[EVENTS_MAX];
static int ndefs;

int events_count(void) { return ndefs; }
struct event_def *events_def(int i) { return &defs[i]; }

void events_known_names(char *out, size_t outlen)
{
    size_t used = 0;
    out[0] = 0;
    for (int a = 0; aliases[a].names && used < outlen; a++)
        used += (size_t)snprintf(out + used, outlen - used, "%s%.*s", a ? "|" : "",
                                 (int)strcspn(aliases[a].names, "|"), aliases[a].names);
}

static int spelled(const char *names, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = names; *p; p += strcspn(p, "|") + (p[strcspn(p, "|")] == '|'))
        if (strcspn(p, "|") == len && strncmp(p, word, len) == 0)
            return 1;
    return 0;
}

/* "armv8_pmuv3/r17/" -> "armv8_pmuv3_r17": a metric's stem made of the raw spelling. */
static void raw_stem(const char *raw, char *out, size_t outlen)
{
    size_t n = 0;
    for (const char *p = raw; *p && n + 1 < outlen; p++) {
        char c = (char)tolower((unsigned char)*p);
        if (!isalnum((unsigned char)c))
            c = '_';
        if (c == '_' && (n == 0 || out[n - 1] == '_'))
            continue;
        out[n++] = c;
    }
    while (n > 0 && out[n - 1] == '_')
        n--;
    out[n] = 0;
}

/* A raw spelling: rHEX, or PMU/TERMS[/] with a PMU name of [A-Za-z0-9_-] and terms of
 * [A-Za-z0-9_=,.-]. Its terms are read against the PMU's format/ and events/ when the
 * event is opened (event_source.c). */
static int raw_spelling(const char *item)
{
    if (item[0] == 'r' && item[1] && strspn(item + 1, "0123456789abcdefABCDEF") == strlen(item + 1))
        return 1;
    const char *slash = strchr(item, '/');
    if (!slash || slash == item)
        return 0;
    for (const char *p = item; p < slash; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return 0;
    size_t terms = strlen(slash + 1);
    if (terms && slash[terms] == '/')
        terms--;
    if (terms == 0 || memchr(slash + 1, '/', terms))
        return 0;
    for (size_t i = 0; i < terms; i++)
        if (!isalnum((unsigned char)slash[1 + i]) && !strchr("_=,.-", slash[1 + i]))
            return 0;
    return 1;
}

static int add_def(const struct counter_row *row, const char *asked, const char *raw, char *err, size_t errlen)
{
    if (ndefs == EVENTS_MAX) {
        snprintf(err, errlen, "--events: more than %d counters asked (an access-and-refill name such as "
                 "l2d is two); count fewer in one run", EVENTS_MAX);
        return -1;
    }
    struct event_def *d = &defs[ndefs];
    memset(d, 0, sizeof *d);
    d->arm_number = -1;
    d->generic_type = -1;
    d->count_unit = "events";
    snprintf(d->asked, sizeof d->asked, "%s", asked);
    if (row) {
        snprintf(d->name, sizeof d->name, "%s", row->name);
        d->arm = row->arm;
        d->arm_number = row->arm_number;
        d->generic_type = row->generic_type;
        d->generic_config = row->generic_config;
        d->generic = row->generic;
        d->count_unit = row->count_unit;
        d->software = row->software;
        d->needs_kernel = row->needs_kernel;
    } else {
        snprintf(d->raw, sizeof d->raw, "%s", raw);
        raw_stem(raw, d->name, sizeof d->name);
    }
    for (int i = 0; i < ndefs; i++)
        if (strcmp(defs[i].name, d->name) == 0) {
            snprintf(err, errlen, "--events: '%s' is asked twice (as %s and %s)", d->name, defs[i].asked, asked);
            return -1;
        }
    ndefs++;
    return 0;
}

static int add_item(const char *item, char *err, size_t errlen)
{
    /* page_faults as well as perf's page-faults: the counters' names are spellings too */
    char dashed[EVENT_NAME_LEN * 2];
    snprintf(dashed, sizeof dashed, "%s", item);
    for (char *c = dashed; *c; c++)
        *c = *c == '_' ? '-' : *c;
    for (int a = 0; aliases[a].names; a++)
        if (spelled(aliases[a].names, item) || spelled(aliases[a].names, dashed)) {
            for (int r = 0; r < 2 && aliases[a].rows[r].name; r++)
                if (add_def(&aliases[a].rows[r], item, NULL, err, errlen) != 0)
                    return -1;
            return 0;
        }
    if (raw_spelling(item))
        return add_def(NULL, item, item, err, errlen);
    char names[400];
    events_known_names(names, sizeof names);
    snprintf(err, errlen, "--events: unknown event '%s' (valid: %s, or a raw event as perf spells it: "
             "armv8_pmuv3/r17/, cpu/event=0x24,umask=0x21/, r17)", item, names);
    return -1;
}

/* The end of the item that starts at s: the next comma, except inside a raw event's terms
 * (cpu/event=0x24,umask=0x21/), where a comma followed by a term with '=' continues it. */
static size_t item_length(const char *s)
{
    size_t i = 0;
    int in_terms = 0;
    for (; s[i]; i++) {
        if (s[i] == '/')
            in_terms = !in_terms;
        if (s[i] != ',')
            continue;
        size_t next = strcspn(s + i + 1, ",/");
        const char *eq = memchr(s + i + 1, '=', next);
        if (!in_terms || !eq)
            break;
    }
    return i;
}

int events_parse(const char *list, char *err, size_t errlen)
{
    ndefs = 0;
    if (strlen(list) >= 1024) {
        snprintf(err, errlen, "--events: the list is longer than 1023 characters");
        return -1;
    }
    for (const char *p = list; *p;) {
        size_t len = item_length(p);
        char item[EVENT_NAME_LEN * 2];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "--events '%s' is not valid (valid: a comma list of event names, "
                     "e.g. cycles,instructions,l1d,l2d,llc,bus,page-faults)", list);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        if (add_item(item, err, errlen) != 0)
            return -1;
        p += len + (p[len] == ',');
    }
    if (ndefs == 0) {
        snprintf(err, errlen, "--events '' is empty (valid: e.g. cycles,instructions,l1d)");
        return -1;
    }
    return 0;
}
