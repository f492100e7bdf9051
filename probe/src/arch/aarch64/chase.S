/* Pointer chase: void **pp_chase(void **p, uint64_t n): n * 16 dependent loads p = *p.
 * Plain base-register `ldr x0, [x0]`: the architectural load-to-use latency. */
    .text
    .globl  pp_chase
    .type   pp_chase, %function
    .p2align 6
pp_chase:
    cbz     x1, 2f
    .p2align 6
    .globl  pp_chase_loop
pp_chase_loop:
    .rept 16
    ldr     x0, [x0]
    .endr
    subs    x1, x1, #1
    b.ne    pp_chase_loop
2:  ret
    .globl  pp_chase_end
pp_chase_end:
    .size   pp_chase, .-pp_chase
    .section .note.GNU-stack,"",%progbits
