/* Peak bandwidth with SVE's contiguous loads and stores: a whole vector each, however
 * long this CPU's vectors are (128 to 2048 bits, known only at run time: the loops are
 * vector-length agnostic). 8 vectors per iteration, then, when 8 vectors do not divide
 * the buffer (vectors of 1024 bits and more, or 384), the rest one predicated vector at a
 * time. SVE2 has no wider contiguous access: these are the loops on SVE2 CPUs too.
 * features.c calls them only where HWCAP says SVE. z8-z15 are not used (their low halves
 * are callee-saved), nor p4-p15.
 *   pp_peak_read_sve(buf x0, bytes x1, passes x2)
 *   pp_peak_write_sve(buf x0, bytes x1, passes x2)
 *   pp_peak_copy_sve(dst x0, src x1, bytes x2, passes x3) */
    .arch   armv8.2-a+sve
    .equ    PP_SVE_VECTORS, 8         /* whole vectors of each buffer an iteration moves */

/* z<k> loaded from, or stored to, vector k at BASE */
.macro vector OP, k, BASE
    .ifc \OP, ld1b
    ld1b    {z\k\().b}, p0/z, [\BASE, #\k, mul vl]
    .else
    st1b    {z\k\().b}, p0, [\BASE, #\k, mul vl]
    .endif
.endm

/* z0-z7 and the 8 vectors at BASE */
.macro eight OP, BASE
    vector  \OP, 0, \BASE
    vector  \OP, 1, \BASE
    vector  \OP, 2, \BASE
    vector  \OP, 3, \BASE
    vector  \OP, 4, \BASE
    vector  \OP, 5, \BASE
    vector  \OP, 6, \BASE
    vector  \OP, 7, \BASE
.endm

/* One buffer: read (z0-z7 loaded) or write (z0, zero, stored). */
.macro one_buffer NAME, WRITE
    .text
    .globl  pp_peak_\NAME\()_sve
    .type   pp_peak_\NAME\()_sve, %function
    .p2align 6
pp_peak_\NAME\()_sve:
    cbz     x2, 9f
    ptrue   p0.b
    .if \WRITE
    mov     z0.b, #0
    .endif
    rdvl    x5, #PP_SVE_VECTORS     /* bytes per iteration */
    add     x3, x0, x1              /* end */
    sub     x6, x3, x5              /* the last start of a whole iteration */
.Lsve_\NAME\()_head:
1:  mov     x4, x0
    cmp     x4, x6
    b.hi    3f
    .p2align 6
    .globl  pp_peak_\NAME\()_sve_loop
pp_peak_\NAME\()_sve_loop:
    .if \WRITE
    .irp k, 0,1,2,3,4,5,6,7
    st1b    {z0.b}, p0, [x4, #\k, mul vl]
    .endr
    .else
    eight   ld1b, x4
    .endif
.Lsve_\NAME\()_step:
    add     x4, x4, x5
    cmp     x4, x6
    b.ls    pp_peak_\NAME\()_sve_loop
.Lsve_\NAME\()_rest_test:
3:  whilelo p1.b, x4, x3            /* the rest, one vector at a time */
    b.none  4f
.Lsve_\NAME\()_rest:
2:
    .if \WRITE
    st1b    {z0.b}, p1, [x4]
    .else
    ld1b    {z0.b}, p1/z, [x4]
    .endif
    incb    x4
    whilelo p1.b, x4, x3
    b.first 2b
.Lsve_\NAME\()_pass_end:
4:  subs    x2, x2, #1
    b.ne    1b
.Lsve_\NAME\()_end:
9:  ret
    .size   pp_peak_\NAME\()_sve, .-pp_peak_\NAME\()_sve
    .if (.Lsve_\NAME\()_step - pp_peak_\NAME\()_sve_loop) / 4 - PP_SVE_VECTORS
    .error  "pp_peak_\NAME\()_sve: an iteration does not move PP_SVE_VECTORS vectors"
    .endif
.endm

    one_buffer read, 0
    one_buffer write, 1

    .globl  pp_peak_copy_sve
    .type   pp_peak_copy_sve, %function
    .p2align 6
pp_peak_copy_sve:
    cbz     x3, 9f
    ptrue   p0.b
    rdvl    x5, #PP_SVE_VECTORS
    add     x7, x1, x2              /* end of the source */
    sub     x8, x7, x5
.Lsve_copy_head:
1:  mov     x4, x1
    mov     x6, x0
    cmp     x4, x8
    b.hi    3f
    .p2align 6
    .globl  pp_peak_copy_sve_loop
pp_peak_copy_sve_loop:
    eight   ld1b, x4
.Lsve_copy_stores:
    eight   st1b, x6
.Lsve_copy_step:
    add     x4, x4, x5
    add     x6, x6, x5
    cmp     x4, x8
    b.ls    pp_peak_copy_sve_loop
.Lsve_copy_rest_test:
3:  whilelo p1.b, x4, x7
    b.none  4f
.Lsve_copy_rest:
2:  ld1b    {z0.b}, p1/z, [x4]
    st1b    {z0.b}, p1, [x6]
    incb    x4
    incb    x6
    whilelo p1.b, x4, x7
    b.first 2b
.Lsve_copy_pass_end:
4:  subs    x3, x3, #1
    b.ne    1b
.Lsve_copy_end:
9:  ret
    .size   pp_peak_copy_sve, .-pp_peak_copy_sve
    .if (.Lsve_copy_stores - pp_peak_copy_sve_loop) / 4 - PP_SVE_VECTORS
    .error  "pp_peak_copy_sve: an iteration does not load PP_SVE_VECTORS vectors"
    .endif
    .if (.Lsve_copy_step - .Lsve_copy_stores) / 4 - PP_SVE_VECTORS
    .error  "pp_peak_copy_sve: an iteration does not store PP_SVE_VECTORS vectors"
    .endif

/* What the loops above are, from their own addresses (an A64 instruction is 4 bytes; SVE's
 * too), for the counted events' known answer (kernels/bw_claim.c): per kernel (read, write,
 * copy) a struct peak_shape (timed_loops.h): the instructions of an inner iteration; those a
 * pass runs besides its inner iterations and its rest vectors (its head up to the loop, the
 * padding before the loop included, which each pass runs through; the rest loop's first
 * test; its end); the load and store instructions of an inner iteration; 0 (the step is not a
 * constant); the vectors of each buffer an iteration moves (the step is that many vector
 * lengths, rdvl); the instructions of the rest loop per vector, which loads and stores one
 * vector of each buffer. A buffer of less than one iteration branches past the loop and
 * its padding: bw_claim.c claims nothing there. tests/probe/test_peak_shape.py sets each row
 * against objdump's count. */
.macro sve_shape NAME, LOADS, STORES
    .word   (.Lsve_\NAME\()_rest_test - pp_peak_\NAME\()_sve_loop) / 4
    .word   (pp_peak_\NAME\()_sve_loop - .Lsve_\NAME\()_head) / 4 + (.Lsve_\NAME\()_rest - .Lsve_\NAME\()_rest_test) / 4 + (.Lsve_\NAME\()_end - .Lsve_\NAME\()_pass_end) / 4
    .word   \LOADS, \STORES, 0, PP_SVE_VECTORS
    .word   (.Lsve_\NAME\()_pass_end - .Lsve_\NAME\()_rest) / 4
.endm
    .section .rodata
    .p2align 2
    .globl  pp_peak_sve_shape
    .type   pp_peak_sve_shape, %object
pp_peak_sve_shape:
    sve_shape read, (.Lsve_read_step - pp_peak_read_sve_loop) / 4, 0
    sve_shape write, 0, (.Lsve_write_step - pp_peak_write_sve_loop) / 4
    sve_shape copy, (.Lsve_copy_stores - pp_peak_copy_sve_loop) / 4, (.Lsve_copy_step - .Lsve_copy_stores) / 4
    .size   pp_peak_sve_shape, .-pp_peak_sve_shape
    .section .note.GNU-stack,"",%progbits
