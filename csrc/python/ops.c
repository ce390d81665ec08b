/* csrc/python/ops.c — Python bindings of the operators: the number
 * protocol (with reflected and in-place forms), rich comparisons,
 * functional forms tensorlib.add(a, b, out=), in-place methods a.add_(b),
 * unary ops, where/clamp, copy_/fill_/zero_, to/contiguous/clone, type
 * promotion queries and the thread count.  Python scalars become wrapped
 * numbers (0-dim tensors flagged TL_FLAG_WRAPPED_NUMBER) so promotion
 * treats them as PyTorch does; NumPy arrays are viewed without a copy. */
#include <string.h>

#include "pytl.h"
#include "tensorlib/device_table.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"


/* ---- operands -------------------------------------------------------------- */

/* Converts an operand: a tensor (its impl), a Python or NumPy scalar (a
 * wrapped number), or a NumPy array (a zero-copy view).  Returns: a
 * borrowed reference when *owned comes back false (o is a tensor), else a
 * new reference; NULL with no exception set when o is none of those (the
 * caller returns NotImplemented or raises TypeError), NULL with an
 * exception on error. */
static tl_tensor_impl *operand_maybe_borrowed(tl_mstate *st, PyObject *o,
                                              bool *owned)
{
    *owned = false;
    if (tl_py_is_tensor(st, o)) {
        /* Borrowed: the caller's argument keeps o, hence its impl, alive
         * for the whole call (a hot path: no atomic pair per operand). */
        return tl_py_impl(o);
    }
    *owned = true;
    tl_scalar s;
    int r = tl_py_as_scalar(o, &s);
    if (r < 0) {
        return NULL;
    }
    if (r > 0) {
        tl_tensor_impl *t = tl_scalar_to_tensor(&s);
        if (!t) {
            tl_py_raise(st);
        }
        return t;
    }
    if (tl_py_is_ndarray(o)) {
        PyObject *v = tl_py_from_numpy(st, o);
        if (!v) {
            return NULL;
        }
        tl_tensor_impl *t = tl_py_impl(v);
        tl_tensor_incref(t);
        Py_DECREF(v);
        return t;
    }
    return NULL;
}

/* Issue 22: the operator path (binary()) reuses one wrapped-number tensor
 * per scalar kind (Python int -> int64, float -> float64) instead of
 * allocating one per call: `a * 2.0` then allocates only its output.  A
 * cached tensor is reused only while nothing but this cache holds it
 * (refcount 1, no Python object, storage not shared), so a tensor another
 * thread is still running with (it holds a reference while the GIL is
 * released), or one an op handed back, is never rewritten: the cache then
 * allocates as before.  Taken and returned with the GIL held.  The kernel
 * never reads the tensor's memory: the iterator inlines one-element
 * inputs at build time. */
static tl_tensor_impl *scalar_cache[2];

/* A wrapped number holding o, borrowed from the cache when it can be.
 * Returns: new reference; NULL with no exception when o is not a Python
 * int or float (the caller converts it the general way), NULL with an
 * exception on error. */
static tl_tensor_impl *cached_scalar(tl_mstate *st, PyObject *o)
{
    tl_scalar s;
    int slot;
    if (PyFloat_CheckExact(o)) {
        s = tl_scalar_float(PyFloat_AS_DOUBLE(o));
        slot = 1;
    } else if (PyLong_CheckExact(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return NULL;
        }
        s = tl_scalar_int(v);
        slot = 0;
    } else {
        return NULL;
    }
    tl_tensor_impl *c = scalar_cache[slot];
    if (c && atomic_load_explicit(&c->refcnt, memory_order_acquire) == 1 &&
        !c->pyobj && !c->base &&
        atomic_load_explicit(&c->storage->refcnt, memory_order_acquire) ==
            1) {
        /* The slot's dtype: int64 for ints, float64 for floats. */
        if (slot == 0) {
            int64_t v = s.v.i;
            memcpy(tl_impl_data(c), &v, sizeof v);
        } else {
            double v = s.v.f;
            memcpy(tl_impl_data(c), &v, sizeof v);
        }
        tl_tensor_incref(c);
        return c;
    }
    tl_tensor_impl *t = tl_scalar_to_tensor(&s);
    if (!t) {
        tl_py_raise(st);
        return NULL;
    }
    if (!c) {
        tl_tensor_incref(t);
        scalar_cache[slot] = t; /* the cache's reference */
    }
    return t;
}

/* As operand_maybe_borrowed.  Returns: new reference, or NULL as it. */
static tl_tensor_impl *operand(tl_mstate *st, PyObject *o)
{
    bool owned;
    tl_tensor_impl *t = operand_maybe_borrowed(st, o, &owned);
    if (t && !owned) {
        tl_tensor_incref(t);
    }
    return t;
}

static tl_mstate *state_of_pair(PyObject *a, PyObject *b)
{
    PyObject *m = PyType_GetModuleByDef(Py_TYPE(a), &tl_module_def);
    if (!m) {
        PyErr_Clear();
        m = PyType_GetModuleByDef(Py_TYPE(b), &tl_module_def);
    }
    return m ? tl_state_of_module(m) : NULL;
}

/* ---- binary ops -------------------------------------------------------------- */

/* a <op> b with optional out and alpha; self_result: return out's object.
 * Returns: new reference, NotImplemented when an operand is foreign and
 * `protocol` is set. */
static PyObject *binary(tl_mstate *st, int op, PyObject *a, PyObject *b,
                        PyObject *out, PyObject *alpha, bool protocol)
{
    tl_tensor_impl *ai = NULL, *bi = NULL, *r = NULL;
    bool a_owned = false, b_owned = false;
    PyObject *res = NULL;
    tl_scalar al;
    if (tl_py_is_tensor(st, a)) {
        ai = tl_py_impl(a); /* borrowed, as operand_maybe_borrowed */
    } else if ((ai = cached_scalar(st, a)) != NULL) {
        a_owned = true;
    } else if (!PyErr_Occurred()) {
        ai = operand_maybe_borrowed(st, a, &a_owned);
    }
    if (!ai) {
        goto foreign;
    }
    if (tl_py_is_tensor(st, b)) {
        bi = tl_py_impl(b);
    } else if ((bi = cached_scalar(st, b)) != NULL) {
        b_owned = true;
    } else if (!PyErr_Occurred()) {
        bi = operand_maybe_borrowed(st, b, &b_owned);
    }
    if (!bi) {
        goto foreign;
    }
    if (alpha && alpha != Py_None) {
        int k = tl_py_as_scalar(alpha, &al);
        if (k <= 0) {
            if (k == 0) {
                PyErr_Format(PyExc_TypeError, "alpha must be a number, not "
                             "%.100s", Py_TYPE(alpha)->tp_name);
            }
            goto done;
        }
    }
    tl_tensor_impl *oi;
    if (tl_py_parse_out(st, out, &oi, tl_op_binary_name(op)) < 0) {
        goto done;
    }
    r = tl_op_binary(op, oi, ai, bi, alpha && alpha != Py_None ? &al : NULL);
    if (!r) {
        tl_py_raise(st);
        goto done;
    }
    res = tl_py_wrap(st, r);
    goto done;
foreign:
    if (!PyErr_Occurred()) {
        if (protocol) {
            res = Py_NewRef(Py_NotImplemented);
        } else {
            PyObject *bad = ai ? b : a;
            PyErr_Format(PyExc_TypeError,
                         "%s(): expected a tensor or a number, got %.100s",
                         tl_op_binary_name(op), Py_TYPE(bad)->tp_name);
        }
    }
done:
    if (a_owned) {
        tl_tensor_decref(ai);
    }
    if (b_owned) {
        tl_tensor_decref(bi);
    }
    return res;
}

