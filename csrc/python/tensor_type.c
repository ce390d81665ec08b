/* csrc/python/tensor_type.c — the tensorlib.Tensor extension type: one
 * strong reference to a tensor impl, identity through the impl's PyObject
 * slot, inspection methods and the Python protocols torch.Tensor has.
 * Operators and views live in their own files; printing is in Python
 * (tensorlib/_printing.py). */
#include <string.h>

#include "../alloc/sanitizer.h"
#include "fault_py.h"
#include "pytl.h"
#include "tensorlib/device_table.h"
#include "structmember.h"

/* Note [Tensor object free list]
 * Small-op code makes and drops a Tensor object per result, and the
 * object's malloc, zeroing and free were about 100 of the ~990
 * instructions of t.T (issue 22).  A dead object goes on this list (up
 * to FREELIST_MAX of them) and the next wrap takes it back, so that only
 * PyObject_Init's few stores remain.  The Tensor type cannot be
 * subclassed, so every object on the list has its size; the list is
 * touched only with the GIL held (wrap and dealloc).  The fault counter
 * still counts each object taken from the list, so fail_allocation tests
 * see the same allocations.  ASan builds keep no list: a use of a dead
 * Tensor must stay a use of freed memory there.  The list's objects (a
 * few KiB) live until the process ends. */
#if defined(TL_ASAN) || defined(Py_GIL_DISABLED)
#define FREELIST_MAX 0 /* (free-threaded builds: no GIL to guard it) */
#else
#define FREELIST_MAX 64
#endif
#if FREELIST_MAX > 0
static PyObject *tensor_freelist[FREELIST_MAX];
static int tensor_nfree;
#endif

/* Returns: a new Tensor object of type tp, fields unset, or NULL with
 * MemoryError set. */
static TensorObject *tensor_object_new(PyTypeObject *tp)
{
#if FREELIST_MAX > 0
    if (tensor_nfree > 0) {
        if (tl_fault_hit()) {
            PyErr_NoMemory();
            return NULL;
        }
        PyObject *o = tensor_freelist[--tensor_nfree];
        return (TensorObject *)PyObject_Init(o, tp); /* increfs tp */
    }
#endif
    return (TensorObject *)tp->tp_alloc(tp, 0);
}

PyObject *tl_py_wrap(tl_mstate *st, tl_tensor_impl *impl)
{
    if (!impl) {
        return NULL;
    }
    if (impl->pyobj) {
        /* The same impl comes back as the same Python object. */
        PyObject *o = Py_NewRef((PyObject *)impl->pyobj);
        tl_tensor_decref(impl);
        return o;
    }
    PyTypeObject *tp = st->TensorType;
    TensorObject *o = tensor_object_new(tp);
    if (!o) {
        tl_tensor_decref(impl);
        return NULL;
    }
    o->impl = impl; /* steals */
    o->weakreflist = NULL;
    o->shape_cache = NULL;
    o->stride_cache = NULL;
    impl->pyobj = o;
    return (PyObject *)o;
}

