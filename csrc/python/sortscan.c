/* csrc/python/sortscan.c — Python bindings of sorting and searching, the
 * scans and the softmax family (csrc/core/sort.c, search.c, scan.c,
 * softmax.c): module functions and Tensor methods with PyTorch's
 * signatures, the (values, indices) named tuples they return (types
 * tensorlib.return_types.*), and tl_sortscan_init, which adds them to the
 * module and the Tensor type. */
#include <string.h>

#include "pytl.h"
#include "tensorlib/ops.h"
#include "tensorlib/index.h"
#include "tensorlib/reduce.h"
#include "tensorlib/view.h"
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

static int parse_bool(PyObject *o, bool *v, bool def, const char *what,
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

/* _logsumexp(input, dim): the fused one-dim kernel under
   tensorlib.logsumexp, which handles dim tuples, keepdim, out= and empty
   reductions. */
static const char *const lse_names[] = {"input", "dim", NULL};

static PyObject *f_logsumexp_dim(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[2];
    tl_mstate *st;
    int64_t dim;
    if (parse_mf(m, args, nargs, kw, lse_names, 2, a, false, "logsumexp",
                 &st) < 0 ||
        parse_int(a[1], &dim, 0, true, "dim", "logsumexp") < 0) {
        return NULL;
    }
    return wrap(st, tl_logsumexp(tl_py_impl(a[0]), dim));
}

/* ---- sort, argsort, msort ----------------------------------------------------- */

static const char *const sort_names[] = {"input", "dim", "descending",
                                         "stable", "out", NULL};

static PyObject *do_sort(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw, bool is_method,
                         bool arg)
{
    const char *fname = arg ? "argsort" : "sort";
    PyObject *a[5];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, sort_names, arg ? 4 : 3, a,
                 is_method, fname, &st) < 0) {
        return NULL;
    }
    int64_t dim;
    bool desc, stable;
    tl_tensor_impl *vo = NULL, *io = NULL, *v, *ix;
    if (parse_int(a[1], &dim, -1, false, "dim", fname) < 0 ||
        parse_bool(a[2], &desc, false, "descending", fname) < 0 ||
        parse_bool(a[3], &stable, false, "stable", fname) < 0) {
        return NULL;
    }
    if (arg) {
        if (tl_py_parse_out(st, is_method ? NULL : a[4], &io, fname) < 0) {
            return NULL;
        }
        if (tl_sort(NULL, io, tl_py_impl(a[0]), dim, desc, NULL, &ix) < 0) {
            return tl_py_raise(st);
        }
        return tl_py_wrap(st, ix);
    }
    if (parse_out2(st, is_method ? NULL : a[4], &vo, &io, fname) < 0) {
        return NULL;
    }
    if (tl_sort(vo, io, tl_py_impl(a[0]), dim, desc, &v, &ix) < 0) {
        return tl_py_raise(st);
    }
    return vi_result(st, RT_SORT, v, ix);
}

static PyObject *m_sort(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kw)
{
    return do_sort(self, args, nargs, kw, true, false);
}
static PyObject *f_sort(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kw)
{
    return do_sort(m, args, nargs, kw, false, false);
}
static PyObject *m_argsort(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_sort(self, args, nargs, kw, true, true);
}
static PyObject *f_argsort(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_sort(m, args, nargs, kw, false, true);
}

static const char *const msort_names[] = {"input", "out", NULL};

static PyObject *do_msort(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw, bool is_method)
{
    PyObject *a[2];
    tl_mstate *st;
    tl_tensor_impl *out, *v, *ix;
    if (parse_mf(self, args, nargs, kw, msort_names, 1, a, is_method,
                 "msort", &st) < 0 ||
        tl_py_parse_out(st, is_method ? NULL : a[1], &out, "msort") < 0) {
        return NULL;
    }
    if (tl_sort(out, NULL, tl_py_impl(a[0]), 0, false, &v, &ix) < 0) {
        return tl_py_raise(st);
    }
    tl_tensor_decref(ix);
    return tl_py_wrap(st, v);
}

static PyObject *m_msort(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw)
{
    return do_msort(self, args, nargs, kw, true);
}
static PyObject *f_msort(PyObject *m, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw)
{
    return do_msort(m, args, nargs, kw, false);
}