static PyObject *binary_protocol(PyObject *a, PyObject *b, int op)
{
    tl_mstate *st = state_of_pair(a, b);
    if (!st) {
        return NULL;
    }
    return binary(st, op, a, b, NULL, NULL, true);
}

static PyObject *inplace_protocol(PyObject *a, PyObject *b, int op)
{
    tl_mstate *st = state_of_pair(a, b);
    if (!st) {
        return NULL;
    }
    return binary(st, op, a, b, a, NULL, true);
}

#define NB_BINARY(name, op)                                                 \
    static PyObject *nb_##name(PyObject *a, PyObject *b)                    \
    {                                                                       \
        return binary_protocol(a, b, op);                                   \
    }                                                                       \
    static PyObject *nb_i##name(PyObject *a, PyObject *b)                   \
    {                                                                       \
        return inplace_protocol(a, b, op);                                  \
    }

NB_BINARY(add, TL_BINARY_ADD)
NB_BINARY(sub, TL_BINARY_SUB)
NB_BINARY(mul, TL_BINARY_MUL)
NB_BINARY(truediv, TL_BINARY_DIV)
NB_BINARY(floordiv, TL_BINARY_FLOOR_DIVIDE)
NB_BINARY(mod, TL_BINARY_REMAINDER)
NB_BINARY(and, TL_BINARY_BITWISE_AND)
NB_BINARY(or, TL_BINARY_BITWISE_OR)
NB_BINARY(xor, TL_BINARY_BITWISE_XOR)
NB_BINARY(lshift, TL_BINARY_LSHIFT)
NB_BINARY(rshift, TL_BINARY_RSHIFT)

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_protocol(a, b, TL_BINARY_POW);
}

static PyObject *nb_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return inplace_protocol(a, b, TL_BINARY_POW);
}

static PyObject *richcompare(PyObject *a, PyObject *b, int cmp)
{
    static const int ops[] = {TL_BINARY_LT, TL_BINARY_LE, TL_BINARY_EQ,
                              TL_BINARY_NE, TL_BINARY_GT, TL_BINARY_GE};
    tl_mstate *st = state_of_pair(a, b);
    if (!st) {
        return NULL;
    }
    if (b == Py_None && (cmp == Py_EQ || cmp == Py_NE)) {
        return PyBool_FromLong(cmp == Py_NE); /* t == None is False */
    }
    return binary(st, ops[cmp], a, b, NULL, NULL, true);
}

static Py_hash_t tensor_hash(PyObject *self)
{
    /* By identity, as torch.Tensor: hash(t) == id(t). */
    return (Py_hash_t)(intptr_t)self;
}

/* ---- unary ops ----------------------------------------------------------------- */

static PyObject *unary(tl_mstate *st, int op, PyObject *a, PyObject *out)
{
    if (!tl_py_is_tensor(st, a)) {
        PyErr_Format(PyExc_TypeError, "%s(): expected a tensor, got %.100s",
                     tl_op_unary_name(op), Py_TYPE(a)->tp_name);
        return NULL;
    }
    tl_tensor_impl *oi;
    if (tl_py_parse_out(st, out, &oi, tl_op_unary_name(op)) < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_unary(op, oi, tl_py_impl(a));
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static PyObject *nb_neg(PyObject *a)
{
    return unary(tl_state_of(a), TL_UNARY_NEG, a, NULL);
}

static PyObject *nb_abs(PyObject *a)
{
    return unary(tl_state_of(a), TL_UNARY_ABS, a, NULL);
}

static PyObject *nb_invert(PyObject *a)
{
    return unary(tl_state_of(a), TL_UNARY_BITWISE_NOT, a, NULL);
}

static PyObject *nb_pos(PyObject *a)
{
    return Py_NewRef(a);
}

/* Method and functional forms, generated per row of TL_BINARY_OPS
 * (tensorlib/op_table.h).  Methods: t.op(other, *, [alpha=None,]
 * out=None) and t.op_(other, *, [alpha=None]).  Functions:
 * tensorlib.op(input, other, *, [alpha=None,] out=None).  Every form
 * parses alpha=, so that ops without one refuse a non-None alpha with
 * TypeError naming it (core's check) and accept alpha=None, as before
 * the table; only add and sub (form ALPHA_IP) show it in their
 * signature. */
static const char *const bin_names[] = {"other", "alpha", "out", NULL};
static const char *const fn_names[] = {"input", "other", "alpha", "out",
                                       NULL};

static PyObject *bin_method(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, int op,
                            bool inplace)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kwnames, bin_names, 1, a,
                         tl_op_binary_name(op)) < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_Format(PyExc_TypeError, "%s() missing argument 'other'",
                     tl_op_binary_name(op));
        return NULL;
    }
    if (inplace && a[2]) {
        PyErr_SetString(PyExc_TypeError, "in-place methods take no out=");
        return NULL;
    }
    return binary(tl_state_of(self), op, self, a[0], inplace ? self : a[2],
                  a[1], false);
}

static PyObject *bin_function(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames, int op)
{
    PyObject *a[4];
    if (tl_py_parse_args(args, nargs, kwnames, fn_names, 2, a,
                         tl_op_binary_name(op)) < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_Format(PyExc_TypeError, "%s() needs input and other",
                     tl_op_binary_name(op));
        return NULL;
    }
    return binary(tl_state_of_module(m), op, a[0], a[1], a[3], a[2], false);
}

/* The C functions of one row, by its form: m_<py> (method), m_<py>_
 * (in place), f_<py> (function); CUSTOM rows are bound by hand. */
#define BIN_M_(py, op)                                                      \
    static PyObject *m_##py(PyObject *self, PyObject *const *args,          \
                            Py_ssize_t nargs, PyObject *kw)                 \
    {                                                                       \
        return bin_method(self, args, nargs, kw, op, false);                \
    }                                                                       \
    static PyObject *f_##py(PyObject *m, PyObject *const *args,             \
                            Py_ssize_t nargs, PyObject *kw)                 \
    {                                                                       \
        return bin_function(m, args, nargs, kw, op);                        \
    }
