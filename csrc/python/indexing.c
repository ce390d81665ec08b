/* csrc/python/indexing.c — t[key] and t[key] = value with NumPy's rules:
 * ints, slices (any step, negative included), None, Ellipsis and tuples of
 * them give views; integer and bool tensors (or lists, arrays) give
 * advanced indexing, a copy (gather) or a scatter.  Integers among
 * advanced indices count as advanced, and the advanced dims go where the
 * first one stood when they are adjacent, else to the front (NumPy). */
#include <string.h>

#include "pytl.h"
#include "tensorlib/index.h"
#include "tensorlib/ops.h"

enum { K_INT, K_SLICE, K_NONE, K_ELLIPSIS, K_ADV, K_MASK, K_TRUE, K_FALSE };

typedef struct {
    int kind;
    int64_t i;          /* K_INT */
    PyObject *obj;      /* K_SLICE: the slice; K_INT: the int when it does
                           not fit int64 (i is then clamped); borrowed */
    tl_tensor_impl *t;  /* K_ADV / K_MASK: owned index tensor */
} key_item;

typedef struct {
    int n;
    key_item items[TL_MAX_DIMS + 8];
} parsed_key;

static void key_clear(parsed_key *k)
{
    for (int i = 0; i < k->n; i++) {
        tl_tensor_decref(k->items[i].t);
        k->items[i].t = NULL;
    }
    k->n = 0;
}

static bool elem_true(const tl_tensor_impl *m)
{
    return *(const unsigned char *)tl_impl_data(m) != 0;
}

/* Converts a list/array/tensor index into an owned impl.  Returns 0/-1. */
static int index_tensor(tl_mstate *st, PyObject *o, tl_tensor_impl **out)
{
    PyObject *t;
    if (tl_py_is_tensor(st, o)) {
        t = Py_NewRef(o);
    } else {
        t = tl_py_tensor_from_data(st, o, -1, tl_device_cpu());
        if (!t) {
            return -1;
        }
        if (!tl_py_is_ndarray(o) && tl_py_impl(t)->numel == 0 &&
            tl_py_impl(t)->dtype != TL_DTYPE_BOOL) {
            /* An empty list has no element to infer from: it indexes
             * nothing, as an empty int64 index (NumPy's and PyTorch's
             * a[[]]). */
            Py_DECREF(t);
            t = tl_py_tensor_from_data(st, o, TL_DTYPE_INT64,
                                       tl_device_cpu());
            if (!t) {
                return -1;
            }
        }
    }
    tl_tensor_impl *impl = tl_py_impl(t);
    if (tl_tensor_check_live(impl) < 0) { /* a reset workspace's tensor */
        Py_DECREF(t);
        return tl_py_raise_int(st);
    }
    tl_tensor_incref(impl);
    Py_DECREF(t);
    *out = impl;
    return 0;
}

/* True for a NumPy bool scalar (np.True_), which indexes as a bool. */
static bool is_numpy_bool(PyObject *o)
{
    tl_dtype dt;
    if (tl_py_numpy_scalar_dtype(o, &dt) <= 0) {
        PyErr_Clear();
        return false;
    }
    return dt == TL_DTYPE_BOOL;
}