/* ---- topk, kthvalue, median, nanmedian, mode ------------------------------------ */

static const char *const topk_names[] = {"input", "k", "dim", "largest",
                                         "sorted", "out", NULL};

static PyObject *do_topk(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw, bool is_method)
{
    PyObject *a[6];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, topk_names, 5, a, is_method, "topk",
                 &st) < 0) {
        return NULL;
    }
    int64_t k, dim;
    bool largest, sorted;
    tl_tensor_impl *vo, *io, *v, *ix;
    if (parse_int(a[1], &k, 0, true, "k", "topk") < 0 ||
        parse_int(a[2], &dim, -1, false, "dim", "topk") < 0 ||
        parse_bool(a[3], &largest, true, "largest", "topk") < 0 ||
        parse_bool(a[4], &sorted, true, "sorted", "topk") < 0 ||
        parse_out2(st, is_method ? NULL : a[5], &vo, &io, "topk") < 0) {
        return NULL;
    }
    if (tl_topk(vo, io, tl_py_impl(a[0]), k, dim, largest, sorted, &v, &ix) <
        0) {
        return tl_py_raise(st);
    }
    return vi_result(st, RT_TOPK, v, ix);
}

static PyObject *m_topk(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kw)
{
    return do_topk(self, args, nargs, kw, true);
}
static PyObject *f_topk(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kw)
{
    return do_topk(m, args, nargs, kw, false);
}

static const char *const kth_names[] = {"input", "k", "dim", "keepdim",
                                        "out", NULL};
static const char *const sel_names[] = {"input", "dim", "keepdim", "out",
                                        NULL};

/* kthvalue(k, dim=-1, keepdim), mode(dim=-1, keepdim), median/nanmedian
 * (dim=None: every element, a tensor; else a named tuple). */
static PyObject *do_select(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw, int op,
                           bool is_method)
{
    static const char *const fnames[] = {"kthvalue", "median", "nanmedian",
                                         "mode"};
    static const int kinds[] = {RT_KTHVALUE, RT_MEDIAN, RT_NANMEDIAN,
                                RT_MODE};
    const char *fname = fnames[op];
    const bool kth = op == TL_SELECT_KTH;
    PyObject *a[5];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, kth ? kth_names : sel_names,
                 kth ? 4 : 3, a, is_method, fname, &st) < 0) {
        return NULL;
    }
    PyObject **rest = kth ? a + 2 : a + 1; /* dim, keepdim, out */
    int64_t k = 0, dim;
    bool keepdim;
    tl_tensor_impl *vo, *io, *v, *ix;
    if (kth && parse_int(a[1], &k, 0, true, "k", fname) < 0) {
        return NULL;
    }
    const bool whole = (op == TL_SELECT_MEDIAN ||
                        op == TL_SELECT_NANMEDIAN) &&
                       (!rest[0] || rest[0] == Py_None);
    if (whole) {
        if (rest[1] || (!is_method && rest[2] && rest[2] != Py_None)) {
            PyErr_Format(PyExc_TypeError, "%s(): keepdim and out= need a "
                         "dim", fname);
            return NULL;
        }
        return wrap(st, tl_median_all(tl_py_impl(a[0]),
                                      op == TL_SELECT_NANMEDIAN));
    }
    if (parse_int(rest[0], &dim, -1, false, "dim", fname) < 0 ||
        parse_bool(rest[1], &keepdim, false, "keepdim", fname) < 0 ||
        parse_out2(st, is_method ? NULL : rest[2], &vo, &io, fname) < 0) {
        return NULL;
    }
    if (tl_select(op, vo, io, tl_py_impl(a[0]), k, dim, keepdim, &v, &ix) <
        0) {
        return tl_py_raise(st);
    }
    return vi_result(st, kinds[op], v, ix);
}

#define SEL_FORMS(name, op)                                                 \
    static PyObject *m_##name(PyObject *self, PyObject *const *args,        \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return do_select(self, args, nargs, kw, op, true);                  \
    }                                                                       \
    static PyObject *f_##name(PyObject *m, PyObject *const *args,           \
                              Py_ssize_t nargs, PyObject *kw)               \
    {                                                                       \
        return do_select(m, args, nargs, kw, op, false);                    \
    }