#define BIN_IP_(py, op)                                                     \
    static PyObject *m_##py##_(PyObject *self, PyObject *const *args,       \
                               Py_ssize_t nargs, PyObject *kw)              \
    {                                                                       \
        return bin_method(self, args, nargs, kw, op, true);                 \
    }
#define BIN_FORMS_IP(py, op) BIN_M_(py, op) BIN_IP_(py, op)
#define BIN_FORMS_ALPHA_IP(py, op) BIN_M_(py, op) BIN_IP_(py, op)
#define BIN_FORMS_NOIP(py, op) BIN_M_(py, op)
#define BIN_FORMS_CUSTOM(py, op)
#define BIN_FORMS(ID, name, py, set, res, impl, form, flags, hint, doc)     \
    BIN_FORMS_##form(py, TL_BINARY_##ID)
TL_BINARY_OPS(BIN_FORMS)
#undef BIN_FORMS
#define BIN_ALIAS(py, ID, sig) BIN_M_(py, TL_BINARY_##ID)
TL_BINARY_PY_ALIASES(BIN_ALIAS)
#undef BIN_ALIAS

/* div and divide take PyTorch's rounding_mode= (None, "trunc", "floor");
 * true_divide is div without it.  Python's / stays true division. */
static int parse_rounding(PyObject *o, int *mode)
{
    *mode = TL_DIV_TRUE;
    if (!o || o == Py_None) {
        return 0;
    }
    if (PyUnicode_Check(o)) {
        if (PyUnicode_CompareWithASCIIString(o, "trunc") == 0) {
            *mode = TL_DIV_TRUNC;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(o, "floor") == 0) {
            *mode = TL_DIV_FLOOR;
            return 0;
        }
    } else {
        /* A wrong type is a TypeError (DESIGN.md "Errors"), as PyTorch's;
         * only an unknown string is a bad value. */
        PyErr_Format(PyExc_TypeError, "div(): rounding_mode must be None "
                     "or a str, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError, "div(): rounding_mode must be None, "
                 "'trunc' or 'floor', not %.100R", o);
    return -1;
}

static PyObject *div_impl(tl_mstate *st, PyObject *a, PyObject *b,
                          PyObject *mode_o, PyObject *out)
{
    int mode;
    if (parse_rounding(mode_o, &mode) < 0) {
        return NULL;
    }
    if (mode == TL_DIV_TRUE) {
        return binary(st, TL_BINARY_DIV, a, b, out, NULL, false);
    }
    tl_tensor_impl *ai = NULL, *bi = NULL, *oi, *r;
    PyObject *res = NULL;
    if (!(ai = operand(st, a)) || !(bi = operand(st, b))) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "div(): expected tensors or "
                         "numbers, got %.100s and %.100s",
                         Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name);
        }
        goto done;
    }
    if (tl_py_parse_out(st, out, &oi, "div") < 0) {
        goto done;
    }
    r = tl_op_div_rounding(oi, ai, bi, mode);
    res = r ? tl_py_wrap(st, r) : tl_py_raise(st);
done:
    tl_tensor_decref(ai);
    tl_tensor_decref(bi);
    return res;
}

static const char *const divm_names[] = {"other", "rounding_mode", "out",
                                         NULL};
static const char *const divf_names[] = {"input", "other", "rounding_mode",
                                         "out", NULL};

static PyObject *m_divr(PyObject *self, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kw, divm_names, 1, a, "div") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "div() missing argument 'other'");
        return NULL;
    }
    return div_impl(tl_state_of(self), self, a[0], a[1], a[2]);
}

static PyObject *m_divr_(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kw, divm_names, 1, a, "div_") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "div_() missing argument 'other'");
        return NULL;
    }
    if (a[2]) {
        PyErr_SetString(PyExc_TypeError, "in-place methods take no out=");
        return NULL;
    }
    return div_impl(tl_state_of(self), self, a[0], a[1], self);
}

static PyObject *f_divr(PyObject *m, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[4];
    if (tl_py_parse_args(args, nargs, kw, divf_names, 2, a, "div") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "div() needs input and other");
        return NULL;
    }
    return div_impl(tl_state_of_module(m), a[0], a[1], a[2], a[3]);
}

static const char *const un_names[] = {"out", NULL};
static const char *const unf_names[] = {"input", "out", NULL};

static PyObject *un_method(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, int op,
                           bool inplace)
{
    PyObject *a[1];
    if (tl_py_parse_args(args, nargs, kwnames, un_names, 0, a,
                         tl_op_unary_name(op)) < 0) {
        return NULL;
    }
    if (inplace && a[0]) {
        PyErr_SetString(PyExc_TypeError, "in-place methods take no out=");
        return NULL;
    }
    return unary(tl_state_of(self), op, self, inplace ? self : a[0]);
}

static PyObject *un_function(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames, int op)
{
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kwnames, unf_names, 1, a,
                         tl_op_unary_name(op)) < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_Format(PyExc_TypeError, "%s() needs input",
                     tl_op_unary_name(op));
        return NULL;
    }
    return unary(tl_state_of_module(m), op, a[0], a[1]);
}

#define UN_M_(py, op)                                                       \
    static PyObject *m_##py(PyObject *self, PyObject *const *args,          \
                            Py_ssize_t nargs, PyObject *kw)                 \
    {                                                                       \
        return un_method(self, args, nargs, kw, op, false);                 \
    }                                                                       \
    static PyObject *f_##py(PyObject *m, PyObject *const *args,             \
                            Py_ssize_t nargs, PyObject *kw)                 \
    {                                                                       \
        return un_function(m, args, nargs, kw, op);                         \
    }
#define UN_IP_(py, op)                                                      \
    static PyObject *m_##py##_(PyObject *self, PyObject *const *args,       \
                               Py_ssize_t nargs, PyObject *kw)              \
    {                                                                       \
        return un_method(self, args, nargs, kw, op, true);                  \
    }
#define UN_FORMS_IP(py, op) UN_M_(py, op) UN_IP_(py, op)
#define UN_FORMS_NOIP(py, op) UN_M_(py, op)
#define UN_FORMS_CUSTOM(py, op)
#define UN_FORMS(ID, name, py, set, res, impl, form, flags, hint, doc)      \
    UN_FORMS_##form(py, TL_UNARY_##ID)
TL_UNARY_OPS(UN_FORMS)
#undef UN_FORMS
#define UN_ALIAS(py, ID, sig) UN_M_(py, TL_UNARY_##ID)
TL_UNARY_PY_ALIASES(UN_ALIAS)
#undef UN_ALIAS

