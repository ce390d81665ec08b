/* csrc/python/types.c — the small value types of the Python face: dtype,
 * device, Size (a tuple subclass) and memory formats, with the converters
 * that turn user arguments into core values. */
#include <string.h>

#include "pytl.h"
#include "fault_py.h"

/* ---- dtype -------------------------------------------------------------- */

static PyObject *dtype_repr(PyObject *self)
{
    int code = ((DtypeObject *)self)->code;
    return PyUnicode_FromFormat("tensorlib.%s", tl_dtype_info_of(code)->name);
}

static PyObject *dtype_get_itemsize(PyObject *self, void *c)
{
    return PyLong_FromLong(tl_dtype_itemsize(((DtypeObject *)self)->code));
}

static PyObject *dtype_get_is_floating(PyObject *self, void *c)
{
    return PyBool_FromLong(tl_dtype_is_floating(((DtypeObject *)self)->code));
}

static PyObject *dtype_get_is_complex(PyObject *self, void *c)
{
    return PyBool_FromLong(tl_dtype_is_complex(((DtypeObject *)self)->code));
}

static PyObject *dtype_get_is_signed(PyObject *self, void *c)
{
    return PyBool_FromLong(tl_dtype_is_signed(((DtypeObject *)self)->code));
}

static PyObject *dtype_get_name(PyObject *self, void *c)
{
    return PyUnicode_FromString(
        tl_dtype_info_of(((DtypeObject *)self)->code)->name);
}

PyObject *tl_py_dtype_to_numpy(tl_dtype dt); /* numpy_bridge.c */

static PyObject *dtype_get_numpy(PyObject *self, void *c)
{
    return tl_py_dtype_to_numpy((tl_dtype)((DtypeObject *)self)->code);
}

/* type, kind and char: the NumPy dtype's attributes of those names, so code
 * written against NumPy dtypes (dask: x.dtype.type, x.dtype.kind) reads a
 * tensor's dtype unchanged.  Returns: new reference, or NULL. */
static PyObject *dtype_get_numpy_attr(PyObject *self, void *attr)
{
    PyObject *np_dtype = dtype_get_numpy(self, NULL);
    if (!np_dtype) {
        return NULL;
    }
    PyObject *r = PyObject_GetAttrString(np_dtype, (const char *)attr);
    Py_DECREF(np_dtype);
    return r;
}

static PyObject *dtype_reduce(PyObject *self, PyObject *unused)
{
    /* Pickles as the module attribute of the same name. */
    return PyUnicode_FromString(
        tl_dtype_info_of(((DtypeObject *)self)->code)->name);
}

static PyGetSetDef dtype_getset[] = {
    {"itemsize", dtype_get_itemsize, NULL, "bytes per element", NULL},
    {"is_floating_point", dtype_get_is_floating, NULL, NULL, NULL},
    {"is_complex", dtype_get_is_complex, NULL, NULL, NULL},
    {"is_signed", dtype_get_is_signed, NULL, NULL, NULL},
    {"name", dtype_get_name, NULL, NULL, NULL},
    {"dtype", dtype_get_numpy, NULL,
     "the NumPy dtype (np.dtype(x) reads it); bfloat16 needs ml_dtypes",
     NULL},
    {"type", dtype_get_numpy_attr, NULL,
     "the NumPy scalar type (np.dtype(x).type)", "type"},
    {"kind", dtype_get_numpy_attr, NULL, "NumPy's kind character", "kind"},
    {"char", dtype_get_numpy_attr, NULL, "NumPy's type character", "char"},
    {NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\n"
     "Pickles as the module attribute of the same name."},
    {NULL},
};

static PyType_Slot dtype_slots[] = {
    {Py_tp_repr, dtype_repr},
    {Py_tp_getset, dtype_getset},
    {Py_tp_methods, dtype_methods},
    {Py_tp_doc, "dtype: the element type of a tensor (tensorlib.float32, "
                "...)"},
    {0, NULL},
};