SEL_FORMS(kthvalue, TL_SELECT_KTH)
SEL_FORMS(median, TL_SELECT_MEDIAN)
SEL_FORMS(nanmedian, TL_SELECT_NANMEDIAN)
SEL_FORMS(mode, TL_SELECT_MODE)

/* ---- quantile ------------------------------------------------------------------ */

static const char *const q_names[] = {"input", "q", "dim", "keepdim",
                                      "interpolation", "out", NULL};

static PyObject *do_quantile(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kw, bool nan,
                             bool is_method)
{
    const char *fname = nan ? "nanquantile" : "quantile";
    PyObject *a[6];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, q_names, 4, a, is_method, fname,
                 &st) < 0) {
        return NULL;
    }
    int64_t dim;
    bool keepdim;
    tl_tensor_impl *out;
    if ((a[2] && a[2] != Py_None &&
         parse_int(a[2], &dim, 0, true, "dim", fname) < 0) ||
        parse_bool(a[3], &keepdim, false, "keepdim", fname) < 0 ||
        tl_py_parse_out(st, is_method ? NULL : a[5], &out, fname) < 0) {
        return NULL;
    }
    int interp = TL_INTERP_LINEAR;
    if (a[4] && a[4] != Py_None) {
        static const char *const modes[] = {"linear", "lower", "higher",
                                            "midpoint", "nearest"};
        if (!PyUnicode_Check(a[4])) {
            /* A wrong type is a TypeError (DESIGN.md "Errors"), as
             * PyTorch's; only an unknown name is a bad value. */
            PyErr_Format(PyExc_TypeError, "%s(): interpolation must be a "
                         "str, not %.100s", fname, Py_TYPE(a[4])->tp_name);
            return NULL;
        }
        const char *s = PyUnicode_AsUTF8(a[4]);
        interp = -1;
        for (int i = 0; s && i < 5; i++) {
            if (strcmp(s, modes[i]) == 0) {
                interp = i;
            }
        }
        if (interp < 0) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_ValueError, "%s(): interpolation must be "
                             "one of linear, lower, higher, midpoint or "
                             "nearest, not %R", fname, a[4]);
            }
            return NULL;
        }
    }
    if (!a[1]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'q'",
                     fname);
        return NULL;
    }
    tl_tensor_impl *in = tl_py_impl(a[0]);
    PyObject *qo;
    if (tl_py_is_tensor(st, a[1])) {
        qo = a[1];
        Py_INCREF(qo);
    } else {
        if (PyBool_Check(a[1]) ||
            !(PyFloat_Check(a[1]) || PyLong_Check(a[1]) ||
              PyList_Check(a[1]) || PyTuple_Check(a[1]))) {
            PyErr_Format(PyExc_TypeError, "%s(): q must be a float, a "
                         "sequence of floats or a tensor, not %.100s", fname,
                         Py_TYPE(a[1])->tp_name);
            return NULL;
        }
        const tl_dtype dt = tl_tensor_dtype(in);
        qo = tl_py_tensor_from_data(
            st, a[1],
            dt == TL_DTYPE_FLOAT64 ? TL_DTYPE_FLOAT64 : TL_DTYPE_FLOAT32,
            tl_device_cpu());
        if (!qo) {
            return NULL;
        }
    }
    tl_tensor_impl *r = tl_quantile(out, in, tl_py_impl(qo),
                                    a[2] && a[2] != Py_None ? &dim : NULL,
                                    keepdim, interp, nan);
    Py_DECREF(qo);
    return wrap(st, r);
}

static PyObject *m_quantile(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw)
{
    return do_quantile(self, args, nargs, kw, false, true);
}
static PyObject *f_quantile(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw)
{
    return do_quantile(m, args, nargs, kw, false, false);
}
static PyObject *m_nanquantile(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kw)
{
    return do_quantile(self, args, nargs, kw, true, true);
}
static PyObject *f_nanquantile(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kw)
{
    return do_quantile(m, args, nargs, kw, true, false);
}

/* ---- unique -------------------------------------------------------------------- */

static const char *const uniq_names[] = {"input", "sorted", "return_inverse",
                                         "return_counts", "dim", NULL};
static const char *const uc_names[] = {"input", "return_inverse",
                                       "return_counts", "dim", NULL};

