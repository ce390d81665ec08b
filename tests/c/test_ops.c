/* tests/c/test_ops.c — type promotion, and the elementwise ops: values
 * per dtype (integer edge cases, saturating casts, float16/bfloat16
 * rounding, complex), out= semantics, errors before writes, copies between
 * every dtype pair and layout, where/clamp/fill, reference counts. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"
#include "tensorlib/tensorlib.h"

enum { B = TL_DTYPE_BOOL, U8 = TL_DTYPE_UINT8, I8 = TL_DTYPE_INT8,
       I16 = TL_DTYPE_INT16, U16 = TL_DTYPE_UINT16, I32 = TL_DTYPE_INT32,
       U32 = TL_DTYPE_UINT32, I64 = TL_DTYPE_INT64, U64 = TL_DTYPE_UINT64,
       F16 = TL_DTYPE_FLOAT16, BF = TL_DTYPE_BFLOAT16,
       F32 = TL_DTYPE_FLOAT32, F64 = TL_DTYPE_FLOAT64,
       C64 = TL_DTYPE_COMPLEX64, C128 = TL_DTYPE_COMPLEX128 };

static bool msg_has(const char *s) { return strstr(tl_error_message(), s); }

static tl_tensor_impl *empty(int nd, const int64_t *sizes, int dt)
{
    return tl_tensor_empty(nd, sizes, (tl_dtype)dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

/* Element i (flat, following strides for 1-D) written independently of
 * the library's kernels: plain C conversions of exactly representable
 * values; float16/bfloat16 through dtype.c's scalar routines. */
static char *elem_ptr(tl_tensor_impl *t, int64_t i)
{
    const int64_t *st = tl_tensor_strides(t), *sz = tl_tensor_sizes(t);
    int64_t off = 0;
    for (int d = tl_tensor_ndim(t) - 1; d >= 0; d--) {
        off += (i % sz[d]) * st[d];
        i /= sz[d];
    }
    return (char *)tl_tensor_data(t) +
           off * tl_dtype_itemsize(tl_tensor_dtype(t));
}

static void set_elem(tl_tensor_impl *t, int64_t i, double v)
{
    char *p = elem_ptr(t, i);
    switch ((int)tl_tensor_dtype(t)) {
    case B: *(uint8_t *)p = v != 0; break;
    case U8: *(uint8_t *)p = (uint8_t)(int64_t)v; break;
    case I8: *(int8_t *)p = (int8_t)v; break;
    case I16: *(int16_t *)p = (int16_t)v; break;
    case U16: *(uint16_t *)p = (uint16_t)(int64_t)v; break;
    case I32: *(int32_t *)p = (int32_t)v; break;
    case U32: *(uint32_t *)p = (uint32_t)(int64_t)v; break;
    case I64: *(int64_t *)p = (int64_t)v; break;
    case U64: *(uint64_t *)p = (uint64_t)(int64_t)v; break;
    case F16: *(uint16_t *)p = tl_half_from_double(v); break;
    case BF: *(uint16_t *)p = tl_bf16_from_double(v); break;
    case F32: *(float *)p = (float)v; break;
    case F64: *(double *)p = v; break;
    case C64: *(float complex *)p = (float)v + 0.5f * I; break;
    default: *(double complex *)p = v + 0.5 * I; break;
    }
}

static double get_elem(tl_tensor_impl *t, int64_t i)
{
    const char *p = elem_ptr(t, i);
    switch ((int)tl_tensor_dtype(t)) {
    case B: return *(const uint8_t *)p;
    case U8: return *(const uint8_t *)p;
    case I8: return *(const int8_t *)p;
    case I16: return *(const int16_t *)p;
    case U16: return *(const uint16_t *)p;
    case I32: return *(const int32_t *)p;
    case U32: return *(const uint32_t *)p;
    case I64: return (double)*(const int64_t *)p;
    case U64: return (double)*(const uint64_t *)p;
    case F16: return tl_half_to_float(*(const uint16_t *)p);
    case BF: return tl_bf16_to_float(*(const uint16_t *)p);
    case F32: return *(const float *)p;
    case F64: return *(const double *)p;
    case C64: return crealf(*(const float complex *)p);
    default: return creal(*(const double complex *)p);
    }
}

static tl_tensor_impl *vec(int dt, int n, const double *v)
{
    int64_t s[] = {n};
    tl_tensor_impl *t = empty(1, s, dt);
    for (int i = 0; i < n; i++) {
        set_elem(t, i, v[i]);
    }
    return t;
}

static tl_tensor_impl *scalar_i(int64_t i)
{
    tl_scalar s = tl_scalar_int(i);
    return tl_scalar_to_tensor(&s);
}

static tl_tensor_impl *scalar_f(double f)
{
    tl_scalar s = tl_scalar_float(f);
    return tl_scalar_to_tensor(&s);
}

static int64_t get_i64(tl_tensor_impl *t, int64_t i)
{
    return *(const int64_t *)elem_ptr(t, i);
}

/* ---- promotion ---------------------------------------------------------- */

/* Expected promote_types, rows and columns in tl_dtype order: PyTorch 2.x's
 * table, with NumPy's answers where PyTorch refuses uint16/32/64.  (Kept
 * wider than 79 columns so that it reads as a table.) */
static const int promo[15][15] = {
    /*        b    u8   i8   i16  u16  i32  u32  i64  u64  f16  bf   f32  f64  c64  c128 */
    /* b  */ {B,   U8,  I8,  I16, U16, I32, U32, I64, U64, F16, BF,  F32, F64, C64, C128},
    /* u8 */ {U8,  U8,  I16, I16, U16, I32, U32, I64, U64, F16, BF,  F32, F64, C64, C128},
    /* i8 */ {I8,  I16, I8,  I16, I32, I32, I64, I64, F64, F16, BF,  F32, F64, C64, C128},
    /* i16*/ {I16, I16, I16, I16, I32, I32, I64, I64, F64, F16, BF,  F32, F64, C64, C128},
    /* u16*/ {U16, U16, I32, I32, U16, I32, U32, I64, U64, F16, BF,  F32, F64, C64, C128},
    /* i32*/ {I32, I32, I32, I32, I32, I32, I64, I64, F64, F16, BF,  F32, F64, C64, C128},
    /* u32*/ {U32, U32, I64, I64, U32, I64, U32, I64, U64, F16, BF,  F32, F64, C128,C128},
    /* i64*/ {I64, I64, I64, I64, I64, I64, I64, I64, F64, F16, BF,  F32, F64, C64, C128},
    /* u64*/ {U64, U64, F64, F64, U64, F64, U64, F64, U64, F16, BF,  F32, F64, C128,C128},
    /* f16*/ {F16, F16, F16, F16, F16, F16, F16, F16, F16, F16, F32, F32, F64, C64, C128},
    /* bf */ {BF,  BF,  BF,  BF,  BF,  BF,  BF,  BF,  BF,  F32, BF,  F32, F64, C64, C128},
    /* f32*/ {F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F64, C64, C128},
    /* f64*/ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128,C128},
    /* c64*/ {C64, C64, C64, C64, C64, C64, C128,C64, C128,C64, C64, C64, C128,C64, C128},
    /* c128*/{C128,C128,C128,C128,C128,C128,C128,C128,C128,C128,C128,C128,C128,C128,C128},
};

static void test_promote_table(void)
{
    int bad = 0;
    for (int a = 0; a < 15; a++) {
        for (int b = 0; b < 15; b++) {
            int got = tl_promote_types((tl_dtype)a, (tl_dtype)b);
            if (got != promo[a][b]) {
                fprintf(stderr, "promote(%s, %s) = %s, expected %s\n",
                        tl_dtype_info_of((tl_dtype)a)->name,
                        tl_dtype_info_of((tl_dtype)b)->name,
                        tl_dtype_info_of((tl_dtype)got)->name,
                        tl_dtype_info_of((tl_dtype)promo[a][b])->name);
                bad++;
            }
        }
    }
    CHECK_EQ_I64(bad, 0);
}

static tl_tensor_impl *t1(int dt)
{
    int64_t s[] = {2};
    return empty(1, s, dt);
}

static tl_tensor_impl *t0(int dt) { return empty(0, NULL, dt); }

