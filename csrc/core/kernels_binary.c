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

#define DEF_INT(N, T, WU)                                                   \
    static inline T add_##N(T a, T b) { return (T)((WU)a + (WU)b); }       \
    static inline T sub_##N(T a, T b) { return (T)((WU)a - (WU)b); }       \
    static inline T mul_##N(T a, T b) { return (T)((WU)a * (WU)b); }       \
    static inline T band_##N(T a, T b) { return (T)(a & b); }              \
    static inline T bor_##N(T a, T b) { return (T)(a | b); }               \
    static inline T bxor_##N(T a, T b) { return (T)(a ^ b); }              \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }              \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }              \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }               \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }              \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }               \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }

/* Floor division, remainder, power, shifts and maximum/minimum of the
 * integers are scalar_math.h's (tl_sm_fdiv_i8, ...; its comment gives
 * their semantics), shared with the CUDA kernels. */
DEF_INT(u8, uint8_t, uint32_t)
DEF_INT(i8, int8_t, uint32_t)
DEF_INT(i16, int16_t, uint32_t)
DEF_INT(u16, uint16_t, uint32_t)
DEF_INT(i32, int32_t, uint32_t)
DEF_INT(u32, uint32_t, uint32_t)
DEF_INT(i64, int64_t, uint64_t)
DEF_INT(u64, uint64_t, uint64_t)

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

/* Floats.  floor_divide, remainder and the NaN-propagating maximum /
 * minimum are scalar_math.h's (NumPy's npy_divmod). */
#define DEF_FLOAT(N, T, SFX)                                                \
    static inline T add_##N(T a, T b) { return a + b; }                    \
    static inline T sub_##N(T a, T b) { return a - b; }                    \
    static inline T mul_##N(T a, T b) { return a * b; }                    \
    static inline T div_##N(T a, T b) { return a / b; }                    \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }              \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }              \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }               \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }              \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }               \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }              \
    static inline T pow_##N(T a, T b) { return pow##SFX(a, b); }

DEF_FLOAT(f32, float, f)
DEF_FLOAT(f64, double, )

/* Complex: the product, Smith's quotient and the exact cases of pow are
 * scalar_math.h's (on plain structs, shared with CUDA); the rest of pow is
 * libm's cpow, exp(b log a). */
#define DEF_COMPLEX(N, T, R, SFX, MK)                                       \
    static inline tl_sm_##N sm_##N(T a)                                     \
    {                                                                       \
        return tl_sm_cmake_##N(creal##SFX(a), cimag##SFX(a));               \
    }                                                                       \
    static inline T add_##N(T a, T b) { return a + b; }                    \
    static inline T sub_##N(T a, T b) { return a - b; }                    \
    static inline T mul_##N(T a, T b)                                       \
    {                                                                       \
        const tl_sm_##N r = tl_sm_cmul_##N(sm_##N(a), sm_##N(b));           \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline T div_##N(T a, T b)                                       \
    {                                                                       \
        const tl_sm_##N r = tl_sm_cdiv_##N(sm_##N(a), sm_##N(b));           \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline uint8_t eq_##N(T a, T b)                                  \
    {                                                                       \
        return creal##SFX(a) == creal##SFX(b) &&                            \
               cimag##SFX(a) == cimag##SFX(b);                              \
    }                                                                       \
    static inline uint8_t ne_##N(T a, T b) { return !eq_##N(a, b); }       \
    static inline T pow_##N(T a, T b)                                       \
    {                                                                       \
        tl_sm_##N r;                                                        \
        if (tl_sm_cpow_exact_##N(sm_##N(a), sm_##N(b), &r)) {               \
            return MK(r.re, r.im);                                          \
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
    K(max, N, T, T, tl_sm_max_##N)                                          \
    K(min, N, T, T, tl_sm_min_##N)                                          \
    K(lt, N, T, uint8_t, lt_##N)                                            \
    K(le, N, T, uint8_t, le_##N)                                            \
    K(gt, N, T, uint8_t, gt_##N)                                            \
    K(ge, N, T, uint8_t, ge_##N)
FOR_INTS(ORDERED)
FOR_FLOATS(ORDERED)
K(max, b, uint8_t, uint8_t, max_b)
K(min, b, uint8_t, uint8_t, min_b)
K(lt, b, uint8_t, uint8_t, lt_b)
K(le, b, uint8_t, uint8_t, le_b)
K(gt, b, uint8_t, uint8_t, gt_b)
K(ge, b, uint8_t, uint8_t, ge_b)

#define INTONLY(N, T)                                                       \
    K(fdiv, N, T, T, tl_sm_fdiv_##N)                                        \
    K(rem, N, T, T, tl_sm_rem_##N)                                          \
    K(pow, N, T, T, tl_sm_pow_##N)                                          \
    K(shl, N, T, T, tl_sm_shl_##N)                                          \
    K(shr, N, T, T, tl_sm_shr_##N)                                          \
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
    K(fdiv, N, T, T, tl_sm_fdiv_##N)                                        \
    K(rem, N, T, T, tl_sm_rem_##N)                                          \
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
