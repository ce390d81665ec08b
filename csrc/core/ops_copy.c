/* csrc/core/ops_copy.c — copies and conversions: copy_, fill_, to_dtype,
 * contiguous, clone, and scalars as 0-dim tensors.  New tensors come from
 * tl_tensor_empty*; no data malloc here. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_impl.h"
#include "iter_impl.h"
#include "kernels.h"
#include "shape.h"

static const char *dname(int dt) { return tl_dtype_table[dt].name; }

/* Runs the copy loop src -> dst over a built iterator whose operand 0 is
 * dst and 1 is src (copy loops take any alignment: no buffering). */
static void run_copy(tl_iter *it)
{
    it->no_buffering = true;
    tl_iter_for_each(it, tl_copy_loop_get(it->ops[1].dtype, it->ops[0].dtype),
                     NULL);
}

/* Issue 22: a small same-dtype CPU copy into a fresh contiguous dst of
 * src's shape (contiguous() or clone() of a small view) is a plain strided
 * gather, without the iterator's set-up.  Returns 1 when copied, 0 when
 * the general path must run, or an error (a stale workspace src). */
enum { SMALL_COPY_MAX = 64 };
static int small_copy(tl_tensor_impl *dst, const tl_tensor_impl *src)
{
    const int nd = src->ndim;
    if (src->dtype != dst->dtype || src->numel > SMALL_COPY_MAX ||
        src->numel == 0 || nd > 4 || nd != dst->ndim ||
        src->device.type != TL_DEVICE_CPU ||
        dst->device.type != TL_DEVICE_CPU ||
        !(dst->flags & TL_FLAG_CONTIGUOUS) ||
        !tl_sizes_equal(dst, nd, src->sizes)) {
        return 0;
    }
    int rc = tl_tensor_check_live(src);
    if (rc < 0) {
        return rc;
    }
    /* tl_tensor_check_live also refused a src whose storage was shrunk
     * below its extent (issue 23). */
    const int64_t isz = tl_itemsize(src->dtype);
    const char *in = tl_impl_data(src);
    char *out = tl_impl_data(dst);
    /* Up to 2 dims (most small copies: a transposed matrix), two loops
     * over the sizes as they are; 3 and 4 dims padded to 4 in front.
     * (Padding every shape cost ~80 instructions of set-up.) */
    /* (A dim of size 1 may carry any stride, -2^63 + 1 included: its
     * byte stride is never needed and could overflow, so it is 0.) */
#define BYTE_STRIDE(d) (src->sizes[d] > 1 ? src->strides[d] * isz : 0)
    int64_t sz[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0};
    if (nd > 2) {
        for (int d = 0; d < nd; d++) {
            sz[4 - nd + d] = src->sizes[d];
            st[4 - nd + d] = BYTE_STRIDE(d);
        }
    } else if (nd > 0) {
        sz[3] = src->sizes[nd - 1];
        st[3] = BYTE_STRIDE(nd - 1);
        if (nd == 2) {
            sz[2] = src->sizes[0];
            st[2] = BYTE_STRIDE(0);
        }
    }
#undef BYTE_STRIDE
    /* One loop nest per item size, so that each item is one move (a
     * switch per item cost 30 instructions an item). */
#define SMALL_ROWS(T, o, base)                                              \
    for (int64_t i2 = 0; i2 < sz[2]; i2++) {                                \
        const char *p = (base) + i2 * st[2];                                \
        for (int64_t i3 = 0; i3 < sz[3]; i3++) {                            \
            memcpy((o)++, p, sizeof(T));                                    \
            p += st[3];                                                     \
        }                                                                   \
    }
#define SMALL_GATHER(T)                                                     \
    do {                                                                    \
        T *o = (T *)(void *)out;                                            \
        if (nd <= 2) {                                                      \
            SMALL_ROWS(T, o, in)                                            \
            break;                                                          \
        }                                                                   \
        for (int64_t i0 = 0; i0 < sz[0]; i0++) {                            \
            for (int64_t i1 = 0; i1 < sz[1]; i1++) {                        \
                SMALL_ROWS(T, o, in + i0 * st[0] + i1 * st[1])              \
            }                                                               \
        }                                                                   \
    } while (0)
    typedef struct { uint64_t w[2]; } item16;
    switch (isz) {
    case 1: SMALL_GATHER(uint8_t); break;
    case 2: SMALL_GATHER(uint16_t); break;
    case 4: SMALL_GATHER(uint32_t); break;
    case 8: SMALL_GATHER(uint64_t); break;
    case 16: SMALL_GATHER(item16); break;
    default:
        return 0; /* no such dtype today: the general path copies it */
    }
#undef SMALL_ROWS
#undef SMALL_GATHER
    return 1;
}

