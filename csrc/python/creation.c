/* csrc/python/creation.c — tensor creation from Python: empty, zeros, ones,
 * full, arange, tensor and the *_like forms.  Everything is validated
 * before anything is allocated. */
#include <math.h>
#include <string.h>

#include "pytl.h"
#include "tensorlib/device_table.h"
#include "tensorlib/ops.h"

/* Options shared by the creation functions. */
typedef struct {
    tl_dtype dtype;
    bool dtype_given;
    tl_device device;
    int memory_format;
    tl_memkind kind;
} create_opts;

static int parse_opts(tl_mstate *st, PyObject *dtype, PyObject *device,
                      PyObject *fmt, PyObject *kind, create_opts *o)
{
    o->dtype_given = dtype && dtype != Py_None;
    if (tl_py_parse_dtype(st, dtype, &o->dtype) < 0 ||
        tl_py_parse_device(st, device, &o->device) < 0 ||
        tl_py_parse_memory_format(st, fmt, &o->memory_format) < 0 ||
        tl_py_parse_memkind(st, kind, &o->kind) < 0) {
        return -1;
    }
    /* A host kind on another device is a bad value in any build (never a
     * silent fallback), checked before whether the device exists. */
    if (o->device.type != TL_DEVICE_CPU && tl_memkind_is_host(o->kind) &&
        !tl_registry_get(o->device, o->kind)) {
        return tl_py_raise_int(st);
    }
    /* A device that cannot hold tensors fails before anything is
     * allocated: "tensorlib was built without CUDA", "no CUDA device is
     * available". */
    if (tl_device_require(o->device) < 0) {
        return tl_py_raise_int(st);
    }
    return 0;
}

/* Fills a device tensor with elem: a copy_ from a 0-dim CPU tensor, which
 * the device's copy kernel takes as a number.  Returns 0 / -1. */
static int fill_device(tl_mstate *st, tl_tensor_impl *t, const void *elem)
{
    tl_tensor_impl *s = tl_tensor_empty(0, NULL, (tl_dtype)t->dtype,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    int rc;
    if (!s) {
        return tl_py_raise_int(st);
    }
    memcpy(tl_impl_data(s), elem, (size_t)tl_itemsize(t->dtype));
    rc = tl_op_copy_(t, s);
    tl_tensor_decref(s);
    return rc < 0 ? tl_py_raise_int(st) : 0;
}

/* A tensor made on the CPU, moved to dev (creation functions that write
 * elements one by one build on the host).  Steals: t.
 * Returns: new reference to the Python tensor, or NULL. */
static PyObject *wrap_on(tl_mstate *st, tl_tensor_impl *t, tl_device dev)
{
    if (dev.type == TL_DEVICE_CPU) {
        return tl_py_wrap(st, t);
    }
    tl_tensor_impl *r = tl_op_to_device(t, dev, -1, false, false);
    tl_tensor_decref(t);
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

/* Fills t (contiguous, fresh) with the element bytes in `elem`.
 * Returns 0 / -1 (only for a device tensor). */
static int fill_bytes(tl_mstate *st, tl_tensor_impl *t, const void *elem)
{
    if (t->device.type != TL_DEVICE_CPU) {
        return fill_device(st, t, elem);
    }
    const int64_t isz = tl_itemsize(t->dtype);
    const int64_t total = t->numel * isz;
    char *p = tl_impl_data(t);
    bool zero = true;
    for (int64_t i = 0; i < isz; i++) {
        zero &= ((const char *)elem)[i] == 0;
    }
    if (total == 0) {
        return 0;
    }
    if (zero) {
        memset(p, 0, (size_t)total);
        return 0;
    }
    memcpy(p, elem, (size_t)isz);
    /* Doubling copies: log2(numel) memcpy calls. */
    int64_t done = isz;
    while (done < total) {
        int64_t n = done < total - done ? done : total - done;
        memcpy(p + done, p, (size_t)n);
        done += n;
    }
    return 0;
}

/* Allocates a tensor of the given shape and options.
 * Returns: new reference, or NULL with an exception. */
static tl_tensor_impl *alloc_tensor(tl_mstate *st, int ndim,
                                    const int64_t *sizes,
                                    const create_opts *o)
{
    int fmt = o->memory_format == TL_FORMAT_PRESERVE ? TL_FORMAT_CONTIGUOUS
                                                     : o->memory_format;
    tl_tensor_impl *t = tl_tensor_empty_format(ndim, sizes, o->dtype,
                                               o->device, o->kind,
                                               (tl_memory_format)fmt);
    if (!t) {
        tl_py_raise(st);
    }
    return t;
}

static const char *const shape_kw[] = {"dtype", "device", "memory_format",
                                       "memory_kind", NULL};

/* empty/zeros/ones(*size, dtype=, device=, memory_format=, memory_kind=) */
static PyObject *create_filled(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames,
                               const char *fname, int fill)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[4];
    int64_t sizes[TL_MAX_DIMS];
    create_opts o = {TL_DTYPE_FLOAT32, false, tl_device_cpu(),
                     TL_FORMAT_CONTIGUOUS, TL_MEMKIND_DEFAULT};
    /* kw is read only when keywords came (parse_opts below). */
    if (kwnames != NULL &&
        tl_py_parse_args(args + nargs, 0, kwnames, shape_kw, 0, kw,
                         fname) < 0) {
        return NULL;
    }
    if (nargs == 0) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'size'", fname);
        return NULL;
    }
    int ndim = tl_py_parse_shape(args, nargs, sizes, fname);
    /* No keywords: the defaults in o need no checking. */
    if (ndim < 0 || (kwnames != NULL &&
                     parse_opts(st, kw[0], kw[1], kw[2], kw[3], &o) < 0)) {
        return NULL;
    }
    tl_tensor_impl *t = alloc_tensor(st, ndim, sizes, &o);
    if (!t) {
        return NULL;
    }
    if (fill >= 0) {
        unsigned char elem[16];
        PyObject *v = PyLong_FromLong(fill);
        if (!v || tl_py_store_scalar(v, o.dtype, elem) < 0) {
            Py_XDECREF(v);
            tl_tensor_decref(t);
            return NULL;
        }
        Py_DECREF(v);
        if (fill_bytes(st, t, elem) < 0) {
            tl_tensor_decref(t);
            return NULL;
        }
    }
    return tl_py_wrap(st, t);
}

