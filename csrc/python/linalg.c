/* csrc/python/linalg.c — the Python face of csrc/core/matmul.c and
 * csrc/core/linalg.c: matmul (function, method, the @ and @= operators)
 * and the private batched LAPACK entry points (_C._lapack_*) that
 * tensorlib/linalg.py composes into tensorlib.linalg.  Owns no state. */
#include "pytl.h"

#include "tensorlib/linalg.h"

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

/* ---- matmul ---------------------------------------------------------------- */

static PyObject *do_matmul(tl_mstate *st, PyObject *a, PyObject *b,
                           PyObject *out)
{
    tl_tensor_impl *oi;
    if (!tl_py_is_tensor(st, a) || !tl_py_is_tensor(st, b)) {
        PyObject *bad = tl_py_is_tensor(st, a) ? b : a;
        return PyErr_Format(PyExc_TypeError,
                            "matmul(): expected tensors, got %.100s",
                            Py_TYPE(bad)->tp_name);
    }
    if (tl_py_parse_out(st, out, &oi, "matmul") < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_matmul(oi, tl_py_impl(a), tl_py_impl(b));
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static const char *const fn_names[] = {"input", "other", "out", NULL};
static const char *const m_names[] = {"other", NULL};

static PyObject *f_matmul(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kwnames, fn_names, 2, a, "matmul") <
        0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "matmul() needs input and other");
        return NULL;
    }
    return do_matmul(tl_state_of_module(m), a[0], a[1], a[2]);
}

static PyObject *m_matmul(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[1];
    if (tl_py_parse_args(args, nargs, kwnames, m_names, 1, a, "matmul") <
        0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "matmul() missing argument "
                        "'other'");
        return NULL;
    }
    return do_matmul(tl_state_of(self), self, a[0], NULL);
}

/* The state behind a @ b: from whichever operand is one of our tensors;
 * NULL (no error) when neither is, or the other is not a tensor. */
static tl_mstate *pair_state(PyObject *a, PyObject *b)
{
    PyTypeObject *ta = Py_TYPE(a), *tb = Py_TYPE(b);
    PyObject *mod = PyType_GetModuleByDef(ta, &tl_module_def);
    if (!mod) {
        PyErr_Clear();
        mod = PyType_GetModuleByDef(tb, &tl_module_def);
        if (!mod) {
            PyErr_Clear();
            return NULL;
        }
    }
    tl_mstate *st = tl_state_of_module(mod);
    if (!tl_py_is_tensor(st, a) || !tl_py_is_tensor(st, b)) {
        return NULL;
    }
    return st;
}

static PyObject *nb_matmul(PyObject *a, PyObject *b)
{
    tl_mstate *st = pair_state(a, b);
    if (!st) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return do_matmul(st, a, b, NULL);
}

/* a @= b writes into a (NumPy's rule: the result must have a's shape). */
static PyObject *nb_imatmul(PyObject *a, PyObject *b)
{
    tl_mstate *st = pair_state(a, b);
    if (!st) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return do_matmul(st, a, b, a);
}

/* ---- private LAPACK entry points ------------------------------------------ */

/* Borrowed impls of n positional tensor-or-None arguments. */
static int impls(tl_mstate *st, PyObject *const *args, Py_ssize_t nargs,
                 Py_ssize_t n, tl_tensor_impl **out, const char *fname)
{
    if (nargs < n) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd tensors", fname, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (args[i] == Py_None) {
            out[i] = NULL;
        } else if (tl_py_is_tensor(st, args[i])) {
            out[i] = tl_py_impl(args[i]);
        } else {
            PyErr_Format(PyExc_TypeError, "%s(): argument %zd must be a "
                         "tensor or None, not %.100s", fname, i,
                         Py_TYPE(args[i])->tp_name);
            return -1;
        }
    }
    return 0;
}

/* Flag i (default false).  Returns: 0 or 1; -1 with an exception when
 * its __bool__ raises (the caller must check: a -1 passed on as "true"
 * with the exception still set was a SystemError). */
static int flag_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t i)
{
    return i < nargs ? PyObject_IsTrue(args[i]) : 0;
}

