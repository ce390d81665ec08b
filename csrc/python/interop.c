/* csrc/python/interop.c — the protocols tensorlib speaks with its
 * neighbours: DLPack both ways (versioned and legacy capsules),
 * __array_interface__, read-only tensors, asarray/frombuffer, tobytes, and
 * the C helpers behind pickling.  Every path that hands memory out counts
 * an export on the storage and keeps the block alive until the consumer
 * lets go (DESIGN.md "Exports"). */
#include <stdlib.h>
#include <string.h>

#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/device_table.h"
#include "tensorlib/dlpack_abi.h"
#include "tensorlib/ops.h"

/* ---- dtype <-> DLPack --------------------------------------------------------- */

static tl_dl_dtype dl_dtype_of(tl_dtype dt)
{
    tl_dl_dtype d = {0, (uint8_t)(tl_dtype_itemsize(dt) * 8), 1};
    switch (tl_dtype_info_of(dt)->kind) {
    case TL_KIND_BOOL: d.code = TL_DL_BOOL; break;
    case TL_KIND_UINT: d.code = TL_DL_UINT; break;
    case TL_KIND_INT: d.code = TL_DL_INT; break;
    case TL_KIND_COMPLEX: d.code = TL_DL_COMPLEX; break;
    default: d.code = dt == TL_DTYPE_BFLOAT16 ? TL_DL_BFLOAT : TL_DL_FLOAT;
    }
    return d;
}

/* Returns 0 and *out, or -1 with BufferError naming the DLPack type. */
static int tl_dtype_of_dl(tl_dl_dtype d, tl_dtype *out)
{
    int dt = -1;
    if (d.lanes == 1) {
        switch (d.code) {
        case TL_DL_BOOL: dt = d.bits == 8 ? TL_DTYPE_BOOL : -1; break;
        case TL_DL_UINT:
            dt = d.bits == 8 ? TL_DTYPE_UINT8 : d.bits == 16 ? TL_DTYPE_UINT16
               : d.bits == 32 ? TL_DTYPE_UINT32
               : d.bits == 64 ? TL_DTYPE_UINT64 : -1;
            break;
        case TL_DL_INT:
            dt = d.bits == 8 ? TL_DTYPE_INT8 : d.bits == 16 ? TL_DTYPE_INT16
               : d.bits == 32 ? TL_DTYPE_INT32
               : d.bits == 64 ? TL_DTYPE_INT64 : -1;
            break;
        case TL_DL_FLOAT:
            dt = d.bits == 16 ? TL_DTYPE_FLOAT16
               : d.bits == 32 ? TL_DTYPE_FLOAT32
               : d.bits == 64 ? TL_DTYPE_FLOAT64 : -1;
            break;
        case TL_DL_BFLOAT: dt = d.bits == 16 ? TL_DTYPE_BFLOAT16 : -1; break;
        case TL_DL_COMPLEX:
            dt = d.bits == 64 ? TL_DTYPE_COMPLEX64
               : d.bits == 128 ? TL_DTYPE_COMPLEX128 : -1;
            break;
        default: break;
        }
    }
    if (dt < 0) {
        PyErr_Format(PyExc_BufferError,
                     "DLPack dtype (code %u, bits %u, lanes %u) has no "
                     "tensorlib equivalent", d.code, d.bits, d.lanes);
        return -1;
    }
    *out = (tl_dtype)dt;
    return 0;
}

/* ---- export: __dlpack__ -------------------------------------------------------- */

/* One allocation holds the managed struct (either form), the shape and
 * strides arrays and the storage reference that keeps the memory alive and
 * counted as exported until the consumer's deleter runs. */
typedef struct {
    union {
        tl_dl_managed_tensor legacy;
        tl_dl_managed_tensor_versioned versioned;
    } m;
    tl_storage *storage;
    int64_t dims[]; /* ndim shape entries, then ndim strides */
} dl_export;

static void release_export(dl_export *e)
{
    tl_storage_export_end(e->storage);
    tl_storage_decref(e->storage);
    free(e);
}

static void legacy_deleter(tl_dl_managed_tensor *self)
{
    release_export((dl_export *)self->manager_ctx);
}

static void versioned_deleter(tl_dl_managed_tensor_versioned *self)
{
    release_export((dl_export *)self->manager_ctx);
}