static PyObject *py_empty(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return create_filled(m, args, nargs, kwnames, "empty", -1);
}

static PyObject *py_zeros(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return create_filled(m, args, nargs, kwnames, "zeros", 0);
}

static PyObject *py_ones(PyObject *m, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    return create_filled(m, args, nargs, kwnames, "ones", 1);
}

/* The fill value of full()/full_like() stored as dtype dt into elem, with
 * fill_'s range checks (tl_scalar_check_fill: float16(65519.0) is an
 * OverflowError, as PyTorch's full, not a silent 65504).  Returns 0 / -1
 * with the exception set. */
static int store_fill_value(tl_mstate *st, PyObject *v, tl_dtype dt,
                            unsigned char *elem)
{
    if (tl_py_store_scalar(v, dt, elem) < 0) {
        return -1;
    }
    const int k = tl_dtype_info_of(dt)->kind;
    if (k == TL_KIND_FLOAT || k == TL_KIND_COMPLEX) {
        tl_scalar s;
        int r = tl_py_as_scalar(v, &s); /* 0: a 0-d tensor, cast as is */
        if (r < 0) {
            return -1;
        }
        if (r > 0 && tl_scalar_check_fill(&s, dt) < 0) {
            tl_py_raise(st);
            return -1;
        }
    }
    return 0;
}

/* full(size, fill_value, dtype=None, ...): dtype inferred from the value
 * as PyTorch does (bool, int64, float32, complex64). */
static PyObject *py_full(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    static const char *const names[] = {"size", "fill_value", "dtype",
                                        "device", "memory_format",
                                        "memory_kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[6];
    int64_t sizes[TL_MAX_DIMS];
    create_opts o = {TL_DTYPE_FLOAT32, false, tl_device_cpu(),
                     TL_FORMAT_CONTIGUOUS, TL_MEMKIND_DEFAULT};
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "full") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError,
                        "full() needs size and fill_value");
        return NULL;
    }
    int ndim = tl_py_parse_shape(&a[0], 1, sizes, "full");
    if (ndim < 0 || parse_opts(st, a[2], a[3], a[4], a[5], &o) < 0) {
        return NULL;
    }
    if (!o.dtype_given && tl_py_scalar_dtype(a[1], &o.dtype) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError,
                         "full(): fill_value must be a number, not %.100s",
                         Py_TYPE(a[1])->tp_name);
        }
        return NULL;
    }
    unsigned char elem[16];
    if (store_fill_value(st, a[1], o.dtype, elem) < 0) {
        return NULL;
    }
    tl_tensor_impl *t = alloc_tensor(st, ndim, sizes, &o);
    if (!t) {
        return NULL;
    }
    if (fill_bytes(st, t, elem) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return tl_py_wrap(st, t);
}

/* ---- arange -------------------------------------------------------------- */

