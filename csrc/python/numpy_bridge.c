/* csrc/python/numpy_bridge.c — zero-copy exchange with NumPy and the buffer
 * protocol: the Tensor's getbuffer/releasebuffer (every export counted on
 * the storage), .numpy() / __array__ (arrays based on an exporter object
 * that holds the storage and its export count until the array dies), and
 * from_numpy (a storage over the array's memory whose deleter releases the
 * array, under the GIL).  The only file that uses the NumPy C API. */
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL tl_ARRAY_API
#include "pytl.h"
#include "fault_py.h"

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

/* ---- dtypes ------------------------------------------------------------- */

/* The dtypes NumPy lacks (bfloat16, float8 ...) come from the optional
 * ml_dtypes package, matched by name: tensorlib's dtype "bfloat16" is
 * ml_dtypes.bfloat16, so a dtype added later needs no change here. */

/* Returns: new reference to ml_dtypes' descr named name, or NULL: with an
 * exception set only when ml_dtypes has it but NumPy refuses it, without
 * one when ml_dtypes is not installed or has no such type. */
static PyArray_Descr *ml_dtypes_descr(const char *name)
{
    PyObject *mod = PyImport_ImportModule("ml_dtypes");
    if (!mod) {
        if (PyErr_ExceptionMatches(PyExc_ImportError)) {
            PyErr_Clear();
        }
        return NULL;
    }
    PyObject *type = PyObject_GetAttrString(mod, name);
    Py_DECREF(mod);
    if (!type) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
        }
        return NULL;
    }
    PyArray_Descr *d = NULL;
    int ok = PyArray_DescrConverter(type, &d);
    Py_DECREF(type);
    return ok ? d : NULL;
}

/* Maps an ml_dtypes descr to the tensorlib dtype of the same name and size
 * that NumPy itself lacks.  Returns 1 and sets *out, 0 when d is no such
 * descr, -1 with an exception. */
static int ml_dtypes_descr_to_tl(PyArray_Descr *d, tl_dtype *out)
{
    PyObject *tp = (PyObject *)d->typeobj;
    PyObject *mod = PyObject_GetAttrString(tp, "__module__");
    if (!mod) {
        PyErr_Clear();
        return 0;
    }
    int is_ml = PyUnicode_Check(mod) &&
                PyUnicode_CompareWithASCIIString(mod, "ml_dtypes") == 0;
    Py_DECREF(mod);
    if (!is_ml) {
        return 0;
    }
    PyObject *name = PyObject_GetAttrString(tp, "__name__");
    if (!name) {
        return -1;
    }
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    tl_dtype dt;
    int found = s && tl_dtype_parse(s, &dt) == 0;
    Py_DECREF(name);
    if (!found) {
        tl_error_clear();
        PyErr_Clear();
        return 0;
    }
    const tl_dtype_info *info = tl_dtype_info_of(dt);
    if (info->numpy_char || info->itemsize != (int64_t)PyDataType_ELSIZE(d)) {
        return 0;
    }
    *out = dt;
    return 1;
}

/* Maps a NumPy descr to a tensorlib dtype.  Returns 0, or -1 with TypeError
 * (a dtype tensorlib lacks) or ValueError (non-native byte order). */
/* ---- float8 through ml_dtypes (an optional extra) ----------------------- */

/* The ml_dtypes scalar type of a float8 dtype.  Returns: new reference,
 * or NULL with a TypeError saying to install ml_dtypes. */
static PyObject *ml_dtypes_type(tl_dtype dt)
{
    PyObject *mod = PyImport_ImportModule("ml_dtypes");
    if (!mod) {
        if (PyErr_ExceptionMatches(PyExc_ImportError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "NumPy has no %s dtype of its own: install the "
                         "optional ml_dtypes package (pip install "
                         "ml_dtypes) for NumPy arrays of it, or convert "
                         "first, e.g. t.to(tensorlib.float32)",
                         tl_dtype_info_of(dt)->name);
        }
        return NULL;
    }
    PyObject *tp = PyObject_GetAttrString(mod, tl_dtype_info_of(dt)->name);
    Py_DECREF(mod);
    return tp;
}

