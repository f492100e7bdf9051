/* The kernel table: one row per benchmark, each defined in its own file in this folder. */
#include <string.h>

#include "kernel.h"

extern const struct kernel mem_latency_kernel;     /* mem_latency.c */
extern const struct kernel mem_bandwidth_kernel;   /* mem_bandwidth.c */
extern const struct kernel latency_loop_kernel;    /* latency_loop.c */
extern const struct kernel align_sweep_kernel;     /* align_sweep.c */

const struct kernel *const kernel_table[] = {
    &mem_latency_kernel,
    &mem_bandwidth_kernel,
    &latency_loop_kernel,
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

const char *kernel_value(const struct run_ctx *ctx, const char *name)
{
    for (int i = 0; ctx->kernel->params[i].name; i++)
        if (strcmp(ctx->kernel->params[i].name, name) == 0)
            return ctx->values[i];
    return NULL;
}