static PyObject *py_arange(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"start", "end", "step", "dtype",
                                        "device", "memory_kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[6];
    create_opts o = {TL_DTYPE_INT64, false, tl_device_cpu(),
                     TL_FORMAT_CONTIGUOUS, TL_MEMKIND_DEFAULT};
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "arange") < 0) {
        return NULL;
    }
    PyObject *start = a[0], *end = a[1], *step = a[2];
    if (!start) {
        PyErr_SetString(PyExc_TypeError, "arange() needs at least end");
        return NULL;
    }
    if (!end || end == Py_None) {
        end = start;
        start = NULL;
    }
    PyObject *vals[3] = {start, end, step && step != Py_None ? step : NULL};
    bool all_int = true;
    double dv[3] = {0.0, 0.0, 1.0};
    int64_t iv[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        PyObject *v = vals[i];
        if (!v) {
            continue;
        }
        if (tl_py_is_tensor(st, v)) {
            v = PyObject_CallMethod(v, "item", NULL);
            if (!v) {
                return NULL;
            }
        } else {
            Py_INCREF(v);
        }
        /* Integers are Python ints and anything with __index__ (NumPy
         * integer scalars); floats are checked first, since numpy.float64
         * subclasses float. */
        if (!PyFloat_Check(v) && PyIndex_Check(v)) {
            if (tl_py_int64(v, &iv[i], "arange() argument") < 0) {
                Py_DECREF(v);
                return NULL;
            }
            dv[i] = (double)iv[i];
        } else if (PyFloat_Check(v) || PyNumber_Check(v)) {
            dv[i] = PyFloat_AsDouble(v);
            if (dv[i] == -1.0 && PyErr_Occurred()) {
                Py_DECREF(v);
                return NULL;
            }
            all_int = false;
        } else {
            PyErr_Format(PyExc_TypeError,
                         "arange() arguments must be numbers, not %.100s",
                         Py_TYPE(v)->tp_name);
            Py_DECREF(v);
            return NULL;
        }
        Py_DECREF(v);
    }
    o.dtype = all_int ? TL_DTYPE_INT64 : TL_DTYPE_FLOAT32;
    if (parse_opts(st, a[3], a[4], NULL, a[5], &o) < 0) {
        return NULL;
    }
    if (tl_dtype_is_complex(o.dtype) || o.dtype == TL_DTYPE_BOOL) {
        PyErr_Format(PyExc_TypeError, "arange() does not support dtype %s",
                     tl_dtype_info_of(o.dtype)->name);
        return NULL;
    }
    if (!isfinite(dv[0]) || !isfinite(dv[1]) || !isfinite(dv[2])) {
        PyErr_SetString(PyExc_ValueError,
                        "arange(): start, end and step must be finite");
        return NULL;
    }
    if (!all_int && tl_dtype_is_integral(o.dtype, false)) {
        /* An integer arange casts start, end and step to int64 first (as
         * PyTorch: the inputs are cast to the result type), so that
         * arange(1.5, dtype=int64) is [0] and arange(0, 1, 0.5,
         * dtype=int32) has a zero step. */
        for (int i = 0; i < 3; i++) {
            double t = trunc(dv[i]);
            if (!(t >= -0x1p63 && t < 0x1p63)) {
                PyErr_Format(PyExc_OverflowError,
                             "arange(): %R does not fit the int64 that an "
                             "integer arange counts in", vals[i]);
                return NULL;
            }
            iv[i] = (int64_t)t;
            dv[i] = (double)iv[i];
        }
        all_int = true;
    }
    if (dv[2] == 0.0) {
        PyErr_SetString(PyExc_ValueError, "arange(): step must be nonzero");
        return NULL;
    }
    if ((dv[2] > 0 && dv[1] < dv[0]) || (dv[2] < 0 && dv[1] > dv[0])) {
        PyErr_Format(PyExc_ValueError,
                     "arange(): upper bound and larger bound inconsistent "
                     "with step sign (start=%R, end=%R, step=%R)",
                     start ? start : Py_None, end,
                     vals[2] ? vals[2] : Py_None);
        return NULL;
    }
    int64_t n;
    if (all_int) {
        /* Exact integer count: ceil((end - start) / step). */
        __int128 span = (__int128)iv[1] - iv[0];
        __int128 q = span / iv[2];
        if (q * iv[2] != span) {
            q += 1;
        }
        n = (int64_t)(q < 0 ? 0 : q);
    } else {
        const double span = dv[1] - dv[0];
        double cnt = ceil(span / dv[2]);
        if (cnt == 0.0 && span != 0.0) {
            /* The quotient underflowed (arange(0, 5e-324, 2)): start
             * itself is in [start, end), so one element, as NumPy. */
            cnt = 1.0;
        }
        if (!(cnt < 0x1p62)) {
            PyErr_SetString(PyExc_OverflowError,
                            "arange(): too many elements");
            return NULL;
        }
        n = cnt < 0 ? 0 : (int64_t)cnt;
    }
    const tl_device target = o.device; /* built on the host, then moved */
    if (target.type != TL_DEVICE_CPU) {
        o.device = tl_device_cpu();
        o.kind = TL_MEMKIND_DEFAULT;
    }
    tl_tensor_impl *t = alloc_tensor(st, 1, &n, &o);
    if (!t) {
        return NULL;
    }
    char *p = tl_impl_data(t);
    const int64_t isz = tl_itemsize(o.dtype);
    for (int64_t i = 0; i < n; i++) {
        unsigned char elem[16];
        int r;
        PyObject *v;
        if (all_int && tl_dtype_is_integral(o.dtype, false)) {
            /* The value wraps into narrow integer dtypes, as a cast. */
            uint64_t x = (uint64_t)iv[0] + (uint64_t)i * (uint64_t)iv[2];
            memcpy(elem, &x, 8);
            memcpy(p + i * isz, elem, (size_t)isz);
            continue;
        }
        v = PyFloat_FromDouble(all_int ? (double)(iv[0] + i * iv[2])
                                       : dv[0] + (double)i * dv[2]);
        r = v ? tl_py_store_scalar(v, o.dtype, elem) : -1;
        Py_XDECREF(v);
        if (r < 0) {
            tl_tensor_decref(t);
            return NULL;
        }
        memcpy(p + i * isz, elem, (size_t)isz);
    }
    return wrap_on(st, t, target);
}

