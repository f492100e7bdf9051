/* probe-selfcheck: functional checks of the timed loops, run natively and under qemu-user
 * by tests/probe (never timing). Prints one line per failure, exits 1 if any.
 *   - the chase ring visits every element exactly once per cycle (seq and random), and
 *     the assembly pp_chase ends where a C walk of the same ring ends;
 *   - the bw_mem kernels touch exactly the words their pattern names;
 *   - STREAM kernels give STREAM's expected values; peak copy/write give the right data;
 *   - every cpu-ops chain ends on the value the C model of the same chain
 *     (arch/generic/ops.c, included below under other names) ends on;
 *   - pp_proccall calls use_int once per iteration;
 *   - the counter's step over fake counters (counter_fakes.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "bw_loops.h"
#include "chase.h"
#include "counter.h"
#include "counter_fakes.h"
#include "timed_loops.h"

/* The C chains as the model of the assembly ones: model_ops_<type>_<op>(n). */
#define OPS_NAME(name) model_ops_##name
#define OPS_MODEL 1
#include "generic/ops.c"

static int checks, failures;

static void check(int ok, const char *what, unsigned long long a, unsigned long long b)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL %s (%llu, %llu)\n", what, a, b);
    }
}

static void check_ring(size_t bytes, size_t stride, enum chase_pattern pattern)
{
    char what[128];
    snprintf(what, sizeof what, "chase %s size=%zu stride=%zu", pattern == CHASE_SEQ ? "seq" : "random",
             bytes, stride);
    void *buf;
    void *m = buffer_alloc(bytes, 1, &buf);
    size_t n = bytes / stride;
    void **first = chase_build(buf, bytes, stride, page_size(), pattern, 12345);
    unsigned char *seen = calloc(n, 1);
    void **p = first;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        size_t off = (size_t)((char *)p - (char *)buf);
        if (off % stride || off / stride >= n || seen[off / stride]) {
            ok = 0;
            break;
        }
        seen[off / stride] = 1;
        p = (void **)*p;
    }
    check(ok, what, n, 0);
    snprintf(what + strlen(what), sizeof what - strlen(what), ": cycle closes after %zu loads", n);
    check(p == first, what, (unsigned long long)(size_t)p, (unsigned long long)(size_t)first);
    /* the assembly chase: 16 * n loads go around the ring 16 times, back to the start */
    check(pp_chase(first, n) == first, "pp_chase returns to the start after 16 * n loads", n, 0);
    void **c = first;
    for (int i = 0; i < CHASE_UNROLL * 3; i++)
        c = (void **)*c;
    check(pp_chase(first, 3) == c, "pp_chase(p, 3) ends where 48 C loads end", 0, 0);
    free(seen);
    buffer_free(m, bytes, 1);
}

static void fill_ints(int *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (int)(i * 2654435761u);
}

static void check_lmbench(size_t bytes)
{
    size_t n = bytes / sizeof(int);
    void *b[2];
    void *m = buffer_alloc(bytes, 2, b);
    int *src = b[0], *dst = b[1];
    unsigned want = 0, want_full = 0;

    fill_ints(src, n);
    for (size_t i = 0; i < n; i++) {
        want_full += (unsigned)src[i];
        if (i % 4 == 0)
            want += (unsigned)src[i];
    }
    check(lmb_rd(src, bytes, 2) == 2 * want, "lmb_rd sums every 4th int", lmb_rd(src, bytes, 1), want);
    check(lmb_frd(src, bytes, 1) == want_full, "lmb_frd sums every int", lmb_frd(src, bytes, 1), want_full);

    memset(dst, 0, bytes);
    lmb_cp(dst, src, bytes, 1);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= dst[i] == (i % 4 == 0 ? src[i] : 0);
    check(ok, "lmb_cp copies every 4th int and no other", 0, 0);
    lmb_fcp(dst, src, bytes, 1);
    check(memcmp(dst, src, bytes) == 0, "lmb_fcp copies every int", 0, 0);
    memset(dst, 0, bytes);
    lmb_bcopy(dst, src, bytes, 1);
    check(memcmp(dst, src, bytes) == 0, "lmb_bcopy copies the buffer", 0, 0);

    memset(dst, 0, bytes);
    lmb_wr(dst, bytes, 1);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= dst[i] == (i % 4 == 0);
    check(ok, "lmb_wr writes every 4th int and no other", 0, 0);
    lmb_fwr(dst, bytes, 1);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= dst[i] == 1;
    check(ok, "lmb_fwr writes every int", 0, 0);

    fill_ints(dst, n);
    unsigned rdwr = lmb_rdwr(dst, bytes, 1);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= i % 4 == 0 ? dst[i] == 1 : dst[i] == (int)(i * 2654435761u);
    check(ok && rdwr == want, "lmb_rdwr reads then writes every 4th int", rdwr, want);
    lmb_bzero(dst, bytes, 1);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= dst[i] == 0;
    check(ok, "lmb_bzero clears the buffer", 0, 0);
    buffer_free(m, bytes, 2);
}

