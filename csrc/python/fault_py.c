/* csrc/python/fault_py.c — fault injection for the Python objects of
 * tensorlib's types: a tp_alloc that asks the counter first, installed on
 * every type of the module at import, and the _testing hooks that arm the
 * counter (fail_allocation, allocation_count, allocation_failed). */
#include "fault_py.h"

/* Returns: new reference, or NULL with MemoryError set. */
static PyObject *fault_tp_alloc(PyTypeObject *tp, Py_ssize_t n)
{
    if (tl_fault_hit()) {
        return PyErr_NoMemory();
    }
    return PyType_GenericAlloc(tp, n);
}

static void patch(PyTypeObject *tp)
{
    if (tp && tp->tp_alloc == PyType_GenericAlloc) {
        tp->tp_alloc = fault_tp_alloc;
    }
}

int tl_fault_py_init(PyObject *m, tl_mstate *st)
{
    patch(st->TensorType);
    patch(st->DtypeType);
    patch(st->DeviceType);
    patch(st->SizeType);
    patch(st->MemoryFormatType);
    patch(st->ExporterType);
    patch(st->StorageType);
    patch(st->GeneratorType);
    /* Types kept only as module attributes (WorkspaceArena, ...). */
    PyObject *d = PyModule_GetDict(m);
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (!PyType_Check(v) ||
            !(((PyTypeObject *)v)->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            continue;
        }
        PyObject *owner = PyType_GetModule((PyTypeObject *)v); /* borrowed */
        if (!owner) {
            PyErr_Clear(); /* a heap type made without a module */
        } else if (owner == m) {
            patch((PyTypeObject *)v);
        }
    }
    return 0;
}
