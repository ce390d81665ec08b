/* csrc/python/views.c — Python bindings of views (view, reshape,
 * transpose, permute, expand, squeeze, narrow, select, unfold, diagonal,
 * split, flip, ...), their functional forms, and broadcasting helpers.
 * Each binding parses its arguments, wraps dims, and calls one
 * tl_view_* function of csrc/core/view.c. */
#include <string.h>

#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/ops.h"

#define IMPL(o) tl_py_impl(o)

/* Wraps an impl result (NULL: raise the core error). */
static PyObject *ret(tl_mstate *st, tl_tensor_impl *t)
{
    return t ? tl_py_wrap(st, t) : tl_py_raise(st);
}

static int get_dim(PyObject *o, int ndim, int *out, const char *what)
{
    int64_t d;
    if (tl_py_int64(o, &d, what) < 0) {
        return -1;
    }
    return tl_py_wrap_dim(d, ndim, out);
}

/* Parses *args or one sequence of dims; wraps each.  Returns n or -1. */
static int get_dims(PyObject *const *args, Py_ssize_t nargs, int ndim,
                    int *dims, const char *fname)
{
    int64_t raw[TL_MAX_DIMS];
    int n = tl_py_parse_shape(args, nargs, raw, fname);
    if (n < 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (tl_py_wrap_dim(raw[i], ndim, &dims[i]) < 0) {
            return -1;
        }
    }
    return n;
}

/* ---- view / reshape ------------------------------------------------------ */

/* The one keyword of reshape(shape=), permute(dims=) and flip(dims=),
 * which may stand for the positional *shape / *dims, never beside them.
 * Returns 1 when it was given (then *nargs becomes 1 and args[0] is its
 * value), 0 when no keyword was given, -1 with TypeError otherwise. */
static int sequence_keyword(PyObject *kwnames, Py_ssize_t *nargs,
                            const char *name, const char *fname)
{
    if (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (!PyUnicode_Check(k) || PyUnicode_CompareWithASCIIString(k, name)) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword "
                         "argument %R (it takes *%s or %s=)", fname, k,
                         name, name);
            return -1;
        }
    }
    if (*nargs) {
        PyErr_Format(PyExc_TypeError, "%s() got %s both as positional "
                     "arguments and as %s=", fname, name, name);
        return -1;
    }
    *nargs = 1;
    return 1;
}

static PyObject *t_view(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS];
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "view() takes no keywords");
        return NULL;
    }
    int n = tl_py_parse_shape(args, nargs, sizes, "view");
    if (n < 0) {
        return NULL;
    }
    return ret(st, tl_view_view(IMPL(self), n, sizes));
}

/* reshape: a view when the strides allow one (PyTorch's rule), else a
 * contiguous copy viewed.  Returns: new reference. */
static tl_tensor_impl *reshape_impl(tl_tensor_impl *t, int n,
                                    const int64_t *sizes)
{
    int64_t shape[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (tl_infer_view_shape(t->numel, n, sizes, shape) < 0) {
        return NULL;
    }
    if (tl_impl_rowmajor_exact(t)) {
        return tl_impl_view_rowmajor(t, n, shape);
    }
    if (tl_view_strides(t->ndim, t->sizes, t->strides, n, shape, strides)) {
        return tl_impl_view(t, n, shape, strides, t->storage_offset);
    }
    /* The copy is a fresh root, reshaped in place: not a view of a
     * temporary (PyTorch's _unsafe_view), so its _base is None. */
    tl_tensor_impl *c = tl_op_clone(t, TL_FORMAT_CONTIGUOUS);
    if (!c) {
        return NULL;
    }
    TL_ASSERT(c->base == NULL && c->pyobj == NULL);
    tl_dense_strides(n, shape, TL_FORMAT_CONTIGUOUS, strides);
    if (tl_impl_set_sizes_strides(c, n, shape, strides) < 0) {
        tl_tensor_decref(c);
        return NULL;
    }
    c->memory_format = TL_FORMAT_CONTIGUOUS;
    return c;
}

static PyObject *t_reshape(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS];
    if (sequence_keyword(kwnames, &nargs, "shape", "reshape") < 0) {
        return NULL;
    }
    int n = tl_py_parse_shape(args, nargs, sizes, "reshape");
    if (n < 0) {
        return NULL;
    }
    return ret(st, reshape_impl(IMPL(self), n, sizes));
}