static void tensor_dealloc(PyObject *self)
{
    TensorObject *o = (TensorObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (o->weakreflist) {
        PyObject_ClearWeakRefs(self);
    }
    Py_CLEAR(o->shape_cache);
    Py_CLEAR(o->stride_cache);
    if (o->impl) {
        if (o->impl->pyobj == self) {
            o->impl->pyobj = NULL;
        }
        tl_tensor_decref(o->impl);
        o->impl = NULL;
    }
#if FREELIST_MAX > 0
    if (tensor_nfree < FREELIST_MAX) {
        tensor_freelist[tensor_nfree++] = self;
    } else {
        tp->tp_free(self);
    }
#else
    tp->tp_free(self);
#endif
    Py_DECREF(tp);
}

#define IMPL(self) (((TensorObject *)(self))->impl)

/* ---- getters ------------------------------------------------------------ */

/* Note [Shape tuple cache]
 * t.shape and t.stride() are read in every loop over shapes, so each
 * Python object keeps the last tuple it handed out, with the impl's
 * meta_gen at that time.  An existing impl's sizes and strides change
 * only through tl_impl_set_sizes_strides (resize_, set_, a resized out=),
 * which bumps meta_gen, so an equal number means equal items: one load
 * and a compare instead of reading the tuple's ints back (which cost
 * 8 ns of a 30 ns t.shape).  test_views.py's metadata tests change sizes
 * in place through every such path and read shape and stride after. */

/* self's shape (a Size) or strides (a plain tuple): the cached one when
 * its generation still equals the impl's meta_gen, else a fresh one,
 * cached.  Returns: new reference, or NULL. */
static PyObject *cached_tuple(PyObject *self, bool size)
{
    TensorObject *o = (TensorObject *)self;
    const tl_tensor_impl *t = o->impl;
    PyObject **slot = size ? &o->shape_cache : &o->stride_cache;
    uint32_t *gen = size ? &o->shape_gen : &o->stride_gen;
    if (*slot && *gen == t->meta_gen) {
        return Py_NewRef(*slot);
    }
    const int n = t->ndim;
    const int64_t *v = size ? t->sizes : t->strides;
    PyObject *r;
    if (size) {
        r = tl_py_size(tl_state_of(self), n, v);
    } else {
        r = PyTuple_New(n);
        for (int i = 0; r && i < n; i++) {
            PyObject *x = PyLong_FromLongLong(v[i]);
            if (!x) {
                Py_CLEAR(r);
                break;
            }
            PyTuple_SET_ITEM(r, i, x);
        }
    }
    if (r) {
        Py_XSETREF(*slot, Py_NewRef(r));
        *gen = t->meta_gen;
    }
    return r;
}

static PyObject *tensor_get_shape(PyObject *self, void *c)
{
    return cached_tuple(self, true);
}

static PyObject *tensor_get_dtype(PyObject *self, void *c)
{
    return tl_py_dtype(tl_state_of(self), (tl_dtype)IMPL(self)->dtype);
}

static PyObject *tensor_get_device(PyObject *self, void *c)
{
    return tl_py_device(tl_state_of(self), IMPL(self)->device);
}

static PyObject *tensor_get_ndim(PyObject *self, void *c)
{
    return PyLong_FromLong(IMPL(self)->ndim);
}

static PyObject *tensor_get_itemsize(PyObject *self, void *c)
{
    return PyLong_FromLongLong(tl_itemsize(IMPL(self)->dtype));
}

static PyObject *tensor_get_nbytes(PyObject *self, void *c)
{
    tl_tensor_impl *t = IMPL(self);
    return PyLong_FromLongLong(t->numel * tl_itemsize(t->dtype));
}

static PyObject *tensor_get_is_cuda(PyObject *self, void *c)
{
    return PyBool_FromLong(IMPL(self)->device.type == TL_DEVICE_CUDA);
}

static PyObject *tensor_get_is_cpu(PyObject *self, void *c)
{
    return PyBool_FromLong(IMPL(self)->device.type == TL_DEVICE_CPU);
}

static PyGetSetDef tensor_getset[] = {
    {"shape", tensor_get_shape, NULL, "The sizes, as a tensorlib.Size.", NULL},
    {"dtype", tensor_get_dtype, NULL, "The element type.", NULL},
    {"device", tensor_get_device, NULL, "Where the data lives.", NULL},
    {"ndim", tensor_get_ndim, NULL, "The number of dimensions.", NULL},
    {"itemsize", tensor_get_itemsize, NULL, "Bytes per element.", NULL},
    {"nbytes", tensor_get_nbytes, NULL, "numel() * itemsize.", NULL},
    {"is_cuda", tensor_get_is_cuda, NULL, NULL, NULL},
    {"is_cpu", tensor_get_is_cpu, NULL, NULL, NULL},
    {NULL},
};

/* ---- inspection methods ------------------------------------------------- */

/* Wraps dim into [0, ndim) (ndim 0 accepts -1 and 0, as PyTorch).
 * Returns 0 or -1 with IndexError naming the range. */
int tl_py_wrap_dim(int64_t dim, int ndim, int *out)
{
    if (tl_wrap_dim(dim, ndim, out) < 0) {
        PyErr_SetString(PyExc_IndexError, tl_error_message());
        tl_error_clear();
        return -1;
    }
    return 0;
}

static PyObject *dim_query(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames,
                           const char *fname, bool strides)
{
    static const char *const names[] = {"dim", NULL};
    PyObject *a[1];
    if (nargs == 0 && !kwnames) {
        return cached_tuple(self, !strides);
    }
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, fname) < 0) {
        return NULL;
    }
    tl_tensor_impl *t = IMPL(self);
    const int64_t *v = strides ? t->strides : t->sizes;
    if (!a[0] || a[0] == Py_None) {
        return cached_tuple(self, !strides);
    }
    int64_t d;
    int dd;
    if (tl_py_int64(a[0], &d, "dim") < 0) {
        return NULL;
    }
    if (t->ndim == 0) {
        PyErr_Format(PyExc_IndexError,
                     "%s(): dim %lld given, but the tensor is 0-d (it has "
                     "no dims)", fname, (long long)d);
        return NULL;
    }
    if (tl_py_wrap_dim(d, t->ndim, &dd) < 0) {
        return NULL;
    }
    return PyLong_FromLongLong(v[dd]);
}

