/* csrc/python/testing.c — tensorlib._C._testing: a private submodule that
 * exposes internals to the tests (reference counts, export counts, flags)
 * and the planted out-of-bounds read that proves the sanitizer build is
 * live.  Not public API. */
#include "pytl.h"
#include "fault_py.h"

static tl_tensor_impl *arg_impl(PyObject *m, PyObject *o)
{
    tl_mstate *st = (tl_mstate *)PyModule_GetState(m);
    if (!st || !tl_py_is_tensor(st, o)) {
        PyErr_SetString(PyExc_TypeError, "expected a tensorlib.Tensor");
        return NULL;
    }
    return tl_py_impl(o);
}

/* Reads the element one past the tensor's requested end.  In a sanitizer
 * build this must be reported (the pool poisons the slack after every
 * block); elsewhere it returns the byte read. */
static PyObject *read_past_end(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    if (!t) {
        return NULL;
    }
    if (!(t->flags & TL_FLAG_CONTIGUOUS) || t->storage_offset != 0 ||
        t->storage->offset != 0 || t->storage->block->owner == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "read_past_end needs a fresh contiguous tensor "
                        "from an allocator");
        return NULL;
    }
    volatile const char *p = (const char *)tl_impl_data(t);
    int64_t off = t->numel * tl_itemsize(t->dtype);
    char c = p[off];
    return PyLong_FromLong((unsigned char)c);
}

static PyObject *impl_refcount(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromLongLong(tl_tensor_refcount(t)) : NULL;
}

static PyObject *storage_refcount(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromLongLong(tl_storage_refcount(t->storage)) : NULL;
}

static PyObject *block_refcount(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromLongLong(tl_block_refcount(t->storage->block))
             : NULL;
}

static PyObject *export_count(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromLongLong(tl_storage_export_count(t->storage))
             : NULL;
}

static PyObject *flags(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromUnsignedLong(t->flags) : NULL;
}

static PyObject *storage_nbytes(PyObject *m, PyObject *o)
{
    tl_tensor_impl *t = arg_impl(m, o);
    return t ? PyLong_FromLongLong(t->storage->nbytes) : NULL;
}

static PyObject *set_allow_metadata_change(PyObject *m, PyObject *args)
{
    PyObject *o;
    int allow;
    if (!PyArg_ParseTuple(args, "Op", &o, &allow)) {
        return NULL;
    }
    tl_tensor_impl *t = arg_impl(m, o);
    if (!t) {
        return NULL;
    }
    if (allow) {
        t->flags |= TL_FLAG_ALLOW_METADATA_CHANGE;
    } else {
        t->flags &= ~(uint32_t)TL_FLAG_ALLOW_METADATA_CHANGE;
    }
    Py_RETURN_NONE;
}

static PyObject *flag_bits(PyObject *m, PyObject *unused)
{
    return Py_BuildValue(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
        "contiguous", TL_FLAG_CONTIGUOUS,
        "channels_last", TL_FLAG_CHANNELS_LAST,
        "channels_last_contiguous", TL_FLAG_CHANNELS_LAST_CONTIGUOUS,
        "channels_last_3d", TL_FLAG_CHANNELS_LAST_3D,
        "channels_last_3d_contiguous", TL_FLAG_CHANNELS_LAST_3D_CONTIGUOUS,
        "non_overlapping_and_dense", TL_FLAG_NON_OVERLAPPING_AND_DENSE,
        "aligned", TL_FLAG_ALIGNED,
        "readonly_view", TL_FLAG_READONLY_VIEW,
        "wrapped_number", TL_FLAG_WRAPPED_NUMBER,
        "allow_tensor_metadata_change", TL_FLAG_ALLOW_METADATA_CHANGE,
        "reserved", TL_FLAG_RESERVED);
}

static PyObject *sanitizer_build(PyObject *m, PyObject *unused)
{
#if defined(__SANITIZE_ADDRESS__)
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

/* Arms the fault counter (Note [Fault injection] in csrc/alloc/fault.c):
 * the n-th of tensorlib's allocations from now fails once; n < 0 disarms. */
static PyObject *fail_allocation(PyObject *m, PyObject *o)
{
    long long n = PyLong_AsLongLong(o);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    tl_fault_arm(n);
    Py_RETURN_NONE;
}

/* Returns: (allocations counted since arming, whether the fault fired). */
static PyObject *allocation_state(PyObject *m, PyObject *unused)
{
    return Py_BuildValue("(LO)", (long long)tl_fault_count(),
                         tl_fault_fired() ? Py_True : Py_False);
}

static PyMethodDef testing_methods[] = {
    {"fail_allocation", fail_allocation, METH_O,
     "fail_allocation(n, /)\n--\n\nMakes the n-th of tensorlib's own "
     "allocations from now fail once (n < 0 disarms)."},
    {"allocation_state", allocation_state, METH_NOARGS,
     "allocation_state()\n--\n\n(allocations counted since "
     "fail_allocation, whether the armed failure fired)."},
    {"read_past_end", read_past_end, METH_O,
     "read_past_end(tensor, /)\n--\n\nReads one element past the end "
     "(the sanitizer build must report it)."},
    {"impl_refcount", impl_refcount, METH_O,
     "impl_refcount(tensor, /)\n--\n\n"},
    {"storage_refcount", storage_refcount, METH_O,
     "storage_refcount(tensor, /)\n--\n\n"},
    {"block_refcount", block_refcount, METH_O,
     "block_refcount(tensor, /)\n--\n\n"},
    {"export_count", export_count, METH_O,
     "export_count(tensor, /)\n--\n\n"},
    {"flags", flags, METH_O, "flags(tensor, /)\n--\n\n"},
    {"storage_nbytes", storage_nbytes, METH_O,
     "storage_nbytes(tensor, /)\n--\n\n"},
    {"set_allow_metadata_change", set_allow_metadata_change, METH_VARARGS,
     "set_allow_metadata_change(tensor, allow, /)\n--\n\n"},
    {"flag_bits", flag_bits, METH_NOARGS, "flag_bits()\n--\n\n"},
    {"sanitizer_build", sanitizer_build, METH_NOARGS,
     "sanitizer_build()\n--\n\n"},
    {NULL},
};

#ifdef TL_CUDA_EMULATE
/* csrc/cuda/cuda_testing.c: the emulated CUDA runtime's fault hooks. */
int tl_cuda_testing_init(PyObject *sub);
#endif

int tl_testing_init(PyObject *m, tl_mstate *st)
{
    /* The submodule shares the parent's state through its functions'
     * self: they are bound to the parent module object. */
    PyObject *sub = PyModule_New("tensorlib._C._testing");
    if (!sub) {
        return -1;
    }
    for (PyMethodDef *d = testing_methods; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, m, NULL);
        if (!f || PyModule_AddObject(sub, d->ml_name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(sub);
            return -1;
        }
    }
#ifdef TL_CUDA_EMULATE
    if (tl_cuda_testing_init(sub) < 0) {
        Py_DECREF(sub);
        return -1;
    }
#endif
    return PyModule_AddObject(m, "_testing", sub) < 0 ? (Py_DECREF(sub), -1)
                                                      : 0;
}
