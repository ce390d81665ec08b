/* csrc/python/module.c — the extension module tensorlib._C: multi-phase
 * init (the exceptions, then each file's types and function tables) and
 * the module state's life (traverse, clear and free visit the same
 * objects).  The module-level functions live in the files that own them
 * (memory.c, ops.c, testing.c, ...). */
#include "pytl.h"

/* Memory stats, empty_cache, reset_peak_memory_stats and the registry
 * functions live in memory.c (tl_memory_functions). */

/* ---- module ---------------------------------------------------------------- */


static PyMethodDef module_methods[] = {
    {NULL},
};

int tl_testing_init(PyObject *m, tl_mstate *st); /* testing.c */
int tl_ops_init(PyObject *m, tl_mstate *st);     /* ops.c (python) */
int tl_joinindex_init(PyObject *m, tl_mstate *st); /* joinindex.c */
int tl_vecmath_init(PyObject *m, tl_mstate *st); /* vecmath.c (python) */
int tl_complex_init(PyObject *m, tl_mstate *st); /* complex.c (python) */
int tl_sortscan_init(PyObject *m, tl_mstate *st); /* sortscan.c */
int tl_fault_py_init(PyObject *m, tl_mstate *st); /* fault_py.c */

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
        tl_cuda_init(m, st) < 0 || tl_testing_init(m, st) < 0 ||
        tl_linalg_init(m, st) < 0) {
        return -1;
    }
    if (tl_random_init(m, st) < 0 || tl_joinindex_init(m, st) < 0) {
        return -1;
    }
    if (tl_vecmath_init(m, st) < 0 || tl_complex_init(m, st) < 0 ||
        tl_sortscan_init(m, st) < 0 ||
        add_methods(m, tl_files_functions) < 0) {
        return -1;
    }
    /* faults: last, so that every type exists (fault_py.c). */
    if (tl_fault_py_init(m, st) < 0) {
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
    Py_VISIT(st->TensorIterType);
    Py_VISIT(st->ShapeError);
    Py_VISIT(st->TooHardError);
    for (int i = 0; i < TL_DTYPE_COUNT; i++) {
        Py_VISIT(st->dtypes[i]);
    }
    for (int i = 0; i < 4; i++) {
        Py_VISIT(st->formats[i]);
    }
    Py_VISIT(st->cpu_device);
    Py_VISIT(st->GeneratorType);
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
    Py_CLEAR(st->TensorIterType);
    Py_CLEAR(st->ShapeError);
    Py_CLEAR(st->TooHardError);
    for (int i = 0; i < TL_DTYPE_COUNT; i++) {
        Py_CLEAR(st->dtypes[i]);
    }
    for (int i = 0; i < 4; i++) {
        Py_CLEAR(st->formats[i]);
    }
    Py_CLEAR(st->cpu_device);
    Py_CLEAR(st->GeneratorType);
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