/* round takes a keyword-only decimals= (PyTorch's signature):
 * t.round(*, decimals=0, out=None), t.round_(*, decimals=0),
 * tensorlib.round(input, *, decimals=0, out=None). */
static PyObject *round_impl(tl_mstate *st, PyObject *a, PyObject *dec,
                            PyObject *out)
{
    int64_t d = 0;
    if (dec && dec != Py_None) {
        if (PyBool_Check(dec)) {
            PyErr_SetString(PyExc_TypeError,
                            "round(): decimals must be an int, not bool");
            return NULL;
        }
        if (tl_py_int64(dec, &d, "round(): decimals") < 0) {
            return NULL;
        }
    }
    if (d == 0) {
        return unary(st, TL_UNARY_ROUND, a, out);
    }
    if (!tl_py_is_tensor(st, a)) {
        PyErr_Format(PyExc_TypeError, "round(): expected a tensor, got "
                     "%.100s", Py_TYPE(a)->tp_name);
        return NULL;
    }
    tl_tensor_impl *oi;
    if (tl_py_parse_out(st, out, &oi, "round") < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_round_decimals(oi, tl_py_impl(a), d);
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static const char *const round_names[] = {"decimals", "out", NULL};
static const char *const roundf_names[] = {"input", "decimals", "out",
                                           NULL};

static PyObject *m_round(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kw, round_names, 0, a, "round") < 0) {
        return NULL;
    }
    return round_impl(tl_state_of(self), self, a[0], a[1]);
}

static PyObject *m_round_(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kw, round_names, 0, a, "round_") < 0) {
        return NULL;
    }
    if (a[1]) {
        PyErr_SetString(PyExc_TypeError, "in-place methods take no out=");
        return NULL;
    }
    return round_impl(tl_state_of(self), self, a[0], self);
}

static PyObject *f_round(PyObject *m, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kw)
{
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kw, roundf_names, 1, a, "round") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "round() needs input");
        return NULL;
    }
    return round_impl(tl_state_of_module(m), a[0], a[1], a[2]);
}

/* ---- where, clamp ----------------------------------------------------------------- */

static PyObject *do_where(tl_mstate *st, PyObject *c, PyObject *a,
                          PyObject *b, PyObject *out)
{
    tl_tensor_impl *ci = operand(st, c), *ai = NULL, *bi = NULL, *r = NULL;
    PyObject *res = NULL;
    if (!ci) {
        goto foreign;
    }
    ai = operand(st, a);
    if (!ai) {
        goto foreign;
    }
    bi = operand(st, b);
    if (!bi) {
        goto foreign;
    }
    tl_tensor_impl *oi;
    if (tl_py_parse_out(st, out, &oi, "where") < 0) {
        goto done;
    }
    r = tl_op_where(oi, ci, ai, bi);
    res = r ? tl_py_wrap(st, r) : tl_py_raise(st);
    goto done;
foreign:
    if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError,
                        "where(): expected tensors or numbers");
    }
done:
    tl_tensor_decref(ci);
    tl_tensor_decref(ai);
    tl_tensor_decref(bi);
    return res;
}

static PyObject *f_where(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    static const char *const names[] = {"condition", "input", "other", "out",
                                        NULL};
    PyObject *a[4];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "where") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1] || !a[2]) {
        PyErr_SetString(PyExc_TypeError,
                        "where(condition, input, other) needs all three");
        return NULL;
    }
    return do_where(tl_state_of_module(m), a[0], a[1], a[2], a[3]);
}

static PyObject *m_where(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"condition", "other", NULL};
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "where") < 0) {
        return NULL;
    }
    if (!a[0] || !a[1]) {
        PyErr_SetString(PyExc_TypeError, "where(condition, other)");
        return NULL;
    }
    return do_where(tl_state_of(self), a[0], self, a[1], NULL);
}

static PyObject *do_clamp(tl_mstate *st, PyObject *x, PyObject *lo,
                          PyObject *hi, PyObject *out, bool inplace)
{
    tl_tensor_impl *li = NULL, *hi_ = NULL, *r = NULL;
    PyObject *res = NULL;
    if (!tl_py_is_tensor(st, x)) {
        PyErr_SetString(PyExc_TypeError, "clamp(): expected a tensor");
        return NULL;
    }
    if (lo && lo != Py_None && !(li = operand(st, lo))) {
        goto foreign;
    }
    if (hi && hi != Py_None && !(hi_ = operand(st, hi))) {
        goto foreign;
    }
    tl_tensor_impl *oi = inplace ? tl_py_impl(x) : NULL;
    if (!inplace && tl_py_parse_out(st, out, &oi, "clamp") < 0) {
        goto done;
    }
    r = tl_op_clamp(oi, tl_py_impl(x), li, hi_);
    res = r ? tl_py_wrap(st, r) : tl_py_raise(st);
    goto done;
foreign:
    if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError,
                        "clamp(): min and max must be tensors or numbers");
    }
done:
    tl_tensor_decref(li);
    tl_tensor_decref(hi_);
    return res;
}

static PyObject *clamp_method(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames,
                              bool inplace)
{
    static const char *const names[] = {"min", "max", "out", NULL};
    PyObject *a[3];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "clamp") < 0) {
        return NULL;
    }
    return do_clamp(tl_state_of(self), self, a[0], a[1], a[2], inplace);
}

static PyObject *m_clamp(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    return clamp_method(self, args, nargs, kwnames, false);
}

static PyObject *m_clamp_(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return clamp_method(self, args, nargs, kwnames, true);
}

static PyObject *f_clamp(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    static const char *const names[] = {"input", "min", "max", "out", NULL};
    PyObject *a[4];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a, "clamp") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "clamp() needs input");
        return NULL;
    }
    return do_clamp(tl_state_of_module(m), a[0], a[1], a[2], a[3], false);
}

/* ---- copies and conversions --------------------------------------------------------- */

static PyObject *m_copy_(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"src", "non_blocking", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[2];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "copy_") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "copy_() needs src");
        return NULL;
    }
    tl_tensor_impl *src = operand(st, a[0]);
    if (!src) {
        if (!PyErr_Occurred()) {
            PyObject *t = tl_py_tensor_from_data(st, a[0], -1,
                                                 tl_device_cpu());
            if (!t) {
                return NULL;
            }
            src = tl_py_impl(t);
            tl_tensor_incref(src);
            Py_DECREF(t);
        } else {
            return NULL;
        }
    }
    int nb = a[1] ? PyObject_IsTrue(a[1]) : 0;
    int r = nb < 0 ? -1 : tl_op_copy_nb_(tl_py_impl(self), src, nb != 0);
    tl_tensor_decref(src);
    if (r < 0) {
        return nb < 0 ? NULL : tl_py_raise(st);
    }
    return Py_NewRef(self);
}