/* Classifies every item of key.  Returns 0 / -1 (IndexError, TypeError). */
static int parse_key(tl_mstate *st, tl_tensor_impl *self, PyObject *key,
                     parsed_key *k)
{
    PyObject *const *items = &key;
    Py_ssize_t n = 1;
    k->n = 0;
    if (tl_tensor_check_live(self) < 0) { /* a reset workspace's tensor */
        return tl_py_raise_int(st);
    }
    if (PyTuple_Check(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        n = PyTuple_GET_SIZE(key);
    }
    if (n > TL_MAX_DIMS + 8) {
        PyErr_Format(PyExc_IndexError, "too many indices: a key of %zd "
                     "entries for a tensor of dimension %d", n, self->ndim);
        return -1;
    }
    bool any_adv = false;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *o = items[j];
        key_item *it = &k->items[k->n];
        it->t = NULL;
        it->obj = NULL;
        if (o == Py_None) {
            it->kind = K_NONE;
        } else if (o == Py_Ellipsis) {
            it->kind = K_ELLIPSIS;
        } else if (PySlice_Check(o)) {
            it->kind = K_SLICE;
            it->obj = o;
        } else if (PyBool_Check(o) || is_numpy_bool(o)) {
            int truth = PyObject_IsTrue(o);
            if (truth < 0) {
                goto fail;
            }
            it->kind = truth ? K_TRUE : K_FALSE;
            any_adv = true; /* a 0-d boolean index is advanced (NumPy) */
        } else if (PyLong_Check(o) ||
                   (!tl_py_is_tensor(st, o) && !tl_py_is_ndarray(o) &&
                    !PySequence_Check(o) && PyIndex_Check(o))) {
            it->kind = K_INT;
            if (tl_py_int64(o, &it->i, "index") < 0) {
                /* An int beyond int64 is out of bounds for every dim: an
                 * IndexError (as NumPy), named when its dim is known. */
                PyObject *big = PyErr_ExceptionMatches(PyExc_OverflowError)
                                    ? PyNumber_Index(o) : NULL;
                if (!big) {
                    goto fail;
                }
                PyErr_Clear();
                int neg = PyObject_RichCompareBool(big, Py_False, Py_LT);
                Py_DECREF(big);
                if (neg < 0) {
                    goto fail;
                }
                it->i = neg ? INT64_MIN : INT64_MAX;
                it->obj = o;
            }
        } else if (tl_py_is_tensor(st, o) || tl_py_is_ndarray(o) ||
                   PyList_Check(o) || PyTuple_Check(o)) {
            if (index_tensor(st, o, &it->t) < 0) {
                goto fail;
            }
            int dt = it->t->dtype;
            if (dt == TL_DTYPE_BOOL) {
                it->kind = K_MASK;
                any_adv = true;
            } else if (tl_dtype_is_integral((tl_dtype)dt, false)) {
                if (it->t->ndim == 0 && !PyList_Check(o)) {
                    /* A 0-d integer tensor indexes like an int. */
                    PyObject *v = tl_py_load_scalar((tl_dtype)dt,
                                                    tl_impl_data(it->t));
                    int r = v ? tl_py_int64(v, &it->i, "index") : -1;
                    if (r < 0 && v &&
                        PyErr_ExceptionMatches(PyExc_OverflowError)) {
                        PyErr_Clear();
                        PyErr_Format(PyExc_IndexError, "index %R is out of "
                                     "bounds (it does not fit in int64)", v);
                    }
                    Py_XDECREF(v);
                    tl_tensor_decref(it->t);
                    it->t = NULL;
                    if (r < 0) {
                        goto fail;
                    }
                    it->kind = K_INT;
                } else {
                    it->kind = K_ADV;
                    any_adv = true;
                }
            } else {
                PyErr_Format(PyExc_IndexError,
                             "tensors used as indices must be integer or "
                             "bool tensors, got %s",
                             tl_dtype_info_of(dt)->name);
                tl_tensor_decref(it->t);
                it->t = NULL;
                goto fail;
            }
        } else {
            PyErr_Format(PyExc_IndexError,
                         "an index must be an int, a slice, ..., None, or "
                         "an integer or bool tensor (or an array or list of "
                         "them); got %.100s", Py_TYPE(o)->tp_name);
            goto fail;
        }
        k->n++;
    }
    /* With advanced indices present, ints are advanced too (NumPy). */
    if (any_adv) {
        for (int j = 0; j < k->n; j++) {
            key_item *it = &k->items[j];
            if (it->kind != K_INT) {
                continue;
            }
            if (it->obj) {
                PyErr_Format(PyExc_IndexError, "index %R is out of bounds "
                             "(it does not fit in int64)", it->obj);
                goto fail;
            }
            tl_tensor_impl *t = tl_tensor_empty(0, NULL, TL_DTYPE_INT64,
                                                tl_device_cpu(),
                                                TL_MEMKIND_DEFAULT);
            if (!t) {
                tl_py_raise(st);
                goto fail;
            }
            memcpy(tl_impl_data(t), &it->i, 8);
            it->t = t;
            it->kind = K_ADV;
        }
    }
    return 0;
fail:
    key_clear(k);
    return -1;
}