/* The tensorlib float8 dtype of an ml_dtypes descriptor: the dtype, -1
 * when d is not one (or ml_dtypes was never imported), -2 on error. */
static int ml_dtypes_float8_of(PyArray_Descr *d)
{
    if (PyDataType_ELSIZE(d) != 1) {
        return -1;
    }
    PyObject *mods = PyImport_GetModuleDict();
    PyObject *mod = mods ? PyDict_GetItemString(mods, "ml_dtypes") : NULL;
    if (!mod) {
        return -1;
    }
    static const tl_dtype f8[] = {TL_DTYPE_FLOAT8_E4M3FN,
                                  TL_DTYPE_FLOAT8_E5M2};
    for (int i = 0; i < 2; i++) {
        PyObject *tp = PyObject_GetAttrString(mod,
                                              tl_dtype_info_of(f8[i])->name);
        if (!tp) {
            PyErr_Clear();
            continue;
        }
        bool same = tp == (PyObject *)d->typeobj;
        Py_DECREF(tp);
        if (same) {
            return (int)f8[i];
        }
    }
    return -1;
}

static int descr_to_tl(PyArray_Descr *d, tl_dtype *out)
{
    int size = (int)PyDataType_ELSIZE(d);
    int dt = ml_dtypes_float8_of(d);
    if (dt == -2) {
        return -1;
    }
    switch (dt >= 0 ? 0 : d->kind) {
    case 'b':
        dt = TL_DTYPE_BOOL;
        break;
    case 'u':
        dt = size == 1 ? TL_DTYPE_UINT8 : size == 2 ? TL_DTYPE_UINT16
           : size == 4 ? TL_DTYPE_UINT32 : size == 8 ? TL_DTYPE_UINT64 : -1;
        break;
    case 'i':
        dt = size == 1 ? TL_DTYPE_INT8 : size == 2 ? TL_DTYPE_INT16
           : size == 4 ? TL_DTYPE_INT32 : size == 8 ? TL_DTYPE_INT64 : -1;
        break;
    case 'f':
        dt = size == 2 ? TL_DTYPE_FLOAT16 : size == 4 ? TL_DTYPE_FLOAT32
           : size == 8 ? TL_DTYPE_FLOAT64 : -1;
        break;
    case 'c':
        dt = size == 8 ? TL_DTYPE_COMPLEX64
           : size == 16 ? TL_DTYPE_COMPLEX128 : -1;
        break;
    default: {
        tl_dtype ml;
        int r = ml_dtypes_descr_to_tl(d, &ml);
        if (r < 0) {
            return -1;
        }
        dt = r ? (int)ml : -1;
        break;
    }
    }
    if (dt < 0) {
        PyErr_Format(PyExc_TypeError,
                     "NumPy dtype %R has no tensorlib equivalent (supported: "
                     "bool, int8-64, uint8-64, float16/32/64, "
                     "complex64/128, and ml_dtypes' bfloat16)",
                     (PyObject *)d);
        return -1;
    }
    if (PyArray_ISNBO(d->byteorder) == 0) {
        PyErr_Format(PyExc_ValueError,
                     "NumPy dtype %R is not in native byte order; convert "
                     "it first, e.g. with a.astype(a.dtype.newbyteorder('='))",
                     (PyObject *)d);
        return -1;
    }
    *out = (tl_dtype)dt;
    return 0;
}

/* Returns: new reference to the NumPy descr of dt, or NULL with TypeError
 * (bfloat16 has none unless ml_dtypes is installed). */
