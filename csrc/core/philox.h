/* csrc/core/philox.h — the Philox4x32-10 block function of Salmon et al.,
 * "Parallel Random Numbers: As Easy as 1, 2, 3" (SC11), and the bit-to-
 * number conversions every random kernel shares.  Pure functions of their
 * arguments, static inline, no state: C/C++-neutral so that CUDA code can
 * include it (no _Atomic, restrict or _Static_assert here).
 *
 * Note [Philox counter layout]
 * The generator's key is its 64-bit seed (k0 = low word, k1 = high word).
 * The 128-bit counter is (block low, block high, sub low, sub high): an op
 * reserves `nblocks` blocks from the generator's 64-bit offset, and
 * - fixed-width ops (uniform, normal, randint, ...) read the words of
 *   blocks offset, offset + 1, ... in order (word w is word w % 4 of block
 *   offset + w / 4) with sub = 0, element i taking words i*k .. i*k+k-1;
 * - ops that need an unbounded number of draws per element (rejection
 *   samplers: poisson, bounded randint, multinomial) give element i the
 *   block offset + i and draw from sub = 0, 1, 2, ...
 * So every number depends only on (seed, the op's offset, element index),
 * never on threads, tiles or the output's layout. */
#ifndef TENSORLIB_CSRC_CORE_PHILOX_H
#define TENSORLIB_CSRC_CORE_PHILOX_H

#include <stdint.h>

#if defined(__CUDACC__)
#define TL_PHILOX_FN static __host__ __device__ __forceinline__
#else
#define TL_PHILOX_FN static inline
#endif

#define TL_PHILOX_M0 0xD2511F53u /* multiplier of words 0 and 1 */
#define TL_PHILOX_M1 0xCD9E8D57u /* multiplier of words 2 and 3 */
#define TL_PHILOX_W0 0x9E3779B9u /* key bump (golden ratio) */
#define TL_PHILOX_W1 0xBB67AE85u /* key bump (sqrt(3) - 1) */
#define TL_PHILOX_ROUNDS 10

/* One round on c (in place) with key (k0, k1). */
TL_PHILOX_FN void tl_philox_round(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)TL_PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)TL_PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k0;
    uint32_t n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

/* Philox4x32-10: the 4 output words for counter c, key (k0, k1), written
 * over c. */
TL_PHILOX_FN void tl_philox10(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < TL_PHILOX_ROUNDS; r++) {
        tl_philox_round(c, k0, k1);
        k0 += TL_PHILOX_W0;
        k1 += TL_PHILOX_W1;
    }
}

/* The words of block `block`, draw `sub` for seed (Note [Philox counter
 * layout]) into out[4]. */
TL_PHILOX_FN void tl_philox_block(uint64_t seed, uint64_t block, uint64_t sub,
                                  uint32_t out[4])
{
    out[0] = (uint32_t)block;
    out[1] = (uint32_t)(block >> 32);
    out[2] = (uint32_t)sub;
    out[3] = (uint32_t)(sub >> 32);
    tl_philox10(out, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* ---- bits to numbers ----------------------------------------------------
 * Uniforms on [0, 1) take the top bits of a word: 24 for float32, 53 (two
 * words) for float64, and the significand width of the storage dtype for
 * float16 (11) and bfloat16 (8), so that every value is exact in the dtype
 * and 1 - 2^-p is the largest. */

/* [0, 1) with 24 bits: k * 2^-24. */
TL_PHILOX_FN float tl_u32_to_unit_f(uint32_t x)
{
    return (float)(x >> 8) * 5.9604644775390625e-08f;
}

/* [0, 1) with `bits` (<= 24) bits. */
TL_PHILOX_FN float tl_u32_to_unit_bits(uint32_t x, int bits)
{
    return (float)(x >> (32 - bits)) * (1.0f / (float)(1u << bits));
}

/* [0, 1) with 53 bits from two words. */
TL_PHILOX_FN double tl_u64_to_unit_d(uint32_t lo, uint32_t hi)
{
    uint64_t x = ((uint64_t)hi << 32) | lo;
    return (double)(x >> 11) * 1.1102230246251565e-16;
}

/* (0, 1] with 53 bits: never 0, so its log is finite. */
TL_PHILOX_FN double tl_u64_to_open_unit_d(uint32_t lo, uint32_t hi)
{
    uint64_t x = ((uint64_t)hi << 32) | lo;
    return ((double)(x >> 11) + 1.0) * 1.1102230246251565e-16;
}

#endif /* TENSORLIB_CSRC_CORE_PHILOX_H */
