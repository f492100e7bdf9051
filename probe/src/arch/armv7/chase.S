/* Pointer chase: void **pp_chase(void **p, uint64_t n): n * 16 dependent loads p = *p.
 * AAPCS passes the 64-bit n in r2:r3. ARM (not Thumb) encoding, plain `ldr r0, [r0]`. */
    .syntax unified
    .arch   armv7-a
    .arm
    .text
    .globl  pp_chase
    .type   pp_chase, %function
    .p2align 6
pp_chase:
    orrs    ip, r2, r3
    beq     2f
    .p2align 6
    .globl  pp_chase_loop
pp_chase_loop:
    .rept 16
    ldr     r0, [r0]
    .endr
    subs    r2, r2, #1
    sbc     r3, r3, #0
    orrs    ip, r2, r3
    bne     pp_chase_loop
2:  bx      lr
    .globl  pp_chase_end
pp_chase_end:
    .size   pp_chase, .-pp_chase
    .section .note.GNU-stack,"",%progbits
