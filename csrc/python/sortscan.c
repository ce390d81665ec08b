/* csrc/python/sortscan.c — Python bindings of sorting and searching, the
 * scans and the softmax family (csrc/core/sort.c, search.c, scan.c,
 * softmax.c): module functions and Tensor methods with PyTorch's
 * signatures, the (values, indices) named tuples they return (types
 * tensorlib.return_types.*), and tl_sortscan_init, which adds them to the
 * module and the Tensor type. */
#include <string.h>

#include "pytl.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"
#include "tensorlib/sortscan.h"

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

/* ---- named tuples ------------------------------------------------------------ */

enum {
    RT_SORT, RT_TOPK, RT_KTHVALUE, RT_MEDIAN, RT_NANMEDIAN, RT_MODE,
    RT_CUMMAX, RT_CUMMIN, RT_COUNT
};

static PyStructSequence_Field vi_fields[] = {
    {"values", "the values"},
    {"indices", "their indices along dim (int64)"},
    {NULL, NULL},
};

#define VI_DESC(n)                                                          \
    {"tensorlib.return_types." #n,                                          \
     #n "() result: a (values, indices) named tuple.", vi_fields, 2}

static PyStructSequence_Desc vi_desc[RT_COUNT] = {
    VI_DESC(sort), VI_DESC(topk), VI_DESC(kthvalue), VI_DESC(median),
    VI_DESC(nanmedian), VI_DESC(mode), VI_DESC(cummax), VI_DESC(cummin),
};

/* Made by tl_sortscan_init and kept for the process. */
static PyTypeObject *vi_types[RT_COUNT];

/* Wraps (v, ix) (owned impls) as the named tuple of kind k.
 * Returns: new reference, or NULL (both released). */
static PyObject *vi_result(tl_mstate *st, int k, tl_tensor_impl *v,
                           tl_tensor_impl *ix)
{
    PyObject *pv = tl_py_wrap(st, v);
    if (!pv) {
        tl_tensor_decref(ix);
        return NULL;
    }
    PyObject *pi = tl_py_wrap(st, ix);
    if (!pi) {
        Py_DECREF(pv);
        return NULL;
    }
    PyObject *r = PyStructSequence_New(vi_types[k]);
    if (!r) {
        Py_DECREF(pv);
        Py_DECREF(pi);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, pv); /* steals */
    PyStructSequence_SetItem(r, 1, pi);
    return r;
}

/* ---- argument conversion ------------------------------------------------------ */

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

/* An int argument; absent or None gives def (required: a TypeError). */
static int parse_int(PyObject *o, int64_t *v, int64_t def, bool required,
                     const char *what, const char *fname)
{
    if (!o || o == Py_None) {
        if (required) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                         "'%s'", fname, what);
            return -1;
        }
        *v = def;
        return 0;
    }
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be an int, not %.100s",
                     fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    return tl_py_int64(o, v, what);
}

static __attribute__((unused)) int parse_bool(PyObject *o, bool *v, bool def, const char *what,
                      const char *fname)
{
    if (!o || o == Py_None) {
        *v = def;
        return 0;
    }
    if (!PyBool_Check(o) && !PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a bool, not %.100s",
                     fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    int r = PyObject_IsTrue(o);
    if (r < 0) {
        return -1;
    }
    *v = r != 0;
    return 0;
}

static int parse_dtype(tl_mstate *st, PyObject *o, int *dt)
{
    tl_dtype d = (tl_dtype)-1;
    if (tl_py_parse_dtype(st, o, &d) < 0) {
        return -1;
    }
    *dt = (int)d;
    return 0;
}

/* out=(values, indices): two tensors, or None. */
static int parse_out2(tl_mstate *st, PyObject *o, tl_tensor_impl **v,
                      tl_tensor_impl **ix, const char *fname)
{
    *v = *ix = NULL;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!(PyTuple_Check(o) || PyList_Check(o)) || PySequence_Size(o) != 2) {
        goto bad;
    }
    PyObject *a = PySequence_Fast_GET_ITEM(o, 0);
    PyObject *b = PySequence_Fast_GET_ITEM(o, 1);
    if (!tl_py_is_tensor(st, a) || !tl_py_is_tensor(st, b)) {
        goto bad;
    }
    *v = tl_py_impl(a);
    *ix = tl_py_impl(b);
    return 0;
bad:
    PyErr_Format(PyExc_TypeError, "%s(): out must be a (values, indices) "
                 "tuple of two tensors", fname);
    return -1;
}