/* The result of the basic part of a key, with the positions (in the view)
 * and int64 index tensors of its advanced part. */
typedef struct {
    tl_tensor_impl *view;              /* owned */
    int nadv;
    int dims[TL_MAX_DIMS];
    tl_tensor_impl *idx[TL_MAX_DIMS];  /* owned, broadcast to one shape */
    bool adjacent;
} applied_key;

static void applied_clear(applied_key *a)
{
    tl_tensor_decref(a->view);
    a->view = NULL;
    for (int i = 0; i < a->nadv; i++) {
        tl_tensor_decref(a->idx[i]);
    }
    a->nadv = 0;
}

/* Records the advanced index of a 0-d boolean key at view dim d (a unit
 * dim the caller inserts there): int64 [0] for true, an empty one for
 * false.  Returns 0 / -1. */
static int add_scalar_mask(tl_mstate *st, applied_key *a, int d, bool value)
{
    int64_t n = value ? 1 : 0;
    if (a->nadv >= TL_MAX_DIMS) {
        PyErr_Format(PyExc_IndexError, "too many indices: more than %d "
                     "advanced (tensor, list or bool) indices", TL_MAX_DIMS);
        return -1;
    }
    tl_tensor_impl *ix = tl_tensor_empty(1, &n, TL_DTYPE_INT64,
                                         tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (!ix) {
        tl_py_raise(st);
        return -1;
    }
    if (value) {
        memset(tl_impl_data(ix), 0, sizeof(int64_t));
    }
    a->dims[a->nadv] = d;
    a->idx[a->nadv++] = ix;
    return 0;
}

/* Applies the basic items of k to self and collects the advanced ones.
 * Returns 0 / -1. */
static int apply_key(tl_mstate *st, tl_tensor_impl *self, parsed_key *k,
                     applied_key *a)
{
    a->view = NULL;
    a->nadv = 0;
    int consumed = 0, ellipses = 0;
    for (int j = 0; j < k->n; j++) {
        key_item *it = &k->items[j];
        switch (it->kind) {
        case K_INT:
        case K_SLICE:
        case K_ADV:
            consumed++;
            break;
        case K_MASK:
            consumed += it->t->ndim;
            break;
        case K_ELLIPSIS:
            ellipses++;
            break;
        default:
            break;
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError,
                        "an index can only have a single ellipsis ('...')");
        return -1;
    }
    if (consumed > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices: %d given for a %d-d tensor",
                     consumed, self->ndim);
        return -1;
    }
    tl_tensor_incref(self);
    tl_tensor_impl *v = self;
    int d = 0;   /* current dim in v */
    int od = 0;  /* dim in self, for messages */
    tl_tensor_impl *masks_idx = NULL;
    for (int j = 0; j < k->n; j++) {
        key_item *it = &k->items[j];
        tl_tensor_impl *nv = NULL;
        switch (it->kind) {
        case K_INT: {
            int64_t size = v->sizes[d];
            if (it->obj) {
                PyErr_Format(PyExc_IndexError,
                             "index %R is out of bounds for dimension %d "
                             "with size %lld", it->obj, od, (long long)size);
                goto fail;
            }
            if (it->i < -size || it->i >= size) {
                PyErr_Format(PyExc_IndexError,
                             "index %lld is out of bounds for dimension %d "
                             "with size %lld", (long long)it->i, od,
                             (long long)size);
                goto fail;
            }
            nv = tl_view_select(v, d, it->i);
            od++;
            break;
        }
        case K_SLICE: {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it->obj, &start, &stop, &step) < 0) {
                goto fail;
            }
            Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)v->sizes[d],
                                                   &start, &stop, step);
            if (len == 0) {
                start = 0;
            }
            nv = tl_view_slice(v, d, start, step, len);
            d++;
            od++;
            break;
        }
        case K_NONE:
            nv = tl_view_unsqueeze(v, d);
            d++;
            break;
        case K_TRUE:
        case K_FALSE:
            if (add_scalar_mask(st, a, d, it->kind == K_TRUE) < 0) {
                goto fail;
            }
            nv = tl_view_unsqueeze(v, d);
            d++;
            break;
        case K_ELLIPSIS:
            d += self->ndim - consumed;
            od += self->ndim - consumed;
            tl_tensor_incref(v);
            nv = v;
            break;
        case K_ADV:
            if (a->nadv >= TL_MAX_DIMS) {
                PyErr_Format(PyExc_IndexError, "too many indices: more than "
                             "%d advanced (tensor, list or bool) indices",
                             TL_MAX_DIMS);
                goto fail;
            }
            a->dims[a->nadv] = d;
            tl_tensor_incref(it->t);
            a->idx[a->nadv++] = it->t;
            d++;
            od++;
            tl_tensor_incref(v);
            nv = v;
            break;
        case K_MASK: {
            tl_tensor_impl *m = it->t;
            for (int q = 0; q < m->ndim; q++) {
                if (m->sizes[q] != v->sizes[d + q]) {
                    PyErr_Format(PyExc_IndexError,
                                 "boolean mask: its size %lld at its dim %d "
                                 "differs from the indexed tensor's size "
                                 "%lld at dim %d",
                                 (long long)m->sizes[q], q,
                                 (long long)v->sizes[d + q], od + q);
                    goto fail;
                }
            }
            masks_idx = tl_index_nonzero(m);
            if (!masks_idx) {
                tl_py_raise(st);
                goto fail;
            }
            for (int q = 0; q < m->ndim; q++) {
                tl_tensor_impl *col = tl_view_select(masks_idx, 1, q);
                if (!col) {
                    tl_py_raise(st);
                    goto fail;
                }
                a->dims[a->nadv] = d + q;
                a->idx[a->nadv++] = col;
            }
            if (m->ndim == 0) {
                /* A 0-d mask indexes a new unit dim with [0] (True) or
                 * [] (False), broadcasting with the other advanced
                 * indices (NumPy). */
                if (add_scalar_mask(st, a, d, m->numel && elem_true(m)) <
                    0) {
                    goto fail;
                }
                nv = tl_view_unsqueeze(v, d);
                d++;
            } else {
                tl_tensor_incref(v);
                nv = v;
                d += m->ndim;
                od += m->ndim;
            }
            tl_tensor_decref(masks_idx);
            masks_idx = NULL;
            break;
        }
        }
        if (!nv) {
            if (!PyErr_Occurred()) {
                tl_py_raise(st);
            }
            goto fail;
        }
        tl_tensor_decref(v);
        v = nv;
    }
    a->view = v;
    if (a->nadv) {
        /* Broadcast the index tensors to one shape. */
        int64_t shape[TL_MAX_DIMS], tmp[TL_MAX_DIMS];
        int n = 0;
        for (int i = 0; i < a->nadv; i++) {
            tl_tensor_impl *ix = a->idx[i];
            int r = tl_broadcast_shapes(n, shape, ix->ndim, ix->sizes, tmp);
            if (r < 0) {
                PyErr_Format(PyExc_IndexError,
                             "shape mismatch: indexing tensors could not be "
                             "broadcast together (%s)", tl_error_message());
                tl_error_clear();
                return -1;
            }
            n = r;
            memcpy(shape, tmp, (size_t)n * 8);
        }
        for (int i = 0; i < a->nadv; i++) {
            tl_tensor_impl *ix = a->idx[i];
            tl_tensor_impl *e = NULL;
            if (ix->dtype != TL_DTYPE_INT64) {
                tl_tensor_impl *c = tl_op_to_dtype(ix, TL_DTYPE_INT64, false);
                if (!c) {
                    tl_py_raise(st);
                    return -1;
                }
                e = tl_view_expand(c, n, shape);
                tl_tensor_decref(c);
            } else {
                e = tl_view_expand(ix, n, shape);
            }
            if (!e) {
                tl_py_raise(st);
                return -1;
            }
            tl_tensor_decref(ix);
            a->idx[i] = e;
        }
        a->adjacent = true;
        for (int i = 1; i < a->nadv; i++) {
            a->adjacent &= a->dims[i] == a->dims[i - 1] + 1;
        }
    }
    return 0;
