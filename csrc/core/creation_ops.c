/* csrc/core/creation_ops.c — creation kernels that need a formula rather
 * than a fill or a copy: linspace and logspace.  Values are computed in
 * double (per component for complex) and rounded once into the result
 * dtype, so they match NumPy's float64 computation cast down; complex
 * and polar, which write the two components of a new complex tensor
 * through float views of its storage. */
#include <complex.h>
#include <inttypes.h>
#include <math.h>

#include "tensor_impl.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/view.h"

/* PyTorch's two-sided linspace: the first half counts up from start, the
 * second counts down from end, so both ends are exact. */
static double lin_at(double a, double b, int64_t steps, int64_t i)
{
    if (steps == 1) {
        return a;
    }
    double step = (b - a) / (double)(steps - 1);
    int64_t half = steps / 2;
    return i < half ? a + step * (double)i
                    : b - step * (double)(steps - 1 - i);
}

static void scalar_parts(const tl_scalar *s, double *re, double *im)
{
    *im = 0.0;
    switch (s->kind) {
    case TL_KIND_BOOL:
    case TL_KIND_INT:
        *re = (double)s->v.i;
        break;
    case TL_KIND_UINT:
        *re = (double)s->v.u;
        break;
    case TL_KIND_FLOAT:
        *re = s->v.f;
        break;
    default:
        *re = s->v.c[0];
        *im = s->v.c[1];
        break;
    }
}