static PyArray_Descr *tl_to_descr(tl_dtype dt)
{
    if (tl_dtype_is_float8(dt)) {
        PyArray_Descr *d = NULL;
        PyObject *tp = ml_dtypes_type(dt);
        if (!tp) {
            return NULL;
        }
        int ok = PyArray_DescrConverter(tp, &d);
        Py_DECREF(tp);
        return ok ? d : NULL;
    }
    char c = tl_dtype_info_of(dt)->numpy_char;
    if (!c) {
        PyArray_Descr *ml = ml_dtypes_descr(tl_dtype_info_of(dt)->name);
        if (ml || PyErr_Occurred()) {
            return ml;
        }
        PyErr_Format(PyExc_TypeError,
                     "NumPy has no %s dtype; install ml_dtypes for it, or "
                     "convert first, e.g. t.to(tensorlib.float32)",
                     tl_dtype_info_of(dt)->name);
        return NULL;
    }
    return PyArray_DescrFromType(
        c == 'q' ? NPY_INT64 : c == 'Q' ? NPY_UINT64 : (int)c);
}

/* tensorlib.dtype.dtype: the NumPy dtype, which np.dtype(x) consults.
 * Returns: new reference, or NULL with TypeError. */
PyObject *tl_py_dtype_to_numpy(tl_dtype dt)
{
    return (PyObject *)tl_to_descr(dt);
}

int tl_py_numpy_dtype(PyObject *o, tl_dtype *out)
{
    PyArray_Descr *d = NULL;
    if (PyArray_DescrCheck(o)) {
        d = (PyArray_Descr *)Py_NewRef(o);
    } else if (PyType_Check(o) &&
               PyType_IsSubtype((PyTypeObject *)o, &PyGenericArrType_Type)) {
        if (!PyArray_DescrConverter(o, &d)) {
            return -1;
        }
    } else {
        return 0;
    }
    int r = descr_to_tl(d, out);
    Py_DECREF(d);
    return r < 0 ? -1 : 1;
}

int tl_py_numpy_scalar_dtype(PyObject *o, tl_dtype *out)
{
    if (!PyArray_IsScalar(o, Generic)) {
        return 0;
    }
    PyArray_Descr *d = PyArray_DescrFromScalar(o);
    if (!d) {
        return -1;
    }
    int r = descr_to_tl(d, out);
    Py_DECREF(d);
    return r < 0 ? -1 : 1;
}

/* ---- the buffer protocol ------------------------------------------------ */

/* What a live buffer export holds: the storage (so the memory and the
 * export count stay right even if the tensor is later re-bound with set_),
 * then shape and strides for the Py_buffer. */
