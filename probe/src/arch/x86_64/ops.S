/* cpu-ops: LMBench's lat_ops operations as dependent chains (docs/probe.md "cpu-ops").
 * uint64_t pp_ops_<type>_<op>(uint64_t n in rdi): n iterations of the loop at
 * pp_ops_<type>_<op>_loop, each OPS_<OP>_UNROLL operations (timed_loops.h) that each need
 * the result of the one before; returns the chain's value (float/double: its bits).
 * int is 32-bit (e* registers), int64 64-bit; float/double are scalar SSE. idiv takes its
 * dividend in edx:eax, so div/mod sign-extend with cltd/cqto as a compiler does. */
    .text

.macro HEAD name
    .globl  pp_ops_\name
    .type   pp_ops_\name, @function
    .p2align 6
pp_ops_\name:
.endm

.macro LOOP name
    test    %rdi, %rdi
    jz      9f
    .p2align 6
    .globl  pp_ops_\name\()_loop
pp_ops_\name\()_loop:
.endm

.macro NEXT name
    dec     %rdi
    jnz     pp_ops_\name\()_loop
9:
.endm

.macro END name
    ret
    .size   pp_ops_\name, .-pp_ops_\name
.endm

/* add: a += b; b -= a */
HEAD int_add
    mov     $1, %eax
    mov     $1, %ecx
LOOP int_add
    .rept 50
    add     %ecx, %eax
    sub     %eax, %ecx
    .endr
NEXT int_add
END int_add

HEAD int64_add
    mov     $1, %eax
    mov     $1, %ecx
LOOP int64_add
    .rept 50
    add     %rcx, %rax
    sub     %rax, %rcx
    .endr
NEXT int64_add
END int64_add

/* bit: r ^= i; s ^= r; r |= s (i: the iterations left, LMBench's loop counter) */
HEAD int_bit
    mov     $1, %eax
    mov     %edi, %ecx
LOOP int_bit
    .rept 33
    xor     %edi, %eax
    xor     %eax, %ecx
    or      %ecx, %eax
    .endr
NEXT int_bit
END int_bit

HEAD int64_bit
    mov     $1, %eax
    mov     %rdi, %rcx
LOOP int64_bit
    .rept 33
    xor     %rdi, %rax
    xor     %rax, %rcx
    or      %rcx, %rax
    .endr
NEXT int64_bit
END int64_bit

/* mul: ten r *= s, then r -= t, which brings r back to its start (t = r * s^10 - r) */
HEAD int_mul
    mov     $37432, %eax
    mov     $5, %ecx
    mov     $0x1c4a1640, %edx
LOOP int_mul
    .rept 10
    .rept 10
    imul    %ecx, %eax
    .endr
    sub     %edx, %eax
    .endr
NEXT int_mul
END int_mul

HEAD int64_mul
    movabs  $0x70000922d, %rax
    mov     $5, %ecx
    movabs  $0x413151d15e2f598, %rdx
LOOP int64_mul
    .rept 10
    .rept 10
    imul    %rcx, %rax
    .endr
    sub     %rdx, %rax
    .endr
NEXT int64_mul
END int64_mul

/* div: r = s / r; the dividend s is reloaded and sign-extended off the chain */
HEAD int_div
    mov     $37, %ecx
    mov     $(38 << 20), %esi
LOOP int_div
    .rept 100
    mov     %esi, %eax
    cltd
    idiv    %ecx
    mov     %eax, %ecx
    .endr
NEXT int_div
    mov     %ecx, %eax
END int_div

HEAD int64_div
    movabs  $0x4a00000025, %rcx
    movabs  $0x940000006c000, %rsi
LOOP int64_div
    .rept 100
    mov     %rsi, %rax
    cqto
    idiv    %rcx
    mov     %rax, %rcx
    .endr
NEXT int64_div
    mov     %rcx, %rax
END int64_div

/* mod: r %= s; r |= s */
HEAD int_mod
    lea     1(%rdi), %eax
    mov     $63, %esi
