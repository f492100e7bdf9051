/* cpu-ops: LMBench's lat_ops operations as dependent chains (docs/probe.md "cpu-ops").
 * uint64_t pp_ops_<type>_<op>(uint64_t n in x0): n iterations of the loop at
 * pp_ops_<type>_<op>_loop, each OPS_<OP>_UNROLL operations (timed_loops.h) that each need
 * the result of the one before; returns the chain's value (float/double: its bits).
 * int is 32-bit (w registers), int64 64-bit (x); float/double are scalar s/d registers.
 * The loop counter is x9; mod is sdiv + msub (what a compiler makes of %) then the or. */
    .text

.macro HEAD name
    .globl  pp_ops_\name
    .type   pp_ops_\name, %function
    .p2align 6
pp_ops_\name:
    mov     x9, x0
.endm

.macro LOOP name
    cbz     x9, 9f
    .p2align 6
    .globl  pp_ops_\name\()_loop
pp_ops_\name\()_loop:
.endm

.macro NEXT name
    subs    x9, x9, #1
    b.ne    pp_ops_\name\()_loop
9:
.endm

.macro END name
    ret
    .size   pp_ops_\name, .-pp_ops_\name
.endm

/* add: a += b; b -= a */
HEAD int_add
    mov     w1, #1
    mov     w2, #1
LOOP int_add
    .rept 50
    add     w1, w1, w2
    sub     w2, w2, w1
    .endr
NEXT int_add
    mov     w0, w1
END int_add

HEAD int64_add
    mov     x1, #1
    mov     x2, #1
LOOP int64_add
    .rept 50
    add     x1, x1, x2
    sub     x2, x2, x1
    .endr
NEXT int64_add
    mov     x0, x1
END int64_add

/* bit: r ^= i; s ^= r; r |= s (i: the iterations left, LMBench's loop counter) */
HEAD int_bit
    mov     w1, #1
    mov     w2, w0
LOOP int_bit
    .rept 33
    eor     w1, w1, w9
    eor     w2, w2, w1
    orr     w1, w1, w2
    .endr
NEXT int_bit
    mov     w0, w1
END int_bit

HEAD int64_bit
    mov     x1, #1
    mov     x2, x0
LOOP int64_bit
    .rept 33
    eor     x1, x1, x9
    eor     x2, x2, x1
    orr     x1, x1, x2
    .endr
NEXT int64_bit
    mov     x0, x1
END int64_bit

/* mul: r *= s */
HEAD int_mul
    mov     w1, #1
    mov     w2, #3
LOOP int_mul
    .rept 100
    mul     w1, w1, w2
    .endr
NEXT int_mul
    mov     w0, w1
END int_mul

HEAD int64_mul
    mov     x1, #1
    mov     x2, #3
LOOP int64_mul
    .rept 100
    mul     x1, x1, x2
    .endr
NEXT int64_mul
    mov     x0, x1
END int64_mul

/* div: r = s / r */
HEAD int_div
    mov     w1, #2
    mov     w2, #(3 << 20)
LOOP int_div
    .rept 100
    sdiv    w1, w2, w1
    .endr
NEXT int_div
    mov     w0, w1
END int_div

HEAD int64_div
    mov     x1, #1
    mov     x2, #(2 << 20)
LOOP int64_div
    .rept 100
    sdiv    x1, x2, x1
    .endr
NEXT int64_div
    mov     x0, x1
END int64_div

/* mod: r = r % s; r |= s */
HEAD int_mod
    mov     w1, #1
    movz    w2, #(1000001 & 0xffff)
    movk    w2, #(1000001 >> 16), lsl #16
LOOP int_mod
    .rept 100
    sdiv    w3, w1, w2
    msub    w1, w3, w2, w1
    orr     w1, w1, w2
    .endr
NEXT int_mod
    mov     w0, w1
END int_mod

HEAD int64_mod
    mov     x1, #1
    movz    x2, #(1000001 & 0xffff)
    movk    x2, #(1000001 >> 16), lsl #16
LOOP int64_mod
    .rept 100
    sdiv    x3, x1, x2
    msub    x1, x3, x2, x1
    orr     x1, x1, x2
    .endr
NEXT int64_mod
    mov     x0, x1
END int64_mod

/* float/double add: ten f += f take f from 1 to 1024, f += g (-1023) brings it back */
HEAD float_add
    fmov    s0, #1.0
    movz    w3, #0xc000
    movk    w3, #0xc47f, lsl #16
    fmov    s1, w3
LOOP float_add
    .rept 9
    .rept 10
    fadd    s0, s0, s0
    .endr
    fadd    s0, s0, s1
    .endr
NEXT float_add
    fmov    w0, s0
END float_add

HEAD double_add
    fmov    d0, #1.0
    movz    x3, #0xf800, lsl #32
    movk    x3, #0xc08f, lsl #48
    fmov    d1, x3
LOOP double_add
    .rept 9
    .rept 10
    fadd    d0, d0, d0
    .endr
    fadd    d0, d0, d1
    .endr
NEXT double_add
    fmov    x0, d0
END double_add

/* mul: f *= f from 1 (stays 1: no denormals, no infinities) */
HEAD float_mul
    fmov    s0, #1.0
LOOP float_mul
    .rept 100
    fmul    s0, s0, s0
    .endr
NEXT float_mul
    fmov    w0, s0
END float_mul

HEAD double_mul
    fmov    d0, #1.0
LOOP double_mul
    .rept 100
    fmul    d0, d0, d0
    .endr
NEXT double_mul
    fmov    x0, d0
END double_mul

/* div: f = g / f (1, 1000, 1, ...) */
HEAD float_div
    fmov    s0, #1.0
    movz    w3, #0x447a, lsl #16
    fmov    s1, w3
LOOP float_div
    .rept 100
    fdiv    s0, s1, s0
    .endr
NEXT float_div
    fmov    w0, s0
END float_div

HEAD double_div
    fmov    d0, #1.0
    movz    x3, #0x4000, lsl #32
    movk    x3, #0x408f, lsl #48
    fmov    d1, x3
LOOP double_div
    .rept 100
    fdiv    d0, d1, d0
    .endr
NEXT double_div
    fmov    x0, d0
END double_div

/* Every AArch64 CPU has sdiv. */
    .globl  ops_int_div_available
    .type   ops_int_div_available, %function
ops_int_div_available:
    mov     w0, #1
    ret
    .size   ops_int_div_available, .-ops_int_div_available

    .section .note.GNU-stack,"",%progbits
