/* Peak bandwidth with the widest Advanced SIMD accesses: ldp/stp of two q registers
 * (32 bytes). v8-v15 are not used: their low halves are callee-saved. features.c picks
 * these or the SVE loops (peak_sve.S) at run time.
 *   pp_peak_read_neon(buf x0, bytes x1, passes x2)     512 bytes per iteration
 *   pp_peak_write_neon(buf x0, bytes x1, passes x2)    512 bytes per iteration
 *   pp_peak_copy_neon(dst x0, src x1, bytes x2, passes x3)   256 bytes per iteration */
    .equ    PP_NEON_RW_STEP, 512      /* bytes an iteration of read and write advances */
    .equ    PP_NEON_COPY_STEP, 256    /* bytes of each buffer an iteration of copy advances */
    .text
    .globl  pp_peak_read_neon
    .type   pp_peak_read_neon, %function
    .p2align 6
pp_peak_read_neon:
    cbz     x2, 2f
    add     x3, x0, x1
    mov     x4, x0
    .p2align 6
    .globl  pp_peak_read_neon_loop
pp_peak_read_neon_loop:
    ldp     q0, q1, [x4, #0]
    ldp     q2, q3, [x4, #32]
    ldp     q4, q5, [x4, #64]
    ldp     q6, q7, [x4, #96]
    ldp     q16, q17, [x4, #128]
    ldp     q18, q19, [x4, #160]
    ldp     q20, q21, [x4, #192]
    ldp     q22, q23, [x4, #224]
    ldp     q24, q25, [x4, #256]
    ldp     q26, q27, [x4, #288]
    ldp     q28, q29, [x4, #320]
    ldp     q30, q31, [x4, #352]
    ldp     q0, q1, [x4, #384]
    ldp     q2, q3, [x4, #416]
    ldp     q4, q5, [x4, #448]
    ldp     q6, q7, [x4, #480]
.Lread_step:
    add     x4, x4, #PP_NEON_RW_STEP
    cmp     x4, x3
    b.lo    pp_peak_read_neon_loop
.Lread_pass:
    mov     x4, x0
    subs    x2, x2, #1
    b.ne    pp_peak_read_neon_loop
.Lread_end:
2:  ret
    .size   pp_peak_read_neon, .-pp_peak_read_neon

    .globl  pp_peak_write_neon
    .type   pp_peak_write_neon, %function
    .p2align 6
pp_peak_write_neon:
    cbz     x2, 2f
    movi    v0.16b, #0
    movi    v1.16b, #0
    add     x3, x0, x1
    mov     x4, x0
    .p2align 6
    .globl  pp_peak_write_neon_loop
pp_peak_write_neon_loop:
    stp     q0, q1, [x4, #0]
    stp     q0, q1, [x4, #32]
    stp     q0, q1, [x4, #64]
    stp     q0, q1, [x4, #96]
    stp     q0, q1, [x4, #128]
    stp     q0, q1, [x4, #160]
    stp     q0, q1, [x4, #192]
    stp     q0, q1, [x4, #224]
    stp     q0, q1, [x4, #256]
    stp     q0, q1, [x4, #288]
    stp     q0, q1, [x4, #320]
    stp     q0, q1, [x4, #352]
    stp     q0, q1, [x4, #384]
    stp     q0, q1, [x4, #416]
    stp     q0, q1, [x4, #448]
    stp     q0, q1, [x4, #480]
.Lwrite_step:
    add     x4, x4, #PP_NEON_RW_STEP
    cmp     x4, x3
    b.lo    pp_peak_write_neon_loop
.Lwrite_pass:
    mov     x4, x0
    subs    x2, x2, #1
    b.ne    pp_peak_write_neon_loop
.Lwrite_end:
2:  ret
    .size   pp_peak_write_neon, .-pp_peak_write_neon

    .globl  pp_peak_copy_neon
    .type   pp_peak_copy_neon, %function
    .p2align 6
pp_peak_copy_neon:
    cbz     x3, 2f
    add     x5, x1, x2
    mov     x4, x1
    mov     x6, x0
    .p2align 6
    .globl  pp_peak_copy_neon_loop
pp_peak_copy_neon_loop:
    ldp     q0, q1, [x4, #0]
    ldp     q2, q3, [x4, #32]
    ldp     q4, q5, [x4, #64]
    ldp     q6, q7, [x4, #96]
    ldp     q16, q17, [x4, #128]
    ldp     q18, q19, [x4, #160]
    ldp     q20, q21, [x4, #192]
    ldp     q22, q23, [x4, #224]
.Lcopy_stores:
    stp     q0, q1, [x6, #0]
    stp     q2, q3, [x6, #32]
    stp     q4, q5, [x6, #64]
    stp     q6, q7, [x6, #96]
    stp     q16, q17, [x6, #128]
    stp     q18, q19, [x6, #160]
    stp     q20, q21, [x6, #192]
    stp     q22, q23, [x6, #224]
.Lcopy_step:
    add     x4, x4, #PP_NEON_COPY_STEP
    add     x6, x6, #PP_NEON_COPY_STEP
    cmp     x4, x5
    b.lo    pp_peak_copy_neon_loop
.Lcopy_pass:
    mov     x4, x1
    mov     x6, x0
    subs    x3, x3, #1
    b.ne    pp_peak_copy_neon_loop
.Lcopy_end:
2:  ret
    .size   pp_peak_copy_neon, .-pp_peak_copy_neon

/* Each ldp or stp moves two q registers: the accesses of an iteration are the bytes it
 * advances, or the loop is not the one the table below describes (the assembler stops). */
    .equ    PP_NEON_PAIR, 32
    .if (.Lread_step - pp_peak_read_neon_loop) / 4 * PP_NEON_PAIR - PP_NEON_RW_STEP
    .error  "pp_peak_read_neon: its loads do not move PP_NEON_RW_STEP bytes"
    .endif
    .if (.Lwrite_step - pp_peak_write_neon_loop) / 4 * PP_NEON_PAIR - PP_NEON_RW_STEP
    .error  "pp_peak_write_neon: its stores do not move PP_NEON_RW_STEP bytes"
    .endif
    .if (.Lcopy_stores - pp_peak_copy_neon_loop) / 4 * PP_NEON_PAIR - PP_NEON_COPY_STEP
    .error  "pp_peak_copy_neon: its loads do not move PP_NEON_COPY_STEP bytes"
    .endif
    .if (.Lcopy_step - .Lcopy_stores) / 4 * PP_NEON_PAIR - PP_NEON_COPY_STEP
    .error  "pp_peak_copy_neon: its stores do not move PP_NEON_COPY_STEP bytes"
    .endif

/* What the loops above are, from their own addresses (an A64 instruction is 4 bytes), for the
 * counted events' known answer (kernels/bw_claim.c; docs/events.md, "What each kernel
 * checks"): per kernel (read, write, copy) a struct peak_shape (timed_loops.h): the
 * instructions of an inner iteration and of the end of a pass over the buffer, the load and
 * the store instructions of an inner iteration, the bytes of each buffer it advances, then 0
 * and 0 (no vector-length step, no rest loop). tests/probe/test_peak_shape.py sets each row
 * against objdump's count. */
    .section .rodata
    .p2align 2
    .globl  pp_peak_neon_shape
    .type   pp_peak_neon_shape, %object
pp_peak_neon_shape:
    .word   (.Lread_pass - pp_peak_read_neon_loop) / 4, (.Lread_end - .Lread_pass) / 4
    .word   (.Lread_step - pp_peak_read_neon_loop) / 4, 0, PP_NEON_RW_STEP, 0, 0
    .word   (.Lwrite_pass - pp_peak_write_neon_loop) / 4, (.Lwrite_end - .Lwrite_pass) / 4
    .word   0, (.Lwrite_step - pp_peak_write_neon_loop) / 4, PP_NEON_RW_STEP, 0, 0
    .word   (.Lcopy_pass - pp_peak_copy_neon_loop) / 4, (.Lcopy_end - .Lcopy_pass) / 4
    .word   (.Lcopy_stores - pp_peak_copy_neon_loop) / 4, (.Lcopy_step - .Lcopy_stores) / 4
    .word   PP_NEON_COPY_STEP, 0, 0
    .size   pp_peak_neon_shape, .-pp_peak_neon_shape
    .section .note.GNU-stack,"",%progbits