tl_tensor_impl *tl_op_linspace(const tl_scalar *start, const tl_scalar *end,
                               int64_t steps, double base, tl_dtype dt)
{
    const char *op = base > 0 ? "logspace" : "linspace";
    if (steps < 0) {
        tl_error(TL_ERR_SHAPE, "%s(): number of steps must be non-negative, "
                 "got %" PRId64, op, steps);
        return NULL;
    }
    bool cplx = tl_dtype_is_complex(dt);
    double ar, ai, br, bi;
    scalar_parts(start, &ar, &ai);
    scalar_parts(end, &br, &bi);
    if (!cplx && (start->kind == TL_KIND_COMPLEX ||
                  end->kind == TL_KIND_COMPLEX)) {
        tl_error(TL_ERR_TYPE, "%s(): complex start or end needs a complex "
                 "dtype, not %s", op, tl_dtype_info_of(dt)->name);
        return NULL;
    }
    /* start and end must fit the dtype, as PyTorch's checked conversion
     * (full()'s rule): linspace(-1, 1, 3, dtype=uint8) is an error. */
    if (tl_scalar_check_fill(start, dt) < 0 ||
        tl_scalar_check_fill(end, dt) < 0) {
        return NULL;
    }
    if (tl_dtype_is_integral(dt, true)) {
        /* PyTorch converts the ends to the integer dtype first, then
         * truncates each value of the formula. */
        ar = trunc(ar);
        br = trunc(br);
    }
    tl_tensor_impl *w = tl_tensor_empty(1, &steps,
                                        cplx ? TL_DTYPE_COMPLEX128
                                             : TL_DTYPE_FLOAT64,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (!w) {
        return NULL;
    }
    double *v = (double *)tl_impl_data(w);
    for (int64_t i = 0; i < steps; i++) {
        double re = lin_at(ar, br, steps, i);
        if (cplx) {
            double im = lin_at(ai, bi, steps, i);
            if (base > 0) {
                double _Complex z = cpow(base, re + im * I);
                re = creal(z);
                im = cimag(z);
            }
            v[2 * i] = re;
            v[2 * i + 1] = im;
        } else {
            v[i] = base > 0 ? pow(base, re) : re;
        }
    }
    tl_tensor_impl *r = tl_op_to_dtype(w, dt, false);
    tl_tensor_decref(w);
    return r;
}

/* The float32/float64 view of component `part` (0 real, 1 imaginary) of
 * the new contiguous complex tensor c.  Returns: new reference, or NULL. */
static tl_tensor_impl *component(tl_tensor_impl *c, int part)
{
    int64_t strides[TL_MAX_DIMS];
    for (int d = 0; d < c->ndim; d++) {
        strides[d] = 2 * c->strides[d];
    }
    tl_dtype rt = c->dtype == TL_DTYPE_COMPLEX64 ? TL_DTYPE_FLOAT32
                                                 : TL_DTYPE_FLOAT64;
    return tl_tensor_new(c->storage, 2 * c->storage_offset + part, c->ndim,
                         c->sizes, strides, rt);
}

tl_tensor_impl *tl_op_complex(tl_tensor_impl *re, tl_tensor_impl *im)
{
    tl_dtype a = (tl_dtype)re->dtype, b = (tl_dtype)im->dtype;
    if ((a != TL_DTYPE_FLOAT32 && a != TL_DTYPE_FLOAT64) ||
        (b != TL_DTYPE_FLOAT32 && b != TL_DTYPE_FLOAT64)) {
        tl_error(TL_ERR_TYPE, "complex(): Expected both inputs to be "
                 "float32 or float64 tensors (tensorlib has no complex32), "
                 "but got %s and %s", tl_dtype_info_of(a)->name,
                 tl_dtype_info_of(b)->name);
        return NULL;
    }
    if (a != b) {
        tl_error(TL_ERR_TYPE, "complex(): Expected object of scalar type %s "
                 "but got scalar type %s for second argument",
                 tl_dtype_info_of(a)->name, tl_dtype_info_of(b)->name);
        return NULL;
    }
    if (re->device.type != im->device.type ||
        re->device.index != im->device.index) {
        tl_error(TL_ERR_RUNTIME, "complex(): expected both inputs on the "
                 "same device");
        return NULL;
    }
    int64_t shape[TL_MAX_DIMS];
    int nd = tl_broadcast_shapes(re->ndim, re->sizes, im->ndim, im->sizes,
                                 shape);
    if (nd < 0) {
        return NULL;
    }
    tl_tensor_impl *c = tl_tensor_empty(nd, shape,
                                        a == TL_DTYPE_FLOAT32
                                            ? TL_DTYPE_COMPLEX64
                                            : TL_DTYPE_COMPLEX128,
                                        re->device, TL_MEMKIND_DEFAULT);
    if (!c) {
        return NULL;
    }
    for (int part = 0; part < 2; part++) {
        tl_tensor_impl *v = component(c, part);
        int rc = v ? tl_copy_unchecked(v, part ? im : re) : -1;
        tl_tensor_decref(v);
        if (rc < 0) {
            tl_tensor_decref(c);
            return NULL;
        }
    }
    return c;
}

tl_tensor_impl *tl_op_polar(tl_tensor_impl *abs, tl_tensor_impl *angle)
{
    tl_tensor_impl *c = NULL, *s = NULL, *re = NULL, *im = NULL, *r = NULL;
    if (abs->dtype != angle->dtype) {
        tl_error(TL_ERR_TYPE, "polar(): Expected object of scalar type %s "
                 "but got scalar type %s for second argument",
                 tl_dtype_info_of((tl_dtype)abs->dtype)->name,
                 tl_dtype_info_of((tl_dtype)angle->dtype)->name);
        return NULL;
    }
    if (abs->dtype != TL_DTYPE_FLOAT32 && abs->dtype != TL_DTYPE_FLOAT64) {
        tl_error(TL_ERR_TYPE, "polar(): Expected both inputs to be float32 "
                 "or float64 tensors, but got %s",
                 tl_dtype_info_of((tl_dtype)abs->dtype)->name);
        return NULL;
    }
    if ((c = tl_op_unary(TL_UNARY_COS, NULL, angle)) &&
        (s = tl_op_unary(TL_UNARY_SIN, NULL, angle)) &&
        (re = tl_op_binary(TL_BINARY_MUL, NULL, abs, c, NULL)) &&
        (im = tl_op_binary(TL_BINARY_MUL, NULL, abs, s, NULL))) {
        r = tl_op_complex(re, im);
    }
    tl_tensor_decref(c);
    tl_tensor_decref(s);
    tl_tensor_decref(re);
    tl_tensor_decref(im);
    return r;
}
