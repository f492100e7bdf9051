/* The peak kernels' claim: a loop's shape (timed_loops.h struct peak_shape, built from its
 * .S file's own labels and definitions) as counts per counted byte of a pass over its buffers.
 *
 * A pass of a fixed step runs ceil(size / step) inner iterations (each loop tests its pointer
 * against the end after moving it) and its pass end once. An SVE pass runs size / (vectors x VL)
 * whole iterations, then the rest one predicated vector at a time, and its head, rest test and
 * end once. The call's entry and exit (and armv7's last-pass high-word test) are once a call,
 * not a pass: what the counting around a sample adds besides the loop, as the read() calls are.
 * The figures' bytes are counted per pass: size x counted (copies count read and written). */
#include "bw_claim.h"

#include <stddef.h>

#include "timed_loops.h"

struct events_expected peak_expected(int kernel, uint64_t size, unsigned counted)
{
    struct events_expected e = {0, 0, 0};
    unsigned vector_bytes = 0;
    const struct peak_shape *s = peak_shape(kernel, &vector_bytes);
    if (!s || !size || !counted)
        return e;
    uint64_t step = s->step ? s->step : (uint64_t)s->vectors * vector_bytes;
    if (!step)
        return e;
    uint64_t iterations, rest = 0;
    if (s->step) {
        iterations = (size + step - 1) / step;
    } else {
        iterations = size / step;
        rest = (size - iterations * step + vector_bytes - 1) / vector_bytes;
    }
    double bytes = (double)size * counted;
    /* less than one SVE iteration branches past the loop and the padding before it */
    if (s->inner && iterations > 0)
        e.instructions = ((double)iterations * s->inner + s->pass + (double)rest * s->rest) / bytes;
    /* the rest loop moves one vector of each buffer a step: a load where the loop loads, a
     * store where it stores */
    e.loads = ((double)iterations * s->loads + (double)rest * (s->loads > 0)) / bytes;
    e.stores = ((double)iterations * s->stores + (double)rest * (s->stores > 0)) / bytes;
    return e;
}