fail:
    tl_tensor_decref(masks_idx);
    tl_tensor_decref(v);
    return -1;
}

int tl_py_as_scalar(PyObject *o, tl_scalar *out)
{
    if (PyBool_Check(o)) {
        *out = tl_scalar_bool(o == Py_True);
        return 1;
    }
    if (PyLong_Check(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError,
                             "Python int %R is too large for any integer "
                             "dtype", o);
                return -1;
            }
            out->kind = TL_KIND_UINT;
            out->v.u = u;
            return 1;
        }
        if (overflow < 0) {
            PyErr_Format(PyExc_OverflowError,
                         "Python int %R is too small for any integer dtype",
                         o);
            return -1;
        }
        *out = tl_scalar_int(v);
        return 1;
    }
    if (PyFloat_Check(o)) {
        *out = tl_scalar_float(PyFloat_AS_DOUBLE(o));
        return 1;
    }
    if (PyComplex_Check(o)) {
        *out = tl_scalar_complex(PyComplex_RealAsDouble(o),
                                 PyComplex_ImagAsDouble(o));
        return 1;
    }
    tl_dtype dt;
    int r = tl_py_numpy_scalar_dtype(o, &dt);
    if (r <= 0) {
        return r;
    }
    PyObject *item = PyObject_CallMethod(o, "item", NULL);
    if (!item) {
        return -1;
    }
    r = tl_py_as_scalar(item, out);
    Py_DECREF(item);
    return r;
}