/* ---- dims ------------------------------------------------------------------ */

static PyObject *t_transpose(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim0", "dim1", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[2];
    int d0, d1;
    tl_tensor_impl *t = IMPL(self);
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "transpose") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "transpose() needs dim0 and dim1");
        return NULL;
    }
    if (get_dim(a[0], t->ndim, &d0, "dim0") < 0 ||
        get_dim(a[1], t->ndim, &d1, "dim1") < 0) {
        return NULL;
    }
    return ret(st, tl_view_transpose(t, d0, d1));
}

static PyObject *t_t(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    if (t->ndim > 2) {
        PyErr_Format(st->ShapeError,
                     "t() expects a tensor with <= 2 dimensions, but self is "
                     "%dD", t->ndim);
        return NULL;
    }
    return ret(st, t->ndim < 2 ? tl_view_alias(t) : tl_view_transpose(t, 0, 1));
}

static PyObject *t_get_T(PyObject *self, void *c)
{
    return ret(tl_state_of(self), tl_view_reverse_dims(IMPL(self)));
}

static PyObject *t_get_mT(PyObject *self, void *c)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    if (t->ndim < 2) {
        PyErr_Format(st->ShapeError,
                     "tensor.mT is only supported on matrices or batches of "
                     "matrices. Got %dD tensor.", t->ndim);
        return NULL;
    }
    return ret(st, tl_view_transpose(t, t->ndim - 2, t->ndim - 1));
}

static PyObject *t_permute(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    int dims[TL_MAX_DIMS];
    if (sequence_keyword(kwnames, &nargs, "dims", "permute") < 0) {
        return NULL;
    }
    int n = get_dims(args, nargs, t->ndim, dims, "permute");
    if (n < 0) {
        return NULL;
    }
    if (n != t->ndim) {
        PyErr_Format(st->ShapeError,
                     "permute(): %d dims given for a %d-d tensor: give "
                     "each of the %d dims once", n, t->ndim, t->ndim);
        return NULL;
    }
    return ret(st, tl_view_permute(t, dims));
}

static PyObject *t_movedim(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"source", "destination", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int src[TL_MAX_DIMS], dst[TL_MAX_DIMS];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "movedim") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "movedim() needs source and "
                        "destination");
        return NULL;
    }
    int ns = get_dims(&a[0], 1, t->ndim, src, "movedim");
    int nd = ns < 0 ? -1 : get_dims(&a[1], 1, t->ndim, dst, "movedim");
    if (nd < 0) {
        return NULL;
    }
    if (ns != nd) {
        PyErr_Format(st->ShapeError,
                     "movedim: Invalid source or destination dims: source "
                     "(%d dims) should contain the same number of dims as "
                     "destination (%d dims)", ns, nd);
        return NULL;
    }
    int perm[TL_MAX_DIMS];
    bool used_src[TL_MAX_DIMS] = {false}, used_dst[TL_MAX_DIMS] = {false};
    for (int i = 0; i < t->ndim; i++) {
        perm[i] = -1;
    }
    for (int i = 0; i < ns; i++) {
        if (used_src[src[i]] || used_dst[dst[i]]) {
            PyErr_Format(st->ShapeError,
                         "movedim: repeated dim in %s (dim %d appears "
                         "twice); each dim may be moved once",
                         used_src[src[i]] ? "source" : "destination",
                         used_src[src[i]] ? src[i] : dst[i]);
            return NULL;
        }
        used_src[src[i]] = used_dst[dst[i]] = true;
        perm[dst[i]] = src[i];
    }
    int next = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (perm[i] >= 0) {
            continue;
        }
        while (used_src[next]) {
            next++;
        }
        perm[i] = next++;
    }
    return ret(st, tl_view_permute(t, perm));
}

/* ---- expand, squeeze ------------------------------------------------------- */

static PyObject *t_expand(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS];
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "expand() takes only sizes");
        return NULL;
    }
    int n = tl_py_parse_shape(args, nargs, sizes, "expand");
    if (n < 0) {
        return NULL;
    }
    return ret(st, tl_view_expand(IMPL(self), n, sizes));
}

