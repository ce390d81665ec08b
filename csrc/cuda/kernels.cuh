/* csrc/cuda/kernels.cuh — the element-level code of the CUDA kernels:
 * storage and compute types of the 17 dtypes, the element conversions of
 * Note [Element conversions] (csrc/core/kernels_copy.c), loads and stores
 * that convert from / to any dtype, and one functor per elementwise op
 * with the numeric semantics of csrc/core/kernels_{binary,unary}.c.
 *
 * Everything here is TL_HD: nvcc compiles it for the device, and the host
 * emulation (TL_CUDA_EMULATE, Note [CUDA host emulation] in launch.cuh)
 * compiles the very same code with g++, which is how it is tested without
 * a GPU.  C++17; no CUDA runtime calls here (those are in cuda_prim.c). */
#ifndef TENSORLIB_CSRC_CUDA_KERNELS_CUH
#define TENSORLIB_CSRC_CUDA_KERNELS_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <limits>
#include <type_traits>

#include "tensorlib/device_table.h"
#include "tensorlib/dtype.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"

/* The scalar numerics shared with the CPU kernels, and TL_HD
 * (host-and-device inline under nvcc, inline in the emulated build). */
#include "../core/scalar_math.h"
/* The float8 conversions, the same code as the CPU copies. */
#include "../core/float8.h"
/* The dtype lists (TLK_DT_*). */
#include "dtype_cases.cuh"

