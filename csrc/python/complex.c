/* csrc/python/complex.c — the Python face of tensorlib/view_complex.h:
 * tensorlib.view_as_real, view_as_complex, real, imag, conj and
 * conj_physical (functions; tensorlib/_complex.py adds the methods and the
 * .real/.imag attributes, angle and positive). */
#include "pytl.h"
#include "tensorlib/view_complex.h"

typedef tl_tensor_impl *(*complex_fn)(tl_tensor_impl *t);

/* Parses (input) and applies fn.  Returns: new reference, or NULL. */
static PyObject *apply1(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, const char *name, complex_fn fn,
                        int imag)
{
    static const char *const names[] = {"input", NULL};
    PyObject *a[1];
    tl_mstate *st = tl_state_of_module(m);
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, name) < 0) {
        return NULL;
    }
    if (!a[0] || !tl_py_is_tensor(st, a[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be "
                     "Tensor, not %.100s", name,
                     a[0] ? Py_TYPE(a[0])->tp_name : "nothing");
        return NULL;
    }
    tl_tensor_impl *t = tl_py_impl(a[0]);
    tl_tensor_impl *r = fn ? fn(t) : tl_view_real_imag(t, imag != 0);
    if (!r) {
        return tl_py_raise(st);
    }
    return tl_py_wrap(st, r);
}

#define DEF1(pyname, fn, imag)                                             \
    static PyObject *py_##pyname(PyObject *m, PyObject *const *args,      \
                                 Py_ssize_t nargs, PyObject *kwnames)     \
    {                                                                      \
        return apply1(m, args, nargs, kwnames, #pyname, fn, imag);        \
    }

DEF1(view_as_real, tl_view_as_real, 0)
DEF1(view_as_complex, tl_view_as_complex, 0)
DEF1(real, NULL, 0)
DEF1(imag, NULL, 1)
DEF1(conj, tl_op_conj, 0)
DEF1(conj_physical, tl_op_conj, 0)

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef complex_methods[] = {
    {"view_as_real", CF(py_view_as_real), FASTKW,
     "view_as_real(input)\n--\n\n"
     "A view of complex input as reals: float32 for complex64, float64\n"
     "for complex128, with a last dim of size 2 (real, imaginary)."},
    {"view_as_complex", CF(py_view_as_complex), FASTKW,
     "view_as_complex(input)\n--\n\n"
     "A view of a float32/float64 input whose last dim has size 2 and\n"
     "stride 1 as complex64/complex128 (the last dim becomes the pair)."},
    {"real", CF(py_real), FASTKW,
     "real(input)\n--\n\n"
     "The real part of complex input, as a view of its real dtype; a\n"
     "real input is returned itself."},
    {"imag", CF(py_imag), FASTKW,
     "imag(input)\n--\n\n"
     "The imaginary part of complex input, as a view of its real dtype\n"
     "(TypeError for a real input, as PyTorch)."},
    {"conj", CF(py_conj), FASTKW,
     "conj(input)\n--\n\n"
     "The complex conjugate: a new tensor for complex input (PyTorch\n"
     "returns a lazy view with a conjugate bit), input itself otherwise."},
    {"conj_physical", CF(py_conj_physical), FASTKW,
     "conj_physical(input)\n--\n\n"
     "The complex conjugate computed now: a new tensor for complex\n"
     "input, input itself otherwise."},
    {NULL, NULL, 0, NULL},
};

int tl_complex_init(PyObject *m, tl_mstate *st)
{
    (void)st;
    return PyModule_AddFunctions(m, complex_methods);
}
