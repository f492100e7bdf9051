/* The kernel table: one row per benchmark, each defined in its own file in this folder. */
#include <string.h>

#include "kernel.h"

extern const struct kernel mem_latency_kernel;     /* mem_latency.c */
extern const struct kernel mem_bandwidth_kernel;   /* mem_bandwidth.c */
extern const struct kernel latency_loop_kernel;    /* latency_loop.c */
extern const struct kernel os_syscall_kernel;      /* os_syscall.c */
extern const struct kernel os_signal_kernel;       /* os_signal.c */
extern const struct kernel os_ipc_kernel;          /* os_ipc.c */
extern const struct kernel os_ipc_bw_kernel;       /* os_ipc.c */
extern const struct kernel os_ctx_kernel;          /* os_ctx.c */
extern const struct kernel os_proc_kernel;         /* os_proc.c */
extern const struct kernel os_pagefault_kernel;    /* os_mem.c */
extern const struct kernel os_mmap_kernel;         /* os_mem.c */
extern const struct kernel os_file_read_kernel;    /* os_mem.c */
extern const struct kernel os_fs_kernel;           /* os_fs.c */
extern const struct kernel cpu_ops_kernel;         /* cpu_ops.c */
extern const struct kernel c2c_latency_kernel;     /* c2c.c */
extern const struct kernel hotplug_kernel;         /* hotplug.c */
extern const struct kernel cpu_idle_kernel;        /* cpu_idle.c */
extern const struct kernel align_sweep_kernel;     /* align_sweep.c */

const struct kernel *const kernel_table[] = {
    &mem_latency_kernel,
    &mem_bandwidth_kernel,
    &latency_loop_kernel,
    &os_syscall_kernel,
    &os_signal_kernel,
    &os_ipc_kernel,
    &os_ipc_bw_kernel,
    &os_ctx_kernel,
    &os_proc_kernel,
    &os_pagefault_kernel,
    &os_mmap_kernel,
    &os_file_read_kernel,
    &os_fs_kernel,
    &cpu_ops_kernel,
    &c2c_latency_kernel,
    &hotplug_kernel,
    &cpu_idle_kernel,
    &align_sweep_kernel,
    NULL,
};

const struct kernel *kernel_find(const char *name)
{
    for (int i = 0; kernel_table[i]; i++)
        if (strcmp(kernel_table[i]->name, name) == 0)
            return kernel_table[i];
    return NULL;
}

static int param_index(const struct run_ctx *ctx, const char *name)
{
    for (int i = 0; ctx->kernel->params[i].name; i++)
        if (strcmp(ctx->kernel->params[i].name, name) == 0)
            return i;
    return -1;
}

const char *kernel_value(const struct run_ctx *ctx, const char *name)
{
    int i = param_index(ctx, name);
    return i < 0 ? NULL : ctx->values[i];
}

const struct param_value *kernel_param(const struct run_ctx *ctx, const char *name)
{
    int i = param_index(ctx, name);
    return i < 0 ? NULL : &ctx->parsed[i];
}

uint64_t kernel_size(const struct run_ctx *ctx, const char *name) { return kernel_param(ctx, name)->size; }
int64_t kernel_count(const struct run_ctx *ctx, const char *name) { return kernel_param(ctx, name)->count; }
double kernel_number(const struct run_ctx *ctx, const char *name) { return kernel_param(ctx, name)->number; }
int kernel_choice(const struct run_ctx *ctx, const char *name) { return kernel_param(ctx, name)->choice; }

const int64_t *kernel_counts(const struct run_ctx *ctx, const char *name, int *n)
{
    const struct param_value *v = kernel_param(ctx, name);
    *n = v->set ? v->ncounts : 0;
    return v->counts;
}

const uint64_t *kernel_sizes(const struct run_ctx *ctx, const char *name, int *n)
{
    const struct param_value *v = kernel_param(ctx, name);
    *n = v->set ? v->nsizes : 0;
    return v->sizes;
}

const int *kernel_cpus(const struct run_ctx *ctx, const char *name, int *n)
{
    const struct param_value *v = kernel_param(ctx, name);
    *n = v->set ? v->ncpus : 0;
    return v->cpus;
}

const int *kernel_choice_list(const struct run_ctx *ctx, const char *name, int *n)
{
    const struct param_value *v = kernel_param(ctx, name);
    *n = v->nchoice_items;
    return v->choice_items;
}

int kernel_is_keyword(const struct run_ctx *ctx, const char *name)
{
    int i = param_index(ctx, name);
    const char *kw = ctx->kernel->params[i].keyword;
    return kw && strcmp(ctx->values[i], kw) == 0;
}