namespace tlk {

/* ---- types ---------------------------------------------------------------
 * Storage types: what one element of a dtype is in memory.  bool is one
 * byte read as (byte != 0); float16 and bfloat16 are bit patterns in their
 * own structs (never compute types: ops compute them in float32); so are
 * the float8 storage dtypes, which only copies and casts take. */
struct b8 {
    uint8_t v; /* 0 or 1 once loaded */
};
struct f16 {
    uint16_t x;
};
struct bf16 {
    uint16_t x;
};
struct f8e4 { /* float8_e4m3fn */
    uint8_t x;
};
struct f8e5 { /* float8_e5m2 */
    uint8_t x;
};
template <class R> struct cplx {
    R re, im;
};
typedef cplx<float> c64;
typedef cplx<double> c128;

enum kind { K_BOOL, K_INT, K_FLT, K_HALF, K_BF16, K_CPX, K_F8 };

template <class T> struct kind_of;
template <> struct kind_of<b8> { static constexpr int value = K_BOOL; };
template <> struct kind_of<f16> { static constexpr int value = K_HALF; };
template <> struct kind_of<bf16> { static constexpr int value = K_BF16; };
template <> struct kind_of<f8e4> { static constexpr int value = K_F8; };
template <> struct kind_of<f8e5> { static constexpr int value = K_F8; };
template <> struct kind_of<float> { static constexpr int value = K_FLT; };
template <> struct kind_of<double> { static constexpr int value = K_FLT; };
template <class R> struct kind_of<cplx<R>> {
    static constexpr int value = K_CPX;
};
#define TLK_INT_KIND(T)                                                     \
    template <> struct kind_of<T> { static constexpr int value = K_INT; };
TLK_INT_KIND(uint8_t)
TLK_INT_KIND(int8_t)
TLK_INT_KIND(int16_t)
TLK_INT_KIND(uint16_t)
TLK_INT_KIND(int32_t)
TLK_INT_KIND(uint32_t)
TLK_INT_KIND(int64_t)
TLK_INT_KIND(uint64_t)
#undef TLK_INT_KIND

template <class T> constexpr bool is_bool_v = kind_of<T>::value == K_BOOL;
template <class T> constexpr bool is_int_v = kind_of<T>::value == K_INT;
template <class T> constexpr bool is_flt_v = kind_of<T>::value == K_FLT;
template <class T> constexpr bool is_cplx_v = kind_of<T>::value == K_CPX;

/* The unsigned type integer arithmetic wraps in (as the CPU kernels). */
template <class T>
using wide_t = typename std::conditional<(sizeof(T) < 8), uint32_t,
                                         uint64_t>::type;

/* X(dtype code, storage type) for every dtype, for the runtime dtype
 * switches below (dtype_cases.cuh's list). */
#define TLK_DTYPE_CASE2_(D, S, X) X(D, S)
#define TLK_DTYPE_CASES(X) TLK_DT_ALL(TLK_DTYPE_CASE2_, X)

/* ---- float16 / bfloat16, integer -> double -------------------------------
 * scalar_math.h's (the same code as the CPU kernels). */

TL_HD float half_to_float(uint16_t h) { return tl_sm_half_to_float(h); }
TL_HD uint16_t half_from_float(float x) { return tl_sm_half_from_float(x); }
TL_HD float bf16_to_float(uint16_t b) { return tl_sm_bf16_to_float(b); }
TL_HD uint16_t bf16_from_float(float x) { return tl_sm_bf16_from_float(x); }
TL_HD uint16_t half_from_double(double x)
{
    return tl_sm_half_from_double(x);
}
TL_HD uint16_t bf16_from_double(double x)
{
    return tl_sm_bf16_from_double(x);
}

template <class T> TL_HD double int_to_double_rto(T x)
{
    if constexpr (sizeof(T) < 8) {
        return (double)x;
    }
    else if constexpr (std::is_signed<T>::value) {
        return tl_sm_i64_to_double_rto((int64_t)x);
    }
    else {
        return tl_sm_u64_to_double_rto((uint64_t)x);
    }
}

/* float8 (float8.h): exact to float; from a double rounding once to
 * nearest even, with PyTorch's saturation and NaN rules. */
TL_HD float f8_to_float(f8e4 v) { return tl_f8e4m3fn_to_float(v.x); }
TL_HD float f8_to_float(f8e5 v) { return tl_f8e5m2_to_float(v.x); }
template <class D> TL_HD D f8_from_double(double x);
template <> TL_HD f8e4 f8_from_double<f8e4>(double x)
{
    return f8e4{tl_f8e4m3fn_from_double(x)};
}
template <> TL_HD f8e5 f8_from_double<f8e5>(double x)
{
    return f8e5{tl_f8e5m2_from_double(x)};
}

/* Saturating float to integer: NaN gives 0, out of range the limits
 * (scalar_math.h's tl_sm_sat_*). */
template <class D> TL_HD D sat(double x);
#define TLK_SAT(N, T)                                                       \
    template <> TL_HD T sat<T>(double x) { return tl_sm_sat_##N(x); }
TLK_SAT(u8, uint8_t)
TLK_SAT(i8, int8_t)
TLK_SAT(i16, int16_t)
TLK_SAT(u16, uint16_t)
TLK_SAT(i32, int32_t)
TLK_SAT(u32, uint32_t)
TLK_SAT(i64, int64_t)
TLK_SAT(u64, uint64_t)
#undef TLK_SAT

/* ---- conversions (Note [Element conversions]) ------------------------- */

template <class T> struct real_of {
    typedef T type;
};
template <class R> struct real_of<cplx<R>> {
    typedef R type;
};

/* The value of a non-complex, non-bool source as double / float for the
 * small-float routines: float sources use the float routine. */
template <class D, class S> TL_HD D cvt(S x)
{
    constexpr int KD = kind_of<D>::value, KS = kind_of<S>::value;
    if constexpr (std::is_same<D, S>::value) {
        return x;
    }
    else if constexpr (KD == K_F8) {
        /* Rounds once from the source value as a double (exact for every
         * source but int64/uint64, which round to odd at 53 bits first),
         * as kernels_copy.c's CV_*_F8. */
        if constexpr (KS == K_BOOL) {
            return f8_from_double<D>(x.v != 0 ? 1.0 : 0.0);
        }
        else if constexpr (KS == K_INT) {
            return f8_from_double<D>(int_to_double_rto(x));
        }
        else if constexpr (KS == K_FLT) {
            return f8_from_double<D>((double)x);
        }
        else if constexpr (KS == K_HALF) {
            return f8_from_double<D>((double)half_to_float(x.x));
        }
        else if constexpr (KS == K_BF16) {
            return f8_from_double<D>((double)bf16_to_float(x.x));
        }
        else if constexpr (KS == K_F8) {
            return f8_from_double<D>((double)f8_to_float(x));
        }
        else {
            return f8_from_double<D>((double)x.re); /* the real part */
        }
    }
    else if constexpr (KS == K_F8) {
        /* Exact through float; to bool: any bit but the sign (NaN is
         * true), as CV_F8_BOOL. */
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)((x.x & 0x7fu) != 0)};
        }
        else {
            return cvt<D, float>(f8_to_float(x));
        }
    }
    else if constexpr (KS == K_BOOL) {
        const bool t = x.v != 0;
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)t};
        }
        else if constexpr (KD == K_HALF) {
            return D{(uint16_t)(t ? 0x3c00u : 0u)};
        }
        else if constexpr (KD == K_BF16) {
            return D{(uint16_t)(t ? 0x3f80u : 0u)};
        }
        else if constexpr (KD == K_CPX) {
            typedef typename real_of<D>::type R;
            return D{(R)(t ? 1 : 0), (R)0};
        }
        else {
            return (D)(t ? 1 : 0);
        }
    }
    else if constexpr (KS == K_INT) {
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)(x != 0)};
        }
        else if constexpr (KD == K_INT) {
            /* Wraps: through the unsigned type of the destination. */
            return (D)(typename std::make_unsigned<D>::type)x;
        }
        else if constexpr (KD == K_FLT) {
            return (D)x;
        }
        else if constexpr (KD == K_HALF) {
            return D{half_from_double(int_to_double_rto(x))};
        }
        else if constexpr (KD == K_BF16) {
            return D{bf16_from_double(int_to_double_rto(x))};
        }
        else {
            typedef typename real_of<D>::type R;
            return D{(R)x, (R)0};
        }
    }
    else if constexpr (KS == K_FLT) {
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)(x != 0)};
        }
        else if constexpr (KD == K_INT) {
            return sat<D>((double)x);
        }
        else if constexpr (KD == K_FLT) {
            return (D)x;
        }
        else if constexpr (KD == K_HALF) {
            if constexpr (sizeof(S) == 4) {
                return D{half_from_float(x)};
            }
            else {
                return D{half_from_double(x)};
            }
        }
        else if constexpr (KD == K_BF16) {
            if constexpr (sizeof(S) == 4) {
                return D{bf16_from_float(x)};
            }
            else {
                return D{bf16_from_double(x)};
            }
        }
        else {
            typedef typename real_of<D>::type R;
            return D{(R)x, (R)0};
        }
    }
    else if constexpr (KS == K_HALF || KS == K_BF16) {
        const float f = KS == K_HALF ? half_to_float(x.x)
                                     : bf16_to_float(x.x);
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)((x.x & 0x7fffu) != 0)};
        }
        else if constexpr (KD == K_INT) {
            return sat<D>((double)f);
        }
        else if constexpr (KD == K_FLT) {
            return (D)f;
        }
        else if constexpr (KD == K_HALF) {
            return D{half_from_float(f)};
        }
        else if constexpr (KD == K_BF16) {
            return D{bf16_from_float(f)};
        }
        else {
            typedef typename real_of<D>::type R;
            return D{(R)f, (R)0};
        }
    }
    else { /* complex source */
        typedef typename real_of<S>::type RS;
        if constexpr (KD == K_BOOL) {
            return D{(uint8_t)(x.re != 0 || x.im != 0)};
        }
        else if constexpr (KD == K_CPX) {
            typedef typename real_of<D>::type R;
            return D{(R)x.re, (R)x.im};
        }
        else {
            return cvt<D, RS>(x.re); /* the real part, as NumPy */
        }
    }
}

