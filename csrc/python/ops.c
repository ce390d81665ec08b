/* csrc/python/ops.c — Python bindings of the operators: the number
 * protocol, comparisons, functional forms and in-place methods. */
#include "pytl.h"

PyMethodDef tl_ops_tensor_methods[] = {
    {NULL},
};

PyType_Slot tl_ops_tensor_slots[] = {
    {0, NULL},
};

int tl_ops_init(PyObject *m, tl_mstate *st)
{
    return 0;
}
