/* csrc/core/kernels_binary.c — the CPU loops of the binary ops, one per
 * (op, compute dtype), and the divisor/exponent scans.  Each loop is a
 * tl_iter_loop2d over (out, a, b) with fast paths for contiguous rows and
 * for a stride-0 (scalar) operand; the iterator guarantees aligned data in
 * the loop's dtypes and no partial overlap.  No allocation here. */
#include <stdint.h>

#include "kernels.h"

TL_KERNEL_OPTIMIZE

/* ---- the loop shape ------------------------------------------------------
 * BIN_LOOP(NAME, T, OT, SETUP, F): out[i] = F(a[i], b[i]) with a, b of type
 * T and out of type OT.  SETUP runs once (it may read the context `vctx`).
 * Rows whose three strides are the element sizes, or where a or b has
 * stride 0, take loops the compiler vectorises; the out pointer may equal
 * a's or b's exactly (in-place), which carries no loop dependence, hence
 * ivdep. */
#define BIN_LOOP(NAME, T, OT, SETUP, F)                                     \
    TL_MULTIVERSION                                                         \
    static void NAME(char **data, const int64_t *st, int64_t n0,            \
                     int64_t n1, void *vctx)                                \
    {                                                                       \
        (void)vctx;                                                         \
        SETUP                                                               \
        char *po = data[0], *pa = data[1], *pb = data[2];                   \
        const int64_t so = st[0], sa = st[1], sb = st[2];                   \
        const int64_t to = sizeof(OT), ti = sizeof(T);                      \
        for (int64_t j = 0; j < n1;                                         \
             j++, po += st[3], pa += st[4], pb += st[5]) {                  \
            if (so == to && sa == ti && sb == ti) {                         \
                OT *o = (OT *)po;                                           \
                const T *a = (const T *)pa, *b = (const T *)pb;             \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = F(a[i], b[i]);                                   \
                }                                                           \
            } else if (so == to && sa == ti && sb == 0) {                   \
                OT *o = (OT *)po;                                           \
                const T *a = (const T *)pa;                                 \
                const T bv = *(const T *)pb;                                \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = F(a[i], bv);                                     \
                }                                                           \
            } else if (so == to && sa == 0 && sb == ti) {                   \
                OT *o = (OT *)po;                                           \
                const T av = *(const T *)pa;                                \
                const T *b = (const T *)pb;                                 \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = F(av, b[i]);                                     \
                }                                                           \
            } else {                                                        \
                for (int64_t i = 0; i < n0; i++) {                          \
                    *(OT *)(po + i * so) = F(*(const T *)(pa + i * sa),     \
                                             *(const T *)(pb + i * sb));    \
                }                                                           \
            }                                                               \
        }                                                                   \
    }

#define NO_SETUP
#define ALPHA_SETUP(T)                                                      \
    T al;                                                                   \
    memcpy(&al, ((const tl_kernel_ctx *)vctx)->alpha, sizeof al);

/* ---- element functions ---------------------------------------------------
 * Integers compute in a wide unsigned type (WU) and convert back, so
 * overflow wraps without undefined behaviour (uint8_t/uint16_t would be
 * promoted to int, hence uint32_t for everything below 64 bits). */

#define DEF_INT_ANY(N, T, WU, BITS)                                         \
    static inline T add_##N(T a, T b) { return (T)((WU)a + (WU)b); }       \
    static inline T sub_##N(T a, T b) { return (T)((WU)a - (WU)b); }       \
    static inline T mul_##N(T a, T b) { return (T)((WU)a * (WU)b); }       \
    static inline T max_##N(T a, T b) { return a > b ? a : b; }            \
    static inline T min_##N(T a, T b) { return a < b ? a : b; }            \
    static inline T band_##N(T a, T b) { return (T)(a & b); }              \
    static inline T bor_##N(T a, T b) { return (T)(a | b); }               \
    static inline T bxor_##N(T a, T b) { return (T)(a ^ b); }              \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }              \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }              \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }               \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }              \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }               \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }              \
    /* a**b for b >= 0 by squaring, wrapping. */                           \
    static inline T upow_##N(T a, T b)                                      \
    {                                                                       \
        WU r = 1, x = (WU)a;                                                \
        while (b) {                                                         \
            if (b & 1) {                                                    \
                r *= x;                                                     \
            }                                                               \
            x *= x;                                                         \
            b = (T)(b >> 1);                                                \
        }                                                                   \
        return (T)r;                                                        \
    }