static PyObject *do_unique(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw, bool consecutive,
                           bool is_method)
{
    const char *fname = consecutive ? "unique_consecutive" : "unique";
    PyObject *a[5];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, consecutive ? uc_names : uniq_names,
                 consecutive ? 4 : 5, a, is_method, fname, &st) < 0) {
        return NULL;
    }
    PyObject **o = consecutive ? a : a + 1; /* o[1] inverse, o[2] counts */
    bool srt, ri, rc;
    int64_t dim;
    if ((!consecutive &&
         parse_bool(a[1], &srt, true, "sorted", fname) < 0) ||
        parse_bool(o[1], &ri, false, "return_inverse", fname) < 0 ||
        parse_bool(o[2], &rc, false, "return_counts", fname) < 0 ||
        (o[3] && o[3] != Py_None &&
         parse_int(o[3], &dim, 0, true, "dim", fname) < 0)) {
        return NULL;
    }
    tl_tensor_impl *v = NULL, *inv = NULL, *cnt = NULL;
    if (tl_unique(tl_py_impl(a[0]), consecutive,
                  o[3] && o[3] != Py_None ? &dim : NULL, &v,
                  ri ? &inv : NULL, rc ? &cnt : NULL) < 0) {
        return tl_py_raise(st);
    }
    PyObject *pv = tl_py_wrap(st, v);
    PyObject *pi = inv ? tl_py_wrap(st, inv) : NULL;
    PyObject *pc = cnt ? tl_py_wrap(st, cnt) : NULL;
    if (!pv || (ri && !pi) || (rc && !pc)) {
        Py_XDECREF(pv);
        Py_XDECREF(pi);
        Py_XDECREF(pc);
        return NULL;
    }
    if (!ri && !rc) {
        return pv;
    }
    PyObject *t = PyTuple_New(1 + ri + rc);
    if (!t) {
        Py_DECREF(pv);
        Py_XDECREF(pi);
        Py_XDECREF(pc);
        return NULL;
    }
    int j = 0;
    PyTuple_SET_ITEM(t, j++, pv);
    if (ri) {
        PyTuple_SET_ITEM(t, j++, pi);
    }
    if (rc) {
        PyTuple_SET_ITEM(t, j++, pc);
    }
    return t;
}

static PyObject *m_unique(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_unique(self, args, nargs, kw, false, true);
}
static PyObject *f_unique(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    return do_unique(m, args, nargs, kw, false, false);
}
static PyObject *m_unique_consecutive(PyObject *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kw)
{
    return do_unique(self, args, nargs, kw, true, true);
}
static PyObject *f_unique_consecutive(PyObject *m, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kw)
{
    return do_unique(m, args, nargs, kw, true, false);
}

/* ---- searchsorted, bucketize, isin ------------------------------------------- */

/* o as a tensor: a tensor (new reference) or a Python/NumPy scalar made a
 * 0-d tensor.  Returns: new reference, or NULL. */
static PyObject *as_tensor(tl_mstate *st, PyObject *o, const char *what,
                           const char *fname)
{
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'",
                     fname, what);
        return NULL;
    }
    if (tl_py_is_tensor(st, o)) {
        Py_INCREF(o);
        return o;
    }
    tl_dtype dt;
    if (tl_py_scalar_dtype(o, &dt) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "%s(): %s must be a tensor or a "
                         "number, not %.100s", fname, what,
                         Py_TYPE(o)->tp_name);
        }
        return NULL;
    }
    return tl_py_tensor_from_data(st, o, -1, tl_device_cpu());
}

static int parse_side(PyObject *side, PyObject *righto, bool *right,
                      const char *fname)
{
    if (parse_bool(righto, right, false, "right", fname) < 0) {
        return -1;
    }
    if (!side || side == Py_None) {
        return 0;
    }
    if (!PyUnicode_Check(side)) {
        /* A wrong type is a TypeError (DESIGN.md), as PyTorch's; only an
         * unknown name is a bad value. */
        PyErr_Format(PyExc_TypeError, "%s(): side must be a str, not "
                     "%.100s", fname, Py_TYPE(side)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(side);
    if (!s || (strcmp(s, "left") != 0 && strcmp(s, "right") != 0)) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError, "%s(): side can only be 'left' "
                         "or 'right', not %R", fname, side);
        }
        return -1;
    }
    const bool r = strcmp(s, "right") == 0;
    if (righto && righto != Py_None && *right != r) {
        PyErr_Format(PyExc_ValueError, "%s(): side and right can't be set "
                     "to opposites, got side of %s while right was True",
                     fname, s);
        return -1;
    }
    *right = r;
    return 0;
}

