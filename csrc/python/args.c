/* csrc/python/args.c — vectorcall argument parsing without temporary tuples
 * or dicts: positional slots then keyword names compared by identity first
 * (interned), then by value. */
#include <string.h>

#include "pytl.h"

/* NumPy's keyword names that PyTorch's parser also accepts for its own
 * (axis for dim, keepdims for keepdim, x1/x2 for input/other), so code
 * written against NumPy (dask's chunk functions: x.sum(axis=0,
 * keepdims=True)) calls tensorlib's methods unchanged.  Tried only when
 * the name itself is not a parameter.  Returns the parameter's index, or
 * nnames when the name is no alias of one. */
static Py_ssize_t numpy_alias(const char *ks, const char *const *names,
                              Py_ssize_t nnames)
{
    static const char *const alias[][2] = {
        {"axis", "dim"}, {"keepdims", "keepdim"},
        {"x1", "input"}, {"x2", "other"},
    };
    for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++) {
        if (strcmp(ks, alias[a][0]) != 0) {
            continue;
        }
        for (Py_ssize_t j = 0; j < nnames; j++) {
            if (strcmp(alias[a][1], names[j]) == 0) {
                return j;
            }
        }
    }
    return nnames;
}

int tl_py_parse_args(PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, const char *const *names,
                     Py_ssize_t npos_max, PyObject **out, const char *fname)
{
    Py_ssize_t nnames = 0;
    while (names[nnames]) {
        out[nnames] = NULL;
        nnames++;
    }
    if (nargs > npos_max) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes at most %zd positional arguments (%zd "
                     "given)", fname, npos_max, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        out[i] = args[i];
    }
    if (!kwnames) {
        return 0;
    }
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        const char *ks = PyUnicode_AsUTF8(key);
        if (!ks) {
            return -1;
        }
        Py_ssize_t j = 0;
        for (; j < nnames; j++) {
            if (strcmp(ks, names[j]) == 0) {
                break;
            }
        }
        if (j == nnames) {
            j = numpy_alias(ks, names, nnames);
        }
        if (j == nnames) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%s'",
                         fname, ks);
            return -1;
        }
        if (out[j]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got multiple values for argument '%s'", fname,
                         ks);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    return 0;
}