static PyType_Spec dtype_spec = {
    .name = "tensorlib.dtype",
    .basicsize = sizeof(DtypeObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dtype_slots,
};

PyObject *tl_py_dtype(tl_mstate *st, tl_dtype dt)
{
    return Py_NewRef(st->dtypes[dt]);
}

int tl_py_numpy_dtype(PyObject *o, tl_dtype *out); /* numpy_bridge.c */

int tl_py_parse_dtype(tl_mstate *st, PyObject *o, tl_dtype *out)
{
    if (o == NULL || o == Py_None) {
        return 0;
    }
    if (Py_IS_TYPE(o, st->DtypeType)) {
        *out = (tl_dtype)((DtypeObject *)o)->code;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s) {
            return -1;
        }
        if (tl_dtype_parse(s, out) < 0) {
            return tl_py_raise_int(st);
        }
        return 0;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *out = TL_DTYPE_BOOL;
        return 0;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *out = TL_DTYPE_INT64;
        return 0;
    }
    if (o == (PyObject *)&PyFloat_Type) {
        *out = TL_DTYPE_FLOAT64;
        return 0;
    }
    if (o == (PyObject *)&PyComplex_Type) {
        *out = TL_DTYPE_COMPLEX128;
        return 0;
    }
    int r = tl_py_numpy_dtype(o, out);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "dtype must be a tensorlib.dtype, a dtype name or a NumPy "
                 "dtype, not %.100s%s",
                 PyType_Check(o) ? ((PyTypeObject *)o)->tp_name
                                 : Py_TYPE(o)->tp_name,
                 PyType_Check(o) ? " (a type)" : "");
    return -1;
}

/* ---- device ------------------------------------------------------------- */

PyObject *tl_py_device(tl_mstate *st, tl_device d)
{
    if (d.type == TL_DEVICE_CPU) {
        return Py_NewRef(st->cpu_device);
    }
    DeviceObject *o = TL_PY_NEW(DeviceObject, st->DeviceType);
    if (o) {
        o->dev = d;
        o->no_index = false;
    }
    return (PyObject *)o;
}

int tl_py_parse_device(tl_mstate *st, PyObject *o, tl_device *out)
{
    if (o == NULL || o == Py_None) {
        return 0;
    }
    if (Py_IS_TYPE(o, st->DeviceType)) {
        *out = ((DeviceObject *)o)->dev;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s) {
            return -1;
        }
        if (tl_device_parse(s, out) < 0) {
            return tl_py_raise_int(st);
        }
        return 0;
    }
    /* (Not a bool: device=True was cuda:1, where PyTorch and DESIGN.md's
     * classes give a TypeError.) */
    if (PyLong_Check(o) && !PyBool_Check(o)) {
        long i = PyLong_AsLong(o);
        if (i == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (i < 0 || i > TL_MAX_DEVICE_INDEX) {
            PyErr_Format(PyExc_ValueError, "invalid CUDA device index %ld",
                         i);
            return -1;
        }
        out->type = TL_DEVICE_CUDA;
        out->index = (int16_t)i;
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "device must be a tensorlib.device, a str or an int, not "
                 "%.100s", Py_TYPE(o)->tp_name);
    return -1;
}

static PyObject *device_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"type", "index", NULL};
    PyObject *spec, *index = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:device", kwlist, &spec,
                                     &index)) {
        return NULL;
    }
    tl_mstate *st = tl_state_of_type(tp);
    tl_device d = tl_device_cpu();
    if (Py_IS_TYPE(spec, tp) && index == Py_None) {
        return Py_NewRef(spec);
    }
    if (!PyUnicode_Check(spec) && !PyLong_Check(spec)) {
        PyErr_Format(PyExc_TypeError,
                     "device() expects a str or an int, not %.100s",
                     Py_TYPE(spec)->tp_name);
        return NULL;
    }
    if (tl_py_parse_device(st, spec, &d) < 0) {
        return NULL;
    }
    if (index != Py_None) {
        const char *s = PyUnicode_Check(spec) ? PyUnicode_AsUTF8(spec) : "";
        if (!PyUnicode_Check(spec) || strchr(s, ':')) {
            PyErr_SetString(PyExc_ValueError,
                            "device(): an index is given twice");
            return NULL;
        }
        long i = PyLong_AsLong(index);
        if (i == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (i < 0 || i > TL_MAX_DEVICE_INDEX ||
            (d.type == TL_DEVICE_CPU && i != 0)) {
            PyErr_Format(PyExc_ValueError, "invalid device index %ld for "
                         "'%s'", i, s);
            return NULL;
        }
        d.index = (int16_t)i;
    }
    PyObject *r = tl_py_device(st, d);
    if (r && d.type == TL_DEVICE_CUDA && index == Py_None &&
        PyUnicode_Check(spec) && !strchr(PyUnicode_AsUTF8(spec), ':')) {
        ((DeviceObject *)r)->no_index = true;
    }
    return r;
}

static PyObject *device_repr(PyObject *self)
{
    tl_device d = ((DeviceObject *)self)->dev;
    if (d.type == TL_DEVICE_CPU) {
        return PyUnicode_FromString("device(type='cpu')");
    }
    if (((DeviceObject *)self)->no_index) {
        return PyUnicode_FromString("device(type='cuda')");
    }
    return PyUnicode_FromFormat("device(type='cuda', index=%d)", d.index);
}

