/* csrc/core/kernels_copy.c — element conversions between the 17 dtypes,
 * the copy loops built on them (contiguous rows, cache-blocked transposed
 * tiles) and the fill loop.  Pure loops over memory the iterator handed
 * over: no allocation, no tensor metadata. */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <stdint.h>

#include "float8.h"
#include "kernels.h"

/* The dtype lists of this file: every dtype of kernels.h plus the float8
 * storage dtypes, which only conversions and copies know. */
#define T_f8e4 uint8_t
#define T_f8e5 uint8_t
#define CL_f8e4 F8
#define CL_f8e5 F8
#define COPY_FOR_EACH_DTYPE(X)                                              \
    TL_FOR_EACH_DTYPE(X) X(f8e4, FLOAT8_E4M3FN) X(f8e5, FLOAT8_E5M2)
#define COPY_FOR_EACH_DTYPE_WITH(X, S)                                      \
    TL_FOR_EACH_DTYPE_WITH(X, S) X(S, f8e4, FLOAT8_E4M3FN)                  \
    X(S, f8e5, FLOAT8_E5M2)

/* Note [Element conversions]
 * CV(S, D, x) converts one value of dtype S to dtype D.  The rules:
 * - to bool: x != 0 (complex: either part nonzero; NaN is true);
 * - integer to integer: wraps (two's complement, as C's conversion to an
 *   unsigned type, then reinterpreted);
 * - floating to integer: truncates toward zero; NaN gives 0 and values
 *   out of range saturate at D's minimum or maximum (no undefined
 *   behaviour, so -fsanitize=float-cast-overflow stays quiet);
 * - to float16/bfloat16: rounds once, to nearest even, from the source
 *   value: float64 and int64 go through tl_*_from_double (int64 beyond
 *   2^53 first rounds to odd at 53 bits, which keeps the final rounding
 *   exact), float32 through the float routine;
 * - complex to real: the real part (NumPy does the same, with a
 *   ComplexWarning); real to complex: imaginary part 0;
 * - to float8: rounds once, to nearest even, from the source value as a
 *   double (exact for every source but int64/uint64, which round to odd
 *   at 53 bits first, keeping the final rounding exact), with PyTorch's
 *   NaN and overflow rules (Note [Float8 conversions] in float8.h); from
 *   float8: exact (through float). */

#define CV(S, D, x) CV1_(CL_##S, CL_##D, S, D, x)
#define CV1_(cs, cd, S, D, x) CV2_(cs, cd, S, D, x)
#define CV2_(cs, cd, S, D, x) CV_##cs##_##cd(S, D, x)

/* Saturating float (as double) to integer, and int64/uint64 to double
 * rounded to odd: scalar_math.h (tl_sm_sat_*, tl_sm_*_to_double_rto). */
#define sat_u8 tl_sm_sat_u8
#define sat_i8 tl_sm_sat_i8
#define sat_i16 tl_sm_sat_i16
#define sat_u16 tl_sm_sat_u16
#define sat_i32 tl_sm_sat_i32
#define sat_u32 tl_sm_sat_u32
#define sat_i64 tl_sm_sat_i64
#define sat_u64 tl_sm_sat_u64

#define I2D_u8(x) ((double)(x))
#define I2D_i8(x) ((double)(x))
#define I2D_i16(x) ((double)(x))
#define I2D_u16(x) ((double)(x))
#define I2D_i32(x) ((double)(x))
#define I2D_u32(x) ((double)(x))
#define I2D_i64(x) tl_sm_i64_to_double_rto(x)
#define I2D_u64(x) tl_sm_u64_to_double_rto(x)

#define H_FROM_f32(x) tl_k_half_from_float(x)
#define H_FROM_f64(x) tl_half_from_double(x)
#define BF_FROM_f32(x) tl_k_bf16_from_float(x)
#define BF_FROM_f64(x) tl_bf16_from_double(x)
#define H_FROM_c64(x) tl_k_half_from_float(crealf(x))
#define H_FROM_c128(x) tl_half_from_double(creal(x))
#define BF_FROM_c64(x) tl_k_bf16_from_float(crealf(x))
#define BF_FROM_c128(x) tl_bf16_from_double(creal(x))
#define RE_c64(x) crealf(x)
#define RE_c128(x) creal(x)
#define IM_c64(x) cimagf(x)
#define IM_c128(x) cimag(x)

#define CV_BOOL_BOOL(S, D, x) ((T_##D)((x) != 0))
#define CV_BOOL_INT(S, D, x) ((T_##D)((x) != 0))
#define CV_BOOL_FLT(S, D, x) ((T_##D)((x) != 0))
#define CV_BOOL_HALF(S, D, x) ((T_##D)((x) != 0 ? 0x3c00u : 0u))
#define CV_BOOL_BF16(S, D, x) ((T_##D)((x) != 0 ? 0x3f80u : 0u))
#define CV_BOOL_CPX(S, D, x) ((T_##D)(RT_##D)((x) != 0))