static int rt2(tl_tensor_impl *a, tl_tensor_impl *b)
{
    tl_tensor_impl *ops[2] = {a, b};
    int r = tl_result_type(2, ops);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
    return r;
}

static void test_result_type(void)
{
    tl_scalar c = tl_scalar_complex(1, 2), bo = tl_scalar_bool(true);
    CHECK_EQ_I64(rt2(t1(F32), scalar_f(1.5)), F32);
    CHECK_EQ_I64(rt2(t1(I32), scalar_f(1.5)), F32);
    CHECK_EQ_I64(rt2(t1(I64), scalar_f(1.5)), F32);
    CHECK_EQ_I64(rt2(t1(F16), scalar_f(1.5)), F16);
    CHECK_EQ_I64(rt2(t1(U8), scalar_i(300)), U8);
    CHECK_EQ_I64(rt2(t1(I8), scalar_i(1)), I8);
    CHECK_EQ_I64(rt2(t1(B), scalar_i(1)), I64);
    CHECK_EQ_I64(rt2(t1(B), tl_scalar_to_tensor(&bo)), B);
    CHECK_EQ_I64(rt2(t1(F16), tl_scalar_to_tensor(&c)), C64);
    CHECK_EQ_I64(rt2(t1(F32), tl_scalar_to_tensor(&c)), C64);
    CHECK_EQ_I64(rt2(t1(F64), tl_scalar_to_tensor(&c)), C128);
    CHECK_EQ_I64(rt2(t1(I32), tl_scalar_to_tensor(&c)), C64);
    CHECK_EQ_I64(rt2(t1(C128), scalar_f(1.0)), C128);
    /* 0-dim tensors give their own dtype when of a higher category. */
    CHECK_EQ_I64(rt2(t1(I32), t0(F64)), F64);
    CHECK_EQ_I64(rt2(t1(I8), t0(I64)), I8);
    CHECK_EQ_I64(rt2(t1(F32), t0(F64)), F32);
    CHECK_EQ_I64(rt2(t1(F32), t0(C128)), C64);
    CHECK_EQ_I64(rt2(t0(I32), scalar_f(2.0)), F32);
    CHECK_EQ_I64(rt2(t0(I32), t0(F64)), F64);
    CHECK_EQ_I64(rt2(t0(U8), t0(I8)), I16);
    CHECK_EQ_I64(rt2(scalar_i(1), scalar_f(2.0)), F32);
    CHECK_EQ_I64(rt2(scalar_i(1), scalar_i(2)), I64);
    CHECK_EQ_I64(rt2(t1(U16), t1(I8)), I32);
    CHECK_EQ_I64(rt2(t1(U64), t1(I64)), F64);
    CHECK_EQ_I64(rt2(t1(F16), t1(BF)), F32);
}

static void test_can_cast(void)
{
    CHECK(!tl_can_cast(TL_DTYPE_FLOAT32, TL_DTYPE_INT64));
    CHECK(!tl_can_cast(TL_DTYPE_INT32, TL_DTYPE_BOOL));
    CHECK(!tl_can_cast(TL_DTYPE_COMPLEX64, TL_DTYPE_FLOAT64));
    CHECK(!tl_can_cast(TL_DTYPE_FLOAT16, TL_DTYPE_BOOL));
    CHECK(tl_can_cast(TL_DTYPE_FLOAT64, TL_DTYPE_FLOAT16));
    CHECK(tl_can_cast(TL_DTYPE_INT64, TL_DTYPE_INT8));
    CHECK(tl_can_cast(TL_DTYPE_INT64, TL_DTYPE_UINT8));
    CHECK(tl_can_cast(TL_DTYPE_BOOL, TL_DTYPE_FLOAT32));
    CHECK(tl_can_cast(TL_DTYPE_FLOAT32, TL_DTYPE_COMPLEX64));
    CHECK(tl_can_cast(TL_DTYPE_UINT64, TL_DTYPE_INT8));
    for (int a = 0; a < 15; a++) {
        CHECK(tl_can_cast((tl_dtype)a, (tl_dtype)a));
    }
}

/* ---- integer semantics -------------------------------------------------- */

static tl_tensor_impl *binop(int op, tl_tensor_impl *a, tl_tensor_impl *b)
{
    return tl_op_binary(op, NULL, a, b, NULL);
}

