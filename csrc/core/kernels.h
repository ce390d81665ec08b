/* csrc/core/kernels.h — internal: what the CPU kernel files share: the C
 * type of every dtype, element conversions (Note [Element conversions]),
 * the scalar numerics (scalar_math.h), and the kernel tables the op entry
 * points look up.  Not part of the public API. */
#ifndef TENSORLIB_CSRC_CORE_KERNELS_H
#define TENSORLIB_CSRC_CORE_KERNELS_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/kernels.h is internal to tensorlib"
#endif

#include <complex.h>
#include <math.h>
#include <string.h>

#include "dtype_impl.h"
#include "scalar_math.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"

/* TL_IVDEP: the loop carries no dependence through memory (an output may
 * equal an input exactly).  The kernel files' optimisation options are
 * kernel_optimize.h's, included before every other header. */
#if defined(__GNUC__) && !defined(__clang__)
#define TL_IVDEP _Pragma("GCC ivdep")
#else
#define TL_IVDEP
#endif

/* Hot loops are compiled twice, for the baseline ISA and for AVX2, and the
 * dynamic loader picks one per machine (GNU ifunc).  No FMA: with
 * -std=c11, gcc does not contract a * b + c anyway, so every machine
 * computes the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) &&      \
    defined(__linux__) && !defined(TL_NO_TARGET_CLONES)
#define TL_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define TL_MULTIVERSION
#endif

/* ---- C types per dtype --------------------------------------------------
 * Short names used to paste kernel names: b u8 i8 i16 u16 i32 u32 i64 u64
 * f16 bf16 f32 f64 c64 c128.  bool is stored as uint8_t (0 or 1) so that a
 * stray byte never makes a _Bool load undefined. */
#define T_b uint8_t
#define T_u8 uint8_t
#define T_i8 int8_t
#define T_i16 int16_t
#define T_u16 uint16_t
#define T_i32 int32_t
#define T_u32 uint32_t
#define T_i64 int64_t
#define T_u64 uint64_t
#define T_f16 uint16_t
#define T_bf16 uint16_t
#define T_f32 float
#define T_f64 double
#define T_c64 tl_c64
#define T_c128 tl_c128

/* Real component type of the complex ones (the type itself for the
 * others): the output of a TL_OPR_REAL op such as abs. */
#define RT_b uint8_t
#define RT_u8 uint8_t
#define RT_i8 int8_t
#define RT_i16 int16_t
#define RT_u16 uint16_t
#define RT_i32 int32_t
#define RT_u32 uint32_t
#define RT_i64 int64_t
#define RT_u64 uint64_t
#define RT_f32 float
#define RT_f64 double
#define RT_c64 float
#define RT_c128 double

/* Conversion class of each (see CV below). */
#define CL_b BOOL
#define CL_u8 INT
#define CL_i8 INT
#define CL_i16 INT
#define CL_u16 INT
#define CL_i32 INT
#define CL_u32 INT
#define CL_i64 INT
#define CL_u64 INT
#define CL_f16 HALF
#define CL_bf16 BF16
#define CL_f32 FLT
#define CL_f64 FLT
#define CL_c64 CPX
#define CL_c128 CPX

/* Every dtype: X(short name, TL_DTYPE_ suffix). */
#define TL_FOR_EACH_DTYPE(X)                                                \
    X(b, BOOL) X(u8, UINT8) X(i8, INT8) X(i16, INT16) X(u16, UINT16)        \
    X(i32, INT32) X(u32, UINT32) X(i64, INT64) X(u64, UINT64)               \
    X(f16, FLOAT16) X(bf16, BFLOAT16) X(f32, FLOAT32) X(f64, FLOAT64)       \
    X(c64, COMPLEX64) X(c128, COMPLEX128)

/* As above with a fixed first argument, for nested expansion. */
#define TL_FOR_EACH_DTYPE_WITH(X, S)                                        \
    X(S, b, BOOL) X(S, u8, UINT8) X(S, i8, INT8) X(S, i16, INT16)           \
    X(S, u16, UINT16) X(S, i32, INT32) X(S, u32, UINT32) X(S, i64, INT64)   \
    X(S, u64, UINT64) X(S, f16, FLOAT16) X(S, bf16, BFLOAT16)               \
    X(S, f32, FLOAT32) X(S, f64, FLOAT64) X(S, c64, COMPLEX64)              \
    X(S, c128, COMPLEX128)

/* Compute dtypes by class, X(short name, C type). */
#define FOR_INTS(X)                                                         \
    X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t) X(u16, uint16_t)           \
    X(i32, int32_t) X(u32, uint32_t) X(i64, int64_t) X(u64, uint64_t)
#define FOR_FLOATS(X) X(f32, float) X(f64, double)
#define FOR_COMPLEX(X) X(c64, tl_c64) X(c128, tl_c128)

