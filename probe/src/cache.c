#include "cache.h"

#include <stdio.h>
#include <string.h>

#include "params.h"

static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(out, (int)len, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    return 0;
}

static unsigned read_uint(const char *dir, const char *name)
{
    char path[512], line[64];
    unsigned v = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_line(path, line, sizeof line) == 0)
        sscanf(line, "%u", &v);
    return v;
}

int cache_levels(int cpu, struct cache_level *out, int max)
{
    int n = 0;
    for (int idx = 0; idx < 16 && n < max; idx++) {
        char dir[256], path[512], line[64];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu, idx);
        snprintf(path, sizeof path, "%s/type", dir);
        if (read_line(path, line, sizeof line) != 0)
            break;
        if (strcmp(line, "Instruction") == 0)
            continue;
        struct cache_level *c = &out[n];
        memset(c, 0, sizeof *c);
        snprintf(c->type, sizeof c->type, "%s", line);
        c->level = (int)read_uint(dir, "level");
        snprintf(path, sizeof path, "%s/size", dir);
        if (read_line(path, line, sizeof line) == 0)
            parse_size(line, &c->size);   /* "32K" */
        c->line_size = read_uint(dir, "coherency_line_size");
        c->ways = read_uint(dir, "ways_of_associativity");
        c->sets = read_uint(dir, "number_of_sets");
        if (c->size)
            n++;
    }
    return n;
}

uint64_t cache_llc_size(int cpu, uint64_t fallback)
{
    struct cache_level lv[CACHE_MAX_LEVELS];
    int n = cache_levels(cpu, lv, CACHE_MAX_LEVELS);
    uint64_t best = 0;
    int level = 0;
    for (int i = 0; i < n; i++)
        if (lv[i].level > level || (lv[i].level == level && lv[i].size > best)) {
            level = lv[i].level;
            best = lv[i].size;
        }
    return best ? best : fallback;
}
