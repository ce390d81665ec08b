/* csrc/python/cuda.c — the bindings behind tensorlib.cuda (is_built,
 * is_available, device_count, synchronize, streams; tensorlib/cuda.py is
 * the public face), and the CUDA-facing Tensor methods: cuda(),
 * record_stream(), __cuda_array_interface__.  Compiled in every build: a
 * CPU-only build answers "not built" and raises "tensorlib was built
 * without CUDA".  It reaches CUDA only through core's device kernel table
 * (tensorlib/device_table.h); the one exception is the start-up call that
 * installs the CUDA row, in a build with TL_WITH_CUDA. */
#include "pytl.h"
#include "tensorlib/device_table.h"

#ifdef TL_WITH_CUDA
#include "../cuda/cuda_internal.h"
#endif


/* The CUDA row, or NULL with RuntimeError "tensorlib was built without
 * CUDA". */
static const tl_device_ops *row_or_raise(tl_mstate *st)
{
    const tl_device_ops *o = tl_device_ops_get(TL_DEVICE_CUDA);

    if (o == NULL) {
        tl_py_raise(st);
    }
    return o;
}

/* A CUDA device index from None (0), an int, a device or a string.
 * Returns 0 / -1. */
static int parse_index(tl_mstate *st, PyObject *o, int *index)
{
    tl_device d = {TL_DEVICE_CUDA, 0};

    if (o != NULL && o != Py_None && PyLong_Check(o)) {
        long v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (v < 0 || v > TL_MAX_DEVICE_INDEX) {
            PyErr_Format(PyExc_ValueError, "CUDA device index %ld is out of "
                         "range", v);
            return -1;
        }
        *index = (int)v;
        return 0;
    }
    if (tl_py_parse_device(st, o, &d) < 0) {
        return -1;
    }
    if (d.type != TL_DEVICE_CUDA) {
        PyErr_SetString(PyExc_ValueError, "expected a CUDA device");
        return -1;
    }
    *index = d.index;
    return 0;
}

/* A stream handle from an int or an object with an int `cuda_stream`
 * (tensorlib.cuda.Stream, torch.cuda.Stream).  Returns 0 / -1. */
static int parse_stream(PyObject *o, tl_stream *out)
{
    PyObject *h;
    long long v;

    if (PyLong_Check(o)) {
        h = Py_NewRef(o);
    }
    else {
        h = PyObject_GetAttrString(o, "cuda_stream");
        if (h == NULL) {
            PyErr_Format(PyExc_TypeError, "expected a CUDA stream (an int "
                         "handle or an object with .cuda_stream), not "
                         "%.100s", Py_TYPE(o)->tp_name);
            return -1;
        }
    }
    v = PyLong_AsLongLong(h);
    Py_DECREF(h);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (tl_stream)v;
    return 0;
}

/* ---- module functions --------------------------------------------------- */

static PyObject *f_is_built(PyObject *m, PyObject *unused)
{
#ifdef TL_WITH_CUDA
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

static PyObject *f_is_emulated(PyObject *m, PyObject *unused)
{
#ifdef TL_CUDA_EMULATE
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

/* Never raises: 0 without the row, a driver or a device. */
static PyObject *f_device_count(PyObject *m, PyObject *unused)
{
    const tl_device_ops *o = tl_device_ops_get(TL_DEVICE_CUDA);
    int n = o != NULL ? o->device_count() : 0;

    tl_error_clear();
    return PyLong_FromLong(n > 0 ? n : 0);
}

static PyObject *f_is_available(PyObject *m, PyObject *unused)
{
    PyObject *n = f_device_count(m, NULL);
    PyObject *r;

    if (n == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    r = PyBool_FromLong(PyLong_AsLong(n) > 0);
    Py_DECREF(n);
    return r;
}

static PyObject *f_synchronize(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    const tl_device_ops *o;
    PyObject *a[1];
    int index = 0, rc;

    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "synchronize") < 0 ||
        (o = row_or_raise(st)) == NULL || parse_index(st, a[0], &index) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = o->synchronize(index);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *f_stream_new(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "priority", NULL};
    tl_mstate *st = tl_state_of_module(m);
    const tl_device_ops *o;
    PyObject *a[2];
    int index = 0, priority = 0;
    tl_stream s = 0;

    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "_cuda_stream_new") < 0 ||
        (o = row_or_raise(st)) == NULL || parse_index(st, a[0], &index) < 0) {
        return NULL;
    }
    if (a[1] != NULL && a[1] != Py_None) {
        priority = (int)PyLong_AsLong(a[1]);
        if (priority == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (o->stream_new(index, priority, &s) < 0) {
        return tl_py_raise(st);
    }
    return PyLong_FromLongLong((long long)s);
}

/* f(device, stream) helpers: parses both, returns the row. */
static const tl_device_ops *stream_args(tl_mstate *st, PyObject *const *args,
                                        Py_ssize_t nargs, const char *fname,
                                        int *index, tl_stream *s)
{
    const tl_device_ops *o;

    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(device, stream) takes 2 "
                     "arguments", fname);
        return NULL;
    }
    if ((o = row_or_raise(st)) == NULL ||
        parse_index(st, args[0], index) < 0 || parse_stream(args[1], s) < 0) {
        return NULL;
    }
    return o;
}

