/* csrc/python/memory.c — Python bindings of the memory system: memory
 * kinds of tensors, the registry, the workspace arena, execution plans,
 * pinned memory and the memory summary. */
#include "pytl.h"

PyMethodDef tl_memory_tensor_methods[] = {
    {NULL},
};

PyGetSetDef tl_memory_tensor_getset[] = {
    {NULL},
};

PyMethodDef tl_memory_functions[] = {
    {NULL},
};

int tl_memory_init(PyObject *m, tl_mstate *st)
{
    return 0;
}