static PyObject *t_expand_as(PyObject *self, PyObject *other)
{
    tl_mstate *st = tl_state_of(self);
    if (!tl_py_is_tensor(st, other)) {
        PyErr_SetString(PyExc_TypeError, "expand_as() expects a tensor");
        return NULL;
    }
    tl_tensor_impl *o = IMPL(other);
    return ret(st, tl_view_expand(IMPL(self), o->ndim, o->sizes));
}

static PyObject *t_squeeze(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[1];
    uint64_t mask = ~(uint64_t)0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "squeeze") < 0) {
        return NULL;
    }
    if (a[0] && a[0] != Py_None) {
        int dims[TL_MAX_DIMS];
        int n = get_dims(&a[0], 1, t->ndim, dims, "squeeze");
        if (n < 0) {
            return NULL;
        }
        mask = 0;
        for (int i = 0; i < n; i++) {
            mask |= (uint64_t)1 << dims[i];
        }
    }
    return ret(st, tl_view_squeeze(t, mask));
}

static PyObject *t_unsqueeze(PyObject *self, PyObject *dimo)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    int d;
    if (get_dim(dimo, t->ndim + 1, &d, "dim") < 0) {
        return NULL;
    }
    return ret(st, tl_view_unsqueeze(t, d));
}

static PyObject *t_flatten(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"start_dim", "end_dim", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int s = 0, e = t->ndim ? t->ndim - 1 : 0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "flatten") < 0) {
        return NULL;
    }
    if ((a[0] && get_dim(a[0], t->ndim, &s, "start_dim") < 0) ||
        (a[1] && get_dim(a[1], t->ndim, &e, "end_dim") < 0)) {
        return NULL;
    }
    if (s > e) {
        PyErr_SetString(st->ShapeError,
                        "flatten() has invalid args: start_dim cannot come "
                        "after end_dim");
        return NULL;
    }
    if (t->ndim == 0) {
        int64_t one = 1;
        return ret(st, reshape_impl(t, 1, &one));
    }
    int64_t sizes[TL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < s; d++) {
        sizes[n++] = t->sizes[d];
    }
    int64_t prod = 1;
    for (int d = s; d <= e; d++) {
        prod *= t->sizes[d];
    }
    sizes[n++] = prod;
    for (int d = e + 1; d < t->ndim; d++) {
        sizes[n++] = t->sizes[d];
    }
    return ret(st, reshape_impl(t, n, sizes));
}

static PyObject *t_unflatten(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", "sizes", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int64_t parts[TL_MAX_DIMS], sizes[TL_MAX_DIMS], resolved[TL_MAX_DIMS];
    int d;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "unflatten") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "unflatten() needs dim and sizes");
        return NULL;
    }
    if (get_dim(a[0], t->ndim, &d, "dim") < 0) {
        return NULL;
    }
    int np = tl_py_parse_shape(&a[1], 1, parts, "unflatten");
    if (np < 0) {
        return NULL;
    }
    if (np == 0 || t->ndim == 0 || t->ndim - 1 + np > TL_MAX_DIMS) {
        PyErr_SetString(st->ShapeError,
                        "unflatten: sizes must be non-empty and the tensor "
                        "must have a dim to split");
        return NULL;
    }
    if (tl_infer_view_shape(t->sizes[d], np, parts, resolved) < 0) {
        return tl_py_raise(st);
    }
    int n = 0;
    for (int i = 0; i < d; i++) {
        sizes[n++] = t->sizes[i];
    }
    for (int i = 0; i < np; i++) {
        sizes[n++] = resolved[i];
    }
    for (int i = d + 1; i < t->ndim; i++) {
        sizes[n++] = t->sizes[i];
    }
    return ret(st, tl_view_view(t, n, sizes));
}

/* ---- narrow, select, unfold, diagonal ------------------------------------- */

static PyObject *t_narrow(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", "start", "length", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[3];
    int d;
    int64_t start, length;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "narrow") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1] || !a[2]) {
        PyErr_SetString(PyExc_TypeError, "narrow() needs dim, start and "
                        "length");
        return NULL;
    }
    if (get_dim(a[0], t->ndim, &d, "dim") < 0 ||
        tl_py_int64(a[1], &start, "start") < 0 ||
        tl_py_int64(a[2], &length, "length") < 0) {
        return NULL;
    }
    return ret(st, tl_view_narrow(t, d, start, length));
}