/* The first letter of the str argument i (dflt when absent).  Returns: 0
 * with a TypeError when it is not a non-empty str: a '\0' must never
 * reach LAPACK, whose xerbla prints and returns (or aborts). */
static char char_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t i,
                     char dflt, const char *fname)
{
    if (i >= nargs) {
        return dflt;
    }
    const char *s = PyUnicode_Check(args[i]) ? PyUnicode_AsUTF8(args[i])
                                             : NULL;
    if (!s || !s[0]) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument %zd must be a "
                     "non-empty str, not %.100s", fname, i,
                     Py_TYPE(args[i])->tp_name);
        return 0;
    }
    return s[0];
}

static PyObject *status(tl_mstate *st, int rc)
{
    if (rc < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

#define ST tl_state_of_module(m)

static PyObject *f_fortran_copy(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs)
{
    tl_tensor_impl *t[1];
    tl_dtype dt;
    if (impls(ST, args, nargs, 1, t, "_lapack_copy") < 0) {
        return NULL;
    }
    if (!t[0]) {
        return PyErr_Format(PyExc_TypeError, "_lapack_copy(): need a "
                            "tensor");
    }
    dt = (tl_dtype)t[0]->dtype;
    if (nargs > 1 && tl_py_parse_dtype(ST, args[1], &dt) < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_lapack_fortran_copy(t[0], dt);
    return r ? tl_py_wrap(ST, r) : tl_py_raise(ST);
}

static PyObject *f_getrf(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_getrf") < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_getrf(t[0], t[1], t[2]));
}

static PyObject *f_getrs(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[4];
    if (impls(ST, args, n, 4, t, "_lapack_getrs") < 0) {
        return NULL;
    }
    char trans = char_arg(args, n, 4, 'N', "_lapack_getrs");
    if (!trans) {
        return NULL;
    }
    return status(ST, tl_lapack_getrs(t[0], t[1], t[2], trans, t[3]));
}

static PyObject *f_getri(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_getri") < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_getri(t[0], t[1], t[2]));
}

static PyObject *f_potrf(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[2];
    if (impls(ST, args, n, 2, t, "_lapack_potrf") < 0) {
        return NULL;
    }
    int upper = flag_arg(args, n, 2);
    if (upper < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_potrf(t[0], upper, t[1]));
}

static PyObject *f_geqrf(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_geqrf") < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_geqrf(t[0], t[1], t[2]));
}

static PyObject *f_orgqr(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_orgqr") < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_orgqr(t[0], t[1], t[2]));
}

static PyObject *f_syevd(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_syevd") < 0) {
        return NULL;
    }
    int upper = flag_arg(args, n, 3), vectors = flag_arg(args, n, 4);
    if (upper < 0 || vectors < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_syevd(t[0], t[1], upper, vectors, t[2]));
}

static PyObject *f_gesdd(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[5];
    if (impls(ST, args, n, 5, t, "_lapack_gesdd") < 0) {
        return NULL;
    }
    char jobz = char_arg(args, n, 5, 'N', "_lapack_gesdd");
    if (!jobz) {
        return NULL;
    }
    return status(ST, tl_lapack_gesdd(t[0], t[1], t[2], t[3], jobz, t[4]));
}

static PyObject *f_geev(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[4];
    if (impls(ST, args, n, 4, t, "_lapack_geev") < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_geev(t[0], t[1], t[2], t[3]));
}

static PyObject *f_gelsd(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[5];
    if (impls(ST, args, n, 5, t, "_lapack_gelsd") < 0) {
        return NULL;
    }
    double rcond = n > 5 ? PyFloat_AsDouble(args[5]) : -1.0;
    if (rcond == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    return status(ST, tl_lapack_gelsd(t[0], t[1], t[2], t[3], rcond, t[4]));
}

static PyObject *f_trtrs(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[3];
    if (impls(ST, args, n, 3, t, "_lapack_trtrs") < 0) {
        return NULL;
    }
    int upper = flag_arg(args, n, 3);
    if (upper < 0) {
        return NULL;
    }
    char trans = char_arg(args, n, 4, 'N', "_lapack_trtrs");
    if (!trans) {
        return NULL;
    }
    int unit = flag_arg(args, n, 5);
    if (unit < 0) {
        return NULL;
    }
    return status(ST, tl_lapack_trtrs(t[0], t[1], upper, trans, unit,
                                      t[2]));
}

static PyObject *f_conj(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    tl_tensor_impl *t[1];
    if (impls(ST, args, n, 1, t, "_linalg_conj") < 0) {
        return NULL;
    }
    if (!t[0]) {
        return PyErr_Format(PyExc_TypeError, "_linalg_conj(): need a "
                            "tensor");
    }
    tl_tensor_impl *r = tl_linalg_conj(t[0]);
    return r ? tl_py_wrap(ST, r) : tl_py_raise(ST);
}

static PyObject *f_blas_threads(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(tl_blas_get_num_threads());
}

#undef ST

/* ---- tables ---------------------------------------------------------------- */

PyMethodDef tl_linalg_tensor_methods[] = {
    {"matmul", CF(m_matmul), FASTKW,
     "matmul($self, other, /)\n--\n\nself @ other (see tensorlib.matmul)."},
    {NULL},
};

PyType_Slot tl_linalg_tensor_slots[] = {
    {Py_nb_matrix_multiply, nb_matmul},
    {Py_nb_inplace_matrix_multiply, nb_imatmul},
    {0, NULL},
};

#define PRIV(name, f, doc) {name, CF(f), METH_FASTCALL, doc}

static PyMethodDef linalg_functions[] = {
    {"matmul", CF(f_matmul), FASTKW,
     "matmul(input, other, *, out=None)\n--\n\n"
     "Matrix product with NumPy's and PyTorch's rules: a 1-D first operand "
     "is a row vector, a 1-D second one a column (their dims dropped from "
     "the result); leading batch dims broadcast.  Both operands have one "
     "dtype; integers wrap, float16/bfloat16 accumulate in float32."},
    PRIV("_lapack_copy", f_fortran_copy,
         "_lapack_copy(a, dtype=None)\n--\n\nColumn-major batched copy."),
    PRIV("_lapack_getrf", f_getrf, "_lapack_getrf(a, ipiv, info)\n--\n\n"),
    PRIV("_lapack_getrs", f_getrs,
         "_lapack_getrs(lu, ipiv, b, info, trans='N')\n--\n\n"),
    PRIV("_lapack_getri", f_getri, "_lapack_getri(lu, ipiv, info)\n--\n\n"),
    PRIV("_lapack_potrf", f_potrf,
         "_lapack_potrf(a, info, upper=False)\n--\n\n"),
    PRIV("_lapack_geqrf", f_geqrf, "_lapack_geqrf(a, tau, info)\n--\n\n"),
    PRIV("_lapack_orgqr", f_orgqr, "_lapack_orgqr(a, tau, info)\n--\n\n"),
    PRIV("_lapack_syevd", f_syevd,
         "_lapack_syevd(a, w, info, upper=False, vectors=False)\n--\n\n"),
    PRIV("_lapack_gesdd", f_gesdd,
         "_lapack_gesdd(a, s, u, vt, info, jobz='N')\n--\n\n"),
    PRIV("_lapack_geev", f_geev, "_lapack_geev(a, w, v, info)\n--\n\n"),
    PRIV("_lapack_gelsd", f_gelsd,
         "_lapack_gelsd(a, b, s, rank, info, rcond=-1.0)\n--\n\n"),
    PRIV("_lapack_trtrs", f_trtrs,
         "_lapack_trtrs(a, b, info, upper=False, trans='N', unit=False)"
         "\n--\n\n"),
    PRIV("_linalg_conj", f_conj, "_linalg_conj(a)\n--\n\nConjugate copy."),
    {"_blas_get_num_threads", f_blas_threads, METH_NOARGS,
     "_blas_get_num_threads()\n--\n\nThreads OpenBLAS uses."},
    {NULL},
};

int tl_linalg_init(PyObject *m, tl_mstate *st)
{
    return PyModule_AddFunctions(m, linalg_functions);
}