static const char *const ssorted_names[] = {
    "sorted_sequence", "input", "out_int32", "right", "side", "sorter",
    "out", NULL};

static PyObject *f_searchsorted(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kw)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[7];
    if (tl_py_parse_args(args, nargs, kw, ssorted_names, 2, a,
                         "searchsorted") < 0 ||
        check_input(st, a[0], "searchsorted") < 0) {
        return NULL;
    }
    bool i32, right;
    tl_tensor_impl *sorter, *out;
    if (parse_bool(a[2], &i32, false, "out_int32", "searchsorted") < 0 ||
        parse_side(a[4], a[3], &right, "searchsorted") < 0 ||
        parse_opt_tensor(st, a[5], &sorter, "sorter", "searchsorted") < 0 ||
        tl_py_parse_out(st, a[6], &out, "searchsorted") < 0) {
        return NULL;
    }
    PyObject *v = as_tensor(st, a[1], "input", "searchsorted");
    if (!v) {
        return NULL;
    }
    if (!tl_py_is_tensor(st, a[1]) && tl_tensor_ndim(tl_py_impl(a[0])) != 1) {
        Py_DECREF(v);
        PyErr_SetString(st->ShapeError, "searchsorted(): input value can be "
                        "a scalar only when boundaries tensor dimension is "
                        "1");
        return NULL;
    }
    tl_tensor_impl *r = tl_searchsorted(out, tl_py_impl(a[0]), tl_py_impl(v),
                                        right, sorter, i32);
    Py_DECREF(v);
    return wrap(st, r);
}

static const char *const bucket_names[] = {"input", "boundaries",
                                           "out_int32", "right", "out",
                                           NULL};

static PyObject *f_bucketize(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kw)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[5];
    if (tl_py_parse_args(args, nargs, kw, bucket_names, 2, a, "bucketize") <
        0) {
        return NULL;
    }
    bool i32, right;
    tl_tensor_impl *out;
    if (!a[1] || !tl_py_is_tensor(st, a[1])) {
        PyErr_SetString(PyExc_TypeError, "bucketize(): boundaries must be a "
                        "tensor");
        return NULL;
    }
    if (parse_bool(a[2], &i32, false, "out_int32", "bucketize") < 0 ||
        parse_bool(a[3], &right, false, "right", "bucketize") < 0 ||
        tl_py_parse_out(st, a[4], &out, "bucketize") < 0) {
        return NULL;
    }
    tl_tensor_impl *b = tl_py_impl(a[1]);
    if (tl_tensor_ndim(b) != 1) {
        PyErr_Format(st->ShapeError, "bucketize(): boundaries tensor must "
                     "be 1 dimension, but got dim(%d)", tl_tensor_ndim(b));
        return NULL;
    }
    PyObject *v = as_tensor(st, a[0], "input", "bucketize");
    if (!v) {
        return NULL;
    }
    tl_tensor_impl *r = tl_searchsorted(out, b, tl_py_impl(v), right, NULL,
                                        i32);
    Py_DECREF(v);
    return wrap(st, r);
}

static const char *const isin_names[] = {"elements", "test_elements",
                                         "assume_unique", "invert", NULL};

static PyObject *f_isin(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kw)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[4];
    bool au, inv;
    if (tl_py_parse_args(args, nargs, kw, isin_names, 2, a, "isin") < 0 ||
        parse_bool(a[2], &au, false, "assume_unique", "isin") < 0 ||
        parse_bool(a[3], &inv, false, "invert", "isin") < 0) {
        return NULL;
    }
    if (a[0] && a[1] && !tl_py_is_tensor(st, a[0]) &&
        !tl_py_is_tensor(st, a[1])) {
        PyErr_SetString(PyExc_TypeError, "isin(): elements and "
                        "test_elements cannot both be scalars");
        return NULL;
    }
    PyObject *e = as_tensor(st, a[0], "elements", "isin");
    if (!e) {
        return NULL;
    }
    PyObject *t = as_tensor(st, a[1], "test_elements", "isin");
    if (!t) {
        Py_DECREF(e);
        return NULL;
    }
    tl_tensor_impl *r = tl_isin(NULL, tl_py_impl(e), tl_py_impl(t), inv);
    Py_DECREF(e);
    Py_DECREF(t);
    return wrap(st, r);
}