static PyObject *t_select(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", "index", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int d;
    int64_t index;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "select") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "select() needs dim and index");
        return NULL;
    }
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_IndexError,
                        "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (get_dim(a[0], t->ndim, &d, "dim") < 0 ||
        tl_py_int64(a[1], &index, "index") < 0) {
        return NULL;
    }
    return ret(st, tl_view_select(t, d, index));
}

static PyObject *t_unfold(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dimension", "size", "step", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[3];
    int d;
    int64_t size, step;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "unfold") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1] || !a[2]) {
        PyErr_SetString(PyExc_TypeError, "unfold() needs dimension, size "
                        "and step");
        return NULL;
    }
    if (get_dim(a[0], t->ndim, &d, "dimension") < 0 ||
        tl_py_int64(a[1], &size, "size") < 0 ||
        tl_py_int64(a[2], &step, "step") < 0) {
        return NULL;
    }
    return ret(st, tl_view_unfold(t, d, size, step));
}

static PyObject *t_diagonal(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"offset", "dim1", "dim2", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[3];
    int64_t offset = 0;
    int d1 = 0, d2 = 1;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "diagonal") < 0) {
        return NULL;
    }
    if (t->ndim < 2) {
        PyErr_Format(st->ShapeError, "diagonal() needs at least 2 "
                     "dimensions, got %d", t->ndim);
        return NULL;
    }
    if ((a[0] && tl_py_int64(a[0], &offset, "offset") < 0) ||
        (a[1] && get_dim(a[1], t->ndim, &d1, "dim1") < 0) ||
        (a[2] && get_dim(a[2], t->ndim, &d2, "dim2") < 0)) {
        return NULL;
    }
    return ret(st, tl_view_diagonal(t, offset, d1, d2));
}

static PyObject *t_flip(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    int dims[TL_MAX_DIMS];
    if (sequence_keyword(kwnames, &nargs, "dims", "flip") < 0) {
        return NULL;
    }
    int n = get_dims(args, nargs, t->ndim, dims, "flip");
    if (n < 0) {
        return NULL;
    }
    uint64_t mask = 0;
    for (int i = 0; i < n; i++) {
        if ((mask >> dims[i]) & 1u) {
            PyErr_Format(st->ShapeError, "flip: dim %d appears multiple "
                         "times in the list of dims", dims[i]);
            return NULL;
        }
        mask |= (uint64_t)1 << dims[i];
    }
    return ret(st, tl_view_flip(t, mask));
}

/* ---- split, chunk, unbind -------------------------------------------------- */

/* A tuple of narrow() views of the given lengths along d. */
static PyObject *split_lengths(tl_mstate *st, tl_tensor_impl *t, int d,
                               int n, const int64_t *lengths)
{
    PyObject *out = PyTuple_New(n);
    int64_t start = 0;
    for (int i = 0; out && i < n; i++) {
        PyObject *v = ret(st, tl_view_narrow(t, d, start, lengths[i]));
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, v);
        start += lengths[i];
    }
    return out;
}