/* ---- tensor(data) -------------------------------------------------------- */

/* Category order for inference: bool < int < float < complex. */
static int category(tl_dtype dt)
{
    switch (tl_dtype_info_of(dt)->kind) {
    case TL_KIND_BOOL: return 0;
    case TL_KIND_UINT:
    case TL_KIND_INT: return 1;
    case TL_KIND_FLOAT: return 2;
    default: return 3;
    }
}

/* The signed integer dtype of itemsize n (1, 2, 4 or 8). */
static tl_dtype signed_of_size(int64_t n)
{
    return n == 1 ? TL_DTYPE_INT8 : n == 2 ? TL_DTYPE_INT16
         : n == 4 ? TL_DTYPE_INT32 : TL_DTYPE_INT64;
}

/* Note [Inference promotion]
 * torch.tensor() promotes the dtypes of the leaves pairwise with
 * c10::promoteTypes: bool < integers < floating < complex; two integers
 * give the smallest integer holding both (uint8 with int8 is int16); an
 * integer with a floating type gives that floating type (int64 with float16
 * is float16); float16 with bfloat16 is float32; a floating type with a
 * complex one gives the complex type wide enough for both (float64 with
 * complex64 is complex128).  PyTorch refuses uint16/uint32/uint64 with any
 * other non-floating type; there NumPy's rule applies (DESIGN.md: uint64
 * with a signed integer is float64, uint32 with complex64 is complex128).
 * This stays local to tensor() until the core promotion table exists. */
static tl_dtype infer_promote(tl_dtype a, tl_dtype b)
{
    if (a == b) {
        return a;
    }
    if (category(a) > category(b)) {
        tl_dtype t = a;
        a = b;
        b = t;
    }
    const int ka = tl_dtype_info_of(a)->kind, kb = tl_dtype_info_of(b)->kind;
    const int64_t sa = tl_itemsize(a), sb = tl_itemsize(b);
    if (ka == TL_KIND_BOOL) {
        return b;
    }
    if (category(a) == category(b)) {
        if (kb == TL_KIND_FLOAT) {
            if (sa == sb) { /* float16 with bfloat16 */
                return TL_DTYPE_FLOAT32;
            }
            return sa > sb ? a : b;
        }
        if (kb == TL_KIND_COMPLEX || ka == kb) {
            return sa > sb ? a : b;
        }
        /* One unsigned, one signed integer. */
        const int64_t su = ka == TL_KIND_UINT ? sa : sb;
        const int64_t ss = ka == TL_KIND_UINT ? sb : sa;
        if (ss > su) {
            return ka == TL_KIND_UINT ? b : a;
        }
        return su < 8 ? signed_of_size(2 * su) : TL_DTYPE_FLOAT64;
    }
    if (kb == TL_KIND_FLOAT) {
        return b; /* an integer with a floating type */
    }
    /* b is complex. */
    if (ka == TL_KIND_FLOAT) {
        return sa > sb / 2 ? TL_DTYPE_COMPLEX128 : b;
    }
    if (a == TL_DTYPE_UINT32 || a == TL_DTYPE_UINT64) {
        return TL_DTYPE_COMPLEX128; /* NumPy: their float is float64 */
    }
    return b;
}

typedef struct {
    tl_mstate *st;
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    bool have_leaf;  /* the shape is fixed */
    bool any_leaf;   /* a number was seen: inferred is valid */
    tl_dtype inferred;
} infer_state;

/* Walks a nested sequence: fixes the shape from the first path, checks
 * every other path against it, infers the dtype.  Returns 0 / -1. */
