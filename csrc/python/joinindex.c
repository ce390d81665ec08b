/* csrc/python/joinindex.c — Python bindings of joining (cat, concat,
 * concatenate, stack), the dim-indexing operations (gather, scatter,
 * scatter_add, scatter_reduce, index_select, index_add, index_copy,
 * index_fill and their in-place forms) and linspace/logspace: module
 * functions and Tensor methods, in this file's own tables, installed by
 * tl_joinindex_init.  The work happens in csrc/core/join.c, index_ops.c
 * and creation_ops.c; the compositions (hstack, tile, take, ...) are in
 * tensorlib/_joinindex.py. */
#include <stdio.h>
#include <string.h>

#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/ops.h"

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

/* Returns: the result wrapped, or NULL with the core error raised. */
static PyObject *wrap(tl_mstate *st, tl_tensor_impl *r)
{
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static tl_mstate *mod_state(PyObject *m)
{
    return tl_state_of_module(m);
}

/* A required tensor argument.  Returns: borrowed impl, or NULL with
 * TypeError. */
static tl_tensor_impl *need_tensor(tl_mstate *st, PyObject *o,
                                   const char *fname, const char *what)
{
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'%s'", fname, what);
        return NULL;
    }
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a "
                     "Tensor, not %.100s", fname, what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return tl_py_impl(o);
}

/* A required int argument (not bool).  Returns 0 / -1. */
static int need_int(PyObject *o, int64_t *v, const char *fname,
                    const char *what)
{
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'%s'", fname, what);
        return -1;
    }
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, "
                     "not %.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    return tl_py_int64(o, v, what);
}

/* A bool flag (absent: dflt).  Returns 0 / -1. */
static int opt_bool(PyObject *o, bool dflt, bool *v, const char *fname,
                    const char *what)
{
    *v = dflt;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be bool, "
                     "not %.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    *v = o == Py_True;
    return 0;
}

/* A scalar value: a Python/NumPy number or a 0-dim tensor.
 * Returns 0 / -1 with TypeError. */
static int need_scalar(tl_mstate *st, PyObject *o, tl_scalar *s,
                       const char *fname, const char *what)
{
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'%s'", fname, what);
        return -1;
    }
    if (tl_py_is_tensor(st, o)) {
        tl_tensor_impl *t = tl_py_impl(o);
        if (t->ndim != 0) {
            tl_error(TL_ERR_SHAPE, "%s(): only supports a 0-dimensional "
                     "%s tensor, but got a tensor with %d dimensions",
                     fname, what, t->ndim);
            return tl_py_raise_int(st);
        }
        return tl_tensor_item(t, s) < 0 ? tl_py_raise_int(st) : 0;
    }
    int r = tl_py_as_scalar(o, s);
    if (r < 0) {
        return -1;
    }
    if (r == 0) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a "
                     "Number, not %.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    return 0;
}

/* dim, absent -> dflt. */
static int opt_dim(PyObject *o, int64_t dflt, int64_t *v, const char *fname)
{
    *v = dflt;
    if (!o) {
        return 0;
    }
    return need_int(o, v, fname, "dim");
}

/* ---- cat, stack --------------------------------------------------------- */

/* The tensors of a list/tuple, into a PyMem array of borrowed impls (kept
 * alive by *seq, a new reference the caller drops).  Returns n / -1. */