/* ---- nonzero, argwhere, count_nonzero ----------------------------------------- */

/* The columns of an (n, ndim) nonzero result as a tuple of 1-d tensors.
 * Consumes nz.  Returns: new reference, or NULL. */
static PyObject *as_tuple(tl_mstate *st, tl_tensor_impl *nz, int ndim)
{
    const int cols = ndim ? ndim : 1;
    PyObject *t = PyTuple_New(cols);
    if (!t) {
        tl_tensor_decref(nz);
        return NULL;
    }
    for (int j = 0; j < cols; j++) {
        tl_tensor_impl *c;
        if (ndim == 0) {
            /* a 0-d input: one column of zeros, one per nonzero */
            const int64_t n = tl_tensor_sizes(nz)[0];
            c = tl_tensor_empty(1, &n, TL_DTYPE_INT64, tl_device_cpu(),
                                TL_MEMKIND_DEFAULT);
            tl_scalar z = tl_scalar_int(0);
            if (c && n && tl_op_fill_(c, &z) < 0) {
                tl_tensor_decref(c);
                c = NULL;
            }
        } else {
            tl_tensor_impl *col = tl_view_select(nz, 1, j);
            c = col ? tl_op_contiguous(col, TL_FORMAT_CONTIGUOUS) : NULL;
            tl_tensor_decref(col);
        }
        PyObject *pc = c ? tl_py_wrap(st, c) : tl_py_raise(st);
        if (!pc) {
            Py_DECREF(t);
            tl_tensor_decref(nz);
            return NULL;
        }
        PyTuple_SET_ITEM(t, j, pc);
    }
    tl_tensor_decref(nz);
    return t;
}

static const char *const nz_names[] = {"input", "out", "as_tuple", NULL};

static PyObject *do_nonzero(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw, bool is_method,
                            bool argwhere)
{
    const char *fname = argwhere ? "argwhere" : "nonzero";
    PyObject *a[3];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, nz_names, 1, a, is_method, fname,
                 &st) < 0) {
        return NULL;
    }
    bool tup;
    tl_tensor_impl *out;
    if (parse_bool(argwhere ? NULL : a[2], &tup, false, "as_tuple", fname) <
            0 ||
        tl_py_parse_out(st, (is_method || argwhere) ? NULL : a[1], &out,
                        fname) < 0) {
        return NULL;
    }
    if (argwhere && (a[1] || a[2])) {
        PyErr_Format(PyExc_TypeError, "argwhere() takes only input");
        return NULL;
    }
    tl_tensor_impl *in = tl_py_impl(a[0]);
    if (tl_tensor_device(in).type != TL_DEVICE_CPU) {
        PyErr_Format(PyExc_NotImplementedError, "%s() is not implemented "
                     "for CUDA tensors", fname);
        return NULL;
    }
    tl_tensor_impl *nz = tl_index_nonzero(in);
    if (!nz) {
        return tl_py_raise(st);
    }
    if (tup) {
        if (out) {
            tl_tensor_decref(nz);
            PyErr_SetString(PyExc_TypeError, "nonzero(): as_tuple=True "
                            "takes no out=");
            return NULL;
        }
        return as_tuple(st, nz, tl_tensor_ndim(in));
    }
    if (out) {
        tl_tensor_decref(nz);
        return wrap(st, tl_nonzero(out, in));
    }
    return tl_py_wrap(st, nz);
}

static PyObject *m_nonzero(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_nonzero(self, args, nargs, kw, true, false);
}
static PyObject *f_nonzero(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kw)
{
    return do_nonzero(m, args, nargs, kw, false, false);
}
static PyObject *m_argwhere(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw)
{
    return do_nonzero(self, args, nargs, kw, true, true);
}
static PyObject *f_argwhere(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kw)
{
    return do_nonzero(m, args, nargs, kw, false, true);
}

static const char *const cnz_names[] = {"input", "dim", NULL};