static PyObject *device_str(PyObject *self)
{
    char buf[32];
    if (((DeviceObject *)self)->no_index) {
        return PyUnicode_FromString("cuda");
    }
    tl_device_format(((DeviceObject *)self)->dev, buf, sizeof buf);
    return PyUnicode_FromString(buf);
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!Py_IS_TYPE(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    const DeviceObject *x = (DeviceObject *)a, *y = (DeviceObject *)b;
    int eq = tl_device_eq(x->dev, y->dev) && x->no_index == y->no_index;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t device_hash(PyObject *self)
{
    tl_device d = ((DeviceObject *)self)->dev;
    if (((DeviceObject *)self)->no_index) {
        return (Py_hash_t)(d.type * 1000 + 999);
    }
    return (Py_hash_t)(d.type * 1000 + d.index + 1);
}

static PyObject *device_get_type(PyObject *self, void *c)
{
    return PyUnicode_FromString(
        ((DeviceObject *)self)->dev.type == TL_DEVICE_CPU ? "cpu" : "cuda");
}

static PyObject *device_get_index(PyObject *self, void *c)
{
    tl_device d = ((DeviceObject *)self)->dev;
    if (d.type == TL_DEVICE_CPU || ((DeviceObject *)self)->no_index) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(d.index);
}

static PyObject *device_reduce(PyObject *self, PyObject *unused)
{
    PyObject *s = device_str(self);
    if (!s) {
        return NULL;
    }
    return Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(self), s);
}

static PyGetSetDef device_getset[] = {
    {"type", device_get_type, NULL, "'cpu' or 'cuda'", NULL},
    {"index", device_get_index, NULL, "the CUDA index, or None", NULL},
    {NULL},
};

static PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\n"},
    {NULL},
};

static PyType_Slot device_slots[] = {
    {Py_tp_new, device_new},
    {Py_tp_repr, device_repr},
    {Py_tp_str, device_str},
    {Py_tp_richcompare, device_richcompare},
    {Py_tp_hash, device_hash},
    {Py_tp_getset, device_getset},
    {Py_tp_methods, device_methods},
    {Py_tp_doc, "device(type, index=None)\n--\n\n"
                "Where a tensor lives: device('cpu'), device('cuda:0')."},
    {0, NULL},
};

static PyType_Spec device_spec = {
    .name = "tensorlib.device",
    .basicsize = sizeof(DeviceObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = device_slots,
};

/* ---- memory formats ----------------------------------------------------- */

static const char *format_names[4] = {
    "contiguous_format", "channels_last", "channels_last_3d",
    "preserve_format"};

static PyObject *format_repr(PyObject *self)
{
    return PyUnicode_FromFormat(
        "tensorlib.%s", format_names[((MemoryFormatObject *)self)->fmt]);
}

static PyObject *format_reduce(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(
        format_names[((MemoryFormatObject *)self)->fmt]);
}

static PyMethodDef format_methods[] = {
    {"__reduce__", format_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\nPickles as the module attribute of the "
     "same name."},
    {NULL},
};

static PyType_Slot format_slots[] = {
    {Py_tp_repr, format_repr},
    {Py_tp_methods, format_methods},
    {Py_tp_doc, "A memory format: contiguous_format, channels_last, "
                "channels_last_3d or preserve_format."},
    {0, NULL},
};

static PyType_Spec format_spec = {
    .name = "tensorlib.memory_format",
    .basicsize = sizeof(MemoryFormatObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = format_slots,
};

int tl_py_parse_memory_format(tl_mstate *st, PyObject *o, int *out)
{
    if (o == NULL || o == Py_None) {
        return 0;
    }
    if (Py_IS_TYPE(o, st->MemoryFormatType)) {
        *out = ((MemoryFormatObject *)o)->fmt;
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "memory_format must be tensorlib.contiguous_format, "
                 "channels_last, channels_last_3d or preserve_format, not "
                 "%.100s", Py_TYPE(o)->tp_name);
    return -1;
}

int tl_py_parse_memkind(tl_mstate *st, PyObject *o, tl_memkind *out)
{
    if (o == NULL || o == Py_None) {
        return 0;
    }
    if (PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "memory_kind must be a tensorlib.MemoryKind, a kind name "
                     "or None, not bool (%R)", o);
        return -1;
    }
    if (PyLong_Check(o)) { /* tensorlib.MemoryKind is an IntEnum */
        long k = PyLong_AsLong(o);
        if (k == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (k < 0 || k >= TL_MEMKIND_COUNT) {
            PyErr_Format(PyExc_ValueError, "unknown memory kind %ld: "
                         "expected a tensorlib.MemoryKind (0 Default, 1 "
                         "Persistent, 2 Workspace, 3 KVCache, 4 HostPinned, "
                         "5 HostPageable)", k);
            return -1;
        }
        *out = (tl_memkind)k;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s) {
            return -1;
        }
        if (tl_memkind_parse(s, out) < 0) {
            return tl_py_raise_int(st);
        }
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "memory_kind must be a tensorlib.MemoryKind or a str, not "
                 "%.100s", Py_TYPE(o)->tp_name);
    return -1;
}

/* ---- Size --------------------------------------------------------------- */

static PyObject *size_repr(PyObject *self)
{
    PyObject *list = PySequence_List(self);
    if (!list) {
        return NULL;
    }
    PyObject *r = PyUnicode_FromFormat("tensorlib.Size(%R)", list);
    Py_DECREF(list);
    return r;
}

static PyObject *size_numel(PyObject *self, PyObject *unused)
{
    int64_t n = 1;
    Py_ssize_t len = PyTuple_GET_SIZE(self);
    for (Py_ssize_t i = 0; i < len; i++) {
        int64_t v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
        if (v == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (tl_mul_overflow_i64(n, v, &n)) {
            PyErr_SetString(PyExc_OverflowError, "numel overflows int64");
            return NULL;
        }
    }
    return PyLong_FromLongLong(n);
}

/* A Size of type tp with the items of tuple r.  Steals: r.
 * Returns: new reference, or NULL. */
static PyObject *size_of_tuple(PyTypeObject *tp, PyObject *r)
{
    if (!r) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(r);
    PyObject *s = tp->tp_alloc(tp, n);
    if (s) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyTuple_SET_ITEM(s, i, Py_NewRef(PyTuple_GET_ITEM(r, i)));
        }
    }
    Py_DECREF(r);
    return s;
}