static Py_ssize_t parse_tensors(tl_mstate *st, PyObject *o, PyObject **seq,
                                tl_tensor_impl ***impls, const char *fname)
{
    *seq = NULL;
    *impls = NULL;
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'tensors'", fname);
        return -1;
    }
    if (tl_py_is_tensor(st, o) || !(PyTuple_Check(o) || PyList_Check(o))) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'tensors' must be a "
                     "tuple or list of Tensors, not %.100s", fname,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *seq = PySequence_Fast(o, "tensors");
    if (!*seq) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(*seq);
    PyObject **items = PySequence_Fast_ITEMS(*seq);
    *impls = tl_py_mem_malloc((size_t)(n ? n : 1) * sizeof(tl_tensor_impl *));
    if (!*impls) {
        Py_CLEAR(*seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!tl_py_is_tensor(st, items[i])) {
            PyErr_Format(PyExc_TypeError, "%s(): expected a sequence of "
                         "Tensors, but element %zd is %.100s", fname, i,
                         Py_TYPE(items[i])->tp_name);
            PyMem_Free(*impls);
            *impls = NULL;
            Py_CLEAR(*seq);
            return -1;
        }
        (*impls)[i] = tl_py_impl(items[i]);
    }
    if (n > INT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s(): too many tensors", fname);
        PyMem_Free(*impls);
        *impls = NULL;
        Py_CLEAR(*seq);
        return -1;
    }
    return n;
}

static PyObject *join(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *fname, bool stack)
{
    static const char *const names[] = {"tensors", "dim", "out", "axis",
                                        NULL};
    tl_mstate *st = mod_state(m);
    PyObject *a[4], *seq;
    tl_tensor_impl **ts, *out;
    int64_t dim;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, fname) < 0) {
        return NULL;
    }
    if (a[1] && a[3]) {
        PyErr_Format(PyExc_TypeError, "%s(): give dim or axis, not both",
                     fname);
        return NULL;
    }
    if (opt_dim(a[1] ? a[1] : a[3], 0, &dim, fname) < 0 ||
        tl_py_parse_out(st, a[2], &out, fname) < 0) {
        return NULL;
    }
    Py_ssize_t n = parse_tensors(st, a[0], &seq, &ts, fname);
    if (n < 0) {
        return NULL;
    }
    tl_tensor_impl *r = stack ? tl_op_stack(out, (int)n, ts, dim)
                              : tl_op_cat(out, (int)n, ts, dim);
    PyMem_Free(ts);
    Py_DECREF(seq);
    return wrap(st, r);
}

static PyObject *py_cat(PyObject *m, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    return join(m, args, nargs, kwnames, "cat", false);
}
static PyObject *py_concat(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    return join(m, args, nargs, kwnames, "concat", false);
}
static PyObject *py_concatenate(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    return join(m, args, nargs, kwnames, "concatenate", false);
}
static PyObject *py_stack(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return join(m, args, nargs, kwnames, "stack", true);
}

/* ---- gather, index_select ----------------------------------------------- */

/* a: dim, index, extra (sparse_grad or nothing), out. */
static PyObject *do_gather(tl_mstate *st, PyObject *self, PyObject **a,
                           bool select)
{
    const char *fname = select ? "index_select" : "gather";
    int64_t dim;
    bool sg;
    tl_tensor_impl *out;
    tl_tensor_impl *t = need_tensor(st, self, fname, "input");
    if (!t || need_int(a[0], &dim, fname, "dim") < 0) {
        return NULL;
    }
    tl_tensor_impl *idx = need_tensor(st, a[1], fname, "index");
    if (!idx || opt_bool(a[2], false, &sg, fname, "sparse_grad") < 0 ||
        tl_py_parse_out(st, a[3], &out, fname) < 0) {
        return NULL;
    }
    return wrap(st, select ? tl_op_index_select(out, t, dim, idx)
                           : tl_op_gather(out, t, dim, idx));
}

static PyObject *f_gather(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "dim", "index",
                                        "sparse_grad", "out", NULL};
    PyObject *a[5];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "gather") < 0) {
        return NULL;
    }
    return do_gather(mod_state(m), a[0], a + 1, false);
}
static PyObject *m_gather(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", "index", "sparse_grad", NULL};
    PyObject *a[4] = {NULL, NULL, NULL, NULL};
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "gather") < 0) {
        return NULL;
    }
    return do_gather(tl_state_of(self), self, a, false);
}
static PyObject *f_index_select(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "dim", "index", "out",
                                        NULL};
    PyObject *a[4], *b[4];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a,
                         "index_select") < 0) {
        return NULL;
    }
    b[0] = a[1];
    b[1] = a[2];
    b[2] = NULL;
    b[3] = a[3];
    return do_gather(mod_state(m), a[0], b, true);
}
static PyObject *m_index_select(PyObject *self, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", "index", NULL};
    PyObject *a[4] = {NULL, NULL, NULL, NULL};
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "index_select") < 0) {
        return NULL;
    }
    return do_gather(tl_state_of(self), self, a, true);
}