static PyObject *do_count_nonzero(PyObject *self, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kw,
                                  bool is_method)
{
    PyObject *a[2];
    tl_mstate *st;
    if (parse_mf(self, args, nargs, kw, cnz_names, 2, a, is_method,
                 "count_nonzero", &st) < 0) {
        return NULL;
    }
    int64_t dims[TL_MAX_DIMS];
    int nd = -1;
    PyObject *o = a[1];
    if (o && o != Py_None) {
        if (PyTuple_Check(o) || PyList_Check(o)) {
            Py_ssize_t n = PySequence_Size(o);
            if (n > TL_MAX_DIMS) {
                PyErr_SetString(PyExc_IndexError, "count_nonzero(): too many "
                                "dims");
                return NULL;
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                if (parse_int(PySequence_Fast_GET_ITEM(o, i), &dims[i], 0,
                              true, "dim", "count_nonzero") < 0) {
                    return NULL;
                }
            }
            nd = (int)n;
        } else {
            if (parse_int(o, &dims[0], 0, true, "dim", "count_nonzero") < 0) {
                return NULL;
            }
            nd = 1;
        }
    }
    return wrap(st, tl_count_nonzero(tl_py_impl(a[0]), nd < 0 ? 0 : nd,
                                     nd < 0 ? NULL : dims));
}

