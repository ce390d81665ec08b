/* csrc/python/vecmath.c — the private entry points that let the tests run
 * the vectorised transcendental loops of csrc/core/vecmath.h directly, on
 * the build the CPU selected and on the forced baseline:
 * tensorlib._C._vecmath_apply and _vecmath_isa.  Not public API (the
 * public functions reach the loops through the operator table). */
#include "pytl.h"
#include "../core/vecmath.h"

/* The operand x of _vecmath_apply: a contiguous float32/float64 CPU
 * tensor.  Returns: borrowed impl, or NULL with TypeError/ValueError. */
static tl_tensor_impl *operand(tl_mstate *st, PyObject *o, const char *what)
{
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError,
                     "_vecmath_apply(): %s must be a tensor, not %.100s",
                     what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    tl_tensor_impl *t = tl_py_impl(o);
    if (tl_vecmath_slot(tl_tensor_dtype(t)) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "_vecmath_apply(): %s must be float32 or float64, "
                     "not %s", what,
                     tl_dtype_info_of(tl_tensor_dtype(t))->name);
        return NULL;
    }
    if (tl_tensor_device(t).type != TL_DEVICE_CPU ||
        !tl_tensor_is_contiguous(t, TL_FORMAT_CONTIGUOUS)) {
        PyErr_Format(PyExc_ValueError,
                     "_vecmath_apply(): %s must be a contiguous CPU tensor",
                     what);
        return NULL;
    }
    return t;
}

PyDoc_STRVAR(apply_doc,
"_vecmath_apply(name, x, y=None, baseline=False)\n--\n\n"
"Runs the vectorised loop of name ('exp', ..., 'pow', 'atan2') on the\n"
"contiguous float32/float64 tensor x (and y: a tensor of x's dtype and\n"
"number of elements, or for pow a Python float exponent) and returns a\n"
"new tensor of x's shape and dtype.  baseline=True runs the baseline\n"
"build instead of the one the CPU selected.  Private: for tests.");

static PyObject *vm_apply(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"name", "x", "y", "baseline", NULL};
    PyObject *a[4];
    tl_mstate *st = tl_state_of_module(m);
    if (tl_py_parse_args(args, nargs, kwnames, names, 4, a,
                         "_vecmath_apply") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError,
                        "_vecmath_apply() needs name and x");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(a[0]);
    if (!name) {
        return NULL;
    }
    int fn = tl_vecmath_lookup(name);
    if (fn < 0) {
        PyErr_Format(PyExc_ValueError,
                     "_vecmath_apply(): no vectorised loop named '%s'", name);
        return NULL;
    }
    int baseline = a[3] ? PyObject_IsTrue(a[3]) : 0;
    if (baseline < 0) {
        return NULL;
    }
    tl_tensor_impl *x = operand(st, a[1], "x");
    if (!x) {
        return NULL;
    }
    tl_dtype dt = tl_tensor_dtype(x);
    int slot = tl_vecmath_slot(dt);
    int64_t n = tl_tensor_numel(x);
    tl_tensor_impl *y = NULL;
    double ys = 0.0;
    bool have_y = a[2] && a[2] != Py_None;
    if (fn < TL_VM_NUNARY && have_y) {
        PyErr_Format(PyExc_TypeError, "_vecmath_apply(): %s takes one "
                     "operand", name);
        return NULL;
    }
    if (fn >= TL_VM_NUNARY) {
        if (!have_y) {
            PyErr_Format(PyExc_TypeError, "_vecmath_apply(): %s needs y",
                         name);
            return NULL;
        }
        if (fn == TL_VM_POW && PyFloat_Check(a[2])) {
            ys = PyFloat_AsDouble(a[2]);
        } else {
            y = operand(st, a[2], "y");
            if (!y) {
                return NULL;
            }
            if (tl_tensor_dtype(y) != dt || tl_tensor_numel(y) != n) {
                PyErr_Format(PyExc_ValueError,
                             "_vecmath_apply(): y must have x's dtype and "
                             "%" PRId64 " elements", n);
                return NULL;
            }
        }
    }
    tl_tensor_impl *out = tl_tensor_empty(tl_tensor_ndim(x),
                                          tl_tensor_sizes(x), dt,
                                          tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (!out) {
        return tl_py_raise(st);
    }
    const tl_vm_table *tab = tl_vecmath_table(baseline != 0);
    const void *xp = tl_tensor_data(x);
    const void *yp = y ? tl_tensor_data(y) : NULL;
    void *op = tl_tensor_data(out);
    Py_BEGIN_ALLOW_THREADS
    if (fn < TL_VM_NUNARY) {
        tab->unary[fn][slot](xp, op, n);
    } else if (!y) {
        tab->pow_scalar[slot](xp, ys, op, n);
    } else {
        tab->binary[fn - TL_VM_NUNARY][slot](xp, yp, op, n);
    }
    Py_END_ALLOW_THREADS
    return tl_py_wrap(st, out); /* steals out */
}

PyDoc_STRVAR(isa_doc,
"_vecmath_isa(baseline=False)\n--\n\n"
"The instruction set of the vectorised loops in use: 'avx512', 'avx2'\n"
"or 'baseline' (TENSORLIB_VECMATH caps it).  Private: for tests.");

static PyObject *vm_isa(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    static const char *const names[] = {"baseline", NULL};
    PyObject *a[1];
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "_vecmath_isa") < 0) {
        return NULL;
    }
    int baseline = a[0] ? PyObject_IsTrue(a[0]) : 0;
    if (baseline < 0) {
        return NULL;
    }
    return PyUnicode_FromString(tl_vecmath_table(baseline != 0)->isa);
}

static PyMethodDef vecmath_methods[] = {
    {"_vecmath_apply", (PyCFunction)(void (*)(void))vm_apply,
     METH_FASTCALL | METH_KEYWORDS, apply_doc},
    {"_vecmath_isa", (PyCFunction)(void (*)(void))vm_isa,
     METH_FASTCALL | METH_KEYWORDS, isa_doc},
    {NULL, NULL, 0, NULL},
};

int tl_vecmath_init(PyObject *m, tl_mstate *st)
{
    (void)st;
    return PyModule_AddFunctions(m, vecmath_methods);
}
