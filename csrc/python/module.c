/* csrc/python/module.c — the extension module tensorlib._C: multi-phase
 * init, the module state, and the module-level functions that are not
 * creation or NumPy (memory stats, threads, the private _testing hooks). */
#include "pytl.h"

/* ---- memory stats -------------------------------------------------------- */

static PyObject *stats_dict(const tl_alloc_stats *s)
{
    return Py_BuildValue(
        "{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}",
        "active_bytes", (long long)s->active_bytes,
        "active_bytes_peak", (long long)s->active_bytes_peak,
        "reserved_bytes", (long long)s->reserved_bytes,
        "cached_bytes", (long long)s->cached_bytes,
        "alloc_count", (long long)s->alloc_count,
        "free_count", (long long)s->free_count,
        "cache_hits", (long long)s->cache_hits,
        "cache_misses", (long long)s->cache_misses,
        "largest_free_block", (long long)s->largest_free_block,
        "fragmentation_bytes", (long long)s->fragmentation_bytes);
}

static PyObject *py_memory_stats(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[2];
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "memory_stats") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0 ||
        tl_py_parse_memkind(st, a[1], &kind) < 0) {
        return NULL;
    }
    bool all = !a[1] || a[1] == Py_None;
    tl_alloc_stats s;
    if (tl_registry_stats(dev, all ? -1 : (int)kind, &s) < 0) {
        return tl_py_raise(st);
    }
    return stats_dict(&s);
}

static PyObject *py_empty_cache(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[1];
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "empty_cache") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0) {
        return NULL;
    }
    tl_registry_empty_cache(dev);
    Py_RETURN_NONE;
}

static PyObject *py_reset_peak(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[1];
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "reset_peak_memory_stats") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0) {
        return NULL;
    }
    tl_registry_reset_peak(dev);
    Py_RETURN_NONE;
}

static PyObject *py_allocator_name(PyObject *m, PyObject *const *args,
                                   Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[2];
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "allocator_for") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0 ||
        tl_py_parse_memkind(st, a[1], &kind) < 0) {
        return NULL;
    }
    const tl_allocator *al = tl_registry_get(dev, kind);
    if (!al) {
        return tl_py_raise(st);
    }
    return PyUnicode_FromString(al->name);
}

/* ---- module ---------------------------------------------------------------- */

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef module_methods[] = {
    {"memory_stats", CF(py_memory_stats), FASTKW,
     "memory_stats(device='cpu', kind=None)\n--\n\nAllocator statistics as "
     "a dict (all kinds of the device summed when kind is None)."},
    {"empty_cache", CF(py_empty_cache), FASTKW,
     "empty_cache(device='cpu')\n--\n\nReturns cached blocks to the "
     "system; nothing in use is touched."},
    {"reset_peak_memory_stats", CF(py_reset_peak), FASTKW,
     "reset_peak_memory_stats(device='cpu')\n--\n\n"},
    {"_allocator_name", CF(py_allocator_name), FASTKW,
     "_allocator_name(device='cpu', kind=None)\n--\n\n"},
    {NULL},
};

int tl_testing_init(PyObject *m, tl_mstate *st); /* testing.c */
int tl_ops_init(PyObject *m, tl_mstate *st);     /* ops.c (python) */

static int add_methods(PyObject *m, PyMethodDef *defs)
{
    return PyModule_AddFunctions(m, defs);
}

static int module_exec(PyObject *m)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_RuntimeError);
    if (!bases) {
        return -1;
    }
    st->ShapeError = PyErr_NewExceptionWithDoc(
        "tensorlib.ShapeError",
        "A shape, size, stride, broadcast or overlap error.  Subclasses "
        "both ValueError (NumPy's habit) and RuntimeError (PyTorch's).",
        bases, NULL);
    Py_DECREF(bases);
    if (!st->ShapeError) {
        return -1;
    }
    st->TooHardError = PyErr_NewExceptionWithDoc(
        "tensorlib.TooHardError",
        "shares_memory() gave up within max_work.", PyExc_RuntimeError,
        NULL);
    if (!st->TooHardError ||
        PyModule_AddObjectRef(m, "ShapeError", st->ShapeError) < 0 ||
        PyModule_AddObjectRef(m, "TooHardError", st->TooHardError) < 0) {
        return -1;
    }
    if (tl_types_init(m, st) < 0 || tl_numpy_init(m, st) < 0 ||
        tl_tensor_type_init(m, st) < 0 ||
        add_methods(m, tl_creation_methods) < 0 ||
        add_methods(m, tl_numpy_methods) < 0 ||
        add_methods(m, tl_view_functions) < 0 ||
        add_methods(m, tl_storage_functions) < 0 ||
        add_methods(m, tl_reduce_functions) < 0 ||
        add_methods(m, tl_interop_functions) < 0 ||
        add_methods(m, tl_memory_functions) < 0 ||
        tl_memory_init(m, st) < 0 ||
        tl_storage_type_init(m, st) < 0 ||
        add_methods(m, module_methods) < 0 || tl_ops_init(m, st) < 0 ||
        tl_testing_init(m, st) < 0) {
        return -1;
    }
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
    tl_mstate *st = tl_state_of_module(m);
    if (!st) {
        return 0;
    }
    Py_VISIT(st->TensorType);
    Py_VISIT(st->DtypeType);
    Py_VISIT(st->DeviceType);
    Py_VISIT(st->SizeType);
    Py_VISIT(st->MemoryFormatType);
    Py_VISIT(st->ExporterType);
    Py_VISIT(st->StorageType);
    Py_VISIT(st->ShapeError);
    Py_VISIT(st->TooHardError);
    return 0;
}

static int module_clear(PyObject *m)
{
    tl_mstate *st = tl_state_of_module(m);
    if (!st) {
        return 0;
    }
    Py_CLEAR(st->TensorType);
    Py_CLEAR(st->DtypeType);
    Py_CLEAR(st->DeviceType);
    Py_CLEAR(st->SizeType);
    Py_CLEAR(st->MemoryFormatType);
    Py_CLEAR(st->ExporterType);
    Py_CLEAR(st->StorageType);
    Py_CLEAR(st->ShapeError);
    Py_CLEAR(st->TooHardError);
    for (int i = 0; i < TL_DTYPE_COUNT; i++) {
        Py_CLEAR(st->dtypes[i]);
    }
    for (int i = 0; i < 4; i++) {
        Py_CLEAR(st->formats[i]);
    }
    Py_CLEAR(st->cpu_device);
    return 0;
}

static void module_free(void *m)
{
    module_clear((PyObject *)m);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

PyModuleDef tl_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tensorlib._C",
    .m_doc = "The C core of tensorlib.",
    .m_size = sizeof(tl_mstate),
    .m_methods = NULL,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__C(void)
{
    return PyModuleDef_Init(&tl_module_def);
}
