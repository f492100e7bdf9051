/* The OS memory rows of LMBench, on a file of the run's scratch directory (--dir), per CPU:
 *   os-pagefault   lat_pagefault: a `size`-byte file mapped shared read-only and dropped
 *                  from the mapping (msync MS_INVALIDATE); one byte read from every page in
 *                  a random order, the file unmapped and mapped again; less the time of the
 *                  unmap + map alone (measured just before on the same CPU); us per page
 *   os-mmap        lat_mmap: mmap `size` bytes of the file shared read-write, write one byte
 *                  every 16 KiB over its first tenth, munmap; us per mapping
 *   os-file-read   bw_file_rd / bw_mmap_rd, MB/s of the `size`-byte file, data summed (bread):
 *                  method=read scope=io    lseek + read() in 64 KiB chunks, each summed
 *                  method=read scope=o2c   the same with open() and close() in the loop
 *                  method=mmap scope=io    summing the file mapped once (LMBench "mmap_only")
 *                  method=mmap scope=o2c   open, mmap, sum, close, munmap ("open2close")
 * The file is in the page cache (written just before): these are not disk figures, as
 * LMBench's are not. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer.h"
#include "kernels/os_common.h"
#include "scratch.h"

#define READ_CHUNK (64 * 1024)    /* LMBench's XFERSIZE */
#define MMAP_STRIDE (16 * 1024)   /* lat_mmap's PSIZE */

static const char *const method_choices[] = {"read", "mmap", NULL};
static const char *const scope_choices[] = {"io", "o2c", NULL};

static const struct kernel_param pagefault_params[] = {
    {"size", "8m", NULL, "bytes of the mapped file (LMBench needs at least 1 MiB)", .kind = PARAM_SIZE,
     .min = 1 << 20, .max = 1ull << 32},
    {NULL},
};
static const struct kernel_param mmap_params[] = {
    {"size", "1m", NULL, "bytes mapped (TI's row: lat_mmap-1m)", .kind = PARAM_SIZE, .min = 2 * 160 * 1024,
     .max = 1ull << 32},
    {NULL},
};
static const struct kernel_param file_params[] = {
    {"method", "read,mmap", method_choices, "read(): bw_file_rd; mmap: bw_mmap_rd", .list = true,
     .kind = PARAM_CHOICE},
    {"scope", "io,o2c", scope_choices, "io: the file kept open (and mapped); o2c: open to close in each pass",
     .list = true, .kind = PARAM_CHOICE},
    {"size", "1m", NULL, "bytes of the file (TI's rows: 1mb)", .kind = PARAM_SIZE, .min = 4096, .max = 1ull << 32},
    {NULL},
};

enum { PF_TOUCH, PF_REMAP, MMAP_MAP, RD_IO, RD_O2C, MM_IO, MM_O2C };

struct mem_state {
    char path[1024];
    int fd;
    char *map;
    size_t npages;
    size_t *pages;   /* pagefault: page offsets in a random order */
    char *buf;
};

static volatile long mem_sink;

static int setup(struct os_case *c)
{
    struct mem_state *st = calloc(1, sizeof *st);
    c->state = st;
    st->fd = -1;
    char name[64];
    snprintf(name, sizeof name, "os-mem-%d-%llu", c->arg, (unsigned long long)c->size);
    if (scratch_file(name, c->size, st->path, sizeof st->path) != 0) {
        snprintf(c->err, sizeof c->err, "cannot write a %llu-byte file in the scratch directory: %s",
                 (unsigned long long)c->size, strerror(errno));
        return -1;
    }
    if (c->arg != RD_O2C && c->arg != MM_O2C && (st->fd = open(st->path, O_RDWR)) < 0) {
        snprintf(c->err, sizeof c->err, "open: %s", strerror(errno));
        return -1;
    }
    if (c->arg == PF_TOUCH || c->arg == PF_REMAP || c->arg == MM_IO) {
        st->map = mmap(NULL, c->size, PROT_READ, MAP_SHARED, st->fd, 0);
        if (st->map == MAP_FAILED) {
            st->map = NULL;
            snprintf(c->err, sizeof c->err, "mmap: %s", strerror(errno));
            return -1;
        }
    }
    if (c->arg == PF_TOUCH || c->arg == PF_REMAP) {
        size_t ps = page_size();
        st->npages = c->size / ps;
        st->pages = malloc(sizeof(size_t) * st->npages);
        for (size_t i = 0; i < st->npages; i++)
            st->pages[i] = i * ps;
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t i = st->npages - 1; i > 0; i--) {   /* Fisher-Yates, fixed seed */
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            size_t j = (size_t)(x % (i + 1)), t = st->pages[i];
            st->pages[i] = st->pages[j];
            st->pages[j] = t;
        }
        msync(st->map, c->size, MS_INVALIDATE);
    }
    if (c->arg == RD_IO || c->arg == RD_O2C)
        st->buf = malloc(READ_CHUNK);
    return 0;
}

static void teardown(struct os_case *c)
{
    struct mem_state *st = c->state;
    if (st->map)
        munmap(st->map, c->size);
    if (st->fd >= 0)
        close(st->fd);
    free(st->pages);
    free(st->buf);
    free(st);
}

static int remap(struct os_case *c, struct mem_state *st)
{
    munmap(st->map, c->size);
    st->map = mmap(NULL, c->size, PROT_READ, MAP_SHARED, st->fd, 0);
    if (st->map == MAP_FAILED) {
        st->map = NULL;
        return -1;
    }
    return msync(st->map, c->size, MS_INVALIDATE);
}