LOOP int_mod
    .rept 100
    cltd
    idiv    %esi
    or      %esi, %edx
    mov     %edx, %eax
    .endr
NEXT int_mod
END int_mod

HEAD int64_mod
    lea     (%rdi,%rdi), %rax
    shl     $32, %rax
    movabs  $0x200000000000000, %rsi
LOOP int64_mod
    .rept 100
    cqto
    idiv    %rsi
    or      %rsi, %rdx
    mov     %rdx, %rax
    .endr
NEXT int64_mod
END int64_mod

/* float/double add: ten f += f take f from 1 to 1024, f += g (-1023) brings it back */
HEAD float_add
    mov     $0x3f800000, %eax
    movd    %eax, %xmm0
    mov     $0xc47fc000, %eax
    movd    %eax, %xmm1
LOOP float_add
    .rept 9
    .rept 10
    addss   %xmm0, %xmm0
    .endr
    addss   %xmm1, %xmm0
    .endr
NEXT float_add
    movd    %xmm0, %eax
END float_add

HEAD double_add
    movabs  $0x3ff0000000000000, %rax
    movq    %rax, %xmm0
    movabs  $0xc08ff80000000000, %rax
    movq    %rax, %xmm1
LOOP double_add
    .rept 9
    .rept 10
    addsd   %xmm0, %xmm0
    .endr
    addsd   %xmm1, %xmm0
    .endr
NEXT double_add
    movq    %xmm0, %rax
END double_add

/* mul: f *= f; f *= g from f = 8, g = 0.125 (f stays 8) */
HEAD float_mul
    mov     $0x41000000, %eax
    movd    %eax, %xmm0
    mov     $0x3e000000, %eax
    movd    %eax, %xmm1
LOOP float_mul
    .rept 50
    mulss   %xmm0, %xmm0
    mulss   %xmm1, %xmm0
    .endr
NEXT float_mul
    movd    %xmm0, %eax
END float_mul

HEAD double_mul
    movabs  $0x4020000000000000, %rax
    movq    %rax, %xmm0
    movabs  $0x3fc0000000000000, %rax
    movq    %rax, %xmm1
LOOP double_mul
    .rept 50
    mulsd   %xmm0, %xmm0
    mulsd   %xmm1, %xmm0
    .endr
NEXT double_mul
    movq    %xmm0, %rax
END double_mul

/* div: ten f = g / f, then ten g = f / g, from f = 1.41421356, g = 3.14159265 (full
 * mantissas: some dividers finish early on simple ones). SSE divides in place, so the new
 * value goes to xmm2 and back, each time after a copy of the other operand that does not
 * wait for the chain. */
.macro DIV_PHASES div, mov
    .rept 5
    .rept 5
    \mov    %xmm1, %xmm2
    \div    %xmm0, %xmm2
    \mov    %xmm1, %xmm0
    \div    %xmm2, %xmm0
    .endr
    .rept 5
    \mov    %xmm0, %xmm2
    \div    %xmm1, %xmm2
    \mov    %xmm0, %xmm1
    \div    %xmm2, %xmm1
    .endr
    .endr
.endm

HEAD float_div
    mov     $0x3fb504f3, %eax
    movd    %eax, %xmm0
    mov     $0x40490fdb, %eax
    movd    %eax, %xmm1
LOOP float_div
    DIV_PHASES divss, movaps
NEXT float_div
    movd    %xmm0, %eax
END float_div

HEAD double_div
    movabs  $0x3ff6a09e65dc27df, %rax
    movq    %rax, %xmm0
    movabs  $0x400921fb53c8d4f1, %rax
    movq    %rax, %xmm1
LOOP double_div
    DIV_PHASES divsd, movapd
NEXT double_div
    movq    %xmm0, %rax
END double_div

/* Every x86_64 CPU has idiv. */
    .globl  ops_int_div_available
    .type   ops_int_div_available, @function
ops_int_div_available:
    mov     $1, %eax
    ret
    .size   ops_int_div_available, .-ops_int_div_available

    .section .note.GNU-stack,"",@progbits
