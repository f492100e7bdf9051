/* lat_proc procedure (os-proc op=proccall): uint64_t pp_proccall(uint64_t n in r0:r1, int arg
 * in r2) makes n calls (bl) of pp_proccall_use_int(arg), one real call and return per
 * iteration, and returns the variable the callee adds to. The callee is LMBench's use_int()
 * (`use_result_dummy += result` on a volatile 64-bit variable) as a 32-bit Arm compiler writes
 * it: two loads, adds/adc with the argument's sign, two stores, bx lr. See x86_64/proccall.S. */
    .syntax unified
    .arch   armv7-a
    .arm
    .text
    .globl  pp_proccall
    .type   pp_proccall, %function
    .p2align 6
pp_proccall:
    push    {r4, r5, r6, lr}        /* bl overwrites lr; the callee touches r0, r1, r3, ip */
    mov     r4, r0
    mov     r5, r1
    mov     r6, r2
    orrs    ip, r4, r5
    beq     2f
    .p2align 6
    .globl  pp_proccall_loop
pp_proccall_loop:
    mov     r0, r6
    bl      pp_proccall_use_int
    subs    r4, r4, #1
    sbc     r5, r5, #0
    orrs    ip, r4, r5
    bne     pp_proccall_loop
2:  movw    r3, #:lower16:pp_proccall_sink
    movt    r3, #:upper16:pp_proccall_sink
    ldr     r0, [r3]
    ldr     r1, [r3, #4]
    pop     {r4, r5, r6, pc}
    .size   pp_proccall, .-pp_proccall

    .globl  pp_proccall_use_int
    .type   pp_proccall_use_int, %function
    .p2align 4
pp_proccall_use_int:
    movw    r3, #:lower16:pp_proccall_sink
    movt    r3, #:upper16:pp_proccall_sink
    ldr     r1, [r3]
    ldr     ip, [r3, #4]
    adds    r1, r1, r0
    adc     ip, ip, r0, asr #31
    str     r1, [r3]
    str     ip, [r3, #4]
    bx      lr
    .size   pp_proccall_use_int, .-pp_proccall_use_int

    .data
    .p2align 6
    .globl  pp_proccall_sink
pp_proccall_sink:
    .quad   0
    .section .note.GNU-stack,"",%progbits