static PyObject *f_stream_free(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int index;
    tl_stream s;
    const tl_device_ops *o = stream_args(st, args, nargs, "_cuda_stream_free",
                                         &index, &s);

    if (o == NULL) {
        return NULL;
    }
    if (o->stream_free(index, s) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *f_stream_query(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int index, rc;
    tl_stream s;
    const tl_device_ops *o = stream_args(st, args, nargs,
                                         "_cuda_stream_query", &index, &s);

    if (o == NULL) {
        return NULL;
    }
    rc = o->stream_query(index, s);
    if (rc < 0) {
        return tl_py_raise(st);
    }
    return PyBool_FromLong(rc);
}

static PyObject *f_stream_synchronize(PyObject *m, PyObject *const *args,
                                      Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int index, rc;
    tl_stream s;
    const tl_device_ops *o = stream_args(st, args, nargs,
                                         "_cuda_stream_synchronize", &index,
                                         &s);

    if (o == NULL) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = o->stream_synchronize(index, s);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *f_set_stream(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int index;
    tl_stream s;
    const tl_device_ops *o = stream_args(st, args, nargs, "_cuda_set_stream",
                                         &index, &s);

    if (o == NULL) {
        return NULL;
    }
    if (o->set_current_stream(index, s) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *f_current_stream(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    const tl_device_ops *o;
    PyObject *a[1];
    int index = 0;

    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "_cuda_current_stream") < 0 ||
        (o = row_or_raise(st)) == NULL || parse_index(st, a[0], &index) < 0) {
        return NULL;
    }
    /* current_stream itself cannot fail: a device that is not there is
     * refused here, as every other stream call refuses it (it answered 0,
     * a default stream of a missing device, before). */
    if (o->check_device(index) < 0) {
        return tl_py_raise(st);
    }
    return PyLong_FromLongLong((long long)o->current_stream(index));
}

PyMethodDef tl_cuda_functions[] = {
    {"_cuda_is_built", f_is_built, METH_NOARGS,
     "_cuda_is_built()\n--\n\nWhether this build has the CUDA plug-in."},
    {"_cuda_is_emulated", f_is_emulated, METH_NOARGS,
     "_cuda_is_emulated()\n--\n\nWhether CUDA is emulated on the host "
     "(a test build)."},
    {"_cuda_device_count", f_device_count, METH_NOARGS,
     "_cuda_device_count()\n--\n\n"},
    {"_cuda_is_available", f_is_available, METH_NOARGS,
     "_cuda_is_available()\n--\n\n"},
    {"_cuda_synchronize", CF(f_synchronize), FASTKW,
     "_cuda_synchronize(device=None)\n--\n\n"},
    {"_cuda_stream_new", CF(f_stream_new), FASTKW,
     "_cuda_stream_new(device=None, priority=0)\n--\n\n"},
    {"_cuda_stream_free", CF(f_stream_free), METH_FASTCALL,
     "_cuda_stream_free(device, stream, /)\n--\n\n"},
    {"_cuda_stream_query", CF(f_stream_query), METH_FASTCALL,
     "_cuda_stream_query(device, stream, /)\n--\n\n"},
    {"_cuda_stream_synchronize", CF(f_stream_synchronize), METH_FASTCALL,
     "_cuda_stream_synchronize(device, stream, /)\n--\n\n"},
    {"_cuda_set_stream", CF(f_set_stream), METH_FASTCALL,
     "_cuda_set_stream(device, stream, /)\n--\n\n"},
    {"_cuda_current_stream", CF(f_current_stream), FASTKW,
     "_cuda_current_stream(device=None)\n--\n\n"},
    {NULL},
};

/* ---- Tensor methods ----------------------------------------------------- */

/* t.cuda(device=None, non_blocking=False) */
static PyObject *m_cuda(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "non_blocking", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self), *r;
    tl_device dev = {TL_DEVICE_CUDA, 0};
    PyObject *a[2];
    int index = 0, nb = 0;

    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "cuda") < 0 ||
        parse_index(st, a[0], &index) < 0) {
        return NULL;
    }
    if (a[1] != NULL && (nb = PyObject_IsTrue(a[1])) < 0) {
        return NULL;
    }
    dev.index = (int16_t)index;
    if (tl_device_eq(dev, t->device)) {
        return Py_NewRef(self);
    }
    r = tl_op_to_device(t, dev, -1, false, nb != 0);
    return r != NULL ? tl_py_wrap(st, r) : tl_py_raise(st);
}