/* ---- the scatter family ------------------------------------------------- */

enum { OP_SCATTER, OP_SCATTER_ADD, OP_SCATTER_REDUCE, OP_INDEX_ADD,
       OP_INDEX_COPY, OP_INDEX_FILL, OP_COUNT };

static const char *const op_names[OP_COUNT] = {
    "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
    "index_fill"};

/* Argument names after input/self, per op; the number that may come
 * positionally. */
static const char *const scatter_names[] = {"dim", "index", "src", "value",
                                            "reduce", NULL};
static const char *const scatter_add_names[] = {"dim", "index", "src",
                                                NULL};
static const char *const scatter_reduce_names[] = {
    "dim", "index", "src", "reduce", "include_self", NULL};
static const char *const index_add_names[] = {"dim", "index", "source",
                                              "alpha", NULL};
static const char *const index_copy_names[] = {"dim", "index", "source",
                                               NULL};
static const char *const index_fill_names[] = {"dim", "index", "value",
                                               NULL};
static const char *const *const op_argnames[OP_COUNT] = {
    scatter_names, scatter_add_names, scatter_reduce_names,
    index_add_names, index_copy_names, index_fill_names};
static const int op_npos[OP_COUNT] = {3, 3, 4, 3, 3, 3};

static int parse_reduce(PyObject *o, bool legacy, int *out,
                        const char *fname)
{
    static const char *const modern[] = {"sum", "prod", "mean", "amax",
                                         "amin"};
    static const int codes[] = {TL_SCATTER_SUM, TL_SCATTER_PROD,
                                TL_SCATTER_MEAN, TL_SCATTER_AMAX,
                                TL_SCATTER_AMIN};
    *out = TL_SCATTER_NONE;
    if (!o || (legacy && o == Py_None)) {
        if (!legacy) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                         "'reduce'", fname);
            return -1;
        }
        return 0;
    }
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'reduce' must be str, "
                     "not %.100s", fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(o);
    if (!s) {
        return -1;
    }
    if (legacy) {
        if (strcmp(s, "add") == 0) {
            *out = TL_SCATTER_SUM;
            return 0;
        }
        if (strcmp(s, "multiply") == 0) {
            *out = TL_SCATTER_PROD;
            return 0;
        }
        PyErr_Format(PyExc_ValueError, "%s(): reduce argument must be "
                     "either add or multiply, got '%s'", fname, s);
        return -1;
    }
    for (int i = 0; i < 5; i++) {
        if (strcmp(s, modern[i]) == 0) {
            *out = codes[i];
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "%s(): reduce argument must be either "
                 "sum, prod, mean, amax or amin, got '%s'", fname, s);
    return -1;
}

/* The shared body: a holds op_argnames[op]'s values.  In place writes
 * self; otherwise a clone of self. */