/* Returns: the result wrapped, or NULL with the core error raised. */
static PyObject *wrap(tl_mstate *st, tl_tensor_impl *r)
{
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

/* Method or function: self is the tensor for a method (args then start
 * after it); for a function args[0] (or input=) is.  Fills a[0] with the
 * input and a[1..] with the rest.  Returns 0 / -1. */
static int parse_mf(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kw, const char *const *fnames, Py_ssize_t npos,
                    PyObject **a, bool is_method, const char *fname,
                    tl_mstate **st)
{
    if (is_method) {
        if (tl_py_parse_args(args, nargs, kw, fnames + 1, npos - 1, a + 1,
                             fname) < 0) {
            return -1;
        }
        a[0] = self;
        *st = tl_state_of(self);
        return 0;
    }
    *st = tl_state_of_module(self);
    if (tl_py_parse_args(args, nargs, kw, fnames, npos, a, fname) < 0) {
        return -1;
    }
    return check_input(*st, a[0], fname);
}

/* ---- scans -------------------------------------------------------------------- */

static const char *const scan_names[] = {"input", "dim", "dtype", "out",
                                         NULL};

static PyObject *do_scan(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw, int op,
                         bool is_method, bool inplace, const char *fname)
{
    PyObject *a[4];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, scan_names, 2, a, is_method, fname,
                 &st) < 0) {
        return NULL;
    }
    if (is_method && a[3]) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword "
                     "argument 'out'", fname);
        return NULL;
    }
    if (op == TL_SCAN_LOGCUMSUMEXP && a[2]) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword "
                     "argument 'dtype'", fname);
        return NULL;
    }
    int64_t dim;
    int dt;
    tl_tensor_impl *out;
    if (parse_int(a[1], &dim, 0, true, "dim", fname) < 0 ||
        parse_dtype(st, a[2], &dt) < 0 ||
        tl_py_parse_out(st, a[3], &out, fname) < 0) {
        return NULL;
    }
    if (inplace) {
        out = tl_py_impl(a[0]);
        if (dt < 0) {
            dt = tl_tensor_dtype(out);
        }
        tl_tensor_impl *r = tl_scan(op, out, out, dim, dt);
        if (!r) {
            return tl_py_raise(st);
        }
        tl_tensor_decref(r);
        Py_INCREF(a[0]);
        return a[0];
    }
    return wrap(st, tl_scan(op, out, tl_py_impl(a[0]), dim, dt));
}

#define SCAN_FORMS(name, op)                                                \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return do_scan(self, args, nargs, kw, op, true, false, #name);      \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return do_scan(m, args, nargs, kw, op, false, false, #name);        \
    }

SCAN_FORMS(cumsum, TL_SCAN_CUMSUM)
SCAN_FORMS(cumprod, TL_SCAN_CUMPROD)
SCAN_FORMS(logcumsumexp, TL_SCAN_LOGCUMSUMEXP)

static PyObject *m_cumsum_(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_scan(self, args, nargs, kw, TL_SCAN_CUMSUM, true, true,
                   "cumsum_");
}

static PyObject *m_cumprod_(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw)
{
    return do_scan(self, args, nargs, kw, TL_SCAN_CUMPROD, true, true,
                   "cumprod_");
}

static const char *const cm_names[] = {"input", "dim", "out", NULL};

static PyObject *do_cm(PyObject *self, PyObject *const *args,
                       Py_ssize_t nargs, PyObject *kw, bool is_max,
                       bool is_method)
{
    const char *fname = is_max ? "cummax" : "cummin";
    PyObject *a[3];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, cm_names, 2, a, is_method, fname,
                 &st) < 0) {
        return NULL;
    }
    int64_t dim;
    tl_tensor_impl *vo, *io, *v, *ix;
    if (parse_int(a[1], &dim, 0, true, "dim", fname) < 0 ||
        parse_out2(st, is_method ? NULL : a[2], &vo, &io, fname) < 0) {
        return NULL;
    }
    if (tl_scan_minmax(is_max, vo, io, tl_py_impl(a[0]), dim, &v, &ix) < 0) {
        return tl_py_raise(st);
    }
    return vi_result(st, is_max ? RT_CUMMAX : RT_CUMMIN, v, ix);
}