typedef struct {
    tl_storage *storage;
    Py_ssize_t dims[]; /* ndim shapes, then ndim byte strides */
} export_info;

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    tl_tensor_impl *t = tl_py_impl(self);
    const tl_dtype_info *info = tl_dtype_info_of(t->dtype);
    const int64_t isz = info->itemsize;
    if (tl_tensor_check_live(t) < 0) { /* a reset workspace's tensor */
        return tl_py_raise_int(tl_state_of(self));
    }
    if (t->device.type != TL_DEVICE_CPU) {
        PyErr_SetString(PyExc_BufferError,
                        "only CPU tensors export the buffer protocol");
        return -1;
    }
    if (!info->format[0]) {
        PyErr_Format(PyExc_BufferError,
                     "%s has no buffer-protocol format code; convert first, "
                     "e.g. t.to(tensorlib.float32)", info->name);
        return -1;
    }
    bool readonly = !tl_tensor_is_writable(t);
    if ((flags & PyBUF_WRITABLE) && readonly) {
        PyErr_SetString(PyExc_BufferError,
                        "cannot export a read-only tensor as a writable "
                        "buffer");
        return -1;
    }
    bool c_contig = (t->flags & TL_FLAG_CONTIGUOUS) != 0;
    /* Fortran order: the contiguity walk from the first dim (size-1 dims
     * skipped, an empty tensor is contiguous), as PyBuffer_IsContiguous. */
    bool f_contig = true;
    int64_t expected = 1;
    for (int d = 0; d < t->ndim && t->numel > 0; d++) {
        if (t->sizes[d] != 1 && t->strides[d] != expected) {
            f_contig = false;
            break;
        }
        expected *= t->sizes[d];
    }
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig) {
        PyErr_SetString(PyExc_BufferError,
                        "the tensor is not C-contiguous; call .contiguous() "
                        "first");
        return -1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contig) {
        PyErr_SetString(PyExc_BufferError,
                        "the tensor is not Fortran-contiguous");
        return -1;
    }
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig &&
        !f_contig) {
        PyErr_SetString(PyExc_BufferError,
                        "the tensor is neither C- nor Fortran-contiguous");
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig) {
        PyErr_SetString(PyExc_BufferError,
                        "the tensor is not C-contiguous and the consumer "
                        "did not ask for strides");
        return -1;
    }
    /* The consumer may write: a lazy clone gets its own bytes first. */
    if (tl_storage_cow_prepare_export(t->storage) < 0) {
        return tl_py_raise_int(tl_state_of(self));
    }
    export_info *ex = tl_py_mem_malloc(sizeof(export_info) +
                                   2 * (size_t)(t->ndim ? t->ndim : 1) *
                                       sizeof(Py_ssize_t));
    if (!ex) {
        PyErr_NoMemory();
        return -1;
    }
    for (int d = 0; d < t->ndim; d++) {
        ex->dims[d] = (Py_ssize_t)t->sizes[d];
        ex->dims[t->ndim + d] = (Py_ssize_t)(t->strides[d] * isz);
    }
    tl_storage_incref(t->storage);
    tl_storage_export_begin(t->storage);
    ex->storage = t->storage;
    view->buf = tl_impl_data(t);
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)(t->numel * isz);
    view->itemsize = (Py_ssize_t)isz;
    view->readonly = readonly;
    /* Without PyBUF_ND the consumer sees one flat run of bytes: shape is
     * NULL, so ndim must be 1 (CPython's consumers index shape[0..ndim)
     * whenever ndim > 1). */
    view->ndim = (flags & PyBUF_ND) == PyBUF_ND || t->ndim == 0 ? t->ndim : 1;
    view->format = (flags & PyBUF_FORMAT) ? (char *)info->format : NULL;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? ex->dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES
                        ? ex->dims + t->ndim : NULL;
    view->suboffsets = NULL;
    view->internal = ex;
    return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view)
{
    export_info *ex = view->internal;
    if (ex) {
        tl_storage_export_end(ex->storage);
        tl_storage_decref(ex->storage);
        PyMem_Free(ex);
        view->internal = NULL;
    }
}

PyBufferProcs tl_tensor_buffer_procs = {
    .bf_getbuffer = tensor_getbuffer,
    .bf_releasebuffer = tensor_releasebuffer,
};

/* ---- the exporter object behind .numpy() arrays -------------------------- */

typedef struct {
    PyObject_HEAD
    tl_storage *storage; /* strong; counted as one export while alive */
} ExporterObject;