/* Loads the element at p (aligned for dtype dt: the launcher checks),
 * stored as dtype dt, converted to C. */
template <class C> TL_HD C load(const char *p, int dt)
{
    switch (dt) {
#define TLK_LOAD_CASE(D, S)                                                 \
    case D:                                                                 \
        return cvt<C, S>(*reinterpret_cast<const S *>(p));
        TLK_DTYPE_CASES(TLK_LOAD_CASE)
#undef TLK_LOAD_CASE
    default:
        return cvt<C, b8>(b8{0});
    }
}

/* Stores v converted to dtype dt at p. */
template <class C> TL_HD void store(char *p, int dt, C v)
{
    switch (dt) {
#define TLK_STORE_CASE(D, S)                                                \
    case D:                                                                 \
        *reinterpret_cast<S *>(p) = cvt<S, C>(v);                           \
        return;
        TLK_DTYPE_CASES(TLK_STORE_CASE)
#undef TLK_STORE_CASE
    default:
        return;
    }
}

/* The dtype code of a storage / compute type. */
template <class T> struct dtype_of;
#define TLK_DTYPE_OF(D, S)                                                  \
    template <> struct dtype_of<S> { static constexpr int value = D; };
TLK_DTYPE_CASES(TLK_DTYPE_OF)
#undef TLK_DTYPE_OF

/* ---- complex arithmetic (NumPy's formulas, as the CPU kernels) --------- */