static PyObject *do_scatter(tl_mstate *st, PyObject *self, PyObject **a,
                            int op, bool inplace)
{
    char fname[32];
    snprintf(fname, sizeof fname, "%s%s", op_names[op], inplace ? "_" : "");
    int64_t dim;
    tl_tensor_impl *t = need_tensor(st, self, fname, "input");
    if (!t || need_int(a[0], &dim, fname, "dim") < 0) {
        return NULL;
    }
    tl_tensor_impl *idx = need_tensor(st, a[1], fname, "index");
    if (!idx) {
        return NULL;
    }
    PyObject *srco = a[2], *valo = NULL;
    int reduce = TL_SCATTER_NONE;
    bool include_self = true;
    tl_scalar alpha = tl_scalar_int(1);
    bool has_alpha = false;
    switch (op) {
    case OP_SCATTER:
        if (srco && a[3]) {
            PyErr_Format(PyExc_TypeError, "%s(): give src or value, not "
                         "both", fname);
            return NULL;
        }
        if (srco && !tl_py_is_tensor(st, srco)) {
            valo = srco;
            srco = NULL;
        } else if (!srco) {
            valo = a[3];
            if (!valo) {
                PyErr_Format(PyExc_TypeError, "%s() missing required "
                             "argument 'src' or 'value'", fname);
                return NULL;
            }
        }
        if (parse_reduce(a[4], true, &reduce, fname) < 0) {
            return NULL;
        }
        break;
    case OP_SCATTER_ADD:
        reduce = TL_SCATTER_SUM;
        break;
    case OP_SCATTER_REDUCE:
        if (parse_reduce(a[3], false, &reduce, fname) < 0 ||
            opt_bool(a[4], true, &include_self, fname, "include_self") < 0) {
            return NULL;
        }
        break;
    case OP_INDEX_ADD:
        reduce = TL_SCATTER_SUM;
        if (a[3]) {
            if (need_scalar(st, a[3], &alpha, fname, "alpha") < 0) {
                return NULL;
            }
            has_alpha = true;
        }
        break;
    case OP_INDEX_FILL:
        valo = srco;
        srco = NULL;
        break;
    default:
        break;
    }
    tl_scalar value;
    tl_tensor_impl *src = NULL;
    if (valo) {
        if (need_scalar(st, valo, &value, fname, "value") < 0) {
            return NULL;
        }
    } else if (!(src = need_tensor(st, srco, fname,
                                   op >= OP_INDEX_ADD ? "source" : "src"))) {
        return NULL;
    }
    tl_tensor_impl *scaled = NULL, *dst = NULL;
    if (has_alpha && src->dtype != t->dtype) {
        /* Refused before scaling: source * alpha could promote an int64
         * source to self's float dtype and slip past the core's check,
         * so index_add(f32, ..., i64, alpha=2.0) was accepted while the
         * same call without alpha is refused. */
        tl_error(TL_ERR_TYPE, "%s(): self (%s) and source (%s) must have "
                 "the same scalar type", fname,
                 tl_dtype_info_of((tl_dtype)t->dtype)->name,
                 tl_dtype_info_of((tl_dtype)src->dtype)->name);
        return tl_py_raise(st);
    }
    if (has_alpha && !(alpha.kind != TL_KIND_COMPLEX && alpha.kind !=
                       TL_KIND_FLOAT && alpha.v.i == 1)) {
        tl_tensor_impl *at = tl_scalar_to_tensor(&alpha);
        tl_tensor_impl *prod = at ? tl_op_binary(TL_BINARY_MUL, NULL, src,
                                                 at, NULL) : NULL;
        tl_tensor_decref(at);
        if (!prod) {
            return tl_py_raise(st);
        }
        if (prod->dtype != t->dtype) {
            tl_tensor_decref(prod);
            tl_error(TL_ERR_TYPE, "%s(): alpha of this type cannot be "
                     "applied to a %s source", fname,
                     tl_dtype_info_of((tl_dtype)src->dtype)->name);
            return tl_py_raise(st);
        }
        scaled = prod;
        src = prod;
    }
    if (!inplace && op <= OP_SCATTER_REDUCE) {
        dst = tl_op_scatter(t, dim, idx, src, valo ? &value : NULL, reduce,
                            include_self);
        tl_tensor_decref(scaled);
        return wrap(st, dst);
    }
    if (inplace) {
        dst = t;
        tl_tensor_incref(dst);
    } else {
        dst = tl_op_clone(t, TL_FORMAT_PRESERVE);
        if (!dst) {
            tl_tensor_decref(scaled);
            return tl_py_raise(st);
        }
    }
    int rc;
    if (op <= OP_SCATTER_REDUCE) {
        rc = tl_op_scatter_(dst, dim, idx, src, valo ? &value : NULL, reduce,
                            include_self);
    } else {
        rc = tl_op_index_scatter_(dst, dim, idx, src, valo ? &value : NULL,
                                  reduce, true, op_names[op]);
    }
    tl_tensor_decref(scaled);
    if (rc < 0) {
        tl_tensor_decref(dst);
        return tl_py_raise(st);
    }
    return tl_py_wrap(st, dst);
}

