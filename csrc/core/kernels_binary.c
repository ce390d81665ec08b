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
