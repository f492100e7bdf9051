/* Peak bandwidth: the widest aligned loads/stores, 512 bytes per iteration, `passes`
 * passes over the buffer (the copy moves 512 bytes per iteration: 8 zmm, 16 ymm;
 * 256 bytes: 16 xmm). One version per vector width; features.c picks one by CPUID.
 *   pp_peak_read_W(const void *buf, size_t bytes, uint64_t passes)   rdi, rsi, rdx
 *   pp_peak_write_W(void *buf, size_t bytes, uint64_t passes)        rdi, rsi, rdx
 *   pp_peak_copy_W(void *dst, const void *src, size_t bytes, uint64_t passes)  rdi, rsi, rdx, rcx
 * Separate source/destination pointers for the copy, no indexed addressing: on several
 * Intel cores indexed stores cannot use the simple store address unit. Each copy load is
 * followed by its store (grouping all loads before all stores was 10-15% slower from L1
 * on Zen 4). */

    .equ    PP_PEAK_STEP, 512         /* bytes an iteration of read and write advances */

/* name, load/store mnemonic, register prefix, vector bytes, vectors per copy iteration, epilogue.
 * Each load and store the macro emits is counted as it is emitted (.Lloads_W, .Lstores_W, per
 * kernel): an x86 instruction has no one length, so these counts, not addresses, are what
 * the table at the end says of a loop. */
.macro peak_kernels W, MOV, R, VB, CN, FINISH
    .set    .Lread_loads_\W, 0
    .set    .Lwrite_stores_\W, 0
    .set    .Lcopy_moves_\W, 0
    .text
    .globl  pp_peak_read_\W
    .type   pp_peak_read_\W, @function
    .p2align 6
pp_peak_read_\W:
    test    %rdx, %rdx
    jz      2f
    mov     %rdi, %rax
    lea     (%rdi,%rsi), %rcx
    .p2align 6
    .globl  pp_peak_read_\W\()_loop
pp_peak_read_\W\()_loop:
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    .if \i * \VB < PP_PEAK_STEP
    \MOV    \i*\VB(%rax), %\R\()\i
    .set    .Lread_loads_\W, .Lread_loads_\W + 1
    .endif
    .endr
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15   /* SSE2 needs 32 loads: registers 0-15 again */
    .if (16 + \i) * \VB < PP_PEAK_STEP
    \MOV    (16+\i)*\VB(%rax), %\R\()\i
    .set    .Lread_loads_\W, .Lread_loads_\W + 1
    .endif
    .endr
    add     $PP_PEAK_STEP, %rax
    cmp     %rcx, %rax
    jb      pp_peak_read_\W\()_loop
    mov     %rdi, %rax
    dec     %rdx
    jnz     pp_peak_read_\W\()_loop
2:  \FINISH
    ret
    .size   pp_peak_read_\W, .-pp_peak_read_\W

    .globl  pp_peak_write_\W
    .type   pp_peak_write_\W, @function
    .p2align 6
pp_peak_write_\W:
    test    %rdx, %rdx
    jz      2f
    .ifc \W, sse2
    pxor    %xmm0, %xmm0
    .endif
    .ifc \W, avx2
    vpxor   %ymm0, %ymm0, %ymm0     /* VEX: no AVX-512 needed */
    .endif
    .ifc \W, avx512
    vpxord  %zmm0, %zmm0, %zmm0
    .endif
    mov     %rdi, %rax
    lea     (%rdi,%rsi), %rcx
    .p2align 6
    .globl  pp_peak_write_\W\()_loop
pp_peak_write_\W\()_loop:
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .if \i * \VB < PP_PEAK_STEP
    \MOV    %\R\()0, \i*\VB(%rax)
    .set    .Lwrite_stores_\W, .Lwrite_stores_\W + 1
    .endif
    .endr
    add     $PP_PEAK_STEP, %rax
    cmp     %rcx, %rax
    jb      pp_peak_write_\W\()_loop
    mov     %rdi, %rax
    dec     %rdx
    jnz     pp_peak_write_\W\()_loop
2:  \FINISH
    ret
    .size   pp_peak_write_\W, .-pp_peak_write_\W

    .globl  pp_peak_copy_\W
    .type   pp_peak_copy_\W, @function
    .p2align 6
pp_peak_copy_\W:
    test    %rcx, %rcx
    jz      2f
    mov     %rsi, %r8
    mov     %rdi, %r9
    lea     (%rsi,%rdx), %r10
    .p2align 6
    .globl  pp_peak_copy_\W\()_loop
pp_peak_copy_\W\()_loop:
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    .if \i < \CN
    \MOV    \i*\VB(%r8), %\R\()\i
    \MOV    %\R\()\i, \i*\VB(%r9)
    .set    .Lcopy_moves_\W, .Lcopy_moves_\W + 1
    .endif
    .endr
    add     $\CN*\VB, %r8
    add     $\CN*\VB, %r9
    cmp     %r10, %r8
    jb      pp_peak_copy_\W\()_loop
    mov     %rsi, %r8
    mov     %rdi, %r9
    dec     %rcx
    jnz     pp_peak_copy_\W\()_loop
2:  \FINISH
    ret
    .size   pp_peak_copy_\W, .-pp_peak_copy_\W

    .if (.Lread_loads_\W * \VB != PP_PEAK_STEP) || (.Lwrite_stores_\W * \VB != PP_PEAK_STEP)
    .error  "pp_peak_read_\W or pp_peak_write_\W: an iteration does not move PP_PEAK_STEP bytes"
    .endif
/* What the loops above are, for the counted events' known answer (kernels/bw_claim.c;
 * docs/events.md, "What each kernel checks"): per kernel (read, write, copy) a struct
 * peak_shape (timed_loops.h): 0 and 0 (the instructions an iteration and a pass retire: not
 * derivable from addresses where an instruction has no one length, and not claimed), the
 * load and the store instructions of an inner iteration as emitted, the bytes of each buffer
 * it advances, then 0 and 0 (no vector-length step, no rest loop).
 * tests/probe/test_peak_shape.py sets each row against objdump's count. */
    .section .rodata
    .p2align 2
    .globl  pp_peak_\W\()_shape
    .type   pp_peak_\W\()_shape, @object
pp_peak_\W\()_shape:
    .long   0, 0, .Lread_loads_\W, 0, PP_PEAK_STEP, 0, 0
    .long   0, 0, 0, .Lwrite_stores_\W, PP_PEAK_STEP, 0, 0
    .long   0, 0, .Lcopy_moves_\W, .Lcopy_moves_\W, \CN * \VB, 0, 0
    .size   pp_peak_\W\()_shape, .-pp_peak_\W\()_shape
.endm

peak_kernels avx512, vmovdqa64, zmm, 64, 8, vzeroupper
peak_kernels avx2, vmovdqa, ymm, 32, 16, vzeroupper
peak_kernels sse2, movdqa, xmm, 16, 16, nop

    .section .note.GNU-stack,"",@progbits