/* A capsule nobody consumed still owns its managed tensor. */
static void capsule_destructor(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, TL_DLPACK_VERSIONED_CAPSULE)) {
        tl_dl_managed_tensor_versioned *m =
            PyCapsule_GetPointer(cap, TL_DLPACK_VERSIONED_CAPSULE);
        if (m && m->deleter) {
            m->deleter(m);
        }
    } else if (PyCapsule_IsValid(cap, TL_DLPACK_CAPSULE)) {
        tl_dl_managed_tensor *m = PyCapsule_GetPointer(cap, TL_DLPACK_CAPSULE);
        if (m && m->deleter) {
            m->deleter(m);
        }
    }
    PyErr_Clear(); /* a destructor must not leave an exception */
}

static int parse_version(PyObject *o, long *major, long *minor)
{
    if (!o || o == Py_None) {
        *major = *minor = -1;
        return 0;
    }
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "max_version must be a (major, minor) tuple");
        return -1;
    }
    *major = PyLong_AsLong(PyTuple_GET_ITEM(o, 0));
    *minor = PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *t_dlpack(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", "max_version", "dl_device",
                                        "copy", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[4];
    long major, minor;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "__dlpack__") < 0
        || parse_version(a[1], &major, &minor) < 0) {
        return NULL;
    }
    tl_tensor_impl *t = tl_py_impl(self);
    if (tl_tensor_check_live(t) < 0) { /* a reset workspace's tensor */
        return tl_py_raise(st);
    }
    const bool on_cuda = t->device.type == TL_DEVICE_CUDA;
    const int dl_type = on_cuda ? TL_DL_CUDA : TL_DL_CPU;
    const int dl_id = on_cuda ? t->device.index : 0;
    if (a[0] && a[0] != Py_None &&
        (!PyLong_Check(a[0]) || PyBool_Check(a[0]))) {
        /* A wrong type is a TypeError (DESIGN.md), as PyTorch's, on any
         * device; an int stream for a CPU tensor is a bad value. */
        PyErr_Format(PyExc_TypeError, "__dlpack__: stream must be None or "
                     "an int, not %.100s", Py_TYPE(a[0])->tp_name);
        return NULL;
    }
    if (a[0] && a[0] != Py_None && !on_cuda) {
        PyErr_SetString(PyExc_ValueError,
                        "__dlpack__: stream must be None for CPU tensors");
        return NULL;
    }
    if (on_cuda) {
        /* The consumer's stream (DLPack: None is the legacy default, -1
         * asks for no synchronisation): the data must be ready for it, so
         * the work queued on our current stream finishes first. */
        long long cs = 1;
        if (a[0] && a[0] != Py_None) {
            cs = PyLong_AsLongLong(a[0]);
            if (cs == -1 && PyErr_Occurred()) {
                return NULL;
            }
        }
        const tl_device_ops *o = tl_device_ops_get(TL_DEVICE_CUDA);
        if (!o) {
            return tl_py_raise(st);
        }
        tl_stream ours = o->current_stream(t->device.index);
        if (cs != -1 && cs != (ours == 0 ? 1 : (long long)ours) &&
            o->stream_synchronize(t->device.index, ours) < 0) {
            return tl_py_raise(st);
        }
    }
    if (a[2] && a[2] != Py_None) {
        long dtype_, did;
        if (!PyTuple_Check(a[2]) || PyTuple_GET_SIZE(a[2]) != 2) {
            PyErr_SetString(PyExc_TypeError, "dl_device must be a "
                            "(device_type, device_id) tuple");
            return NULL;
        }
        dtype_ = PyLong_AsLong(PyTuple_GET_ITEM(a[2], 0));
        did = PyLong_AsLong(PyTuple_GET_ITEM(a[2], 1));
        if (PyErr_Occurred()) {
            return NULL;
        }
        if (dtype_ != dl_type || did != dl_id) {
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__: cannot export a tensor of DLPack "
                         "device (%d, %d) to DLPack device (%ld, %ld)",
                         dl_type, dl_id, dtype_, did);
            return NULL;
        }
    }
    int copy = -1;
    if (a[3] && a[3] != Py_None) {
        copy = PyObject_IsTrue(a[3]);
        if (copy < 0) {
            return NULL;
        }
    }
    bool versioned = major >= 1;
    if (tl_dtype_is_float8((tl_dtype)t->dtype)) {
        PyErr_Format(PyExc_BufferError,
                     "__dlpack__: %s has no type code in the DLPack version "
                     "tensorlib follows; convert first, e.g. "
                     "t.to(tensorlib.float32)", tl_dtype_info_of(t->dtype)->name);
        return NULL;
    }
    bool readonly = !tl_tensor_is_writable(t);
    tl_tensor_impl *src = t;
    if (readonly && !versioned && copy != 1) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: a read-only tensor cannot be exported "
                        "as a legacy (unversioned) DLPack capsule, which "
                        "has no read-only flag; ask for max_version >= "
                        "(1, 0) or copy=True");
        return NULL;
    }
    if (copy == 1) {
        src = tl_op_clone(t, TL_FORMAT_PRESERVE);
        if (!src) {
            return tl_py_raise(st);
        }
        readonly = false;
    } else {
        tl_tensor_incref(src);
    }
    /* The consumer may write: a lazy clone gets its own bytes first. */
    if (tl_storage_cow_prepare_export(src->storage) < 0) {
        tl_tensor_decref(src);
        return tl_py_raise(st);
    }
    const int nd = src->ndim;
    dl_export *e = tl_fault_calloc(1, sizeof(dl_export) + 2 * (size_t)nd * 8);
    if (!e) {
        tl_tensor_decref(src);
        return PyErr_NoMemory();
    }
    memcpy(e->dims, src->sizes, (size_t)nd * 8);
    memcpy(e->dims + nd, src->strides, (size_t)nd * 8);
    tl_storage_incref(src->storage);
    tl_storage_export_begin(src->storage);
    e->storage = src->storage;
    tl_dl_tensor dl = {
        .data = tl_impl_data(src),
        .device = {dl_type, dl_id},
        .ndim = nd,
        .dtype = dl_dtype_of((tl_dtype)src->dtype),
        .shape = e->dims,
        .strides = e->dims + nd,
        .byte_offset = 0,
    };
    tl_tensor_decref(src);
    PyObject *cap;
    if (versioned) {
        e->m.versioned.version.major = TL_DLPACK_MAJOR;
        e->m.versioned.version.minor = TL_DLPACK_MINOR;
        e->m.versioned.manager_ctx = e;
        e->m.versioned.deleter = versioned_deleter;
        e->m.versioned.flags = (readonly ? TL_DLPACK_FLAG_READ_ONLY : 0) |
                               (copy == 1 ? TL_DLPACK_FLAG_IS_COPIED : 0);
        e->m.versioned.dl_tensor = dl;
        cap = PyCapsule_New(&e->m.versioned, TL_DLPACK_VERSIONED_CAPSULE,
                            capsule_destructor);
    } else {
        e->m.legacy.manager_ctx = e;
        e->m.legacy.deleter = legacy_deleter;
        e->m.legacy.dl_tensor = dl;
        cap = PyCapsule_New(&e->m.legacy, TL_DLPACK_CAPSULE,
                            capsule_destructor);
    }
    if (!cap) {
        release_export(e);
    }
    return cap;
}