/* Records a number of dtype dt at depth.  Returns 0, or -1 (ragged). */
static int infer_leaf(infer_state *s, tl_dtype dt, int depth)
{
    if (s->have_leaf && depth != s->ndim) {
        PyErr_Format(PyExc_ValueError,
                     "tensor(): ragged nested sequence: a number at "
                     "depth %d where depth %d was expected", depth,
                     s->ndim);
        return -1;
    }
    if (!s->have_leaf) {
        s->ndim = depth;
        s->have_leaf = true;
    }
    s->inferred = s->any_leaf ? infer_promote(s->inferred, dt) : dt;
    s->any_leaf = true;
    return 0;
}

/* A sequence that also exports a buffer (memoryview, array.array) is read
 * item by item, and the exporter's own item access trusts its shape: a
 * lying exporter (shape x itemsize beyond its length, found by
 * tests/fuzz/fuzz_buffer.py) would make CPython read past the memory.  So
 * its buffer is checked for consistency first.  Returns 0, or -1 with
 * BufferError set. */
static int check_exported_shape(PyObject *o)
{
    if (!PyObject_CheckBuffer(o)) {
        return 0;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) < 0) {
        /* an exporter that cannot describe itself this way: its item
           access is its own (as for any sequence) */
        PyErr_Clear();
        return 0;
    }
    int rc = 0;
    Py_ssize_t need = v.itemsize;
    bool bad = v.itemsize <= 0 || v.ndim < 0 || v.len < 0;
    for (int d = 0; !bad && d < v.ndim; d++) {
        const Py_ssize_t n = v.shape ? v.shape[d] : 0;
        if (n < 0 || (n > 0 && need > PY_SSIZE_T_MAX / n)) {
            bad = true;
        } else {
            need *= n;
        }
    }
    if (bad || need != v.len) {
        PyErr_Format(PyExc_BufferError,
                     "tensor(): a %.100s exports a buffer of %d dims with "
                     "itemsize %zd whose shape does not match its length "
                     "of %zd bytes (a broken exporter): refused before "
                     "reading an item",
                     Py_TYPE(o)->tp_name, v.ndim, v.itemsize, v.len);
        rc = -1;
    }
    PyBuffer_Release(&v);
    return rc;
}

static int infer(infer_state *s, PyObject *o, int depth)
{
    tl_mstate *st = s->st;
    tl_dtype dt;
    if (tl_py_plain_scalar_dtype(o, &dt)) {
        return infer_leaf(s, dt, depth); /* the common leaf, first */
    }
    bool is_tensor = tl_py_is_tensor(st, o);
    bool leaf = is_tensor ? tl_py_impl(o)->ndim == 0
                          : !PySequence_Check(o) || PyUnicode_Check(o) ||
                            PyBytes_Check(o) || PyByteArray_Check(o);
    if (!leaf && !is_tensor) {
        /* NumPy scalars are not sequences; 0-d arrays are leaves too. */
        tl_dtype nd;
        int r = tl_py_numpy_scalar_dtype_or_0d(o, &nd);
        if (r < 0) {
            return -1;
        }
        leaf = r > 0;
    }
    if (leaf) {
        /* NumPy scalars first: numpy.float64 and numpy.complex128 subclass
         * float and complex but keep their own dtype, as in PyTorch. */
        int r = tl_py_numpy_scalar_dtype_or_0d(o, &dt);
        if (r < 0) {
            return -1;
        }
        if (r == 0) {
            if (is_tensor) {
                dt = (tl_dtype)tl_py_impl(o)->dtype;
            } else if (tl_py_scalar_dtype(o, &dt) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_Format(PyExc_TypeError,
                                 "tensor(): expected numbers or sequences "
                                 "of numbers, got %.100s",
                                 Py_TYPE(o)->tp_name);
                }
                return -1;
            }
        }
        return infer_leaf(s, dt, depth);
    }
    if (depth >= TL_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError,
                     "tensor(): nesting deeper than %d dimensions",
                     TL_MAX_DIMS);
        return -1;
    }
    if (check_exported_shape(o) < 0) {
        return -1;
    }
    Py_ssize_t n = PySequence_Size(o);
    if (n < 0) {
        /* A broken __len__ (or a buffer exporter's negative shape, found by
         * tests/fuzz/fuzz_buffer.py) can report -1 without an exception. */
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError, "tensor(): a %.100s reports a "
                         "negative length", Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    if (s->have_leaf && depth >= s->ndim) {
        PyErr_Format(PyExc_ValueError,
                     "tensor(): ragged nested sequence: a sequence at depth "
                     "%d where numbers were expected", depth);
        return -1;
    }
    if (!s->have_leaf && n == 0) {
        /* An empty sequence fixes the shape here: [] is (0,), [[]] (1, 0). */
        s->ndim = depth + 1;
        s->sizes[depth] = 0;
        s->have_leaf = true;
        return 0;
    }
    if (s->have_leaf) {
        if (s->sizes[depth] != n) {
            PyErr_Format(PyExc_ValueError,
                         "tensor(): ragged data: the sequences at dim %d "
                         "must all have length %lld, got one of length %zd",
                         depth, (long long)s->sizes[depth], n);
            return -1;
        }
    } else {
        s->sizes[depth] = n;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(o, i);
        if (!item) {
            return -1;
        }
        int r = infer(s, item, depth + 1);
        Py_DECREF(item);
        if (r < 0) {
            return -1;
        }
    }
    return 0;
}