static PyObject *size_subscript(PyObject *self, PyObject *key)
{
    PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
    if (!r || !PySlice_Check(key)) {
        return r;
    }
    return size_of_tuple(Py_TYPE(self), r);
}

static PyObject *size_add(PyObject *a, PyObject *b);

/* The Size type among the operands of a binary operator. */
static PyTypeObject *size_operand_type(PyObject *a, PyObject *b)
{
    PyNumberMethods *nb = Py_TYPE(a)->tp_as_number;
    return nb && nb->nb_add == size_add ? Py_TYPE(a) : Py_TYPE(b);
}

/* Size + tuple and tuple + Size are a Size, as torch.Size. */
static PyObject *size_add(PyObject *a, PyObject *b)
{
    if (!PyTuple_Check(a) || !PyTuple_Check(b)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return size_of_tuple(size_operand_type(a, b),
                         PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}

/* Size * n and n * Size are a Size, as torch.Size. */
static PyObject *size_multiply(PyObject *a, PyObject *b)
{
    PyObject *seq = PyTuple_Check(a) ? a : b;
    PyObject *count = seq == a ? b : a;
    if (!PyTuple_Check(seq) || !PyIndex_Check(count)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return size_of_tuple(size_operand_type(a, b),
                         PyTuple_Type.tp_as_sequence->sq_repeat(seq, n));
}

static PyObject *size_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *seq = NULL;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "Size() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "|O:Size", &seq)) {
        return NULL;
    }
    PyObject *t = seq ? PySequence_Tuple(seq) : PyTuple_New(0);
    if (!t) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    PyObject *s = tp->tp_alloc(tp, n);
    for (Py_ssize_t i = 0; s && i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(t, i);
        PyObject *v = PyNumber_Index(item);
        if (!v) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Format(PyExc_TypeError, "Size() takes a sequence of "
                             "ints: element %zd is %.100s", i,
                             Py_TYPE(item)->tp_name);
            }
            Py_CLEAR(s);
            break;
        }
        PyTuple_SET_ITEM(s, i, v);
    }
    Py_DECREF(t);
    return s;
}

static PyObject *size_reduce(PyObject *self, PyObject *unused)
{
    PyObject *t = PySequence_Tuple(self);
    if (!t) {
        return NULL;
    }
    return Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(self), t);
}

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS,
     "numel($self, /)\n--\n\nThe product of the sizes."},
    {"__reduce__", size_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\n"},
    {NULL},
};

