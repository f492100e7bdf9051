/* Core clock: uint64_t pp_addchain(uint64_t n in r0:r1): n * 64 dependent register
 * adds, one per core cycle. */
    .syntax unified
    .arch   armv7-a
    .arm
    .text
    .globl  pp_addchain
    .type   pp_addchain, %function
    .p2align 6
pp_addchain:
    mov     r2, #1
    mov     r3, #0
    orrs    ip, r0, r1
    beq     2f
    .p2align 6
    .globl  pp_addchain_loop
pp_addchain_loop:
    .rept 64
    add     r3, r3, r2
    .endr
    subs    r0, r0, #1
    sbc     r1, r1, #0
    orrs    ip, r0, r1
    bne     pp_addchain_loop
2:  mov     r0, r3
    mov     r1, #0
    bx      lr
    .globl  pp_addchain_end
pp_addchain_end:
    .size   pp_addchain, .-pp_addchain
    .section .note.GNU-stack,"",%progbits
