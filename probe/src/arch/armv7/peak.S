/* Peak bandwidth with NEON: vld1/vst1 of four d registers (32 bytes) with a 128-bit
 * alignment hint. d8-d15 are callee-saved and not used.
 *   pp_peak_read(buf r0, bytes r1, passes r2:r3)      512 bytes per iteration
 *   pp_peak_write(buf r0, bytes r1, passes r2:r3)     512 bytes per iteration
 *   pp_peak_copy(dst r0, src r1, bytes r2, passes on the stack)   128 bytes per iteration */
    .syntax unified
    .arch   armv7-a
    .fpu    neon
    .arm
    .text
    .globl  pp_peak_read
    .type   pp_peak_read, %function
    .p2align 6
pp_peak_read:
    orrs    ip, r2, r3
    beq     2f
    add     r1, r0, r1
    mov     ip, r0
    .p2align 6
    .globl  pp_peak_read_loop
pp_peak_read_loop:
    vld1.64 {d0-d3}, [ip :128]!
    vld1.64 {d4-d7}, [ip :128]!
    vld1.64 {d16-d19}, [ip :128]!
    vld1.64 {d20-d23}, [ip :128]!
    vld1.64 {d24-d27}, [ip :128]!
    vld1.64 {d28-d31}, [ip :128]!
    vld1.64 {d0-d3}, [ip :128]!
    vld1.64 {d4-d7}, [ip :128]!
    vld1.64 {d16-d19}, [ip :128]!
    vld1.64 {d20-d23}, [ip :128]!
    vld1.64 {d24-d27}, [ip :128]!
    vld1.64 {d28-d31}, [ip :128]!
    vld1.64 {d0-d3}, [ip :128]!
    vld1.64 {d4-d7}, [ip :128]!
    vld1.64 {d16-d19}, [ip :128]!
    vld1.64 {d20-d23}, [ip :128]!
    cmp     ip, r1
    blo     pp_peak_read_loop
    mov     ip, r0
    subs    r2, r2, #1
    sbc     r3, r3, #0
    orrs    r2, r2, #0
    bne     pp_peak_read_loop
    cmp     r3, #0
    bne     pp_peak_read_loop
2:  bx      lr
    .size   pp_peak_read, .-pp_peak_read

    .globl  pp_peak_write
    .type   pp_peak_write, %function
    .p2align 6
pp_peak_write:
    orrs    ip, r2, r3
    beq     2f
    vmov.i64 q0, #0
    vmov.i64 q1, #0
    add     r1, r0, r1
    mov     ip, r0
    .p2align 6
    .globl  pp_peak_write_loop
pp_peak_write_loop:
    .rept 16
    vst1.64 {d0-d3}, [ip :128]!
    .endr
    cmp     ip, r1
    blo     pp_peak_write_loop
    mov     ip, r0
    subs    r2, r2, #1
    sbc     r3, r3, #0
    orrs    r2, r2, #0
    bne     pp_peak_write_loop
    cmp     r3, #0
    bne     pp_peak_write_loop
2:  bx      lr
    .size   pp_peak_write, .-pp_peak_write

    .globl  pp_peak_copy
    .type   pp_peak_copy, %function
    .p2align 6
pp_peak_copy:
    push    {r4-r7}
    ldr     r6, [sp, #16]          @ passes, low word
    ldr     r7, [sp, #20]          @ passes, high word
    orrs    ip, r6, r7
    beq     2f
    add     r3, r1, r2
    mov     r4, r1
    mov     r5, r0
    .p2align 6
    .globl  pp_peak_copy_loop
pp_peak_copy_loop:
    vld1.64 {d0-d3}, [r4 :128]!
    vld1.64 {d4-d7}, [r4 :128]!
    vld1.64 {d16-d19}, [r4 :128]!
    vld1.64 {d20-d23}, [r4 :128]!
    vst1.64 {d0-d3}, [r5 :128]!
    vst1.64 {d4-d7}, [r5 :128]!
    vst1.64 {d16-d19}, [r5 :128]!
    vst1.64 {d20-d23}, [r5 :128]!
    cmp     r4, r3
    blo     pp_peak_copy_loop
    mov     r4, r1
    mov     r5, r0
    subs    r6, r6, #1
    sbc     r7, r7, #0
    orrs    ip, r6, r7
    bne     pp_peak_copy_loop
2:  pop     {r4-r7}
    bx      lr
    .size   pp_peak_copy, .-pp_peak_copy
    .section .note.GNU-stack,"",%progbits
