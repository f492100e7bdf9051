/* LMBench bw_mem's access patterns: 4-byte ints, 512-byte chunks (128 ints) per inner
 * iteration; rd/wr/rdwr/cp touch every 4th int (one per 16 bytes), frd/fwr/fcp every int.
 * Generated-looking on purpose: the unrolled bodies are the benchmark's definition.
 * Built with -fno-tree-vectorize -fno-store-merging (CMakeLists.txt) so the compiler
 * keeps 4-byte accesses. PASS_BARRIER stops it from merging or dropping repeated passes. */
#include "bw_loops.h"

#include <string.h>

#define PASS_BARRIER() __asm__ volatile("" : : : "memory")

unsigned lmb_rd(const int *buf, size_t bytes, uint64_t passes)
{
    const int *last = buf + bytes / sizeof(int) - 128;
    unsigned sum = 0;
    while (passes-- > 0) {
        for (const int *p = buf; p <= last; p += 128)
            sum += p[0] + p[4] + p[8] + p[12] + p[16] + p[20] + p[24] + p[28] + p[32] + p[36] +
                p[40] + p[44] + p[48] + p[52] + p[56] + p[60] + p[64] + p[68] + p[72] + p[76] +
                p[80] + p[84] + p[88] + p[92] + p[96] + p[100] + p[104] + p[108] + p[112] +
                p[116] + p[120] + p[124];
        PASS_BARRIER();
    }
    return sum;
}

void lmb_wr(int *buf, size_t bytes, uint64_t passes)
{
    int *last = buf + bytes / sizeof(int) - 128;
    while (passes-- > 0) {
        for (int *p = buf; p <= last; p += 128) {
            p[0] = 1; p[4] = 1; p[8] = 1; p[12] = 1; p[16] = 1; p[20] = 1; p[24] = 1; p[28] = 1;
                p[32] = 1; p[36] = 1; p[40] = 1; p[44] = 1; p[48] = 1; p[52] = 1; p[56] = 1;
                p[60] = 1; p[64] = 1; p[68] = 1; p[72] = 1; p[76] = 1; p[80] = 1; p[84] = 1;
                p[88] = 1; p[92] = 1; p[96] = 1; p[100] = 1; p[104] = 1; p[108] = 1; p[112] = 1;
                p[116] = 1; p[120] = 1; p[124] = 1;
        }
        PASS_BARRIER();
    }
}

unsigned lmb_rdwr(int *buf, size_t bytes, uint64_t passes)
{
    int *last = buf + bytes / sizeof(int) - 128;
    unsigned sum = 0;
    while (passes-- > 0) {
        for (int *p = buf; p <= last; p += 128) {
            sum += p[0]; p[0] = 1; sum += p[4]; p[4] = 1; sum += p[8]; p[8] = 1; sum += p[12];
                p[12] = 1; sum += p[16]; p[16] = 1; sum += p[20]; p[20] = 1; sum += p[24]; p[24]
                = 1; sum += p[28]; p[28] = 1; sum += p[32]; p[32] = 1; sum += p[36]; p[36] = 1;
                sum += p[40]; p[40] = 1; sum += p[44]; p[44] = 1; sum += p[48]; p[48] = 1; sum
                += p[52]; p[52] = 1; sum += p[56]; p[56] = 1; sum += p[60]; p[60] = 1; sum +=
                p[64]; p[64] = 1; sum += p[68]; p[68] = 1; sum += p[72]; p[72] = 1; sum +=
                p[76]; p[76] = 1; sum += p[80]; p[80] = 1; sum += p[84]; p[84] = 1; sum +=
                p[88]; p[88] = 1; sum += p[92]; p[92] = 1; sum += p[96]; p[96] = 1; sum +=
                p[100]; p[100] = 1; sum += p[104]; p[104] = 1; sum += p[108]; p[108] = 1; sum +=
                p[112]; p[112] = 1; sum += p[116]; p[116] = 1; sum += p[120]; p[120] = 1; sum +=
                p[124]; p[124] = 1;
        }
        PASS_BARRIER();
    }
    return sum;
}

void lmb_cp(int *dst, const int *src, size_t bytes, uint64_t passes)
{
    const int *last = src + bytes / sizeof(int) - 128;
    while (passes-- > 0) {
        int *d = dst;
        for (const int *p = src; p <= last; p += 128, d += 128) {
            d[0] = p[0]; d[4] = p[4]; d[8] = p[8]; d[12] = p[12]; d[16] = p[16]; d[20] = p[20];
                d[24] = p[24]; d[28] = p[28]; d[32] = p[32]; d[36] = p[36]; d[40] = p[40]; d[44]
                = p[44]; d[48] = p[48]; d[52] = p[52]; d[56] = p[56]; d[60] = p[60]; d[64] =
                p[64]; d[68] = p[68]; d[72] = p[72]; d[76] = p[76]; d[80] = p[80]; d[84] =
                p[84]; d[88] = p[88]; d[92] = p[92]; d[96] = p[96]; d[100] = p[100]; d[104] =
                p[104]; d[108] = p[108]; d[112] = p[112]; d[116] = p[116]; d[120] = p[120];
                d[124] = p[124];
        }
        PASS_BARRIER();
    }
}