/* Table rows: [TL_DTYPE_x] = op##_loop_##N for a class of dtypes. */
#define ROW_INT(op, N, DN) [TL_DTYPE_##DN] = op##_loop_##N,
#define ROW_ALL_INTS(op)                                                    \
    ROW_INT(op, u8, UINT8) ROW_INT(op, i8, INT8) ROW_INT(op, i16, INT16)    \
    ROW_INT(op, u16, UINT16) ROW_INT(op, i32, INT32)                        \
    ROW_INT(op, u32, UINT32) ROW_INT(op, i64, INT64)                        \
    ROW_INT(op, u64, UINT64)
#define ROW_FLOATS(op)                                                      \
    ROW_INT(op, f32, FLOAT32) ROW_INT(op, f64, FLOAT64)
#define ROW_COMPLEX(op)                                                     \
    ROW_INT(op, c64, COMPLEX64) ROW_INT(op, c128, COMPLEX128)
#define ROW_BOOL(op) ROW_INT(op, b, BOOL)

/* ---- kernels from the op table (tensorlib/op_table.h) --------------------
 * For a row X(ID, name, py, set, res, impl, ...): one loop per compute
 * dtype of its set, named name_loop_<N>, computing the element function
 * TL_OP_ELEM(impl, name, N) (name_<N>, or scalar_math.h's tl_sm_name_<N>)
 * with output type TL_OP_OUT(res, N); and the table row
 * [TL_<KIND>_<ID>] = {the loops}.  LOOP(NAME, T, OT, F) is the kernel
 * file's loop shape. */
#define TL_OP_ELEM_LOCAL(name, N) name##_##N
#define TL_OP_ELEM_SM(name, N) tl_sm_##name##_##N
#define TL_OP_ELEM(impl, name, N) TL_OP_ELEM_##impl(name, N)
#define TL_OP_OUT_SAME(N) T_##N
#define TL_OP_OUT_FLOAT(N) T_##N
#define TL_OP_OUT_BOOL(N) uint8_t
#define TL_OP_OUT_LOGICAL(N) uint8_t
#define TL_OP_OUT_REAL(N) RT_##N
#define TL_OP_OUT_DOUBLE(N) T_##N
#define TL_OP_OUT(res, N) TL_OP_OUT_##res(N)