static PyObject *m_cummax(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_cm(self, args, nargs, kw, true, true);
}
static PyObject *f_cummax(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_cm(m, args, nargs, kw, true, false);
}
static PyObject *m_cummin(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_cm(self, args, nargs, kw, false, true);
}
static PyObject *f_cummin(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_cm(m, args, nargs, kw, false, false);
}

static const char *const diff_names[] = {"input", "n", "dim", "prepend",
                                         "append", "out", NULL};

/* A tensor argument or None (NULL). */
static int parse_opt_tensor(tl_mstate *st, PyObject *o, tl_tensor_impl **t,
                            const char *what, const char *fname)
{
    *t = NULL;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a tensor, not "
                     "%.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    *t = tl_py_impl(o);
    return 0;
}

static PyObject *do_diff(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw, bool is_method)
{
    PyObject *a[6];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, diff_names, 5, a, is_method, "diff",
                 &st) < 0) {
        return NULL;
    }
    int64_t n, dim;
    tl_tensor_impl *pre, *app, *out;
    if (parse_int(a[1], &n, 1, false, "n", "diff") < 0 ||
        parse_int(a[2], &dim, -1, false, "dim", "diff") < 0 ||
        parse_opt_tensor(st, a[3], &pre, "prepend", "diff") < 0 ||
        parse_opt_tensor(st, a[4], &app, "append", "diff") < 0 ||
        tl_py_parse_out(st, is_method ? NULL : a[5], &out, "diff") < 0) {
        return NULL;
    }
    return wrap(st, tl_diff(out, tl_py_impl(a[0]), n, dim, pre, app));
}

static PyObject *m_diff(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kw)
{
    return do_diff(self, args, nargs, kw, true);
}
static PyObject *f_diff(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kw)
{
    return do_diff(m, args, nargs, kw, false);
}

/* ---- softmax ------------------------------------------------------------------ */

static const char *const sm_names[] = {"input", "dim", "dtype", "out", NULL};

static PyObject *do_softmax(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw, bool log,
                            bool is_method)
{
    const char *fname = log ? "log_softmax" : "softmax";
    PyObject *a[4];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, sm_names, 3, a, is_method, fname,
                 &st) < 0) {
        return NULL;
    }
    int64_t dim;
    int dt;
    tl_tensor_impl *out;
    if (parse_int(a[1], &dim, 0, true, "dim", fname) < 0 ||
        parse_dtype(st, a[2], &dt) < 0 ||
        tl_py_parse_out(st, is_method ? NULL : a[3], &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, tl_softmax(out, tl_py_impl(a[0]), dim, dt, log));
}

static PyObject *m_softmax(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_softmax(self, args, nargs, kw, false, true);
}
static PyObject *f_softmax(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_softmax(m, args, nargs, kw, false, false);
}
static PyObject *m_log_softmax(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kw)
{
    return do_softmax(self, args, nargs, kw, true, true);
}
static PyObject *f_log_softmax(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kw)
{
    return do_softmax(m, args, nargs, kw, true, false);
}

/* @SORT_BINDINGS@ */

/* ---- tables ------------------------------------------------------------------- */