static PyObject *m_fill_(PyObject *self, PyObject *value)
{
    tl_mstate *st = tl_state_of(self);
    tl_scalar s;
    if (tl_py_is_tensor(st, value)) {
        tl_tensor_impl *v = tl_py_impl(value);
        if (v->ndim != 0) {
            PyErr_Format(st->ShapeError, "fill_ only supports 0-dimension "
                         "value tensor but got tensor with %d dimensions",
                         v->ndim);
            return NULL;
        }
        if (tl_op_copy_(tl_py_impl(self), v) < 0) {
            return tl_py_raise(st);
        }
        return Py_NewRef(self);
    }
    int k = tl_py_as_scalar(value, &s);
    if (k <= 0) {
        if (k == 0) {
            PyErr_Format(PyExc_TypeError, "fill_(): expected a number, got "
                         "%.100s", Py_TYPE(value)->tp_name);
        }
        return NULL;
    }
    if (tl_op_fill_(tl_py_impl(self), &s) < 0) {
        return tl_py_raise(st);
    }
    return Py_NewRef(self);
}

static PyObject *m_zero_(PyObject *self, PyObject *unused)
{
    tl_scalar s = tl_scalar_int(0);
    if (tl_op_fill_(tl_py_impl(self), &s) < 0) {
        return tl_py_raise(tl_state_of(self));
    }
    return Py_NewRef(self);
}

static PyObject *m_contiguous(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"memory_format", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[1] = {NULL};
    int fmt = TL_FORMAT_CONTIGUOUS;
    if ((nargs != 0 || kwnames != NULL) && /* t.contiguous(): nothing */
        (tl_py_parse_args(args, nargs, kwnames, names, 1, a, "contiguous") < 0
         || tl_py_parse_memory_format(st, a[0], &fmt) < 0)) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_contiguous(tl_py_impl(self),
                                         (tl_memory_format)fmt);
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static PyObject *m_clone(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"memory_format", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[1];
    int fmt = TL_FORMAT_PRESERVE;
    if (tl_py_parse_args(args, nargs, kwnames, names, 0, a, "clone") < 0 ||
        tl_py_parse_memory_format(st, a[0], &fmt) < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_clone(tl_py_impl(self), (tl_memory_format)fmt);
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static PyObject *f_clone(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    tl_mstate *st = tl_state_of_module(m);
    if (nargs < 1 || !tl_py_is_tensor(st, args[0])) {
        PyErr_SetString(PyExc_TypeError, "clone(input, memory_format=...)");
        return NULL;
    }
    return m_clone(args[0], args + 1, nargs - 1, kwnames);
}

/* t.to(dtype) / t.to(device) / t.to(device, dtype) / t.to(other), with
 * copy= and memory_format=. */
static PyObject *m_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    static const char *const names[] = {"a", "b", "dtype", "device", "copy",
                                        "memory_format", "non_blocking",
                                        NULL};
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self);
    PyObject *a[7];
    tl_dtype dt = (tl_dtype)t->dtype;
    tl_device dev = t->device;
    int fmt = TL_FORMAT_PRESERVE;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a, "to") < 0) {
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *o = a[i];
        if (!o || o == Py_None) {
            continue;
        }
        if (tl_py_is_tensor(st, o)) {
            dt = (tl_dtype)tl_py_impl(o)->dtype;
            dev = tl_py_impl(o)->device;
        } else if (Py_IS_TYPE(o, st->DeviceType) || PyUnicode_Check(o)) {
            tl_dtype maybe;
            if (PyUnicode_Check(o) && tl_dtype_parse(PyUnicode_AsUTF8(o),
                                                     &maybe) == 0) {
                dt = maybe;
            } else {
                tl_error_clear();
                if (tl_py_parse_device(st, o, &dev) < 0) {
                    return NULL;
                }
            }
        } else if (tl_py_parse_dtype(st, o, &dt) < 0) {
            return NULL;
        }
    }
    if (tl_py_parse_dtype(st, a[2], &dt) < 0 ||
        tl_py_parse_device(st, a[3], &dev) < 0 ||
        tl_py_parse_memory_format(st, a[5], &fmt) < 0) {
        return NULL;
    }
    int copy = a[4] ? PyObject_IsTrue(a[4]) : 0;
    if (copy < 0) {
        return NULL;
    }
    int non_blocking = a[6] ? PyObject_IsTrue(a[6]) : 0;
    if (non_blocking < 0) {
        return NULL;
    }
    tl_tensor_impl *r;
    if (!tl_device_eq(dev, t->device)) {
        /* Another device (Note [Cross-device copies] in
         * csrc/core/device_table.c): "tensorlib was built without CUDA" or
         * "no CUDA device is available" when it cannot be. */
        tl_tensor_impl *c = NULL;
        if (fmt != TL_FORMAT_PRESERVE && !tl_tensor_is_contiguous(t, fmt)) {
            if (tl_device_require(dev) < 0 ||
                (c = tl_op_contiguous(t, (tl_memory_format)fmt)) == NULL) {
                return tl_py_raise(st);
            }
        }
        r = tl_op_to_device(c ? c : t, dev, dt, copy != 0,
                            non_blocking != 0);
        tl_tensor_decref(c);
        return r ? tl_py_wrap(st, r) : tl_py_raise(st);
    }
    if (fmt != TL_FORMAT_PRESERVE && !tl_tensor_is_contiguous(t, fmt)) {
        tl_tensor_impl *c = tl_op_contiguous(t, (tl_memory_format)fmt);
        if (!c) {
            return tl_py_raise(st);
        }
        r = tl_op_to_dtype(c, dt, false);
        tl_tensor_decref(c);
    } else {
        r = tl_op_to_dtype(t, dt, copy != 0);
    }
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

static PyObject *convert(PyObject *self, tl_dtype dt)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *r = tl_op_to_dtype(tl_py_impl(self), dt, false);
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

#define CONVERT(name, dt)                                                   \
    static PyObject *m_##name(PyObject *self, PyObject *unused)             \
    {                                                                       \
        return convert(self, dt);                                           \
    }

CONVERT(float, TL_DTYPE_FLOAT32)
CONVERT(double, TL_DTYPE_FLOAT64)
CONVERT(half, TL_DTYPE_FLOAT16)
CONVERT(bfloat16, TL_DTYPE_BFLOAT16)
CONVERT(int, TL_DTYPE_INT32)
CONVERT(long, TL_DTYPE_INT64)
CONVERT(short, TL_DTYPE_INT16)
CONVERT(byte, TL_DTYPE_UINT8)
CONVERT(char, TL_DTYPE_INT8)
CONVERT(bool, TL_DTYPE_BOOL)
CONVERT(cfloat, TL_DTYPE_COMPLEX64)
CONVERT(cdouble, TL_DTYPE_COMPLEX128)

