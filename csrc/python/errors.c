/* csrc/python/errors.c — the one place where a core error record becomes a
 * Python exception (DESIGN.md, "Errors"). */
#include "pytl.h"

PyObject *tl_py_raise(tl_mstate *st)
{
    PyObject *exc;
    tl_status kind = tl_error_kind();
    switch (kind) {
    case TL_ERR_SHAPE:
        exc = st->ShapeError;
        break;
    case TL_ERR_INDEX:
        exc = PyExc_IndexError;
        break;
    case TL_ERR_TYPE:
        exc = PyExc_TypeError;
        break;
    case TL_ERR_MEMORY:
        exc = PyExc_MemoryError;
        break;
    case TL_ERR_OVERFLOW:
        exc = PyExc_OverflowError;
        break;
    case TL_ERR_ZERO_DIVISION:
        exc = PyExc_ZeroDivisionError;
        break;
    case TL_ERR_BUFFER:
        exc = PyExc_BufferError;
        break;
    case TL_ERR_RUNTIME:
        exc = PyExc_RuntimeError;
        break;
    case TL_ERR_NOT_IMPLEMENTED:
        exc = PyExc_NotImplementedError;
        break;
    case TL_ERR_VALUE:
    case TL_ERR_READONLY:
        exc = PyExc_ValueError;
        break;
    case TL_OK:
    default:
        PyErr_SetString(PyExc_SystemError,
                        "tensorlib: an operation failed without an error "
                        "record");
        return NULL;
    }
    PyErr_SetString(exc, tl_error_message());
    tl_error_clear();
    return NULL;
}

int tl_py_raise_int(tl_mstate *st)
{
    tl_py_raise(st);
    return -1;
}