static PyMethodDef sortscan_tensor_methods[] = {
    {"cumsum", CF(m_cumsum), FASTKW,
     "cumsum($self, dim, *, dtype=None)\n--\n\n"
     "Cumulative sum along dim (bool and integers give int64)."},
    {"cumsum_", CF(m_cumsum_), FASTKW,
     "cumsum_($self, dim, *, dtype=None)\n--\n\n"
     "In-place cumulative sum along dim, in self's dtype."},
    {"cumprod", CF(m_cumprod), FASTKW,
     "cumprod($self, dim, *, dtype=None)\n--\n\n"
     "Cumulative product along dim (bool and integers give int64)."},
    {"cumprod_", CF(m_cumprod_), FASTKW,
     "cumprod_($self, dim, *, dtype=None)\n--\n\n"
     "In-place cumulative product along dim, in self's dtype."},
    {"logcumsumexp", CF(m_logcumsumexp), FASTKW,
     "logcumsumexp($self, dim)\n--\n\n"
     "log(cumsum(exp(self))) along dim, computed stably."},
    {"cummax", CF(m_cummax), FASTKW,
     "cummax($self, dim)\n--\n\n"
     "Running maximum along dim and where it was reached: a (values, "
     "indices) named tuple."},
    {"cummin", CF(m_cummin), FASTKW,
     "cummin($self, dim)\n--\n\n"
     "Running minimum along dim and where it was reached."},
    {"diff", CF(m_diff), FASTKW,
     "diff($self, n=1, dim=-1, prepend=None, append=None)\n--\n\n"
     "The n-th forward difference along dim."},
    {"softmax", CF(m_softmax), FASTKW,
     "softmax($self, dim, dtype=None)\n--\n\n"
     "exp(x) / sum(exp(x)) along dim, the maximum subtracted first."},
    {"log_softmax", CF(m_log_softmax), FASTKW,
     "log_softmax($self, dim, dtype=None)\n--\n\n"
     "x - log(sum(exp(x))) along dim, computed stably."},
    /* @SORT_METHODS@ */
    {NULL},
};

static PyMethodDef sortscan_functions[] = {
    {"cumsum", CF(f_cumsum), FASTKW,
     "cumsum(input, dim, *, dtype=None, out=None)\n--\n\n"
     "Cumulative sum along dim (bool and integers give int64; dtype= casts "
     "the input first)."},
    {"cumprod", CF(f_cumprod), FASTKW,
     "cumprod(input, dim, *, dtype=None, out=None)\n--\n\n"
     "Cumulative product along dim."},
    {"logcumsumexp", CF(f_logcumsumexp), FASTKW,
     "logcumsumexp(input, dim, *, out=None)\n--\n\n"
     "log(cumsum(exp(input))) along dim, computed stably."},
    {"cummax", CF(f_cummax), FASTKW,
     "cummax(input, dim, *, out=None)\n--\n\n"
     "Running maximum along dim: a (values, indices) named tuple."},
    {"cummin", CF(f_cummin), FASTKW,
     "cummin(input, dim, *, out=None)\n--\n\n"
     "Running minimum along dim: a (values, indices) named tuple."},
    {"diff", CF(f_diff), FASTKW,
     "diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None)"
     "\n--\n\n"
     "The n-th forward difference along dim of cat(prepend, input, "
     "append); bool gives logical xor."},
    {"softmax", CF(f_softmax), FASTKW,
     "softmax(input, dim, dtype=None, *, out=None)\n--\n\n"
     "exp(x) / sum(exp(x)) along dim (input cast to dtype first)."},
    {"log_softmax", CF(f_log_softmax), FASTKW,
     "log_softmax(input, dim, dtype=None, *, out=None)\n--\n\n"
     "x - log(sum(exp(x))) along dim (input cast to dtype first)."},
    /* @SORT_FUNCTIONS@ */
    {NULL},
};

int tl_sortscan_init(PyObject *m, tl_mstate *st)
{
    PyObject *types = PyTuple_New(RT_COUNT);
    if (!types) {
        return -1;
    }
    for (int i = 0; i < RT_COUNT; i++) {
        if (!vi_types[i]) {
            vi_types[i] = PyStructSequence_NewType(&vi_desc[i]);
            if (!vi_types[i]) {
                Py_DECREF(types);
                return -1;
            }
        }
        Py_INCREF(vi_types[i]);
        PyTuple_SET_ITEM(types, i, (PyObject *)vi_types[i]);
    }
    int rc0 = PyModule_AddObjectRef(m, "_sortscan_return_types", types);
    Py_DECREF(types);
    if (rc0 < 0 || PyModule_AddFunctions(m, sortscan_functions) < 0) {
        return -1;
    }
    /* The Tensor methods, added to the (heap) type after it was made. */
    PyObject *tp = (PyObject *)st->TensorType;
    for (PyMethodDef *d = sortscan_tensor_methods; d->ml_name; d++) {
        PyObject *descr = PyDescr_NewMethod(st->TensorType, d);
        if (!descr) {
            return -1;
        }
        int rc = PyObject_SetAttrString(tp, d->ml_name, descr);
        Py_DECREF(descr);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}