static int store_leaf(tl_mstate *st, PyObject *o, tl_dtype dt, char *dst)
{
    tl_dtype own;
    if (tl_py_plain_scalar_dtype(o, &own)) {
        return tl_py_store_scalar(o, dt, dst); /* the common leaf, first */
    }
    if (tl_py_is_tensor(st, o)) {
        PyObject *v = PyObject_CallMethod(o, "item", NULL);
        if (!v) {
            return -1;
        }
        int r = tl_py_store_scalar(v, dt, dst);
        Py_DECREF(v);
        return r;
    }
    if (!PyBool_Check(o) && !PyLong_Check(o) && !PyFloat_Check(o) &&
        !PyComplex_Check(o)) {
        /* NumPy scalars and 0-d arrays: through item(). */
        PyObject *v = PyObject_CallMethod(o, "item", NULL);
        if (!v) {
            return -1;
        }
        int r = tl_py_store_scalar(v, dt, dst);
        Py_DECREF(v);
        return r;
    }
    return tl_py_store_scalar(o, dt, dst);
}

static int fill_rec(tl_mstate *st, PyObject *o, int depth, int ndim,
                    tl_dtype dt, char **p, int64_t isz)
{
    if (depth == ndim) {
        int r = store_leaf(st, o, dt, *p);
        *p += isz;
        return r;
    }
    PyObject *fast = PySequence_Fast(o, "expected a sequence");
    if (!fast) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (fill_rec(st, PySequence_Fast_GET_ITEM(fast, i), depth + 1, ndim,
                     dt, p, isz) < 0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* numpy_bridge.c: ndarray o itself when from_numpy can view it, else a
 * native-byte-order C-contiguous copy.  Returns: new reference, or NULL. */
PyObject *tl_py_numpy_native_layout(PyObject *o);

/* Copies src into a new contiguous tensor of dtype dt (without a version
 * bump: a new tensor starts at _version 0, as in PyTorch).
 * Returns: new reference, or NULL with an exception. */
static tl_tensor_impl *copy_to_new(tl_mstate *st, tl_tensor_impl *src,
                                   tl_dtype dt, tl_device dev)
{
    tl_tensor_impl *t = tl_tensor_empty(src->ndim, src->sizes, dt, dev,
                                        TL_MEMKIND_DEFAULT);
    if (!t || tl_copy_unchecked(t, src) < 0) {
        tl_tensor_decref(t);
        tl_py_raise(st);
        return NULL;
    }
    return t;
}

/* Issue 22: tensor() of a flat list or tuple of Python floats, or of
 * Python ints (not bools), the commonest data, in one typed pass instead
 * of the nested walk's inference and fill (about 200 instructions an
 * element less).  The first item picks the mode; the values are stored as
 * store_leaf stores them (a C cast to float32, an exact int64).  A later
 * item of another type, or an int past int64, hands the data back to the
 * general path, which then makes the same tensor or raises its error.
 * Returns 1 with *res set (a new reference, or NULL with an exception),
 * or 0: not this case (nothing left behind). */
static int flat_numbers(tl_mstate *st, PyObject *data, int dtype,
                        tl_device dev, PyObject **res)
{
    if (!PyList_CheckExact(data) && !PyTuple_CheckExact(data)) {
        return 0;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(data);
    PyObject *const *items = PySequence_Fast_ITEMS(data);
    if (n == 0) {
        return 0;
    }
    tl_dtype dt;
    if (PyFloat_CheckExact(items[0]) &&
        (dtype < 0 || dtype == TL_DTYPE_FLOAT32 ||
         dtype == TL_DTYPE_FLOAT64)) {
        dt = dtype < 0 ? TL_DTYPE_FLOAT32 : (tl_dtype)dtype;
    } else if (PyLong_CheckExact(items[0]) &&
               (dtype < 0 || dtype == TL_DTYPE_INT64)) {
        dt = TL_DTYPE_INT64;
    } else {
        return 0;
    }
    const int64_t size = n;
    tl_tensor_impl *t = tl_tensor_empty(1, &size, dt, tl_device_cpu(),
                                        TL_MEMKIND_DEFAULT);
    if (!t) {
        *res = tl_py_raise(st);
        return 1;
    }
    /* No Python code runs below: the items stay as checked. */
    char *p = tl_impl_data(t);
    bool ok = true;
    if (dt == TL_DTYPE_INT64) {
        int64_t *v = (int64_t *)p;
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            int overflow = 0;
            ok = PyLong_CheckExact(items[i]);
            v[i] = ok ? PyLong_AsLongLongAndOverflow(items[i], &overflow)
                      : 0;
            ok = ok && !overflow;
        }
    } else if (dt == TL_DTYPE_FLOAT32) {
        float *v = (float *)p;
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            ok = PyFloat_CheckExact(items[i]);
            v[i] = ok ? (float)PyFloat_AS_DOUBLE(items[i]) : 0.0f;
        }
    } else {
        double *v = (double *)p;
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            ok = PyFloat_CheckExact(items[i]);
            v[i] = ok ? PyFloat_AS_DOUBLE(items[i]) : 0.0;
        }
    }
    if (!ok) {
        tl_tensor_decref(t);
        return 0;
    }
    *res = wrap_on(st, t, dev);
    return 1;
}

