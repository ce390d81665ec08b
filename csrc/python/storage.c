/* csrc/python/storage.c — tensorlib.UntypedStorage, the Python face of a
 * tl_storage (shaped like PyTorch's UntypedStorage), with identity through
 * the storage's PyObject slot; and the Tensor methods that act on storage:
 * untyped_storage(), resize_(), set_(), plus shares_memory and
 * may_share_memory. */
#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/ops.h"

typedef struct {
    PyObject_HEAD
    tl_storage *s;  /* strong */
} StorageObject;

#define STORAGE(o) (((StorageObject *)(o))->s)

/* Returns: new reference to the (unique while it lives) Python object of
 * s.  Does not steal s. */
static PyObject *wrap_storage(tl_mstate *st, tl_storage *s)
{
    if (s->pyobj) {
        return Py_NewRef((PyObject *)s->pyobj);
    }
    StorageObject *o = TL_PY_NEW(StorageObject, st->StorageType);
    if (!o) {
        return NULL;
    }
    tl_storage_incref(s);
    o->s = s;
    s->pyobj = o;
    return (PyObject *)o;
}

static void storage_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tl_storage *s = STORAGE(self);
    if (s) {
        if (s->pyobj == self) {
            s->pyobj = NULL;
        }
        tl_storage_decref(s);
    }
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *st_nbytes(PyObject *self, PyObject *unused)
{
    return PyLong_FromLongLong(tl_storage_nbytes(STORAGE(self)));
}

static PyObject *st_data_ptr(PyObject *self, PyObject *unused)
{
    return PyLong_FromVoidPtr(tl_storage_data(STORAGE(self)));
}

static PyObject *st_resizable(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(tl_storage_resizable(STORAGE(self)));
}

static PyObject *st_use_count(PyObject *self, PyObject *unused)
{
    /* References held by tensors and exports; not the Python object's.
     * Views share their root's (Note [Views borrow from their base]). */
    return PyLong_FromLongLong(tl_storage_refcount(STORAGE(self)) - 1);
}

static PyObject *st_resize_(PyObject *self, PyObject *arg)
{
    int64_t n;
    if (tl_py_int64(arg, &n, "resize_(): size") < 0) {
        return NULL;
    }
    if (tl_storage_resize(STORAGE(self), n) < 0) {
        return tl_py_raise(tl_state_of(self));
    }
    return Py_NewRef(self);
}

static PyObject *st_get_device(PyObject *self, void *c)
{
    return tl_py_device(tl_state_of(self),
                        tl_block_device(tl_storage_block(STORAGE(self))));
}

static PyObject *st_get_memory_kind(PyObject *self, void *c)
{
    tl_memkind k = tl_block_memkind(tl_storage_block(STORAGE(self)));
    PyObject *mod = PyImport_ImportModule("tensorlib");
    if (!mod) {
        return NULL;
    }
    PyObject *enum_type = PyObject_GetAttrString(mod, "MemoryKind");
    Py_DECREF(mod);
    if (!enum_type) {
        return NULL;
    }
    PyObject *r = PyObject_CallFunction(enum_type, "i", (int)k);
    Py_DECREF(enum_type);
    return r;
}

static Py_ssize_t st_len(PyObject *self)
{
    return (Py_ssize_t)tl_storage_nbytes(STORAGE(self));
}

static PyObject *st_repr(PyObject *self)
{
    char dev[32];
    tl_device_format(tl_block_device(tl_storage_block(STORAGE(self))), dev,
                     sizeof dev);
    return PyUnicode_FromFormat("<tensorlib.UntypedStorage of %lld bytes on "
                                "%s at %p>",
                                (long long)tl_storage_nbytes(STORAGE(self)),
                                dev, tl_storage_data(STORAGE(self)));
}

static PyMethodDef storage_methods[] = {
    {"nbytes", st_nbytes, METH_NOARGS, "nbytes($self, /)\n--\n\n"},
    {"size", st_nbytes, METH_NOARGS, "size($self, /)\n--\n\n"},
    {"data_ptr", st_data_ptr, METH_NOARGS, "data_ptr($self, /)\n--\n\n"},
    {"resizable", st_resizable, METH_NOARGS, "resizable($self, /)\n--\n\n"},
    {"resize_", st_resize_, METH_O,
     "resize_($self, size, /)\n--\n\nResizes in bytes (all views see it); "
     "BufferError while exported if the memory would move or shrink."},
    {"use_count", st_use_count, METH_NOARGS,
     "use_count($self, /)\n--\n\nHow many tensors and exports hold it "
     "(a view shares its root's hold)."},
    {NULL},
};

