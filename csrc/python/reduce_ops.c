/* csrc/python/reduce_ops.c — Python bindings of the reductions (sum, prod,
 * mean, amax, amin, max, min, argmax, argmin, any, all, var, std): Tensor
 * methods t.sum(dim=None, keepdim=False, *, dtype=None) and module
 * functions tensorlib.sum(input, dim=None, keepdim=False, *, dtype=None,
 * out=None), with PyTorch's overloads (t.max() / t.max(dim) returning
 * (values, indices) / t.max(other); t.var(unbiased) / t.var(dim, unbiased,
 * keepdim) / t.var(dim, *, correction=)).  Arguments are parsed without
 * temporary tuples or dicts; the work happens in csrc/core/reduce.c. */
#include <string.h>

#include "pytl.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"


/* ---- (values, indices) ------------------------------------------------------ */

static PyStructSequence_Field minmax_fields[] = {
    {"values", "the maximal (minimal) values"},
    {"indices", "their indices along dim (int64)"},
    {NULL, NULL},
};

static PyStructSequence_Desc minmax_desc[2] = {
    {"tensorlib.return_types.max",
     "max(input, dim) result: a (values, indices) named tuple.",
     minmax_fields, 2},
    {"tensorlib.return_types.min",
     "min(input, dim) result: a (values, indices) named tuple.",
     minmax_fields, 2},
};

/* Created on first use (with the GIL held) and kept for the process. */
static PyTypeObject *minmax_types[2];

static PyObject *minmax_result(bool is_max, PyObject *values,
                               PyObject *indices)
{
    const int i = is_max ? 0 : 1;
    if (!minmax_types[i]) {
        minmax_types[i] = PyStructSequence_NewType(&minmax_desc[i]);
        if (!minmax_types[i]) {
            Py_DECREF(values);
            Py_DECREF(indices);
            return NULL;
        }
    }
    PyObject *r = PyStructSequence_New(minmax_types[i]);
    if (!r) {
        Py_DECREF(values);
        Py_DECREF(indices);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, values);   /* steals */
    PyStructSequence_SetItem(r, 1, indices);
    return r;
}

/* ---- argument conversion ---------------------------------------------------- */

/* dims from None (NULL list: every dim), an int, or a tuple/list of ints.
 * Returns ndims (>= 0), -2 for None, or -1 with TypeError. */
static int parse_dims(PyObject *o, int64_t *dims, const char *fname,
                      bool allow_seq)
{
    if (!o || o == Py_None) {
        return -2;
    }
    if (PyBool_Check(o)) {
        goto bad;
    }
    if (PyLong_Check(o) || (!PyTuple_Check(o) && !PyList_Check(o) &&
                            Py_TYPE(o)->tp_as_number &&
                            Py_TYPE(o)->tp_as_number->nb_index)) {
        if (tl_py_int64(o, &dims[0], "dim") < 0) {
            return -1;
        }
        return 1;
    }
    if (allow_seq && (PyTuple_Check(o) || PyList_Check(o))) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        if (n > TL_MAX_DIMS) {
            PyErr_Format(PyExc_IndexError,
                         "%s(): %zd dims given; a tensor has at most %d",
                         fname, n, TL_MAX_DIMS);
            return -1;
        }
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyBool_Check(items[i]) || !PyIndex_Check(items[i])) {
                PyErr_Format(PyExc_TypeError,
                             "%s(): dim must be a tuple of ints, but "
                             "element %zd is %.100s", fname, i,
                             Py_TYPE(items[i])->tp_name);
                return -1;
            }
            if (tl_py_int64(items[i], &dims[i], "dim") < 0) {
                return -1;
            }
        }
        return (int)n;
    }
bad:
    PyErr_Format(PyExc_TypeError,
                 allow_seq ? "%s(): dim must be None, an int or a tuple of "
                             "ints, not %.100s"
                           : "%s(): dim must be None or an int, not %.100s",
                 fname, Py_TYPE(o)->tp_name);
    return -1;
}

/* keepdim: absent/None is False; otherwise a bool (or int). */
static int parse_keepdim(PyObject *o, bool *out, const char *fname)
{
    *out = false;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!PyBool_Check(o) && !PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): keepdim must be a bool, not "
                     "%.100s", fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    int r = PyObject_IsTrue(o);
    if (r < 0) {
        return -1;
    }
    *out = r != 0;
    return 0;
}

/* out: absent/None gives NULL; otherwise a tensor. */

