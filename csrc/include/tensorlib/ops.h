/* tensorlib/ops.h — type promotion and the CPU elementwise operators:
 * binary and unary ops, where, clamp, copy_, fill_, dtype conversion,
 * contiguous and clone.
 *
 * Conventions for every entry point:
 * - Inputs are borrowed.  `out` is borrowed; NULL asks for a new tensor.
 *   Functions returning a tensor return a new reference (to `out`, increfed,
 *   when one was given), or NULL after recording an error.
 * - Everything is validated before anything is allocated or written: a
 *   failed call leaves every operand as it was (integer division by zero
 *   and negative integer powers are found by scanning the divisor or
 *   exponent first).
 * - Every successful write into an existing tensor bumps its version.
 * - In-place is out == a.  An input that partly overlaps out is copied
 *   first (x += x.flip(0) is right); an output that overlaps itself (a
 *   stride-0 expanded dim of size > 1) is TL_ERR_SHAPE.
 * - out= semantics: out must have the broadcast shape, or have no elements
 *   and own its storage (base NULL, storage offset 0), in which case it is
 *   resized; its dtype may differ from the result dtype when
 *   tl_can_cast(result, out dtype) (else TL_ERR_TYPE naming
 *   can_cast(result, out dtype)); the result is cast on
 *   write.  A read-only out is TL_ERR_READONLY; operands on different
 *   devices are TL_ERR_RUNTIME; non-CPU tensors run through the device
 *   kernel table (tensorlib/device_table.h; TL_ERR_RUNTIME "tensorlib was
 *   built without CUDA" when it has no row for their device).
 *
 * Numeric semantics (see DESIGN.md "Numeric semantics"):
 * - dtypes and which inputs are errors follow PyTorch; values follow NumPy
 *   computed in the result dtype.  float16/bfloat16 compute in float32 and
 *   round once on write.
 * - Integer arithmetic wraps.  INT_MIN // -1 == INT_MIN, INT_MIN % -1 == 0.
 *   Integer floor_divide / remainder by zero: TL_ERR_ZERO_DIVISION.
 * - Float to integer casts: NaN -> 0, out of range saturates.
 * - Complex to real casts (copy_, to_dtype, out=) keep the real part, as
 *   NumPy does (NumPy warns with ComplexWarning; tensorlib does not).
 * - float32 exp, log, log2, log10 (and sigmoid's exp) are computed in
 *   double by vectorised code and rounded once: within 1 ulp of the
 *   correctly rounded result (glibc's expf/logf agree to 1 ulp on every
 *   input).  float64 and complex use libm.
 * - Loops run on up to tl_get_num_threads() threads, each share at least
 *   the op's grain (tl_op_unary_grain: measured per op and dtype kind);
 *   elementwise results do not depend on the thread count.
 */
#ifndef TENSORLIB_OPS_H
#define TENSORLIB_OPS_H

#include "tensorlib/base.h"
#include "tensorlib/dtype.h"
#include "tensorlib/op_table.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* ---- type promotion --------------------------------------------------- */

/* The dtype default floating results take (PyTorch's default dtype). */
#define TL_DEFAULT_FLOAT TL_DTYPE_FLOAT32
#define TL_DEFAULT_COMPLEX TL_DTYPE_COMPLEX64

/* PyTorch's promote_types over the 15 dtypes: bool < integers < floats <
 * complex; uint8 + int8 = int16; float16 + bfloat16 = float32; a float and
 * a complex give the complex of at least the float's precision (float64 +
 * complex64 = complex128).  Where PyTorch refuses (uint16/32/64 with
 * non-float types) NumPy's answer is used: uint16 + int8 = int32,
 * uint32 + int16 = int64, uint64 + any signed int = float64, uint16 +
 * complex64 = complex64, uint32/uint64 + complex64 = complex128. */
TL_API tl_dtype tl_promote_types(tl_dtype a, tl_dtype b);

/* PyTorch's result_type over n operands with its category rules:
 * dimensioned tensors > 0-dim tensors > wrapped numbers
 * (TL_FLAG_WRAPPED_NUMBER, Python scalars).  A lower-priority group
 * matters only when its category (bool < integer < float < complex) is
 * higher: a wrapped float then gives float32, a wrapped complex complex64
 * (complex128 when the higher group is float64), a 0-dim tensor its own
 * dtype; bool tensor + wrapped int gives int64.  n must be >= 1. */
TL_API tl_dtype tl_result_type(int n, tl_tensor_impl *const *operands);

/* torch.can_cast: false for complex -> non-complex, float -> integer (or
 * bool) and non-bool -> bool; true otherwise. */