/* STREAM's own validation idea: run the kernels from known starting values and compare
 * every element with the value the sequence must give. */
static void check_stream(size_t bytes)
{
    size_t n = bytes / sizeof(double);
    void *b[3];
    void *m = buffer_alloc(bytes, 3, b);
    double *a = b[0], *bb = b[1], *c = b[2];
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        bb[j] = 2.0;
        c[j] = 0.0;
    }
    stream_copy(c, a, n, 2);      /* c = 1 */
    stream_scale(bb, c, n, 2);    /* b = 3 */
    stream_add(c, a, bb, n, 2);   /* c = 4 */
    stream_triad(a, bb, c, n, 2); /* a = 3 + 3 * 4 = 15 */
    int ok = 1;
    for (size_t j = 0; j < n; j++)
        ok &= a[j] == 15.0 && bb[j] == 3.0 && c[j] == 4.0;
    check(ok, "STREAM copy/scale/add/triad give a=15 b=3 c=4", (unsigned long long)a[0], (unsigned long long)c[0]);
    buffer_free(m, bytes, 3);
}

typedef void (*peak_copy_fn)(void *, const void *, size_t, uint64_t);
typedef void (*peak_write_fn)(void *, size_t, uint64_t);
typedef void (*peak_read_fn)(const void *, size_t, uint64_t);

static void check_peak(const char *isa, peak_read_fn rd, peak_write_fn wr, peak_copy_fn cp, size_t bytes)
{
    char what[96];
    void *b[2];
    void *m = buffer_alloc(bytes, 2, b);
    fill_ints(b[0], bytes / sizeof(int));
    memset(b[1], 0, bytes);
    cp(b[1], b[0], bytes, 3);
    snprintf(what, sizeof what, "peak-copy (%s) copies the buffer", isa);
    check(memcmp(b[0], b[1], bytes) == 0, what, bytes, 0);
    rd(b[1], bytes, 2);
    snprintf(what, sizeof what, "peak-read (%s) leaves the buffer as it was", isa);
    check(memcmp(b[0], b[1], bytes) == 0, what, bytes, 0);
    memset(b[1], 0xa5, bytes);
    wr(b[1], bytes, 2);
    int ok = 1;
    for (size_t i = 0; i < bytes; i++)
        ok &= ((unsigned char *)b[1])[i] == 0;
    snprintf(what, sizeof what, "peak-write (%s) writes every byte", isa);
    check(ok, what, bytes, 0);
    buffer_free(m, bytes, 2);
}

static void check_ops(void)
{
    static const struct {
        const char *name;
        uint64_t (*chain)(uint64_t), (*model)(uint64_t);
        int needs_int_div;
    } ops[] = {
#define OPS_ROW(name, div) {#name, pp_ops_##name, model_ops_##name, div}
        OPS_ROW(int_add, 0), OPS_ROW(int_mul, 0), OPS_ROW(int_div, 1), OPS_ROW(int_mod, 1),
        OPS_ROW(int_bit, 0), OPS_ROW(int64_add, 0), OPS_ROW(int64_mul, 0), OPS_ROW(int64_div, 0),
        OPS_ROW(int64_mod, 0), OPS_ROW(int64_bit, 0), OPS_ROW(float_add, 0), OPS_ROW(float_mul, 0),
        OPS_ROW(float_div, 0), OPS_ROW(double_add, 0), OPS_ROW(double_mul, 0), OPS_ROW(double_div, 0),
    };
    static const uint64_t counts[] = {0, 1, 2, 3, 7};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (ops[i].needs_int_div && !ops_int_div_available())
            continue;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            char what[96];
            snprintf(what, sizeof what, "pp_ops_%s(%llu) ends where the C chain ends", ops[i].name,
                     (unsigned long long)counts[c]);
            uint64_t got = ops[i].chain(counts[c]), want = ops[i].model(counts[c]);
            check(got == want, what, got, want);
        }
    }
}