static int read_file(struct os_case *c, struct mem_state *st, int fd)
{
    for (uint64_t left = c->size; left > 0;) {
        ssize_t n = read(fd, st->buf, left < READ_CHUNK ? left : READ_CHUNK);
        if (n <= 0)
            return -1;
        mem_sink += os_bread(st->buf, (size_t)n);
        left -= (uint64_t)n;
    }
    return 0;
}

static void body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    struct mem_state *st = c->state;
    while (reps--) {
        switch (c->arg) {
        case PF_TOUCH: {
            long sum = 0;
            for (size_t i = 0; i < st->npages; i++)
                sum += *(volatile char *)(st->map + st->pages[i]);
            mem_sink += sum;
        }
            /* LMBench's loop maps the file again after each pass */
            __attribute__((fallthrough));
        case PF_REMAP:
            if (remap(c, st) != 0)
                OS_FAIL(c, "mmap");
            break;
        case MMAP_MAP: {
            char *m = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, st->fd, 0);
            if (m == MAP_FAILED)
                OS_FAIL(c, "mmap");
            for (char *p = m; p < m + c->size / 10; p += MMAP_STRIDE)
                *(volatile char *)p = (char)c->size;
            munmap(m, c->size);
            break;
        }
        case RD_IO:
            if (lseek(st->fd, 0, SEEK_SET) != 0 || read_file(c, st, st->fd) != 0)
                OS_FAIL(c, "read");
            break;
        case RD_O2C: {
            int fd = open(st->path, O_RDONLY);
            if (fd < 0 || read_file(c, st, fd) != 0)
                OS_FAIL(c, "open and read");
            close(fd);
            break;
        }
        case MM_IO:
            mem_sink += os_bread(st->map, c->size);
            break;
        case MM_O2C: {
            int fd = open(st->path, O_RDONLY);
            if (fd < 0)
                OS_FAIL(c, "open");
            char *m = mmap(NULL, c->size, PROT_READ, MAP_SHARED, fd, 0);
            if (m == MAP_FAILED) {
                close(fd);
                OS_FAIL(c, "mmap");
            }
            mem_sink += os_bread(m, c->size);
            close(fd);
            munmap(m, c->size);
            break;
        }
        }
    }
}

static int run_pagefault(struct run_ctx *ctx)
{
    uint64_t size = kernel_size(ctx, "size") / page_size() * page_size();
    double pages = (double)(size / page_size());
    struct os_case remap_only = {.benchmark = "os-pagefault", .metric = "latency", .figure = OS_LATENCY_US,
                                 .per_rep = pages, .setup = setup, .body = body, .teardown = teardown,
                                 .arg = PF_REMAP, .size = size};
    struct os_case c = remap_only;
    c.arg = PF_TOUCH;
    c.baseline = &remap_only;
    json_obj_init(&c.params);   /* TI's row has no parameter: the file size stays out of the key */
    return os_run_case(ctx, &c);
}

static int run_mmap(struct run_ctx *ctx)
{
    struct os_case c = {.benchmark = "os-mmap", .metric = "latency", .figure = OS_LATENCY_US, .per_rep = 1,
                        .setup = setup, .body = body, .teardown = teardown, .arg = MMAP_MAP,
                        .size = kernel_size(ctx, "size")};
    json_obj_init(&c.params);
    json_obj_uint(&c.params, "size", c.size);
    return os_run_case(ctx, &c);
}

static int run_file(struct run_ctx *ctx)
{
    int nm, ns, rc = 0;
    const int *methods = kernel_choice_list(ctx, "method", &nm);
    const int *scopes = kernel_choice_list(ctx, "scope", &ns);
    uint64_t size = kernel_size(ctx, "size") / sizeof(long) * sizeof(long);
    for (int m = 0; m < nm && rc == 0; m++)
        for (int s = 0; s < ns && !probe_interrupted() && rc == 0; s++) {
            struct os_case c = {.benchmark = "os-file-read", .metric = "bandwidth", .figure = OS_BANDWIDTH,
                                .per_rep = (double)size, .setup = setup, .body = body, .teardown = teardown,
                                .arg = methods[m] == 0 ? (scopes[s] == 0 ? RD_IO : RD_O2C)
                                                       : (scopes[s] == 0 ? MM_IO : MM_O2C),
                                .size = size};
            json_obj_init(&c.params);
            json_obj_str(&c.params, "method", method_choices[methods[m]]);
            json_obj_str(&c.params, "scope", scope_choices[scopes[s]]);
            json_obj_uint(&c.params, "size", size);
            rc = os_run_case(ctx, &c);
        }
    return rc;
}

const struct kernel os_pagefault_kernel = {
    .name = "os-pagefault",
    .help = "page fault time on a mapped file as LMBench lat_pagefault (us per page)",
    .params = pagefault_params,
    .run = run_pagefault,
};

const struct kernel os_mmap_kernel = {
    .name = "os-mmap",
    .help = "mmap + touch + munmap of a file as LMBench lat_mmap (us)",
    .params = mmap_params,
    .run = run_mmap,
};

const struct kernel os_file_read_kernel = {
    .name = "os-file-read",
    .help = "file read bandwidth as LMBench bw_file_rd (read) and bw_mmap_rd (mmap), io and o2c (MB/s)",
    .params = file_params,
    .run = run_file,
};