static PyObject *tensor_size(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    return dim_query(self, args, nargs, kwnames, "size", false);
}

static PyObject *tensor_stride(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    return dim_query(self, args, nargs, kwnames, "stride", true);
}

static PyObject *tensor_storage_offset(PyObject *self, PyObject *unused)
{
    return PyLong_FromLongLong(IMPL(self)->storage_offset);
}

static PyObject *tensor_dim(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(IMPL(self)->ndim);
}

static PyObject *tensor_numel(PyObject *self, PyObject *unused)
{
    return PyLong_FromLongLong(IMPL(self)->numel);
}

static PyObject *tensor_element_size(PyObject *self, PyObject *unused)
{
    return PyLong_FromLongLong(tl_itemsize(IMPL(self)->dtype));
}

static PyObject *tensor_data_ptr(PyObject *self, PyObject *unused)
{
    return PyLong_FromVoidPtr(tl_impl_data(IMPL(self)));
}

static PyObject *tensor_is_contiguous(PyObject *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"memory_format", NULL};
    PyObject *a[1];
    tl_mstate *st = tl_state_of(self);
    int fmt = TL_FORMAT_CONTIGUOUS;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "is_contiguous") < 0 ||
        tl_py_parse_memory_format(st, a[0], &fmt) < 0) {
        return NULL;
    }
    if (fmt == TL_FORMAT_PRESERVE) {
        PyErr_SetString(PyExc_ValueError,
                        "is_contiguous(): preserve_format is not a layout "
                        "that a tensor can have");
        return NULL;
    }
    return PyBool_FromLong(tl_tensor_is_contiguous(IMPL(self), fmt));
}

/* ---- scalars and lists -------------------------------------------------- */

static int require_cpu(PyObject *self, const char *what)
{
    (void)what; /* device tensors are read through a host copy */
    if (tl_tensor_check_live(IMPL(self)) < 0) { /* reset workspace */
        return tl_py_raise_int(tl_state_of(self));
    }
    return 0;
}

/* self's impl, or for a device tensor a host copy of it (which waits for
 * the device).  Returns: new reference, or NULL with an exception. */
static tl_tensor_impl *host_impl(PyObject *self)
{
    tl_tensor_impl *t = IMPL(self);
    if (t->device.type == TL_DEVICE_CPU) {
        tl_tensor_incref(t);
        return t;
    }
    tl_tensor_impl *h = tl_op_to_device(t, tl_device_cpu(), -1, false,
                                        false);
    if (!h) {
        tl_py_raise(tl_state_of(self));
    }
    return h;
}