#define CV_INT_BOOL(S, D, x) ((T_##D)((x) != 0))
#define CV_INT_INT(S, D, x) ((T_##D)(x))
#define CV_INT_FLT(S, D, x) ((T_##D)(x))
#define CV_INT_HALF(S, D, x) tl_half_from_double(I2D_##S(x))
#define CV_INT_BF16(S, D, x) tl_bf16_from_double(I2D_##S(x))
#define CV_INT_CPX(S, D, x) ((T_##D)(RT_##D)(x))

#define CV_FLT_BOOL(S, D, x) ((T_##D)((x) != 0))
#define CV_FLT_INT(S, D, x) sat_##D((double)(x))
#define CV_FLT_FLT(S, D, x) ((T_##D)(x))
#define CV_FLT_HALF(S, D, x) H_FROM_##S(x)
#define CV_FLT_BF16(S, D, x) BF_FROM_##S(x)
#define CV_FLT_CPX(S, D, x) ((T_##D)(RT_##D)(x))

#define CV_HALF_BOOL(S, D, x) ((T_##D)(((x) & 0x7fffu) != 0))
#define CV_HALF_INT(S, D, x) sat_##D((double)tl_k_half_to_float(x))
#define CV_HALF_FLT(S, D, x) ((T_##D)tl_k_half_to_float(x))
#define CV_HALF_HALF(S, D, x) (x)
#define CV_HALF_BF16(S, D, x) tl_k_bf16_from_float(tl_k_half_to_float(x))
#define CV_HALF_CPX(S, D, x) ((T_##D)(RT_##D)tl_k_half_to_float(x))

#define CV_BF16_BOOL(S, D, x) ((T_##D)(((x) & 0x7fffu) != 0))
#define CV_BF16_INT(S, D, x) sat_##D((double)tl_k_bf16_to_float(x))
#define CV_BF16_FLT(S, D, x) ((T_##D)tl_k_bf16_to_float(x))
#define CV_BF16_HALF(S, D, x) tl_k_half_from_float(tl_k_bf16_to_float(x))
#define CV_BF16_BF16(S, D, x) (x)
#define CV_BF16_CPX(S, D, x) ((T_##D)(RT_##D)tl_k_bf16_to_float(x))

#define CV_CPX_BOOL(S, D, x) ((T_##D)(RE_##S(x) != 0 || IM_##S(x) != 0))
#define CV_CPX_INT(S, D, x) sat_##D((double)RE_##S(x))
#define CV_CPX_FLT(S, D, x) ((T_##D)RE_##S(x))
#define CV_CPX_HALF(S, D, x) H_FROM_##S(x)
#define CV_CPX_BF16(S, D, x) BF_FROM_##S(x)
#define CV_CPX_CPX(S, D, x) ((T_##D)(x))

#define F8_FROM_f8e4(x) tl_f8e4m3fn_from_double(x)
#define F8_FROM_f8e5(x) tl_f8e5m2_from_double(x)
#define F8_TO_f8e4(x) tl_f8e4m3fn_to_float(x)
#define F8_TO_f8e5(x) tl_f8e5m2_to_float(x)
#define CV_BOOL_F8(S, D, x) F8_FROM_##D((x) != 0 ? 1.0 : 0.0)
#define CV_INT_F8(S, D, x) F8_FROM_##D(I2D_##S(x))
#define CV_FLT_F8(S, D, x) F8_FROM_##D((double)(x))
#define CV_HALF_F8(S, D, x) F8_FROM_##D((double)tl_k_half_to_float(x))
#define CV_BF16_F8(S, D, x) F8_FROM_##D((double)tl_k_bf16_to_float(x))
#define CV_CPX_F8(S, D, x) F8_FROM_##D((double)RE_##S(x))
#define CV_F8_BOOL(S, D, x) ((T_##D)(((x) & 0x7fu) != 0))
#define CV_F8_INT(S, D, x) sat_##D((double)F8_TO_##S(x))
#define CV_F8_FLT(S, D, x) ((T_##D)F8_TO_##S(x))
#define CV_F8_HALF(S, D, x) tl_k_half_from_float(F8_TO_##S(x))
#define CV_F8_BF16(S, D, x) tl_k_bf16_from_float(F8_TO_##S(x))
#define CV_F8_CPX(S, D, x) ((T_##D)(RT_##D)F8_TO_##S(x))
/* Between the two float8s: the bits as they are for the same dtype (a
 * copy keeps NaN payloads), else one rounding of the exact value. */
