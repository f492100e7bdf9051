/* The latency loops for aarch64: see kernels/latency_loop.h for the contract.
 * Registers across the loop: x19 ctx, x20 exact[], x21 fast_limit, x22 end, x23 previous
 * read, x9 the variants' work register. */
#include "kernels/latency_loop.h"

    .text

.macro LATENCY_LOOP variant
    .globl latency_loop_\variant
    .type latency_loop_\variant, %function
    .p2align 6
latency_loop_\variant:
    stp x29, x30, [sp, #-48]!
    mov x29, sp
    stp x19, x20, [sp, #16]
    stp x21, x22, [sp, #32]
    str x23, [sp, #-16]!
    mov x19, x0
    ldr x20, [x19, #LL_EXACT]
    ldr x21, [x19, #LL_FAST_LIMIT]
    ldr x22, [x19, #LL_END]
    mov x9, #0
    isb
    mrs x23, cntvct_el0
    str x23, [x19, #LL_FIRST]
    b latency_loop_\variant\()_work      /* the first pass does the variant's work too */
    .p2align 6
    .globl latency_loop_\variant\()_loop
latency_loop_\variant\()_loop:
    isb                               /* as counter_read(): earlier work finishes first */
    mrs x0, cntvct_el0
    sub x1, x0, x23                   /* delta */
    mov x23, x0
    cmp x1, x21
    b.hs latency_loop_\variant\()_slow
    ldr x2, [x20, x1, lsl #3]         /* exact[delta]++: the histogram fast path */
    add x2, x2, #1
    str x2, [x20, x1, lsl #3]
latency_loop_\variant\()_work:
.ifc \variant,2ki
    .rept LL_INNER
    add x9, x9, #1
    .endr
.endif
.ifc \variant,2kl
    mov x3, #0
1:
    add x3, x3, #1
    cmp x3, #LL_INNER
    b.ne 1b
.endif
    cmp x23, x22
    b.lo latency_loop_\variant\()_loop
    .globl latency_loop_\variant\()_done
latency_loop_\variant\()_done:
    str x23, [x19, #LL_LAST]
    ldr x23, [sp], #16
    ldp x21, x22, [sp, #32]
    ldp x19, x20, [sp, #16]
    ldp x29, x30, [sp], #48
    ret
latency_loop_\variant\()_slow:
    str x1, [x19, #LL_DELTA]
    str x23, [x19, #LL_NOW]
    mov x0, x19
    ldr x3, [x19, #LL_SLOW]
    blr x3
    ldr x21, [x19, #LL_FAST_LIMIT]
    ldr x22, [x19, #LL_END]
    isb
    mrs x23, cntvct_el0
    b latency_loop_\variant\()_work
    .size latency_loop_\variant, . - latency_loop_\variant
.endm

    LATENCY_LOOP plain
    LATENCY_LOOP 2ki
    LATENCY_LOOP 2kl

    .section .note.GNU-stack,"",@progbits