int main(void)
{
    counter_init();
    static const size_t sizes[] = {128, 1024, 4096, 12288 + 192, 65536, 1 << 20};
    static const size_t strides[] = {sizeof(void *), 64, 128, 8192};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof strides / sizeof strides[0]; t++)
            if (sizes[s] >= 2 * strides[t]) {
                size_t bytes = sizes[s] / strides[t] * strides[t];
                check_ring(bytes, strides[t], CHASE_SEQ);
                check_ring(bytes, strides[t], CHASE_RANDOM);
            }
    check_lmbench(512);
    check_lmbench(64 * 1024 + 512);
    check_stream(512);
    check_stream(64 * 1024 + 512);
    check_stream(174592);   /* three buffers whose skews exceed the page rounding */
    check_ops();
    check_peak(peak_isa(), pp_peak_read, pp_peak_write, pp_peak_copy, 512);
    check_peak(peak_isa(), pp_peak_read, pp_peak_write, pp_peak_copy, 64 * 1024 + 512);
#if defined(__x86_64__) && !defined(PLATPERF_FALLBACK)
    __builtin_cpu_init();
    check_peak("sse2", pp_peak_read_sse2, pp_peak_write_sse2, pp_peak_copy_sse2, 8192 + 512);
    if (__builtin_cpu_supports("avx2"))
        check_peak("avx2", pp_peak_read_avx2, pp_peak_write_avx2, pp_peak_copy_avx2, 8192 + 512);
    if (__builtin_cpu_supports("avx512f"))
        check_peak("avx512", pp_peak_read_avx512, pp_peak_write_avx512, pp_peak_copy_avx512, 8192 + 512);
#endif
#if defined(__aarch64__) && !defined(PLATPERF_FALLBACK)
    check_peak("neon", pp_peak_read_neon, pp_peak_write_neon, pp_peak_copy_neon, 8192 + 512);
    if (sve_vector_bytes() > 0) {
        /* 512 B: fewer bytes than one iteration of 8 long vectors; 8192 + 512: whole
         * iterations and, with vectors of 1024 bits or more, the predicated rest */
        check_peak("sve", pp_peak_read_sve, pp_peak_write_sve, pp_peak_copy_sve, 512);
        check_peak("sve", pp_peak_read_sve, pp_peak_write_sve, pp_peak_copy_sve, 8192 + 512);
    }
#endif
    uint64_t prev = counter_read();
    int mono = 1;
    for (int i = 0; i < 10000; i++) {
        uint64_t now = counter_read();
        mono &= now >= prev;
        prev = now;
    }
    check(mono, "counter never goes backwards", 0, 0);
    int fakes_failed = counter_fake_checks();
    check(fakes_failed == 0, "the step over fake counters", (unsigned long long)fakes_failed, 0);
    check(pp_addchain(5) == 5 * ADDCHAIN_UNROLL, "pp_addchain(5) adds 5 * 64 ones", pp_addchain(5), 5 * ADDCHAIN_UNROLL);
    /* one use_int(arg) per call, the int sign-extended as LMBench's 64-bit variable takes it */
    uint64_t before = pp_proccall(0, 3), after = pp_proccall(5, 3);
    check(after - before == 15, "pp_proccall(5, 3) adds 3 five times", after - before, 15);
    check(pp_proccall(2, -4) - after == (uint64_t)-8, "pp_proccall(2, -4) adds -4 twice", pp_proccall(0, 0) - after,
          (uint64_t)-8);
    printf("selfcheck: %d checks, %d failed (%s, peak %s)\n", checks, failures, counter_info()->name, peak_isa());
    return failures ? 1 : 0;
}