/* Issue 22: a contiguous, aligned CPU src of any dtype into a fresh
 * contiguous dst of its shape, below the parallel grain (t.double(),
 * t.to(dtype), clone() of a contiguous tensor): the iterator's copy loop
 * once over numel elements, without the iterator (as Note [Same-layout
 * fast path] in ops.c does for elementwise ops).  Returns 1 when copied,
 * 0 when the general path must run, or an error (a stale workspace src, a
 * storage shrunk under it). */
static int small_cast(tl_tensor_impl *dst, const tl_tensor_impl *src)
{
    const uint32_t need = TL_FLAG_CONTIGUOUS | TL_FLAG_ALIGNED;
    if ((src->flags & need) != need || (dst->flags & need) != need ||
        src->device.type != TL_DEVICE_CPU ||
        dst->device.type != TL_DEVICE_CPU || src->numel == 0 ||
        src->numel >= TL_ITER_GRAIN ||
        !tl_sizes_equal(dst, src->ndim, src->sizes)) {
        return 0;
    }
    int rc = tl_tensor_check_live(src);
    if (rc < 0) {
        return rc;
    }
    char *ptrs[2] = {tl_impl_data(dst), tl_impl_data(src)};
    const int64_t st[4] = {tl_itemsize(dst->dtype), tl_itemsize(src->dtype),
                           0, 0};
    tl_copy_loop_get(src->dtype, dst->dtype)(ptrs, st, src->numel, 1, NULL);
    return 1;
}

static int copy_impl(tl_tensor_impl *dst, tl_tensor_impl *src, bool checks)
{
    if (!checks) { /* dst is fresh: no overlap, writable */
        int rc = small_copy(dst, src);
        if (rc == 0) {
            rc = small_cast(dst, src);
        }
        if (rc != 0) {
            return rc < 0 ? rc : 0;
        }
    }
    if (tl_device_is_cross(dst, src)) {
        /* Note [Cross-device copies] in device_table.c. */
        return tl_device_copy_cross(dst, src, false);
    }
    tl_iter it;
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, dst);
    tl_iter_config_add_input(&c, src);
    c.resize_outputs = false;
    c.check_all_same_dtype = false;
    c.check_mem_overlap = checks;
    c.check_writable = checks;
    c.device_kernels = true;
    int rc = tl_iter_build(&it, &c);
    if (rc < 0) {
        return rc;
    }
    if (it.device.type != TL_DEVICE_CPU) {
        rc = tl_device_run(&it, TL_DEV_COPY, 0, NULL);
    } else {
        run_copy(&it);
    }
    tl_iter_release(&it);
    return rc;
}

int tl_copy_unchecked(tl_tensor_impl *dst, tl_tensor_impl *src)
{
    return copy_impl(dst, src, false);
}

int tl_op_copy_(tl_tensor_impl *dst, tl_tensor_impl *src)
{
    if (!dst || !src) {
        return tl_error(TL_ERR_VALUE, "copy_: an operand is NULL");
    }
    if (dst == src) {
        return tl_tensor_check_writable(dst);
    }
    int rc = copy_impl(dst, src, true);
    if (rc == 0) {
        tl_tensor_bump_version(dst);
    }
    return rc;
}

/* ---- fill_ -------------------------------------------------------------- */

/* Largest finite value of a floating dtype (0 for others). */
static double float_max(int dt)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16: return 65504.0;
    case TL_DTYPE_BFLOAT16: return 0x1.fep127;
    case TL_DTYPE_FLOAT32:
    case TL_DTYPE_COMPLEX64: return FLT_MAX;
    default: return DBL_MAX;
    }
}

/* PyTorch's checked conversion of a fill value (c10::checked_convert):
 * integers must fit, finite floats must not overflow the target. */