template <class R> TL_HD cplx<R> c_add(cplx<R> a, cplx<R> b)
{
    return cplx<R>{a.re + b.re, a.im + b.im};
}
template <class R> TL_HD cplx<R> c_sub(cplx<R> a, cplx<R> b)
{
    return cplx<R>{a.re - b.re, a.im - b.im};
}
/* The plain-struct complex type of scalar_math.h for a component type. */
template <class R> struct sm_cplx;
template <> struct sm_cplx<float> {
    typedef tl_sm_c64 type;
};
template <> struct sm_cplx<double> {
    typedef tl_sm_c128 type;
};
template <class R> TL_HD typename sm_cplx<R>::type sm(cplx<R> a)
{
    typename sm_cplx<R>::type z;
    z.re = a.re;
    z.im = a.im;
    return z;
}
template <class S> TL_HD auto from_sm(S z)
{
    return cplx<decltype(z.re)>{z.re, z.im};
}

/* Product, Smith's quotient and reciprocal: scalar_math.h's. */
template <class R> TL_HD cplx<R> c_mul(cplx<R> a, cplx<R> b)
{
    return from_sm(tl_sm_cmul(sm(a), sm(b)));
}
template <class R> TL_HD cplx<R> c_div(cplx<R> a, cplx<R> b)
{
    return from_sm(tl_sm_cdiv(sm(a), sm(b)));
}
template <class R> TL_HD cplx<R> c_recip(cplx<R> b)
{
    return from_sm(tl_sm_crecip(sm(b)));
}
template <class R> TL_HD R c_abs(cplx<R> a)
{
    return hypot(a.re, a.im);
}
/* Principal square root (finite inputs; C99's special values for inf and
 * NaN are not all reproduced). */
template <class R> TL_HD cplx<R> c_sqrt(cplx<R> z)
{
    const R x = z.re, y = z.im;
    if (x == 0 && y == 0) {
        return cplx<R>{(R)0, y};
    }
    if (isinf(y)) {
        return cplx<R>{(R)INFINITY, y};
    }
    const R t = sqrt((fabs(x) + hypot(x, y)) * (R)0.5);
    if (x >= 0) {
        return cplx<R>{t, y / (2 * t)};
    }
    return cplx<R>{fabs(y) / (2 * t), copysign(t, y)};
}
template <class R> TL_HD cplx<R> c_exp(cplx<R> z)
{
    if (z.im == 0) {
        return cplx<R>{exp(z.re), z.im};
    }
    const R e = exp(z.re);
    return cplx<R>{e * cos(z.im), e * sin(z.im)};
}
template <class R> TL_HD cplx<R> c_log(cplx<R> z)
{
    return cplx<R>{log(hypot(z.re, z.im)), atan2(z.im, z.re)};
}
template <class R> TL_HD cplx<R> c_sin(cplx<R> z)
{
    return cplx<R>{sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)};
}
template <class R> TL_HD cplx<R> c_cos(cplx<R> z)
{
    return cplx<R>{cos(z.re) * cosh(z.im), -(sin(z.re) * sinh(z.im))};
}
/* tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with the
 * large-|x| limit taken directly to avoid inf / inf. */
template <class R> TL_HD cplx<R> c_tanh(cplx<R> z)
{
    const R x = z.re, y = z.im;
    if (fabs(x) > (R)22) {
        const R e = exp(-2 * fabs(x));
        return cplx<R>{copysign((R)1, x), 4 * sin(y) * cos(y) * e};
    }
    const R d = cosh(2 * x) + cos(2 * y);
    return cplx<R>{sinh(2 * x) / d, sin(2 * y) / d};
}
/* tan z = -i tanh(i z). */
template <class R> TL_HD cplx<R> c_tan(cplx<R> z)
{
    const cplx<R> t = c_tanh(cplx<R>{-z.im, z.re});
    return cplx<R>{t.im, -t.re};
}
/* NumPy's cpow: the exact and special cases are scalar_math.h's; the
 * rest is exp(b log a), as libm's cpow on the CPU. */
template <class R> TL_HD cplx<R> c_pow(cplx<R> a, cplx<R> b)
{
    typename sm_cplx<R>::type r;
    if (tl_sm_cpow_exact(sm(a), sm(b), &r)) {
        return from_sm(r);
    }
    return c_exp(c_mul(b, c_log(a)));
}

/* ---- binary ops ------------------------------------------------------- */