static PyObject *t_dlpack_device(PyObject *self, PyObject *unused)
{
    tl_tensor_impl *t = tl_py_impl(self);
    return Py_BuildValue("(ii)", t->device.type == TL_DEVICE_CPU ? TL_DL_CPU
                                                                 : TL_DL_CUDA,
                         (int)t->device.index);
}

/* ---- import: from_dlpack ----------------------------------------------------------- */

typedef struct {
    void *managed;
    bool versioned;
} dl_import;

static void import_release(void *ctx)
{
    dl_import *im = ctx;
    /* Producers' deleters may touch Python objects: hold the GIL. */
    PyGILState_STATE g = 0;
    bool py = Py_IsInitialized();
    if (!im->managed) {
        free(im);
        return;
    }
    if (py) {
        g = PyGILState_Ensure();
    }
    if (im->versioned) {
        tl_dl_managed_tensor_versioned *m = im->managed;
        if (m->deleter) {
            m->deleter(m);
        }
    } else {
        tl_dl_managed_tensor *m = im->managed;
        if (m->deleter) {
            m->deleter(m);
        }
    }
    if (py) {
        PyGILState_Release(g);
    }
    free(im);
}

static PyObject *from_capsule(tl_mstate *st, PyObject *cap)
{
    bool versioned;
    void *ptr;
    tl_dl_tensor *dl;
    uint64_t flags = 0;
    if (PyCapsule_IsValid(cap, TL_DLPACK_VERSIONED_CAPSULE)) {
        versioned = true;
        tl_dl_managed_tensor_versioned *m =
            PyCapsule_GetPointer(cap, TL_DLPACK_VERSIONED_CAPSULE);
        if (!m) {
            return NULL;
        }
        if (m->version.major != TL_DLPACK_MAJOR) {
            PyErr_Format(PyExc_BufferError,
                         "from_dlpack: DLPack major version %u is not "
                         "supported (tensorlib speaks %d.x)",
                         m->version.major, TL_DLPACK_MAJOR);
            return NULL;
        }
        ptr = m;
        dl = &m->dl_tensor;
        flags = m->flags;
    } else if (PyCapsule_IsValid(cap, TL_DLPACK_CAPSULE)) {
        versioned = false;
        tl_dl_managed_tensor *m = PyCapsule_GetPointer(cap, TL_DLPACK_CAPSULE);
        if (!m) {
            return NULL;
        }
        ptr = m;
        dl = &m->dl_tensor;
    } else if (!PyCapsule_CheckExact(cap)) {
        /* A wrong type is a TypeError (DESIGN.md); a used capsule below
         * is a bad value. */
        PyErr_Format(PyExc_TypeError, "from_dlpack: __dlpack__() returned "
                     "%.100s, not a DLPack capsule", Py_TYPE(cap)->tp_name);
        return NULL;
    } else {
        PyErr_SetString(PyExc_ValueError,
                        "from_dlpack: expected an unconsumed DLPack capsule "
                        "('dltensor' or 'dltensor_versioned'); a capsule can "
                        "be consumed only once");
        return NULL;
    }
    tl_device wrap_dev = tl_device_cpu();
    if (dl->device.device_type == TL_DL_CUDA) {
        /* CUDA memory: a tensor on that device, when it can hold one. */
        wrap_dev.type = TL_DEVICE_CUDA;
        wrap_dev.index = (int16_t)dl->device.device_id;
        if (dl->device.device_id < 0 ||
            dl->device.device_id > TL_MAX_DEVICE_INDEX ||
            tl_device_require(wrap_dev) < 0) {
            PyErr_Format(PyExc_BufferError,
                         "from_dlpack: DLPack CUDA device %d is not "
                         "available: %s", dl->device.device_id,
                         tl_error_kind() < 0 ? tl_error_message()
                                             : "bad device index");
            tl_error_clear();
            return NULL;
        }
    } else if (dl->device.device_type != TL_DL_CPU &&
               dl->device.device_type != TL_DL_CUDA_HOST) {
        PyErr_Format(PyExc_BufferError,
                     "from_dlpack: DLPack device type %d is not available "
                     "in this build", dl->device.device_type);
        return NULL;
    }
    tl_dtype dt;
    if (tl_dtype_of_dl(dl->dtype, &dt) < 0) {
        return NULL;
    }
    const int nd = dl->ndim;
    if (nd < 0 || nd > TL_MAX_DIMS) {
        PyErr_Format(PyExc_BufferError, "from_dlpack: bad ndim %d", nd);
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    const int64_t isz = tl_dtype_itemsize(dt);
    for (int d = 0; d < nd; d++) {
        sizes[d] = dl->shape[d];
        if (sizes[d] < 0) {
            PyErr_Format(PyExc_BufferError, "from_dlpack: negative size "
                         "%lld", (long long)sizes[d]);
            return NULL;
        }
    }
    if (dl->strides) {
        memcpy(strides, dl->strides, (size_t)nd * 8);
    } else if (tl_dense_strides(nd, sizes, TL_FORMAT_CONTIGUOUS,
                                strides) < 0) {
        return tl_py_raise(st);
    }
    int64_t numel;
    if (tl_safe_numel_bytes(nd, sizes, isz, &numel, NULL) < 0) {
        return tl_py_raise(st);
    }
    /* Byte extent [lo, hi) relative to element 0. */
    int64_t lo = 0, hi = numel ? isz : 0;
    for (int d = 0; d < nd && numel; d++) {
        int64_t span;
        /* (their sum can overflow where each span fits: strides
         * (2^62,) * 3 over three dims of 2 one-byte elements) */
        if (__builtin_mul_overflow(strides[d], sizes[d] - 1, &span) ||
            __builtin_mul_overflow(span, isz, &span) ||
            __builtin_add_overflow(span < 0 ? lo : hi, span,
                                   span < 0 ? &lo : &hi)) {
            PyErr_SetString(PyExc_BufferError, "from_dlpack: strides "
                            "overflow");
            return NULL;
        }
    }
    char *elem0 = (char *)dl->data + dl->byte_offset;
    dl_import *im = tl_fault_malloc(sizeof *im);
    if (!im) {
        return PyErr_NoMemory();
    }
    im->managed = ptr;
    im->versioned = versioned;
    tl_block *b = tl_block_wrap(numel ? elem0 + lo : elem0, (size_t)(hi - lo),
                                wrap_dev,
                                (flags & TL_DLPACK_FLAG_READ_ONLY) != 0,
                                import_release, im);
    if (!b) {
        free(im);
        return tl_py_raise(st);
    }
    /* From here the block owns the managed tensor: consume the capsule. */
    if (PyCapsule_SetName(cap, versioned ? TL_DLPACK_USED_VERSIONED_CAPSULE
                                         : TL_DLPACK_USED_CAPSULE) < 0) {
        /* Cannot happen for a valid capsule; give the tensor back. */
        im->managed = NULL;
        tl_block_decref(b);
        return NULL;
    }
    tl_storage *s = tl_storage_from_block(b, 0, hi - lo);
    tl_block_decref(b);
    if (!s) {
        return tl_py_raise(st);
    }
    tl_tensor_impl *t = tl_tensor_new(s, numel ? -lo / isz : 0, nd, sizes,
                                      strides, dt);
    tl_storage_decref(s);
    return t ? tl_py_wrap(st, t) : tl_py_raise(st);
}

static PyObject *py_from_dlpack(PyObject *m, PyObject *x)
{
    tl_mstate *st = tl_state_of_module(m);
    if (PyCapsule_CheckExact(x)) {
        return from_capsule(st, x);
    }
    if (tl_py_is_tensor(st, x)) {
        return Py_NewRef(x);
    }
    PyObject *dev = PyObject_CallMethod(x, "__dlpack_device__", NULL);
    if (!dev) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "from_dlpack() expects an object with __dlpack__ "
                         "or a DLPack capsule, got %.100s",
                         Py_TYPE(x)->tp_name);
        }
        return NULL;
    }
    const bool pair = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2;
    long dtype_ = pair ? PyLong_AsLong(PyTuple_GET_ITEM(dev, 0)) : -1;
    long did = pair ? PyLong_AsLong(PyTuple_GET_ITEM(dev, 1)) : -1;
    Py_DECREF(dev);
    if (PyErr_Occurred()) {
        return NULL;
    }
    /* CUDA memory comes in on our current stream of that device: DLPack's
     * stream argument makes the producer order its pending work before
     * it (1 names the legacy default stream, as in __dlpack__ above). */
    long long stream = 0;
    bool cuda_mem = dtype_ == TL_DL_CUDA;
    if (cuda_mem) {
        tl_device d = {.type = TL_DEVICE_CUDA, .index = 0};
        const tl_device_ops *o = NULL;
        if (did >= 0 && did <= TL_MAX_DEVICE_INDEX) {
            d.index = (int16_t)did;
            if (tl_device_require(d) == 0) {
                o = tl_device_ops_get(TL_DEVICE_CUDA);
            }
        }
        if (!o) {
            PyErr_Format(PyExc_BufferError,
                         "from_dlpack: the producer's memory is on CUDA "
                         "device %ld, which this build cannot reach: %s",
                         did, tl_error_kind() < 0 ? tl_error_message()
                                                  : "bad device index");
            tl_error_clear();
            return NULL;
        }
        const tl_stream ours = o->current_stream(d.index);
        stream = ours == 0 ? 1 : (long long)ours;
    } else if (dtype_ != TL_DL_CPU && dtype_ != TL_DL_CUDA_HOST) {
        PyErr_Format(PyExc_BufferError,
                     "from_dlpack: the producer's memory is on DLPack "
                     "device type %ld; this build reads CPU and CUDA memory",
                     dtype_);
        return NULL;
    }
    /* Ask for a versioned capsule; old producers take no keywords. */
    PyObject *meth = PyObject_GetAttrString(x, "__dlpack__");
    if (!meth) {
        return NULL;
    }
    PyObject *kw = cuda_mem
                       ? Py_BuildValue("{s:(ii),s:L}", "max_version",
                                       TL_DLPACK_MAJOR, TL_DLPACK_MINOR,
                                       "stream", stream)
                       : Py_BuildValue("{s:(ii)}", "max_version",
                                       TL_DLPACK_MAJOR, TL_DLPACK_MINOR);
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = kw && empty ? PyObject_Call(meth, empty, kw) : NULL;
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* an old producer: no max_version (the stream still, for CUDA) */
        PyErr_Clear();
        if (cuda_mem) {
            PyObject *kw2 = Py_BuildValue("{s:L}", "stream", stream);
            cap = kw2 && empty ? PyObject_Call(meth, empty, kw2) : NULL;
            Py_XDECREF(kw2);
        } else {
            cap = PyObject_CallNoArgs(meth);
        }
    }
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    Py_DECREF(meth);
    if (!cap) {
        return NULL;
    }
    PyObject *r = from_capsule(st, cap);
    Py_DECREF(cap);
    return r;
}

