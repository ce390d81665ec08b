/* csrc/python/reduce_ops.c — Python bindings of the reductions (sum, prod,
 * mean, amax, amin, max, min, argmax, argmin, any, all, var, std). */
#include "pytl.h"

PyMethodDef tl_reduce_tensor_methods[] = {
    {NULL},
};

PyMethodDef tl_reduce_functions[] = {
    {NULL},
};