/* Every op functor: `typedef ... R;` the result type for compute type C,
 * and `R operator()(C a, C b) const`.  Only the (op, C) pairs the CPU
 * table has are instantiated (csrc/cuda/ew_binary.cu). */

template <class C> struct op_add {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_bool_v<C>) {
            return C{(uint8_t)(a.v | b.v)};
        }
        else if constexpr (is_int_v<C>) {
            return (C)((wide_t<C>)a + (wide_t<C>)b);
        }
        else if constexpr (is_cplx_v<C>) {
            return c_add(a, b);
        }
        else {
            return a + b;
        }
    }
};

template <class C> struct op_sub {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_int_v<C>) {
            return (C)((wide_t<C>)a - (wide_t<C>)b);
        }
        else if constexpr (is_cplx_v<C>) {
            return c_sub(a, b);
        }
        else {
            return a - b;
        }
    }
};

template <class C> struct op_mul {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_bool_v<C>) {
            return C{(uint8_t)(a.v & b.v)};
        }
        else if constexpr (is_int_v<C>) {
            return (C)((wide_t<C>)a * (wide_t<C>)b);
        }
        else if constexpr (is_cplx_v<C>) {
            return c_mul(a, b);
        }
        else {
            return a * b;
        }
    }
};

/* a + alpha * b, alpha in the compute type. */
template <class C> struct op_add_alpha {
    typedef C R;
    C al;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_bool_v<C>) {
            return C{(uint8_t)(a.v | (al.v & b.v))};
        }
        else if constexpr (is_int_v<C>) {
            return (C)((wide_t<C>)a + (wide_t<C>)al * (wide_t<C>)b);
        }
        else if constexpr (is_cplx_v<C>) {
            return c_add(a, c_mul(al, b));
        }
        else {
            return a + al * b;
        }
    }
};

template <class C> struct op_div {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_cplx_v<C>) {
            return c_div(a, b);
        }
        else {
            return a / b;
        }
    }
};

/* Integer powers and NaN-propagating maximum / minimum: scalar_math.h's,
 * as the CPU kernels.  (floor_divide, remainder and the shifts have impl
 * SM in the op table: their functors are generated below.) */
template <class C> struct op_pow {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_int_v<C>) {
            return tl_sm_pow(a, b);
        }
        else if constexpr (is_cplx_v<C>) {
            return c_pow(a, b);
        }
        else {
            return pow(a, b);
        }
    }
};

template <class C> struct op_maximum {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_bool_v<C>) {
            return C{(uint8_t)(a.v | b.v)};
        }
        else {
            return tl_sm_maximum(a, b);
        }
    }
};

template <class C> struct op_minimum {
    typedef C R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_bool_v<C>) {
            return C{(uint8_t)(a.v & b.v)};
        }
        else {
            return tl_sm_minimum(a, b);
        }
    }
};

/* The comparable value of a compute type (bool by its byte). */
template <class C> TL_HD auto ord(C a)
{
    if constexpr (is_bool_v<C>) {
        return a.v;
    }
    else {
        return a;
    }
}

template <class C> struct op_eq {
    typedef b8 R;
    TL_HD R operator()(C a, C b) const
    {
        if constexpr (is_cplx_v<C>) {
            return R{(uint8_t)(a.re == b.re && a.im == b.im)};
        }
        else {
            return R{(uint8_t)(ord(a) == ord(b))};
        }
    }
};

template <class C> struct op_ne {
    typedef b8 R;
    TL_HD R operator()(C a, C b) const
    {
        return R{(uint8_t)!op_eq<C>()(a, b).v};
    }
};

#define TLK_CMP(NAME, OP)                                                   \
    template <class C> struct NAME {                                        \
        typedef b8 R;                                                       \
        TL_HD R operator()(C a, C b) const                                  \
        {                                                                   \
            return R{(uint8_t)(ord(a) OP ord(b))};                          \
        }                                                                   \
    };
TLK_CMP(op_lt, <)
TLK_CMP(op_le, <=)
TLK_CMP(op_gt, >)
TLK_CMP(op_ge, >=)
#undef TLK_CMP

/* Logical ops compute in bool. */
template <class C> struct op_logical_and {
    typedef b8 R;
    TL_HD R operator()(C a, C b) const
    {
        return R{(uint8_t)(a.v && b.v)};
    }
};
template <class C> struct op_logical_or {
    typedef b8 R;
    TL_HD R operator()(C a, C b) const
    {
        return R{(uint8_t)(a.v || b.v)};
    }
};
template <class C> struct op_logical_xor {
    typedef b8 R;
    TL_HD R operator()(C a, C b) const
    {
        return R{(uint8_t)((a.v != 0) ^ (b.v != 0))};
    }
};