TL_API bool tl_can_cast(tl_dtype from, tl_dtype to);

/* ---- scalars ---------------------------------------------------------- */

/* A Python-like scalar.  kind is a tl_dtype_kind: BOOL and INT use v.i
 * (0/1 for bool), UINT v.u, FLOAT v.f, COMPLEX v.c (real, imag). */
typedef struct tl_scalar {
    int kind;
    union {
        int64_t i;
        uint64_t u;
        double f;
        double c[2];
    } v;
} tl_scalar;

static inline tl_scalar tl_scalar_int(int64_t i)
{
    tl_scalar s;
    s.kind = TL_KIND_INT;
    s.v.i = i;
    return s;
}
static inline tl_scalar tl_scalar_float(double f)
{
    tl_scalar s;
    s.kind = TL_KIND_FLOAT;
    s.v.f = f;
    return s;
}
static inline tl_scalar tl_scalar_bool(bool b)
{
    tl_scalar s;
    s.kind = TL_KIND_BOOL;
    s.v.i = b ? 1 : 0;
    return s;
}
static inline tl_scalar tl_scalar_complex(double re, double im)
{
    tl_scalar s;
    s.kind = TL_KIND_COMPLEX;
    s.v.c[0] = re;
    s.v.c[1] = im;
    return s;
}

/* A 0-dim tensor holding s as int64 (bool kind: bool, uint kind: uint64
 * when above INT64_MAX), float64 or complex128, flagged
 * TL_FLAG_WRAPPED_NUMBER, so that promotion treats it as a Python scalar.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_scalar_to_tensor(const tl_scalar *s);

/* Reads element 0 of a one-element tensor t as a scalar of t's kind
 * (float16/bfloat16/float32 widen to float64; complex64 to complex128).
 * Errors: TL_ERR_VALUE when t has not exactly one element. */
TL_API int tl_tensor_item(const tl_tensor_impl *t, tl_scalar *out);

/* ---- binary ops ------------------------------------------------------- */

/* The binary ops, one per row of TL_BINARY_OPS (tensorlib/op_table.h,
 * whose columns give each op's dtypes, result rule and refusals):
 * TL_BINARY_ADD, SUB, MUL, DIV, FLOOR_DIVIDE, REMAINDER, POW, MAXIMUM,
 * MINIMUM, EQ, NE, LT, LE, GT, GE, LOGICAL_AND/OR/XOR, BITWISE_AND/OR/XOR,
 * LSHIFT, RSHIFT.  Result dtype R = tl_result_type(a, b) unless the row's
 * rule says otherwise.  Integer floor_divide / remainder by 0:
 * TL_ERR_ZERO_DIVISION.  pow: an integer result with a negative Python
 * scalar exponent is TL_ERR_VALUE.  Shifts by a count < 0 or >= the bit
 * width give 0, or -1 for a right shift of a negative. */
typedef enum tl_binary_op {
#define TL_X_(ID, name, py, set, res, impl, form, flags, hint, doc)         \
    TL_BINARY_##ID,
    TL_BINARY_OPS(TL_X_)
#undef TL_X_
    TL_BINARY_OP_COUNT
} tl_binary_op;

/* a <op> b, broadcast.  alpha (add/sub only; NULL = 1): an integral or
 * bool result refuses a float alpha, a non-complex result a complex one,
 * a non-bool result a bool one (TL_ERR_TYPE, as PyTorch).
 * Returns: new reference (out when given), or NULL. */
TL_API tl_tensor_impl *tl_op_binary(int op, tl_tensor_impl *out,
                                    tl_tensor_impl *a, tl_tensor_impl *b,
                                    const tl_scalar *alpha);

/* div's rounding_mode (PyTorch's): none (true division), trunc (toward
 * zero), floor (floor_divide). */
typedef enum tl_div_rounding {
    TL_DIV_TRUE = 0,
    TL_DIV_TRUNC = 1,
    TL_DIV_FLOOR = 2
} tl_div_rounding;

/* a / b rounded as mode says (Note [Division with rounding] in ops.c).
 * TRUE: tl_op_binary(TL_BINARY_DIV).  FLOOR: TL_BINARY_FLOOR_DIVIDE.
 * TRUNC: the promoted dtype (integers stay integers); integer division
 * by zero is TL_ERR_ZERO_DIVISION, bool and complex are TL_ERR_TYPE.
 * Returns: new reference (out when given), or NULL. */
