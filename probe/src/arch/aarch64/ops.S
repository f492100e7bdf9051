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

/* mul: ten r *= s, then r -= t, which brings r back to its start (t = r * s^10 - r) */
HEAD int_mul
    mov     w1, #37432
    mov     w2, #5
    movz    w3, #0x1640
    movk    w3, #0x1c4a, lsl #16
LOOP int_mul
    .rept 10
    .rept 10
    mul     w1, w1, w2
    .endr
    sub     w1, w1, w3
    .endr
NEXT int_mul
    mov     w0, w1
END int_mul

HEAD int64_mul
    movz    x1, #0x922d
    movk    x1, #0x7, lsl #32
    mov     x2, #5
    movz    x3, #0xf598
    movk    x3, #0x15e2, lsl #16
    movk    x3, #0x151d, lsl #32
    movk    x3, #0x0413, lsl #48
LOOP int64_mul
    .rept 10
    .rept 10
    mul     x1, x1, x2
    .endr
    sub     x1, x1, x3
    .endr
NEXT int64_mul
    mov     x0, x1
END int64_mul

/* div: r = s / r */
HEAD int_div
    mov     w1, #37
    mov     w2, #(38 << 20)
LOOP int_div
    .rept 100
    sdiv    w1, w2, w1
    .endr
NEXT int_div
    mov     w0, w1
END int_div

HEAD int64_div
    movz    x1, #0x25
    movk    x1, #0x4a, lsl #32
    movz    x2, #0xc000
    movk    x2, #0x6, lsl #16
    movk    x2, #0x4000, lsl #32
    movk    x2, #0x9, lsl #48
LOOP int64_div
    .rept 100
    sdiv    x1, x2, x1
    .endr
NEXT int64_div
    mov     x0, x1
END int64_div

/* mod: r %= s; r |= s */
HEAD int_mod
    add     w1, w0, #1
    mov     w2, #63
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
    lsl     x1, x0, #33
    mov     x2, #(1 << 57)
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

/* mul: f *= f; f *= g from f = 8, g = 0.125 (f stays 8) */
HEAD float_mul
    fmov    s0, #8.0
    fmov    s1, #0.125
LOOP float_mul
    .rept 50
    fmul    s0, s0, s0
    fmul    s0, s0, s1
    .endr
NEXT float_mul
    fmov    w0, s0
END float_mul

HEAD double_mul
    fmov    d0, #8.0
    fmov    d1, #0.125
LOOP double_mul
    .rept 50
    fmul    d0, d0, d0
    fmul    d0, d0, d1
    .endr
NEXT double_mul
    fmov    x0, d0
END double_mul

/* div: ten f = g / f, then ten g = f / g, from f = 1.41421356, g = 3.14159265 (full
 * mantissas: some dividers finish early on simple ones) */
HEAD float_div
    movz    w3, #0x04f3
    movk    w3, #0x3fb5, lsl #16
    fmov    s0, w3
    movz    w3, #0x0fdb
    movk    w3, #0x4049, lsl #16
    fmov    s1, w3
LOOP float_div
    .rept 5
    .rept 10
    fdiv    s0, s1, s0
    .endr
    .rept 10
    fdiv    s1, s0, s1
    .endr
    .endr
NEXT float_div
    fmov    w0, s0
END float_div

HEAD double_div
    movz    x3, #0x27df
    movk    x3, #0x65dc, lsl #16
    movk    x3, #0xa09e, lsl #32
    movk    x3, #0x3ff6, lsl #48
    fmov    d0, x3
    movz    x3, #0xd4f1
    movk    x3, #0x53c8, lsl #16
    movk    x3, #0x21fb, lsl #32
    movk    x3, #0x4009, lsl #48
    fmov    d1, x3
LOOP double_div
    .rept 5
    .rept 10
    fdiv    d0, d1, d0
    .endr
    .rept 10
    fdiv    d1, d0, d1
    .endr
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