static PyObject *scatter_fn(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, int op)
{
    const char *const *inner = op_argnames[op];
    const char *names[8];
    names[0] = "input";
    int k = 0;
    while (inner[k]) {
        names[k + 1] = inner[k];
        k++;
    }
    names[k + 1] = NULL;
    PyObject *a[8];
    if (tl_py_parse_args(args, nargs, kwnames, names, op_npos[op] + 1, a,
                         op_names[op]) < 0) {
        return NULL;
    }
    return do_scatter(mod_state(m), a[0], a + 1, op, false);
}

static PyObject *scatter_meth(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames, int op,
                              bool inplace)
{
    PyObject *a[8];
    if (tl_py_parse_args(args, nargs, kwnames, op_argnames[op], op_npos[op],
                         a, op_names[op]) < 0) {
        return NULL;
    }
    return do_scatter(tl_state_of(self), self, a, op, inplace);
}

#define SCATTER_ENTRIES(NAME, OP)                                           \
    static PyObject *f_##NAME(PyObject *m, PyObject *const *args,          \
                              Py_ssize_t nargs, PyObject *kwnames)         \
    {                                                                      \
        return scatter_fn(m, args, nargs, kwnames, OP);                    \
    }                                                                      \
    static PyObject *m_##NAME(PyObject *self, PyObject *const *args,       \
                              Py_ssize_t nargs, PyObject *kwnames)         \
    {                                                                      \
        return scatter_meth(self, args, nargs, kwnames, OP, false);        \
    }                                                                      \
    static PyObject *m_##NAME##_(PyObject *self, PyObject *const *args,    \
                                 Py_ssize_t nargs, PyObject *kwnames)      \
    {                                                                      \
        return scatter_meth(self, args, nargs, kwnames, OP, true);         \
    }

SCATTER_ENTRIES(scatter, OP_SCATTER)
SCATTER_ENTRIES(scatter_add, OP_SCATTER_ADD)
SCATTER_ENTRIES(scatter_reduce, OP_SCATTER_REDUCE)
SCATTER_ENTRIES(index_add, OP_INDEX_ADD)
SCATTER_ENTRIES(index_copy, OP_INDEX_COPY)
SCATTER_ENTRIES(index_fill, OP_INDEX_FILL)

/* ---- linspace, logspace ------------------------------------------------- */