TL_API tl_tensor_impl *tl_op_div_rounding(tl_tensor_impl *out,
                                          tl_tensor_impl *a,
                                          tl_tensor_impl *b, int mode);

/* The result dtype tl_op_binary would give (without out), or an error
 * (TL_ERR_TYPE for an unsupported dtype, TL_ERR_VALUE for a bad op). */
TL_API int tl_op_binary_result_type(int op, tl_tensor_impl *a,
                                    tl_tensor_impl *b, tl_dtype *out);

/* "add", "sub", ..., "logical_and", "bitwise_and", "lshift" (also
 * "subtract", "multiply", "true_divide", "bitwise_left_shift", ...).
 * Returns the tl_binary_op, or -1 (no error recorded). */
TL_API int tl_op_binary_from_name(const char *name);
/* Returns: static name of op ("add"), or NULL for a bad op. */
TL_API const char *tl_op_binary_name(int op);

/* ---- unary ops -------------------------------------------------------- */

/* The unary ops, one per row of TL_UNARY_OPS (tensorlib/op_table.h):
 * TL_UNARY_NEG, ABS, SIGN, SGN, SQRT, RSQRT, EXP, EXPM1, LOG, LOG1P, LOG2,
 * LOG10, SIN, COS, TAN, TANH, SIGMOID, RELU, FLOOR, CEIL, ROUND, TRUNC,
 * RECIPROCAL, SQUARE, LOGICAL_NOT, BITWISE_NOT, ISNAN, ISINF, ISFINITE,
 * and the rows added since (the table is the list). */
typedef enum tl_unary_op {
#define TL_X_(ID, name, py, set, res, impl, form, flags, hint, doc)         \
    TL_UNARY_##ID,
    TL_UNARY_OPS(TL_X_)
#undef TL_X_
    TL_UNARY_OP_COUNT
} tl_unary_op;

/* One op's row in plain values (tl_op_unary_info / tl_op_binary_info). */
typedef struct tl_op_info {
    const char *name;  /* core name */
    const char *py;    /* Python function / method name */
    unsigned set;      /* TL_OPCL_ bits: compute dtypes with kernels */
    int res;           /* TL_OPR_ result rule */
    unsigned flags;    /* TL_OPF_ bits (the form's included) */
    const char *hint;  /* appended to refusals ("" for none) */
    const char *doc;   /* docstring's first line */
} tl_op_info;

/* Returns: borrowed static row of op, or NULL for a bad op. */
TL_API const tl_op_info *tl_op_unary_info(int op);
TL_API const tl_op_info *tl_op_binary_info(int op);

/* Whether the CPU kernel table has a loop for op at compute dtype dt
 * (has_kernel), and whether a row's set (TL_OPCL_ bits) contains dt
 * (set_has_dtype; float16/bfloat16 count as F).  tests/test_ops_table.py
 * requires the two to agree for every (op, dtype); the CUDA dispatch is
 * expanded from the same set.  Returns 1 or 0. */
TL_API int tl_op_unary_has_kernel(int op, tl_dtype dt);
TL_API int tl_op_binary_has_kernel(int op, tl_dtype dt);
TL_API int tl_op_set_has_dtype(unsigned set, tl_dtype dt);

/* The threading grain of op computing in dt: the element count of one
 * thread's share below which its loop stays on one thread (Note
 * [Grain per op] in ops.c; benchmarks/grain.py measures them).  Returns
 * it, or 0 for a bad op or a dtype without a measured class (the loop
 * then takes TL_ITER_GRAIN). */
TL_API int64_t tl_op_unary_grain(int op, tl_dtype dt);
TL_API int64_t tl_op_binary_grain(int op, tl_dtype dt);

/* op(a).  Returns: new reference (out when given), or NULL. */
TL_API tl_tensor_impl *tl_op_unary(int op, tl_tensor_impl *out,
                                   tl_tensor_impl *a);
/* round(a, decimals): half to even at 10^-decimals (Note [Rounding to
 * decimals] in ops.c; decimals 0 is TL_UNARY_ROUND).  Floats only for
 * decimals < 0 (integers: TL_ERR_TYPE); bool and complex: TL_ERR_TYPE.
 * Returns: new reference (out when given), or NULL. */
TL_API tl_tensor_impl *tl_op_round_decimals(tl_tensor_impl *out,
                                            tl_tensor_impl *a,
                                            int64_t decimals);
/* The result dtype tl_op_unary would give, or an error. */
TL_API int tl_op_unary_result_type(int op, tl_dtype a, tl_dtype *out);
/* Returns the tl_unary_op named ("neg", "negative", "abs", ...), or -1. */
TL_API int tl_op_unary_from_name(const char *name);
/* Returns: static name of op, or NULL. */
TL_API const char *tl_op_unary_name(int op);