static PyObject *t_split(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"split_size_or_sections", "dim",
                                        NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int d = 0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "split") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "split() needs split_size");
        return NULL;
    }
    if (t->ndim == 0) {
        PyErr_SetString(st->ShapeError, "split() expects at least a 1-dim "
                        "tensor");
        return NULL;
    }
    if (a[1] && get_dim(a[1], t->ndim, &d, "dim") < 0) {
        return NULL;
    }
    int64_t size = t->sizes[d];
    if (PyLong_Check(a[0])) {
        int64_t each;
        if (tl_py_int64(a[0], &each, "split_size") < 0) {
            return NULL;
        }
        if (each < 0 || (each == 0 && size != 0)) {
            PyErr_Format(st->ShapeError, "split_size can only be 0 if "
                         "dimension size is 0, but got split_size=%lld and "
                         "dimension size %lld", (long long)each,
                         (long long)size);
            return NULL;
        }
        int64_t n = each == 0 ? 1 : size / each + (size % each != 0);
        if (n == 0) {
            n = 1;
        }
        if (n > INT_MAX) {
            PyErr_Format(PyExc_OverflowError,
                         "split: a dimension of size %lld in pieces of %lld "
                         "makes %lld tensors, too many", (long long)size,
                         (long long)each, (long long)n);
            return NULL;
        }
        int64_t *lengths = tl_py_mem_malloc((size_t)n * sizeof(int64_t));
        if (!lengths) {
            return PyErr_NoMemory();
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t left = size - i * each;
            lengths[i] = left < each ? left : each;
        }
        PyObject *r = split_lengths(st, t, d, (int)n, lengths);
        PyMem_Free(lengths);
        return r;
    }
    PyObject *fast = PySequence_Fast(a[0], "split_size must be an int or "
                                           "a sequence of ints");
    if (!fast) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int64_t *lengths = tl_py_mem_malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int64_t total = 0;
    PyObject *r = NULL;
    if (!lengths) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (tl_py_int64(PySequence_Fast_GET_ITEM(fast, i), &lengths[i],
                        "split section") < 0) {
            goto done;
        }
        if (lengths[i] < 0) {
            PyErr_Format(st->ShapeError, "split: section %zd has negative "
                         "length %lld", i, (long long)lengths[i]);
            goto done;
        }
        if (tl_add_overflow_i64(total, lengths[i], &total)) {
            PyErr_Format(st->ShapeError, "split_with_sizes: the sections "
                         "sum past int64 at section %zd (the size of dim %d "
                         "is %lld)", i, d, (long long)size);
            goto done;
        }
    }
    if (total != size) {
        PyErr_Format(st->ShapeError,
                     "split_with_sizes expects split_sizes to sum exactly to "
                     "%lld (input tensor's size at dimension %d), but got "
                     "sum %lld", (long long)size, d, (long long)total);
        goto done;
    }
    r = split_lengths(st, t, d, (int)n, lengths);
done:
    PyMem_Free(lengths);
    Py_DECREF(fast);
    return r;
}

static PyObject *t_chunk(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"chunks", "dim", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[2];
    int d = 0;
    int64_t chunks;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "chunk") < 0) {
        return NULL;
    }
    if (!a[0] || tl_py_int64(a[0], &chunks, "chunks") < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "chunk() needs chunks");
        }
        return NULL;
    }
    if (t->ndim == 0) {
        PyErr_SetString(st->ShapeError, "chunk expects at least a 1-dimensional "
                        "tensor");
        return NULL;
    }
    if (chunks <= 0) {
        PyErr_Format(st->ShapeError, "chunk expects `chunks` to be greater "
                     "than 0, got: %lld", (long long)chunks);
        return NULL;
    }
    if (a[1] && get_dim(a[1], t->ndim, &d, "dim") < 0) {
        return NULL;
    }
    int64_t size = t->sizes[d];
    int64_t each = size / chunks + (size % chunks != 0);
    if (size == 0) {
        /* PyTorch: one empty chunk per requested chunk when size is 0. */
        if (chunks > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t) ||
            chunks > INT_MAX) {
            PyErr_Format(PyExc_OverflowError, "chunk: %lld chunks are too "
                         "many", (long long)chunks);
            return NULL;
        }
        int64_t *zeros = tl_py_mem_calloc((size_t)chunks, sizeof(int64_t));
        if (!zeros) {
            return PyErr_NoMemory();
        }
        PyObject *r = split_lengths(st, t, d, (int)chunks, zeros);
        PyMem_Free(zeros);
        return r;
    }
    PyObject *sz = PyLong_FromLongLong(each);
    if (!sz) {
        return NULL;
    }
    PyObject *dimo = PyLong_FromLong(d);
    PyObject *argv[2] = {sz, dimo};
    PyObject *r = dimo ? t_split(self, argv, 2, NULL) : NULL;
    Py_DECREF(sz);
    Py_XDECREF(dimo);
    return r;
}

static PyObject *t_unbind(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dim", NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = IMPL(self);
    PyObject *a[1];
    int d = 0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "unbind") < 0) {
        return NULL;
    }
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_IndexError,
                        "unbind(): the tensor is 0-d: it has no dim to "
                        "unbind");
        return NULL;
    }
    if (a[0] && get_dim(a[0], t->ndim, &d, "dim") < 0) {
        return NULL;
    }
    PyObject *out = PyTuple_New((Py_ssize_t)t->sizes[d]);
    for (int64_t i = 0; out && i < t->sizes[d]; i++) {
        PyObject *v = ret(st, tl_view_select(t, d, i));
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, v);
    }
    return out;
}