/* ---- __array_interface__, read-only, bytes ---------------------------------------- */

static PyObject *t_array_interface(PyObject *self, void *c)
{
    tl_tensor_impl *t = tl_py_impl(self);
    const tl_dtype_info *info = tl_dtype_info_of(t->dtype);
    if (tl_tensor_check_live(t) < 0) { /* a reset workspace's tensor */
        return tl_py_raise(tl_state_of(self));
    }
    if (tl_block_generation(t->storage->block) != 0) {
        /* A raw pointer with no release: a reset would recycle it. */
        PyErr_SetString(PyExc_BufferError,
                        "__array_interface__ cannot tell when its consumer "
                        "is done, and a workspace reset would recycle this "
                        "tensor's memory under it; use .numpy() or "
                        "memoryview(), which keep the memory alive");
        return NULL;
    }
    if (t->device.type != TL_DEVICE_CPU) {
        PyErr_SetString(PyExc_AttributeError,
                        "__array_interface__ is only for CPU tensors");
        return NULL;
    }
    if (!info->numpy_char) {
        PyErr_Format(PyExc_AttributeError,
                     "%s has no __array_interface__ type string (NumPy has "
                     "no such dtype)", info->name);
        return NULL;
    }
    char typestr[8];
    char kind = info->kind == TL_KIND_BOOL ? 'b'
              : info->kind == TL_KIND_UINT ? 'u'
              : info->kind == TL_KIND_INT ? 'i'
              : info->kind == TL_KIND_FLOAT ? 'f' : 'c';
    snprintf(typestr, sizeof typestr, "%c%c%d",
             info->itemsize == 1 ? '|' : '<', kind, info->itemsize);
    PyObject *shape = PyTuple_New(t->ndim);
    PyObject *strides = NULL;
    if (!shape) {
        return NULL;
    }
    for (int d = 0; d < t->ndim; d++) {
        PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t->sizes[d]));
    }
    if (t->flags & TL_FLAG_CONTIGUOUS) {
        strides = Py_NewRef(Py_None);
    } else {
        strides = PyTuple_New(t->ndim);
        for (int d = 0; strides && d < t->ndim; d++) {
            PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(
                                             t->strides[d] * info->itemsize));
        }
    }
    if (!strides || PyErr_Occurred()) {
        Py_DECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    /* The consumer's lifetime is unknown: the storage may never be
     * resized again (as PyTorch does for .numpy()). */
    t->storage->resizable = false;
    /* Nor can it be shared copy-on-write from now on. */
    if (tl_storage_cow_prepare_export(t->storage) < 0) {
        Py_DECREF(shape);
        Py_DECREF(strides);
        return tl_py_raise(tl_state_of(self));
    }
    atomic_fetch_or(&t->storage->cow, TL_COW_NEVER);
    return Py_BuildValue("{s:N,s:s,s:(NO),s:N,s:i}", "shape", shape,
                         "typestr", typestr, "data",
                         PyLong_FromVoidPtr(tl_impl_data(t)),
                         tl_tensor_is_writable(t) ? Py_False : Py_True,
                         "strides", strides, "version", 3);
}

