/* The latency loops for armv7 (ARM state): see kernels/latency_loop.h for the contract.
 * They read CNTVCT, so latency_loop.c calls them only when counter_info() says the probe
 * uses it (user access enabled); else the C loop over counter_read() runs.
 * Registers across the loop: r4 ctx, r5 exact[], r6 fast_limit (< 2^32), r8:r9 previous
 * read (lo:hi), r10:r11 end (lo:hi), r7 the variants' work register. */
#include "kernels/latency_loop.h"

    .syntax unified
    .arch armv7-a
    .arm
    .text

.macro LATENCY_LOOP variant
    .globl latency_loop_\variant
    .type latency_loop_\variant, %function
    .p2align 6
latency_loop_\variant:
    push {r3-r11, lr}                 @ r3 keeps the stack 8-byte aligned
    mov r4, r0
    ldr r5, [r4, #LL_EXACT]
    ldr r6, [r4, #LL_FAST_LIMIT]
    ldr r10, [r4, #LL_END]
    ldr r11, [r4, #LL_END + 4]
    mov r7, #0
    isb
    mrrc p15, 1, r8, r9, c14
    strd r8, r9, [r4, #LL_FIRST]
    b latency_loop_\variant\()_work      @ the first pass does the variant's work too
    .p2align 6
    .globl latency_loop_\variant\()_loop
latency_loop_\variant\()_loop:
    isb                               @ as counter_read(): earlier work finishes first
    mrrc p15, 1, r0, r1, c14
    subs r2, r0, r8                   @ delta lo:hi
    sbc r3, r1, r9
    mov r8, r0
    mov r9, r1
    cmp r3, #0
    bne latency_loop_\variant\()_slow
    cmp r2, r6
    bhs latency_loop_\variant\()_slow
    add r12, r5, r2, lsl #3           @ exact[delta]++: the histogram fast path
    ldrd r0, r1, [r12]
    adds r0, r0, #1
    adc r1, r1, #0
    strd r0, r1, [r12]
latency_loop_\variant\()_work:
.ifc \variant,2ki
    .rept LL_INNER
    add r7, r7, #1
    .endr
.endif
.ifc \variant,2kl
    mov r3, #0
1:
    add r3, r3, #1
    cmp r3, #LL_INNER
    bne 1b
.endif
    cmp r8, r10                        @ previous < end, 64-bit unsigned
    sbcs r12, r9, r11
    blo latency_loop_\variant\()_loop
    .globl latency_loop_\variant\()_done
latency_loop_\variant\()_done:
    strd r8, r9, [r4, #LL_LAST]
    pop {r3-r11, pc}
latency_loop_\variant\()_slow:
    strd r2, r3, [r4, #LL_DELTA]
    strd r8, r9, [r4, #LL_NOW]
    mov r0, r4
    ldr r3, [r4, #LL_SLOW]
    blx r3
    ldr r6, [r4, #LL_FAST_LIMIT]
    ldr r10, [r4, #LL_END]
    ldr r11, [r4, #LL_END + 4]
    isb
    mrrc p15, 1, r8, r9, c14
    b latency_loop_\variant\()_work
    .size latency_loop_\variant, . - latency_loop_\variant
.endm

    LATENCY_LOOP plain
    LATENCY_LOOP 2ki
    LATENCY_LOOP 2kl

    .section .note.GNU-stack,"",%progbits
