/* csrc/core/creation_ops.c — creation kernels that need a formula rather
 * than a fill or a copy: linspace and logspace.  Values are computed in
 * double (per component for complex) and rounded once into the result
 * dtype, so they match NumPy's float64 computation cast down. */
#include <complex.h>
#include <inttypes.h>
#include <math.h>

#include "tensor_impl.h"
#include "tensorlib/joinindex.h"

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
        tl_error(TL_ERR_VALUE, "%s(): number of steps must be non-negative, "
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