static void test_int_division(void)
{
    const int dts[] = {I8, I16, I32, I64};
    const double mins[] = {-128, -32768, -2147483648.0, -0x1p63};
    for (int k = 0; k < 4; k++) {
        int dt = dts[k];
        double av[] = {mins[k], mins[k], -7, 7, -7, 7, 0, 5};
        double bv[] = {-1, 1, 2, -2, -2, 2, -3, 5};
        tl_tensor_impl *a = vec(dt, 8, av), *b = vec(dt, 8, bv);
        tl_tensor_impl *q = binop(TL_BINARY_FLOOR_DIVIDE, a, b);
        tl_tensor_impl *r = binop(TL_BINARY_REMAINDER, a, b);
        CHECK((int)tl_tensor_dtype(q) == dt);
        const double eq[] = {mins[k], mins[k], -4, -4, 3, 3, 0, 1};
        const double er[] = {0, 0, 1, -1, -1, 1, 0, 0};
        for (int i = 0; i < 8; i++) {
            CHECK(get_elem(q, i) == eq[i]);
            CHECK(get_elem(r, i) == er[i]);
        }
        tl_tensor_decref(q);
        tl_tensor_decref(r);
        tl_tensor_decref(a);
        tl_tensor_decref(b);
    }
    /* Unsigned. */
    double av[] = {7, 255, 0}, bv[] = {2, 16, 3};
    tl_tensor_impl *a = vec(U8, 3, av), *b = vec(U8, 3, bv);
    tl_tensor_impl *q = binop(TL_BINARY_FLOOR_DIVIDE, a, b);
    tl_tensor_impl *r = binop(TL_BINARY_REMAINDER, a, b);
    CHECK(get_elem(q, 0) == 3 && get_elem(q, 1) == 15 && get_elem(q, 2) == 0);
    CHECK(get_elem(r, 0) == 1 && get_elem(r, 1) == 15);
    tl_tensor_decref(q);
    tl_tensor_decref(r);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_zero_division(void)
{
    double av[] = {1, 2, 3, 4}, bv[] = {1, 0, 1, 1}, ov[] = {9, 9, 9, 9};
    tl_tensor_impl *a = vec(I32, 4, av), *b = vec(I32, 4, bv);
    tl_tensor_impl *out = vec(I32, 4, ov);
    const int ops[] = {TL_BINARY_FLOOR_DIVIDE, TL_BINARY_REMAINDER};
    for (int k = 0; k < 2; k++) {
        CHECK(tl_op_binary(ops[k], out, a, b, NULL) == NULL);
        CHECK(tl_error_kind() == TL_ERR_ZERO_DIVISION);
        CHECK(tl_op_binary(ops[k], a, a, b, NULL) == NULL); /* in-place */
        CHECK(tl_error_kind() == TL_ERR_ZERO_DIVISION);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(get_elem(out, i) == 9);
        CHECK(get_elem(a, i) == av[i]);
    }
    CHECK_EQ_I64(tl_tensor_version(out), 0);
    CHECK_EQ_I64(tl_tensor_version(a), 0);
    /* A scalar that becomes 0 in the compute dtype: int8 // 256. */
    tl_tensor_impl *a8 = vec(I8, 4, av), *s256 = scalar_i(256);
    CHECK(binop(TL_BINARY_FLOOR_DIVIDE, a8, s256) == NULL);
    CHECK(tl_error_kind() == TL_ERR_ZERO_DIVISION);
    /* Floats divide by zero as IEEE / NumPy. */
    tl_tensor_impl *af = vec(F64, 4, av), *bf = vec(F64, 4, bv);
    tl_tensor_impl *q = binop(TL_BINARY_FLOOR_DIVIDE, af, bf);
    CHECK(isinf(get_elem(q, 1)) && get_elem(q, 1) > 0);
    tl_tensor_impl *r = binop(TL_BINARY_REMAINDER, af, bf);
    CHECK(isnan(get_elem(r, 1)));
    /* An empty broadcast result does not raise. */
    int64_t z[] = {0};
    tl_tensor_impl *e = empty(1, z, I32), *zero = scalar_i(0);
    tl_tensor_impl *ez = binop(TL_BINARY_FLOOR_DIVIDE, e, zero);
    CHECK(ez != NULL);
    tl_tensor_decref(ez);
    tl_tensor_decref(e);
    tl_tensor_decref(zero);
    tl_tensor_decref(q);
    tl_tensor_decref(r);
    tl_tensor_decref(af);
    tl_tensor_decref(bf);
    tl_tensor_decref(s256);
    tl_tensor_decref(a8);
    tl_tensor_decref(out);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_float_divmod(void)
{
    /* NumPy's floor_divide / remainder values. */
    double av[] = {7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1.0, 5.0};
    double bv[] = {2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.1, -INFINITY};
    double eq[] = {3, -4, -4, 3, 0, -0.0, 9, -1};
    double er[] = {1.5, 0.5, -0.5, -1.5, 0, 0, 0.09999999999999995,
                   -INFINITY};
    tl_tensor_impl *a = vec(F64, 8, av), *b = vec(F64, 8, bv);
    tl_tensor_impl *q = binop(TL_BINARY_FLOOR_DIVIDE, a, b);
    tl_tensor_impl *r = binop(TL_BINARY_REMAINDER, a, b);
    for (int i = 0; i < 8; i++) {
        CHECK(get_elem(q, i) == eq[i]);
        CHECK(get_elem(r, i) == er[i]);
    }
    CHECK(signbit(get_elem(q, 5)));
    CHECK(!signbit(get_elem(r, 5))); /* sign of the divisor */
    tl_tensor_decref(q);
    tl_tensor_decref(r);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_int_wrap_and_shift(void)
{
    double av[] = {2147483647.0, -2147483648.0, 100, -5};
    double bv[] = {1, -1, 3, 3};
    tl_tensor_impl *a = vec(I32, 4, av), *b = vec(I32, 4, bv);
    tl_tensor_impl *s = binop(TL_BINARY_ADD, a, b);
    tl_tensor_impl *m = binop(TL_BINARY_MUL, a, b);
    CHECK(get_elem(s, 0) == -2147483648.0);
    CHECK(get_elem(s, 1) == 2147483647.0);
    CHECK(get_elem(m, 0) == 2147483647.0);
    CHECK(get_elem(m, 1) == -2147483648.0); /* INT_MIN * -1 wraps */
    tl_tensor_decref(s);
    tl_tensor_decref(m);
    tl_tensor_decref(a);
    tl_tensor_decref(b);

    double xv[] = {100, 100, -128, 1, 1, 1, -8, -8, 8, 64};
    double yv[] = {3, 2, -1, 7, 8, -1, 1, 100, -2, 1};
    tl_tensor_impl *x = vec(I8, 10, xv), *y = vec(I8, 10, yv);
    tl_tensor_impl *p = binop(TL_BINARY_MUL, x, y);
    CHECK(get_elem(p, 0) == 44);   /* 300 wraps */
    CHECK(get_elem(p, 1) == -56);  /* 200 wraps */
    CHECK(get_elem(p, 2) == -128); /* -128 * -1 */
    tl_tensor_impl *l = binop(TL_BINARY_LSHIFT, x, y);
    CHECK(get_elem(l, 3) == -128);
    CHECK(get_elem(l, 4) == 0);
    CHECK(get_elem(l, 5) == 0);
    tl_tensor_impl *r = binop(TL_BINARY_RSHIFT, x, y);
    CHECK(get_elem(r, 6) == -4);
    CHECK(get_elem(r, 7) == -1);
    CHECK(get_elem(r, 8) == -1 + 1); /* 8 >> -2 -> 0 */
    CHECK(get_elem(r, 9) == 32);
    tl_tensor_decref(l);
    tl_tensor_decref(r);
    tl_tensor_decref(p);
    tl_tensor_decref(x);
    tl_tensor_decref(y);

    double uv[] = {200, 200, 1}, sv[] = {9, 3, 7};
    tl_tensor_impl *u = vec(U8, 3, uv), *us = vec(U8, 3, sv);
    tl_tensor_impl *ur = binop(TL_BINARY_RSHIFT, u, us);
    tl_tensor_impl *ul = binop(TL_BINARY_LSHIFT, u, us);
    CHECK(get_elem(ur, 0) == 0 && get_elem(ur, 1) == 25);
    CHECK(get_elem(ul, 2) == 128 && get_elem(ul, 0) == 0);
    tl_tensor_decref(ur);
    tl_tensor_decref(ul);
    tl_tensor_decref(u);
    tl_tensor_decref(us);

    /* int64: shifts by 64 and more. */
    double v64[] = {1, -1}, c64v[] = {64, 64};
    tl_tensor_impl *w = vec(I64, 2, v64), *wc = vec(I64, 2, c64v);
    tl_tensor_impl *wl = binop(TL_BINARY_LSHIFT, w, wc);
    tl_tensor_impl *wr = binop(TL_BINARY_RSHIFT, w, wc);
    CHECK(get_i64(wl, 0) == 0 && get_i64(wr, 0) == 0 && get_i64(wr, 1) == -1);
    tl_tensor_decref(wl);
    tl_tensor_decref(wr);
    tl_tensor_decref(w);
    tl_tensor_decref(wc);

    /* Shifts of floats and bool are type errors. */
    tl_tensor_impl *f = vec(F32, 2, v64);
    CHECK(binop(TL_BINARY_LSHIFT, f, f) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    tl_tensor_decref(f);
}

static void test_int_pow(void)
{
    double av[] = {2, 3, -2, 0, 7}, bv[] = {10, 3, 3, 0, 40};
    tl_tensor_impl *a = vec(I64, 5, av), *b = vec(I64, 5, bv);
    tl_tensor_impl *p = binop(TL_BINARY_POW, a, b);
    CHECK(get_i64(p, 0) == 1024 && get_i64(p, 1) == 27);
    CHECK(get_i64(p, 2) == -8 && get_i64(p, 3) == 1);
    /* 7**40 wraps modulo 2**64. */
    uint64_t w = 1;
    for (int i = 0; i < 40; i++) {
        w *= 7;
    }
    CHECK((uint64_t)get_i64(p, 4) == w);
    /* Tensor exponents below 0 take PyTorch's powi (Note [Negative
     * integer powers]): 1 ** -n == 1, (-1) ** -n == +-1, else 0. */
    double bases[] = {1, -1, -1, 2, 0}, nv[] = {-3, -3, -2, -1, -1};
    tl_tensor_impl *nb = vec(I64, 5, bases), *n = vec(I64, 5, nv);
    tl_tensor_impl *np = binop(TL_BINARY_POW, nb, n);
    CHECK(np != NULL);
    CHECK(get_i64(np, 0) == 1 && get_i64(np, 1) == -1);
    CHECK(get_i64(np, 2) == 1 && get_i64(np, 3) == 0);
    CHECK(get_i64(np, 4) == 0);
    tl_tensor_decref(np);
    tl_tensor_decref(nb);
    /* A Python-scalar exponent below 0 is refused. */
    tl_tensor_impl *m1 = scalar_i(-1);
    CHECK(binop(TL_BINARY_POW, a, m1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(msg_has("negative power -1"));
    /* A float exponent makes it a float pow. */
    tl_tensor_impl *h = scalar_f(-1.0);
    tl_tensor_impl *fp = binop(TL_BINARY_POW, a, h);
    CHECK(tl_tensor_dtype(fp) == TL_DTYPE_FLOAT32);
    CHECK(get_elem(fp, 0) == 0.5);
    tl_tensor_decref(fp);
    tl_tensor_decref(h);
    tl_tensor_decref(m1);
    tl_tensor_decref(n);
    tl_tensor_decref(p);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

/* ---- casts -------------------------------------------------------------- */

static void test_float_to_int_saturation(void)
{
    double v[] = {NAN, INFINITY, -INFINITY, 1e10, -1e10, 3.7, -3.7, 127.5,
                  -128.9, -0.5};
    tl_tensor_impl *f = vec(F64, 10, v), *f32 = vec(F32, 10, v);
    int64_t s[] = {10};
    const struct {
        int dt;
        double e[10];
    } cases[] = {
        {I8, {0, 127, -128, 127, -128, 3, -3, 127, -128, 0}},
        {U8, {0, 255, 0, 255, 0, 3, 0, 127, 0, 0}},
        {I16, {0, 32767, -32768, 32767, -32768, 3, -3, 127, -128, 0}},
        {U16, {0, 65535, 0, 65535, 0, 3, 0, 127, 0, 0}},
        {I32, {0, 2147483647.0, -2147483648.0, 2147483647.0, -2147483648.0,
               3, -3, 127, -128, 0}},
        {U32, {0, 4294967295.0, 0, 4294967295.0, 0, 3, 0, 127, 0, 0}},
        {I64, {0, 0x1p63, -0x1p63, 1e10, -1e10, 3, -3, 127, -128, 0}},
        {U64, {0, 0x1p64, 0, 1e10, 0, 3, 0, 127, 0, 0}},
        {B, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int src = 0; src < 2; src++) {
            tl_tensor_impl *d = empty(1, s, cases[k].dt);
            CHECK(tl_op_copy_(d, src ? f32 : f) == 0);
            for (int i = 0; i < 10; i++) {
                double e = cases[k].e[i];
                if (src && cases[k].dt != I64 && cases[k].dt != U64 &&
                    i == 7) {
                    e = cases[k].e[i]; /* 127.5 is exact in float32 */
                }
                if (get_elem(d, i) != e) {
                    fprintf(stderr, "to %s [%d]: %g != %g (src %s)\n",
                            tl_dtype_info_of(cases[k].dt)->name, i,
                            get_elem(d, i), e, src ? "f32" : "f64");
                }
                CHECK(get_elem(d, i) == e);
            }
            tl_tensor_decref(d);
        }
    }
    /* Exact extremes for int64. */
    tl_tensor_impl *d = empty(1, s, I64);
    tl_op_copy_(d, f);
    CHECK(get_i64(d, 1) == INT64_MAX && get_i64(d, 2) == INT64_MIN);
    tl_tensor_decref(d);
    d = empty(1, s, U64);
    tl_op_copy_(d, f);
    CHECK(*(uint64_t *)elem_ptr(d, 1) == UINT64_MAX);
    tl_tensor_decref(d);
    tl_tensor_decref(f);
    tl_tensor_decref(f32);
}

static void test_half_rounding(void)
{
    /* Just above the midpoint between 1 and 1 + 2^-10: a float32 detour
     * would land on the midpoint and round to even (1.0). */
    double v[] = {1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11,
                  65519.0, 65520.0, 0x1p-25, 0x1p-25 + 0x1p-50, -0.0, NAN,
                  1e-30};
    const uint16_t eh[] = {0x3c01, 0x3c00, 0x3c02, 0x7bff, 0x7c00, 0x0000,
                           0x0001, 0x8000, 0, 0};
    tl_tensor_impl *f = vec(F64, 10, v);
    int64_t s[] = {10};
    tl_tensor_impl *h = empty(1, s, F16);
    CHECK(tl_op_copy_(h, f) == 0);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_I64(*(uint16_t *)elem_ptr(h, i), eh[i]);
    }
    CHECK((*(uint16_t *)elem_ptr(h, 8) & 0x7fff) > 0x7c00); /* NaN */
    /* bfloat16 from float64 and from int64 (2^60 + 2^52 + 1 is just above
     * a bfloat16 midpoint; through a double it would be a tie). */
    tl_tensor_impl *bf = empty(1, s, BF);
    CHECK(tl_op_copy_(bf, f) == 0);
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_I64(*(uint16_t *)elem_ptr(bf, i), tl_bf16_from_double(v[i]));
    }
    int64_t one[] = {1};
    tl_tensor_impl *big = empty(1, one, I64), *bb = empty(1, one, BF);
    *(int64_t *)tl_tensor_data(big) =
        ((int64_t)1 << 60) + ((int64_t)1 << 52) + 1;
    CHECK(tl_op_copy_(bb, big) == 0);
    CHECK_EQ_I64(*(uint16_t *)tl_tensor_data(bb), 0x5d81);
    tl_tensor_impl *hb = empty(1, one, F16);
    *(int64_t *)tl_tensor_data(big) = 2049; /* between 2048 and 2050 */
    CHECK(tl_op_copy_(hb, big) == 0);
    CHECK_EQ_I64(*(uint16_t *)tl_tensor_data(hb), 0x6800); /* 2048, even */

    /* float32 -> float16/bfloat16 agrees with dtype.c on a sweep of bit
     * patterns; float16 -> float32 on all 65536. */
    enum { N = 1 << 16 };
    int64_t ns[] = {N};
    tl_tensor_impl *fs = empty(1, ns, F32), *hs = empty(1, ns, F16);
    tl_tensor_impl *bs = empty(1, ns, BF);
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        memcpy((float *)tl_tensor_data(fs) + i, &x, 4);
    }
    CHECK(tl_op_copy_(hs, fs) == 0);
    CHECK(tl_op_copy_(bs, fs) == 0);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float fv = ((float *)tl_tensor_data(fs))[i];
        uint16_t hv = ((uint16_t *)tl_tensor_data(hs))[i];
        uint16_t bv = ((uint16_t *)tl_tensor_data(bs))[i];
        bad += hv != tl_half_from_float(fv) && !isnan(fv);
        bad += bv != tl_bf16_from_float(fv) && !isnan(fv);
        ((uint16_t *)tl_tensor_data(hs))[i] = (uint16_t)i;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(tl_op_copy_(fs, hs) == 0);
    for (int i = 0; i < N; i++) {
        float a = ((float *)tl_tensor_data(fs))[i];
        float e = tl_half_to_float((uint16_t)i);
        bad += memcmp(&a, &e, 4) != 0;
    }
    CHECK_EQ_I64(bad, 0);
    tl_tensor_decref(fs);
    tl_tensor_decref(hs);
    tl_tensor_decref(bs);
    tl_tensor_decref(hb);
    tl_tensor_decref(bb);
    tl_tensor_decref(big);
    tl_tensor_decref(bf);
    tl_tensor_decref(h);
    tl_tensor_decref(f);
}

/* Expected value of small integer v of src dtype converted to dst. */
static double expect_cast(double v, int src, int dst)
{
    const int ks = tl_dtype_info_of((tl_dtype)src)->kind;
    const int kd = tl_dtype_info_of((tl_dtype)dst)->kind;
    if (dst == B) {
        return v != 0 || ks == TL_KIND_COMPLEX; /* complex has imag 0.5 */
    }
    if (kd == TL_KIND_UINT && v < 0) {
        if (ks == TL_KIND_INT) { /* wraps */
            return v + ldexp(1.0, 8 * tl_dtype_itemsize((tl_dtype)dst));
        }
        return 0; /* floats saturate */
    }
    return v;
}

static void test_copy_all_pairs_transposed(void)
{
    /* src: a [5, 7] tensor; its transpose [7, 5] is copied into a
     * contiguous dst of every dtype and compared with a naive reference. */
    int bad = 0;
    for (int src = 0; src < 15; src++) {
        for (int dst = 0; dst < 15; dst++) {
            int64_t s[] = {5, 7};
            tl_tensor_impl *a = empty(2, s, src);
            const bool uns = tl_dtype_info_of((tl_dtype)src)->kind ==
                             TL_KIND_UINT;
            for (int i = 0; i < 35; i++) {
                double v = src == B ? i % 3 == 0 : uns ? i : i - 17;
                set_elem(a, i, v);
            }
            int64_t ts[] = {7, 5}, tst[] = {1, 7};
            tl_tensor_impl *at = tl_tensor_as_strided(a, 2, ts, tst, 0);
            tl_tensor_impl *d = empty(2, ts, dst);
            CHECK(tl_op_copy_(d, at) == 0);
            for (int i = 0; i < 7; i++) {
                for (int j = 0; j < 5; j++) {
                    double v = get_elem(a, j * 7 + i);
                    double e = expect_cast(v, src, dst);
                    if (get_elem(d, i * 5 + j) != e) {
                        if (bad < 5) {
                            fprintf(stderr, "%s -> %s at (%d, %d): %g != "
                                    "%g\n",
                                    tl_dtype_info_of((tl_dtype)src)->name,
                                    tl_dtype_info_of((tl_dtype)dst)->name,
                                    i, j, get_elem(d, i * 5 + j), e);
                        }
                        bad++;
                    }
                }
            }
            /* Complex -> complex keeps the imaginary part. */
            if (dst == C64 && src == C128) {
                CHECK(cimagf(*(float complex *)tl_tensor_data(d)) == 0.5f);
            }
            tl_tensor_decref(d);
            tl_tensor_decref(at);
            tl_tensor_decref(a);
        }
    }
    CHECK_EQ_I64(bad, 0);
}

static void test_copy_large_transposed(void)
{
    /* Beyond the tile size, with conversions and a broadcast source. */
    const int pairs[][2] = {{F32, F32}, {F64, F16}, {I32, F64}, {U8, I64},
                            {C64, C128}, {F16, F32}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int64_t s[] = {70, 130};
        tl_tensor_impl *a = empty(2, s, pairs[k][0]);
        for (int i = 0; i < 70 * 130; i++) {
            set_elem(a, i, i % 251);
        }
        int64_t ts[] = {130, 70}, tst[] = {1, 130};
        tl_tensor_impl *at = tl_tensor_as_strided(a, 2, ts, tst, 0);
        tl_tensor_impl *d = empty(2, ts, pairs[k][1]);
        CHECK(tl_op_copy_(d, at) == 0);
        int bad = 0;
        for (int i = 0; i < 130; i++) {
            for (int j = 0; j < 70; j++) {
                bad += get_elem(d, i * 70 + j) != get_elem(a, j * 130 + i);
            }
        }
        CHECK_EQ_I64(bad, 0);
        /* And the other way: a contiguous source into a transposed dst. */
        tl_tensor_impl *a2 = empty(2, s, pairs[k][1]);
        int64_t t2s[] = {130, 70}, t2st[] = {1, 130};
        tl_tensor_impl *a2t = tl_tensor_as_strided(a2, 2, t2s, t2st, 0);
        CHECK(tl_op_copy_(a2t, d) == 0);
        bad = 0;
        for (int i = 0; i < 70 * 130; i++) {
            bad += get_elem(a2, i) != get_elem(a, i);
        }
        CHECK_EQ_I64(bad, 0);
        tl_tensor_decref(a2t);
        tl_tensor_decref(a2);
        tl_tensor_decref(d);
        tl_tensor_decref(at);
        tl_tensor_decref(a);
    }
    /* Broadcast: a row into every row. */
    int64_t rs[] = {4}, ds[] = {3, 4};
    double rv[] = {1, 2, 3, 4};
    tl_tensor_impl *row = vec(I16, 4, rv), *d = empty(2, ds, F32);
    CHECK(tl_op_copy_(d, row) == 0);
    CHECK(get_elem(d, 11) == 4 && get_elem(d, 4) == 1);
    /* Not broadcastable the other way. */
    CHECK(tl_op_copy_(row, d) == TL_ERR_SHAPE);
    (void)rs;
    tl_tensor_decref(row);
    tl_tensor_decref(d);
}

/* ---- binary ops values -------------------------------------------------- */

static void test_binary_values(void)
{
    double av[] = {1, -2, 3.5, NAN, 0}, bv[] = {2, 2, -1, 1, NAN};
    tl_tensor_impl *a = vec(F32, 5, av), *b = vec(F32, 5, bv);
    tl_tensor_impl *mx = binop(TL_BINARY_MAXIMUM, a, b);
    tl_tensor_impl *mn = binop(TL_BINARY_MINIMUM, a, b);
    CHECK(get_elem(mx, 0) == 2 && get_elem(mx, 2) == 3.5);
    CHECK(isnan(get_elem(mx, 3)) && isnan(get_elem(mx, 4)));
    CHECK(get_elem(mn, 1) == -2 && isnan(get_elem(mn, 3)));
    tl_tensor_impl *lt = binop(TL_BINARY_LT, a, b);
    CHECK(tl_tensor_dtype(lt) == TL_DTYPE_BOOL);
    CHECK(get_elem(lt, 0) == 1 && get_elem(lt, 2) == 0 &&
          get_elem(lt, 3) == 0);
    tl_tensor_impl *dv = binop(TL_BINARY_DIV, a, b);
    CHECK(get_elem(dv, 2) == -3.5);
    tl_tensor_impl *la = binop(TL_BINARY_LOGICAL_AND, a, b);
    CHECK(get_elem(la, 0) == 1 && get_elem(la, 4) == 0 &&
          get_elem(la, 3) == 1); /* NaN is true */
    tl_tensor_impl *ba = binop(TL_BINARY_BITWISE_AND, a, b);
    CHECK(ba == NULL && tl_error_kind() == TL_ERR_TYPE);
    CHECK(msg_has("bitwise_and is not supported for float32"));

    /* add/sub with alpha, broadcasting a scalar. */
    tl_scalar two = tl_scalar_int(2), half = tl_scalar_float(0.5);
    tl_tensor_impl *s1 = scalar_i(10);
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_SUB, NULL, a, s1, &two);
    CHECK(get_elem(r, 0) == -19 && get_elem(r, 1) == -22);
    tl_tensor_decref(r);
    r = tl_op_binary(TL_BINARY_ADD, NULL, s1, a, &half);
    CHECK(get_elem(r, 0) == 10.5);
    tl_tensor_decref(r);
    double iv[] = {1, 2, 3};
    tl_tensor_impl *ia = vec(I32, 3, iv);
    CHECK(tl_op_binary(TL_BINARY_ADD, NULL, ia, ia, &half) == NULL);
    CHECK(msg_has("a float alpha cannot scale"));
    r = tl_op_binary(TL_BINARY_SUB, NULL, ia, ia, &two);
    CHECK(get_elem(r, 2) == -3);
    tl_tensor_decref(r);
    /* true division of ints gives float32 */
    r = binop(TL_BINARY_DIV, ia, s1);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_FLOAT32);
    CHECK(fabs(get_elem(r, 0) - 0.1) < 1e-7);
    tl_tensor_decref(r);

    /* bool arithmetic */
    double tv[] = {0, 1, 1, 0}, uv[] = {0, 0, 1, 1};
    tl_tensor_impl *t = vec(B, 4, tv), *u = vec(B, 4, uv);
    r = binop(TL_BINARY_ADD, t, u);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_BOOL);
    CHECK(get_elem(r, 0) == 0 && get_elem(r, 2) == 1);
    tl_tensor_decref(r);
    CHECK(binop(TL_BINARY_SUB, t, u) == NULL);
    CHECK(msg_has("logical_xor"));
    tl_tensor_impl *one = scalar_i(1);
    r = binop(TL_BINARY_ADD, t, one);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_INT64 && get_i64(r, 1) == 2);
    tl_tensor_decref(r);

    tl_tensor_decref(one);
    tl_tensor_decref(t);
    tl_tensor_decref(u);
    tl_tensor_decref(ia);
    tl_tensor_decref(s1);
    tl_tensor_decref(la);
    tl_tensor_decref(dv);
    tl_tensor_decref(lt);
    tl_tensor_decref(mx);
    tl_tensor_decref(mn);
    CHECK_EQ_I64(tl_tensor_refcount(a), 1);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_half_ops(void)
{
    /* float16 computes in float32 and rounds once. */
    double av[] = {1.0, 2049.0, 0.1, 65504.0}, bv[] = {0x1p-11, 1, 0.2, 32};
    tl_tensor_impl *a = vec(F16, 4, av), *b = vec(F16, 4, bv);
    tl_tensor_impl *s = binop(TL_BINARY_ADD, a, b);
    CHECK(tl_tensor_dtype(s) == TL_DTYPE_FLOAT16);
    for (int i = 0; i < 4; i++) {
        float e = tl_half_to_float(tl_half_from_float(
            (float)get_elem(a, i) + (float)get_elem(b, i)));
        CHECK(get_elem(s, i) == e);
    }
    tl_tensor_impl *bf = vec(BF, 4, av);
    tl_tensor_impl *m = binop(TL_BINARY_MUL, a, bf);
    CHECK(tl_tensor_dtype(m) == TL_DTYPE_FLOAT32);
    tl_tensor_impl *c = binop(TL_BINARY_GT, a, b);
    CHECK(get_elem(c, 0) == 1 && get_elem(c, 2) == 0);
    tl_tensor_impl *sq = tl_op_unary(TL_UNARY_SQRT, NULL, a);
    CHECK(tl_tensor_dtype(sq) == TL_DTYPE_FLOAT16);
    CHECK(get_elem(sq, 0) == 1.0);
    tl_tensor_decref(sq);
    tl_tensor_decref(c);
    tl_tensor_decref(m);
    tl_tensor_decref(bf);
    tl_tensor_decref(s);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_complex_ops(void)
{
    int64_t s[] = {3};
    tl_tensor_impl *a = empty(1, s, C128), *b = empty(1, s, C128);
    double complex *pa = tl_tensor_data(a), *pb = tl_tensor_data(b);
    pa[0] = 1 + 2 * I; pb[0] = 3 - 1 * I;
    pa[1] = -2 + 0.5 * I; pb[1] = 0 + 2 * I;
    pa[2] = 4 + 0 * I; pb[2] = 2 + 0 * I;
    tl_tensor_impl *m = binop(TL_BINARY_MUL, a, b);
    tl_tensor_impl *d = binop(TL_BINARY_DIV, a, b);
    tl_tensor_impl *p = binop(TL_BINARY_POW, a, b);
    double complex *pm = tl_tensor_data(m), *pd = tl_tensor_data(d);
    double complex *pp = tl_tensor_data(p);
    CHECK(pm[0] == 5 + 5 * I);
    CHECK(cabs(pd[0] - (0.1 + 0.7 * I)) < 1e-15);
    CHECK(pd[2] == 2);
    CHECK(pp[2] == 16); /* exact: small integer exponent */
    CHECK(cabs(pp[0] - cpow(pa[0], pb[0])) < 1e-12);
    tl_tensor_impl *ab = tl_op_unary(TL_UNARY_ABS, NULL, a);
    CHECK(tl_tensor_dtype(ab) == TL_DTYPE_FLOAT64);
    CHECK(fabs(get_elem(ab, 0) - sqrt(5.0)) < 1e-15);
    tl_tensor_impl *sq = tl_op_unary(TL_UNARY_SQRT, NULL, b);
    CHECK(cabs(((double complex *)tl_tensor_data(sq))[1] - (1 + 1 * I)) <
          1e-15);
    tl_tensor_impl *eq = binop(TL_BINARY_EQ, a, a);
    CHECK(get_elem(eq, 0) == 1);
    CHECK(binop(TL_BINARY_LT, a, b) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(binop(TL_BINARY_MAXIMUM, a, b) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(tl_op_unary(TL_UNARY_SIGN, NULL, a) == NULL);
    CHECK(msg_has("sgn"));
    tl_tensor_impl *sg = tl_op_unary(TL_UNARY_SGN, NULL, a);
    CHECK(cabs(((double complex *)tl_tensor_data(sg))[2] - 1) < 1e-15);
    /* complex -> real copy keeps the real part */
    tl_tensor_impl *re = empty(1, s, F32);
    CHECK(tl_op_copy_(re, a) == 0);
    CHECK(get_elem(re, 1) == -2);
    tl_tensor_decref(re);
    tl_tensor_decref(sg);
    tl_tensor_decref(eq);
    tl_tensor_decref(sq);
    tl_tensor_decref(ab);
    tl_tensor_decref(m);
    tl_tensor_decref(d);
    tl_tensor_decref(p);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

/* ---- out= --------------------------------------------------------------- */

static void test_out_semantics(void)
{
    double av[] = {1.5, 2.5, 3.5};
    tl_tensor_impl *a = vec(F32, 3, av);
    int64_t s[] = {3};
    tl_tensor_impl *o64 = empty(1, s, F64);
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_MUL, o64, a, a, NULL);
    CHECK(r == o64);
    CHECK(get_elem(o64, 2) == 12.25);
    CHECK_EQ_I64(tl_tensor_version(o64), 1);
    tl_tensor_decref(r);
    tl_tensor_impl *oi = empty(1, s, I64);
    CHECK(tl_op_binary(TL_BINARY_MUL, oi, a, a, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(msg_has("the result has dtype float32, which an output of dtype "
                  "int64 cannot hold"));
    /* In-place int += float refuses; int += int is fine. */
    tl_tensor_impl *one_f = scalar_f(1.0);
    CHECK(tl_op_binary(TL_BINARY_ADD, oi, oi, one_f, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    /* A comparison into an int out casts the bools. */
    r = tl_op_binary(TL_BINARY_GT, oi, a, one_f, NULL);
    CHECK(r == oi && get_i64(oi, 0) == 1);
    tl_tensor_decref(r);
    /* Read-only out. */
    float ro_mem[3] = {0, 0, 0};
    tl_block *blk = tl_block_wrap(ro_mem, sizeof ro_mem, tl_device_cpu(),
                                  true, NULL, NULL);
    tl_storage *st = tl_storage_from_block(blk, 0, sizeof ro_mem);
    int64_t one[] = {1};
    tl_tensor_impl *ro = tl_tensor_new(st, 0, 1, s, one, TL_DTYPE_FLOAT32);
    CHECK(tl_op_binary(TL_BINARY_ADD, ro, a, a, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_READONLY);
    CHECK(tl_op_copy_(ro, a) == TL_ERR_READONLY);
    tl_scalar z = tl_scalar_int(0);
    CHECK(tl_op_fill_(ro, &z) == TL_ERR_READONLY);
    CHECK(ro_mem[0] == 0);
    tl_tensor_decref(ro);
    tl_storage_decref(st);
    tl_block_decref(blk);
    tl_tensor_decref(one_f);
    tl_tensor_decref(oi);
    tl_tensor_decref(o64);
    tl_tensor_decref(a);
}

/* ---- unary -------------------------------------------------------------- */

static void test_unary_values(void)
{
    double v[] = {0.5, 1.5, 2.5, -0.5, -2.5, 3.7, NAN, -INFINITY};
    tl_tensor_impl *a = vec(F64, 8, v);
    tl_tensor_impl *r = tl_op_unary(TL_UNARY_ROUND, NULL, a);
    const double er[] = {0, 2, 2, -0.0, -2, 4};
    for (int i = 0; i < 6; i++) {
        CHECK(get_elem(r, i) == er[i]);
    }
    CHECK(signbit(get_elem(r, 3)));
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_SIGN, NULL, a);
    CHECK(get_elem(r, 4) == -1 && isnan(get_elem(r, 6)));
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_RELU, NULL, a);
    CHECK(get_elem(r, 4) == 0 && isnan(get_elem(r, 6)) &&
          get_elem(r, 5) == 3.7);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_ISNAN, NULL, a);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_BOOL && get_elem(r, 6) == 1 &&
          get_elem(r, 7) == 0);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_ISFINITE, NULL, a);
    CHECK(get_elem(r, 0) == 1 && get_elem(r, 7) == 0);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_SIGMOID, NULL, a);
    CHECK(fabs(get_elem(r, 0) - 1 / (1 + exp(-0.5))) < 1e-15);
    tl_tensor_decref(r);

    double iv[] = {4, 9, -3, 0};
    tl_tensor_impl *ia = vec(I32, 4, iv);
    r = tl_op_unary(TL_UNARY_SQRT, NULL, ia);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_FLOAT32 && get_elem(r, 1) == 3);
    CHECK(isnan(get_elem(r, 2)));
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_FLOOR, NULL, ia);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_INT32 && get_elem(r, 2) == -3);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_ABS, NULL, ia);
    CHECK(get_elem(r, 2) == 3);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_BITWISE_NOT, NULL, ia);
    CHECK(get_elem(r, 3) == -1);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_ISNAN, NULL, ia);
    CHECK(get_elem(r, 0) == 0);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_NEG, NULL, ia);
    CHECK(get_elem(r, 2) == 3);
    tl_tensor_decref(r);

    double bv[] = {0, 1};
    tl_tensor_impl *ba = vec(B, 2, bv);
    CHECK(tl_op_unary(TL_UNARY_NEG, NULL, ba) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    r = tl_op_unary(TL_UNARY_LOGICAL_NOT, NULL, ia);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_BOOL && get_elem(r, 3) == 1);
    tl_tensor_decref(r);
    CHECK(tl_op_unary(TL_UNARY_ABS, NULL, ba) == NULL);
    CHECK(tl_op_unary(TL_UNARY_FLOOR, NULL, ba) == NULL);
    CHECK(tl_op_unary(TL_UNARY_RELU, NULL, ba) == NULL);
    r = tl_op_unary(TL_UNARY_SIGN, NULL, ba);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_BOOL && get_elem(r, 1) == 1);
    tl_tensor_decref(r);
    r = tl_op_unary(TL_UNARY_SQUARE, NULL, ba);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_INT64 && get_i64(r, 1) == 1);
    tl_tensor_decref(r);
    /* In place, with a cast back: float32 out of exp of float32. */
    r = tl_op_unary(TL_UNARY_EXP, a, a);
    CHECK(r == a && get_elem(a, 0) == exp(0.5));
    tl_tensor_decref(r);
    CHECK(tl_op_unary(TL_UNARY_EXP, ia, ia) == NULL); /* float -> int */
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(tl_op_unary_from_name("negative") == TL_UNARY_NEG);
    CHECK(tl_op_binary_from_name("true_divide") == TL_BINARY_DIV);
    CHECK(tl_op_binary_from_name("nope") == -1);
    CHECK(strcmp(tl_op_binary_name(TL_BINARY_FLOOR_DIVIDE),
                 "floor_divide") == 0);
    tl_tensor_decref(ba);
    tl_tensor_decref(ia);
    tl_tensor_decref(a);
}