int tl_scalar_check_fill(const tl_scalar *s, tl_dtype dt)
{
    const int k = tl_dtype_table[dt].kind;
    if (k == TL_KIND_BOOL) {
        return 0;
    }
    if (s->kind == TL_KIND_COMPLEX && k != TL_KIND_COMPLEX &&
        s->v.c[1] != 0) {
        return tl_error(TL_ERR_TYPE,
                        "value (%g%+gj) cannot be converted to type %s: it "
                        "has a nonzero imaginary part",
                        s->v.c[0], s->v.c[1], dname(dt));
    }
    if (k == TL_KIND_INT || k == TL_KIND_UINT) {
        static const struct {
            double lo, hi;
        } range[TL_DTYPE_COUNT] = {
            [TL_DTYPE_UINT8] = {0, 255},
            [TL_DTYPE_INT8] = {-128, 127},
            [TL_DTYPE_INT16] = {-32768, 32767},
            [TL_DTYPE_UINT16] = {0, 65535},
            [TL_DTYPE_INT32] = {-2147483648.0, 2147483647.0},
            [TL_DTYPE_UINT32] = {0, 4294967295.0},
            [TL_DTYPE_INT64] = {-0x1p63, 0x1p63},
            [TL_DTYPE_UINT64] = {0, 0x1p64},
        };
        bool ok;
        switch (s->kind) {
        case TL_KIND_BOOL:
            ok = true;
            break;
        case TL_KIND_UINT:
            /* int64's bound is exclusive: (double)2^63 <= 2^63 would let
             * 2**63 through, so int64 is decided on the integer alone. */
            ok = dt == TL_DTYPE_UINT64 ||
                 (dt == TL_DTYPE_INT64 ? s->v.u <= (uint64_t)INT64_MAX
                                       : (double)s->v.u <= range[dt].hi);
            break;
        case TL_KIND_INT:
            ok = (dt == TL_DTYPE_INT64) ||
                 (dt == TL_DTYPE_UINT64 && s->v.i >= 0) ||
                 ((double)s->v.i >= range[dt].lo &&
                  (double)s->v.i <= range[dt].hi);
            break;
        default: {
            double f = s->kind == TL_KIND_FLOAT ? s->v.f : s->v.c[0];
            /* Truncation toward zero must land in range; the 64-bit
             * bounds are exclusive at 2^63 / 2^64. */
            double t = trunc(f);
            ok = isfinite(f) && t >= range[dt].lo &&
                 (dt == TL_DTYPE_INT64 || dt == TL_DTYPE_UINT64
                      ? t < range[dt].hi
                      : t <= range[dt].hi);
            break;
        }
        }
        if (!ok) {
            char buf[64];
            switch (s->kind) {
            case TL_KIND_UINT:
                snprintf(buf, sizeof buf, "%" PRIu64, s->v.u);
                break;
            case TL_KIND_INT:
                snprintf(buf, sizeof buf, "%" PRId64, s->v.i);
                break;
            default:
                snprintf(buf, sizeof buf, "%g",
                         s->kind == TL_KIND_FLOAT ? s->v.f : s->v.c[0]);
                break;
            }
            return tl_error(TL_ERR_OVERFLOW,
                            "value %s is out of range for %s", buf,
                            dname(dt));
        }
        return 0;
    }
    /* Floating and complex targets: finite values must fit. */
    const double max = float_max(dt);
    double parts[2];
    int n = 1;
    switch (s->kind) {
    case TL_KIND_UINT: parts[0] = (double)s->v.u; break;
    case TL_KIND_INT:
    case TL_KIND_BOOL: parts[0] = (double)s->v.i; break;
    case TL_KIND_FLOAT: parts[0] = s->v.f; break;
    default:
        parts[0] = s->v.c[0];
        parts[1] = s->v.c[1];
        n = 2;
        break;
    }
    for (int i = 0; i < n; i++) {
        if (isfinite(parts[i]) && fabs(parts[i]) > max) {
            return tl_error(TL_ERR_OVERFLOW,
                            "value %g is out of range for %s", parts[i],
                            dname(dt));
        }
    }
    return 0;
}