/* t.cpu(): itself on the CPU, else a (blocking) copy to the host. */
static PyObject *m_cpu(PyObject *self, PyObject *unused)
{
    tl_tensor_impl *t = tl_py_impl(self);
    if (t->device.type == TL_DEVICE_CPU) {
        return Py_NewRef(self);
    }
    tl_tensor_impl *r = tl_op_to_device(t, tl_device_cpu(), -1, false,
                                        false);
    return r ? tl_py_wrap(tl_state_of(self), r)
             : tl_py_raise(tl_state_of(self));
}

/* ---- promotion queries and threads ---------------------------------------------------- */

static PyObject *f_promote_types(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_dtype a = TL_DTYPE_FLOAT32, b = TL_DTYPE_FLOAT32;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "promote_types(type1, type2)");
        return NULL;
    }
    if (tl_py_parse_dtype(st, args[0], &a) < 0 ||
        tl_py_parse_dtype(st, args[1], &b) < 0) {
        return NULL;
    }
    if (a != b && (tl_dtype_is_float8(a) || tl_dtype_is_float8(b))) {
        PyErr_Format(PyExc_TypeError, "promotion for float8 types is not "
                     "supported, attempted to promote %s and %s",
                     tl_dtype_info_of(a)->name, tl_dtype_info_of(b)->name);
        return NULL;
    }
    return tl_py_dtype(st, tl_promote_types(a, b));
}

static PyObject *f_can_cast(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_dtype a = TL_DTYPE_FLOAT32, b = TL_DTYPE_FLOAT32;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "can_cast(from_, to)");
        return NULL;
    }
    if (tl_py_parse_dtype(st, args[0], &a) < 0 ||
        tl_py_parse_dtype(st, args[1], &b) < 0) {
        return NULL;
    }
    return PyBool_FromLong(tl_can_cast(a, b));
}

static PyObject *f_result_type(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_tensor_impl *ops[2] = {NULL, NULL};
    PyObject *res = NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "result_type(tensor1, tensor2)");
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        ops[i] = operand(st, args[i]);
        if (!ops[i]) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "result_type(): expected "
                             "tensors or numbers, got %.100s",
                             Py_TYPE(args[i])->tp_name);
            }
            goto done;
        }
    }
    res = tl_py_dtype(st, tl_result_type(2, ops));
done:
    tl_tensor_decref(ops[0]);
    tl_tensor_decref(ops[1]);
    return res;
}

static PyObject *f_set_num_threads(PyObject *m, PyObject *arg)
{
    int64_t n;
    if (tl_py_int64(arg, &n, "set_num_threads(): n") < 0) {
        return NULL;
    }
    if (n < 1 || n > 1024) {
        PyErr_Format(PyExc_ValueError, "set_num_threads(): n must be in "
                     "[1, 1024], got %lld", (long long)n);
        return NULL;
    }
    if (tl_set_num_threads((int)n) < 0) {
        return tl_py_raise(tl_state_of_module(m));
    }
    Py_RETURN_NONE;
}

static PyObject *f_get_num_threads(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(tl_get_num_threads());
}

/* The GIL is released around big loops, after the iterator has pinned
 * every operand's memory block (DESIGN.md "Threads"). */
static void *release_gil(void)
{
    if (!PyGILState_Check()) {
        return NULL;
    }
    return PyEval_SaveThread();
}

static void reacquire_gil(void *token)
{
    if (token) {
        PyEval_RestoreThread((PyThreadState *)token);
    }
}

/* ---- the op table, for tests ------------------------------------------- */

/* Returns: new reference to a dict describing one row, or NULL. */
static PyObject *op_row_dict(const char *kind, int op, const tl_op_info *r)
{
    static const char *const results[] = {"same", "float", "bool",
                                          "logical", "real", "double"};
    static const struct {
        unsigned bit;
        const char *name;
    } flag_names[] = {
        {TL_OPF_INPLACE, "inplace"},
        {TL_OPF_ALPHA, "alpha"},
        {TL_OPF_CUSTOM_PY, "custom_py"},
        {TL_OPF_ZERO_DIV, "zero_div"},
        {TL_OPF_NO_BOOL_OPERAND, "no_bool_operand"},
        {TL_OPF_INT_IDENTITY, "int_identity"},
        {TL_OPF_BOOL_AS_INT64, "bool_as_int64"},
        {TL_OPF_POW_EXPONENT, "pow_exponent"},
        {TL_OPF_LOGICAL_COMMON, "logical_common"},
        {TL_OPF_HALF_IN_DTYPE, "half_in_dtype"},
    };
    PyObject *d = NULL, *flags = NULL, *set = NULL, *cpu = NULL;
    PyObject *grain = NULL;
    if (!(flags = PyList_New(0)) || !(set = PyList_New(0)) ||
        !(cpu = PyList_New(0)) || !(grain = PyDict_New())) {
        goto fail;
    }
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++) {
        if (r->flags & flag_names[i].bit) {
            PyObject *f = PyUnicode_FromString(flag_names[i].name);
            if (!f || PyList_Append(flags, f) < 0) {
                Py_XDECREF(f);
                goto fail;
            }
            Py_DECREF(f);
        }
    }
    /* Compute dtypes: the set's, and those the CPU table has a loop for
     * (float16/bfloat16 never: they compute in float32). */
    for (int dt = 0; dt < TL_DTYPE_COUNT; dt++) {
        if (dt == TL_DTYPE_FLOAT16 || dt == TL_DTYPE_BFLOAT16) {
            continue;
        }
        PyObject *n = PyUnicode_FromString(
            tl_dtype_info_of((tl_dtype)dt)->name);
        if (!n) {
            goto fail;
        }
        const bool unary = strcmp(kind, "unary") == 0;
        int has = unary ? tl_op_unary_has_kernel(op, (tl_dtype)dt)
                        : tl_op_binary_has_kernel(op, (tl_dtype)dt);
        int64_t g = unary ? tl_op_unary_grain(op, (tl_dtype)dt)
                          : tl_op_binary_grain(op, (tl_dtype)dt);
        PyObject *gv = has ? PyLong_FromLongLong(g) : NULL;
        if ((tl_op_set_has_dtype(r->set, (tl_dtype)dt) &&
             PyList_Append(set, n) < 0) ||
            (has && (!gv || PyList_Append(cpu, n) < 0 ||
                     PyDict_SetItem(grain, n, gv) < 0))) {
            Py_XDECREF(gv);
            Py_DECREF(n);
            goto fail;
        }
        Py_XDECREF(gv);
        Py_DECREF(n);
    }
    d = Py_BuildValue("{s:s,s:i,s:s,s:s,s:O,s:O,s:O,s:s,s:O,s:s,s:s}",
                      "kind", kind, "id", op, "name", r->name, "py", r->py,
                      "set", set, "cpu_kernels", cpu, "grain", grain,
                      "result", results[r->res], "flags", flags, "hint",
                      r->hint, "doc", r->doc);