static int64_t ulp_diff(float a, float b)
{
    if (a != a || b != b) {
        return (a != a) == (b != b) ? 0 : INT32_MAX;
    }
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) {
        ia = INT32_MIN - ia;
    }
    if (ib < 0) {
        ib = INT32_MIN - ib;
    }
    return llabs((int64_t)ia - ib);
}

static void test_fast_exp_log(void)
{
    /* float32 exp/log/log2/log10 (vectorised, Note [float32 exp and log])
     * within 1 ulp of the double-precision result on a sweep of bit
     * patterns, and the special values exact. */
    enum { N = 4300000 };
    int64_t s[] = {N};
    tl_tensor_impl *x = empty(1, s, F32);
    float *px = tl_tensor_data(x);
    uint32_t bits = 0;
    for (int i = 0; i < N; i++, bits += 997) {
        memcpy(&px[i], &bits, 4);
    }
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f,
                             88.72283f, 88.72284f, -87.33655f, -103.97208f,
                             -103.97209f, 1e-45f, FLT_MAX, FLT_MIN, 2.0f,
                             0.5f, 10.0f, -1.0f};
    memcpy(px, special, sizeof special);
    /* The reference: libm in double, rounded once (nearly correctly
     * rounded; glibc's log10f itself is up to 2 ulp off). */
    const struct {
        int op;
        double (*ref)(double);
    } fns[] = {{TL_UNARY_EXP, exp}, {TL_UNARY_LOG, log},
               {TL_UNARY_LOG2, log2}, {TL_UNARY_LOG10, log10}};
    for (size_t k = 0; k < 4; k++) {
        tl_tensor_impl *r = tl_op_unary(fns[k].op, NULL, x);
        const float *pr = tl_tensor_data(r);
        int64_t worst = 0, special_bad = 0;
        for (int i = 0; i < N; i++) {
            int64_t d = ulp_diff(pr[i], (float)fns[k].ref(px[i]));
            worst = d > worst ? d : worst;
            special_bad += i < (int)(sizeof special / sizeof special[0]) &&
                           d != 0;
        }
        if (worst > 1 || special_bad) {
            fprintf(stderr, "%s: worst %lld ulp, %lld special values off\n",
                    tl_op_unary_name(fns[k].op), (long long)worst,
                    (long long)special_bad);
        }
        CHECK(worst <= 1);
        CHECK_EQ_I64(special_bad, 0);
        tl_tensor_decref(r);
    }
    tl_tensor_impl *r = tl_op_unary(TL_UNARY_SIGMOID, NULL, x);
    const float *pr = tl_tensor_data(r);
    int64_t worst = 0;
    for (int i = 0; i < N; i++) {
        /* The true value, also where exp(-x) overflows float (below
         * -88.7 sigmoid is still representable, down to subnormals: the
         * vectorised loop of Note [Vectorised transcendental loops]
         * computes it there, as NumPy's float32 expit does). */
        double ref = 1.0 / (1.0 + exp(-(double)px[i]));
        int64_t d = ulp_diff(pr[i], (float)ref);
        worst = d > worst ? d : worst;
    }
    CHECK(worst <= 2);
    tl_tensor_decref(r);
    tl_tensor_decref(x);
}

