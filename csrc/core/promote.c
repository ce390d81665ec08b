/* csrc/core/promote.c — type promotion: PyTorch's promote_types (with
 * NumPy's answers where PyTorch refuses the barebones unsigned types),
 * result_type's category rules and can_cast.  Pure functions of dtypes
 * and impl flags. */
#include "tensor_impl.h"
#include "tensorlib/ops.h"

static tl_dtype signed_int_of_size(int64_t size)
{
    switch (size) {
    case 1: return TL_DTYPE_INT8;
    case 2: return TL_DTYPE_INT16;
    case 4: return TL_DTYPE_INT32;
    default: return TL_DTYPE_INT64;
    }
}

/* The complex dtype holding a float of dt's precision. */
static tl_dtype complex_of(tl_dtype dt)
{
    return dt == TL_DTYPE_FLOAT64 ? TL_DTYPE_COMPLEX128 : TL_DTYPE_COMPLEX64;
}

/* Note [Promotion of the unsigned types]
 * PyTorch promotes uint8 like the other integers (uint8 + int8 = int16,
 * int64 + uint8 = int64) and refuses uint16/uint32/uint64 with anything
 * but themselves, bool-less, and the floats (a float wins).  Where it
 * refuses, tensorlib gives NumPy's answer: a signed type wide enough for
 * both (uint16 + int8 = int32, uint32 + int16 = int64), float64 when none
 * is (uint64 + a signed int), the wider unsigned for two unsigned, and for
 * complex the complex type whose float holds the unsigned type exactly
 * (uint16 -> complex64, uint32/uint64 -> complex128). */
tl_dtype tl_promote_types(tl_dtype a, tl_dtype b)
{
    if (a == b) {
        return a;
    }
    /* PyTorch promotes float8 with nothing: the float8 operand's dtype
     * stands, so that the op refuses it (no kernel has a float8 row). */
    if (tl_dtype_is_float8(a) || tl_dtype_is_float8(b)) {
        return tl_dtype_is_float8(a) ? a : b;
    }
    int ka = tl_dtype_kind_of(a), kb = tl_dtype_kind_of(b);
    if (ka == TL_KIND_BOOL) {
        return b;
    }
    if (kb == TL_KIND_BOOL) {
        return a;
    }
    int64_t sa = tl_itemsize(a), sb = tl_itemsize(b);
    if (ka == TL_KIND_COMPLEX || kb == TL_KIND_COMPLEX) {
        if (ka == TL_KIND_COMPLEX && kb == TL_KIND_COMPLEX) {
            return sa >= sb ? a : b;
        }
        tl_dtype c = ka == TL_KIND_COMPLEX ? a : b;
        tl_dtype o = ka == TL_KIND_COMPLEX ? b : a;
        if (c == TL_DTYPE_COMPLEX128) {
            return c;
        }
        if (o == TL_DTYPE_FLOAT64 || o == TL_DTYPE_UINT32 ||
            o == TL_DTYPE_UINT64) {
            return TL_DTYPE_COMPLEX128;
        }
        return TL_DTYPE_COMPLEX64;
    }
    if (ka == TL_KIND_FLOAT || kb == TL_KIND_FLOAT) {
        if (ka == TL_KIND_FLOAT && kb == TL_KIND_FLOAT) {
            if (sa == sb) { /* float16 + bfloat16 */
                return TL_DTYPE_FLOAT32;
            }
            return sa > sb ? a : b;
        }
        return ka == TL_KIND_FLOAT ? a : b;
    }
    /* Two integers. */
    if (ka == kb) {
        return sa >= sb ? a : b;
    }
    tl_dtype u = ka == TL_KIND_UINT ? a : b;
    tl_dtype s = ka == TL_KIND_UINT ? b : a;
    int64_t su = tl_itemsize(u), ss = tl_itemsize(s);
    if (ss > su) {
        return s;
    }
    if (su == 8) {
        return TL_DTYPE_FLOAT64;
    }
    return signed_int_of_size(2 * su);
}

/* PyTorch's combine_categories: the higher-priority group's dtype wins
 * unless the lower group is of a higher category. */
static int combine(int higher, int lower)
{
    if (higher < 0) {
        return lower;
    }
    if (lower < 0) {
        return higher;
    }
    if (tl_dtype_is_float8((tl_dtype)higher) ||
        tl_dtype_is_float8((tl_dtype)lower)) { /* as tl_promote_types */
        return tl_dtype_is_float8((tl_dtype)higher) ? higher : lower;
    }
    int kh = tl_dtype_kind_of((tl_dtype)higher);
    int kl = tl_dtype_kind_of((tl_dtype)lower);
    if (kh == TL_KIND_COMPLEX) {
        return higher;
    }
    if (kl == TL_KIND_COMPLEX) {
        if (kh == TL_KIND_FLOAT) {
            /* The complex of the float's precision (PyTorch's
             * toComplexType; float16/bfloat16 give complex64). */
            return complex_of((tl_dtype)higher);
        }
        return lower;
    }
    if (kh == TL_KIND_FLOAT) {
        return higher;
    }
    if (kh == TL_KIND_BOOL || kl == TL_KIND_FLOAT) {
        return tl_promote_types((tl_dtype)higher, (tl_dtype)lower);
    }
    return higher;
}

static int promote_skip(int acc, tl_dtype dt)
{
    return acc < 0 ? (int)dt : (int)tl_promote_types((tl_dtype)acc, dt);
}

tl_dtype tl_result_type(int n, tl_tensor_impl *const *operands)
{
    int dim = -1, zero = -1, wrapped = -1;
    for (int i = 0; i < n; i++) {
        const tl_tensor_impl *t = operands[i];
        if (!t) {
            continue;
        }
        tl_dtype dt = (tl_dtype)t->dtype;
        if (t->flags & TL_FLAG_WRAPPED_NUMBER) {
            int k = tl_dtype_kind_of(dt);
            if (k == TL_KIND_COMPLEX) {
                dt = TL_DEFAULT_COMPLEX;
            } else if (k == TL_KIND_FLOAT) {
                dt = TL_DEFAULT_FLOAT;
            }
        }
        if (t->ndim > 0) {
            dim = promote_skip(dim, dt);
        } else if (t->flags & TL_FLAG_WRAPPED_NUMBER) {
            wrapped = promote_skip(wrapped, dt);
        } else {
            zero = promote_skip(zero, dt);
        }
    }
    int r = combine(dim, combine(zero, wrapped));
    return r < 0 ? TL_DEFAULT_FLOAT : (tl_dtype)r;
}

bool tl_can_cast(tl_dtype from, tl_dtype to)
{
    int kf = tl_dtype_kind_of(from), kt = tl_dtype_kind_of(to);
    if (kf == TL_KIND_COMPLEX && kt != TL_KIND_COMPLEX) {
        return false;
    }
    if (kf == TL_KIND_FLOAT &&
        (kt == TL_KIND_INT || kt == TL_KIND_UINT || kt == TL_KIND_BOOL)) {
        return false;
    }
    if (kf != TL_KIND_BOOL && kt == TL_KIND_BOOL) {
        return false;
    }
    return true;
}