int tl_op_fill_(tl_tensor_impl *dst, const tl_scalar *s)
{
    if (!dst || !s) {
        return tl_error(TL_ERR_VALUE, "fill_: an operand is NULL");
    }
    int rc = tl_scalar_check_fill(s, (tl_dtype)dst->dtype);
    if (rc < 0) {
        return rc;
    }
    /* Dims of stride 0 (an expanded tensor) write the same elements again
     * and again: a fill writes them once, through an alias whose such dims
     * have size 1 (an as_strided of 2^31 repeats is then as fast as one). */
    tl_tensor_impl *once = NULL;
    for (int d = 0; d < dst->ndim; d++) {
        if (dst->strides[d] == 0 && dst->sizes[d] > 1) {
            if ((rc = tl_tensor_check_live(dst)) < 0) {
                return rc;
            }
            int64_t sz[TL_MAX_DIMS];
            for (int k = 0; k < dst->ndim; k++) {
                sz[k] = dst->strides[k] == 0 && dst->sizes[k] > 1
                            ? 1 : dst->sizes[k];
            }
            once = tl_tensor_as_strided(dst, dst->ndim, sz, dst->strides,
                                        dst->storage_offset);
            if (!once) {
                return tl_error_kind();
            }
            break;
        }
    }
    tl_tensor_impl *w = once ? once : dst;
    tl_fill_ctx fc;
    memset(&fc, 0, sizeof fc);
    fc.itemsize = tl_itemsize(dst->dtype);
    tl_scalar_cast(s, dst->dtype, fc.value);
    tl_iter it;
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, w);
    c.resize_outputs = false;
    c.check_mem_overlap = false; /* as PyTorch: fill_ may write an
                                    expanded tensor */
    c.device_kernels = true;
    if ((rc = tl_iter_build(&it, &c)) < 0) {
        goto done;
    }
    if (it.device.type != TL_DEVICE_CPU) {
        rc = tl_device_run(&it, TL_DEV_FILL, 0, fc.value);
        tl_iter_release(&it);
        if (rc < 0) {
            goto done;
        }
        tl_tensor_bump_version(dst);
        rc = 0;
        goto done;
    }
    it.no_buffering = true; /* the fill loop stores through memcpy */
    tl_iter_for_each(&it, tl_fill_loop, &fc);
    tl_iter_release(&it);
    tl_tensor_bump_version(dst);
    rc = 0;
done:
    tl_tensor_decref(once);
    return rc;
}

/* ---- new tensors like a ------------------------------------------------- */

tl_tensor_impl *tl_op_empty_like(tl_tensor_impl *a, tl_dtype dt,
                                 tl_device dev, tl_memkind kind,
                                 tl_memory_format fmt)
{
    if ((int)fmt < 0 || fmt > TL_FORMAT_PRESERVE) {
        tl_error(TL_ERR_VALUE, "unknown memory format %d", (int)fmt);
        return NULL;
    }
    if (fmt == TL_FORMAT_PRESERVE) {
        int64_t strides[TL_MAX_DIMS];
        if (a->flags & TL_FLAG_NON_OVERLAPPING_AND_DENSE) {
            /* Positive wherever the size is >= 2; size-0/1 dims may carry
             * any stride, which empty_strided wants non-negative (Note
             * [Layouts copied from an input] in iter_build.c). */
            for (int d = 0; d < a->ndim; d++) {
                strides[d] = llabs(a->strides[d]);
            }
        } else {
            tl_iter_dense_strides_like(a, strides);
        }
        return tl_tensor_empty_strided(a->ndim, a->sizes, strides, dt, dev,
                                       kind);
    }
    return tl_tensor_empty_format(a->ndim, a->sizes, dt, dev, kind, fmt);
}

/* An uninitialised tensor like a in dtype dt, on a's device, in a's memory
 * kind (Default for workspace tensors).  Returns: new reference, or NULL. */
static tl_tensor_impl *empty_like(tl_tensor_impl *a, int dt,
                                  tl_memory_format fmt)
{
    tl_memkind kind = (tl_memkind)a->storage->block->kind;
    if (kind >= TL_MEMKIND_COUNT || kind == TL_MEMKIND_WORKSPACE) {
        kind = TL_MEMKIND_DEFAULT;
    }
    return tl_op_empty_like(a, (tl_dtype)dt, a->device, kind, fmt);
}

/* A copy of a in dtype dt and format fmt.  Returns: new reference. */
static tl_tensor_impl *copy_like(tl_tensor_impl *a, int dt,
                                 tl_memory_format fmt)
{
    tl_tensor_impl *t = empty_like(a, dt, fmt);
    if (!t) {
        return NULL;
    }
    if (copy_impl(t, a, false) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return t;
}

tl_tensor_impl *tl_op_to_dtype(tl_tensor_impl *a, tl_dtype dt, bool copy)
{
    if (!a) {
        tl_error(TL_ERR_VALUE, "to: the operand is NULL");
        return NULL;
    }
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
        return NULL;
    }
    if (a->dtype == (int16_t)dt && !copy) {
        tl_tensor_incref(a);
        return a;
    }
    return copy_like(a, dt, TL_FORMAT_PRESERVE);
}