PyObject *tl_py_tensor_from_data(tl_mstate *st, PyObject *data, int dtype,
                                 tl_device dev)
{
    if (tl_device_require(dev) < 0) {
        return tl_py_raise(st);
    }
    PyObject *fast = NULL;
    if (flat_numbers(st, data, dtype, dev, &fast)) {
        return fast;
    }
    if (tl_py_is_tensor(st, data)) {
        tl_tensor_impl *src = tl_py_impl(data);
        tl_tensor_impl *t = copy_to_new(
            st, src, dtype >= 0 ? (tl_dtype)dtype : (tl_dtype)src->dtype,
            dev);
        return t ? tl_py_wrap(st, t) : NULL;
    }
    if (tl_py_is_ndarray(data)) {
        /* tensor() copies, so a layout that from_numpy refuses (another
         * byte order, strides that are not a multiple of the itemsize) is
         * first copied by NumPy into a native C-contiguous array. */
        PyObject *arr = tl_py_numpy_native_layout(data);
        if (!arr) {
            return NULL;
        }
        PyObject *view = tl_py_from_numpy(st, arr);
        Py_DECREF(arr);
        if (!view) {
            return NULL;
        }
        tl_tensor_impl *src = tl_py_impl(view);
        tl_tensor_impl *t = copy_to_new(
            st, src, dtype >= 0 ? (tl_dtype)dtype : (tl_dtype)src->dtype,
            dev);
        Py_DECREF(view);
        return t ? tl_py_wrap(st, t) : NULL;
    }
    infer_state s;
    memset(&s, 0, sizeof s);
    s.st = st;
    s.inferred = TL_DTYPE_BOOL;
    if (infer(&s, data, 0) < 0) {
        return NULL;
    }
    if (!s.have_leaf) {
        s.ndim = 0;
    }
    bool any_number = false;
    for (int d = 0; d < s.ndim; d++) {
        any_number = true;
        if (s.sizes[d] == 0) {
            any_number = false;
            break;
        }
    }
    if (s.ndim == 0) {
        any_number = true;
    }
    tl_dtype dt;
    if (dtype >= 0) {
        dt = (tl_dtype)dtype;
    } else if (!any_number) {
        dt = TL_DTYPE_FLOAT32; /* tensor([]) is float32, as PyTorch */
    } else {
        dt = s.inferred;
    }
    /* Elements are written on the host, then moved to dev. */
    tl_tensor_impl *t = tl_tensor_empty(s.ndim, s.sizes, dt, tl_device_cpu(),
                                        TL_MEMKIND_DEFAULT);
    if (!t) {
        return tl_py_raise(st);
    }
    char *p = tl_impl_data(t);
    if (t->numel > 0 &&
        fill_rec(st, data, 0, s.ndim, dt, &p, tl_itemsize(dt)) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return wrap_on(st, t, dev);
}

static PyObject *py_tensor(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"data", "dtype", "device",
                                        "memory_kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[4];
    tl_dtype dt = TL_DTYPE_FLOAT32;
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "tensor") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "tensor() needs data");
        return NULL;
    }
    if (tl_py_parse_dtype(st, a[1], &dt) < 0 ||
        tl_py_parse_device(st, a[2], &dev) < 0 ||
        tl_py_parse_memkind(st, a[3], &kind) < 0) {
        return NULL;
    }
    if (kind != TL_MEMKIND_DEFAULT && !tl_registry_get(dev, kind)) {
        return tl_py_raise(st); /* before any work: bad (device, kind) */
    }
    PyObject *r = tl_py_tensor_from_data(st, a[0], a[1] && a[1] != Py_None
                                                       ? (int)dt : -1, dev);
    if (!r || kind == TL_MEMKIND_DEFAULT) {
        return r;
    }
    /* memory_kind= (memory.c's issue): the data moves into that kind. */
    tl_tensor_impl *src = tl_py_impl(r);
    tl_tensor_impl *t = tl_tensor_empty(src->ndim, src->sizes,
                                        (tl_dtype)src->dtype, dev, kind);
    if (!t || tl_copy_unchecked(t, src) < 0) {
        Py_DECREF(r);
        tl_tensor_decref(t);
        return tl_py_raise(st);
    }
    Py_DECREF(r);
    return tl_py_wrap(st, t);
}