unsigned lmb_frd(const int *buf, size_t bytes, uint64_t passes)
{
    const int *last = buf + bytes / sizeof(int) - 128;
    unsigned sum = 0;
    while (passes-- > 0) {
        for (const int *p = buf; p <= last; p += 128)
            sum += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7] + p[8] + p[9] + p[10] +
                p[11] + p[12] + p[13] + p[14] + p[15] + p[16] + p[17] + p[18] + p[19] + p[20] +
                p[21] + p[22] + p[23] + p[24] + p[25] + p[26] + p[27] + p[28] + p[29] + p[30] +
                p[31] + p[32] + p[33] + p[34] + p[35] + p[36] + p[37] + p[38] + p[39] + p[40] +
                p[41] + p[42] + p[43] + p[44] + p[45] + p[46] + p[47] + p[48] + p[49] + p[50] +
                p[51] + p[52] + p[53] + p[54] + p[55] + p[56] + p[57] + p[58] + p[59] + p[60] +
                p[61] + p[62] + p[63] + p[64] + p[65] + p[66] + p[67] + p[68] + p[69] + p[70] +
                p[71] + p[72] + p[73] + p[74] + p[75] + p[76] + p[77] + p[78] + p[79] + p[80] +
                p[81] + p[82] + p[83] + p[84] + p[85] + p[86] + p[87] + p[88] + p[89] + p[90] +
                p[91] + p[92] + p[93] + p[94] + p[95] + p[96] + p[97] + p[98] + p[99] + p[100] +
                p[101] + p[102] + p[103] + p[104] + p[105] + p[106] + p[107] + p[108] + p[109] +
                p[110] + p[111] + p[112] + p[113] + p[114] + p[115] + p[116] + p[117] + p[118] +
                p[119] + p[120] + p[121] + p[122] + p[123] + p[124] + p[125] + p[126] + p[127];
        PASS_BARRIER();
    }
    return sum;
}

void lmb_fwr(int *buf, size_t bytes, uint64_t passes)
{
    int *last = buf + bytes / sizeof(int) - 128;
    while (passes-- > 0) {
        for (int *p = buf; p <= last; p += 128) {
            p[0] = 1; p[1] = 1; p[2] = 1; p[3] = 1; p[4] = 1; p[5] = 1; p[6] = 1; p[7] = 1; p[8]
                = 1; p[9] = 1; p[10] = 1; p[11] = 1; p[12] = 1; p[13] = 1; p[14] = 1; p[15] = 1;
                p[16] = 1; p[17] = 1; p[18] = 1; p[19] = 1; p[20] = 1; p[21] = 1; p[22] = 1;
                p[23] = 1; p[24] = 1; p[25] = 1; p[26] = 1; p[27] = 1; p[28] = 1; p[29] = 1;
                p[30] = 1; p[31] = 1; p[32] = 1; p[33] = 1; p[34] = 1; p[35] = 1; p[36] = 1;
                p[37] = 1; p[38] = 1; p[39] = 1; p[40] = 1; p[41] = 1; p[42] = 1; p[43] = 1;
                p[44] = 1; p[45] = 1; p[46] = 1; p[47] = 1; p[48] = 1; p[49] = 1; p[50] = 1;
                p[51] = 1; p[52] = 1; p[53] = 1; p[54] = 1; p[55] = 1; p[56] = 1; p[57] = 1;
                p[58] = 1; p[59] = 1; p[60] = 1; p[61] = 1; p[62] = 1; p[63] = 1; p[64] = 1;
                p[65] = 1; p[66] = 1; p[67] = 1; p[68] = 1; p[69] = 1; p[70] = 1; p[71] = 1;
                p[72] = 1; p[73] = 1; p[74] = 1; p[75] = 1; p[76] = 1; p[77] = 1; p[78] = 1;
                p[79] = 1; p[80] = 1; p[81] = 1; p[82] = 1; p[83] = 1; p[84] = 1; p[85] = 1;
                p[86] = 1; p[87] = 1; p[88] = 1; p[89] = 1; p[90] = 1; p[91] = 1; p[92] = 1;
                p[93] = 1; p[94] = 1; p[95] = 1; p[96] = 1; p[97] = 1; p[98] = 1; p[99] = 1;
                p[100] = 1; p[101] = 1; p[102] = 1; p[103] = 1; p[104] = 1; p[105] = 1; p[106] =
                1; p[107] = 1; p[108] = 1; p[109] = 1; p[110] = 1; p[111] = 1; p[112] = 1;
                p[113] = 1; p[114] = 1; p[115] = 1; p[116] = 1; p[117] = 1; p[118] = 1; p[119] =
                1; p[120] = 1; p[121] = 1; p[122] = 1; p[123] = 1; p[124] = 1; p[125] = 1;
                p[126] = 1; p[127] = 1;
        }
        PASS_BARRIER();
    }
}