/* Signed: floor division and Python remainder, INT_MIN // -1 == INT_MIN
 * and INT_MIN % -1 == 0; a zero divisor (the op scanned for it first)
 * gives 0 rather than a trap.  Shifts by a count < 0 or >= BITS give 0,
 * or -1 for a right shift of a negative (NumPy). */
#define DEF_SIGNED(N, T, WU, BITS)                                          \
    DEF_INT_ANY(N, T, WU, BITS)                                             \
    static inline T fdiv_##N(T a, T b)                                      \
    {                                                                       \
        if (b == 0) {                                                       \
            return 0;                                                       \
        }                                                                   \
        if (b == -1) {                                                      \
            return (T)((WU)0 - (WU)a);                                      \
        }                                                                   \
        T q = (T)(a / b);                                                   \
        if ((T)(a % b) != 0 && ((a < 0) != (b < 0))) {                      \
            q = (T)(q - 1);                                                 \
        }                                                                   \
        return q;                                                           \
    }                                                                       \
    static inline T rem_##N(T a, T b)                                       \
    {                                                                       \
        if (b == 0 || b == -1) {                                            \
            return 0;                                                       \
        }                                                                   \
        T r = (T)(a % b);                                                   \
        if (r != 0 && ((r < 0) != (b < 0))) {                               \
            r = (T)(r + b);                                                 \
        }                                                                   \
        return r;                                                           \
    }                                                                       \
    static inline T pow_##N(T a, T b)                                       \
    {                                                                       \
        if (b < 0) { /* refused before the loop; as PyTorch's powi */       \
            return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;           \
        }                                                                   \
        return upow_##N(a, b);                                              \
    }                                                                       \
    static inline T shl_##N(T a, T b)                                       \
    {                                                                       \
        if (b < 0 || b >= (BITS)) {                                         \
            return 0;                                                       \
        }                                                                   \
        return (T)((WU)a << b);                                             \
    }                                                                       \
    static inline T shr_##N(T a, T b)                                       \
    {                                                                       \
        if (b < 0 || b >= (BITS)) {                                         \
            return (T)(a < 0 ? -1 : 0);                                     \
        }                                                                   \
        return (T)(a >> b);                                                 \
    }

#define DEF_UNSIGNED(N, T, WU, BITS)                                        \
    DEF_INT_ANY(N, T, WU, BITS)                                             \
    static inline T fdiv_##N(T a, T b) { return b ? (T)(a / b) : 0; }      \
    static inline T rem_##N(T a, T b) { return b ? (T)(a % b) : 0; }       \
    static inline T pow_##N(T a, T b) { return upow_##N(a, b); }           \
    static inline T shl_##N(T a, T b)                                       \
    {                                                                       \
        return b >= (BITS) ? 0 : (T)((WU)a << b);                           \
    }                                                                       \
    static inline T shr_##N(T a, T b)                                       \
    {                                                                       \
        return b >= (BITS) ? 0 : (T)(a >> b);                               \
    }

DEF_UNSIGNED(u8, uint8_t, uint32_t, 8)
DEF_SIGNED(i8, int8_t, uint32_t, 8)
DEF_SIGNED(i16, int16_t, uint32_t, 16)
DEF_UNSIGNED(u16, uint16_t, uint32_t, 16)
DEF_SIGNED(i32, int32_t, uint32_t, 32)
DEF_UNSIGNED(u32, uint32_t, uint32_t, 32)
DEF_SIGNED(i64, int64_t, uint64_t, 64)
DEF_UNSIGNED(u64, uint64_t, uint64_t, 64)

