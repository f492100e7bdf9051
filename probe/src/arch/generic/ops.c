/* The portable C chains of cpu-ops (timed_loops.h), for builds without assembly. Results
 * are labelled "fallback": the compiler picks the instructions (a 32-bit target may call a
 * library routine for int64 division), so they are not checked by disassembly. The empty
 * asm statements keep each value in a register and the chain unfolded. */
#include <stdint.h>
#include <string.h>

#include "timed_loops.h"

/* probe-selfcheck includes this file with OPS_NAME renamed, as the model of the chains. */
#ifndef OPS_NAME
#define OPS_NAME(name) pp_ops_##name
#endif

#define KEEP(x) __asm__ volatile("" : "+r"(x))
#define KEEP_FP(x) __asm__ volatile("" : "+g"(x))

#define ADD(T, name)                                                  \
    uint64_t OPS_NAME(name##_add)(uint64_t n)                          \
    {                                                                 \
        T a = 1, b = 1;                                               \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_ADD_UNROLL / 2; i++) {            \
                a += b; KEEP(a);                                      \
                b -= a; KEEP(b);                                      \
            }                                                         \
        return (uint64_t)a;                                           \
    }
#define BIT(T, name)                                                  \
    uint64_t OPS_NAME(name##_bit)(uint64_t n)                          \
    {                                                                 \
        T r = 1, s = (T)n;                                            \
        for (; n > 0; n--)                                            \
            for (int i = 0; i < OPS_BIT_UNROLL / 3; i++) {            \
                r ^= (T)n; KEEP(r);                                   \
                s ^= r; KEEP(s);                                      \
                r |= s; KEEP(r);                                      \
            }                                                         \
        return (uint64_t)r;                                           \
    }
#define MUL(T, name, r0, t0)                                          \
    uint64_t OPS_NAME(name##_mul)(uint64_t n)                         \
    {                                                                 \
        T r = r0, s = OPS_MUL_S, t = t0;                              \
        KEEP(s);                                                      \
        KEEP(t);                                                      \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_MUL_UNROLL / 10; i++) {           \
                for (int j = 0; j < 10; j++) {                        \
                    r *= s; KEEP(r);                                  \
                }                                                     \
                r -= t; KEEP(r);                                      \
            }                                                         \
        return (uint64_t)r;                                           \
    }
#define DIV(T, name, r0, s0)                                          \
    uint64_t OPS_NAME(name##_div)(uint64_t n)                         \
    {                                                                 \
        T r = r0, s = s0;                                             \
        KEEP(s);                                                      \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_DIV_UNROLL; i++) {                \
                r = s / r; KEEP(r);                                   \
            }                                                         \
        return (uint64_t)r;                                           \
    }
#define MOD(T, U, name, r0, s0)                                       \
    uint64_t OPS_NAME(name##_mod)(uint64_t n)                         \
    {                                                                 \
        T r = (T)(U)(r0), s = s0;                                     \
        KEEP(s);                                                      \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_MOD_UNROLL; i++) {                \
                r %= s; r |= s; KEEP(r);                              \
            }                                                         \
        return (uint64_t)(U)r;                                        \
    }

/* int arithmetic wraps in the assembly; unsigned C types give the same bits without
 * undefined behaviour (add, bit, mul). div and mod stay signed and never overflow here. */
ADD(uint32_t, int)
ADD(uint64_t, int64)
BIT(uint32_t, int)
BIT(uint64_t, int64)
MUL(uint32_t, int, OPS_INT_MUL_R, OPS_INT_MUL_T)
MUL(uint64_t, int64, OPS_INT64_MUL_R, OPS_INT64_MUL_T)
DIV(int32_t, int, OPS_INT_DIV_R, OPS_INT_DIV_S)
DIV(int64_t, int64, OPS_INT64_DIV_R, OPS_INT64_DIV_S)
MOD(int32_t, uint32_t, int, n + 1, OPS_INT_MOD_S)
MOD(int64_t, uint64_t, int64, (2 * n) << 32, OPS_INT64_MOD_S)

#define FP(T, name, BITS)                                             \
    static uint64_t name##_bits(T f)                                  \
    {                                                                 \
        BITS b;                                                       \
        memcpy(&b, &f, sizeof b);                                     \
        return b;                                                     \
    }                                                                 \
    uint64_t OPS_NAME(name##_add)(uint64_t n)                          \
    {                                                                 \
        T f = 1, g = -1023;                                           \
        KEEP_FP(g);                                                   \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_FADD_UNROLL / 11; i++) {          \
                for (int j = 0; j < 10; j++) {                        \
                    f += f; KEEP_FP(f);                               \
                }                                                     \
                f += g; KEEP_FP(f);                                   \
            }                                                         \
        return name##_bits(f);                                        \
    }                                                                 \
    uint64_t OPS_NAME(name##_mul)(uint64_t n)                         \
    {                                                                 \
        T f = 8, g = 0.125;                                           \
        KEEP_FP(g);                                                   \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_FMUL_UNROLL / 2; i++) {           \
                f *= f; KEEP_FP(f);                                   \
                f *= g; KEEP_FP(f);                                   \
            }                                                         \
        return name##_bits(f);                                        \
    }                                                                 \
    uint64_t OPS_NAME(name##_div)(uint64_t n)                         \
    {                                                                 \
        T f = (T)1.41421356, g = (T)3.14159265;                       \
        while (n-- > 0)                                               \
            for (int i = 0; i < OPS_FDIV_UNROLL / 20; i++) {          \
                for (int j = 0; j < 10; j++) {                        \
                    f = g / f; KEEP_FP(f);                            \
                }                                                     \
                for (int j = 0; j < 10; j++) {                        \
                    g = f / g; KEEP_FP(g);                            \
                }                                                     \
            }                                                         \
        return name##_bits(f);                                        \
    }

FP(float, float, uint32_t)
FP(double, double, uint64_t)

#ifndef OPS_MODEL
int ops_int_div_available(void) { return 1; }
#endif