static void exporter_dealloc(PyObject *self)
{
    ExporterObject *e = (ExporterObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (e->storage) {
        tl_storage_export_end(e->storage);
        tl_storage_decref(e->storage);
    }
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot exporter_slots[] = {
    {Py_tp_dealloc, exporter_dealloc},
    {Py_tp_doc, "Keeps a tensorlib storage exported while a NumPy array "
                "uses its memory."},
    {0, NULL},
};

static PyType_Spec exporter_spec = {
    .name = "tensorlib._C._StorageExport",
    .basicsize = sizeof(ExporterObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = exporter_slots,
};

PyObject *tl_py_to_numpy(tl_mstate *st, PyObject *self)
{
    tl_tensor_impl *t = tl_py_impl(self);
    if (tl_tensor_check_live(t) < 0) { /* a reset workspace's tensor */
        return tl_py_raise(st);
    }
    if (t->device.type != TL_DEVICE_CPU) {
        char buf[32];
        tl_device_format(t->device, buf, sizeof buf);
        PyErr_Format(PyExc_TypeError,
                     "can't convert a %s tensor to numpy; use .cpu() first",
                     buf);
        return NULL;
    }
    PyArray_Descr *descr = tl_to_descr((tl_dtype)t->dtype);
    if (!descr) {
        return NULL;
    }
    npy_intp dims[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    const int64_t isz = tl_itemsize(t->dtype);
    for (int d = 0; d < t->ndim; d++) {
        dims[d] = (npy_intp)t->sizes[d];
        strides[d] = (npy_intp)(t->strides[d] * isz);
    }
    int flags = tl_tensor_is_writable(t) ? NPY_ARRAY_WRITEABLE : 0;
    if (tl_storage_cow_prepare_export(t->storage) < 0) {
        Py_DECREF(descr);
        return tl_py_raise(st);
    }
    ExporterObject *ex = TL_PY_NEW(ExporterObject, st->ExporterType);
    if (!ex) {
        Py_DECREF(descr);
        return NULL;
    }
    tl_storage_incref(t->storage);
    tl_storage_export_begin(t->storage);
    ex->storage = t->storage;
    /* Steals descr. */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, t->ndim, dims,
                                         strides, tl_impl_data(t), flags,
                                         NULL);
    if (!arr) {
        Py_DECREF(ex);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)ex) < 0) {
        Py_DECREF(arr); /* SetBaseObject stole ex even on failure */
        return NULL;
    }
    return arr;
}

PyObject *tl_py_tensor_numpy(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"force", NULL};
    PyObject *a[1];
    if (tl_py_parse_args(args, nargs, kwnames, names, 0, a, "numpy") < 0) {
        return NULL;
    }
    tl_mstate *st = tl_state_of(self);
    /* force=True changes nothing more: a dtype NumPy lacks (bfloat16
     * without ml_dtypes) is a TypeError either way. */
    return tl_py_to_numpy(st, self);
}

PyObject *tl_py_tensor_array(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "copy", NULL};
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "__array__") < 0) {
        return NULL;
    }
    tl_mstate *st = tl_state_of(self);
    PyObject *arr = tl_py_to_numpy(st, self);
    if (!arr) {
        return NULL;
    }
    PyObject *dtype = a[0] && a[0] != Py_None ? a[0] : NULL;
    int copy = -1; /* None */
    if (a[1] && a[1] != Py_None) {
        copy = PyObject_IsTrue(a[1]);
        if (copy < 0) {
            Py_DECREF(arr);
            return NULL;
        }
    }
    if (dtype) {
        PyArray_Descr *want = NULL;
        if (!PyArray_DescrConverter(dtype, &want)) {
            Py_DECREF(arr);
            return NULL;
        }
        bool same = PyArray_EquivTypes(want,
                                       PyArray_DESCR((PyArrayObject *)arr));
        if (!same) {
            if (copy == 0) {
                Py_DECREF(want);
                Py_DECREF(arr);
                PyErr_SetString(PyExc_ValueError,
                                "__array__(copy=False): converting the dtype "
                                "needs a copy");
                return NULL;
            }
            PyObject *cast = PyArray_CastToType((PyArrayObject *)arr, want, 0);
            Py_DECREF(arr);
            return cast; /* a fresh array: copy=True is satisfied */
        }
        Py_DECREF(want);
    }
    if (copy == 1) {
        PyObject *c = PyArray_NewCopy((PyArrayObject *)arr, NPY_KEEPORDER);
        Py_DECREF(arr);
        return c;
    }
    return arr;
}

/* ---- from_numpy ---------------------------------------------------------- */

static void release_array(void *ctx)
{
    /* Runs when the last view of the storage dies, possibly on a thread
     * that does not hold the GIL. */
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF((PyObject *)ctx);
        PyGILState_Release(g);
    }
}