static PyType_Slot size_slots[] = {
    {Py_tp_new, size_new},
    {Py_tp_repr, size_repr},
    {Py_tp_methods, size_methods},
    {Py_mp_subscript, size_subscript},
    {Py_nb_add, size_add},
    {Py_nb_multiply, size_multiply},
    {Py_tp_doc, "Size(sizes=(), /)\n--\n\nThe shape of a tensor: a tuple "
                "of ints."},
    {0, NULL},
};

static PyType_Spec size_spec = {
    .name = "tensorlib.Size",
    .basicsize = 0,
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = size_slots,
};

PyObject *tl_py_size(tl_mstate *st, int n, const int64_t *v)
{
    PyObject *s = st->SizeType->tp_alloc(st->SizeType, n);
    if (!s) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(s);
            return NULL;
        }
        PyTuple_SET_ITEM(s, i, x);
    }
    return s;
}

int tl_py_int64(PyObject *o, int64_t *out, const char *what)
{
    if (PyFloat_Check(o) || PyComplex_Check(o) || PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(o);
    if (!i) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    if (overflow) {
        PyErr_Format(PyExc_OverflowError, "%s = %R does not fit in int64",
                     what, i);
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = v;
    return 0;
}

int tl_py_parse_shape(PyObject *const *args, Py_ssize_t nargs,
                      int64_t *sizes, const char *fname)
{
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    PyObject *fast = NULL;
    if (nargs == 1 && PyTuple_CheckExact(args[0])) {
        /* empty((3, 4)): the tuple's items as they are */
        items = &PyTuple_GET_ITEM(args[0], 0);
        n = PyTuple_GET_SIZE(args[0]);
    } else if (nargs == 1 && !PyLong_Check(args[0]) &&
               PySequence_Check(args[0])) {
        fast = PySequence_Fast(args[0], "size must be a sequence of ints");
        if (!fast) {
            return -1;
        }
        items = PySequence_Fast_ITEMS(fast);
        n = PySequence_Fast_GET_SIZE(fast);
    }
    if (n > TL_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): a tensor has at most %d dimensions, got %zd",
                     fname, TL_MAX_DIMS, n);
        Py_XDECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyLong_CheckExact(items[i])) {
            /* The common case, without formatting an error context that
             * is only needed on failure (a hot path: empty(3, 4)). */
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(items[i], &overflow);
            if (!overflow) {
                sizes[i] = v;
                continue;
            }
        }
        char what[64];
        snprintf(what, sizeof what, "%s(): size[%zd]", fname, i);
        if (tl_py_int64(items[i], &sizes[i], what) < 0) {
            Py_XDECREF(fast);
            return -1;
        }
    }
    Py_XDECREF(fast);
    return (int)n;
}

/* ---- init --------------------------------------------------------------- */

int tl_types_init(PyObject *m, tl_mstate *st)
{
    st->DtypeType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &dtype_spec,
                                                             NULL);
    st->DeviceType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &device_spec, NULL);
    st->MemoryFormatType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &format_spec, NULL);
    st->SizeType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &size_spec, (PyObject *)&PyTuple_Type);
    if (!st->DtypeType || !st->DeviceType || !st->MemoryFormatType ||
        !st->SizeType) {
        return -1;
    }
    if (PyModule_AddType(m, st->DtypeType) < 0 ||
        PyModule_AddType(m, st->DeviceType) < 0 ||
        PyModule_AddType(m, st->SizeType) < 0 ||
        PyModule_AddType(m, st->MemoryFormatType) < 0) {
        return -1;
    }
    for (int i = 0; i < TL_DTYPE_COUNT; i++) {
        DtypeObject *d = PyObject_New(DtypeObject, st->DtypeType);
        if (!d) {
            return -1;
        }
        d->code = i;
        st->dtypes[i] = (PyObject *)d;
        if (PyModule_AddObjectRef(m, tl_dtype_info_of(i)->name,
                                  (PyObject *)d) < 0) {
            return -1;
        }
    }
    for (int i = 0; i < 4; i++) {
        MemoryFormatObject *f = PyObject_New(MemoryFormatObject,
                                             st->MemoryFormatType);
        if (!f) {
            return -1;
        }
        f->fmt = i;
        st->formats[i] = (PyObject *)f;
        if (PyModule_AddObjectRef(m, format_names[i], (PyObject *)f) < 0) {
            return -1;
        }
    }
    DeviceObject *cpu = PyObject_New(DeviceObject, st->DeviceType);
    if (!cpu) {
        return -1;
    }
    cpu->dev = tl_device_cpu();
    cpu->no_index = false;
    st->cpu_device = (PyObject *)cpu;
    return 0;
}