static PyObject *t_is_readonly(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(!tl_tensor_is_writable(tl_py_impl(self)));
}

static PyObject *t_tobytes(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    if (tl_tensor_check_live(tl_py_impl(self)) < 0) {
        return tl_py_raise(st);
    }
    tl_tensor_impl *t = tl_py_impl(self), *h = NULL;
    /* A device tensor's bytes are copied to the host first. */
    if (t->device.type != TL_DEVICE_CPU &&
        !(h = tl_op_to_device(t, tl_device_cpu(), -1, false, false))) {
        return tl_py_raise(st);
    }
    tl_tensor_impl *c = tl_op_contiguous(h ? h : t, TL_FORMAT_CONTIGUOUS);
    tl_tensor_decref(h);
    if (!c) {
        return tl_py_raise(st);
    }
    PyObject *r = PyBytes_FromStringAndSize(
        tl_impl_data(c), (Py_ssize_t)(c->numel * tl_itemsize(c->dtype)));
    tl_tensor_decref(c);
    return r;
}

/* ---- frombuffer -------------------------------------------------------------------- */

static void release_pybuffer(void *ctx)
{
    Py_buffer *view = ctx;
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyBuffer_Release(view);
        PyGILState_Release(g);
    }
    free(view);
}

static PyObject *py_frombuffer(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"buffer", "dtype", "count", "offset",
                                        NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[4];
    tl_dtype dt = TL_DTYPE_FLOAT32;
    int64_t count = -1, offset = 0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 4, a, "frombuffer") < 0
        || tl_py_parse_dtype(st, a[1], &dt) < 0 ||
        (a[2] && tl_py_int64(a[2], &count, "count") < 0) ||
        (a[3] && tl_py_int64(a[3], &offset, "offset") < 0)) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "frombuffer() needs a buffer");
        return NULL;
    }
    if (!a[1] || a[1] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "frombuffer() needs dtype=");
        return NULL;
    }
    Py_buffer *view = tl_fault_calloc(1, sizeof *view);
    if (!view) {
        return PyErr_NoMemory();
    }
    bool readonly = false;
    if (PyObject_GetBuffer(a[0], view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(a[0], view, PyBUF_C_CONTIGUOUS) < 0) {
            free(view);
            return NULL;
        }
        readonly = true;
    }
    const int64_t isz = tl_dtype_itemsize(dt);
    int64_t len = view->len;
    PyObject *res = NULL;
    if (offset < 0 || offset > len) {
        PyErr_Format(PyExc_ValueError, "frombuffer: offset %lld is outside "
                     "a buffer of %lld bytes", (long long)offset,
                     (long long)len);
        goto fail;
    }
    if (count < 0) {
        if ((len - offset) % isz != 0) {
            PyErr_Format(PyExc_ValueError,
                         "frombuffer: buffer length (%lld bytes) after offset "
                         "(%lld bytes) must be a multiple of element size "
                         "(%lld)", (long long)len, (long long)offset,
                         (long long)isz);
            goto fail;
        }
        count = (len - offset) / isz;
    } else if (count > (len - offset) / isz) {
        PyErr_Format(PyExc_ValueError,
                     "frombuffer: requested %lld elements of %lld bytes from "
                     "a buffer of %lld bytes after offset %lld",
                     (long long)count, (long long)isz, (long long)len,
                     (long long)offset);
        goto fail;
    }
    if (count == 0 && len == 0) {
        /* PyTorch refuses empty buffers; an empty tensor is more useful. */
    }
    int64_t one = 1;
    tl_tensor_impl *t = tl_tensor_wrap((char *)view->buf + offset,
                                       (size_t)(count * isz), tl_device_cpu(),
                                       readonly, release_pybuffer, view, 0, 1,
                                       &count, &one, dt);
    if (!t) {
        tl_py_raise(st);
        goto fail;
    }
    view = NULL; /* owned by the block */
    res = tl_py_wrap(st, t);
    return res;