#define TL_OP_LOOP1_(LOOP, name, N, res, impl)                              \
    LOOP(name##_loop_##N, T_##N, TL_OP_OUT(res, N), TL_OP_ELEM(impl, name, N))
#define TL_OP_LOOPS_B(LOOP, name, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, b, res, impl)
#define TL_OP_LOOPS_Z(LOOP, name, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, u8, res, impl)                                 \
    TL_OP_LOOP1_(LOOP, name, i8, res, impl)                                 \
    TL_OP_LOOP1_(LOOP, name, i16, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, u16, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, i32, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, u32, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, i64, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, u64, res, impl)
#define TL_OP_LOOPS_F(LOOP, name, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, f32, res, impl)                                \
    TL_OP_LOOP1_(LOOP, name, f64, res, impl)
/* Complex: scalar_math.h takes and returns tl_sm_c64/c128 structs, the
 * CPU loops hold C99 _Complex values; an SM row's complex element
 * functions are wrappers name_smc_<N> that convert, which the kernel file
 * writes with its TL_OP_SM_COMPLEX(name, N, T) (one argument in
 * kernels_unary.c, two in kernels_binary.c). */
#define TL_OP_ELEMC_LOCAL(name, N) name##_##N
#define TL_OP_ELEMC_SM(name, N) name##_smc_##N
#define TL_OP_CWRAP_LOCAL(name, res)
#define TL_OP_CWRAP_SM(name, res)                                           \
    TL_OP_SM_COMPLEX(name, c64, tl_c64, res)                                \
    TL_OP_SM_COMPLEX(name, c128, tl_c128, res)
/* The wrapper's return: a complex struct back to _Complex, or a bool
 * result (isreal) as it is.  TL_OP_SM_COMPLEX(name, N, T, res) returns
 * TL_OP_OUT(res, N) computed as TL_OP_SMC_RET(res, N, value). */
#define TL_OP_SMC_RET_SAME(N, v) tl_k_from_sm_##N(v)
#define TL_OP_SMC_RET_FLOAT(N, v) tl_k_from_sm_##N(v)
#define TL_OP_SMC_RET_REAL(N, v) (v)
#define TL_OP_SMC_RET_DOUBLE(N, v) tl_k_from_sm_##N(v)
#define TL_OP_SMC_RET_BOOL(N, v) (v)
#define TL_OP_SMC_RET_LOGICAL(N, v) (v)
#define TL_OP_SMC_RET(res, N, v) TL_OP_SMC_RET_##res(N, v)
#define TL_OP_LOOPC1_(LOOP, name, N, res, impl)                             \
    LOOP(name##_loop_##N, T_##N, TL_OP_OUT(res, N),                         \
         TL_OP_ELEMC_##impl(name, N))
#define TL_OP_LOOPS_C(LOOP, name, res, impl)                                \
    TL_OP_CWRAP_##impl(name, res)                                           \
    TL_OP_LOOPC1_(LOOP, name, c64, res, impl)                               \
    TL_OP_LOOPC1_(LOOP, name, c128, res, impl)
#define TL_OP_LOOPS_CLASS_(args, cls) TL_OP_LOOPS_##cls args
/* All loops of one row. */
#define TL_OP_LOOPS(LOOP, name, set, res, impl)                             \
    TL_OPSET_##set(TL_OP_LOOPS_CLASS_, (LOOP, name, res, impl))

#define TL_OP_ROWS_B(op) ROW_BOOL(op)
#define TL_OP_ROWS_Z(op) ROW_ALL_INTS(op)
#define TL_OP_ROWS_F(op) ROW_FLOATS(op)
#define TL_OP_ROWS_C(op) ROW_COMPLEX(op)
#define TL_OP_ROWS_CLASS_(op, cls) TL_OP_ROWS_##cls(op)
/* The designated initialisers of one row: [TL_DTYPE_x] = name_loop_x, ... */
#define TL_OP_ROWS(name, set) TL_OPSET_##set(TL_OP_ROWS_CLASS_, name)

/* ---- float16 / bfloat16 --------------------------------------------------
 * The conversions live once, in scalar_math.h (shared with the CUDA
 * kernels); the short names below are what the kernel files spell. */
#define tl_k_half_to_float tl_sm_half_to_float
#define tl_k_half_from_float tl_sm_half_from_float
#define tl_k_bf16_to_float tl_sm_bf16_to_float
#define tl_k_bf16_from_float tl_sm_bf16_from_float

/* _Complex values to and from scalar_math.h's structs. */
static inline tl_sm_c64 tl_k_to_sm_c64(tl_c64 a)
{
    return tl_sm_cmake_c64(crealf(a), cimagf(a));
}
static inline tl_sm_c128 tl_k_to_sm_c128(tl_c128 a)
{
    return tl_sm_cmake_c128(creal(a), cimag(a));
}
static inline tl_c64 tl_k_from_sm_c64(tl_sm_c64 a)
{
    return CMPLXF(a.re, a.im);
}
static inline tl_c128 tl_k_from_sm_c128(tl_sm_c128 a)
{
    return CMPLX(a.re, a.im);
}

/* ---- kernel tables ------------------------------------------------------ */

/* Converts n elements: dst[i * ds] = convert(src[i * ss]).  Byte strides;
 * loads and stores go through memcpy, so any alignment is fine.  dst and
 * src never partly overlap. */
typedef void (*tl_cvt_fn)(char *dst, int64_t ds, const char *src,
                          int64_t ss, int64_t n);

/* Returns: the converter from src to dst (never NULL for valid dtypes). */
tl_cvt_fn tl_cvt_get(int src, int dst);

/* Returns: the 2-D copy loop converting data[1] (src) into data[0] (dst):
 * contiguous rows, and cache-blocked tiles when one operand is transposed
 * against the other.  Alignment-agnostic. */
tl_iter_loop2d tl_copy_loop_get(int src, int dst);

/* Fills data[0] with the element in ctx (a tl_fill_ctx). */
typedef struct tl_fill_ctx {
    int64_t itemsize;
    _Alignas(16) unsigned char value[16];
} tl_fill_ctx;
void tl_fill_loop(char **data, const int64_t *strides, int64_t size0,
                  int64_t size1, void *ctx);

/* Converts a scalar to dt's element bytes (as a cast: saturating, real
 * part of complex).  out needs 16 bytes. */
void tl_scalar_cast(const tl_scalar *s, int dt, void *out);

/* A context for kernels that take a scalar (add/sub's alpha): the value in
 * the kernel's compute dtype. */
typedef struct tl_kernel_ctx {
    _Alignas(16) unsigned char alpha[16];
} tl_kernel_ctx;

/* The 2-D loop of binary op at compute dtype dt (data: out, a, b), or
 * NULL when the pair is not supported.  add/sub with alpha: op
 * TL_KERNEL_ADD_ALPHA (ctx is a tl_kernel_ctx). */
#define TL_KERNEL_ADD_ALPHA TL_BINARY_OP_COUNT
tl_iter_loop2d tl_binary_kernel_get(int op, int dt);

/* The 2-D loop of unary op on dt (data: out, a), or NULL. */
tl_iter_loop2d tl_unary_kernel_get(int op, int dt);

/* Ternary kernels: where selects by itemsize (data: out, cond, a, b);
 * clamp by dtype (data: out, a, lo, hi).  NULL when unsupported. */
tl_iter_loop2d tl_where_kernel_get(int itemsize);
tl_iter_loop2d tl_clamp_kernel_get(int dt);

/* The zero scan (data: one input at dt, integral): ctx is an int flag
 * set to 1 when an element is 0. */
tl_iter_loop2d tl_scan_zero_kernel_get(int dt);


#endif /* TENSORLIB_CSRC_CORE_KERNELS_H */
