/* cpu-ops: LMBench's lat_ops operations as dependent chains (docs/probe.md "cpu-ops").
 * uint64_t pp_ops_<type>_<op>(uint64_t n in r0:r1): n iterations of the loop at
 * pp_ops_<type>_<op>_loop, each OPS_<OP>_UNROLL operations (timed_loops.h) that each need
 * the result of the one before; returns the chain's value in r0:r1 (float/double: its bits).
 * The loop counter is r0:r1 (64-bit, as pp_addchain); int64 values are lo:hi register pairs
 * handled as a compiler does (adds/adc, umull + two cross products, eor/orr per half).
 * A 32-bit Arm has no 64-bit divide instruction: int64 div and mod call libgcc's
 * __aeabi_ldivmod, as compiled C (and LMBench) does. int div/mod use sdiv, which plain
 * ARMv7-A lacks (Cortex-A8/A9): ops_int_div_available() tells from AT_HWCAP. */
    .syntax unified
    .arch   armv7-a
    .arch_extension idiv
    .fpu    neon
    .arm
    .text

.macro HEAD name
    .globl  pp_ops_\name
    .type   pp_ops_\name, %function
    .p2align 6
pp_ops_\name:
    push    {r4-r10, lr}
.endm

.macro LOOP name
    orrs    ip, r0, r1
    beq     9f
    .p2align 6
    .globl  pp_ops_\name\()_loop
pp_ops_\name\()_loop:
.endm

.macro NEXT name
    subs    r0, r0, #1
    sbc     r1, r1, #0
    orrs    ip, r0, r1
    bne     pp_ops_\name\()_loop
9:
.endm

.macro END name
    pop     {r4-r10, pc}
    .size   pp_ops_\name, .-pp_ops_\name
.endm

/* add: a += b; b -= a */
HEAD int_add
    mov     r2, #1
    mov     r3, #1
LOOP int_add
    .rept 50
    add     r2, r2, r3
    sub     r3, r3, r2
    .endr
NEXT int_add
    mov     r0, r2
    mov     r1, #0
END int_add

HEAD int64_add
    mov     r2, #1          @ a = r2:r3
    mov     r3, #0
    mov     r4, #1          @ b = r4:r5
    mov     r5, #0
LOOP int64_add
    .rept 50
    adds    r2, r2, r4
    adc     r3, r3, r5
    subs    r4, r4, r2
    sbc     r5, r5, r3
    .endr
NEXT int64_add
    mov     r0, r2
    mov     r1, r3
END int64_add

/* bit: r ^= i; s ^= r; r |= s (i: the iterations left, LMBench's loop counter) */
HEAD int_bit
    mov     r2, #1
    mov     r3, r0
LOOP int_bit
    .rept 33
    eor     r2, r2, r0
    eor     r3, r3, r2
    orr     r2, r2, r3
    .endr
NEXT int_bit
    mov     r0, r2
    mov     r1, #0
END int_bit

HEAD int64_bit
    mov     r2, #1          @ r = r2:r3
    mov     r3, #0
    mov     r4, r0          @ s = r4:r5 = n
    mov     r5, r1
LOOP int64_bit
    .rept 33
    eor     r2, r2, r0
    eor     r3, r3, r1
    eor     r4, r4, r2
    eor     r5, r5, r3
    orr     r2, r2, r4
    orr     r3, r3, r5
    .endr
NEXT int64_bit
    mov     r0, r2
    mov     r1, r3
END int64_bit

/* mul: ten r *= s, then r -= t, which brings r back to its start (t = r * s^10 - r) */
HEAD int_mul
    movw    r2, #37432
    mov     r3, #5
    movw    r4, #0x1640
    movt    r4, #0x1c4a
LOOP int_mul
    .rept 10
    .rept 10
    mul     r2, r2, r3
    .endr
    sub     r2, r2, r4
    .endr
NEXT int_mul
    mov     r0, r2
    mov     r1, #0
END int_mul

HEAD int64_mul
    movw    r2, #0x922d     @ r = r2:r3
    mov     r3, #7
    mov     r4, #5          @ s = r4:r5
    mov     r5, #0
    movw    r6, #0xf598     @ t = r6:r7
    movt    r6, #0x15e2
    movw    r7, #0x151d
    movt    r7, #0x0413
LOOP int64_mul
    .rept 10
    .rept 10
    mul     ip, r2, r5
    mla     ip, r3, r4, ip
    umull   r2, r3, r2, r4
    add     r3, r3, ip
    .endr
    subs    r2, r2, r6
    sbc     r3, r3, r7
    .endr
NEXT int64_mul
    mov     r0, r2
    mov     r1, r3
END int64_mul

/* div: r = s / r */
HEAD int_div
    mov     r2, #37
    mov     r3, #(38 << 20)
LOOP int_div
    .rept 100
    sdiv    r2, r3, r2
    .endr
NEXT int_div
    mov     r0, r2
    mov     r1, #0
END int_div

HEAD int64_div
    mov     r4, r0          @ counter r4:r5 (the call takes r0-r3)
    mov     r5, r1
    movw    r6, #0xc000     @ s = r6:r7
    movt    r6, #0x6
    movw    r7, #0x4000
    movt    r7, #0x9
    mov     r8, #0x25       @ r = r8:r9
    mov     r9, #0x4a
    orrs    ip, r4, r5
    beq     9f
    .p2align 6
    .globl  pp_ops_int64_div_loop