void lmb_fcp(int *dst, const int *src, size_t bytes, uint64_t passes)
{
    const int *last = src + bytes / sizeof(int) - 128;
    while (passes-- > 0) {
        int *d = dst;
        for (const int *p = src; p <= last; p += 128, d += 128) {
            d[0] = p[0]; d[1] = p[1]; d[2] = p[2]; d[3] = p[3]; d[4] = p[4]; d[5] = p[5]; d[6] =
                p[6]; d[7] = p[7]; d[8] = p[8]; d[9] = p[9]; d[10] = p[10]; d[11] = p[11]; d[12]
                = p[12]; d[13] = p[13]; d[14] = p[14]; d[15] = p[15]; d[16] = p[16]; d[17] =
                p[17]; d[18] = p[18]; d[19] = p[19]; d[20] = p[20]; d[21] = p[21]; d[22] =
                p[22]; d[23] = p[23]; d[24] = p[24]; d[25] = p[25]; d[26] = p[26]; d[27] =
                p[27]; d[28] = p[28]; d[29] = p[29]; d[30] = p[30]; d[31] = p[31]; d[32] =
                p[32]; d[33] = p[33]; d[34] = p[34]; d[35] = p[35]; d[36] = p[36]; d[37] =
                p[37]; d[38] = p[38]; d[39] = p[39]; d[40] = p[40]; d[41] = p[41]; d[42] =
                p[42]; d[43] = p[43]; d[44] = p[44]; d[45] = p[45]; d[46] = p[46]; d[47] =
                p[47]; d[48] = p[48]; d[49] = p[49]; d[50] = p[50]; d[51] = p[51]; d[52] =
                p[52]; d[53] = p[53]; d[54] = p[54]; d[55] = p[55]; d[56] = p[56]; d[57] =
                p[57]; d[58] = p[58]; d[59] = p[59]; d[60] = p[60]; d[61] = p[61]; d[62] =
                p[62]; d[63] = p[63]; d[64] = p[64]; d[65] = p[65]; d[66] = p[66]; d[67] =
                p[67]; d[68] = p[68]; d[69] = p[69]; d[70] = p[70]; d[71] = p[71]; d[72] =
                p[72]; d[73] = p[73]; d[74] = p[74]; d[75] = p[75]; d[76] = p[76]; d[77] =
                p[77]; d[78] = p[78]; d[79] = p[79]; d[80] = p[80]; d[81] = p[81]; d[82] =
                p[82]; d[83] = p[83]; d[84] = p[84]; d[85] = p[85]; d[86] = p[86]; d[87] =
                p[87]; d[88] = p[88]; d[89] = p[89]; d[90] = p[90]; d[91] = p[91]; d[92] =
                p[92]; d[93] = p[93]; d[94] = p[94]; d[95] = p[95]; d[96] = p[96]; d[97] =
                p[97]; d[98] = p[98]; d[99] = p[99]; d[100] = p[100]; d[101] = p[101]; d[102] =
                p[102]; d[103] = p[103]; d[104] = p[104]; d[105] = p[105]; d[106] = p[106];
                d[107] = p[107]; d[108] = p[108]; d[109] = p[109]; d[110] = p[110]; d[111] =
                p[111]; d[112] = p[112]; d[113] = p[113]; d[114] = p[114]; d[115] = p[115];
                d[116] = p[116]; d[117] = p[117]; d[118] = p[118]; d[119] = p[119]; d[120] =
                p[120]; d[121] = p[121]; d[122] = p[122]; d[123] = p[123]; d[124] = p[124];
                d[125] = p[125]; d[126] = p[126]; d[127] = p[127];
        }
        PASS_BARRIER();
    }
}

void lmb_bzero(void *buf, size_t bytes, uint64_t passes)
{
    while (passes-- > 0) {
        memset(buf, 0, bytes);
        PASS_BARRIER();
    }
}

void lmb_bcopy(void *dst, const void *src, size_t bytes, uint64_t passes)
{
    while (passes-- > 0) {
        memmove(dst, src, bytes);
        PASS_BARRIER();
    }
}