#define TLK_BITWISE(NAME, OP)                                               \
    template <class C> struct NAME {                                        \
        typedef C R;                                                        \
        TL_HD R operator()(C a, C b) const                                  \
        {                                                                   \
            if constexpr (is_bool_v<C>) {                                   \
                return C{(uint8_t)(a.v OP b.v)};                            \
            }                                                               \
            else {                                                          \
                return (C)(a OP b);                                         \
            }                                                               \
        }                                                                   \
    };
TLK_BITWISE(op_bitwise_and, &)
TLK_BITWISE(op_bitwise_or, |)
TLK_BITWISE(op_bitwise_xor, ^)
#undef TLK_BITWISE

/* ---- unary ops ---------------------------------------------------------- */

/* Unary functors: `typedef ... R;` and `R operator()(C a) const`. */

#define TLK_UNARY(NAME, RT, ...)                                            \
    template <class C> struct NAME {                                        \
        typedef RT R;                                                       \
        TL_HD R operator()(C a) const                                       \
        {                                                                   \
            __VA_ARGS__                                                     \
        }                                                                   \
    };

TLK_UNARY(op_neg, C, {
    if constexpr (is_int_v<C>) {
        return (C)((wide_t<C>)0 - (wide_t<C>)a);
    }
    else if constexpr (is_cplx_v<C>) {
        return C{-a.re, -a.im};
    }
    else {
        return -a;
    }
})

template <class C> struct op_abs {
    typedef typename real_of<C>::type R;
    TL_HD R operator()(C a) const
    {
        if constexpr (is_bool_v<C>) {
            return a;
        }
        else if constexpr (is_int_v<C>) {
            if constexpr (std::is_signed<C>::value) {
                return a < 0 ? (C)((wide_t<C>)0 - (wide_t<C>)a) : a;
            }
            else {
                return a;
            }
        }
        else if constexpr (is_cplx_v<C>) {
            return c_abs(a);
        }
        else {
            return fabs(a);
        }
    }
};

TLK_UNARY(op_sign, C, {
    if constexpr (is_bool_v<C>) {
        return a;
    }
    else if constexpr (is_int_v<C>) {
        if constexpr (std::is_signed<C>::value) {
            return (C)((a > 0) - (a < 0));
        }
        else {
            return (C)(a > 0);
        }
    }
    else {
        return a > 0 ? (C)1 : a < 0 ? (C)-1 : a == 0 ? (C)0 : a;
    }
})

TLK_UNARY(op_sgn, C, {
    if constexpr (is_cplx_v<C>) {
        const auto m = c_abs(a);
        return m == 0 ? C{0, 0} : C{a.re / m, a.im / m};
    }
    else {
        return op_sign<C>()(a);
    }
})

#define TLK_FLOAT_UNARY(NAME, REAL, ...)                                    \
    TLK_UNARY(NAME, C, {                                                    \
        if constexpr (is_cplx_v<C>) {                                       \
            __VA_ARGS__;                                                    \
        }                                                                   \
        else {                                                              \
            REAL;                                                           \
        }                                                                   \
    })

TLK_FLOAT_UNARY(op_sqrt, return sqrt(a), return c_sqrt(a))
TLK_FLOAT_UNARY(op_rsqrt, return (C)1 / sqrt(a), return c_recip(c_sqrt(a)))
TLK_FLOAT_UNARY(op_exp, return exp(a), return c_exp(a))
TLK_FLOAT_UNARY(op_expm1, return expm1(a), {
    typedef typename real_of<C>::type Rl;
    const Rl s = sin(a.im / 2);
    return C{expm1(a.re) * cos(a.im) - 2 * s * s, exp(a.re) * sin(a.im)};
})
TLK_FLOAT_UNARY(op_log, return log(a), return c_log(a))
TLK_FLOAT_UNARY(op_log1p, return log1p(a), {
    typedef typename real_of<C>::type Rl;
    const Rl l = hypot(a.re + 1, a.im);
    return C{log(l), atan2(a.im, a.re + 1)};
})
TLK_FLOAT_UNARY(op_log2, return log2(a), {
    typedef typename real_of<C>::type Rl;
    const C l = c_log(a);
    return C{l.re / (Rl)0.69314718055994530942, l.im /
             (Rl)0.69314718055994530942};
})
TLK_FLOAT_UNARY(op_log10, return log10(a), {
    typedef typename real_of<C>::type Rl;
    const C l = c_log(a);
    return C{l.re / (Rl)2.30258509299404568402, l.im /
             (Rl)2.30258509299404568402};
})
TLK_FLOAT_UNARY(op_sin, return sin(a), return c_sin(a))
TLK_FLOAT_UNARY(op_cos, return cos(a), return c_cos(a))
TLK_FLOAT_UNARY(op_tan, return tan(a), return c_tan(a))
TLK_FLOAT_UNARY(op_tanh, return tanh(a), return c_tanh(a))
TLK_FLOAT_UNARY(op_sigmoid, return (C)1 / ((C)1 + exp(-a)), {
    const C e = c_exp(C{-a.re, -a.im});
    return c_recip(C{1 + e.re, e.im});
})
TLK_FLOAT_UNARY(op_reciprocal, return (C)1 / a, return c_recip(a))

