/* lat_proc procedure (os-proc op=proccall): uint64_t pp_proccall(uint64_t n, int arg) makes n
 * calls of pp_proccall_use_int(arg), one real call and return per iteration, and returns the
 * variable the callee adds to. The callee is LMBench's use_int() (lib_timing.c,
 * `use_result_dummy += result` on a volatile 64-bit variable) as gcc -O compiles it: load,
 * sign-extend, add, store, ret; the loop is do_procedure()'s (the argument moved to %edi, the
 * call, a counter). In C a call to a function the compiler can see is a call only if the
 * compiler chooses: inlined or folded, the "call" costs less than a cycle. */
    .text
    .globl  pp_proccall
    .type   pp_proccall, @function
    .p2align 6
pp_proccall:
    mov     %rdi, %rcx              /* the callee touches %rax and %rdi only */
    test    %rcx, %rcx
    jz      2f
    .p2align 6
    .globl  pp_proccall_loop
pp_proccall_loop:
    mov     %esi, %edi
    call    pp_proccall_use_int
    sub     $1, %rcx
    jne     pp_proccall_loop
2:  mov     pp_proccall_sink(%rip), %rax
    ret
    .size   pp_proccall, .-pp_proccall

    .globl  pp_proccall_use_int
    .type   pp_proccall_use_int, @function
    .p2align 4
pp_proccall_use_int:
    mov     pp_proccall_sink(%rip), %rax
    movslq  %edi, %rdi
    add     %rax, %rdi
    mov     %rdi, pp_proccall_sink(%rip)
    ret
    .size   pp_proccall_use_int, .-pp_proccall_use_int

    .data
    .p2align 6
    .globl  pp_proccall_sink
pp_proccall_sink:
    .quad   0
    .section .note.GNU-stack,"",@progbits
