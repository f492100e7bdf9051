/* Peak bandwidth with SVE's contiguous loads and stores: a whole vector each, however
 * long this CPU's vectors are (128 to 2048 bits, known only at run time: the loops are
 * vector-length agnostic). 8 vectors per iteration, then, when 8 vectors do not divide
 * the buffer (vectors of 1024 bits and more), the rest one predicated vector at a time.
 * SVE2 has no wider contiguous access: these are the loops on SVE2 CPUs too. features.c
 * calls them only where HWCAP says SVE. z8-z15 are not used (their low halves are
 * callee-saved), nor p4-p15.
 *   pp_peak_read_sve(buf x0, bytes x1, passes x2)
 *   pp_peak_write_sve(buf x0, bytes x1, passes x2)
 *   pp_peak_copy_sve(dst x0, src x1, bytes x2, passes x3) */
    .arch   armv8.2-a+sve
    .text
    .globl  pp_peak_read_sve
    .type   pp_peak_read_sve, %function
    .p2align 6
pp_peak_read_sve:
    cbz     x2, 9f
    ptrue   p0.b
    rdvl    x5, #8                  /* bytes per iteration */
    add     x3, x0, x1              /* end */
    sub     x6, x3, x5              /* the last start of a whole iteration */
1:  mov     x4, x0
    cmp     x4, x6
    b.hi    3f
    .p2align 6
    .globl  pp_peak_read_sve_loop
pp_peak_read_sve_loop:
    ld1b    {z0.b}, p0/z, [x4, #0, mul vl]
    ld1b    {z1.b}, p0/z, [x4, #1, mul vl]
    ld1b    {z2.b}, p0/z, [x4, #2, mul vl]
    ld1b    {z3.b}, p0/z, [x4, #3, mul vl]
    ld1b    {z4.b}, p0/z, [x4, #4, mul vl]
    ld1b    {z5.b}, p0/z, [x4, #5, mul vl]
    ld1b    {z6.b}, p0/z, [x4, #6, mul vl]
    ld1b    {z7.b}, p0/z, [x4, #7, mul vl]
    add     x4, x4, x5
    cmp     x4, x6
    b.ls    pp_peak_read_sve_loop
3:  whilelo p1.b, x4, x3
    b.none  4f
2:  ld1b    {z0.b}, p1/z, [x4]
    incb    x4
    whilelo p1.b, x4, x3
    b.first 2b
4:  subs    x2, x2, #1
    b.ne    1b
9:  ret
    .size   pp_peak_read_sve, .-pp_peak_read_sve

    .globl  pp_peak_write_sve
    .type   pp_peak_write_sve, %function
    .p2align 6
pp_peak_write_sve:
    cbz     x2, 9f
    ptrue   p0.b
    mov     z0.b, #0
    rdvl    x5, #8
    add     x3, x0, x1
    sub     x6, x3, x5
1:  mov     x4, x0
    cmp     x4, x6
    b.hi    3f
    .p2align 6
    .globl  pp_peak_write_sve_loop
pp_peak_write_sve_loop:
    st1b    {z0.b}, p0, [x4, #0, mul vl]
    st1b    {z0.b}, p0, [x4, #1, mul vl]
    st1b    {z0.b}, p0, [x4, #2, mul vl]
    st1b    {z0.b}, p0, [x4, #3, mul vl]
    st1b    {z0.b}, p0, [x4, #4, mul vl]
    st1b    {z0.b}, p0, [x4, #5, mul vl]
    st1b    {z0.b}, p0, [x4, #6, mul vl]
    st1b    {z0.b}, p0, [x4, #7, mul vl]
    add     x4, x4, x5
    cmp     x4, x6
    b.ls    pp_peak_write_sve_loop
3:  whilelo p1.b, x4, x3
    b.none  4f
2:  st1b    {z0.b}, p1, [x4]
    incb    x4
    whilelo p1.b, x4, x3
    b.first 2b
4:  subs    x2, x2, #1
    b.ne    1b
9:  ret
    .size   pp_peak_write_sve, .-pp_peak_write_sve

    .globl  pp_peak_copy_sve
    .type   pp_peak_copy_sve, %function
    .p2align 6
pp_peak_copy_sve:
    cbz     x3, 9f
    ptrue   p0.b
    rdvl    x5, #8
    add     x7, x1, x2              /* end of the source */
    sub     x8, x7, x5
1:  mov     x4, x1
    mov     x6, x0
    cmp     x4, x8
    b.hi    3f
    .p2align 6
    .globl  pp_peak_copy_sve_loop
pp_peak_copy_sve_loop:
    ld1b    {z0.b}, p0/z, [x4, #0, mul vl]
    ld1b    {z1.b}, p0/z, [x4, #1, mul vl]
    ld1b    {z2.b}, p0/z, [x4, #2, mul vl]
    ld1b    {z3.b}, p0/z, [x4, #3, mul vl]
    ld1b    {z4.b}, p0/z, [x4, #4, mul vl]
    ld1b    {z5.b}, p0/z, [x4, #5, mul vl]
    ld1b    {z6.b}, p0/z, [x4, #6, mul vl]
    ld1b    {z7.b}, p0/z, [x4, #7, mul vl]
    st1b    {z0.b}, p0, [x6, #0, mul vl]
    st1b    {z1.b}, p0, [x6, #1, mul vl]
    st1b    {z2.b}, p0, [x6, #2, mul vl]
    st1b    {z3.b}, p0, [x6, #3, mul vl]
    st1b    {z4.b}, p0, [x6, #4, mul vl]
    st1b    {z5.b}, p0, [x6, #5, mul vl]
    st1b    {z6.b}, p0, [x6, #6, mul vl]
    st1b    {z7.b}, p0, [x6, #7, mul vl]
    add     x4, x4, x5
    add     x6, x6, x5
    cmp     x4, x8
    b.ls    pp_peak_copy_sve_loop
3:  whilelo p1.b, x4, x7
    b.none  4f
2:  ld1b    {z0.b}, p1/z, [x4]
    st1b    {z0.b}, p1, [x6]
    incb    x4
    incb    x6
    whilelo p1.b, x4, x7
    b.first 2b
4:  subs    x3, x3, #1
    b.ne    1b
9:  ret
    .size   pp_peak_copy_sve, .-pp_peak_copy_sve
    .section .note.GNU-stack,"",%progbits
