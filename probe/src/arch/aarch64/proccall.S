/* lat_proc procedure (os-proc op=proccall): uint64_t pp_proccall(uint64_t n, int arg) makes n
 * calls (bl) of pp_proccall_use_int(arg), one real call and return per iteration, and returns
 * the variable the callee adds to. The callee is LMBench's use_int() (`use_result_dummy +=
 * result` on a volatile 64-bit variable) as gcc -O compiles it: load, add with sign
 * extension, store, ret. See x86_64/proccall.S. */
    .text
    .globl  pp_proccall
    .type   pp_proccall, %function
    .p2align 6
pp_proccall:
    stp     x29, x30, [sp, #-16]!   /* bl overwrites the link register */
    mov     x29, sp
    mov     x2, x0                  /* the callee touches x0, x3 and x4 only */
    cbz     x2, 2f
    .p2align 6
    .globl  pp_proccall_loop
pp_proccall_loop:
    mov     w0, w1
    bl      pp_proccall_use_int
    subs    x2, x2, #1
    b.ne    pp_proccall_loop
2:  adrp    x3, pp_proccall_sink
    ldr     x0, [x3, :lo12:pp_proccall_sink]
    ldp     x29, x30, [sp], #16
    ret
    .size   pp_proccall, .-pp_proccall

    .globl  pp_proccall_use_int
    .type   pp_proccall_use_int, %function
    .p2align 4
pp_proccall_use_int:
    adrp    x3, pp_proccall_sink
    ldr     x4, [x3, :lo12:pp_proccall_sink]
    add     x4, x4, w0, sxtw
    str     x4, [x3, :lo12:pp_proccall_sink]
    ret
    .size   pp_proccall_use_int, .-pp_proccall_use_int

    .data
    .p2align 6
    .globl  pp_proccall_sink
pp_proccall_sink:
    .quad   0
    .section .note.GNU-stack,"",%progbits
