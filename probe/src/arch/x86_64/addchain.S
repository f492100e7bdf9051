/* Core clock: uint64_t pp_addchain(uint64_t n) runs n * 64 adds, each depending on the
 * previous one, so one add retires per core cycle. Register-register adds: some cores
 * fold add-immediate chains at rename, which would make the chain look faster than 1/cycle. */
    .text
    .globl  pp_addchain
    .type   pp_addchain, @function
    .p2align 6
pp_addchain:
    xor     %eax, %eax
    mov     $1, %ecx
    test    %rdi, %rdi
    jz      2f
    .p2align 6
    .globl  pp_addchain_loop
pp_addchain_loop:
    .rept 64
    add     %rcx, %rax
    .endr
    dec     %rdi
    jnz     pp_addchain_loop
2:  ret
    .globl  pp_addchain_end
pp_addchain_end:
    .size   pp_addchain, .-pp_addchain
    .section .note.GNU-stack,"",@progbits
