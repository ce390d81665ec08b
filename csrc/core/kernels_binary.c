/* csrc/core/kernels_binary.c — the CPU loops of the binary ops, one per
 * (op, compute dtype), and the divisor/exponent scans.  Each loop is a
 * tl_iter_loop2d over (out, a, b) with fast paths for contiguous rows and
 * for a stride-0 (scalar) operand; the iterator guarantees aligned data in
 * the loop's dtypes and no partial overlap.  No allocation here. */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <stdint.h>

#include "kernels.h"
#include "vecmath.h"

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
    static inline T add_##N(T a, T b) { return (T)((WU)a + (WU)b); }        \
    static inline T sub_##N(T a, T b) { return (T)((WU)a - (WU)b); }        \
    static inline T mul_##N(T a, T b) { return (T)((WU)a * (WU)b); }        \
    static inline T bitwise_and_##N(T a, T b) { return (T)(a & b); }        \
    static inline T bitwise_or_##N(T a, T b) { return (T)(a | b); }         \
    static inline T bitwise_xor_##N(T a, T b) { return (T)(a ^ b); }        \
    static inline T maximum_##N(T a, T b)                                   \
    {                                                                       \
        return tl_sm_maximum_##N(a, b);                                     \
    }                                                                       \
    static inline T minimum_##N(T a, T b)                                   \
    {                                                                       \
        return tl_sm_minimum_##N(a, b);                                     \
    }                                                                       \
    static inline T pow_##N(T a, T b) { return tl_sm_pow_##N(a, b); }       \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }               \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }               \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }                \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }               \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }                \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }

/* Floor division, remainder, power, shifts and maximum/minimum of the
 * integers are scalar_math.h's (tl_sm_floor_divide_i8, ...; its comment
 * gives their semantics), shared with the CUDA kernels. */
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
static inline uint8_t maximum_b(uint8_t a, uint8_t b) { return a | b; }
static inline uint8_t minimum_b(uint8_t a, uint8_t b) { return a & b; }
static inline uint8_t bitwise_and_b(uint8_t a, uint8_t b) { return a & b; }
static inline uint8_t bitwise_or_b(uint8_t a, uint8_t b) { return a | b; }
static inline uint8_t bitwise_xor_b(uint8_t a, uint8_t b) { return a ^ b; }
static inline uint8_t eq_b(uint8_t a, uint8_t b) { return a == b; }
static inline uint8_t ne_b(uint8_t a, uint8_t b) { return a != b; }
static inline uint8_t lt_b(uint8_t a, uint8_t b) { return a < b; }
static inline uint8_t le_b(uint8_t a, uint8_t b) { return a <= b; }
static inline uint8_t gt_b(uint8_t a, uint8_t b) { return a > b; }
static inline uint8_t ge_b(uint8_t a, uint8_t b) { return a >= b; }
static inline uint8_t logical_and_b(uint8_t a, uint8_t b) { return a && b; }
static inline uint8_t logical_or_b(uint8_t a, uint8_t b) { return a || b; }
static inline uint8_t logical_xor_b(uint8_t a, uint8_t b)
{
    return (a != 0) ^ (b != 0);
}

/* Floats.  floor_divide, remainder and the NaN-propagating maximum /
 * minimum are scalar_math.h's (NumPy's npy_divmod). */
#define DEF_FLOAT(N, T, SFX)                                                \
    static inline T add_##N(T a, T b) { return a + b; }                     \
    static inline T sub_##N(T a, T b) { return a - b; }                     \
    static inline T mul_##N(T a, T b) { return a * b; }                     \
    static inline T div_##N(T a, T b) { return a / b; }                     \
    static inline uint8_t eq_##N(T a, T b) { return a == b; }               \
    static inline uint8_t ne_##N(T a, T b) { return a != b; }               \
    static inline uint8_t lt_##N(T a, T b) { return a < b; }                \
    static inline uint8_t le_##N(T a, T b) { return a <= b; }               \
    static inline uint8_t gt_##N(T a, T b) { return a > b; }                \
    static inline uint8_t ge_##N(T a, T b) { return a >= b; }               \
    static inline T pow_##N(T a, T b) { return pow##SFX(a, b); }            \
    static inline T maximum_##N(T a, T b)                                   \
    {                                                                       \
        return tl_sm_maximum_##N(a, b);                                     \
    }                                                                       \
    static inline T minimum_##N(T a, T b)                                   \
    {                                                                       \
        return tl_sm_minimum_##N(a, b);                                     \
    }