/* ---- *_like --------------------------------------------------------------- */

static PyObject *create_like(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames,
                             const char *fname, int mode /* -1 empty, 0, 1, 2 full */)
{
    static const char *const names_like[] = {
        "input", "dtype", "device", "memory_format", "memory_kind", NULL};
    static const char *const names_full[] = {
        "input", "fill_value", "dtype", "device", "memory_format",
        "memory_kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[6];
    bool full = mode == 2;
    if (tl_py_parse_args(args, nargs, kwnames, full ? names_full : names_like,
                         full ? 2 : 1, a, fname) < 0) {
        return NULL;
    }
    PyObject **opt = full ? a + 2 : a + 1;
    if (!a[0] || !tl_py_is_tensor(st, a[0]) || (full && !a[1])) {
        PyErr_Format(PyExc_TypeError, "%s() needs a tensor%s", fname,
                     full ? " and a fill_value" : "");
        return NULL;
    }
    tl_tensor_impl *src = tl_py_impl(a[0]);
    create_opts o = {(tl_dtype)src->dtype, false, src->device,
                     TL_FORMAT_PRESERVE, tl_block_memkind(src->storage->block)};
    if (parse_opts(st, opt[0], opt[1], opt[2], opt[3], &o) < 0) {
        return NULL;
    }
    if (o.kind == TL_MEMKIND_WORKSPACE && !(opt[3] && opt[3] != Py_None)) {
        o.kind = TL_MEMKIND_DEFAULT; /* the copy does not inherit a scope */
    }
    unsigned char elem[16];
    int fill = mode;
    if (full && store_fill_value(st, a[1], o.dtype, elem) < 0) {
        return NULL;
    }
    if (fill == 0 || fill == 1) {
        PyObject *v = PyLong_FromLong(fill);
        if (!v || tl_py_store_scalar(v, o.dtype, elem) < 0) {
            Py_XDECREF(v);
            return NULL;
        }
        Py_DECREF(v);
    }
    tl_tensor_impl *t;
    if (o.memory_format == TL_FORMAT_PRESERVE) {
        /* PyTorch's preserve_format rule (tl_op_empty_like): the input's
         * strides when it is non-overlapping and dense, else dense strides
         * in its dimension order. */
        t = tl_op_empty_like(src, o.dtype, o.device, o.kind,
                             TL_FORMAT_PRESERVE);
        if (!t) {
            return tl_py_raise(st);
        }
    } else {
        t = alloc_tensor(st, src->ndim, src->sizes, &o);
        if (!t) {
            return NULL;
        }
    }
    if (mode >= 0 && fill_bytes(st, t, elem) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return tl_py_wrap(st, t);
}

static PyObject *py_empty_like(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like(m, args, nargs, kwnames, "empty_like", -1);
}

static PyObject *py_zeros_like(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like(m, args, nargs, kwnames, "zeros_like", 0);
}

static PyObject *py_ones_like(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like(m, args, nargs, kwnames, "ones_like", 1);
}

static PyObject *py_full_like(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like(m, args, nargs, kwnames, "full_like", 2);
}


PyMethodDef tl_creation_methods[] = {
    {"empty", CF(py_empty), FASTKW,
     "empty(*size, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\nAn uninitialised tensor."},
    {"zeros", CF(py_zeros), FASTKW,
     "zeros(*size, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"ones", CF(py_ones), FASTKW,
     "ones(*size, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"full", CF(py_full), FASTKW,
     "full(size, fill_value, *, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"arange", CF(py_arange), FASTKW,
     "arange(start, end=None, step=None, *, dtype=None, device=None, "
     "memory_kind=None)\n--\n\n"},
    {"tensor", CF(py_tensor), FASTKW,
     "tensor(data, *, dtype=None, device=None, memory_kind=None)\n--\n\nA "
     "new tensor copied "
     "from nested sequences, scalars, tensors or NumPy arrays."},
    {"empty_like", CF(py_empty_like), FASTKW,
     "empty_like(input, *, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"zeros_like", CF(py_zeros_like), FASTKW,
     "zeros_like(input, *, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"ones_like", CF(py_ones_like), FASTKW,
     "ones_like(input, *, dtype=None, device=None, memory_format=None, "
     "memory_kind=None)\n--\n\n"},
    {"full_like", CF(py_full_like), FASTKW,
     "full_like(input, fill_value, *, dtype=None, device=None, "
     "memory_format=None, memory_kind=None)\n--\n\n"},
    {NULL},
};
