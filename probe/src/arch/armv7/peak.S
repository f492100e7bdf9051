/* Peak bandwidth with NEON: vld1/vst1 of four d registers (32 bytes) with a 128-bit
 * alignment hint. d8-d15 are callee-saved and not used.
 *   pp_peak_read(buf r0, bytes r1, passes r2:r3)      512 bytes per iteration
 *   pp_peak_write(buf r0, bytes r1, passes r2:r3)     512 bytes per iteration
 *   pp_peak_copy(dst r0, src r1, bytes r2, passes on the stack)   128 bytes per iteration */
    .syntax unified
    .arch   armv7-a
    .fpu    neon
    .arm                              /* A32, 4 bytes an instruction, whatever the C is built as */
    .equ    PP_VLDST_BYTES, 32        /* a vld1.64 or vst1.64 of four d registers, and its writeback */
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
.Lread_step:
    cmp     ip, r1
    blo     pp_peak_read_loop
.Lread_pass:
    mov     ip, r0
    subs    r2, r2, #1
    sbc     r3, r3, #0
    orrs    r2, r2, #0
    bne     pp_peak_read_loop
.Lread_end:                            @ the last pass, and one in 2^32: the high word's test
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
.Lwrite_step:
    cmp     ip, r1
    blo     pp_peak_write_loop
.Lwrite_pass:
    mov     ip, r0
    subs    r2, r2, #1
    sbc     r3, r3, #0
    orrs    r2, r2, #0
    bne     pp_peak_write_loop
.Lwrite_end:                           @ the last pass, and one in 2^32: the high word's test
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
.Lcopy_stores:
    vst1.64 {d0-d3}, [r5 :128]!
    vst1.64 {d4-d7}, [r5 :128]!
    vst1.64 {d16-d19}, [r5 :128]!
    vst1.64 {d20-d23}, [r5 :128]!
.Lcopy_step:
    cmp     r4, r3
    blo     pp_peak_copy_loop
.Lcopy_pass:
    mov     r4, r1
    mov     r5, r0
    subs    r6, r6, #1
    sbc     r7, r7, #0
    orrs    ip, r6, r7
    bne     pp_peak_copy_loop
.Lcopy_end:
2:  pop     {r4-r7}
    bx      lr
    .size   pp_peak_copy, .-pp_peak_copy

/* What the loops above are, from their own addresses (an A32 instruction is 4 bytes), for the
 * counted events' known answer (kernels/bw_claim.c; docs/events.md, "What each kernel
 * checks"): per kernel (read, write, copy) a struct peak_shape (timed_loops.h): the
 * instructions of an inner iteration and of the end of a pass over the buffer (the low word's
 * path: the last pass's two more are the call's, as its entry and exit are), the load and
 * the store instructions of an inner iteration, the bytes of each buffer it advances (the
 * writeback of its transfers), then 0 and 0 (no vector-length step, no rest loop).
 * tests/probe/test_peak_shape.py sets each row against objdump's count. */
    .section .rodata
    .p2align 2
    .globl  pp_peak_neon_shape
    .type   pp_peak_neon_shape, %object
pp_peak_neon_shape:
    .word   (.Lread_pass - pp_peak_read_loop) / 4, (.Lread_end - .Lread_pass) / 4
    .word   (.Lread_step - pp_peak_read_loop) / 4, 0
    .word   (.Lread_step - pp_peak_read_loop) / 4 * PP_VLDST_BYTES, 0, 0
    .word   (.Lwrite_pass - pp_peak_write_loop) / 4, (.Lwrite_end - .Lwrite_pass) / 4
    .word   0, (.Lwrite_step - pp_peak_write_loop) / 4
    .word   (.Lwrite_step - pp_peak_write_loop) / 4 * PP_VLDST_BYTES, 0, 0
    .word   (.Lcopy_pass - pp_peak_copy_loop) / 4, (.Lcopy_end - .Lcopy_pass) / 4
    .word   (.Lcopy_stores - pp_peak_copy_loop) / 4, (.Lcopy_step - .Lcopy_stores) / 4
    .word   (.Lcopy_stores - pp_peak_copy_loop) / 4 * PP_VLDST_BYTES, 0, 0
    .size   pp_peak_neon_shape, .-pp_peak_neon_shape
    .if (.Lcopy_stores - pp_peak_copy_loop) - (.Lcopy_step - .Lcopy_stores)
    .error  "pp_peak_copy: an iteration stores other bytes than it loads"
    .endif
    .section .note.GNU-stack,"",%progbits