fail:
    if (view) {
        PyBuffer_Release(view);
        free(view);
    }
    return NULL;
}

/* ---- pickling helpers --------------------------------------------------------------- */

/* _storage_bytes(storage) -> bytes of the whole storage. */
static PyObject *py_storage_bytes(PyObject *m, PyObject *o)
{
    tl_storage *s = tl_py_storage_impl(tl_state_of_module(m), o);
    if (!s) {
        return NULL;
    }
    if (tl_storage_check_live(s) < 0) {
        return tl_py_raise(tl_state_of_module(m));
    }
    return PyBytes_FromStringAndSize(tl_storage_data(s),
                                     (Py_ssize_t)tl_storage_nbytes(s));
}

/* _storage_from_bytes(data, readonly) -> a new storage holding a copy. */
static PyObject *py_storage_from_bytes(PyObject *m, PyObject *const *args,
                                       Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    Py_buffer view;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_storage_from_bytes(data, "
                        "readonly)");
        return NULL;
    }
    int ro = PyObject_IsTrue(args[1]);
    if (ro < 0 || PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    tl_storage *s = tl_storage_new(tl_device_cpu(), TL_MEMKIND_DEFAULT,
                                   view.len);
    if (!s) {
        PyBuffer_Release(&view);
        return tl_py_raise(st);
    }
    if (view.len) {
        memcpy(tl_storage_data(s), view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    if (ro) {
        s->block->flags |= TL_BLOCK_READONLY;
    }
    PyObject *r = tl_py_storage_wrap(st, s);
    tl_storage_decref(s);
    return r;
}

/* _tensor_from_storage(storage, offset, size, stride, dtype, readonly) */
static PyObject *py_tensor_from_storage(PyObject *m, PyObject *const *args,
                                        Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], off;
    tl_dtype dt = TL_DTYPE_FLOAT32;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "_tensor_from_storage(storage, "
                        "offset, size, stride, dtype, readonly)");
        return NULL;
    }
    tl_storage *s = tl_py_storage_impl(st, args[0]);
    if (!s || tl_py_int64(args[1], &off, "offset") < 0) {
        return NULL;
    }
    int n = tl_py_parse_shape(&args[2], 1, sizes, "_tensor_from_storage");
    int ns = n < 0 ? -1 : tl_py_parse_shape(&args[3], 1, strides,
                                            "_tensor_from_storage");
    if (ns < 0 || tl_py_parse_dtype(st, args[4], &dt) < 0) {
        return NULL;
    }
    int ro = PyObject_IsTrue(args[5]);
    if (ro < 0) {
        return NULL;
    }
    if (n != ns) {
        PyErr_SetString(st->ShapeError, "size and stride lengths differ");
        return NULL;
    }
    tl_tensor_impl *t = tl_tensor_new(s, off, n, sizes, strides, dt);
    if (!t) {
        return tl_py_raise(st);
    }
    if (ro) {
        t->flags |= TL_FLAG_READONLY_VIEW;
    }
    return tl_py_wrap(st, t);
}