static PyObject *spaced(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, bool log)
{
    static const char *const lin_names[] = {
        "start", "end", "steps", "out", "dtype", "layout", "device",
        "requires_grad", NULL};
    static const char *const log_names[] = {
        "start", "end", "steps", "base", "out", "dtype", "layout", "device",
        "requires_grad", NULL};
    const char *fname = log ? "logspace" : "linspace";
    tl_mstate *st = mod_state(m);
    PyObject *a[9];
    if (tl_py_parse_args(args, nargs, kwnames, log ? log_names : lin_names,
                         log ? 4 : 3, a, fname) < 0) {
        return NULL;
    }
    PyObject **k = log ? a + 4 : a + 3; /* out, dtype, layout, device, rg */
    tl_scalar s0, s1, base = tl_scalar_float(10.0);
    int64_t steps;
    tl_tensor_impl *out;
    if (need_scalar(st, a[0], &s0, fname, "start") < 0 ||
        need_scalar(st, a[1], &s1, fname, "end") < 0 ||
        need_int(a[2], &steps, fname, "steps") < 0 ||
        (log && a[3] && need_scalar(st, a[3], &base, fname, "base") < 0) ||
        tl_py_parse_out(st, k[0], &out, fname) < 0) {
        return NULL;
    }
    bool cplx = s0.kind == TL_KIND_COMPLEX || s1.kind == TL_KIND_COMPLEX;
    tl_dtype dt = out ? (tl_dtype)out->dtype
                      : (cplx ? TL_DEFAULT_COMPLEX : TL_DEFAULT_FLOAT);
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_dtype(st, k[1], &dt) < 0 ||
        tl_py_parse_device(st, k[3], &dev) < 0) {
        return NULL;
    }
    if (dev.type != TL_DEVICE_CPU) {
        PyErr_Format(PyExc_NotImplementedError, "%s() on a CUDA device is "
                     "not implemented in tensorlib (make it on the CPU and "
                     "move it with .to())", fname);
        return NULL;
    }
    double b = 0.0;
    if (log) {
        b = base.kind == TL_KIND_FLOAT ? base.v.f
            : base.kind == TL_KIND_UINT ? (double)base.v.u
                                        : (double)base.v.i;
        if (!(b > 0)) {
            /* (PyErr_Format has no %g: Python 3.12 raises SystemError) */
            char num[32];
            snprintf(num, sizeof num, "%g", b);
            PyErr_Format(PyExc_ValueError, "logspace(): base must be "
                         "positive here, got %s", num);
            return NULL;
        }
    }
    tl_tensor_impl *r = tl_op_linspace(&s0, &s1, steps, b, dt);
    if (r && out) {
        tl_tensor_impl *o = NULL;
        if (out->ndim == 1 && out->sizes[0] == steps) {
            o = tl_op_copy_(out, r) == 0 ? out : NULL;
        } else if (out->numel == 0 && !out->base &&
                   out->storage_offset == 0) {
            o = (tl_tensor_resize_(out, 1, &steps) == 0 &&
                 tl_op_copy_(out, r) == 0) ? out : NULL;
        } else {
            tl_error(TL_ERR_SHAPE, "%s(): out must be 1-D with %lld "
                     "elements (or empty), but has %d dims and %lld "
                     "elements", fname, (long long)steps, out->ndim,
                     (long long)out->numel);
        }
        tl_tensor_decref(r);
        if (o) {
            tl_tensor_incref(o);
        }
        r = o;
    }
    return wrap(st, r);
}

static PyObject *py_linspace(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    return spaced(m, args, nargs, kwnames, false);
}
static PyObject *py_logspace(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    return spaced(m, args, nargs, kwnames, true);
}

/* ---- complex, polar, empty_strided -------------------------------------- */

static PyObject *pair_op(PyObject *m, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames, bool polar)
{
    static const char *const cnames[] = {"real", "imag", "out", NULL};
    static const char *const pnames[] = {"abs", "angle", "out", NULL};
    const char *fname = polar ? "polar" : "complex";
    tl_mstate *st = mod_state(m);
    PyObject *a[3];
    tl_tensor_impl *out;
    if (tl_py_parse_args(args, nargs, kwnames, polar ? pnames : cnames, 2,
                         a, fname) < 0) {
        return NULL;
    }
    tl_tensor_impl *x = need_tensor(st, a[0], fname, polar ? "abs" : "real");
    if (!x) {
        return NULL;
    }
    tl_tensor_impl *y = need_tensor(st, a[1], fname,
                                    polar ? "angle" : "imag");
    if (!y || tl_py_parse_out(st, a[2], &out, fname) < 0) {
        return NULL;
    }
    tl_tensor_impl *r = polar ? tl_op_polar(x, y) : tl_op_complex(x, y);
    if (r && out) {
        tl_tensor_impl *o = NULL;
        bool same = out->ndim == r->ndim &&
                    memcmp(out->sizes, r->sizes,
                           (size_t)r->ndim * sizeof(int64_t)) == 0;
        if (out->dtype != r->dtype) {
            tl_error(TL_ERR_TYPE, "%s(): expected out to have dtype %s",
                     fname, tl_dtype_info_of((tl_dtype)r->dtype)->name);
        } else if (!same && !(out->numel == 0 && !out->base &&
                              out->storage_offset == 0)) {
            tl_error(TL_ERR_SHAPE, "%s(): out does not have the result's "
                     "shape", fname);
        } else if ((same || tl_tensor_resize_(out, r->ndim, r->sizes) == 0)
                   && tl_op_copy_(out, r) == 0) {
            o = out;
            tl_tensor_incref(o);
        }
        tl_tensor_decref(r);
        r = o;
    }
    return wrap(st, r);
}