/* Moves the leading nb dims of t (the advanced result) to position p.
 * Returns: new reference (contiguous), or NULL. */
static tl_tensor_impl *place_adv_dims(tl_tensor_impl *t, int nb, int p,
                                      bool to_front)
{
    int perm[TL_MAX_DIMS];
    int n = t->ndim, k = 0;
    if (!to_front) {
        /* front layout (B, R) -> in place (R[:p], B, R[p:]) */
        for (int i = 0; i < p; i++) {
            perm[k++] = nb + i;
        }
        for (int i = 0; i < nb; i++) {
            perm[k++] = i;
        }
        for (int i = nb + p; i < n; i++) {
            perm[k++] = i;
        }
    } else {
        /* in place (R[:p], B, R[p:]) -> front layout (B, R) */
        for (int i = 0; i < nb; i++) {
            perm[k++] = p + i;
        }
        for (int i = 0; i < p; i++) {
            perm[k++] = i;
        }
        for (int i = p + nb; i < n; i++) {
            perm[k++] = i;
        }
    }
    return tl_view_permute(t, perm);
}

/* The fast path for keys made only of exact Python ints (t[1], t[1, 2]):
 * one bounds check per int and ONE view (the general path selects dim by
 * dim, one intermediate impl per int).  Returns 1 with *out set (a new
 * impl, or NULL with tl_error recorded), or 0 when the key is not such a
 * key or the general path must decide (empty tensor, out of range: the
 * general path raises with its messages). */