fail:
    Py_XDECREF(grain);
    Py_XDECREF(flags);
    Py_XDECREF(set);
    Py_XDECREF(cpu);
    return d;
}

/* _C._op_table(): every row of both tables, then the Python aliases
 * ({"kind": "alias", "py", "of", "sig"}).  Returns: new reference. */
static PyObject *f_op_table(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    PyObject *rows = PyList_New(0), *d;
    if (!rows) {
        return NULL;
    }
    for (int op = 0; op < TL_UNARY_OP_COUNT; op++) {
        if (!(d = op_row_dict("unary", op, tl_op_unary_info(op))) ||
            PyList_Append(rows, d) < 0) {
            goto fail;
        }
        Py_DECREF(d);
    }
    for (int op = 0; op < TL_BINARY_OP_COUNT; op++) {
        if (!(d = op_row_dict("binary", op, tl_op_binary_info(op))) ||
            PyList_Append(rows, d) < 0) {
            goto fail;
        }
        Py_DECREF(d);
    }
#define ALIAS_ROW(alias, ID, sig, of)                                       \
    if (!(d = Py_BuildValue("{s:s,s:s,s:s,s:s}", "kind", "alias", "py",     \
                            #alias, "of", of, "sig", #sig)) ||              \
        PyList_Append(rows, d) < 0) {                                       \
        goto fail;                                                          \
    }                                                                       \
    Py_DECREF(d);
#define U_ALIAS(alias, ID, sig)                                             \
    ALIAS_ROW(alias, ID, sig, tl_op_unary_info(TL_UNARY_##ID)->py)
#define B_ALIAS(alias, ID, sig)                                             \
    ALIAS_ROW(alias, ID, sig, tl_op_binary_info(TL_BINARY_##ID)->py)
    TL_UNARY_PY_ALIASES(U_ALIAS)
    TL_BINARY_PY_ALIASES(B_ALIAS)
#undef U_ALIAS
#undef B_ALIAS
#undef ALIAS_ROW
    return rows;
fail:
    Py_XDECREF(d);
    Py_DECREF(rows);
    return NULL;
}

/* ---- tables ----------------------------------------------------------------------------- */

/* Method and function entries of the table's rows (tensorlib/op_table.h):
 * name, C function, __text_signature__ and docstring, by form. */
#define SIG_ALPHA_M "($self, other, *, alpha=None, out=None)"
#define SIG_ALPHA_IP "($self, other, *, alpha=None)"
#define SIG_ALPHA_F "(input, other, *, alpha=None, out=None)"
#define SIG_PLAIN_M "($self, other, *, out=None)"
#define SIG_PLAIN_IP "($self, other)"
#define SIG_PLAIN_F "(input, other, *, out=None)"
#define SIG_UN_M "($self, *, out=None)"
#define SIG_UN_IP "($self)"
#define SIG_UN_F "(input, *, out=None)"
#define ENTRY_(py, fn, sig, doc)                                            \
    {#py, CF(fn), FASTKW, #py sig "\n--\n\n" doc},
#define ENTRY_IP_(py, sig, doc)                                             \
    {#py "_", CF(m_##py##_), FASTKW, #py "_" sig "\n--\n\nIn place: " doc},

#define BIN_METHOD_IP(py, doc)                                              \
    ENTRY_(py, m_##py, SIG_PLAIN_M, doc) ENTRY_IP_(py, SIG_PLAIN_IP, doc)
#define BIN_METHOD_ALPHA_IP(py, doc)                                        \
    ENTRY_(py, m_##py, SIG_ALPHA_M, doc) ENTRY_IP_(py, SIG_ALPHA_IP, doc)
#define BIN_METHOD_NOIP(py, doc) ENTRY_(py, m_##py, SIG_PLAIN_M, doc)
#define BIN_METHOD_CUSTOM(py, doc)
#define BIN_METHOD(ID, name, py, set, res, impl, form, flags, hint, doc)    \
    BIN_METHOD_##form(py, doc)
#define UN_METHOD_IP(py, doc)                                               \
    ENTRY_(py, m_##py, SIG_UN_M, doc) ENTRY_IP_(py, SIG_UN_IP, doc)
#define UN_METHOD_NOIP(py, doc) ENTRY_(py, m_##py, SIG_UN_M, doc)
#define UN_METHOD_CUSTOM(py, doc)
#define UN_METHOD(ID, name, py, set, res, impl, form, flags, hint, doc)     \
    UN_METHOD_##form(py, doc)
#define BIN_FN_ALPHA_IP(py, doc) ENTRY_(py, f_##py, SIG_ALPHA_F, doc)
#define BIN_FN_IP(py, doc) ENTRY_(py, f_##py, SIG_PLAIN_F, doc)
#define BIN_FN_NOIP(py, doc) ENTRY_(py, f_##py, SIG_PLAIN_F, doc)
#define BIN_FN_CUSTOM(py, doc)
#define BIN_FN(ID, name, py, set, res, impl, form, flags, hint, doc)        \
    BIN_FN_##form(py, doc)
#define UN_FN_IP(py, doc) ENTRY_(py, f_##py, SIG_UN_F, doc)
#define UN_FN_NOIP(py, doc) ENTRY_(py, f_##py, SIG_UN_F, doc)
#define UN_FN_CUSTOM(py, doc)
#define UN_FN(ID, name, py, set, res, impl, form, flags, hint, doc)         \
    UN_FN_##form(py, doc)
#define BIN_ALIAS_M(py, ID, sig)                                            \
    ENTRY_(py, m_##py, SIG_##sig##_M, "An alias of the op " #ID ".")
#define BIN_ALIAS_F(py, ID, sig)                                            \
    ENTRY_(py, f_##py, SIG_##sig##_F, "An alias of the op " #ID ".")
#define UN_ALIAS_M(py, ID, sig)                                             \
    ENTRY_(py, m_##py, SIG_UN_M, "An alias of the op " #ID ".")
#define UN_ALIAS_F(py, ID, sig)                                             \
    ENTRY_(py, f_##py, SIG_UN_F, "An alias of the op " #ID ".")
#define CONV_METHOD(name)                                                   \
    {#name, m_##name, METH_NOARGS, #name "($self, /)\n--\n\n"}

PyMethodDef tl_ops_tensor_methods[] = {
    TL_BINARY_OPS(BIN_METHOD)
    TL_BINARY_PY_ALIASES(BIN_ALIAS_M)
    TL_UNARY_OPS(UN_METHOD)
    TL_UNARY_PY_ALIASES(UN_ALIAS_M)
    /* The CUSTOM rows and div (rounding_mode=), bound by hand. */
    {"div", CF(m_divr), FASTKW,
     "div($self, other, *, rounding_mode=None, out=None)\n--\n\n"
     "Division: true, or rounded toward zero ('trunc') or down ('floor')."},
    {"div_", CF(m_divr_), FASTKW,
     "div_($self, other, *, rounding_mode=None)\n--\n\nIn place."},
    {"divide", CF(m_divr), FASTKW,
     "divide($self, other, *, rounding_mode=None, out=None)\n--\n\n"
     "div()."},
    {"round", CF(m_round), FASTKW,
     "round($self, *, decimals=0, out=None)\n--\n\n"
     "Half to even, at 10**-decimals."},
    {"round_", CF(m_round_), FASTKW,
     "round_($self, *, decimals=0)\n--\n\nIn place."},
    {"where", CF(m_where), FASTKW, "where($self, condition, other)\n--\n\n"},
    {"clamp", CF(m_clamp), FASTKW,
     "clamp($self, min=None, max=None, *, out=None)\n--\n\n"},
    {"clip", CF(m_clamp), FASTKW,
     "clip($self, min=None, max=None, *, out=None)\n--\n\nclamp()."},
    {"clamp_", CF(m_clamp_), FASTKW, "clamp_($self, min=None, max=None)"
     "\n--\n\n"},
    {"copy_", CF(m_copy_), FASTKW,
     "copy_($self, src, non_blocking=False)\n--\n\nCopies src (broadcast, "
     "any dtype) into self."},
    {"fill_", m_fill_, METH_O, "fill_($self, value, /)\n--\n\n"},
    {"zero_", m_zero_, METH_NOARGS, "zero_($self, /)\n--\n\n"},
    {"contiguous", CF(m_contiguous), FASTKW,
     "contiguous($self, memory_format=None)\n--\n\nself if it is dense "
     "in memory_format (None: contiguous_format) order, else a copy that "
     "is."},
    {"clone", CF(m_clone), FASTKW,
     "clone($self, *, memory_format=None)\n--\n\nA copy in new memory "
     "(memory_format None: preserve_format)."},
    {"to", CF(m_to), FASTKW,
     "to($self, a=None, b=None, /, *, dtype=None, device=None, copy=False, "
     "memory_format=None, non_blocking=False)\n--\n\nt.to(dtype), "
     "t.to(device, dtype=None), t.to(other): self when nothing changes "
     "(and copy is false), else a converted copy."},
    {"cpu", m_cpu, METH_NOARGS, "cpu($self, /)\n--\n\n"},
    CONV_METHOD(float),
    CONV_METHOD(double),
    CONV_METHOD(half),
    CONV_METHOD(bfloat16),
    CONV_METHOD(int),
    CONV_METHOD(long),
    CONV_METHOD(short),
    CONV_METHOD(byte),
    CONV_METHOD(char),
    CONV_METHOD(bool),
    CONV_METHOD(cfloat),
    CONV_METHOD(cdouble),
    {NULL},
};

PyType_Slot tl_ops_tensor_slots[] = {
    {Py_nb_add, nb_add},
    {Py_nb_subtract, nb_sub},
    {Py_nb_multiply, nb_mul},
    {Py_nb_true_divide, nb_truediv},
    {Py_nb_floor_divide, nb_floordiv},
    {Py_nb_remainder, nb_mod},
    {Py_nb_power, nb_pow},
    {Py_nb_and, nb_and},
    {Py_nb_or, nb_or},
    {Py_nb_xor, nb_xor},
    {Py_nb_lshift, nb_lshift},
    {Py_nb_rshift, nb_rshift},
    {Py_nb_inplace_add, nb_iadd},
    {Py_nb_inplace_subtract, nb_isub},
    {Py_nb_inplace_multiply, nb_imul},
    {Py_nb_inplace_true_divide, nb_itruediv},
    {Py_nb_inplace_floor_divide, nb_ifloordiv},
    {Py_nb_inplace_remainder, nb_imod},
    {Py_nb_inplace_power, nb_ipow},
    {Py_nb_inplace_and, nb_iand},
    {Py_nb_inplace_or, nb_ior},
    {Py_nb_inplace_xor, nb_ixor},
    {Py_nb_inplace_lshift, nb_ilshift},
    {Py_nb_inplace_rshift, nb_irshift},
    {Py_nb_negative, nb_neg},
    {Py_nb_positive, nb_pos},
    {Py_nb_absolute, nb_abs},
    {Py_nb_invert, nb_invert},
    {Py_tp_richcompare, richcompare},
    {Py_tp_hash, tensor_hash},
    {0, NULL},
};

static PyMethodDef ops_functions[] = {
    TL_BINARY_OPS(BIN_FN)
    TL_BINARY_PY_ALIASES(BIN_ALIAS_F)
    TL_UNARY_OPS(UN_FN)
    TL_UNARY_PY_ALIASES(UN_ALIAS_F)
    /* The CUSTOM rows and div (rounding_mode=), bound by hand. */
    {"div", CF(f_divr), FASTKW,
     "div(input, other, *, rounding_mode=None, out=None)\n--\n\n"
     "Division: true, or rounded toward zero ('trunc') or down ('floor')."},
    {"divide", CF(f_divr), FASTKW,
     "divide(input, other, *, rounding_mode=None, out=None)\n--\n\n"
     "div()."},
    {"round", CF(f_round), FASTKW,
     "round(input, *, decimals=0, out=None)\n--\n\n"
     "Half to even, at 10**-decimals."},
    {"_op_table", f_op_table, METH_NOARGS,
     "_op_table()\n--\n\nThe rows of the operator table "
     "(tensorlib/op_table.h) as dicts, for tests."},
    {"where", CF(f_where), FASTKW,
     "where(condition, input, other, *, out=None)\n--\n\n"},
    {"clamp", CF(f_clamp), FASTKW,
     "clamp(input, min=None, max=None, *, out=None)\n--\n\n"},
    {"clip", CF(f_clamp), FASTKW,
     "clip(input, min=None, max=None, *, out=None)\n--\n\nclamp()."},
    {"clone", CF(f_clone), FASTKW, "clone(input, /, *, memory_format=None)"
     "\n--\n\n"},
    {"promote_types", CF(f_promote_types), METH_FASTCALL,
     "promote_types(type1, type2, /)\n--\n\n"},
    {"can_cast", CF(f_can_cast), METH_FASTCALL,
     "can_cast(from_, to, /)\n--\n\n"},
    {"result_type", CF(f_result_type), METH_FASTCALL,
     "result_type(tensor1, tensor2, /)\n--\n\n"},
    {"set_num_threads", f_set_num_threads, METH_O,
     "set_num_threads(n, /)\n--\n\nThreads used by large loops."},
    {"get_num_threads", f_get_num_threads, METH_NOARGS,
     "get_num_threads()\n--\n\n"},
    {NULL},
};

int tl_ops_init(PyObject *m, tl_mstate *st)
{
    tl_parallel_set_release_hooks(release_gil, reacquire_gil);
    return PyModule_AddFunctions(m, ops_functions);
}