static PyObject *py_complex(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    return pair_op(m, args, nargs, kwnames, false);
}
static PyObject *py_polar(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return pair_op(m, args, nargs, kwnames, true);
}

static PyObject *py_empty_strided(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"size", "stride", "dtype", "layout",
                                        "device", "requires_grad",
                                        "pin_memory", NULL};
    tl_mstate *st = mod_state(m);
    PyObject *a[7];
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "empty_strided") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "empty_strided() missing required "
                        "argument 'size' or 'stride'");
        return NULL;
    }
    int n = tl_py_parse_shape(&a[0], 1, sizes, "empty_strided");
    if (n < 0) {
        return NULL;
    }
    int k = tl_py_parse_shape(&a[1], 1, strides, "empty_strided");
    if (k < 0) {
        return NULL;
    }
    if (n != k) {
        tl_error(TL_ERR_SHAPE, "empty_strided(): mismatch in length of "
                 "strides and shape (%d and %d)", k, n);
        return tl_py_raise(st);
    }
    for (int d = 0; d < n; d++) {
        if (strides[d] < 0) {
            tl_error(TL_ERR_SHAPE, "empty_strided(): negative strides are "
                     "not supported (stride %lld at dim %d)",
                     (long long)strides[d], d);
            return tl_py_raise(st);
        }
    }
    tl_dtype dt = TL_DEFAULT_FLOAT;
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_dtype(st, a[2], &dt) < 0 ||
        tl_py_parse_device(st, a[4], &dev) < 0) {
        return NULL;
    }
    return wrap(st, tl_tensor_empty_strided(n, sizes, strides, dt, dev,
                                            TL_MEMKIND_DEFAULT));
}

/* ---- tables ------------------------------------------------------------- */