static int check_input(tl_mstate *st, PyObject *o, const char *fname)
{
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'input'", fname);
        return -1;
    }
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError, "%s(): input must be a tensor, not "
                     "%.100s", fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    return 0;
}

/* Returns: the result wrapped, or NULL with the core error raised. */
static PyObject *wrap(tl_mstate *st, tl_tensor_impl *r)
{
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

/* ---- sum, prod, mean, amax, amin, any, all -------------------------------------- */

/* The shared body: a[0] dim, a[1] keepdim, a[2] dtype (or NULL when the op
 * takes none), out. */
static PyObject *do_reduce(tl_mstate *st, int op, PyObject *self,
                           PyObject *dim, PyObject *keepdim, PyObject *dtype,
                           PyObject *outo)
{
    const char *fname = tl_reduce_name(op);
    int64_t dims[TL_MAX_DIMS];
    bool kd;
    tl_dtype dt = (tl_dtype)-1;
    tl_tensor_impl *out;
    int nd = parse_dims(dim, dims, fname, true);
    if (nd == -1 || parse_keepdim(keepdim, &kd, fname) < 0 ||
        tl_py_parse_dtype(st, dtype, &dt) < 0 ||
        tl_py_parse_out(st, outo, &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, tl_reduce(op, out, tl_py_impl(self), nd < 0 ? 0 : nd,
                              nd < 0 ? NULL : dims, kd, (int)dt));
}

static const char *const m_dtype_names[] = {"dim", "keepdim", "dtype", NULL};
static const char *const f_dtype_names[] = {"input", "dim", "keepdim",
                                            "dtype", "out", NULL};
static const char *const m_names[] = {"dim", "keepdim", NULL};
static const char *const f_names[] = {"input", "dim", "keepdim", "out",
                                      NULL};

static PyObject *reduce_method(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames, int op,
                               bool has_dtype)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kwnames,
                         has_dtype ? m_dtype_names : m_names, 2, a,
                         tl_reduce_name(op)) < 0) {
        return NULL;
    }
    return do_reduce(tl_state_of(self), op, self, a[0], a[1],
                     has_dtype ? a[2] : NULL, NULL);
}

static PyObject *reduce_function(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames, int op,
                                 bool has_dtype)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[5];
    if (tl_py_parse_args(args, nargs, kwnames,
                         has_dtype ? f_dtype_names : f_names, 3, a,
                         tl_reduce_name(op)) < 0 ||
        check_input(st, a[0], tl_reduce_name(op)) < 0) {
        return NULL;
    }
    return do_reduce(st, op, a[0], a[1], a[2], has_dtype ? a[3] : NULL,
                     has_dtype ? a[4] : a[3]);
}

#define REDUCE_FORMS(name, op, has_dtype)                                   \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return reduce_method(self, args, nargs, kw, op, has_dtype);         \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return reduce_function(m, args, nargs, kw, op, has_dtype);          \
    }

REDUCE_FORMS(sum, TL_REDUCE_SUM, true)
REDUCE_FORMS(prod, TL_REDUCE_PROD, true)
REDUCE_FORMS(mean, TL_REDUCE_MEAN, true)
REDUCE_FORMS(amax, TL_REDUCE_AMAX, false)
REDUCE_FORMS(amin, TL_REDUCE_AMIN, false)
REDUCE_FORMS(any, TL_REDUCE_ANY, false)
REDUCE_FORMS(all, TL_REDUCE_ALL, false)

/* nansum and nanmean: module functions only (the Tensor methods are
 * installed by tensorlib/_reduce_extra.py and call these). */
static PyObject *f_nansum(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return reduce_function(m, args, nargs, kw, TL_REDUCE_NANSUM, true);
}

static PyObject *f_nanmean(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return reduce_function(m, args, nargs, kw, TL_REDUCE_NANMEAN, true);
}

/* ---- argmax, argmin ------------------------------------------------------------- */