/* ---- identity, base, versions ---------------------------------------------- */

/* detach: a new tensor over the same storage and version counter, with
 * the same metadata, that is not a view (as PyTorch: no _base, _is_view()
 * false, its metadata may change). */
static PyObject *t_detach(PyObject *self, PyObject *unused)
{
    tl_tensor_impl *d = tl_view_alias(IMPL(self));
    if (d) {
        /* Fresh and unshared: dropping the base link is safe. */
        tl_impl_unlink_base(d);
    }
    return ret(tl_state_of(self), d);
}

static PyObject *t_is_view(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(IMPL(self)->base != NULL);
}

static PyObject *t_get_base(PyObject *self, void *c)
{
    tl_tensor_impl *b = IMPL(self)->base;
    if (!b) {
        Py_RETURN_NONE;
    }
    tl_tensor_incref(b);
    return tl_py_wrap(tl_state_of(self), b);
}

static PyObject *t_get_version(PyObject *self, void *c)
{
    return PyLong_FromUnsignedLongLong(tl_tensor_version(IMPL(self)));
}

/* ---- module-level helpers -------------------------------------------------- */

static PyObject *py_broadcast_shapes(PyObject *m, PyObject *const *args,
                                     Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int64_t acc[TL_MAX_DIMS], cur[TL_MAX_DIMS], tmp[TL_MAX_DIMS];
    int n = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        int k;
        if (PyLong_Check(args[i])) {
            k = tl_py_parse_shape(&args[i], 1, cur, "broadcast_shapes");
        } else {
            k = tl_py_parse_shape(&args[i], 1, cur, "broadcast_shapes");
        }
        if (k < 0) {
            return NULL;
        }
        for (int j = 0; j < k; j++) {
            if (cur[j] < 0) {
                PyErr_Format(st->ShapeError,
                             "broadcast_shapes: negative size %lld",
                             (long long)cur[j]);
                return NULL;
            }
        }
        int r = tl_broadcast_shapes(n, acc, k, cur, tmp);
        if (r < 0) {
            return tl_py_raise(st);
        }
        n = r;
        memcpy(acc, tmp, (size_t)n * sizeof(int64_t));
    }
    return tl_py_size(st, n, acc);
}

static PyObject *py_broadcast_tensors(PyObject *m, PyObject *const *args,
                                      Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int64_t acc[TL_MAX_DIMS], tmp[TL_MAX_DIMS];
    int n = 0;
    PyObject *const *items = args;
    PyObject *fast = NULL;
    if (nargs == 1 && !tl_py_is_tensor(st, args[0])) {
        fast = PySequence_Fast(args[0], "broadcast_tensors expects tensors");
        if (!fast) {
            return NULL;
        }
        items = PySequence_Fast_ITEMS(fast);
        nargs = PySequence_Fast_GET_SIZE(fast);
    }
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!tl_py_is_tensor(st, items[i])) {
            PyErr_Format(PyExc_TypeError, "broadcast_tensors expects "
                         "tensors, got %.100s", Py_TYPE(items[i])->tp_name);
            goto done;
        }
        tl_tensor_impl *t = IMPL(items[i]);
        int r = tl_broadcast_shapes(n, acc, t->ndim, t->sizes, tmp);
        if (r < 0) {
            tl_py_raise(st);
            goto done;
        }
        n = r;
        memcpy(acc, tmp, (size_t)n * sizeof(int64_t));
    }
    out = PyTuple_New(nargs);
    for (Py_ssize_t i = 0; out && i < nargs; i++) {
        PyObject *v = ret(st, tl_view_expand(IMPL(items[i]), n, acc));
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
done:
    Py_XDECREF(fast);
    return out;
}

static PyObject *t_broadcast_to(PyObject *self, PyObject *shape)
{
    tl_mstate *st = tl_state_of(self);
    int64_t sizes[TL_MAX_DIMS];
    int n = tl_py_parse_shape(&shape, 1, sizes, "broadcast_to");
    if (n < 0) {
        return NULL;
    }
    return ret(st, tl_view_expand(IMPL(self), n, sizes));
}