DEF_FLOAT(f32, float, f)
DEF_FLOAT(f64, double, )

/* Complex: the product, Smith's quotient and the exact cases of pow are
 * scalar_math.h's (on plain structs, shared with CUDA); the rest of pow is
 * libm's cpow, exp(b log a). */
#define DEF_COMPLEX(N, T, R, SFX, MK)                                       \
    static inline T add_##N(T a, T b) { return a + b; }                     \
    static inline T sub_##N(T a, T b) { return a - b; }                     \
    static inline T mul_##N(T a, T b)                                       \
    {                                                                       \
        const tl_sm_##N r = tl_sm_cmul_##N(tl_k_to_sm_##N(a),               \
                                         tl_k_to_sm_##N(b));                \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline T div_##N(T a, T b)                                       \
    {                                                                       \
        const tl_sm_##N r = tl_sm_cdiv_##N(tl_k_to_sm_##N(a),               \
                                         tl_k_to_sm_##N(b));                \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline uint8_t eq_##N(T a, T b)                                  \
    {                                                                       \
        return creal##SFX(a) == creal##SFX(b) &&                            \
               cimag##SFX(a) == cimag##SFX(b);                              \
    }                                                                       \
    static inline uint8_t ne_##N(T a, T b) { return !eq_##N(a, b); }        \
    static inline T pow_##N(T a, T b)                                       \
    {                                                                       \
        tl_sm_##N r;                                                        \
        if (tl_sm_cpow_exact_##N(tl_k_to_sm_##N(a), tl_k_to_sm_##N(b),      \
                                 &r)) {                                     \
            return MK(r.re, r.im);                                          \
        }                                                                   \
        return cpow##SFX(a, b);                                             \
    }

DEF_COMPLEX(c64, tl_c64, float, f, CMPLXF)
DEF_COMPLEX(c128, tl_c128, double, , CMPLX)

/* ---- loops ---------------------------------------------------------------
 * One per (op, compute dtype of its set), from the table; the alpha forms
 * of add/sub are written out below. */
#define TABLE_LOOP(NAME, T, OT, F) BIN_LOOP(NAME, T, OT, NO_SETUP, F)
/* An SM row's complex element function: scalar_math.h's on structs. */
#define TL_OP_SM_COMPLEX(name, N, T, res)                                   \
    static inline TL_OP_OUT(res, N) name##_smc_##N(T a, T b)                \
    {                                                                       \
        return TL_OP_SMC_RET(                                               \
            res, N,                                                         \
            tl_sm_##name##_##N(tl_k_to_sm_##N(a), tl_k_to_sm_##N(b)));      \
    }
#define TABLE_LOOPS(ID, name, py, set, res, impl, form, flags, hint, doc)   \
    TL_OP_LOOPS(TABLE_LOOP, name, set, res, impl)
TL_BINARY_OPS(TABLE_LOOPS)
#undef TABLE_LOOPS

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

/* ---- the table -------------------------------------------------------- */

static const tl_iter_loop2d binary_table[TL_BINARY_OP_COUNT + 1]
                                        [TL_DTYPE_COUNT] = {
#define TABLE_ROW(ID, name, py, set, res, impl, form, flags, hint, doc)     \
    [TL_BINARY_##ID] = {TL_OP_ROWS(name, set)},
    TL_BINARY_OPS(TABLE_ROW)
#undef TABLE_ROW
    [TL_KERNEL_ADD_ALPHA] = {ROW_BOOL(adda) ROW_ALL_INTS(adda)
                                 ROW_FLOATS(adda) ROW_COMPLEX(adda)},
};

/* Note [Vectorised transcendental loops] (kernels_unary.c), binary form:
 * atan2 and pow of contiguous rows run vecmath.h's loops; a strided or broadcast
 * row (a stride of 0) runs the table's element loop, whose scalar
 * function stays the reference (and CUDA's). */
#define VM_BIN_LOOP(ID, FN, DT, T)                                          \
    static void vm_##ID##_##DT(char **data, const int64_t *st, int64_t n0,  \
                               int64_t n1, void *vctx)                      \
    {                                                                       \
        const int64_t w = (int64_t)sizeof(T);                               \
        if (st[0] != w || st[1] != w || st[2] != w) {                       \
            binary_table[TL_BINARY_##ID][TL_DTYPE_##DT](data, st, n0, n1,   \
                                                        vctx);              \
            return;                                                         \
        }                                                                   \
        const tl_vm_binary_loop f = tl_vecmath_table(false)->binary         \
            [FN - TL_VM_NUNARY][tl_vecmath_slot(TL_DTYPE_##DT)];            \
        char *po = data[0], *pa = data[1], *pb = data[2];                   \
        for (int64_t j = 0; j < n1; j++) {                                  \
            f(pa, pb, po, n0);                                              \
            po += st[3];                                                    \
            pa += st[4];                                                    \
            pb += st[5];                                                    \
        }                                                                   \
    }
VM_BIN_LOOP(ATAN2, TL_VM_ATAN2, FLOAT32, float)
VM_BIN_LOOP(ATAN2, TL_VM_ATAN2, FLOAT64, double)
#undef VM_BIN_LOOP

/* pow: as atan2, and a contiguous row raised to one exponent (a stride of
 * 0: a Python number or a 0-d tensor, t ** 2.5) runs the pow_scalar loop,
 * which tests the exponent's special cases once instead of per element. */
#define VM_POW_LOOP(DT, T)                                                  \
    static void vm_POW_##DT(char **data, const int64_t *st, int64_t n0,     \
                            int64_t n1, void *vctx)                         \
    {                                                                       \
        const int64_t w = (int64_t)sizeof(T);                               \
        const tl_vm_table *vt = tl_vecmath_table(false);                    \
        const int slot = tl_vecmath_slot(TL_DTYPE_##DT);                    \
        char *po = data[0], *pa = data[1], *pb = data[2];                   \
        if (st[0] == w && st[1] == w && (st[2] == w || st[2] == 0)) {       \
            for (int64_t j = 0; j < n1; j++) {                              \
                if (st[2] == 0) {                                           \
                    vt->pow_scalar[slot](pa, (double)*(const T *)pb, po,    \
                                         n0);                               \
                } else {                                                    \
                    vt->binary[TL_VM_POW - TL_VM_NUNARY][slot](pa, pb, po,  \
                                                               n0);         \
                }                                                           \
                po += st[3];                                                \
                pa += st[4];                                                \
                pb += st[5];                                                \
            }                                                               \
            return;                                                         \
        }                                                                   \
        binary_table[TL_BINARY_POW][TL_DTYPE_##DT](data, st, n0, n1, vctx); \
    }
VM_POW_LOOP(FLOAT32, float)
VM_POW_LOOP(FLOAT64, double)
#undef VM_POW_LOOP

/* Note [float32 divmod in vectors]
 * fmod, remainder and floor_divide of float32 rows: Note [float32 fmod
 * through double] (scalar_math.h) forms fmod exactly in double when the
 * quotient is below 2^24 and both operands are finite, b nonzero.  The
 * scalar function still branches per element (to fmodf otherwise, and on
 * the operands' signs, which random data mispredicts: remainder of 2^16
 * floats took 500 us where fmod took 130).  These loops run the fast
 * formula over chunks of CHUNK elements with selects only, which the
 * compiler vectorises (the AVX2 clone rounds with vroundpd), into a stack
 * buffer; elements outside the fast case are then recomputed with the
 * scalar function, and the chunk is copied out (the output may be an
 * input exactly).  Fast elements get the scalar function's bits: the same
 * float operations in the same order.  2^16 elements, one thread, Zen 4:
 * fmod 1192 -> 62 us, remainder 1509 -> 70, floor_divide 1574 -> 99
 * (PyTorch 80, 88, 131; NumPy 1190, 1010, 1190).  float64 keeps the
 * scalar path: its exact product t * B would need an FMA. */
#define DM_CHUNK 256

static inline int dm_fast_ok(float a, float b)
{
    const double A = fabs((double)a), B = fabs((double)b);
    return A / B < 0x1p24 && B < INFINITY;
}

static inline float dm_fmod(float a, float b)
{
    const double A = fabs((double)a), B = fabs((double)b);
    return copysignf((float)(A - trunc(A / B) * B), a);
}

static inline float dm_remainder(float a, float b)
{
    const float m = dm_fmod(a, b);
    const float moved = (b < 0) != (m < 0) ? m + b : m;
    return m != 0 ? moved : copysignf(0.0f, b);
}

static inline float dm_floor_divide(float a, float b)
{
    const float m = dm_fmod(a, b);
    const float div = (a - m) / b -
                      (m != 0 && ((b < 0) != (m < 0)) ? 1.0f : 0.0f);
    const float fl = floorf(div);
    const float snapped = div - fl > 0.5f ? fl + 1.0f : fl;
    return div != 0 ? snapped : copysignf(0.0f, a / b);
}

#define DM_LOOP(OP, FAST, EXACT)                                            \
    TL_MULTIVERSION                                                         \
    static void dm_##OP##_f32(char **data, const int64_t *st, int64_t n0,   \
                              int64_t n1, void *vctx)                       \
    {                                                                       \
        const int64_t w = (int64_t)sizeof(float);                           \
        if (st[0] != w || st[1] != w || (st[2] != w && st[2] != 0)) {       \
            binary_table[TL_BINARY_##OP][TL_DTYPE_FLOAT32](data, st, n0,    \
                                                           n1, vctx);       \
            return;                                                         \
        }                                                                   \
        char *po = data[0], *pa = data[1], *pb = data[2];                   \
        float tmp[DM_CHUNK];                                                \
        for (int64_t j = 0; j < n1;                                         \
             j++, po += st[3], pa += st[4], pb += st[5]) {                  \
            for (int64_t i0 = 0; i0 < n0; i0 += DM_CHUNK) {                 \
                const int m = (int)(n0 - i0 < DM_CHUNK ? n0 - i0            \
                                                       : DM_CHUNK);         \
                const float *a = (const float *)pa + i0;                    \
                const float *b = (const float *)pb + (st[2] ? i0 : 0);      \
                const int64_t sb = st[2] ? 1 : 0;                           \
                int slow = 0;                                               \
                if (sb) {                                                   \
                    for (int k = 0; k < m; k++) {                           \
                        slow |= !dm_fast_ok(a[k], b[k]);                    \
                        tmp[k] = FAST(a[k], b[k]);                          \
                    }                                                       \
                } else {                                                    \
                    const float bv = b[0];                                  \
                    for (int k = 0; k < m; k++) {                           \
                        slow |= !dm_fast_ok(a[k], bv);                      \
                        tmp[k] = FAST(a[k], bv);                            \
                    }                                                       \
                }                                                           \
                for (int k = 0; slow && k < m; k++) {                       \
                    if (!dm_fast_ok(a[k], b[k * sb])) {                     \
                        tmp[k] = EXACT(a[k], b[k * sb]);                    \
                    }                                                       \
                }                                                           \
                memcpy((float *)po + i0, tmp, (size_t)m * sizeof(float));   \
            }                                                               \
        }                                                                   \
    }
DM_LOOP(FMOD, dm_fmod, tl_sm_fmod_f32)
DM_LOOP(REMAINDER, dm_remainder, tl_sm_remainder_f32)
DM_LOOP(FLOOR_DIVIDE, dm_floor_divide, tl_sm_floor_divide_f32)
#undef DM_LOOP

/* Note [logaddexp in vectors]
 * logaddexp(a, b) = max(a, b) + log1p(exp(-|a - b|)) for finite, unequal
 * operands: contiguous rows run the difference, vecmath.h's exp and log1p
 * loops and the sum over chunks of LAE_CHUNK elements; elements with an
 * infinite or NaN operand or a == b are recomputed with the scalar
 * function (scalar_math.h: a + ln 2 for equal operands, NaN and infinity
 * rules).  Both paths are within the measured bound of docs/accuracy.md
 * (an ulp of max(a, b)); they may differ in the last bit, as the vector
 * and libm exp do.  2^16 elements, one thread, Zen 4: float32 867 ->
 * ~100 us, float64 912 -> ~380 us (PyTorch 112 and 270). */
#define LAE_CHUNK 256
#define LAE_LOOP(DT, T, SFX, N)                                             \
    static void lae_##N(char **data, const int64_t *st, int64_t n0,         \
                        int64_t n1, void *vctx)                             \
    {                                                                       \
        const int64_t w = (int64_t)sizeof(T);                               \
        if (st[0] != w || st[1] != w || st[2] != w) {                       \
            binary_table[TL_BINARY_LOGADDEXP][TL_DTYPE_##DT](data, st, n0,  \
                                                             n1, vctx);     \
            return;                                                         \
        }                                                                   \
        const tl_vm_table *vt = tl_vecmath_table(false);                    \
        const int slot = tl_vecmath_slot(TL_DTYPE_##DT);                    \
        char *po = data[0], *pa = data[1], *pb = data[2];                   \
        T m[LAE_CHUNK], d[LAE_CHUNK];                                       \
        for (int64_t j = 0; j < n1;                                         \
             j++, po += st[3], pa += st[4], pb += st[5]) {                  \
            for (int64_t i0 = 0; i0 < n0; i0 += LAE_CHUNK) {                \
                const int c = (int)(n0 - i0 < LAE_CHUNK ? n0 - i0           \
                                                        : LAE_CHUNK);       \
                const T *a = (const T *)pa + i0, *b = (const T *)pb + i0;   \
                int slow = 0;                                               \
                for (int k = 0; k < c; k++) {                               \
                    slow |= !(a[k] != b[k] && fabs##SFX(a[k]) < INFINITY && \
                              fabs##SFX(b[k]) < INFINITY);                  \
                    m[k] = a[k] > b[k] ? a[k] : b[k];                       \
                    d[k] = -fabs##SFX(a[k] - b[k]);                         \
                }                                                           \
                vt->unary[TL_VM_EXP][slot](d, d, c);                        \
                vt->unary[TL_VM_LOG1P][slot](d, d, c);                      \
                for (int k = 0; k < c; k++) {                               \
                    m[k] += d[k];                                           \
                }                                                           \
                for (int k = 0; slow && k < c; k++) {                       \
                    if (!(a[k] != b[k] && fabs##SFX(a[k]) < INFINITY &&     \
                          fabs##SFX(b[k]) < INFINITY)) {                    \
                        m[k] = tl_sm_logaddexp_##N(a[k], b[k]);             \
                    }                                                       \
                }                                                           \
                memcpy((T *)po + i0, m, (size_t)c * sizeof(T));             \
            }                                                               \
        }                                                                   \
    }
LAE_LOOP(FLOAT32, float, f, f32)
LAE_LOOP(FLOAT64, double, , f64)
#undef LAE_LOOP

/* nextafter steps float16/bfloat16 in the dtype itself (the row's
 * TL_OPF_HALF_IN_DTYPE: ops.c hands these loops the 16-bit operands). */
BIN_LOOP(nextafter_loop_f16, uint16_t, uint16_t, NO_SETUP,
         tl_sm_nextafter_f16)
BIN_LOOP(nextafter_loop_bf16, uint16_t, uint16_t, NO_SETUP,
         tl_sm_nextafter_bf16)

/* Loops that replace a table loop, or add a dtype to it; NULL: the
 * table's. */
static const tl_iter_loop2d binary_fast[TL_BINARY_OP_COUNT]
                                       [TL_DTYPE_COUNT] = {
    [TL_BINARY_ATAN2] = {[TL_DTYPE_FLOAT32] = vm_ATAN2_FLOAT32,
                         [TL_DTYPE_FLOAT64] = vm_ATAN2_FLOAT64},
    [TL_BINARY_POW] = {[TL_DTYPE_FLOAT32] = vm_POW_FLOAT32,
                       [TL_DTYPE_FLOAT64] = vm_POW_FLOAT64},
    [TL_BINARY_NEXTAFTER] = {[TL_DTYPE_FLOAT16] = nextafter_loop_f16,
                             [TL_DTYPE_BFLOAT16] = nextafter_loop_bf16},
    [TL_BINARY_FMOD] = {[TL_DTYPE_FLOAT32] = dm_FMOD_f32},
    [TL_BINARY_LOGADDEXP] = {[TL_DTYPE_FLOAT32] = lae_f32,
                             [TL_DTYPE_FLOAT64] = lae_f64},
    [TL_BINARY_REMAINDER] = {[TL_DTYPE_FLOAT32] = dm_REMAINDER_f32},
    [TL_BINARY_FLOOR_DIVIDE] = {[TL_DTYPE_FLOAT32] = dm_FLOOR_DIVIDE_f32},
};

tl_iter_loop2d tl_binary_kernel_get(int op, int dt)
{
    if (op < 0 || op > TL_KERNEL_ADD_ALPHA || !tl_dtype_valid(dt)) {
        return NULL;
    }
    if (op < TL_BINARY_OP_COUNT && binary_fast[op][dt]) {
        return binary_fast[op][dt];
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