/* ---- where, clamp ----------------------------------------------------- */

/* cond ? a : b, broadcast over all three.  cond must be bool (TL_ERR_TYPE
 * "where expected condition to be a boolean tensor, but got a tensor with
 * dtype Float"); the result dtype is tl_result_type(a, b).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_where(tl_tensor_impl *out, tl_tensor_impl *cond,
                                   tl_tensor_impl *a, tl_tensor_impl *b);

/* min(max(a, lo), hi), broadcast; lo or hi may be NULL, not both
 * (TL_ERR_VALUE "torch.clamp: At least one of 'min' or 'max' must not be
 * None").  Result dtype: tl_result_type(a, lo, hi).  NaN in a, lo or hi
 * gives NaN; lo > hi gives hi.  Complex: TL_ERR_TYPE.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_clamp(tl_tensor_impl *out, tl_tensor_impl *a,
                                   tl_tensor_impl *lo, tl_tensor_impl *hi);

/* ---- copies and conversions ------------------------------------------- */

/* dst[...] = src broadcast to dst's shape, converting between any two
 * dtypes (complex -> real keeps the real part; float -> integer
 * saturates, NaN -> 0; to float16/bfloat16 rounds once, to nearest even),
 * any layouts (transposed copies are cache-blocked), overlap handled.
 * Errors: TL_ERR_SHAPE (src not broadcastable to dst, dst overlapping
 * itself), TL_ERR_READONLY.  Bumps dst's version.  Returns 0 or an error. */
TL_API int tl_op_copy_(tl_tensor_impl *dst, tl_tensor_impl *src);

/* tl_op_copy_ into a tensor the caller has just made (no overlap, writable,
 * src broadcastable to it): the checks are skipped and the version is not
 * bumped, so a new tensor starts at _version 0.  Returns 0 or an error. */
TL_API int tl_copy_unchecked(tl_tensor_impl *dst, tl_tensor_impl *src);

/* An uninitialised tensor of a's sizes in dtype dt on dev, of memory kind
 * kind, in format fmt.  TL_FORMAT_PRESERVE follows PyTorch's empty_like:
 * a's strides when a is non-overlapping and dense (made non-negative),
 * else dense strides in a's stride order (infer_dense_strides).
 * Returns: new reference, or NULL with the error set. */
TL_API tl_tensor_impl *tl_op_empty_like(tl_tensor_impl *a, tl_dtype dt,
                                        tl_device dev, tl_memkind kind,
                                        tl_memory_format fmt);

/* Whether s may fill a tensor of dtype dt: the checks of tl_op_fill_ (and
 * of full()), as PyTorch's checked conversion.  Returns 0 or the error
 * tl_op_fill_ would give. */
TL_API int tl_scalar_check_fill(const tl_scalar *s, tl_dtype dt);

/* Every element of dst = s converted to dst's dtype.  Errors (as PyTorch):
 * TL_ERR_OVERFLOW when s does not fit an integer dtype (or is NaN/inf), or
 * is finite and overflows float16/bfloat16/float32; TL_ERR_TYPE for a
 * complex s with a nonzero imaginary part into a real dtype;
 * TL_ERR_READONLY; TL_ERR_SHAPE for a self-overlapping dst (as copy_;
 * a stride-0 dst of one value is allowed by fill_ in PyTorch, and here).
 * Bumps dst's version.  Returns 0 or an error. */
TL_API int tl_op_fill_(tl_tensor_impl *dst, const tl_scalar *s);

/* a converted to dt.  When a already has dt and !copy: returns a
 * (increfed).  Otherwise a new tensor keeping a's layout when a is
 * non-overlapping and dense (else the layout order of a's strides).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_to_dtype(tl_tensor_impl *a, tl_dtype dt,
                                      bool copy);

/* a in the given memory format (CONTIGUOUS, CHANNELS_LAST,
 * CHANNELS_LAST_3D; PRESERVE is TL_ERR_VALUE): a increfed when already
 * so, else a copy.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_contiguous(tl_tensor_impl *a,
                                        tl_memory_format fmt);

/* A copy of a with its own storage.  PRESERVE keeps a's strides when a is
 * non-overlapping and dense, else gives dense strides in the order of a's
 * strides (PyTorch's empty_like: a transposed slice stays transposed).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_clone(tl_tensor_impl *a, tl_memory_format fmt);

TL_EXTERN_C_END

#endif /* TENSORLIB_OPS_H */