/* ---- where / clamp / fill ----------------------------------------------- */

static void test_where_clamp(void)
{
    double cv[] = {1, 0, 1, 0}, av[] = {1, 2, 3, 4};
    tl_tensor_impl *c = vec(B, 4, cv), *a = vec(I32, 4, av);
    tl_tensor_impl *f = scalar_f(-1.5);
    tl_tensor_impl *w = tl_op_where(NULL, c, a, f);
    CHECK(tl_tensor_dtype(w) == TL_DTYPE_FLOAT32);
    CHECK(get_elem(w, 0) == 1 && get_elem(w, 1) == -1.5);
    tl_tensor_decref(w);
    tl_tensor_impl *ci = vec(I32, 4, cv);
    CHECK(tl_op_where(NULL, ci, a, f) == NULL);
    CHECK(msg_has("the condition must have dtype bool, not int32"));
    /* A 0-dim condition broadcasts. */
    tl_scalar t = tl_scalar_bool(false);
    tl_tensor_impl *c0 = tl_scalar_to_tensor(&t);
    w = tl_op_where(NULL, c0, a, f);
    CHECK(get_elem(w, 3) == -1.5);
    tl_tensor_decref(w);

    /* 2- and 16-byte selections. */
    double hv[] = {0.5, 1.5, 2.5, 3.5};
    tl_tensor_impl *h = vec(F16, 4, hv), *z = vec(C128, 4, hv);
    w = tl_op_where(NULL, c, h, h);
    CHECK(tl_tensor_dtype(w) == TL_DTYPE_FLOAT16 && get_elem(w, 3) == 3.5);
    tl_tensor_decref(w);
    tl_tensor_impl *zero = scalar_i(0);
    w = tl_op_where(NULL, c, z, zero);
    CHECK(tl_tensor_dtype(w) == TL_DTYPE_COMPLEX128);
    CHECK(get_elem(w, 2) == 2.5 && get_elem(w, 3) == 0);
    CHECK(cimag(((double complex *)tl_tensor_data(w))[0]) == 0.5);
    tl_tensor_decref(w);
    tl_tensor_decref(zero);
    tl_tensor_decref(z);
    tl_tensor_decref(h);

    double xv[] = {-5, 0.5, 5, NAN};
    tl_tensor_impl *x = vec(F32, 4, xv);
    tl_tensor_impl *lo = scalar_f(0), *hi = scalar_f(1), *nan = scalar_f(NAN);
    tl_tensor_impl *r = tl_op_clamp(NULL, x, lo, hi);
    CHECK(get_elem(r, 0) == 0 && get_elem(r, 1) == 0.5 && get_elem(r, 2) == 1);
    CHECK(isnan(get_elem(r, 3)));
    tl_tensor_decref(r);
    r = tl_op_clamp(NULL, x, NULL, hi);
    CHECK(get_elem(r, 0) == -5 && get_elem(r, 2) == 1 &&
          isnan(get_elem(r, 3)));
    tl_tensor_decref(r);
    r = tl_op_clamp(NULL, x, nan, hi);
    CHECK(isnan(get_elem(r, 1)));
    tl_tensor_decref(r);
    r = tl_op_clamp(NULL, x, hi, lo); /* min > max gives max */
    CHECK(get_elem(r, 1) == 0);
    tl_tensor_decref(r);
    CHECK(tl_op_clamp(NULL, x, NULL, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(msg_has("min and max are both None"));
    /* int tensor clamped by a float scalar promotes. */
    tl_tensor_impl *lo15 = scalar_f(1.5);
    r = tl_op_clamp(NULL, a, lo15, NULL);
    CHECK(tl_tensor_dtype(r) == TL_DTYPE_FLOAT32 && get_elem(r, 0) == 1.5);
    tl_tensor_decref(r);
    tl_tensor_decref(lo15);
    tl_tensor_decref(lo);
    tl_tensor_decref(hi);
    tl_tensor_decref(nan);
    tl_tensor_decref(x);
    tl_tensor_decref(c0);
    tl_tensor_decref(ci);
    tl_tensor_decref(f);
    tl_tensor_decref(c);
    tl_tensor_decref(a);
}

static void test_fill(void)
{
    int64_t s[] = {5};
    tl_tensor_impl *t = empty(1, s, I8);
    tl_scalar v = tl_scalar_int(-3);
    CHECK(tl_op_fill_(t, &v) == 0);
    CHECK(get_elem(t, 4) == -3);
    CHECK_EQ_I64(tl_tensor_version(t), 1);
    v = tl_scalar_int(300);
    CHECK(tl_op_fill_(t, &v) == TL_ERR_OVERFLOW);
    CHECK(get_elem(t, 0) == -3);
    v = tl_scalar_float(NAN);
    CHECK(tl_op_fill_(t, &v) == TL_ERR_OVERFLOW);
    v = tl_scalar_float(-128.7);
    CHECK(tl_op_fill_(t, &v) == 0 && get_elem(t, 2) == -128);
    tl_tensor_impl *h = empty(1, s, F16);
    v = tl_scalar_float(1e6);
    CHECK(tl_op_fill_(h, &v) == TL_ERR_OVERFLOW);
    v = tl_scalar_float(INFINITY);
    CHECK(tl_op_fill_(h, &v) == 0 && isinf(get_elem(h, 1)));
    v = tl_scalar_complex(1, 2);
    CHECK(tl_op_fill_(h, &v) == TL_ERR_TYPE);
    tl_tensor_impl *c = empty(1, s, C64);
    CHECK(tl_op_fill_(c, &v) == 0);
    CHECK(cimagf(((float complex *)tl_tensor_data(c))[4]) == 2);
    /* A strided view: only its elements. */
    int64_t bs[] = {10};
    tl_tensor_impl *base = empty(1, bs, I64);
    tl_scalar zero = tl_scalar_int(0), seven = tl_scalar_int(7);
    tl_op_fill_(base, &zero);
    int64_t vs[] = {5}, vst[] = {2};
    tl_tensor_impl *view = tl_tensor_as_strided(base, 1, vs, vst, 1);
    CHECK(tl_op_fill_(view, &seven) == 0);
    CHECK(get_i64(base, 0) == 0 && get_i64(base, 1) == 7 &&
          get_i64(base, 9) == 7 && get_i64(base, 8) == 0);
    v = tl_scalar_int(INT64_MIN);
    CHECK(tl_op_fill_(base, &v) == 0 && get_i64(base, 3) == INT64_MIN);
    tl_tensor_decref(view);
    tl_tensor_decref(base);
    tl_tensor_decref(c);
    tl_tensor_decref(h);
    tl_tensor_decref(t);
}

/* ---- conversions and layouts -------------------------------------------- */

static void test_to_contiguous_clone(void)
{
    int64_t s[] = {4, 6};
    tl_tensor_impl *a = empty(2, s, F32);
    for (int i = 0; i < 24; i++) {
        set_elem(a, i, i);
    }
    tl_tensor_impl *same = tl_op_to_dtype(a, TL_DTYPE_FLOAT32, false);
    CHECK(same == a);
    tl_tensor_decref(same);
    tl_tensor_impl *cp = tl_op_to_dtype(a, TL_DTYPE_FLOAT32, true);
    CHECK(cp != a && get_elem(cp, 23) == 23);
    tl_tensor_decref(cp);
    tl_tensor_impl *c = tl_op_contiguous(a, TL_FORMAT_CONTIGUOUS);
    CHECK(c == a);
    tl_tensor_decref(c);

    /* A transposed slice (not dense): clone keeps the transposed order. */
    int64_t ts[] = {3, 4}, tst[] = {2, 6};
    tl_tensor_impl *v = tl_tensor_as_strided(a, 2, ts, tst, 0);
    tl_tensor_impl *k = tl_op_clone(v, TL_FORMAT_PRESERVE);
    CHECK_EQ_I64(tl_tensor_strides(k)[0], 1);
    CHECK_EQ_I64(tl_tensor_strides(k)[1], 3);
    CHECK(get_elem(k, 5) == get_elem(v, 5));
    tl_tensor_decref(k);
    /* A transposed dense tensor keeps its strides exactly. */
    int64_t t2s[] = {6, 4}, t2st[] = {1, 6};
    tl_tensor_impl *t2 = tl_tensor_as_strided(a, 2, t2s, t2st, 0);
    k = tl_op_clone(t2, TL_FORMAT_PRESERVE);
    CHECK_EQ_I64(tl_tensor_strides(k)[0], 1);
    CHECK_EQ_I64(tl_tensor_strides(k)[1], 6);
    tl_tensor_decref(k);
    k = tl_op_contiguous(t2, TL_FORMAT_CONTIGUOUS);
    CHECK(tl_tensor_is_contiguous(k, TL_FORMAT_CONTIGUOUS));
    CHECK(get_elem(k, 1) == 6);
    tl_tensor_decref(k);
    k = tl_op_to_dtype(t2, TL_DTYPE_INT16, false);
    CHECK(tl_tensor_dtype(k) == TL_DTYPE_INT16);
    CHECK_EQ_I64(tl_tensor_strides(k)[1], 6);
    CHECK(get_elem(k, 1) == 6);
    tl_tensor_decref(k);
    CHECK(tl_op_contiguous(t2, TL_FORMAT_PRESERVE) == NULL);
    /* channels_last */
    int64_t s4[] = {2, 3, 2, 2};
    tl_tensor_impl *x = empty(4, s4, F64);
    for (int i = 0; i < 24; i++) {
        set_elem(x, i, i);
    }
    k = tl_op_contiguous(x, TL_FORMAT_CHANNELS_LAST);
    CHECK(tl_tensor_is_contiguous(k, TL_FORMAT_CHANNELS_LAST));
    CHECK(get_elem(k, 7) == 7);
    tl_tensor_decref(k);
    CHECK(tl_op_contiguous(a, TL_FORMAT_CHANNELS_LAST) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    tl_tensor_decref(x);
    tl_tensor_decref(t2);
    tl_tensor_decref(v);
    CHECK_EQ_I64(tl_tensor_refcount(a), 1);
    tl_tensor_decref(a);

    /* item */
    tl_tensor_impl *s0 = scalar_f(2.5);
    tl_scalar it;
    CHECK(tl_tensor_item(s0, &it) == 0 && it.kind == TL_KIND_FLOAT &&
          it.v.f == 2.5);
    CHECK(tl_tensor_flags(s0) & TL_FLAG_WRAPPED_NUMBER);
    tl_tensor_decref(s0);
}

int main(void)
{
    RUN(test_promote_table);
    RUN(test_result_type);
    RUN(test_can_cast);
    RUN(test_int_division);
    RUN(test_zero_division);
    RUN(test_float_divmod);
    RUN(test_int_wrap_and_shift);
    RUN(test_int_pow);
    RUN(test_float_to_int_saturation);
    RUN(test_half_rounding);
    RUN(test_copy_all_pairs_transposed);
    RUN(test_copy_large_transposed);
    RUN(test_binary_values);
    RUN(test_half_ops);
    RUN(test_complex_ops);
    RUN(test_out_semantics);
    RUN(test_unary_values);
    RUN(test_fast_exp_log);
    RUN(test_where_clamp);
    RUN(test_fill);
    RUN(test_to_contiguous_clone);
    DONE();
}
