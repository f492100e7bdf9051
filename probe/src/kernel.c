/* The readers of a run's parameters (kernel.h): what a kernel calls for the values params.c
 * checked. Apart from the kernel table (kernels/table.c), which calls the kernels. */
#include "kernel.h"

#include <string.h>

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