static PyObject *do_arg(tl_mstate *st, int op, PyObject *self, PyObject *dim,
                        PyObject *keepdim, PyObject *outo)
{
    const char *fname = tl_reduce_name(op);
    int64_t d;
    bool kd;
    tl_tensor_impl *out;
    int nd = parse_dims(dim, &d, fname, false);
    if (nd == -1 || parse_keepdim(keepdim, &kd, fname) < 0 ||
        tl_py_parse_out(st, outo, &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, tl_reduce_arg(op, out, tl_py_impl(self),
                                  nd < 0 ? NULL : &d, kd));
}

#define ARG_FORMS(name, op)                                                 \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        PyObject *a[2];                                                     \
        if (tl_py_parse_args(args, nargs, kw, m_names, 2, a, #name) < 0) {  \
            return NULL;                                                    \
        }                                                                   \
        return do_arg(tl_state_of(self), op, self, a[0], a[1], NULL);       \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        tl_mstate *st = tl_state_of_module(m);                              \
        PyObject *a[4];                                                     \
        if (tl_py_parse_args(args, nargs, kw, f_names, 3, a, #name) < 0 ||  \
            check_input(st, a[0], #name) < 0) {                             \
            return NULL;                                                    \
        }                                                                   \
        return do_arg(st, op, a[0], a[1], a[2], a[3]);                      \
    }

ARG_FORMS(argmax, TL_REDUCE_ARGMAX)
ARG_FORMS(argmin, TL_REDUCE_ARGMIN)

/* ---- max, min ------------------------------------------------------------------- */

/* The Python objects of a and b (tl_py_wrap of each).  Steals: a and b
 * (also on failure).  Returns 0 with new references in *pa and *pb, or
 * -1. */
static int wrap2(tl_mstate *st, tl_tensor_impl *a, tl_tensor_impl *b,
                 PyObject **pa, PyObject **pb)
{
    *pa = tl_py_wrap(st, a);
    if (!*pa) {
        tl_tensor_decref(b);
        return -1;
    }
    *pb = tl_py_wrap(st, b);
    if (!*pb) {
        Py_CLEAR(*pa);
        return -1;
    }
    return 0;
}

/* max(): the maximum of every element (0-dim); max(dim, keepdim=False):
 * (values, indices); max(other): elementwise maximum.  out: a tensor for
 * the first and last forms, a (values, indices) pair for the second. */
static PyObject *do_minmax(tl_mstate *st, bool is_max, PyObject *self,
                           PyObject *dim, PyObject *keepdim, PyObject *outo)
{
    const char *fname = is_max ? "max" : "min";
    if (dim && tl_py_is_tensor(st, dim)) {
        tl_tensor_impl *out;
        if (keepdim) {
            PyErr_Format(PyExc_TypeError, "%s(input, other) takes no "
                         "keepdim", fname);
            return NULL;
        }
        if (tl_py_parse_out(st, outo, &out, fname) < 0) {
            return NULL;
        }
        return wrap(st, tl_op_binary(is_max ? TL_BINARY_MAXIMUM
                                            : TL_BINARY_MINIMUM,
                                     out, tl_py_impl(self), tl_py_impl(dim),
                                     NULL));
    }
    int64_t d;
    bool kd;
    int nd = parse_dims(dim, &d, fname, false);
    if (nd == -1 || parse_keepdim(keepdim, &kd, fname) < 0) {
        return NULL;
    }
    if (nd < 0) {
        tl_tensor_impl *out;
        if (tl_py_parse_out(st, outo, &out, fname) < 0) {
            return NULL;
        }
        return wrap(st, tl_reduce(is_max ? TL_REDUCE_MAX : TL_REDUCE_MIN, out,
                                  tl_py_impl(self), 0, NULL, kd, -1));
    }
    tl_tensor_impl *vo = NULL, *io = NULL;
    if (outo && outo != Py_None) {
        if (!PyTuple_Check(outo) || PyTuple_GET_SIZE(outo) != 2 ||
            !tl_py_is_tensor(st, PyTuple_GET_ITEM(outo, 0)) ||
            !tl_py_is_tensor(st, PyTuple_GET_ITEM(outo, 1))) {
            PyErr_Format(PyExc_TypeError, "%s(): out must be a (values, "
                         "indices) tuple of two tensors", fname);
            return NULL;
        }
        vo = tl_py_impl(PyTuple_GET_ITEM(outo, 0));
        io = tl_py_impl(PyTuple_GET_ITEM(outo, 1));
    }
    tl_tensor_impl *v, *ix;
    if (tl_reduce_minmax_dim(is_max ? TL_REDUCE_MAX : TL_REDUCE_MIN, vo, io,
                             tl_py_impl(self), d, kd, &v, &ix) < 0) {
        return tl_py_raise(st);
    }
    PyObject *pv, *pi;
    if (wrap2(st, v, ix, &pv, &pi) < 0) {
        return NULL;
    }
    return minmax_result(is_max, pv, pi);
}

#define MINMAX_FORMS(name, is_max)                                          \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        PyObject *a[2];                                                     \
        if (tl_py_parse_args(args, nargs, kw, m_names, 2, a, #name) < 0) {  \
            return NULL;                                                    \
        }                                                                   \
        return do_minmax(tl_state_of(self), is_max, self, a[0], a[1],       \
                         NULL);                                             \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        tl_mstate *st = tl_state_of_module(m);                              \
        PyObject *a[4];                                                     \
        if (tl_py_parse_args(args, nargs, kw, f_names, 3, a, #name) < 0 ||  \
            check_input(st, a[0], #name) < 0) {                             \
            return NULL;                                                    \
        }                                                                   \
        return do_minmax(st, is_max, a[0], a[1], a[2], a[3]);               \
    }

MINMAX_FORMS(max, true)
MINMAX_FORMS(min, false)

/* ---- var, std ------------------------------------------------------------------- */

/* PyTorch's overloads: var(unbiased: bool), var(dim, unbiased, keepdim),
 * var(dim, *, correction, keepdim).  A bool in the dim slot is unbiased.
 * Default correction 1. */
static PyObject *do_var(tl_mstate *st, bool take_sqrt, PyObject *self,
                        PyObject *dim, PyObject *unbiased, PyObject *keepdim,
                        PyObject *correction, PyObject *outo)
{
    const char *fname = take_sqrt ? "std" : "var";
    if (dim && PyBool_Check(dim)) {
        if (unbiased) {
            PyErr_Format(PyExc_TypeError, "%s(): unbiased given twice (a "
                         "bool as the first argument is unbiased)", fname);
            return NULL;
        }
        unbiased = dim;
        dim = NULL;
    }
    double corr = 1;
    if (unbiased && unbiased != Py_None) {
        if (correction && correction != Py_None) {
            PyErr_Format(PyExc_TypeError, "%s(): unbiased and correction "
                         "cannot both be given", fname);
            return NULL;
        }
        if (!PyBool_Check(unbiased)) {
            PyErr_Format(PyExc_TypeError, "%s(): unbiased must be a bool, "
                         "not %.100s", fname, Py_TYPE(unbiased)->tp_name);
            return NULL;
        }
        corr = unbiased == Py_True ? 1 : 0;
    } else if (correction && correction != Py_None) {
        if (PyBool_Check(correction) ||
            !(PyLong_Check(correction) || PyFloat_Check(correction) ||
              PyIndex_Check(correction))) {
            PyErr_Format(PyExc_TypeError, "%s(): correction must be a "
                         "number, not %.100s", fname,
                         Py_TYPE(correction)->tp_name);
            return NULL;
        }
        corr = PyFloat_AsDouble(correction);
        if (corr == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    int64_t dims[TL_MAX_DIMS];
    bool kd;
    tl_tensor_impl *out;
    int nd = parse_dims(dim, dims, fname, true);
    if (nd == -1 || parse_keepdim(keepdim, &kd, fname) < 0 ||
        tl_py_parse_out(st, outo, &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, tl_reduce_var(out, tl_py_impl(self), nd < 0 ? 0 : nd,
                                  nd < 0 ? NULL : dims, corr, kd, take_sqrt));
}

static const char *const m_var_names[] = {"dim", "unbiased", "keepdim",
                                          "correction", NULL};
static const char *const f_var_names[] = {"input", "dim", "unbiased",
                                          "keepdim", "correction", "out",
                                          NULL};

#define VAR_FORMS(name, take_sqrt)                                          \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        PyObject *a[4];                                                     \
        if (tl_py_parse_args(args, nargs, kw, m_var_names, 3, a, #name) <   \
            0) {                                                            \
            return NULL;                                                    \
        }                                                                   \
        return do_var(tl_state_of(self), take_sqrt, self, a[0], a[1], a[2], \
                      a[3], NULL);                                          \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        tl_mstate *st = tl_state_of_module(m);                              \
        PyObject *a[6];                                                     \
        if (tl_py_parse_args(args, nargs, kw, f_var_names, 4, a, #name) <   \
                0 ||                                                        \
            check_input(st, a[0], #name) < 0) {                             \
            return NULL;                                                    \
        }                                                                   \
        return do_var(st, take_sqrt, a[0], a[1], a[2], a[3], a[4], a[5]);   \
    }

VAR_FORMS(var, false)
VAR_FORMS(std, true)

/* _vector_norm2(input, dim, keepdim, out=None): the 2-norm over dim (an
 * int or a tuple; None: all), tl_reduce_norm2 (linalg.vector_norm's
 * ord=2 path). */
static const char *const f_norm2_names[] = {"input", "dim", "keepdim", "out",
                                            NULL};
static PyObject *f_vector_norm2(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kw)
{
    const char *fname = "linalg.vector_norm";
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[4];
    if (tl_py_parse_args(args, nargs, kw, f_norm2_names, 3, a, fname) < 0 ||
        check_input(st, a[0], fname) < 0) {
        return NULL;
    }
    int64_t dims[TL_MAX_DIMS];
    bool kd;
    tl_tensor_impl *out;
    int nd = parse_dims(a[1], dims, fname, true);
    if (nd == -1 || parse_keepdim(a[2], &kd, fname) < 0 ||
        tl_py_parse_out(st, a[3], &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, tl_reduce_norm2(out, tl_py_impl(a[0]), nd < 0 ? 0 : nd,
                                    nd < 0 ? NULL : dims, kd));
}

/* _aminmax(input, dim=None, keepdim=False, min_out=None, max_out=None):
 * (min, max) over dim (an int; None: all) in one read, tl_reduce_aminmax
 * (tensorlib/_reduce_extra.py's aminmax checks PyTorch's rules first). */
static const char *const f_aminmax_names[] = {"input", "dim", "keepdim",
                                              "min_out", "max_out", NULL};
static PyObject *f_aminmax(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    const char *fname = "aminmax";
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[5];
    if (tl_py_parse_args(args, nargs, kw, f_aminmax_names, 3, a, fname) < 0 ||
        check_input(st, a[0], fname) < 0) {
        return NULL;
    }
    int64_t d;
    bool kd;
    tl_tensor_impl *o[2];
    int nd = parse_dims(a[1], &d, fname, false);
    if (nd == -1 || parse_keepdim(a[2], &kd, fname) < 0 ||
        tl_py_parse_out(st, a[3], &o[0], fname) < 0 ||
        tl_py_parse_out(st, a[4], &o[1], fname) < 0) {
        return NULL;
    }
    tl_tensor_impl *lo, *hi;
    if (tl_reduce_aminmax(o[0], o[1], tl_py_impl(a[0]), nd < 0 ? 0 : 1,
                          nd < 0 ? NULL : &d, kd, &lo, &hi) < 0) {
        return tl_py_raise(st);
    }
    PyObject *plo, *phi;
    if (wrap2(st, lo, hi, &plo, &phi) < 0) {
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, plo, phi);
    Py_DECREF(plo);
    Py_DECREF(phi);
    return r;
}

/* ---- tables --------------------------------------------------------------------- */

#define DIMS_DOC                                                            \
    "dim: None (every dim), an int or a tuple of ints; keepdim keeps "      \
    "reduced dims as size 1."

PyMethodDef tl_reduce_tensor_methods[] = {
    {"sum", CF(m_sum), FASTKW,
     "sum($self, dim=None, keepdim=False, *, dtype=None)\n--\n\n"
     "Sum over dim.  bool and integers give int64; dtype= casts the input "
     "first.  " DIMS_DOC},
    {"prod", CF(m_prod), FASTKW,
     "prod($self, dim=None, keepdim=False, *, dtype=None)\n--\n\n"
     "Product over dim.  bool and integers give int64.  " DIMS_DOC},
    {"mean", CF(m_mean), FASTKW,
     "mean($self, dim=None, keepdim=False, *, dtype=None)\n--\n\n"
     "Mean over dim (floating and complex inputs, or dtype=).  " DIMS_DOC},
    {"amax", CF(m_amax), FASTKW,
     "amax($self, dim=None, keepdim=False)\n--\n\n"
     "Maximum over dim, NaN propagating.  " DIMS_DOC},
    {"amin", CF(m_amin), FASTKW,
     "amin($self, dim=None, keepdim=False)\n--\n\n"
     "Minimum over dim, NaN propagating.  " DIMS_DOC},
    {"max", CF(m_max), FASTKW,
     "max($self, dim=None, keepdim=False)\n--\n\n"
     "max(): the maximum (0-dim); max(dim, keepdim=False): a (values, "
     "indices) named tuple; max(other): the elementwise maximum.  NaN "
     "propagates; indices give the first maximum (or NaN)."},
    {"min", CF(m_min), FASTKW,
     "min($self, dim=None, keepdim=False)\n--\n\n"
     "min(): the minimum (0-dim); min(dim, keepdim=False): a (values, "
     "indices) named tuple; min(other): the elementwise minimum."},
    {"argmax", CF(m_argmax), FASTKW,
     "argmax($self, dim=None, keepdim=False)\n--\n\n"
     "Index (int64) of the first maximum along dim, or into the flattened "
     "tensor when dim is None; a NaN counts as the maximum."},
    {"argmin", CF(m_argmin), FASTKW,
     "argmin($self, dim=None, keepdim=False)\n--\n\n"
     "Index (int64) of the first minimum along dim, or into the flattened "
     "tensor when dim is None; a NaN counts as the minimum."},
    {"any", CF(m_any), FASTKW,
     "any($self, dim=None, keepdim=False)\n--\n\n"
     "Whether any element is nonzero (bool; uint8 for uint8).  " DIMS_DOC},
    {"all", CF(m_all), FASTKW,
     "all($self, dim=None, keepdim=False)\n--\n\n"
     "Whether every element is nonzero (bool; uint8 for uint8).  " DIMS_DOC},
    {"var", CF(m_var), FASTKW,
     "var($self, dim=None, unbiased=None, keepdim=False, *, "
     "correction=None)\n--\n\n"
     "Variance over dim, divided by N - correction (default 1; "
     "unbiased=False is correction=0).  Complex gives its real dtype."},
    {"std", CF(m_std), FASTKW,
     "std($self, dim=None, unbiased=None, keepdim=False, *, "
     "correction=None)\n--\n\n"
     "Standard deviation: the square root of var()."},
    {NULL},
};

PyMethodDef tl_reduce_functions[] = {
    {"sum", CF(f_sum), FASTKW,
     "sum(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
     "Sum over dim.  bool and integers give int64; dtype= casts the input "
     "first.  " DIMS_DOC},
    {"prod", CF(f_prod), FASTKW,
     "prod(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
     "Product over dim.  " DIMS_DOC},
    {"mean", CF(f_mean), FASTKW,
     "mean(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
     "Mean over dim.  " DIMS_DOC},
    {"amax", CF(f_amax), FASTKW,
     "amax(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Maximum over dim, NaN propagating.  " DIMS_DOC},
    {"amin", CF(f_amin), FASTKW,
     "amin(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Minimum over dim, NaN propagating.  " DIMS_DOC},
    {"max", CF(f_max), FASTKW,
     "max(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "max(input): 0-dim maximum; max(input, dim): (values, indices); "
     "max(input, other): elementwise maximum."},
    {"min", CF(f_min), FASTKW,
     "min(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "min(input): 0-dim minimum; min(input, dim): (values, indices); "
     "min(input, other): elementwise minimum."},
    {"argmax", CF(f_argmax), FASTKW,
     "argmax(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Index of the first maximum (int64)."},
    {"argmin", CF(f_argmin), FASTKW,
     "argmin(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Index of the first minimum (int64)."},
    {"any", CF(f_any), FASTKW,
     "any(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Whether any element is nonzero.  " DIMS_DOC},
    {"all", CF(f_all), FASTKW,
     "all(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "Whether every element is nonzero.  " DIMS_DOC},
    {"var", CF(f_var), FASTKW,
     "var(input, dim=None, unbiased=None, keepdim=False, *, "
     "correction=None, out=None)\n--\n\nVariance over dim."},
    {"std", CF(f_std), FASTKW,
     "std(input, dim=None, unbiased=None, keepdim=False, *, "
     "correction=None, out=None)\n--\n\nStandard deviation over dim."},
    {"_aminmax", CF(f_aminmax), FASTKW,
     "_aminmax(input, dim=None, keepdim=False, min_out=None, max_out=None)"
     "\n--\n\n(min, max) over dim in one read of the input (aminmax)."},
    {"_vector_norm2", CF(f_vector_norm2), FASTKW,
     "_vector_norm2(input, dim=None, keepdim=False, out=None)\n--\n\n"
     "The 2-norm over dim in one pass (linalg.vector_norm's ord=2)."},
    {"nansum", CF(f_nansum), FASTKW,
     "nansum(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
     "Sum over dim with NaN counted as zero (one pass; complex refused).  "
     DIMS_DOC},
    {"nanmean", CF(f_nanmean), FASTKW,
     "nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
     "Mean of the non-NaN elements over dim (NaN where all are NaN; "
     "floating input only).  " DIMS_DOC},
    {NULL},
};