/* The name of the allocator that made this memory and takes it back, or
 * None for memory it does not own (borrowed from NumPy/DLPack/a buffer,
 * or carved from a workspace arena).  Blocks keep their owner across
 * registry changes, so this is the truth, not the current routing. */
static PyObject *st_get_allocator(PyObject *self, void *closure)
{
    (void)closure;
    const tl_allocator *a = tl_block_owner(tl_storage_block(STORAGE(self)));
    if (!a || !a->name) {
        Py_RETURN_NONE;
    }
    return PyUnicode_FromString(a->name);
}

static PyGetSetDef storage_getset[] = {
    {"allocator", st_get_allocator, NULL,
     "Name of the allocator that owns this memory (None: not owned).", NULL},
    {"device", st_get_device, NULL, NULL, NULL},
    {"memory_kind", st_get_memory_kind, NULL, NULL, NULL},
    {NULL},
};

static PyType_Slot storage_slots[] = {
    {Py_tp_dealloc, storage_dealloc},
    {Py_tp_repr, st_repr},
    {Py_tp_methods, storage_methods},
    {Py_tp_getset, storage_getset},
    {Py_sq_length, st_len},
    {Py_tp_doc, "A tensor's bytes, shared by all of its views."},
    {0, NULL},
};

static PyType_Spec storage_spec = {
    .name = "tensorlib.UntypedStorage",
    .basicsize = sizeof(StorageObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = storage_slots,
};

/* ---- Tensor methods -------------------------------------------------------- */

static PyObject *t_untyped_storage(PyObject *self, PyObject *unused)
{
    return wrap_storage(tl_state_of(self), tl_py_impl(self)->storage);
}

static PyObject *t_resize_(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS];
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "resize_() takes only sizes");
        return NULL;
    }
    int n = tl_py_parse_shape(args, nargs, sizes, "resize_");
    if (n < 0) {
        return NULL;
    }
    if (tl_tensor_resize_(tl_py_impl(self), n, sizes) < 0) {
        return tl_py_raise(st);
    }
    return Py_NewRef(self);
}

static PyObject *t_set_(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"source", "storage_offset", "size",
                                        "stride", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self);
    PyObject *a[4];
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (tl_py_parse_args(args, nargs, kwnames, names, 4, a, "set_") < 0) {
        return NULL;
    }
    tl_storage *s = NULL;
    int64_t off = 0;
    int n;
    if (!a[0] || a[0] == Py_None) {
        /* set_(): an empty storage of its own. */
        tl_storage *e = tl_storage_new(t->device, TL_MEMKIND_DEFAULT, 0);
        int64_t zero = 0, one = 1;
        if (!e) {
            return tl_py_raise(st);
        }
        int r = tl_tensor_set_(t, e, 0, 1, &zero, &one);
        tl_storage_decref(e);
        if (r < 0) {
            return tl_py_raise(st);
        }
        return Py_NewRef(self);
    }
    if (tl_py_is_tensor(st, a[0])) {
        tl_tensor_impl *src = tl_py_impl(a[0]);
        if (src->dtype != t->dtype) {
            PyErr_Format(PyExc_TypeError,
                         "set_: expected a source of dtype %s, got %s",
                         tl_dtype_info_of(t->dtype)->name,
                         tl_dtype_info_of(src->dtype)->name);
            return NULL;
        }
        if (a[1] || a[2] || a[3]) {
            PyErr_SetString(PyExc_TypeError,
                            "set_(tensor) takes no offset, size or stride; "
                            "to view its storage with them, use "
                            "set_(tensor.untyped_storage(), offset, size, "
                            "stride)");
            return NULL;
        }
        if (tl_tensor_set_(t, src->storage, src->storage_offset, src->ndim,
                           src->sizes, src->strides) < 0) {
            return tl_py_raise(st);
        }
        return Py_NewRef(self);
    }
    if (!Py_IS_TYPE(a[0], st->StorageType)) {
        PyErr_Format(PyExc_TypeError, "set_: source must be a tensor or an "
                     "UntypedStorage, not %.100s", Py_TYPE(a[0])->tp_name);
        return NULL;
    }
    s = STORAGE(a[0]);
    if (a[1] && tl_py_int64(a[1], &off, "storage_offset") < 0) {
        return NULL;
    }
    if (a[2]) {
        n = tl_py_parse_shape(&a[2], 1, sizes, "set_");
        if (n < 0) {
            return NULL;
        }
    } else {
        n = 1;
        sizes[0] = tl_storage_nbytes(s) / tl_itemsize(t->dtype);
    }
    if (a[3]) {
        int ns = tl_py_parse_shape(&a[3], 1, strides, "set_");
        if (ns < 0) {
            return NULL;
        }
        if (ns != n) {
            PyErr_Format(st->ShapeError, "set_: size has %d entries but "
                         "stride has %d", n, ns);
            return NULL;
        }
    } else if (tl_dense_strides(n, sizes, TL_FORMAT_CONTIGUOUS,
                                strides) < 0) {
        return tl_py_raise(st);
    }
    if (tl_tensor_set_(t, s, off, n, sizes, strides) < 0) {
        return tl_py_raise(st);
    }
    return Py_NewRef(self);
}