/* bool as 0/1 bytes: + is or, * is and. */
static inline uint8_t add_b(uint8_t a, uint8_t b) { return a | b; }
static inline uint8_t mul_b(uint8_t a, uint8_t b) { return a & b; }
static inline uint8_t max_b(uint8_t a, uint8_t b) { return a | b; }
static inline uint8_t min_b(uint8_t a, uint8_t b) { return a & b; }
static inline uint8_t band_b(uint8_t a, uint8_t b) { return a & b; }
static inline uint8_t bor_b(uint8_t a, uint8_t b) { return a | b; }
static inline uint8_t bxor_b(uint8_t a, uint8_t b) { return a ^ b; }
static inline uint8_t eq_b(uint8_t a, uint8_t b) { return a == b; }
static inline uint8_t ne_b(uint8_t a, uint8_t b) { return a != b; }
static inline uint8_t lt_b(uint8_t a, uint8_t b) { return a < b; }
static inline uint8_t le_b(uint8_t a, uint8_t b) { return a <= b; }
static inline uint8_t gt_b(uint8_t a, uint8_t b) { return a > b; }
static inline uint8_t ge_b(uint8_t a, uint8_t b) { return a >= b; }
static inline uint8_t land_b(uint8_t a, uint8_t b) { return a && b; }
static inline uint8_t lor_b(uint8_t a, uint8_t b) { return a || b; }
static inline uint8_t lxor_b(uint8_t a, uint8_t b)
{
    return (a != 0) ^ (b != 0);
}

/* Floats.  floor_divide and remainder follow NumPy's npy_divmod: the
 * quotient is (a - fmod(a, b)) / b corrected toward -inf and snapped to an
 * integer; the remainder takes the divisor's sign (+0 or -0 as b).
 * maximum/minimum propagate NaN. */
#define DEF_FLOAT(N, T, SFX)                                                \
    static inline T add_##N(T a, T b) { return a + b; }                    \
    static inline T sub_##N(T a, T b) { return a - b; }                    \
    static inline T mul_##N(T a, T b) { return a * b; }                    \
    static inline T div_##N(T a, T b) { return a / b; }                    \
    /* A NaN b fails a >= b and is taken; a NaN a is kept by the second \
     * test: two blends. */                                                 \
    static inline T max_##N(T a, T b)                                       \
    {                                                                       \
        T m = a >= b ? a : b;                                               \
        return a != a ? a : m;                                              \
    }                                                                       \
    static inline T min_##N(T a, T b)                                       \
    {                                                                       \
        T m = a <= b ? a : b;                                               \
        return a != a ? a : m;                                              \
    }                                                                       \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }              \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }              \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }               \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }              \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }               \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }              \
    static inline T pow_##N(T a, T b) { return pow##SFX(a, b); }           \
    static inline T fdiv_##N(T a, T b)                                      \
    {                                                                       \
        if (b == 0) {                                                       \
            return a / b;                                                   \
        }                                                                   \
        T mod = fmod##SFX(a, b);                                            \
        T div = (a - mod) / b;                                              \
        if (mod != 0 && ((b < 0) != (mod < 0))) {                           \
            div -= 1;                                                       \
        }                                                                   \
        if (div != 0) {                                                     \
            T fl = floor##SFX(div);                                         \
            if (div - fl > (T)0.5) {                                        \
                fl += 1;                                                    \
            }                                                               \
            return fl;                                                      \
        }                                                                   \
        return copysign##SFX(0, a / b);                                     \
    }                                                                       \
    static inline T rem_##N(T a, T b)                                       \
    {                                                                       \
        T mod = fmod##SFX(a, b);                                            \
        if (b == 0) {                                                       \
            return mod;                                                     \
        }                                                                   \
        if (mod != 0) {                                                     \
            if ((b < 0) != (mod < 0)) {                                     \
                mod += b;                                                   \
            }                                                               \
        } else {                                                            \
            mod = copysign##SFX(0, b);                                      \
        }                                                                   \
        return mod;                                                         \
    }

DEF_FLOAT(f32, float, f)
DEF_FLOAT(f64, double, )

/* Complex: NumPy's formulas -- the schoolbook product, Smith's quotient,
 * and cpow with exact repeated multiplication for small integer
 * exponents. */