static int int_key_view(tl_tensor_impl *t, PyObject *key,
                        tl_tensor_impl **out)
{
    PyObject *const *items = &key;
    Py_ssize_t n = 1;
    if (PyTuple_CheckExact(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        n = PyTuple_GET_SIZE(key);
    }
    if (n == 0 || n > t->ndim || t->numel == 0 ||
        tl_tensor_check_live(t) < 0) {
        return 0;
    }
    int64_t off = t->storage_offset;
    for (Py_ssize_t j = 0; j < n; j++) {
        if (!PyLong_CheckExact(items[j])) {
            return 0;
        }
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(items[j], &overflow);
        int64_t size = t->sizes[j];
        if (overflow || (i == -1 && PyErr_Occurred()) || i < -size ||
            i >= size) {
            PyErr_Clear();
            return 0;
        }
        /* In bounds of a valid non-empty tensor: |i * stride| and the sum
         * stay inside the storage, so no overflow check is needed. */
        off += (i < 0 ? i + size : i) * t->strides[j];
    }
    /* extent check: faults helper (the view reads nothing; an element
     * read goes through the general paths) */
    *out = tl_impl_view(t, t->ndim - (int)n, t->sizes + n, t->strides + n,
                        off);
    return 1;
}

static PyObject *tensor_getitem(PyObject *self, PyObject *key)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self);
    if (PySlice_Check(key) && t->ndim >= 1 && tl_tensor_check_live(t) == 0) {
        /* The most common key, t[a:b:c], straight to the view (a hot
         * path; the same steps as apply_key's K_SLICE).  A stale workspace
         * tensor takes the long way, which raises. */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) {
            return NULL;
        }
        Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)t->sizes[0],
                                               &start, &stop, step);
        tl_tensor_impl *v = tl_view_slice(t, 0, len == 0 ? 0 : start, step,
                                          len);
        return v ? tl_py_wrap(st, v) : tl_py_raise(st);
    }
    tl_tensor_impl *iv = NULL;
    if (int_key_view(t, key, &iv)) {
        return iv ? tl_py_wrap(st, iv) : tl_py_raise(st);
    }
    /* Declared after the fast paths: zeroing a is a loop over ~1 KiB. */
    parsed_key k;
    applied_key a = {0};
    PyObject *res = NULL;
    if (parse_key(st, t, key, &k) < 0) {
        return NULL;
    }
    if (apply_key(st, t, &k, &a) < 0) {
        goto done;
    }
    if (a.nadv == 0) {
        tl_tensor_impl *v = a.view;
        a.view = NULL;
        if (v == t) {
            tl_tensor_impl *alias = tl_view_alias(t);
            tl_tensor_decref(v);
            v = alias;
        }
        res = v ? tl_py_wrap(st, v) : tl_py_raise(st);
        goto done;
    }
    tl_tensor_impl *g = tl_index_gather(a.view, a.nadv, a.dims, a.idx);
    if (!g) {
        tl_py_raise(st);
        goto done;
    }
    int nb = a.idx[0]->ndim;
    if (a.adjacent && a.dims[0] > 0 && nb + 0 < g->ndim + 1) {
        tl_tensor_impl *p = place_adv_dims(g, nb, a.dims[0], false);
        tl_tensor_decref(g);
        if (!p) {
            tl_py_raise(st);
            goto done;
        }
        g = tl_op_contiguous(p, TL_FORMAT_CONTIGUOUS);
        tl_tensor_decref(p);
        if (!g) {
            tl_py_raise(st);
            goto done;
        }
        if (g->base) {
            /* contiguous() returned a view: give it its own storage. */
            tl_tensor_impl *c = tl_op_clone(g, TL_FORMAT_CONTIGUOUS);
            tl_tensor_decref(g);
            if (!c) {
                tl_py_raise(st);
                goto done;
            }
            g = c;
        }
    }
    res = tl_py_wrap(st, g);
done:
    applied_clear(&a);
    key_clear(&k);
    return res;
}