PyMethodDef tl_view_tensor_methods[] = {
    {"view", CF(t_view), FASTKW, "view($self, *shape)\n--\n\n"
     "A view with another shape (one -1 is inferred); ShapeError when the "
     "strides cannot express it."},
    {"reshape", CF(t_reshape), FASTKW, "reshape($self, *shape)\n--\n\n"
     "A view when the strides allow one, else a copy (PyTorch's rule)."},
    {"transpose", CF(t_transpose), FASTKW,
     "transpose($self, dim0, dim1)\n--\n\n"},
    {"swapaxes", CF(t_transpose), FASTKW,
     "swapaxes($self, dim0, dim1)\n--\n\n"},
    {"swapdims", CF(t_transpose), FASTKW,
     "swapdims($self, dim0, dim1)\n--\n\n"},
    {"t", t_t, METH_NOARGS, "t($self, /)\n--\n\n"},
    {"permute", CF(t_permute), FASTKW, "permute($self, *dims)\n--\n\n"},
    {"movedim", CF(t_movedim), FASTKW,
     "movedim($self, source, destination)\n--\n\n"},
    {"moveaxis", CF(t_movedim), FASTKW,
     "moveaxis($self, source, destination)\n--\n\n"},
    {"expand", CF(t_expand), FASTKW, "expand($self, *sizes)\n--\n\n"},
    {"expand_as", t_expand_as, METH_O, "expand_as($self, other, /)\n--\n\n"},
    {"broadcast_to", t_broadcast_to, METH_O,
     "broadcast_to($self, shape, /)\n--\n\n"},
    {"squeeze", CF(t_squeeze), FASTKW, "squeeze($self, dim=None)\n--\n\n"},
    {"unsqueeze", t_unsqueeze, METH_O, "unsqueeze($self, dim, /)\n--\n\n"},
    {"flatten", CF(t_flatten), FASTKW,
     "flatten($self, start_dim=0, end_dim=-1)\n--\n\n"},
    {"unflatten", CF(t_unflatten), FASTKW,
     "unflatten($self, dim, sizes)\n--\n\n"},
    {"narrow", CF(t_narrow), FASTKW,
     "narrow($self, dim, start, length)\n--\n\n"},
    {"select", CF(t_select), FASTKW, "select($self, dim, index)\n--\n\n"},
    {"unfold", CF(t_unfold), FASTKW,
     "unfold($self, dimension, size, step)\n--\n\n"},
    {"diagonal", CF(t_diagonal), FASTKW,
     "diagonal($self, offset=0, dim1=0, dim2=1)\n--\n\n"},
    {"flip", CF(t_flip), FASTKW, "flip($self, *dims)\n--\n\n"
     "An O(1) view with negative strides (PyTorch copies)."},
    {"split", CF(t_split), FASTKW,
     "split($self, split_size_or_sections, dim=0)\n--\n\n"},
    {"chunk", CF(t_chunk), FASTKW, "chunk($self, chunks, dim=0)\n--\n\n"},
    {"unbind", CF(t_unbind), FASTKW, "unbind($self, dim=0)\n--\n\n"},
    {"detach", t_detach, METH_NOARGS, "detach($self, /)\n--\n\n"
     "A new tensor sharing storage and version counter."},
    {"_is_view", t_is_view, METH_NOARGS, "_is_view($self, /)\n--\n\n"},
    {NULL},
};

PyGetSetDef tl_view_tensor_getset[] = {
    {"T", t_get_T, NULL, "All dims reversed.", NULL},
    {"mT", t_get_mT, NULL, "The last two dims swapped.", NULL},
    {"_base", t_get_base, NULL, "The root tensor of a view, or None.", NULL},
    {"_version", t_get_version, NULL, "The shared version counter.", NULL},
    {NULL},
};

PyType_Slot tl_view_tensor_slots[] = {
    {0, NULL},
};

/* Functional forms: tensorlib.reshape(t, shape) etc. call the method with
 * the tensor as self; no Python-level wrapper. */