static PyObject *tensor_item(PyObject *self, PyObject *unused)
{
    tl_tensor_impl *t = IMPL(self);
    if (require_cpu(self, "item") < 0) {
        return NULL;
    }
    if (t->numel != 1) {
        PyErr_Format(tl_state_of(self)->ShapeError,
                     "item(): a tensor of %lld elements is not one number "
                     "(item() needs exactly one element)",
                     (long long)t->numel);
        return NULL;
    }
    tl_tensor_impl *h = host_impl(self);
    if (!h) {
        return NULL;
    }
    PyObject *r = tl_py_load_scalar((tl_dtype)h->dtype, tl_impl_data(h));
    tl_tensor_decref(h);
    return r;
}

/* Fills list (n fresh slots) with the n elements of one row, step bytes
 * apart: the common dtypes in one loop each, the rest element by element
 * (about 40 instructions an element less than a call per element).
 * Returns 0, or -1 with an exception (the list keeps NULL slots, which
 * its dealloc skips). */
static int tolist_row(PyObject *list, tl_dtype dt, const char *p, int64_t n,
                      int64_t step)
{
    PyObject *x;
#define ROW(ctype, conv)                                                    \
    for (int64_t i = 0; i < n; i++, p += step) {                            \
        ctype v;                                                            \
        memcpy(&v, p, sizeof v);                                            \
        if (!(x = conv(v))) {                                               \
            return -1;                                                      \
        }                                                                   \
        PyList_SET_ITEM(list, (Py_ssize_t)i, x);                            \
    }                                                                       \
    return 0
    switch (dt) {
    case TL_DTYPE_FLOAT32:
        ROW(float, PyFloat_FromDouble);
    case TL_DTYPE_FLOAT64:
        ROW(double, PyFloat_FromDouble);
    case TL_DTYPE_INT64:
        ROW(int64_t, PyLong_FromLongLong);
    case TL_DTYPE_INT32:
        ROW(int32_t, PyLong_FromLong);
    default:
        for (int64_t i = 0; i < n; i++, p += step) {
            if (!(x = tl_py_load_scalar(dt, p))) {
                return -1;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
        }
        return 0;
    }
#undef ROW
}

static PyObject *tolist_rec(const tl_tensor_impl *t, int d, const char *p)
{
    if (d == t->ndim) {
        return tl_py_load_scalar((tl_dtype)t->dtype, p);
    }
    int64_t n = t->sizes[d];
    /* (a dim of size 1 may carry any stride: its step is never taken) */
    int64_t step = n > 1 ? t->strides[d] * tl_itemsize(t->dtype) : 0;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) {
        return NULL;
    }
    if (d == t->ndim - 1) {
        if (tolist_row(list, (tl_dtype)t->dtype, p, n, step) < 0) {
            Py_DECREF(list);
            return NULL;
        }
        return list;
    }
    for (int64_t i = 0; i < n; i++) {
        PyObject *x = tolist_rec(t, d + 1, p + i * step);
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    return list;
}

static PyObject *tensor_tolist(PyObject *self, PyObject *unused)
{
    if (require_cpu(self, "tolist") < 0) {
        return NULL;
    }
    tl_tensor_impl *h = host_impl(self);
    if (!h) {
        return NULL;
    }
    PyObject *r = tolist_rec(h, 0, tl_impl_data(h));
    tl_tensor_decref(h);
    return r;
}

static PyObject *one_element(PyObject *self, const char *what)
{
    tl_tensor_impl *t = IMPL(self);
    if (t->numel != 1) {
        PyErr_Format(tl_state_of(self)->ShapeError,
                     "only a tensor with one element can be converted to "
                     "%s (this one has %lld)", what, (long long)t->numel);
        return NULL;
    }
    return tensor_item(self, NULL);
}

static PyObject *tensor_int(PyObject *self)
{
    PyObject *v = one_element(self, "int");
    if (!v) {
        return NULL;
    }
    PyObject *r = PyNumber_Long(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_float(PyObject *self)
{
    PyObject *v = one_element(self, "float");
    if (!v) {
        return NULL;
    }
    PyObject *r = PyNumber_Float(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_index(PyObject *self)
{
    tl_tensor_impl *t = IMPL(self);
    if (!tl_dtype_is_integral((tl_dtype)t->dtype, true) || t->numel != 1) {
        PyErr_Format(PyExc_TypeError,
                     "only integer tensors of a single element can be "
                     "converted to an index (got a %s tensor of %lld "
                     "elements)", tl_dtype_info_of(t->dtype)->name,
                     (long long)t->numel);
        return NULL;
    }
    PyObject *v = tensor_item(self, NULL);
    if (!v) {
        return NULL;
    }
    PyObject *r = PyNumber_Index(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_complex(PyObject *self, PyObject *unused)
{
    PyObject *v = one_element(self, "complex");
    if (!v) {
        return NULL;
    }
    PyObject *r = PyObject_CallOneArg((PyObject *)&PyComplex_Type, v);
    Py_DECREF(v);
    return r;
}

static int tensor_bool(PyObject *self)
{
    tl_tensor_impl *t = IMPL(self);
    if (t->numel != 1) {
        PyErr_Format(tl_state_of(self)->ShapeError,
                     "bool() of a tensor with %lld elements: the truth "
                     "value needs exactly one element; use .any() or "
                     ".all()", (long long)t->numel);
        return -1;
    }
    PyObject *v = tensor_item(self, NULL);
    if (!v) {
        return -1;
    }
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

static Py_ssize_t tensor_len(PyObject *self)
{
    tl_tensor_impl *t = IMPL(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)t->sizes[0];
}

/* ---- views needed here -------------------------------------------------- */

/* t[i] along dim 0, i already in range.  Returns: new reference. */
tl_tensor_impl *tl_py_select0(tl_tensor_impl *t, int64_t i)
{
    return tl_impl_view(t, t->ndim - 1, t->sizes + 1, t->strides + 1,
                        t->storage_offset + i * t->strides[0]);
}

/* iter(t): t[0], t[1], ... as views, like PyTorch's.  Its own iterator
 * type rather than the sequence protocol's: that one stops on the
 * IndexError of t[len(t)], whose formatted message cost more than a
 * third of list(t) of three rows (issue 22). */
typedef struct {
    PyObject_HEAD
    PyObject *tensor; /* NULL once exhausted */
    int64_t next;
} TensorIterObject;

static PyObject *tensor_iter(PyObject *self)
{
    if (IMPL(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
        return NULL;
    }
    tl_mstate *st = tl_state_of(self);
    TensorIterObject *it = PyObject_GC_New(TensorIterObject,
                                           st->TensorIterType);
    if (!it) {
        return NULL;
    }
    Py_INCREF(self);
    it->tensor = self;
    it->next = 0;
    PyObject_GC_Track(it);
    return (PyObject *)it;
}

static PyObject *tensor_iter_next(PyObject *o)
{
    TensorIterObject *it = (TensorIterObject *)o;
    if (!it->tensor) {
        return NULL;
    }
    /* Re-read every step: the tensor may have been resized (or set_ to
     * a 0-d one) since the last. */
    tl_tensor_impl *t = IMPL(it->tensor);
    if (t->ndim == 0 || it->next >= t->sizes[0]) {
        Py_CLEAR(it->tensor);
        return NULL; /* StopIteration */
    }
    tl_mstate *st = tl_state_of(it->tensor);
    tl_tensor_impl *v = tl_py_select0(t, it->next);
    if (!v) {
        return tl_py_raise(st);
    }
    it->next++;
    return tl_py_wrap(st, v);
}

static PyObject *tensor_iter_length_hint(PyObject *o, PyObject *unused)
{
    TensorIterObject *it = (TensorIterObject *)o;
    int64_t n = 0;
    if (it->tensor) {
        tl_tensor_impl *t = IMPL(it->tensor);
        n = t->ndim == 0 || it->next >= t->sizes[0] ? 0
                                                    : t->sizes[0] - it->next;
    }
    return PyLong_FromLongLong((long long)n);
}

static int tensor_iter_traverse(PyObject *o, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(((TensorIterObject *)o)->tensor);
    return 0;
}

static int tensor_iter_clear(PyObject *o)
{
    Py_CLEAR(((TensorIterObject *)o)->tensor);
    return 0;
}

static void tensor_iter_dealloc(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    Py_CLEAR(((TensorIterObject *)o)->tensor);
    PyObject_GC_Del(o);
    Py_DECREF(tp);
}

static PyMethodDef tensor_iter_methods[] = {
    {"__length_hint__", tensor_iter_length_hint, METH_NOARGS, NULL},
    {NULL},
};

static PyType_Slot tensor_iter_slots[] = {
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, tensor_iter_next},
    {Py_tp_traverse, tensor_iter_traverse},
    {Py_tp_clear, tensor_iter_clear},
    {Py_tp_dealloc, tensor_iter_dealloc},
    {Py_tp_methods, tensor_iter_methods},
    {0, NULL},
};

static PyType_Spec tensor_iter_spec = {
    .name = "tensorlib._C.TensorIterator",
    .basicsize = sizeof(TensorIterObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = tensor_iter_slots,
};

static PyObject *tensor_sq_item(PyObject *self, Py_ssize_t i)
{
    tl_tensor_impl *t = IMPL(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "invalid index of a 0-dim tensor");
        return NULL;
    }
    /* No wrapping of negative i here: PySequence_GetItem has already
     * added len(self) (sq_length is filled), so a second wrap made
     * PySequence_GetItem(t, -len - 1) return t[len - 1]. */
    if (i < 0 || i >= t->sizes[0]) {
        PyErr_Format(PyExc_IndexError,
                     "index %zd is out of bounds for dimension 0 with size "
                     "%lld", i, (long long)t->sizes[0]);
        return NULL;
    }
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *v = tl_py_select0(t, i);
    if (!v) {
        return tl_py_raise(st);
    }
    return tl_py_wrap(st, v);
}

static PyObject *tensor_as_strided(PyObject *self, PyObject *const *args,
                                   Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"size", "stride", "storage_offset",
                                        NULL};
    PyObject *a[3];
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a,
                         "as_strided") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError,
                        "as_strided() needs size and stride");
        return NULL;
    }
    /* Sequences only, as PyTorch: as_strided(2, 1) is a TypeError. */
    for (int i = 0; i < 2; i++) {
        if (PyLong_Check(a[i]) || !PySequence_Check(a[i])) {
            PyErr_Format(PyExc_TypeError,
                         "as_strided(): %s must be a tuple of ints, not "
                         "%.100s", i == 0 ? "size" : "stride",
                         Py_TYPE(a[i])->tp_name);
            return NULL;
        }
    }
    int n = tl_py_parse_shape(&a[0], 1, sizes, "as_strided");
    if (n < 0) {
        return NULL;
    }
    int ns = tl_py_parse_shape(&a[1], 1, strides, "as_strided");
    if (ns < 0) {
        return NULL;
    }
    if (n != ns) {
        PyErr_Format(st->ShapeError,
                     "as_strided(): mismatch in length of strides and shape "
                     "(size has %d entries, stride has %d)", n, ns);
        return NULL;
    }
    tl_tensor_impl *t = IMPL(self);
    int64_t off = t->storage_offset;
    if (a[2] && a[2] != Py_None &&
        tl_py_int64(a[2], &off, "as_strided(): storage_offset") < 0) {
        return NULL;
    }
    tl_tensor_impl *v = tl_tensor_as_strided(t, n, sizes, strides, off);
    if (!v) {
        return tl_py_raise(st);
    }
    return tl_py_wrap(st, v);
}

/* ---- repr --------------------------------------------------------------- */

static PyObject *tensor_repr(PyObject *self)
{
    PyObject *mod = PyImport_ImportModule("tensorlib._printing");
    if (!mod) {
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(mod, "tensor_repr", "O", self);
    Py_DECREF(mod);
    return r;
}

PyObject *tl_py_tensor_numpy(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames);
PyObject *tl_py_tensor_array(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames);

static PyMethodDef tensor_methods[] = {
    {"size", (PyCFunction)(void (*)(void))tensor_size,
     METH_FASTCALL | METH_KEYWORDS,
     "size($self, dim=None)\n--\n\nThe sizes, or the size of one dim."},
    {"stride", (PyCFunction)(void (*)(void))tensor_stride,
     METH_FASTCALL | METH_KEYWORDS,
     "stride($self, dim=None)\n--\n\nStrides in elements."},
    {"storage_offset", tensor_storage_offset, METH_NOARGS,
     "storage_offset($self, /)\n--\n\nOffset into the storage, in "
     "elements."},
    {"dim", tensor_dim, METH_NOARGS, "dim($self, /)\n--\n\n"},
    {"ndimension", tensor_dim, METH_NOARGS, "ndimension($self, /)\n--\n\n"},
    {"numel", tensor_numel, METH_NOARGS, "numel($self, /)\n--\n\n"},
    {"nelement", tensor_numel, METH_NOARGS, "nelement($self, /)\n--\n\n"},
    {"element_size", tensor_element_size, METH_NOARGS,
     "element_size($self, /)\n--\n\n"},
    {"data_ptr", tensor_data_ptr, METH_NOARGS,
     "data_ptr($self, /)\n--\n\nAddress of the first element."},
    {"is_contiguous", (PyCFunction)(void (*)(void))tensor_is_contiguous,
     METH_FASTCALL | METH_KEYWORDS,
     "is_contiguous($self, memory_format=None)\n--\n\nWhether the "
     "strides are dense in memory_format (None: contiguous_format) order."},
    {"item", tensor_item, METH_NOARGS,
     "item($self, /)\n--\n\nThe value of a one-element tensor."},
    {"tolist", tensor_tolist, METH_NOARGS, "tolist($self, /)\n--\n\n"},
    {"as_strided", (PyCFunction)(void (*)(void))tensor_as_strided,
     METH_FASTCALL | METH_KEYWORDS,
     "as_strided($self, size, stride, storage_offset=None)\n--\n\n"
     "A view with the given sizes, strides (in elements) and offset, "
     "checked against the storage."},
    {"numpy", (PyCFunction)(void (*)(void))tl_py_tensor_numpy,
     METH_FASTCALL | METH_KEYWORDS,
     "numpy($self, /, *, force=False)\n--\n\nA NumPy array sharing this "
     "tensor's memory."},
    {"__array__", (PyCFunction)(void (*)(void))tl_py_tensor_array,
     METH_FASTCALL | METH_KEYWORDS,
     "__array__($self, dtype=None, *, copy=None)\n--\n\nNumPy's "
     "conversion hook: the array sharing memory (copy=None or False), or "
     "a copy (copy=True or a different dtype)."},
    {"__complex__", tensor_complex, METH_NOARGS,
     "__complex__($self, /)\n--\n\ncomplex(self) of a one-element "
     "tensor."},
    {NULL},
};

static PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakreflist),
     READONLY, NULL},
    {NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_repr, tensor_repr},
    {Py_tp_members, tensor_members},
    {Py_tp_iter, tensor_iter},
    {Py_nb_int, tensor_int},
    {Py_nb_float, tensor_float},
    {Py_nb_index, tensor_index},
    {Py_nb_bool, tensor_bool},
    {Py_sq_length, tensor_len},
    {Py_sq_item, tensor_sq_item},
    {Py_tp_doc, "A tensor: a strided view over a shared storage."},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    .name = "tensorlib.Tensor",
    .basicsize = sizeof(TensorObject),
    /* Not IMMUTABLETYPE: __array_ufunc__ is set on the type at init. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = tensor_slots,
};

/* Note [Tensor type assembly]
 * The Tensor type's methods, getters and slots come from several files
 * (this one, ops.c, views.c, ...): each exports NULL-terminated tables that
 * are concatenated here once, before the heap type is made, so that no
 * file needs to edit another's table. */
static void *concat_tables(const void *const *tables, size_t elem,
                           bool (*is_end)(const void *))
{
    size_t n = 0;
    for (int t = 0; tables[t]; t++) {
        for (const char *p = tables[t]; !is_end(p); p += elem) {
            n++;
        }
    }
    char *out = PyMem_Calloc(n + 1, elem); /* lives for the process */
    if (!out) {
        return NULL;
    }
    size_t k = 0;
    for (int t = 0; tables[t]; t++) {
        for (const char *p = tables[t]; !is_end(p); p += elem) {
            memcpy(out + elem * k++, p, elem);
        }
    }
    return out;
}

static bool method_end(const void *p)
{
    return ((const PyMethodDef *)p)->ml_name == NULL;
}
static bool getset_end(const void *p)
{
    return ((const PyGetSetDef *)p)->name == NULL;
}
static bool slot_end(const void *p)
{
    return ((const PyType_Slot *)p)->slot == 0;
}

int tl_tensor_type_init(PyObject *m, tl_mstate *st)
{
    static PyType_Slot buffer_slots[] = {
        {Py_bf_getbuffer, NULL},
        {Py_bf_releasebuffer, NULL},
        {0, NULL},
    };
    buffer_slots[0].pfunc = (void *)tl_tensor_buffer_procs.bf_getbuffer;
    buffer_slots[1].pfunc = (void *)tl_tensor_buffer_procs.bf_releasebuffer;
    const void *methods[] = {tensor_methods, tl_ops_tensor_methods,
                             tl_view_tensor_methods, tl_index_tensor_methods,
                             tl_storage_tensor_methods,
                             tl_reduce_tensor_methods,
                             tl_interop_tensor_methods,
                             tl_memory_tensor_methods,
                             tl_cuda_tensor_methods,
                             tl_linalg_tensor_methods,
                             tl_files_tensor_methods, NULL};
    const void *getsets[] = {tensor_getset, tl_view_tensor_getset,
                             tl_interop_tensor_getset,
                             tl_memory_tensor_getset,
                             tl_cuda_tensor_getset, NULL};
    PyMethodDef *all_methods = concat_tables(methods, sizeof(PyMethodDef),
                                             method_end);
    PyGetSetDef *all_getset = concat_tables(getsets, sizeof(PyGetSetDef),
                                            getset_end);
    if (!all_methods || !all_getset) {
        PyErr_NoMemory();
        return -1;
    }
    PyType_Slot extra[] = {
        {Py_tp_methods, all_methods},
        {Py_tp_getset, all_getset},
        {0, NULL},
    };
    const void *slots[] = {tensor_slots, buffer_slots, tl_ops_tensor_slots,
                           tl_view_tensor_slots, tl_index_tensor_slots,
                           tl_linalg_tensor_slots, extra, NULL};
    tensor_spec.slots = concat_tables(slots, sizeof(PyType_Slot), slot_end);
    if (!tensor_spec.slots) {
        PyErr_NoMemory();
        return -1;
    }
    st->TensorType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &tensor_spec, NULL);
    if (!st->TensorType) {
        return -1;
    }
    st->TensorIterType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &tensor_iter_spec, NULL);
    if (!st->TensorIterType) {
        return -1;
    }
    /* NumPy's binary operators defer to ours (ndarray + tensor gives a
     * tensor), as PyTorch arranges with __array_priority__. */
    PyObject *prio = PyFloat_FromDouble(1000.0);
    if (!prio ||
        PyObject_SetAttrString((PyObject *)st->TensorType, "__array_ufunc__",
                               Py_None) < 0 ||
        PyObject_SetAttrString((PyObject *)st->TensorType,
                               "__array_priority__", prio) < 0) {
        Py_XDECREF(prio);
        return -1;
    }
    Py_DECREF(prio);
    return PyModule_AddType(m, st->TensorType);
}