pp_ops_int64_div_loop:
    .rept 100
    mov     r0, r6
    mov     r1, r7
    mov     r2, r8
    mov     r3, r9
    bl      __aeabi_ldivmod
    mov     r8, r0
    mov     r9, r1
    .endr
    subs    r4, r4, #1
    sbc     r5, r5, #0
    orrs    ip, r4, r5
    bne     pp_ops_int64_div_loop
9:  mov     r0, r8
    mov     r1, r9
END int64_div

/* mod: r %= s; r |= s */
HEAD int_mod
    add     r2, r0, #1
    mov     r3, #63
LOOP int_mod
    .rept 100
    sdiv    ip, r2, r3
    mls     r2, ip, r3, r2
    orr     r2, r2, r3
    .endr
NEXT int_mod
    mov     r0, r2
    mov     r1, #0
END int_mod

HEAD int64_mod
    mov     r4, r0          @ counter r4:r5
    mov     r5, r1
    mov     r6, #0          @ s = r6:r7 = 1 << 57
    mov     r7, #(1 << 25)
    mov     r8, #0          @ r = r8:r9 = 2n << 32
    lsl     r9, r0, #1
    orrs    ip, r4, r5
    beq     9f
    .p2align 6
    .globl  pp_ops_int64_mod_loop
pp_ops_int64_mod_loop:
    .rept 100
    mov     r0, r8
    mov     r1, r9
    mov     r2, r6
    mov     r3, r7
    bl      __aeabi_ldivmod         @ remainder in r2:r3
    orr     r8, r2, r6
    orr     r9, r3, r7
    .endr
    subs    r4, r4, #1
    sbc     r5, r5, #0
    orrs    ip, r4, r5
    bne     pp_ops_int64_mod_loop
9:  mov     r0, r8
    mov     r1, r9
END int64_mod

/* float/double add: ten f += f take f from 1 to 1024, f += g (-1023) brings it back */
HEAD float_add
    vmov.f32 s0, #1.0
    movw    r2, #0xc000
    movt    r2, #0xc47f
    vmov    s1, r2
LOOP float_add
    .rept 9
    .rept 10
    vadd.f32 s0, s0, s0
    .endr
    vadd.f32 s0, s0, s1
    .endr
NEXT float_add
    vmov    r0, s0
    mov     r1, #0
END float_add

HEAD double_add
    vmov.f64 d0, #1.0
    mov     r2, #0
    movw    r3, #0xf800
    movt    r3, #0xc08f
    vmov    d1, r2, r3
LOOP double_add
    .rept 9
    .rept 10
    vadd.f64 d0, d0, d0
    .endr
    vadd.f64 d0, d0, d1
    .endr
NEXT double_add
    vmov    r0, r1, d0
END double_add

/* mul: f *= f; f *= g from f = 8, g = 0.125 (f stays 8) */
HEAD float_mul
    vmov.f32 s0, #8.0
    vmov.f32 s1, #0.125
LOOP float_mul
    .rept 50
    vmul.f32 s0, s0, s0
    vmul.f32 s0, s0, s1
    .endr
NEXT float_mul
    vmov    r0, s0
    mov     r1, #0
END float_mul

HEAD double_mul
    vmov.f64 d0, #8.0
    vmov.f64 d1, #0.125
LOOP double_mul
    .rept 50
    vmul.f64 d0, d0, d0
    vmul.f64 d0, d0, d1
    .endr
NEXT double_mul
    vmov    r0, r1, d0
END double_mul

/* div: ten f = g / f, then ten g = f / g, from f = 1.41421356, g = 3.14159265 (full
 * mantissas: some dividers finish early on simple ones) */
HEAD float_div
    movw    r2, #0x04f3
    movt    r2, #0x3fb5
    vmov    s0, r2
    movw    r2, #0x0fdb
    movt    r2, #0x4049
    vmov    s1, r2
LOOP float_div
    .rept 5
    .rept 10
    vdiv.f32 s0, s1, s0
    .endr
    .rept 10
    vdiv.f32 s1, s0, s1
    .endr
    .endr
NEXT float_div
    vmov    r0, s0
    mov     r1, #0
END float_div

HEAD double_div
    movw    r2, #0x27df
    movt    r2, #0x65dc
    movw    r3, #0xa09e
    movt    r3, #0x3ff6
    vmov    d0, r2, r3
    movw    r2, #0xd4f1
    movt    r2, #0x53c8
    movw    r3, #0x21fb
    movt    r3, #0x4009
    vmov    d1, r2, r3
LOOP double_div
    .rept 5
    .rept 10
    vdiv.f64 d0, d1, d0
    .endr
    .rept 10
    vdiv.f64 d1, d0, d1
    .endr
    .endr
NEXT double_div
    vmov    r0, r1, d0
END double_div

/* AT_HWCAP (16) bit HWCAP_IDIVA (1 << 17): sdiv/udiv in ARM state. */
    .globl  ops_int_div_available
    .type   ops_int_div_available, %function
    .p2align 2
ops_int_div_available:
    push    {r4, lr}
    mov     r0, #16
    bl      getauxval
    ubfx    r0, r0, #17, #1
    pop     {r4, pc}
    .size   ops_int_div_available, .-ops_int_div_available

    .section .note.GNU-stack,"",%progbits