TLK_UNARY(op_relu, C, {
    if constexpr (is_int_v<C>) {
        if constexpr (std::is_signed<C>::value) {
            return a > 0 ? a : (C)0;
        }
        else {
            return a;
        }
    }
    else {
        return a < 0 ? (C)0 : a;
    }
})
TLK_UNARY(op_floor, C, { return floor(a); })
TLK_UNARY(op_ceil, C, { return ceil(a); })
TLK_UNARY(op_round, C, { return rint(a); }) /* half to even */
TLK_UNARY(op_trunc, C, { return trunc(a); })
TLK_UNARY(op_square, C, {
    if constexpr (is_int_v<C>) {
        return (C)((wide_t<C>)a * (wide_t<C>)a);
    }
    else if constexpr (is_cplx_v<C>) {
        return c_mul(a, a);
    }
    else {
        return a * a;
    }
})
TLK_UNARY(op_logical_not, b8, { return b8{(uint8_t)!a.v}; })
TLK_UNARY(op_bitwise_not, C, {
    if constexpr (is_bool_v<C>) {
        return C{(uint8_t)!a.v};
    }
    else {
        return (C)~a;
    }
})
TLK_UNARY(op_isnan, b8, {
    if constexpr (is_flt_v<C>) {
        return b8{(uint8_t)(a != a)};
    }
    else if constexpr (is_cplx_v<C>) {
        return b8{(uint8_t)(a.re != a.re || a.im != a.im)};
    }
    else {
        return b8{0};
    }
})
TLK_UNARY(op_isinf, b8, {
    if constexpr (is_flt_v<C>) {
        return b8{(uint8_t)(isinf(a) != 0)};
    }
    else if constexpr (is_cplx_v<C>) {
        return b8{(uint8_t)(isinf(a.re) || isinf(a.im))};
    }
    else {
        return b8{0};
    }
})
TLK_UNARY(op_isfinite, b8, {
    if constexpr (is_flt_v<C>) {
        return b8{(uint8_t)(isfinite(a) != 0)};
    }
    else if constexpr (is_cplx_v<C>) {
        return b8{(uint8_t)(isfinite(a.re) && isfinite(a.im))};
    }
    else {
        return b8{1};
    }
})
TLK_UNARY(op_identity, C, { return a; })
#undef TLK_FLOAT_UNARY
#undef TLK_UNARY

/* ---- functors of the ops whose impl is SM (tensorlib/op_table.h) ------
 * op_<name> calls scalar_math.h's tl_sm_<name> overload: the CPU loops
 * call the same function, so the two cannot differ.  The result type
 * follows the row's res: b8 for BOOL and LOGICAL rows (signbit, isreal),
 * else the compute type.  A bool operand (b8) calls tl_sm_<name>_b on its
 * byte: scalar_math.h gives bool no C++ overload, since it is uint8_t
 * there, as uint8. */