#define DEF_COMPLEX(N, T, R, SFX, MK)                                       \
    static inline T add_##N(T a, T b) { return a + b; }                    \
    static inline T sub_##N(T a, T b) { return a - b; }                    \
    static inline T mul_##N(T a, T b)                                       \
    {                                                                       \
        R ar = creal##SFX(a), ai = cimag##SFX(a);                           \
        R br = creal##SFX(b), bi = cimag##SFX(b);                           \
        return MK(ar * br - ai * bi, ar * bi + ai * br);                    \
    }                                                                       \
    static inline T div_##N(T a, T b)                                       \
    {                                                                       \
        R ar = creal##SFX(a), ai = cimag##SFX(a);                           \
        R br = creal##SFX(b), bi = cimag##SFX(b);                           \
        R abr = fabs##SFX(br), abi = fabs##SFX(bi);                         \
        if (abr >= abi) {                                                   \
            if (abr == 0 && abi == 0) {                                     \
                return MK(ar / abr, ai / abr);                              \
            }                                                               \
            R rat = bi / br, scl = (R)1.0 / (br + bi * rat);                \
            return MK((ar + ai * rat) * scl, (ai - ar * rat) * scl);        \
        }                                                                   \
        R rat = br / bi, scl = (R)1.0 / (bi + br * rat);                    \
        return MK((ar * rat + ai) * scl, (ai * rat - ar) * scl);            \
    }                                                                       \
    static inline uint8_t eq_##N(T a, T b)                                  \
    {                                                                       \
        return creal##SFX(a) == creal##SFX(b) &&                            \
               cimag##SFX(a) == cimag##SFX(b);                              \
    }                                                                       \
    static inline uint8_t ne_##N(T a, T b) { return !eq_##N(a, b); }       \
    static inline T pow_##N(T a, T b)                                       \
    {                                                                       \
        R ar = creal##SFX(a), ai = cimag##SFX(a);                           \
        R br = creal##SFX(b), bi = cimag##SFX(b);                           \
        if (br == 0 && bi == 0) {                                           \
            return MK(1, 0);                                                \
        }                                                                   \
        if (ar == 0 && ai == 0) { /* NumPy 2: 0 ** b is 0 for Re b > 0 */  \
            if (br > 0) {                                                   \
                return MK(0, 0);                                            \
            }                                                               \
            return MK(NAN, NAN);                                            \
        }                                                                   \
        if (bi == 0 && br > -100 && br < 100 && br == (R)(int)br) {         \
            int n = (int)br;                                                \
            if (n == 1) {                                                   \
                return a;                                                   \
            }                                                               \
            if (n == 2) {                                                   \
                return mul_##N(a, a);                                       \
            }                                                               \
            if (n == 3) {                                                   \
                return mul_##N(a, mul_##N(a, a));                           \
            }                                                               \
            unsigned m = (unsigned)(n < 0 ? -n : n);                        \
            T acc = MK(1, 0), p = a;                                        \
            for (;;) {                                                      \
                if (m & 1u) {                                               \
                    acc = mul_##N(acc, p);                                  \
                }                                                           \
                m >>= 1;                                                    \
                if (!m) {                                                   \
                    break;                                                  \
                }                                                           \
                p = mul_##N(p, p);                                          \
            }                                                               \
            return n < 0 ? div_##N(MK(1, 0), acc) : acc;                    \
        }                                                                   \
        return cpow##SFX(a, b);                                             \
    }

DEF_COMPLEX(c64, tl_c64, float, f, CMPLXF)
DEF_COMPLEX(c128, tl_c128, double, , CMPLX)

/* ---- loops ---------------------------------------------------------------
 * K(op, N, T, OT, F): one loop named op##_loop_##N. */
#define K(op, N, T, OT, F) BIN_LOOP(op##_loop_##N, T, OT, NO_SETUP, F)