static PyMethodDef joinindex_functions[] = {
    {"cat", CF(py_cat), FASTKW,
     "cat(tensors, dim=0, *, out=None, axis=None)\n--\n\n"
     "Joins tensors along an existing dim (dtypes promote)."},
    {"concat", CF(py_concat), FASTKW,
     "concat(tensors, dim=0, *, out=None, axis=None)\n--\n\nAlias of cat()."},
    {"concatenate", CF(py_concatenate), FASTKW,
     "concatenate(tensors, dim=0, *, out=None, axis=None)\n--\n\n"
     "Alias of cat() (NumPy's name; takes axis= or dim=)."},
    {"stack", CF(py_stack), FASTKW,
     "stack(tensors, dim=0, *, out=None, axis=None)\n--\n\n"
     "Joins equal-shaped tensors along a new dim."},
    {"gather", CF(f_gather), FASTKW,
     "gather(input, dim, index, *, sparse_grad=False, out=None)\n--\n\n"
     "out[p] = input[p with p[dim] = index[p]]."},
    {"index_select", CF(f_index_select), FASTKW,
     "index_select(input, dim, index, *, out=None)\n--\n\n"
     "The entries index picks along dim."},
    {"scatter", CF(f_scatter), FASTKW,
     "scatter(input, dim, index, src=None, *, value=None, reduce=None)"
     "\n--\n\n"
     "A copy of input with src (or value) written at index along dim."},
    {"scatter_add", CF(f_scatter_add), FASTKW,
     "scatter_add(input, dim, index, src)\n--\n\n"
     "A copy of input with src added at index along dim (repeated "
     "indices add up, in index order)."},
    {"scatter_reduce", CF(f_scatter_reduce), FASTKW,
     "scatter_reduce(input, dim, index, src, reduce, *, include_self=True)"
     "\n--\n\nscatter with reduce = sum, prod, mean, amax or amin."},
    {"index_add", CF(f_index_add), FASTKW,
     "index_add(input, dim, index, source, *, alpha=1)\n--\n\n"
     "A copy of input with alpha * source added at the index rows."},
    {"index_copy", CF(f_index_copy), FASTKW,
     "index_copy(input, dim, index, source)\n--\n\n"
     "A copy of input with source copied into the index rows."},
    {"index_fill", CF(f_index_fill), FASTKW,
     "index_fill(input, dim, index, value)\n--\n\n"
     "A copy of input with the index rows filled with value."},
    {"linspace", CF(py_linspace), FASTKW,
     "linspace(start, end, steps, *, out=None, dtype=None, layout=None, "
     "device=None, requires_grad=False)\n--\n\n"
     "steps evenly spaced values from start to end inclusive."},
    {"logspace", CF(py_logspace), FASTKW,
     "logspace(start, end, steps, base=10.0, *, out=None, dtype=None, "
     "layout=None, device=None, requires_grad=False)\n--\n\n"
     "base ** linspace(start, end, steps)."},
    {"complex", CF(py_complex), FASTKW,
     "complex(real, imag, *, out=None)\n--\n\n"
     "real + 1j * imag (float32 -> complex64, float64 -> complex128)."},
    {"polar", CF(py_polar), FASTKW,
     "polar(abs, angle, *, out=None)\n--\n\n"
     "abs * (cos(angle) + 1j * sin(angle))."},
    {"empty_strided", CF(py_empty_strided), FASTKW,
     "empty_strided(size, stride, *, dtype=None, layout=None, device=None, "
     "requires_grad=False, pin_memory=False)\n--\n\n"
     "An uninitialised tensor with the given strides (none negative)."},
    {NULL},
};

static PyMethodDef joinindex_methods[] = {
    {"gather", CF(m_gather), FASTKW,
     "gather($self, dim, index, *, sparse_grad=False)\n--\n\n"
     "See tensorlib.gather."},
    {"index_select", CF(m_index_select), FASTKW,
     "index_select($self, dim, index)\n--\n\nSee tensorlib.index_select."},
#define METHOD_PAIR(NAME, SIG)                                              \
    {#NAME, CF(m_##NAME), FASTKW,                                          \
     #NAME "($self, " SIG ")\n--\n\nSee tensorlib." #NAME "."},            \
    {#NAME "_", CF(m_##NAME##_), FASTKW,                                   \
     #NAME "_($self, " SIG ")\n--\n\nIn-place " #NAME "; returns self."},
    METHOD_PAIR(scatter, "dim, index, src=None, *, value=None, reduce=None")
    METHOD_PAIR(scatter_add, "dim, index, src")
    METHOD_PAIR(scatter_reduce,
                "dim, index, src, reduce, *, include_self=True")
    METHOD_PAIR(index_add, "dim, index, source, *, alpha=1")
    METHOD_PAIR(index_copy, "dim, index, source")
    METHOD_PAIR(index_fill, "dim, index, value")
#undef METHOD_PAIR
    {NULL},
};

int tl_joinindex_init(PyObject *m, tl_mstate *st)
{
    if (PyModule_AddFunctions(m, joinindex_functions) < 0) {
        return -1;
    }
    /* Tensor methods: descriptors added to the heap type after it is made
     * (Note [Tensor type assembly] in tensor_type.c builds the static
     * tables; this file keeps its own). */
    PyTypeObject *tp = st->TensorType;
    for (PyMethodDef *d = joinindex_methods; d->ml_name; d++) {
        PyObject *descr = PyDescr_NewMethod(tp, d);
        if (!descr) {
            return -1;
        }
        int rc = PyDict_SetItemString(tp->tp_dict, d->ml_name, descr);
        Py_DECREF(descr);
        if (rc < 0) {
            return -1;
        }
    }
    PyType_Modified(tp);
    return 0;
}
