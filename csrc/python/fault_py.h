/* csrc/python/fault_py.h — the Python layer's side of fault injection
 * (Note [Fault injection] in csrc/alloc/fault.c): PyObject_New and
 * PyMem_Malloc of tensorlib's own objects and metadata through the one
 * counter.  The tp_alloc of every tensorlib type is patched once at import
 * (tl_fault_py_init in fault_py.c). */
#ifndef TL_PYTHON_FAULT_PY_H
#define TL_PYTHON_FAULT_PY_H

#include "pytl.h"
#include "../alloc/fault.h"

/* PyObject_New through the counter.  Returns: new reference, or NULL with
 * MemoryError set. */
#define TL_PY_NEW(T, tp) \
    (tl_fault_hit() ? (T *)PyErr_NoMemory() : PyObject_New(T, tp))

/* PyMem_Malloc/PyMem_Calloc through the counter (no exception set, as the
 * calls they replace).  Returns: owned pointer (PyMem_Free), or NULL. */
static inline void *tl_py_mem_malloc(size_t n)
{
    return tl_fault_hit() ? NULL : PyMem_Malloc(n);
}

static inline void *tl_py_mem_calloc(size_t count, size_t n)
{
    return tl_fault_hit() ? NULL : PyMem_Calloc(count, n);
}

/* Points the tp_alloc of every type the module made at the counting one.
 * Returns: 0, or -1 with an exception set. */
int tl_fault_py_init(PyObject *m, tl_mstate *st);

#endif