/* t.record_stream(stream) */
static PyObject *m_record_stream(PyObject *self, PyObject *stream)
{
    tl_mstate *st = tl_state_of(self);
    tl_stream s;

    if (parse_stream(stream, &s) < 0) {
        return NULL;
    }
    if (tl_tensor_record_stream(tl_py_impl(self), s) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

PyMethodDef tl_cuda_tensor_methods[] = {
    {"cuda", CF(m_cuda), FASTKW,
     "cuda($self, device=None, non_blocking=False)\n--\n\nThis tensor on "
     "a CUDA device (itself when already there)."},
    {"record_stream", m_record_stream, METH_O,
     "record_stream($self, stream, /)\n--\n\nMarks that stream uses this "
     "tensor's memory: when the tensor is freed, the memory is not reused "
     "before the work queued on stream by then completes."},
    {NULL},
};

/* __cuda_array_interface__, version 3 (numba's protocol): shape, typestr,
 * data (pointer, read-only), strides in bytes (None when C-contiguous),
 * version and the stream consumers synchronise with (1: the legacy default
 * stream).  As __array_interface__, it cannot tell when the consumer is
 * done, so the storage is never resized again. */
static PyObject *t_cuda_array_interface(PyObject *self, void *closure)
{
    tl_tensor_impl *t = tl_py_impl(self);
    const tl_dtype_info *info = tl_dtype_info_of((tl_dtype)t->dtype);
    const tl_device_ops *o;
    PyObject *shape = NULL, *strides = NULL;
    tl_stream s;
    char typestr[8];

    if (t->device.type != TL_DEVICE_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__cuda_array_interface__ is only for CUDA tensors; "
                        "use __array_interface__ or .numpy() for this one");
        return NULL;
    }
    if (info->format[0] == '\0' || info->numpy_char == 0) {
        PyErr_Format(PyExc_TypeError, "%s has no __cuda_array_interface__ "
                     "type string", info->name);
        return NULL;
    }
    o = tl_device_ops_get(TL_DEVICE_CUDA);
    if (o == NULL) {
        return tl_py_raise(tl_state_of(self));
    }
    snprintf(typestr, sizeof(typestr), "%c%c%d",
             info->itemsize == 1 ? '|' : '<',
             info->kind == TL_KIND_BOOL   ? 'b'
             : info->kind == TL_KIND_UINT ? 'u'
             : info->kind == TL_KIND_INT  ? 'i'
             : info->kind == TL_KIND_FLOAT ? 'f'
                                           : 'c',
             info->itemsize);
    shape = PyTuple_New(t->ndim);
    if (shape == NULL) {
        return NULL;
    }
    for (int d = 0; d < t->ndim; d++) {
        PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t->sizes[d]));
    }
    if (t->flags & TL_FLAG_CONTIGUOUS) {
        strides = Py_NewRef(Py_None);
    }
    else {
        strides = PyTuple_New(t->ndim);
        for (int d = 0; strides != NULL && d < t->ndim; d++) {
            PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(
                                             t->strides[d] * info->itemsize));
        }
    }
    if (strides == NULL || PyErr_Occurred()) {
        Py_DECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    t->storage->resizable = false;
    /* Untracked memory: a lazy clone copies first, and it is never shared
     * copy-on-write again (Note [Copy-on-write storages]). */
    if (tl_storage_cow_prepare_export(t->storage) < 0) {
        Py_DECREF(shape);
        Py_DECREF(strides);
        return tl_py_raise(tl_state_of(self));
    }
    atomic_fetch_or(&t->storage->cow, TL_COW_NEVER);
    s = o->current_stream(t->device.index);
    return Py_BuildValue(
        "{s:N,s:s,s:[(s,s)],s:(NO),s:N,s:i,s:L}", "shape", shape, "typestr",
        typestr, "descr", "", typestr, "data",
        PyLong_FromVoidPtr(t->numel > 0 ? tl_impl_data(t) : NULL),
        tl_tensor_is_writable(t) ? Py_False : Py_True, "strides", strides,
        "version", 3, "stream", (long long)(s == 0 ? 1 : s));
}

PyGetSetDef tl_cuda_tensor_getset[] = {
    {"__cuda_array_interface__", t_cuda_array_interface, NULL,
     "The CUDA array interface (version 3) of a CUDA tensor.", NULL},
    {NULL},
};

int tl_cuda_init(PyObject *m, tl_mstate *st)
{
    (void)st;
    if (PyModule_AddFunctions(m, tl_cuda_functions) < 0) {
        return -1;
    }
#ifdef TL_WITH_CUDA
    /* Installs the kernel table row and the lazily backed allocators; no
     * CUDA runtime call happens here (Note [CUDA plug-in lifecycle] in
     * csrc/cuda/cuda_module.c). */
    if (tl_cuda_plugin_init() < 0) {
        PyErr_Format(PyExc_ImportError, "tensorlib: the CUDA plug-in "
                     "failed to start: %s", tl_error_message());
        return -1;
    }
#endif
    return 0;
}