#define TLK_SM_R_SAME(C) C
#define TLK_SM_R_FLOAT(C) C
#define TLK_SM_R_REAL(C) C
#define TLK_SM_R_DOUBLE(C) C
#define TLK_SM_R_BOOL(C) b8
#define TLK_SM_R_LOGICAL(C) b8
template <class R, class V> TL_HD R sm_ret(V v)
{
    if constexpr (std::is_same<R, b8>::value) {
        return b8{(uint8_t)(v != 0)};
    }
    else {
        return (R)v;
    }
}
/* A complex operand's result: a struct back to cplx, or a bool test. */
template <class R, class S> TL_HD R sm_cret(S r)
{
    if constexpr (std::is_same<R, b8>::value) {
        return b8{(uint8_t)(r != 0)};
    }
    else {
        return from_sm(r);
    }
}
#define TLK_SM_FUNCTOR_1_SM(name, res)                                      \
    template <class C> struct op_##name {                                   \
        typedef TLK_SM_R_##res(C) R;                                        \
        TL_HD R operator()(C a) const                                       \
        {                                                                   \
            if constexpr (is_cplx_v<C>) {                                   \
                return sm_cret<R>(tl_sm_##name(sm(a)));                     \
            }                                                               \
            else if constexpr (std::is_same<C, b8>::value) {                \
                return sm_ret<R>(tl_sm_##name##_b(a.v));                    \
            }                                                               \
            else {                                                          \
                return sm_ret<R>(tl_sm_##name(a));                          \
            }                                                               \
        }                                                                   \
    };
#define TLK_SM_FUNCTOR_2_SM(name, res)                                      \
    template <class C> struct op_##name {                                   \
        typedef TLK_SM_R_##res(C) R;                                        \
        TL_HD R operator()(C a, C b) const                                  \
        {                                                                   \
            if constexpr (is_cplx_v<C>) {                                   \
                return sm_cret<R>(tl_sm_##name(sm(a), sm(b)));              \
            }                                                               \
            else if constexpr (std::is_same<C, b8>::value) {                \
                return sm_ret<R>(tl_sm_##name##_b(a.v, b.v));               \
            }                                                               \
            else {                                                          \
                return sm_ret<R>(tl_sm_##name(a, b));                       \
            }                                                               \
        }                                                                   \
    };
#define TLK_SM_FUNCTOR_1_LOCAL(name, res)
#define TLK_SM_FUNCTOR_2_LOCAL(name, res)
#define TLK_SM_UNARY(ID, name, py, set, res, impl, form, flags, hint, doc)  \
    TLK_SM_FUNCTOR_1_##impl(name, res)
#define TLK_SM_BINARY(ID, name, py, set, res, impl, form, flags, hint, doc) \
    TLK_SM_FUNCTOR_2_##impl(name, res)
TL_UNARY_OPS(TLK_SM_UNARY)
TL_BINARY_OPS(TLK_SM_BINARY)
#undef TLK_SM_UNARY
#undef TLK_SM_BINARY

/* nextafter of float16/bfloat16 in the dtype itself (the row's
 * TL_OPF_HALF_IN_DTYPE; scalar_math.h's bit step, as the CPU loop). */
template <class C> struct op_nextafter_half {
    typedef C R;
    TL_HD C operator()(C a, C b) const
    {
        if constexpr (std::is_same<C, f16>::value) {
            return C{tl_sm_nextafter_f16(a.x, b.x)};
        }
        else {
            return C{tl_sm_nextafter_bf16(a.x, b.x)};
        }
    }
};

/* ---- ternary ---------------------------------------------------------- */

template <class C> TL_HD bool nonzero(C a)
{
    if constexpr (is_bool_v<C>) {
        return a.v != 0;
    }
    else if constexpr (kind_of<C>::value == K_HALF ||
                       kind_of<C>::value == K_BF16) {
        return (a.x & 0x7fffu) != 0;
    }
    else if constexpr (kind_of<C>::value == K_F8) {
        return (a.x & 0x7fu) != 0;
    }
    else if constexpr (is_cplx_v<C>) {
        return a.re != 0 || a.im != 0;
    }
    else {
        return a != 0;
    }
}

/* cond ? a : b; the condition arrives converted to C (0 or 1). */
template <class C> struct op_where {
    typedef C R;
    TL_HD R operator()(C c, C a, C b) const
    {
        return nonzero(c) ? a : b;
    }
};

/* min(max(a, lo), hi) as PyTorch: a NaN bound gives NaN. */
template <class C> struct op_clamp {
    typedef C R;
    TL_HD R operator()(C a, C lo, C hi) const
    {
        if constexpr (is_flt_v<C>) {
            if (lo != lo) {
                return lo;
            }
            if (hi != hi) {
                return hi;
            }
        }
        const C m = ord(a) < ord(lo) ? lo : a;
        return ord(m) > ord(hi) ? hi : m;
    }
};

} /* namespace tlk */

#endif /* TENSORLIB_CSRC_CUDA_KERNELS_CUH */