/* A read-only view of t (private: used by tests and asarray). */
static PyObject *py_readonly_view(PyObject *m, PyObject *o)
{
    tl_mstate *st = tl_state_of_module(m);
    if (!tl_py_is_tensor(st, o)) {
        PyErr_SetString(PyExc_TypeError, "expected a tensor");
        return NULL;
    }
    tl_tensor_impl *v = tl_view_alias(tl_py_impl(o));
    if (!v) {
        return tl_py_raise(st);
    }
    v->flags |= TL_FLAG_READONLY_VIEW;
    return tl_py_wrap(st, v);
}

PyMethodDef tl_interop_tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))t_dlpack,
     METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, stream=None, *, max_version=None, dl_device=None, "
     "copy=None)\n--\n\nA DLPack capsule (versioned when the consumer asks "
     "for max_version >= (1, 0))."},
    {"__dlpack_device__", t_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n"},
    {"is_readonly", t_is_readonly, METH_NOARGS,
     "is_readonly($self, /)\n--\n\nWhether writes into this tensor are "
     "refused (a read-only view or read-only memory)."},
    {"tobytes", t_tobytes, METH_NOARGS,
     "tobytes($self, /)\n--\n\nThe elements' bytes in C order."},
    {NULL},
};

PyGetSetDef tl_interop_tensor_getset[] = {
    {"__array_interface__", t_array_interface, NULL,
     "NumPy's array interface (version 3).  Handing it out makes the "
     "storage non-resizable for good.", NULL},
    {NULL},
};