PyObject *tl_py_from_numpy(tl_mstate *st, PyObject *obj)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "from_numpy() expects a numpy.ndarray, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyArrayObject *arr = (PyArrayObject *)obj;
    tl_dtype dt;
    if (descr_to_tl(PyArray_DESCR(arr), &dt) < 0) {
        return NULL;
    }
    const int ndim = PyArray_NDIM(arr);
    if (ndim > TL_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "an array of %d dimensions is more "
                     "than tensorlib's %d", ndim, TL_MAX_DIMS);
        return NULL;
    }
    const int64_t isz = tl_itemsize(dt);
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int64_t lo = 0, hi = 0; /* byte extent relative to data */
    bool empty = false;
    for (int d = 0; d < ndim; d++) {
        npy_intp bs = PyArray_STRIDE(arr, d);
        sizes[d] = PyArray_DIM(arr, d);
        if (sizes[d] == 0) {
            empty = true;
        }
        if (bs % isz != 0) {
            PyErr_Format(PyExc_ValueError,
                         "array stride %zd bytes at dim %d is not a multiple "
                         "of the itemsize %lld; copy it first (e.g. "
                         "numpy.ascontiguousarray)", (Py_ssize_t)bs, d,
                         (long long)isz);
            return NULL;
        }
        strides[d] = bs / isz;
    }
    if (!empty) {
        for (int d = 0; d < ndim; d++) {
            int64_t span = (int64_t)PyArray_STRIDE(arr, d) * (sizes[d] - 1);
            if (span < 0) {
                lo += span;
            } else {
                hi += span;
            }
        }
        hi += isz;
    }
    char *base = (char *)PyArray_DATA(arr) + lo;
    bool readonly = !PyArray_ISWRITEABLE(arr);
    tl_tensor_impl *t = tl_tensor_wrap(base, (size_t)(hi - lo),
                                       tl_device_cpu(), readonly,
                                       release_array, obj, -lo / isz, ndim,
                                       sizes, strides, dt);
    if (!t) {
        return tl_py_raise(st);
    }
    Py_INCREF(obj); /* owned by the block's deleter from here */
    return tl_py_wrap(st, t);
}

PyObject *tl_py_numpy_native_layout(PyObject *obj)
{
    PyArrayObject *arr = (PyArrayObject *)obj;
    PyArray_Descr *d = PyArray_DESCR(arr);
    const npy_intp isz = (npy_intp)PyDataType_ELSIZE(d);
    bool viewable = PyArray_ISNBO(d->byteorder) != 0;
    for (int i = 0; viewable && i < PyArray_NDIM(arr); i++) {
        viewable = isz == 0 || PyArray_STRIDE(arr, i) % isz == 0;
    }
    if (viewable) {
        return Py_NewRef(obj);
    }
    PyArray_Descr *native = PyArray_DescrNewByteorder(d, NPY_NATIVE);
    if (!native) {
        return NULL;
    }
    /* Steals native. */
    return PyArray_FromArray(arr, native,
                             NPY_ARRAY_CARRAY_RO | NPY_ARRAY_ENSURECOPY);
}

static PyObject *py_from_numpy(PyObject *m, PyObject *arr)
{
    return tl_py_from_numpy(tl_state_of_module(m), arr);
}

PyMethodDef tl_numpy_methods[] = {
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray, /)\n--\n\nA tensor sharing the array's memory "
     "(zero copy; negative strides and unaligned data included)."},
    {NULL},
};

int tl_numpy_init(PyObject *m, tl_mstate *st)
{
    if (PyArray_ImportNumPyAPI() < 0) {
        return -1;
    }
    st->ExporterType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &exporter_spec, NULL);
    return st->ExporterType ? 0 : -1;
}

int tl_py_is_ndarray(PyObject *o)
{
    return PyArray_Check(o);
}

int tl_py_numpy_scalar_dtype_or_0d(PyObject *o, tl_dtype *out)
{
    if (PyArray_Check(o)) {
        if (PyArray_NDIM((PyArrayObject *)o) != 0) {
            return 0;
        }
        return descr_to_tl(PyArray_DESCR((PyArrayObject *)o), out) < 0 ? -1
                                                                       : 1;
    }
    return tl_py_numpy_scalar_dtype(o, out);
}