#define FUNCTIONAL(name, impl)                                              \
    static PyObject *fn_##name(PyObject *m, PyObject *const *args,          \
                               Py_ssize_t nargs, PyObject *kwnames)         \
    {                                                                       \
        tl_mstate *st = tl_state_of_module(m);                              \
        if (nargs < 1 || !tl_py_is_tensor(st, args[0])) {                   \
            PyErr_SetString(PyExc_TypeError,                                \
                            #name "() expects a tensor first");             \
            return NULL;                                                    \
        }                                                                   \
        return impl(args[0], args + 1, nargs - 1, kwnames);                 \
    }

FUNCTIONAL(reshape, t_reshape)
FUNCTIONAL(transpose, t_transpose)
FUNCTIONAL(permute, t_permute)
FUNCTIONAL(movedim, t_movedim)
FUNCTIONAL(squeeze, t_squeeze)
FUNCTIONAL(flatten, t_flatten)
FUNCTIONAL(unflatten, t_unflatten)
FUNCTIONAL(narrow, t_narrow)
FUNCTIONAL(select, t_select)
FUNCTIONAL(diagonal, t_diagonal)
FUNCTIONAL(flip, t_flip)
FUNCTIONAL(split, t_split)
FUNCTIONAL(chunk, t_chunk)
FUNCTIONAL(unbind, t_unbind)

static PyObject *fn_unsqueeze(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    if (nargs != 2 || !tl_py_is_tensor(st, args[0])) {
        PyErr_SetString(PyExc_TypeError, "unsqueeze(input, dim)");
        return NULL;
    }
    return t_unsqueeze(args[0], args[1]);
}

static PyObject *fn_broadcast_to(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    if (nargs != 2 || !tl_py_is_tensor(st, args[0])) {
        PyErr_SetString(PyExc_TypeError, "broadcast_to(input, shape)");
        return NULL;
    }
    return t_broadcast_to(args[0], args[1]);
}

PyMethodDef tl_view_functions[] = {
    {"reshape", CF(fn_reshape), FASTKW, "reshape(input, /, shape)\n--\n\n"},
    {"transpose", CF(fn_transpose), FASTKW,
     "transpose(input, /, dim0, dim1)\n--\n\n"},
    {"swapaxes", CF(fn_transpose), FASTKW,
     "swapaxes(input, /, dim0, dim1)\n--\n\n"},
    {"swapdims", CF(fn_transpose), FASTKW,
     "swapdims(input, /, dim0, dim1)\n--\n\n"},
    {"permute", CF(fn_permute), FASTKW, "permute(input, /, dims)\n--\n\n"},
    {"movedim", CF(fn_movedim), FASTKW,
     "movedim(input, /, source, destination)\n--\n\n"},
    {"moveaxis", CF(fn_movedim), FASTKW,
     "moveaxis(input, /, source, destination)\n--\n\n"},
    {"squeeze", CF(fn_squeeze), FASTKW, "squeeze(input, /, dim=None)\n--\n\n"},
    {"unsqueeze", CF(fn_unsqueeze), METH_FASTCALL,
     "unsqueeze(input, dim, /)\n--\n\n"},
    {"flatten", CF(fn_flatten), FASTKW,
     "flatten(input, /, start_dim=0, end_dim=-1)\n--\n\n"},
    {"unflatten", CF(fn_unflatten), FASTKW,
     "unflatten(input, /, dim, sizes)\n--\n\n"},
    {"narrow", CF(fn_narrow), FASTKW,
     "narrow(input, /, dim, start, length)\n--\n\n"},
    {"select", CF(fn_select), FASTKW, "select(input, /, dim, index)\n--\n\n"},
    {"diagonal", CF(fn_diagonal), FASTKW,
     "diagonal(input, /, offset=0, dim1=0, dim2=1)\n--\n\n"},
    {"flip", CF(fn_flip), FASTKW, "flip(input, /, dims)\n--\n\n"},
    {"split", CF(fn_split), FASTKW,
     "split(tensor, /, split_size_or_sections, dim=0)\n--\n\n"},
    {"chunk", CF(fn_chunk), FASTKW, "chunk(input, /, chunks, dim=0)\n--\n\n"},
    {"unbind", CF(fn_unbind), FASTKW, "unbind(input, /, dim=0)\n--\n\n"},
    {"broadcast_to", CF(fn_broadcast_to), METH_FASTCALL,
     "broadcast_to(input, shape, /)\n--\n\n"},
    {"broadcast_shapes", CF(py_broadcast_shapes), METH_FASTCALL,
     "broadcast_shapes(*shapes)\n--\n\n"},
    {"broadcast_tensors", CF(py_broadcast_tensors), METH_FASTCALL,
     "broadcast_tensors(*tensors)\n--\n\n"},
    {NULL},
};
