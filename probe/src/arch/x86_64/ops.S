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

/* mul: r *= s */
HEAD int_mul
    mov     $1, %eax
    mov     $3, %ecx
LOOP int_mul
    .rept 100
    imul    %ecx, %eax
    .endr
NEXT int_mul
END int_mul

HEAD int64_mul
    mov     $1, %eax
    mov     $3, %ecx
LOOP int64_mul
    .rept 100
    imul    %rcx, %rax
    .endr
NEXT int64_mul
END int64_mul

/* div: r = s / r; the dividend s is reloaded and sign-extended off the chain */
HEAD int_div
    mov     $2, %ecx
    mov     $(3 << 20), %esi
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
    mov     $1, %ecx
    mov     $(2 << 20), %esi
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

/* mod: r = r % s; r |= s */
HEAD int_mod
    mov     $1, %eax
    mov     $1000001, %esi
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
    mov     $1, %eax
    mov     $1000001, %esi
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

/* mul: f *= f from 1 (stays 1: no denormals, no infinities) */
HEAD float_mul
    mov     $0x3f800000, %eax
    movd    %eax, %xmm0
LOOP float_mul
    .rept 100
    mulss   %xmm0, %xmm0
    .endr
NEXT float_mul
    movd    %xmm0, %eax
END float_mul

HEAD double_mul
    movabs  $0x3ff0000000000000, %rax
    movq    %rax, %xmm0
LOOP double_mul
    .rept 100
    mulsd   %xmm0, %xmm0
    .endr
NEXT double_mul
    movq    %xmm0, %rax
END double_mul

/* div: f = g / f (1, 1000, 1, ...); SSE divides in place, so f alternates between xmm0
 * and xmm2, each first set to g by a copy that does not wait for the chain */
HEAD float_div
    mov     $0x3f800000, %eax
    movd    %eax, %xmm0
    mov     $0x447a0000, %eax
    movd    %eax, %xmm1
LOOP float_div
    .rept 50
    movaps  %xmm1, %xmm2
    divss   %xmm0, %xmm2
    movaps  %xmm1, %xmm0
    divss   %xmm2, %xmm0
    .endr
NEXT float_div
    movd    %xmm0, %eax
END float_div

HEAD double_div
    movabs  $0x3ff0000000000000, %rax
    movq    %rax, %xmm0
    movabs  $0x408f400000000000, %rax
    movq    %rax, %xmm1
LOOP double_div
    .rept 50
    movapd  %xmm1, %xmm2
    divsd   %xmm0, %xmm2
    movapd  %xmm1, %xmm0
    divsd   %xmm2, %xmm0
    .endr
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
