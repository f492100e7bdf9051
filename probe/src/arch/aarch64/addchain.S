/* Core clock: uint64_t pp_addchain(uint64_t n): n * 64 dependent register adds, one
 * per core cycle. */
    .text
    .globl  pp_addchain
    .type   pp_addchain, %function
    .p2align 6
pp_addchain:
    mov     x1, x0
    mov     x0, #0
    mov     x2, #1
    cbz     x1, 2f
    .p2align 6
    .globl  pp_addchain_loop
pp_addchain_loop:
    .rept 64
    add     x0, x0, x2
    .endr
    subs    x1, x1, #1
    b.ne    pp_addchain_loop
2:  ret
    .globl  pp_addchain_end
pp_addchain_end:
    .size   pp_addchain, .-pp_addchain
    .section .note.GNU-stack,"",%progbits
