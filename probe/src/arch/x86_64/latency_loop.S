/* The latency loops for x86_64: see kernels/latency_loop.h for the contract.
 * Registers across the loop: rbx ctx, r12 exact[], r13 fast_limit, r14 end, rbp previous
 * read, r9 the variants' work register. */
#include "kernels/latency_loop.h"

    .text

.macro LATENCY_LOOP variant
    .globl latency_loop_\variant
    .type latency_loop_\variant, @function
    .p2align 6
latency_loop_\variant:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    sub $8, %rsp                      /* 16-byte stack alignment at the slow() call */
    mov %rdi, %rbx
    mov LL_EXACT(%rbx), %r12
    mov LL_FAST_LIMIT(%rbx), %r13
    mov LL_END(%rbx), %r14
    xor %r9d, %r9d
    lfence
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, LL_FIRST(%rbx)
    mov %rax, %rbp
    jmp latency_loop_\variant\()_work    /* the first pass does the variant's work too */
    .p2align 6
    .globl latency_loop_\variant\()_loop
latency_loop_\variant\()_loop:
    lfence                            /* as counter_read(): earlier work finishes first */
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, %rdx
    sub %rbp, %rdx                    /* delta */
    mov %rax, %rbp
    cmp %r13, %rdx
    jae latency_loop_\variant\()_slow
    incq (%r12,%rdx,8)                /* exact[delta]++: the histogram fast path */
latency_loop_\variant\()_work:
.ifc \variant,2ki
    .rept LL_INNER
    add $1, %r9
    .endr
.endif
.ifc \variant,2kl
    xor %ecx, %ecx
1:
    add $1, %rcx
    cmp $LL_INNER, %rcx
    jne 1b
.endif
    cmp %r14, %rbp
    jb latency_loop_\variant\()_loop
    .globl latency_loop_\variant\()_done
latency_loop_\variant\()_done:
    mov %rbp, LL_LAST(%rbx)
    add $8, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret
latency_loop_\variant\()_slow:
    mov %rdx, LL_DELTA(%rbx)
    mov %rbp, LL_NOW(%rbx)
    mov %rbx, %rdi
    call *LL_SLOW(%rbx)
    mov LL_FAST_LIMIT(%rbx), %r13
    mov LL_END(%rbx), %r14
    xor %r9d, %r9d
    lfence
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, %rbp
    jmp latency_loop_\variant\()_work
    .size latency_loop_\variant, . - latency_loop_\variant
.endm

    LATENCY_LOOP plain
    LATENCY_LOOP 2ki
    LATENCY_LOOP 2kl

    .section .note.GNU-stack,"",@progbits
