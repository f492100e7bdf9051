/* Pointer chase: void **pp_chase(void **p, uint64_t n) does n * 16 dependent loads
 * p = *p and returns p. The plain `mov (%rax),%rax` form: base-only addressing has the
 * architectural 4-cycle (recent Intel/AMD) load-to-use latency; index or displacement
 * forms cost 5. The loop counter runs on its own dependency chain beside the loads. */
    .text
    .globl  pp_chase
    .type   pp_chase, @function
    .p2align 6
pp_chase:
    mov     %rdi, %rax
    test    %rsi, %rsi
    jz      2f
    .p2align 6
    .globl  pp_chase_loop
pp_chase_loop:
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    mov     (%rax), %rax
    dec     %rsi
    jnz     pp_chase_loop
2:  ret
    .globl  pp_chase_end
pp_chase_end:
    .size   pp_chase, .-pp_chase
    .section .note.GNU-stack,"",@progbits