static int tensor_setitem(PyObject *self, PyObject *key, PyObject *value)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self);
    parsed_key k;
    applied_key a = {0};
    tl_tensor_impl *vals = NULL;
    int rc = -1;
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "tensors do not support item "
                        "deletion");
        return -1;
    }
    if (tl_tensor_check_writable(t) < 0) {
        return tl_py_raise_int(st);
    }
    if (parse_key(st, t, key, &k) < 0) {
        return -1;
    }
    if (apply_key(st, t, &k, &a) < 0) {
        goto done;
    }
    tl_scalar sc;
    int is_scalar = tl_py_is_tensor(st, value) ? 0
                                               : tl_py_as_scalar(value, &sc);
    if (is_scalar < 0) {
        goto done;
    }
    if (a.nadv == 0 && is_scalar) {
        if (tl_op_fill_(a.view, &sc) < 0) {
            tl_py_raise(st);
            goto done;
        }
        rc = 0;
        goto done;
    }
    if (tl_py_is_tensor(st, value)) {
        vals = tl_py_impl(value);
        tl_tensor_incref(vals);
    } else {
        PyObject *vt = tl_py_tensor_from_data(st, value, t->dtype,
                                              tl_device_cpu());
        if (!vt) {
            goto done;
        }
        vals = tl_py_impl(vt);
        tl_tensor_incref(vals);
        Py_DECREF(vt);
    }
    if (a.nadv == 0) {
        if (tl_op_copy_(a.view, vals) < 0) {
            tl_py_raise(st);
            goto done;
        }
        rc = 0;
        goto done;
    }
    /* The shape the gathered result would have, in its final layout. */
    tl_tensor_impl *ix0 = a.idx[0];
    int nb = ix0->ndim;
    int64_t shape[TL_MAX_DIMS];
    int n = 0;
    int p = a.adjacent ? a.dims[0] : 0;
    uint64_t advmask = 0;
    for (int i = 0; i < a.nadv; i++) {
        advmask |= (uint64_t)1 << a.dims[i];
    }
    int64_t rs[TL_MAX_DIMS];
    int rn = 0;
    for (int d = 0; d < a.view->ndim; d++) {
        if (!((advmask >> d) & 1u)) {
            rs[rn++] = a.view->sizes[d];
        }
    }
    for (int i = 0; i < p; i++) {
        shape[n++] = rs[i];
    }
    for (int i = 0; i < nb; i++) {
        shape[n++] = ix0->sizes[i];
    }
    for (int i = p; i < rn; i++) {
        shape[n++] = rs[i];
    }
    tl_tensor_impl *conv = tl_op_to_dtype(vals, (tl_dtype)t->dtype, false);
    if (!conv) {
        tl_py_raise(st);
        goto done;
    }
    tl_tensor_impl *ex = tl_view_expand(conv, n, shape);
    tl_tensor_decref(conv);
    if (!ex) {
        tl_py_raise(st);
        goto done;
    }
    tl_tensor_impl *front = p > 0 ? place_adv_dims(ex, nb, p, true) : ex;
    if (p > 0) {
        tl_tensor_decref(ex);
    }
    if (!front) {
        tl_py_raise(st);
        goto done;
    }
    /* The values may alias the destination: scatter from a private copy
     * when they share memory. */
    if (front->storage->block == a.view->storage->block) {
        tl_tensor_impl *c = tl_op_clone(front, TL_FORMAT_CONTIGUOUS);
        tl_tensor_decref(front);
        front = c;
        if (!front) {
            tl_py_raise(st);
            goto done;
        }
    }
    if (tl_index_scatter_(a.view, a.nadv, a.dims, a.idx, front) < 0) {
        tl_tensor_decref(front);
        tl_py_raise(st);
        goto done;
    }
    tl_tensor_decref(front);
    rc = 0;
done:
    tl_tensor_decref(vals);
    applied_clear(&a);
    key_clear(&k);
    return rc;
}

PyType_Slot tl_index_tensor_slots[] = {
    {Py_mp_subscript, tensor_getitem},
    {Py_mp_ass_subscript, tensor_setitem},
    {0, NULL},
};

static PyObject *t_nonzero(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *r = tl_index_nonzero(tl_py_impl(self));
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

PyMethodDef tl_index_tensor_methods[] = {
    {"nonzero", t_nonzero, METH_NOARGS,
     "nonzero($self, /)\n--\n\nIndices of the nonzero elements, shape "
     "(n, ndim)."},
    {NULL},
};