tl_tensor_impl *tl_op_contiguous(tl_tensor_impl *a, tl_memory_format fmt)
{
    if (!a) {
        tl_error(TL_ERR_VALUE, "contiguous: the operand is NULL");
        return NULL;
    }
    if ((int)fmt < 0 || fmt > TL_FORMAT_PRESERVE) {
        tl_error(TL_ERR_VALUE, "contiguous: unknown memory format %d",
                 (int)fmt);
        return NULL;
    }
    if (fmt == TL_FORMAT_PRESERVE) {
        /* As PyTorch: an already contiguous tensor is returned; otherwise
         * "preserve" names no layout to make. */
        if (tl_tensor_is_contiguous(a, TL_FORMAT_CONTIGUOUS)) {
            tl_tensor_incref(a);
            return a;
        }
        tl_error(TL_ERR_VALUE,
                 "contiguous(memory_format=preserve_format): the tensor "
                 "(sizes %s, strides %s) is not contiguous, and "
                 "preserve_format names no layout to make; pass "
                 "contiguous_format or channels_last",
                 tl_fmt_list(0, a->ndim, a->sizes),
                 tl_fmt_list(1, a->ndim, a->strides));
        return NULL;
    }
    if (tl_tensor_is_contiguous(a, fmt)) {
        tl_tensor_incref(a);
        return a;
    }
    return copy_like(a, a->dtype, fmt);
}

tl_tensor_impl *tl_op_clone(tl_tensor_impl *a, tl_memory_format fmt)
{
    if (!a) {
        tl_error(TL_ERR_VALUE, "clone: the operand is NULL");
        return NULL;
    }
    return copy_like(a, a->dtype, fmt);
}

/* ---- scalars ------------------------------------------------------------ */

tl_tensor_impl *tl_scalar_to_tensor(const tl_scalar *s)
{
    tl_dtype dt;
    switch (s->kind) {
    case TL_KIND_BOOL: dt = TL_DTYPE_BOOL; break;
    case TL_KIND_UINT:
        dt = s->v.u > (uint64_t)INT64_MAX ? TL_DTYPE_UINT64 : TL_DTYPE_INT64;
        break;
    case TL_KIND_INT: dt = TL_DTYPE_INT64; break;
    case TL_KIND_FLOAT: dt = TL_DTYPE_FLOAT64; break;
    case TL_KIND_COMPLEX: dt = TL_DTYPE_COMPLEX128; break;
    default:
        tl_error(TL_ERR_VALUE, "unknown scalar kind %d", s->kind);
        return NULL;
    }
    tl_tensor_impl *t = tl_tensor_empty(0, NULL, dt, tl_device_cpu(),
                                        TL_MEMKIND_DEFAULT);
    if (!t) {
        return NULL;
    }
    tl_scalar_cast(s, dt, tl_impl_data(t));
    t->flags |= TL_FLAG_WRAPPED_NUMBER;
    return t;
}

int tl_tensor_item(const tl_tensor_impl *t, tl_scalar *out)
{
    if (t->numel != 1) {
        return tl_error(TL_ERR_VALUE,
                        "a tensor of %" PRId64 " elements is not one "
                        "number (a scalar needs exactly one element)",
                        t->numel);
    }
    _Alignas(16) unsigned char elem[16];
    const char *p;
    if (t->device.type != TL_DEVICE_CPU) {
        if (tl_device_read_element(t, elem) < 0) {
            return tl_error_kind();
        }
        p = (const char *)elem;
    } else {
        p = tl_impl_data(t);
    }
    const int dt = t->dtype;
    switch (tl_dtype_table[dt].kind) {
    case TL_KIND_BOOL:
        out->kind = TL_KIND_BOOL;
        out->v.i = *(const unsigned char *)p != 0;
        break;
    case TL_KIND_UINT:
        out->kind = TL_KIND_UINT;
        tl_cvt_get(dt, TL_DTYPE_UINT64)((char *)&out->v.u, 0, p, 0, 1);
        break;
    case TL_KIND_INT:
        out->kind = TL_KIND_INT;
        tl_cvt_get(dt, TL_DTYPE_INT64)((char *)&out->v.i, 0, p, 0, 1);
        break;
    case TL_KIND_FLOAT:
        out->kind = TL_KIND_FLOAT;
        tl_cvt_get(dt, TL_DTYPE_FLOAT64)((char *)&out->v.f, 0, p, 0, 1);
        break;
    default: {
        tl_c128 z;
        tl_cvt_get(dt, TL_DTYPE_COMPLEX128)((char *)&z, 0, p, 0, 1);
        out->kind = TL_KIND_COMPLEX;
        out->v.c[0] = creal(z);
        out->v.c[1] = cimag(z);
        break;
    }
    }
    return 0;
}