PyMethodDef tl_storage_tensor_methods[] = {
    {"untyped_storage", t_untyped_storage, METH_NOARGS,
     "untyped_storage($self, /)\n--\n\nThe storage under this tensor "
     "(the same object for every view while it lives)."},
    {"resize_", (PyCFunction)(void (*)(void))t_resize_,
     METH_FASTCALL | METH_KEYWORDS,
     "resize_($self, *sizes)\n--\n\nContiguous strides for the new sizes; "
     "grows the storage when needed (data prefix kept), never shrinks it."},
    {"set_", (PyCFunction)(void (*)(void))t_set_,
     METH_FASTCALL | METH_KEYWORDS,
     "set_($self, source=None, storage_offset=0, size=None, stride=None)"
     "\n--\n\nRebinds this tensor to another storage or tensor."},
    {NULL},
};

/* ---- module functions -------------------------------------------------------- */

static PyObject *py_shares_memory(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "b", "max_work", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[3];
    int64_t max_work = -1;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a,
                         "shares_memory") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1] || !tl_py_is_tensor(st, a[0]) ||
        !tl_py_is_tensor(st, a[1])) {
        PyErr_SetString(PyExc_TypeError, "shares_memory() expects two "
                        "tensors");
        return NULL;
    }
    if (a[2] && a[2] != Py_None &&
        tl_py_int64(a[2], &max_work, "max_work") < 0) {
        return NULL;
    }
    int r = tl_shares_memory(tl_py_impl(a[0]), tl_py_impl(a[1]), max_work);
    if (r < 0) {
        PyErr_Format(st->TooHardError, "%s", tl_error_message());
        tl_error_clear();
        return NULL;
    }
    return PyBool_FromLong(r);
}

static PyObject *py_may_share_memory(PyObject *m, PyObject *const *args,
                                     Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    if (nargs != 2 || !tl_py_is_tensor(st, args[0]) ||
        !tl_py_is_tensor(st, args[1])) {
        PyErr_SetString(PyExc_TypeError, "may_share_memory() expects two "
                        "tensors");
        return NULL;
    }
    return PyBool_FromLong(
        tl_may_share_memory(tl_py_impl(args[0]), tl_py_impl(args[1])));
}

PyMethodDef tl_storage_functions[] = {
    {"shares_memory", (PyCFunction)(void (*)(void))py_shares_memory,
     METH_FASTCALL | METH_KEYWORDS,
     "shares_memory(a, b, max_work=None)\n--\n\nExact: do a and b have a "
     "byte in common?  With max_work, may raise TooHardError."},
    {"may_share_memory", (PyCFunction)(void (*)(void))py_may_share_memory,
     METH_FASTCALL, "may_share_memory(a, b, /)\n--\n\nWhether the memory "
     "extents of a and b intersect."},
    {NULL},
};

int tl_storage_type_init(PyObject *m, tl_mstate *st)
{
    st->StorageType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &storage_spec, NULL);
    if (!st->StorageType) {
        return -1;
    }
    return PyModule_AddType(m, st->StorageType);
}

/* ---- shared with interop.c ---------------------------------------------------- */

tl_storage *tl_py_storage_impl(tl_mstate *st, PyObject *o)
{
    if (!Py_IS_TYPE(o, st->StorageType)) {
        PyErr_Format(PyExc_TypeError, "expected a tensorlib.UntypedStorage, "
                     "got %.100s", Py_TYPE(o)->tp_name);
        return NULL;
    }
    return STORAGE(o);
}

PyObject *tl_py_storage_wrap(tl_mstate *st, tl_storage *s)
{
    return wrap_storage(st, s);
}