#define CV_F8_F8(S, D, x) F8_F8_##S##_##D(x)
#define F8_F8_f8e4_f8e4(x) (x)
#define F8_F8_f8e5_f8e5(x) (x)
#define F8_F8_f8e4_f8e5(x) F8_FROM_f8e5((double)F8_TO_f8e4(x))
#define F8_F8_f8e5_f8e4(x) F8_FROM_f8e4((double)F8_TO_f8e5(x))

/* The 1-D converter S -> D.  Same-dtype contiguous runs are a memcpy. */
#define DEF_CVT(S, D, DN)                                                   \
    TL_MULTIVERSION                                                         \
    static void cvt_##S##_##D(char *dst, int64_t ds, const char *src,       \
                              int64_t ss, int64_t n)                        \
    {                                                                       \
        enum { SS = sizeof(T_##S), DS = sizeof(T_##D) };                    \
        if (ss == SS && ds == DS) {                                         \
            if ((int)TL_DTYPE_##DN == (int)cvt_src_dt_##S) {                \
                if (dst != src) {                                           \
                    memcpy(dst, src, (size_t)n * SS);                       \
                }                                                           \
                return;                                                     \
            }                                                               \
            TL_IVDEP                                                        \
            for (int64_t i = 0; i < n; i++) {                               \
                T_##S x;                                                    \
                memcpy(&x, src + i * SS, SS);                               \
                T_##D y = CV(S, D, x);                                      \
                memcpy(dst + i * DS, &y, DS);                               \
            }                                                               \
            return;                                                         \
        }                                                                   \
        for (int64_t i = 0; i < n; i++) {                                   \
            T_##S x;                                                        \
            memcpy(&x, src + i * ss, SS);                                   \
            T_##D y = CV(S, D, x);                                          \
            memcpy(dst + i * ds, &y, DS);                                   \
        }                                                                   \
    }

/* The dtype code of each short name (for the same-dtype memcpy test). */
#define DEF_SRC_DT(N, DN) enum { cvt_src_dt_##N = TL_DTYPE_##DN };
COPY_FOR_EACH_DTYPE(DEF_SRC_DT)

#define DEF_CVT_ROW(N, DN) COPY_FOR_EACH_DTYPE_WITH(DEF_CVT, N)
COPY_FOR_EACH_DTYPE(DEF_CVT_ROW)

/* Note [Blocked transposed copy]
 * A copy whose source walks its inner dim with a large stride while its
 * outer dim is unit-stride (or the same for the destination) -- a.T
 * .contiguous() -- touches a new cache line per element on one side.
 * Splitting the 2-D loop into TILE x TILE tiles keeps both sides' lines in
 * L1 while a tile is done: 64 x 64 elements of up to 4 bytes, or 32 x 32
 * of 8 or 16 bytes, is at most 16 KiB a side. */

static void copy2d(tl_cvt_fn cvt, int64_t dsz, int64_t ssz, char **data,
                   const int64_t *st, int64_t n0, int64_t n1)
{
    char *d = data[0];
    const char *s = data[1];
    const int64_t ds0 = st[0], ss0 = st[1], ds1 = st[2], ss1 = st[3];
    bool transposed = n1 > 1 && n0 > 1 &&
                      ((ss0 != ssz && (ss1 == ssz || ss1 == -ssz)) ||
                       (ds0 != dsz && (ds1 == dsz || ds1 == -dsz)));
    if (!transposed) {
        for (int64_t j = 0; j < n1; j++) {
            cvt(d + j * ds1, ds0, s + j * ss1, ss0, n0);
        }
        return;
    }
    /* Inside a tile, walk along whichever dim is unit-stride for the
     * destination, so stores stay sequential. */
    bool dst_inner = ds0 == dsz || ds0 == -dsz;
    const int64_t tile = (dsz > ssz ? dsz : ssz) <= 4 ? 64 : 32;
    for (int64_t jb = 0; jb < n1; jb += tile) {
        int64_t jn = n1 - jb < tile ? n1 - jb : tile;
        for (int64_t ib = 0; ib < n0; ib += tile) {
            int64_t in = n0 - ib < tile ? n0 - ib : tile;
            char *dt = d + ib * ds0 + jb * ds1;
            const char *stile = s + ib * ss0 + jb * ss1;
            if (dst_inner) {
                for (int64_t j = 0; j < jn; j++) {
                    cvt(dt + j * ds1, ds0, stile + j * ss1, ss0, in);
                }
            } else {
                for (int64_t i = 0; i < in; i++) {
                    cvt(dt + i * ds0, ds1, stile + i * ss0, ss1, jn);
                }
            }
        }
    }
}

#define DEF_COPY2D(S, D, DN)                                                \
    static void copy2d_##S##_##D(char **data, const int64_t *st,            \
                                 int64_t n0, int64_t n1, void *ctx)         \
    {                                                                       \
        (void)ctx;                                                          \
        copy2d(cvt_##S##_##D, sizeof(T_##D), sizeof(T_##S), data, st, n0,   \
               n1);                                                         \
    }
#define DEF_COPY2D_ROW(N, DN) COPY_FOR_EACH_DTYPE_WITH(DEF_COPY2D, N)
COPY_FOR_EACH_DTYPE(DEF_COPY2D_ROW)

#define CVT_ENTRY(S, D, DN) [TL_DTYPE_##DN] = cvt_##S##_##D,
#define CVT_ROW(N, DN)                                                      \
    [TL_DTYPE_##DN] = {COPY_FOR_EACH_DTYPE_WITH(CVT_ENTRY, N)},
static const tl_cvt_fn cvt_table[TL_DTYPE_COUNT][TL_DTYPE_COUNT] = {
    COPY_FOR_EACH_DTYPE(CVT_ROW)};

#define COPY_ENTRY(S, D, DN) [TL_DTYPE_##DN] = copy2d_##S##_##D,
#define COPY_ROW(N, DN)                                                     \
    [TL_DTYPE_##DN] = {COPY_FOR_EACH_DTYPE_WITH(COPY_ENTRY, N)},
static const tl_iter_loop2d copy_table[TL_DTYPE_COUNT][TL_DTYPE_COUNT] = {
    COPY_FOR_EACH_DTYPE(COPY_ROW)};

tl_cvt_fn tl_cvt_get(int src, int dst) { return cvt_table[src][dst]; }

tl_iter_loop2d tl_copy_loop_get(int src, int dst)
{
    return copy_table[src][dst];
}

/* ---- fill --------------------------------------------------------------- */

#define DEF_FILL(W, T)                                                      \
    static void fill_##W(char *p, int64_t s, int64_t n, const void *v)      \
    {                                                                       \
        T x;                                                                \
        memcpy(&x, v, sizeof x);                                            \
        if (s == (int64_t)sizeof(T)) {                                      \
            for (int64_t i = 0; i < n; i++) {                               \
                memcpy(p + i * (int64_t)sizeof(T), &x, sizeof x);           \
            }                                                               \
        } else {                                                            \
            for (int64_t i = 0; i < n; i++) {                               \
                memcpy(p + i * s, &x, sizeof x);                            \
            }                                                               \
        }                                                                   \
    }
DEF_FILL(1, uint8_t)
DEF_FILL(2, uint16_t)
DEF_FILL(4, uint32_t)
DEF_FILL(8, uint64_t)
typedef struct {
    uint64_t w[2];
} fill16_t;
DEF_FILL(16, fill16_t)

void tl_fill_loop(char **data, const int64_t *st, int64_t n0, int64_t n1,
                  void *vctx)
{
    const tl_fill_ctx *c = vctx;
    void (*f)(char *, int64_t, int64_t, const void *);
    switch (c->itemsize) {
    case 1: f = fill_1; break;
    case 2: f = fill_2; break;
    case 4: f = fill_4; break;
    case 8: f = fill_8; break;
    default: f = fill_16; break;
    }
    /* Bytes all equal (zeros, most often): one memset per row. */
    bool bytes_equal = true;
    for (int64_t k = 1; k < c->itemsize; k++) {
        bytes_equal = bytes_equal && c->value[k] == c->value[0];
    }
    for (int64_t j = 0; j < n1; j++) {
        char *p = data[0] + j * st[1];
        if (bytes_equal && st[0] == c->itemsize) {
            memset(p, c->value[0], (size_t)(n0 * c->itemsize));
        } else {
            f(p, st[0], n0, c->value);
        }
    }
}

/* ---- scalars ------------------------------------------------------------ */

void tl_scalar_cast(const tl_scalar *s, int dt, void *out)
{
    switch (s->kind) {
    case TL_KIND_BOOL: {
        uint8_t b = s->v.i != 0;
        cvt_table[TL_DTYPE_BOOL][dt](out, 0, (const char *)&b, 0, 1);
        break;
    }
    case TL_KIND_UINT:
        cvt_table[TL_DTYPE_UINT64][dt](out, 0, (const char *)&s->v.u, 0, 1);
        break;
    case TL_KIND_FLOAT:
        cvt_table[TL_DTYPE_FLOAT64][dt](out, 0, (const char *)&s->v.f, 0, 1);
        break;
    case TL_KIND_COMPLEX: {
        tl_c128 z = CMPLX(s->v.c[0], s->v.c[1]);
        cvt_table[TL_DTYPE_COMPLEX128][dt](out, 0, (const char *)&z, 0, 1);
        break;
    }
    default:
        cvt_table[TL_DTYPE_INT64][dt](out, 0, (const char *)&s->v.i, 0, 1);
        break;
    }
}
