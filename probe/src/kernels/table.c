/* The kernel table: one row per benchmark, each defined in its own file in this folder. The
 * kernels read their parameters through kernel.c, never through this file: calls go one way. */
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
extern const struct kernel first_touch_kernel;     /* first_touch.c */

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
    &first_touch_kernel,
    NULL,
};

const struct kernel *kernel_find(const char *name)
{
    for (int i = 0; kernel_table[i]; i++)
        if (strcmp(kernel_table[i]->name, name) == 0)
            return kernel_table[i];
    return NULL;
}