PyMethodDef tl_interop_functions[] = {
    {"from_dlpack", py_from_dlpack, METH_O,
     "from_dlpack(x, /)\n--\n\nA tensor sharing the memory of any DLPack "
     "producer (or capsule)."},
    {"frombuffer", (PyCFunction)(void (*)(void))py_frombuffer,
     METH_FASTCALL | METH_KEYWORDS,
     "frombuffer(buffer, dtype, count=-1, offset=0)\n--\n\nA 1-D tensor "
     "sharing a buffer-protocol object's memory (read-only buffers give "
     "read-only tensors)."},
    {"_storage_bytes", py_storage_bytes, METH_O,
     "_storage_bytes(storage, /)\n--\n\nA copy of a storage's bytes "
     "(pickling)."},
    {"_storage_from_bytes", (PyCFunction)(void (*)(void))py_storage_from_bytes,
     METH_FASTCALL,
     "_storage_from_bytes(data, readonly, /)\n--\n\nA new CPU storage "
     "holding a copy of data (unpickling)."},
    {"_tensor_from_storage",
     (PyCFunction)(void (*)(void))py_tensor_from_storage, METH_FASTCALL,
     "_tensor_from_storage(storage, offset, size, stride, dtype, "
     "readonly, /)\n--\n\nA tensor over storage (offset and strides in "
     "elements)."},
    {"_readonly_view", py_readonly_view, METH_O,
     "_readonly_view(tensor, /)\n--\n\nA read-only view of tensor."},
    {NULL},
};