static PyObject *m_count_nonzero(PyObject *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kw)
{
    return do_count_nonzero(self, args, nargs, kw, true);
}
static PyObject *f_count_nonzero(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kw)
{
    return do_count_nonzero(m, args, nargs, kw, false);
}

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
    {"sort", CF(m_sort), FASTKW,
     "sort($self, dim=-1, descending=False, *, stable=False)\n--\n\n"
     "Sorted values along dim and their indices: a (values, indices) named "
     "tuple.  Always stable; NaN sorts as the largest value."},
    {"argsort", CF(m_argsort), FASTKW,
     "argsort($self, dim=-1, descending=False, stable=False)\n--\n\n"
     "The indices that sort self along dim (stable)."},
    {"msort", CF(m_msort), FASTKW,
     "msort($self)\n--\n\nself sorted along dim 0 (values only)."},
    {"topk", CF(m_topk), FASTKW,
     "topk($self, k, dim=-1, largest=True, sorted=True)\n--\n\n"
     "The k largest (smallest) elements along dim and their indices."},
    {"kthvalue", CF(m_kthvalue), FASTKW,
     "kthvalue($self, k, dim=-1, keepdim=False)\n--\n\n"
     "The k-th smallest element along dim (k from 1) and its index."},
    {"median", CF(m_median), FASTKW,
     "median($self, dim=None, keepdim=False)\n--\n\n"
     "The lower median (NaN if any): of every element (dim=None), or "
     "(values, indices) along dim."},
    {"nanmedian", CF(m_nanmedian), FASTKW,
     "nanmedian($self, dim=None, keepdim=False)\n--\n\n"
     "The lower median of the non-NaN elements."},
    {"mode", CF(m_mode), FASTKW,
     "mode($self, dim=-1, keepdim=False)\n--\n\n"
     "The most frequent value along dim (the smallest of ties) and its "
     "last index."},
    {"quantile", CF(m_quantile), FASTKW,
     "quantile($self, q, dim=None, keepdim=False, *, "
     "interpolation='linear')\n--\n\n"
     "The q-th quantiles (q in [0, 1]) over dim (None: every element)."},
    {"nanquantile", CF(m_nanquantile), FASTKW,
     "nanquantile($self, q, dim=None, keepdim=False, *, "
     "interpolation='linear')\n--\n\n"
     "quantile() of the non-NaN elements."},
    {"unique", CF(m_unique), FASTKW,
     "unique($self, sorted=True, return_inverse=False, "
     "return_counts=False, dim=None)\n--\n\n"
     "The distinct values (or slices along dim), sorted; optionally the "
     "inverse indices and the counts."},
    {"unique_consecutive", CF(m_unique_consecutive), FASTKW,
     "unique_consecutive($self, return_inverse=False, "
     "return_counts=False, dim=None)\n--\n\n"
     "Collapses runs of equal consecutive values (or slices)."},
    {"nonzero", CF(m_nonzero), FASTKW,
     "nonzero($self, *, as_tuple=False)\n--\n\n"
     "Indices of the nonzero elements: an (n, ndim) int64 tensor, or a "
     "tuple of ndim 1-d tensors with as_tuple=True."},
    {"argwhere", CF(m_argwhere), FASTKW,
     "argwhere($self)\n--\n\nnonzero() as an (n, ndim) tensor."},
    {"count_nonzero", CF(m_count_nonzero), FASTKW,
     "count_nonzero($self, dim=None)\n--\n\n"
     "The number of nonzero elements over dim (int64)."},
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
    {"_logsumexp", CF(f_logsumexp_dim), FASTKW,
     "_logsumexp(input, dim)\n--\n\n"
     "logsumexp over one non-empty dim of a floating tensor (the fused "
     "kernel under tensorlib.logsumexp)."},
    {"sort", CF(f_sort), FASTKW,
     "sort(input, dim=-1, descending=False, *, stable=False, out=None)"
     "\n--\n\n"
     "Sorted values along dim and their indices (stable; NaN largest)."},
    {"argsort", CF(f_argsort), FASTKW,
     "argsort(input, dim=-1, descending=False, stable=False, *, out=None)"
     "\n--\n\nThe indices that sort input along dim (stable)."},
    {"msort", CF(f_msort), FASTKW,
     "msort(input, *, out=None)\n--\n\ninput sorted along dim 0."},
    {"topk", CF(f_topk), FASTKW,
     "topk(input, k, dim=-1, largest=True, sorted=True, *, out=None)"
     "\n--\n\nThe k largest (smallest) elements along dim, with indices."},
    {"kthvalue", CF(f_kthvalue), FASTKW,
     "kthvalue(input, k, dim=-1, keepdim=False, *, out=None)\n--\n\n"
     "The k-th smallest element along dim and its index."},
    {"median", CF(f_median), FASTKW,
     "median(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "The lower median (NaN if any), of every element or along dim."},
    {"nanmedian", CF(f_nanmedian), FASTKW,
     "nanmedian(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
     "The lower median of the non-NaN elements."},
    {"mode", CF(f_mode), FASTKW,
     "mode(input, dim=-1, keepdim=False, *, out=None)\n--\n\n"
     "The most frequent value along dim and its last index."},
    {"quantile", CF(f_quantile), FASTKW,
     "quantile(input, q, dim=None, keepdim=False, *, "
     "interpolation='linear', out=None)\n--\n\n"
     "The q-th quantiles; interpolation linear, lower, higher, midpoint "
     "or nearest."},
    {"nanquantile", CF(f_nanquantile), FASTKW,
     "nanquantile(input, q, dim=None, keepdim=False, *, "
     "interpolation='linear', out=None)\n--\n\n"
     "quantile() of the non-NaN elements."},
    {"unique", CF(f_unique), FASTKW,
     "unique(input, sorted=True, return_inverse=False, "
     "return_counts=False, dim=None)\n--\n\n"
     "The distinct values (or slices along dim), sorted."},
    {"unique_consecutive", CF(f_unique_consecutive), FASTKW,
     "unique_consecutive(input, return_inverse=False, return_counts=False, "
     "dim=None)\n--\n\nCollapses runs of equal consecutive values."},
    {"searchsorted", CF(f_searchsorted), FASTKW,
     "searchsorted(sorted_sequence, input, *, out_int32=False, right=False, "
     "side=None, sorter=None, out=None)\n--\n\n"
     "Where input would be inserted into the sorted last dim of "
     "sorted_sequence to keep it sorted."},
    {"bucketize", CF(f_bucketize), FASTKW,
     "bucketize(input, boundaries, *, out_int32=False, right=False, "
     "out=None)\n--\n\n"
     "The bucket of each element of input among 1-d boundaries."},
    {"isin", CF(f_isin), FASTKW,
     "isin(elements, test_elements, *, assume_unique=False, invert=False)"
     "\n--\n\nWhether each element is in test_elements (bool)."},
    {"nonzero", CF(f_nonzero), FASTKW,
     "nonzero(input, *, out=None, as_tuple=False)\n--\n\n"
     "Indices of the nonzero elements (as_tuple: one tensor per dim)."},
    {"argwhere", CF(f_argwhere), FASTKW,
     "argwhere(input)\n--\n\nIndices of the nonzero elements, (n, ndim)."},
    {"count_nonzero", CF(f_count_nonzero), FASTKW,
     "count_nonzero(input, dim=None)\n--\n\n"
     "The number of nonzero elements over dim (int64)."},
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