/* add, sub, mul, alpha forms, comparisons: every compute dtype. */
#define ARITH(N, T)                                                         \
    K(add, N, T, T, add_##N)                                                \
    K(sub, N, T, T, sub_##N)                                                \
    K(mul, N, T, T, mul_##N)                                                \
    K(eq, N, T, uint8_t, eq_##N)                                            \
    K(ne, N, T, uint8_t, ne_##N)
FOR_INTS(ARITH)
FOR_FLOATS(ARITH)
FOR_COMPLEX(ARITH)
K(add, b, uint8_t, uint8_t, add_b)
K(mul, b, uint8_t, uint8_t, mul_b)
K(eq, b, uint8_t, uint8_t, eq_b)
K(ne, b, uint8_t, uint8_t, ne_b)

#define ADDA_INT(N, T)                                                      \
    BIN_LOOP(adda_loop_##N, T, T, ALPHA_SETUP(T),                           \
             ADDA_INT_F_##N)
#define ADDA_INT_F(N, x, y) add_##N((x), mul_##N(al, (y)))
#define ADDA_INT_F_u8(x, y) ADDA_INT_F(u8, x, y)
#define ADDA_INT_F_i8(x, y) ADDA_INT_F(i8, x, y)
#define ADDA_INT_F_i16(x, y) ADDA_INT_F(i16, x, y)
#define ADDA_INT_F_u16(x, y) ADDA_INT_F(u16, x, y)
#define ADDA_INT_F_i32(x, y) ADDA_INT_F(i32, x, y)
#define ADDA_INT_F_u32(x, y) ADDA_INT_F(u32, x, y)
#define ADDA_INT_F_i64(x, y) ADDA_INT_F(i64, x, y)
#define ADDA_INT_F_u64(x, y) ADDA_INT_F(u64, x, y)
#define ADDA_INT_F_f32(x, y) ((x) + al * (y))
#define ADDA_INT_F_f64(x, y) ((x) + al * (y))
#define ADDA_INT_F_c64(x, y) add_c64((x), mul_c64(al, (y)))
#define ADDA_INT_F_c128(x, y) add_c128((x), mul_c128(al, (y)))
#define ADDA_INT_F_b(x, y) ((uint8_t)((x) | (al & (y))))
FOR_INTS(ADDA_INT)
FOR_FLOATS(ADDA_INT)
FOR_COMPLEX(ADDA_INT)
ADDA_INT(b, uint8_t)

#define ORDERED(N, T)                                                       \
    K(max, N, T, T, max_##N)                                                \
    K(min, N, T, T, min_##N)                                                \
    K(lt, N, T, uint8_t, lt_##N)                                            \
    K(le, N, T, uint8_t, le_##N)                                            \
    K(gt, N, T, uint8_t, gt_##N)                                            \
    K(ge, N, T, uint8_t, ge_##N)
FOR_INTS(ORDERED)
FOR_FLOATS(ORDERED)
ORDERED(b, uint8_t)

#define INTONLY(N, T)                                                       \
    K(fdiv, N, T, T, fdiv_##N)                                              \
    K(rem, N, T, T, rem_##N)                                                \
    K(pow, N, T, T, pow_##N)                                                \
    K(shl, N, T, T, shl_##N)                                                \
    K(shr, N, T, T, shr_##N)                                                \
    K(band, N, T, T, band_##N)                                              \
    K(bor, N, T, T, bor_##N)                                                \
    K(bxor, N, T, T, bxor_##N)
FOR_INTS(INTONLY)
K(band, b, uint8_t, uint8_t, band_b)
K(bor, b, uint8_t, uint8_t, bor_b)
K(bxor, b, uint8_t, uint8_t, bxor_b)
K(land, b, uint8_t, uint8_t, land_b)
K(lor, b, uint8_t, uint8_t, lor_b)
K(lxor, b, uint8_t, uint8_t, lxor_b)

#define FLOATONLY(N, T)                                                     \
    K(div, N, T, T, div_##N)                                                \
    K(fdiv, N, T, T, fdiv_##N)                                              \
    K(rem, N, T, T, rem_##N)                                                \
    K(pow, N, T, T, pow_##N)
FOR_FLOATS(FLOATONLY)

#define COMPLEXONLY(N, T)                                                   \
    K(div, N, T, T, div_##N)                                                \
    K(pow, N, T, T, pow_##N)
FOR_COMPLEX(COMPLEXONLY)

/* ---- the table -------------------------------------------------------- */

static const tl_iter_loop2d binary_table[TL_BINARY_OP_COUNT + 1]
                                        [TL_DTYPE_COUNT] = {
    [TL_BINARY_ADD] = {ROW_BOOL(add) ROW_ALL_INTS(add) ROW_FLOATS(add)
                           ROW_COMPLEX(add)},
    [TL_BINARY_SUB] = {ROW_ALL_INTS(sub) ROW_FLOATS(sub) ROW_COMPLEX(sub)},
    [TL_BINARY_MUL] = {ROW_BOOL(mul) ROW_ALL_INTS(mul) ROW_FLOATS(mul)
                           ROW_COMPLEX(mul)},
    [TL_BINARY_DIV] = {ROW_FLOATS(div) ROW_COMPLEX(div)},
    [TL_BINARY_FLOOR_DIVIDE] = {ROW_ALL_INTS(fdiv) ROW_FLOATS(fdiv)},
    [TL_BINARY_REMAINDER] = {ROW_ALL_INTS(rem) ROW_FLOATS(rem)},
    [TL_BINARY_POW] = {ROW_ALL_INTS(pow) ROW_FLOATS(pow) ROW_COMPLEX(pow)},
    [TL_BINARY_MAXIMUM] = {ROW_BOOL(max) ROW_ALL_INTS(max) ROW_FLOATS(max)},
    [TL_BINARY_MINIMUM] = {ROW_BOOL(min) ROW_ALL_INTS(min) ROW_FLOATS(min)},
    [TL_BINARY_EQ] = {ROW_BOOL(eq) ROW_ALL_INTS(eq) ROW_FLOATS(eq)
                          ROW_COMPLEX(eq)},
    [TL_BINARY_NE] = {ROW_BOOL(ne) ROW_ALL_INTS(ne) ROW_FLOATS(ne)
                          ROW_COMPLEX(ne)},
    [TL_BINARY_LT] = {ROW_BOOL(lt) ROW_ALL_INTS(lt) ROW_FLOATS(lt)},
    [TL_BINARY_LE] = {ROW_BOOL(le) ROW_ALL_INTS(le) ROW_FLOATS(le)},
    [TL_BINARY_GT] = {ROW_BOOL(gt) ROW_ALL_INTS(gt) ROW_FLOATS(gt)},
    [TL_BINARY_GE] = {ROW_BOOL(ge) ROW_ALL_INTS(ge) ROW_FLOATS(ge)},
    [TL_BINARY_LOGICAL_AND] = {ROW_BOOL(land)},
    [TL_BINARY_LOGICAL_OR] = {ROW_BOOL(lor)},
    [TL_BINARY_LOGICAL_XOR] = {ROW_BOOL(lxor)},
    [TL_BINARY_BITWISE_AND] = {ROW_BOOL(band) ROW_ALL_INTS(band)},
    [TL_BINARY_BITWISE_OR] = {ROW_BOOL(bor) ROW_ALL_INTS(bor)},
    [TL_BINARY_BITWISE_XOR] = {ROW_BOOL(bxor) ROW_ALL_INTS(bxor)},
    [TL_BINARY_LSHIFT] = {ROW_ALL_INTS(shl)},
    [TL_BINARY_RSHIFT] = {ROW_ALL_INTS(shr)},
    [TL_KERNEL_ADD_ALPHA] = {ROW_BOOL(adda) ROW_ALL_INTS(adda)
                                 ROW_FLOATS(adda) ROW_COMPLEX(adda)},
};

tl_iter_loop2d tl_binary_kernel_get(int op, int dt)
{
    if (op < 0 || op > TL_KERNEL_ADD_ALPHA || !tl_dtype_valid(dt)) {
        return NULL;
    }
    return binary_table[op][dt];
}

/* ---- scans ------------------------------------------------------------- */

#define SCAN(NAME, T, COND)                                                 \
    static void NAME(char **data, const int64_t *st, int64_t n0,            \
                     int64_t n1, void *vctx)                                \
    {                                                                       \
        int *flag = vctx;                                                   \
        int found = 0;                                                      \
        for (int64_t j = 0; j < n1; j++) {                                  \
            const char *p = data[0] + j * st[1];                            \
            for (int64_t i = 0; i < n0; i++) {                              \
                T x = *(const T *)(p + i * st[0]);                          \
                found |= (COND);                                            \
            }                                                               \
        }                                                                   \
        if (found) {                                                        \
            __atomic_store_n(flag, 1, __ATOMIC_RELAXED);                    \
        }                                                                   \
    }
#define SCAN_ZERO(N, T) SCAN(scanz_loop_##N, T, x == 0)
FOR_INTS(SCAN_ZERO)

static const tl_iter_loop2d scan_zero_table[TL_DTYPE_COUNT] = {
    ROW_ALL_INTS(scanz)};

tl_iter_loop2d tl_scan_zero_kernel_get(int dt)
{
    return tl_dtype_valid(dt) ? scan_zero_table[dt] : NULL;
}
