/* csrc/python/ops.c — Python bindings of the operators (filled in by the
 * iterator work). */
#include "pytl.h"

int tl_ops_init(PyObject *m, tl_mstate *st)
{
    return 0;
}
