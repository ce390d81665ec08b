/* csrc/python/random.c — random numbers from Python: the Generator type
 * (a heap type over a core tl_generator), the default generator's module
 * functions (manual_seed, seed, initial_seed, get_rng_state,
 * set_rng_state), the creation functions (rand, randn, randint, the _like
 * forms, randperm, normal, bernoulli, multinomial, poisson) and the
 * in-place Tensor methods (uniform_, normal_, random_, ...).  The numbers
 * themselves come from csrc/core/random.c; this file parses, validates
 * and allocates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/ops.h"
#include "tensorlib/random.h"

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

typedef struct {
    PyObject_HEAD
    tl_generator *g; /* strong (a no-op for the default generators) */
} GeneratorObject;

/* Bytes of a state tensor: seed then offset, little-endian uint64s. */
#define STATE_BYTES 16

/* ---- helpers ---------------------------------------------------------------- */

/* *g = the generator of o (None or NULL: NULL, the default).
 * Returns 0 / -1 with TypeError. */
static int parse_generator(tl_mstate *st, PyObject *o, tl_generator **g,
                           const char *fname)
{
    *g = NULL;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!PyObject_TypeCheck(o, st->GeneratorType)) {
        PyErr_Format(PyExc_TypeError, "%s(): generator must be a "
                     "tensorlib.Generator, not %.100s", fname,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *g = ((GeneratorObject *)o)->g;
    return 0;
}

/* A real number argument (int, float, 0-dim tensor); def when absent.
 * Returns 0 / -1 with TypeError naming what. */
static int parse_double(PyObject *o, double def, double *out,
                        const char *fname, const char *what)
{
    if (!o) {
        *out = def;
        return 0;
    }
    if (PyComplex_Check(o) || PyUnicode_Check(o) || o == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a real number, not "
                     "%.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a real number, not "
                     "%.100s", fname, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = v;
    return 0;
}

/* A seed: any int in [-2^63, 2^64), negatives taken modulo 2^64 (as
 * PyTorch).  Returns 0 / -1 (TypeError, ValueError). */
static int parse_seed(PyObject *o, uint64_t *out)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "manual_seed(): seed must be an int, "
                     "not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        *out = (uint64_t)v;
        return 0;
    }
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
            *out = u;
            return 0;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_ValueError, "manual_seed(): seed %R is outside "
                 "[-2**63, 2**64)", o);
    return -1;
}

/* A NotImplementedError for random numbers on a device other than the
 * CPU, before anything is allocated.  Returns 0 for the CPU, else -1. */
static int require_cpu(tl_device dev, const char *fname)
{
    if (dev.type == TL_DEVICE_CPU) {
        return 0;
    }
    char buf[32];
    tl_device_format(dev, buf, sizeof buf);
    PyErr_Format(PyExc_NotImplementedError, "%s(): random numbers on %s "
                 "are not implemented (tensorlib draws them on the CPU "
                 "only)", fname, buf);
    return -1;
}

/* Whether out can take a result of shape (ndim, sizes): 1 when it has
 * that shape, 0 when it must be resized first (it has no elements and
 * owns its storage), else -1 with a ShapeError naming both shapes.
 * Changes nothing, so a caller can check before drawing any numbers. */
static int out_fits(tl_mstate *st, const tl_tensor_impl *out, int ndim,
                    const int64_t *sizes, const char *fname)
{
    bool same = out->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) {
        same = out->sizes[d] == sizes[d];
    }
    if (same) {
        return 1;
    }
    if (out->numel == 0 && !out->base && out->storage_offset == 0) {
        return 0;
    }
    char have[160], want[160];
    size_t nh = 0, nw = 0;
    have[0] = want[0] = '\0';
    for (int d = 0; d < out->ndim && nh < sizeof have; d++) {
        nh += (size_t)snprintf(have + nh, sizeof have - nh, "%s%lld",
                               d ? ", " : "", (long long)out->sizes[d]);
    }
    for (int d = 0; d < ndim && nw < sizeof want; d++) {
        nw += (size_t)snprintf(want + nw, sizeof want - nw, "%s%lld",
                               d ? ", " : "", (long long)sizes[d]);
    }
    tl_error(TL_ERR_SHAPE, "%s(): out of shape [%s] (%lld elements) cannot "
             "take the result of shape [%s]; only an empty out is resized",
             fname, have, (long long)out->numel, want);
    tl_py_raise(st);
    return -1;
}

/* The destination of a creation function: out (resized when it has no
 * elements and owns its storage, as the ops' out=) or a new tensor of
 * sizes.  The dtype is dtype when given (out's must then match), else
 * out's, else def.  Returns: new reference, or NULL with an exception. */
static tl_tensor_impl *dest(tl_mstate *st, PyObject *outo, PyObject *dto,
                            PyObject *devo, int ndim, const int64_t *sizes,
                            tl_dtype def, const char *fname,
                            bool (*dtype_ok)(tl_dtype, const char *))
{
    tl_tensor_impl *out = NULL;
    tl_dtype dt = def;
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_out(st, outo, &out, fname) < 0 ||
        tl_py_parse_dtype(st, dto, &dt) < 0 ||
        tl_py_parse_device(st, devo, &dev) < 0) {
        return NULL;
    }
    bool dt_given = dto && dto != Py_None;
    if (out) {
        if (dt_given && dt != (tl_dtype)out->dtype) {
            PyErr_Format(PyExc_TypeError, "%s(): dtype %s does not match "
                         "out's dtype %s", fname, tl_dtype_info_of(dt)->name,
                         tl_dtype_info_of((tl_dtype)out->dtype)->name);
            return NULL;
        }
        dt = (tl_dtype)out->dtype;
        if (devo && devo != Py_None && !tl_device_eq(dev, out->device)) {
            PyErr_Format(PyExc_RuntimeError, "%s(): device does not match "
                         "out's device", fname);
            return NULL;
        }
        dev = out->device;
    }
    if (require_cpu(dev, fname) < 0 || (dtype_ok && !dtype_ok(dt, fname))) {
        return NULL;
    }
    if (!out) {
        tl_tensor_impl *t = tl_tensor_empty(ndim, sizes, dt, dev,
                                            TL_MEMKIND_DEFAULT);
        return t ? t : (tl_tensor_impl *)tl_py_raise(st);
    }
    int fit = out_fits(st, out, ndim, sizes, fname);
    if (fit < 0) {
        return NULL;
    }
    if (fit == 0) {
        if (tl_tensor_check_writable(out) < 0 ||
            tl_tensor_resize_(out, ndim, sizes) < 0) {
            return (tl_tensor_impl *)tl_py_raise(st);
        }
    }
    tl_tensor_incref(out);
    return out;
}

static bool floating_or_complex(tl_dtype dt, const char *fname)
{
    if (tl_dtype_is_floating(dt) || tl_dtype_is_complex(dt)) {
        return true;
    }
    PyErr_Format(PyExc_TypeError, "%s(): expected a floating or complex "
                 "dtype, got %s", fname, tl_dtype_info_of(dt)->name);
    return false;
}

static bool not_complex_or_bool(tl_dtype dt, const char *fname)
{
    if (!tl_dtype_is_complex(dt) && dt != TL_DTYPE_BOOL) {
        return true;
    }
    PyErr_Format(PyExc_TypeError, "%s(): not implemented for %s", fname,
                 tl_dtype_info_of(dt)->name);
    return false;
}

/* A creation function's result object, made before any number is
 * drawn into *t: an allocation failing after the draw would have
 * consumed the numbers of a call that fails.  *t is stolen and becomes
 * the object's impl.  Returns: new reference, or NULL. */
static PyObject *result_obj(tl_mstate *st, tl_tensor_impl **t)
{
    PyObject *o = tl_py_wrap(st, *t);
    *t = o ? tl_py_impl(o) : NULL;
    return o;
}

/* Finishes a creation function: on rc == 0 its result object o (stolen),
 * else the core's error.  Returns: new reference, or NULL. */
static PyObject *finish(tl_mstate *st, PyObject *o, int rc)
{
    if (rc < 0) {
        tl_py_raise(st);
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

/* Ends a call that marked its generator before drawing (poisson,
 * multinomial, normal of tensors: they allocate after the draw): on
 * failure (o NULL) the draw is taken back when nobody else drew since
 * (Note [Taking back a draw] in csrc/core/random.c).  Returns o. */
static PyObject *end_marked(tl_draw_mark *mk, PyObject *o)
{
    if (!o) {
        (void)tl_generator_take_back(mk);
    }
    tl_generator_unmark(mk);
    return o;
}

/* ---- the Generator type ------------------------------------------------------ */

/* Returns: new reference to a Generator object over g (increfed). */
static PyObject *gen_wrap(tl_mstate *st, tl_generator *g)
{
    GeneratorObject *o = TL_PY_NEW(GeneratorObject, st->GeneratorType);
    if (!o) {
        return NULL;
    }
    tl_generator_incref(g);
    o->g = g;
    return (PyObject *)o;
}

static PyObject *gen_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"device", NULL};
    PyObject *devo = NULL;
    tl_mstate *st = tl_state_of_type(tp);
    tl_device dev = tl_device_cpu();
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Generator", kwlist,
                                     &devo) ||
        tl_py_parse_device(st, devo, &dev) < 0) {
        return NULL;
    }
    tl_generator *g = tl_generator_new(dev);
    if (!g) {
        return tl_py_raise(st);
    }
    GeneratorObject *o = (GeneratorObject *)tp->tp_alloc(tp, 0);
    if (!o) {
        tl_generator_decref(g);
        return NULL;
    }
    o->g = g;
    return (PyObject *)o;
}

static void gen_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tl_generator_decref(((GeneratorObject *)self)->g);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *gen_manual_seed(PyObject *self, PyObject *arg)
{
    uint64_t s;
    if (parse_seed(arg, &s) < 0) {
        return NULL;
    }
    tl_generator_manual_seed(((GeneratorObject *)self)->g, s);
    return Py_NewRef(self);
}

static PyObject *gen_seed(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(
        tl_generator_seed(((GeneratorObject *)self)->g));
}

static PyObject *gen_initial_seed(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(
        tl_generator_initial_seed(((GeneratorObject *)self)->g));
}

/* Returns: new reference to a uint8 tensor of the state. */
static PyObject *state_of(tl_mstate *st, tl_generator *g)
{
    int64_t n = STATE_BYTES;
    uint64_t seed, off;
    tl_tensor_impl *t = tl_tensor_empty(1, &n, TL_DTYPE_UINT8,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (!t) {
        return tl_py_raise(st);
    }
    tl_generator_get_state(g, &seed, &off);
    unsigned char *p = (unsigned char *)tl_impl_data(t);
    for (int k = 0; k < 8; k++) {
        p[k] = (unsigned char)(seed >> (8 * k));
        p[8 + k] = (unsigned char)(off >> (8 * k));
    }
    return tl_py_wrap(st, t);
}

static int set_state_from(tl_mstate *st, tl_generator *g, PyObject *o)
{
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError, "set_state(): the state must be a "
                     "uint8 tensor, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    if (tl_py_impl(o)->dtype != TL_DTYPE_UINT8) {
        PyErr_Format(PyExc_TypeError, "set_state(): the state must be a "
                     "uint8 tensor, not a %s tensor",
                     tl_dtype_info_of((tl_dtype)tl_py_impl(o)->dtype)->name);
        return -1;
    }
    tl_tensor_impl *t = tl_py_impl(o);
    if (t->numel != STATE_BYTES || t->device.type != TL_DEVICE_CPU) {
        PyErr_Format(PyExc_ValueError, "set_state(): expected a CPU state "
                     "of %d bytes (seed, offset), got %lld", STATE_BYTES,
                     (long long)t->numel);
        return -1;
    }
    if (tl_tensor_check_live(t) < 0) {
        return tl_py_raise_int(st);
    }
    tl_tensor_impl *c = tl_op_contiguous(t, TL_FORMAT_CONTIGUOUS);
    if (!c) {
        return tl_py_raise_int(st);
    }
    const unsigned char *p = (const unsigned char *)tl_impl_data(c);
    uint64_t seed = 0, off = 0;
    for (int k = 0; k < 8; k++) {
        seed |= (uint64_t)p[k] << (8 * k);
        off |= (uint64_t)p[8 + k] << (8 * k);
    }
    tl_tensor_decref(c);
    tl_generator_set_state(g, seed, off);
    return 0;
}

static PyObject *gen_get_state(PyObject *self, PyObject *unused)
{
    return state_of(tl_state_of(self), ((GeneratorObject *)self)->g);
}

static PyObject *gen_set_state(PyObject *self, PyObject *arg)
{
    if (set_state_from(tl_state_of(self), ((GeneratorObject *)self)->g,
                       arg) < 0) {
        return NULL;
    }
    return Py_NewRef(self);
}

static PyObject *gen_device(PyObject *self, void *closure)
{
    return tl_py_device(tl_state_of(self),
                        tl_generator_device(((GeneratorObject *)self)->g));
}

static PyObject *gen_repr(PyObject *self)
{
    char buf[32];
    tl_device_format(tl_generator_device(((GeneratorObject *)self)->g), buf,
                     sizeof buf);
    return PyUnicode_FromFormat("tensorlib.Generator(device='%s')", buf);
}

static PyMethodDef gen_methods[] = {
    {"manual_seed", gen_manual_seed, METH_O,
     "manual_seed($self, seed, /)\n--\n\nSets the seed (an int in [-2**63, 2**64); "
     "negatives wrap) and rewinds the stream.  Returns self."},
    {"seed", gen_seed, METH_NOARGS,
     "seed($self, /)\n--\n\nSeeds from the operating system's entropy; returns the "
     "seed."},
    {"initial_seed", gen_initial_seed, METH_NOARGS,
     "initial_seed($self, /)\n--\n\nThe seed last set."},
    {"get_state", gen_get_state, METH_NOARGS,
     "get_state($self, /)\n--\n\nThe state as a uint8 tensor of 16 bytes: the seed "
     "and the Philox offset (little-endian uint64s)."},
    {"set_state", gen_set_state, METH_O,
     "set_state($self, new_state, /)\n--\n\nRestores a state from get_state().  "
     "Returns self."},
    {NULL},
};

static PyGetSetDef gen_getset[] = {
    {"device", gen_device, NULL, "The device whose tensors it fills.", NULL},
    {NULL},
};

static PyType_Slot gen_slots[] = {
    {Py_tp_new, gen_new},
    {Py_tp_dealloc, gen_dealloc},
    {Py_tp_methods, gen_methods},
    {Py_tp_getset, gen_getset},
    {Py_tp_repr, gen_repr},
    {Py_tp_doc, "Generator(device='cpu')\n--\n\n"
                "A counter-based Philox4x32-10 random number generator.  "
                "Its state is (seed, offset); every op reserves a range of "
                "the counter, so results do not depend on thread counts or "
                "layouts."},
    {0, NULL},
};

static PyType_Spec gen_spec = {
    .name = "tensorlib.Generator",
    .basicsize = sizeof(GeneratorObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = gen_slots,
};

/* ---- the default generator ------------------------------------------------ */

static tl_generator *default_cpu(tl_mstate *st)
{
    tl_generator *g = tl_generator_default(tl_device_cpu());
    if (!g) {
        tl_py_raise(st);
    }
    return g;
}

static PyObject *py_manual_seed(PyObject *m, PyObject *arg)
{
    tl_mstate *st = tl_state_of_module(m);
    uint64_t s;
    tl_generator *g = default_cpu(st);
    if (!g || parse_seed(arg, &s) < 0) {
        return NULL;
    }
    tl_generator_manual_seed(g, s);
    return PyObject_GetAttrString(m, "default_generator");
}

static PyObject *py_seed(PyObject *m, PyObject *unused)
{
    tl_generator *g = default_cpu(tl_state_of_module(m));
    return g ? PyLong_FromUnsignedLongLong(tl_generator_seed(g)) : NULL;
}

static PyObject *py_initial_seed(PyObject *m, PyObject *unused)
{
    tl_generator *g = default_cpu(tl_state_of_module(m));
    return g ? PyLong_FromUnsignedLongLong(tl_generator_initial_seed(g))
             : NULL;
}

static PyObject *py_get_rng_state(PyObject *m, PyObject *unused)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_generator *g = default_cpu(st);
    return g ? state_of(st, g) : NULL;
}

static PyObject *py_set_rng_state(PyObject *m, PyObject *arg)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_generator *g = default_cpu(st);
    if (!g || set_state_from(st, g, arg) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---- creation functions ------------------------------------------------------- */

static const char *const size_kw[] = {"generator", "out", "dtype", "device",
                                      "size", NULL};

/* rand/randn(*size, generator=, out=, dtype=, device=) */
static PyObject *rand_common(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames,
                             const char *fname, bool normal)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[5];
    int64_t sizes[TL_MAX_DIMS];
    tl_generator *g;
    if (tl_py_parse_args(args + nargs, 0, kwnames, size_kw, 0, kw,
                         fname) < 0 ||
        parse_generator(st, kw[0], &g, fname) < 0) {
        return NULL;
    }
    /* The size: positional (*size or one sequence) or size= (PyTorch
     * takes both). */
    if (nargs > 0 && kw[4]) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple values for "
                     "argument 'size'", fname);
        return NULL;
    }
    if (nargs == 0 && !kw[4]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                     "'size'", fname);
        return NULL;
    }
    int ndim = nargs ? tl_py_parse_shape(args, nargs, sizes, fname)
                     : tl_py_parse_shape(&kw[4], 1, sizes, fname);
    if (ndim < 0) {
        return NULL;
    }
    tl_tensor_impl *t = dest(st, kw[1], kw[2], kw[3], ndim, sizes,
                             TL_DEFAULT_FLOAT, fname, floating_or_complex);
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    int rc = normal ? tl_random_normal_(t, 0.0, 1.0, g)
                    : tl_random_uniform_(t, 0.0, 1.0, g);
    return finish(st, o, rc);
}

static PyObject *py_rand(PyObject *m, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames)
{
    return rand_common(m, args, nargs, kwnames, "rand", false);
}

static PyObject *py_randn(PyObject *m, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return rand_common(m, args, nargs, kwnames, "randn", true);
}

/* low/high as int64 with a clear error.  Returns 0 / -1. */
static int parse_bound(PyObject *o, int64_t *v, const char *fname,
                       const char *what)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s(): %s", fname, what);
    if (PyFloat_Check(o)) {
        double d = PyFloat_AsDouble(o);
        if (d != floor(d) || !(fabs(d) < 9.2e18)) {
            /* TypeError as PyTorch's (which takes no floats at all). */
            PyErr_Format(PyExc_TypeError, "%s must be an integer, got %R",
                         buf, o);
            return -1;
        }
        *v = (int64_t)d;
        return 0;
    }
    return tl_py_int64(o, v, buf);
}

/* Integers in [low, high) into t (checked first).  Returns 0 / -1. */
static int fill_integers(tl_mstate *st, tl_tensor_impl *t, int64_t low,
                         int64_t high, tl_generator *g, const char *fname)
{
    if (tl_random_check_bounds(fname, (tl_dtype)t->dtype, low, high,
                               false) < 0 ||
        tl_random_integers_(t, low, (uint64_t)high - (uint64_t)low, g) < 0) {
        return tl_py_raise_int(st);
    }
    return 0;
}

static bool bounds_dtype_ok(tl_dtype dt, const char *fname)
{
    if (!tl_dtype_is_complex(dt)) {
        return true;
    }
    PyErr_Format(PyExc_TypeError, "%s(): random integers need an integral, "
                 "floating-point or bool dtype, got %s", fname,
                 tl_dtype_info_of(dt)->name);
    return false;
}

/* randint(low=0, high, size, *, generator, out, dtype, device) */
static PyObject *py_randint(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"low", "high", "size", "generator",
                                        "out", "dtype", "device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[7];
    int64_t sizes[TL_MAX_DIMS], low = 0, high;
    tl_generator *g;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, kw, "randint") < 0) {
        return NULL;
    }
    /* randint(high, size) and randint(high, size=...): no low. */
    if (nargs == 2 && !kw[2]) {
        kw[2] = kw[1];
        kw[1] = kw[0];
        kw[0] = NULL;
    } else if (nargs == 1 && !kw[1]) { /* randint(high, size=...) */
        kw[1] = kw[0];
        kw[0] = NULL;
    }
    if (!kw[1] || !kw[2]) {
        PyErr_SetString(PyExc_TypeError, "randint() missing required "
                        "arguments: randint(low=0, high, size)");
        return NULL;
    }
    if ((kw[0] && parse_bound(kw[0], &low, "randint", "low") < 0) ||
        parse_bound(kw[1], &high, "randint", "high") < 0 ||
        parse_generator(st, kw[3], &g, "randint") < 0) {
        return NULL;
    }
    int ndim = tl_py_parse_shape(&kw[2], 1, sizes, "randint");
    if (ndim < 0) {
        return NULL;
    }
    tl_tensor_impl *t = dest(st, kw[4], kw[5], kw[6], ndim, sizes,
                             TL_DTYPE_INT64, "randint", bounds_dtype_ok);
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    if (fill_integers(st, t, low, high, g, "randint") < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

/* An uninitialised tensor like input (PyTorch's empty_like), dtype and
 * device optional.  Returns: new reference, or NULL with an exception. */
static tl_tensor_impl *like(tl_mstate *st, PyObject *input, PyObject *dto,
                            PyObject *devo, const char *fname,
                            bool (*dtype_ok)(tl_dtype, const char *))
{
    if (!input || !tl_py_is_tensor(st, input)) {
        PyErr_Format(PyExc_TypeError, "%s(): input must be a tensor", fname);
        return NULL;
    }
    tl_tensor_impl *a = tl_py_impl(input);
    tl_dtype dt = (tl_dtype)a->dtype;
    tl_device dev = a->device;
    if (tl_py_parse_dtype(st, dto, &dt) < 0 ||
        tl_py_parse_device(st, devo, &dev) < 0 || require_cpu(dev, fname) ||
        (dtype_ok && !dtype_ok(dt, fname))) {
        return NULL;
    }
    tl_tensor_impl *t = tl_op_empty_like(a, dt, dev, TL_MEMKIND_DEFAULT,
                                         TL_FORMAT_PRESERVE);
    return t ? t : (tl_tensor_impl *)tl_py_raise(st);
}

static const char *const like_kw[] = {"input", "dtype", "device",
                                      "generator", NULL};

static PyObject *like_common(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames,
                             const char *fname, bool normal)
{
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[4];
    tl_generator *g;
    if (tl_py_parse_args(args, nargs, kwnames, like_kw, 1, kw, fname) < 0 ||
        parse_generator(st, kw[3], &g, fname) < 0) {
        return NULL;
    }
    tl_tensor_impl *t = like(st, kw[0], kw[1], kw[2], fname,
                             floating_or_complex);
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    int rc = normal ? tl_random_normal_(t, 0.0, 1.0, g)
                    : tl_random_uniform_(t, 0.0, 1.0, g);
    return finish(st, o, rc);
}

static PyObject *py_rand_like(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    return like_common(m, args, nargs, kwnames, "rand_like", false);
}

static PyObject *py_randn_like(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    return like_common(m, args, nargs, kwnames, "randn_like", true);
}

/* randint_like(input, low=0, high, *, dtype, device, generator) */
static PyObject *py_randint_like(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "low", "high", "dtype",
                                        "device", "generator", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[6];
    int64_t low = 0, high;
    tl_generator *g;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, kw,
                         "randint_like") < 0) {
        return NULL;
    }
    if (nargs == 2 && !kw[2]) { /* randint_like(input, high) */
        kw[2] = kw[1];
        kw[1] = NULL;
    }
    if (!kw[2]) {
        PyErr_SetString(PyExc_TypeError, "randint_like() missing required "
                        "argument 'high'");
        return NULL;
    }
    if ((kw[1] && parse_bound(kw[1], &low, "randint_like", "low") < 0) ||
        parse_bound(kw[2], &high, "randint_like", "high") < 0 ||
        parse_generator(st, kw[5], &g, "randint_like") < 0) {
        return NULL;
    }
    tl_tensor_impl *t = like(st, kw[0], kw[3], kw[4], "randint_like",
                             bounds_dtype_ok);
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    if (fill_integers(st, t, low, high, g, "randint_like") < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

/* randperm(n, *, generator, out, dtype=int64, device) */
static PyObject *py_randperm(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"n", "generator", "out", "dtype",
                                        "device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[5];
    int64_t n;
    tl_generator *g;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, kw,
                         "randperm") < 0 ||
        parse_generator(st, kw[1], &g, "randperm") < 0) {
        return NULL;
    }
    if (!kw[0]) {
        PyErr_SetString(PyExc_TypeError, "randperm() missing required "
                        "argument 'n'");
        return NULL;
    }
    if (tl_py_int64(kw[0], &n, "randperm(): n") < 0) {
        return NULL;
    }
    if (n < 0) {
        PyErr_Format(PyExc_ValueError, "randperm(): n must be non-negative, "
                     "got %lld", (long long)n);
        return NULL;
    }
    tl_tensor_impl *t = dest(st, kw[2], kw[3], kw[4], 1, &n, TL_DTYPE_INT64,
                             "randperm", not_complex_or_bool);
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    return finish(st, o, tl_random_randperm_(t, g));
}

/* The one-element or real-number value of o for normal's scalar forms.
 * Returns 1 (a number, *v set), 0 (a tensor), -1 (error). */
static int number_or_tensor(tl_mstate *st, PyObject *o, double *v,
                            const char *what)
{
    if (tl_py_is_tensor(st, o)) {
        return 0;
    }
    return parse_double(o, 0.0, v, "normal", what) < 0 ? -1 : 1;
}

/* Broadcast shape of a and b into sizes.  Returns ndim, or -1 with a
 * ShapeError. */
static int broadcast2(tl_mstate *st, const tl_tensor_impl *a,
                      const tl_tensor_impl *b, int64_t *sizes)
{
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int d = 0; d < nd; d++) {
        int da = a->ndim - nd + d, db = b->ndim - nd + d;
        int64_t sa = da >= 0 ? a->sizes[da] : 1;
        int64_t sb = db >= 0 ? b->sizes[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            tl_error(TL_ERR_SHAPE, "normal(): the shapes of mean and std do "
                     "not broadcast (size %lld vs %lld at dim %d)",
                     (long long)sa, (long long)sb, d);
            tl_py_raise(st);
            return -1;
        }
        sizes[d] = sa == 1 ? sb : sa;
    }
    return nd;
}

/* normal(mean, std, size=None, *, generator, out, dtype, device):
 * numbers and a size, or tensors (broadcast). */
static PyObject *py_normal(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"mean", "std", "size", "generator",
                                        "out", "dtype", "device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[7];
    double mean = 0.0, std = 1.0;
    tl_generator *g;
    tl_tensor_impl *t = NULL, *z = NULL, *tmp = NULL, *mt = NULL, *sd = NULL;
    tl_draw_mark mk = {NULL, 0, 0, 0}; /* set just before the draw */
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, kw, "normal") < 0 ||
        parse_generator(st, kw[3], &g, "normal") < 0) {
        return NULL;
    }
    if (!kw[0]) {
        PyErr_SetString(PyExc_TypeError, "normal() missing required "
                        "argument 'mean'");
        return NULL;
    }
    int mnum = number_or_tensor(st, kw[0], &mean, "mean");
    int snum = kw[1] ? number_or_tensor(st, kw[1], &std, "std") : 1;
    if (mnum < 0 || snum < 0) {
        return NULL;
    }
    if (mnum && snum) {
        /* size is required, out= or not (as PyTorch, whose number
         * forms all take a size). */
        int64_t sizes[TL_MAX_DIMS];
        if (!kw[2] || kw[2] == Py_None) {
            PyErr_SetString(PyExc_TypeError, "normal(): with a number mean "
                            "and std, size is required");
            return NULL;
        }
        int ndim = tl_py_parse_shape(&kw[2], 1, sizes, "normal");
        if (ndim < 0) {
            return NULL;
        }
        t = dest(st, kw[4], kw[5], kw[6], ndim, sizes, TL_DEFAULT_FLOAT,
                 "normal", floating_or_complex);
        PyObject *o = t ? result_obj(st, &t) : NULL;
        return o ? finish(st, o, tl_random_normal_(t, mean, std, g)) : NULL;
    }
    if (kw[2] || (kw[5] && kw[5] != Py_None) ||
        (kw[6] && kw[6] != Py_None)) {
        PyErr_SetString(PyExc_TypeError, "normal(): size, dtype and device "
                        "are only for a number mean and std");
        return NULL;
    }
    /* Tensor forms: the result has mean's dtype when mean is a tensor,
     * else std's (as PyTorch: normal(float16, float64) is float16), and
     * the broadcast shape; checks first. */
    tl_tensor_impl *mi = mnum ? NULL : tl_py_impl(kw[0]);
    tl_tensor_impl *si = snum ? NULL : tl_py_impl(kw[1]);
    tl_dtype dt = mi ? (tl_dtype)mi->dtype : (tl_dtype)si->dtype;
    if ((mi && !tl_dtype_is_floating((tl_dtype)mi->dtype)) ||
        (si && !tl_dtype_is_floating((tl_dtype)si->dtype))) {
        tl_dtype bad = mi && !tl_dtype_is_floating((tl_dtype)mi->dtype)
                           ? (tl_dtype)mi->dtype
                           : (tl_dtype)si->dtype;
        PyErr_Format(PyExc_TypeError, "normal(): mean and std tensors must "
                     "be floating, got %s", tl_dtype_info_of(bad)->name);
        return NULL;
    }
    if ((mi && require_cpu(mi->device, "normal") < 0) ||
        (si && require_cpu(si->device, "normal") < 0)) {
        return NULL;
    }
    if (!si && (!(std >= 0.0) || isinf(std))) {
        /* (PyErr_Format has no %g: Python 3.12 raises SystemError) */
        char num[32];
        snprintf(num, sizeof num, "%g", std);
        PyErr_Format(PyExc_ValueError, "normal expects std >= 0.0, but found "
                     "std %s", num);
        return NULL;
    }
    if (si) {
        sd = tl_op_to_dtype(si, TL_DTYPE_FLOAT64, true);
        if (!sd) {
            return tl_py_raise(st);
        }
        tl_tensor_impl *c = tl_op_contiguous(sd, TL_FORMAT_CONTIGUOUS);
        tl_tensor_decref(sd);
        if (!(sd = c)) {
            return tl_py_raise(st);
        }
        const double *p = (const double *)tl_impl_data(sd);
        for (int64_t i = 0; i < sd->numel; i++) {
            if (!(p[i] >= 0.0) || isinf(p[i])) {
                char num[32];
                snprintf(num, sizeof num, "%g", p[i]);
                PyErr_Format(PyExc_ValueError, "normal expects all elements "
                             "of std >= 0.0, but found %s", num);
                goto fail;
            }
        }
        tl_tensor_decref(sd);
        sd = NULL;
    }
    int64_t sizes[TL_MAX_DIMS];
    int ndim;
    if (mi && si) {
        if ((ndim = broadcast2(st, mi, si, sizes)) < 0) {
            return NULL;
        }
    } else {
        tl_tensor_impl *one = mi ? mi : si;
        ndim = one->ndim;
        memcpy(sizes, one->sizes, (size_t)ndim * sizeof(int64_t));
    }
    t = dest(st, kw[4], NULL, NULL, ndim, sizes, dt, "normal",
             floating_or_complex);
    if (!t) {
        return NULL;
    }
    z = tl_tensor_empty(ndim, sizes, dt, tl_device_cpu(), TL_MEMKIND_DEFAULT);
    tl_generator_mark(g, &mk);
    if (!z || tl_random_normal_(z, 0.0, si ? 1.0 : std, g) < 0) {
        goto raise;
    }
    /* t = mean + std * z, in place into t (out or new). */
    if (si) {
        tmp = tl_op_binary(tl_op_binary_from_name("mul"), NULL, z, si, NULL);
        if (!tmp) {
            goto raise;
        }
    } else {
        tmp = z;
        z = NULL;
    }
    if (mi) {
        mt = tl_op_binary(tl_op_binary_from_name("add"), t, tmp, mi, NULL);
    } else {
        tl_scalar s = tl_scalar_float(mean);
        tl_tensor_impl *ms = tl_scalar_to_tensor(&s);
        mt = ms ? tl_op_binary(tl_op_binary_from_name("add"), t, tmp, ms,
                               NULL)
                : NULL;
        tl_tensor_decref(ms);
    }
    if (!mt) {
        goto raise;
    }
    tl_tensor_decref(mt);
    tl_tensor_decref(z);
    tl_tensor_decref(tmp);
    return end_marked(&mk, tl_py_wrap(st, t));
raise:
    tl_py_raise(st);
fail:
    tl_tensor_decref(sd);
    tl_tensor_decref(z);
    tl_tensor_decref(tmp);
    tl_tensor_decref(t);
    return end_marked(&mk, NULL);
}

static PyObject *bernoulli_impl(tl_mstate *st, PyObject *const *kw);

/* bernoulli(input, p=None, *, generator, out) */
static PyObject *py_bernoulli(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "p", "generator", "out",
                                        NULL};
    PyObject *kw[4];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, kw,
                         "bernoulli") < 0) {
        return NULL;
    }
    return bernoulli_impl(tl_state_of_module(m), kw);
}

/* bernoulli with kw = (input, p, generator, out), each possibly NULL. */
static PyObject *bernoulli_impl(tl_mstate *st, PyObject *const *kw)
{
    tl_generator *g;
    double p = 0.0;
    if (parse_generator(st, kw[2], &g, "bernoulli") < 0) {
        return NULL;
    }
    if (!kw[0] || !tl_py_is_tensor(st, kw[0])) {
        PyErr_SetString(PyExc_TypeError, "bernoulli(): input must be a "
                        "tensor");
        return NULL;
    }
    tl_tensor_impl *in = tl_py_impl(kw[0]);
    bool has_p = kw[1] && kw[1] != Py_None;
    if (has_p && parse_double(kw[1], 0.0, &p, "bernoulli", "p") < 0) {
        return NULL;
    }
    if (!has_p && !tl_dtype_is_floating((tl_dtype)in->dtype)) {
        PyErr_Format(PyExc_TypeError, "bernoulli(): the probabilities must "
                     "be floating, got %s",
                     tl_dtype_info_of((tl_dtype)in->dtype)->name);
        return NULL;
    }
    tl_tensor_impl *t;
    if (kw[3] && kw[3] != Py_None) {
        t = dest(st, kw[3], NULL, NULL, in->ndim, in->sizes,
                 (tl_dtype)in->dtype, "bernoulli", NULL);
    } else {
        t = like(st, kw[0], NULL, NULL, "bernoulli", NULL);
    }
    PyObject *o = t ? result_obj(st, &t) : NULL;
    if (!o) {
        return NULL;
    }
    return finish(st, o, has_p ? tl_random_bernoulli_(t, p, g)
                               : tl_random_bernoulli_tensor_(t, in, g));
}

/* multinomial(input, num_samples, replacement=False, *, generator, out) */
static PyObject *multinomial_impl(tl_mstate *st, PyObject *input,
                                  PyObject *const *kw)
{
    tl_generator *g;
    int64_t ns;
    int repl = 0;
    tl_tensor_impl *out;
    if (!input || !tl_py_is_tensor(st, input)) {
        PyErr_SetString(PyExc_TypeError, "multinomial(): input must be a "
                        "tensor");
        return NULL;
    }
    if (!kw[0]) {
        PyErr_SetString(PyExc_TypeError, "multinomial() missing required "
                        "argument 'num_samples'");
        return NULL;
    }
    if (tl_py_int64(kw[0], &ns, "multinomial(): num_samples") < 0 ||
        (kw[1] && (repl = PyObject_IsTrue(kw[1])) < 0) ||
        parse_generator(st, kw[2], &g, "multinomial") < 0 ||
        tl_py_parse_out(st, kw[3], &out, "multinomial") < 0) {
        return NULL;
    }
    if (require_cpu(tl_py_impl(input)->device, "multinomial") < 0) {
        return NULL;
    }
    if (out && out->dtype != TL_DTYPE_INT64) {
        PyErr_Format(PyExc_TypeError, "multinomial(): out must be int64, "
                     "got %s", tl_dtype_info_of((tl_dtype)out->dtype)->name);
        return NULL;
    }
    /* An out that cannot take the result is refused before any number is
     * drawn (a bad probs or num_samples is the core's error, also before
     * drawing). */
    const tl_tensor_impl *pi = tl_py_impl(input);
    if (out && ns > 0 && (pi->ndim == 1 || pi->ndim == 2)) {
        int64_t osz[2] = {pi->sizes[0], ns};
        int ond = pi->ndim;
        if (out_fits(st, out, ond, ond == 2 ? osz : &ns,
                     "multinomial") < 0) {
            return NULL;
        }
    }
    tl_draw_mark mk;
    tl_generator_mark(g, &mk);
    tl_tensor_impl *r = tl_random_multinomial(tl_py_impl(input), ns,
                                              repl != 0, g);
    if (!r) {
        return end_marked(&mk, tl_py_raise(st));
    }
    if (out) {
        tl_tensor_impl *o = dest(st, kw[3], NULL, NULL, r->ndim, r->sizes,
                                 TL_DTYPE_INT64, "multinomial", NULL);
        if (!o) {
            tl_tensor_decref(r);
            return end_marked(&mk, NULL);
        }
        int rc = tl_op_copy_(o, r);
        tl_tensor_decref(r);
        if (rc < 0) {
            tl_tensor_decref(o);
            return end_marked(&mk, tl_py_raise(st));
        }
        return end_marked(&mk, tl_py_wrap(st, o));
    }
    return end_marked(&mk, tl_py_wrap(st, r));
}

static PyObject *py_multinomial(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "num_samples",
                                        "replacement", "generator", "out",
                                        NULL};
    PyObject *kw[5];
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, kw,
                         "multinomial") < 0) {
        return NULL;
    }
    return multinomial_impl(tl_state_of_module(m), kw[0], kw + 1);
}

/* poisson(input, generator=None) */
static PyObject *py_poisson(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "generator", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *kw[2];
    tl_generator *g;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, kw, "poisson") < 0 ||
        parse_generator(st, kw[1], &g, "poisson") < 0) {
        return NULL;
    }
    if (!kw[0] || !tl_py_is_tensor(st, kw[0])) {
        PyErr_SetString(PyExc_TypeError, "poisson(): input must be a tensor");
        return NULL;
    }
    if (require_cpu(tl_py_impl(kw[0])->device, "poisson") < 0) {
        return NULL;
    }
    tl_draw_mark mk;
    tl_generator_mark(g, &mk);
    tl_tensor_impl *r = tl_random_poisson(tl_py_impl(kw[0]), g);
    return end_marked(&mk, r ? tl_py_wrap(st, r) : tl_py_raise(st));
}

/* ---- in-place Tensor methods ------------------------------------------------ */

static PyObject *inplace_done(PyObject *self, int rc)
{
    if (rc < 0) {
        return tl_py_raise(tl_state_of(self));
    }
    return Py_NewRef(self);
}

#define INPLACE2(fn, n0, n1, d0, d1, call)                                  \
    static PyObject *m_##fn(PyObject *self, PyObject *const *args,          \
                            Py_ssize_t nargs, PyObject *kwnames)            \
    {                                                                       \
        static const char *const names_kw[] = {n0, n1, "generator", NULL}; \
        double a, b;                                                        \
        tl_generator *g;                                                    \
        if (parse2n(self, args, nargs, kwnames, names_kw, #fn, d0, d1, &a,  \
                    &b, &g, 2) < 0) {                                       \
            return NULL;                                                    \
        }                                                                   \
        return inplace_done(self, call);                                    \
    }

#define INPLACE1(fn, n0, d0, call)                                          \
    static PyObject *m_##fn(PyObject *self, PyObject *const *args,          \
                            Py_ssize_t nargs, PyObject *kwnames)            \
    {                                                                       \
        static const char *const names_kw[] = {n0, "generator", NULL};     \
        double a, b;                                                        \
        tl_generator *g;                                                    \
        if (parse2n(self, args, nargs, kwnames, names_kw, #fn, d0, 0.0, &a, \
                    &b, &g, 1) < 0) {                                       \
            return NULL;                                                    \
        }                                                                   \
        return inplace_done(self, call);                                    \
    }

/* As parse2 with the op's name passed separately. */
static int parse2n(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames, const char *const *names,
                   const char *fname, double da, double db, double *a,
                   double *b, tl_generator **g, int npos)
{
    tl_mstate *st = tl_state_of(self);
    PyObject *kw[3];
    if (tl_py_parse_args(args, nargs, kwnames, names, npos, kw, fname) < 0 ||
        parse_generator(st, kw[npos], g, fname) < 0 ||
        parse_double(kw[0], da, a, fname, names[0]) < 0 ||
        (npos > 1 && parse_double(kw[1], db, b, fname, names[1]) < 0)) {
        return -1;
    }
    if (npos == 1 && !kw[0] && isnan(da)) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'",
                     fname, names[0]);
        return -1;
    }
    return require_cpu(tl_py_impl(self)->device, fname);
}

INPLACE2(uniform_, "from", "to", 0.0, 1.0,
         tl_random_uniform_(tl_py_impl(self), a, b, g))
INPLACE2(normal_, "mean", "std", 0.0, 1.0,
         tl_random_normal_(tl_py_impl(self), a, b, g))
INPLACE2(log_normal_, "mean", "std", 1.0, 2.0,
         tl_random_log_normal_(tl_py_impl(self), a, b, g))
INPLACE2(cauchy_, "median", "sigma", 0.0, 1.0,
         tl_random_cauchy_(tl_py_impl(self), a, b, g))
INPLACE1(exponential_, "lambd", 1.0,
         tl_random_exponential_(tl_py_impl(self), a, g))
INPLACE1(geometric_, "p", NAN, tl_random_geometric_(tl_py_impl(self), a, g))

/* random_(from=0, to=None, *, generator): random_(to) is [0, to). */
static PyObject *m_random_(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"from", "to", "generator", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *kw[3];
    tl_generator *g;
    tl_tensor_impl *t = tl_py_impl(self);
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, kw, "random_") < 0 ||
        parse_generator(st, kw[2], &g, "random_") < 0 ||
        require_cpu(t->device, "random_") < 0) {
        return NULL;
    }
    if (nargs == 1 && !kw[1]) { /* random_(to) */
        kw[1] = kw[0];
        kw[0] = NULL;
    }
    if (kw[1] == Py_None) {
        kw[1] = NULL;
    }
    int64_t from = 0, to = 0;
    if ((kw[0] && parse_bound(kw[0], &from, "random_", "from") < 0) ||
        (kw[1] && parse_bound(kw[1], &to, "random_", "to") < 0)) {
        return NULL;
    }
    tl_dtype dt = (tl_dtype)t->dtype;
    if (!kw[0] && !kw[1]) {
        if (tl_dtype_is_complex(dt)) {
            PyErr_Format(PyExc_TypeError, "random_(): not implemented for %s",
                         tl_dtype_info_of(dt)->name);
            return NULL;
        }
        return inplace_done(self, tl_random_random_full_(t, g));
    }
    if (!kw[1]) {
        /* [from, top of the dtype]: 2^digits for floats, max for ints. */
        if (tl_dtype_is_complex(dt)) {
            PyErr_Format(PyExc_TypeError, "random_(): not implemented for %s",
                         tl_dtype_info_of(dt)->name);
            return NULL;
        }
        int64_t top;
        switch (dt) {
        case TL_DTYPE_FLOAT16:
            top = 1 << 11;
            break;
        case TL_DTYPE_BFLOAT16:
            top = 1 << 8;
            break;
        case TL_DTYPE_FLOAT32:
            top = 1 << 24;
            break;
        case TL_DTYPE_FLOAT64:
            top = INT64_C(1) << 53;
            break;
        case TL_DTYPE_BOOL:
            top = 1;
            break;
        case TL_DTYPE_UINT8:
            top = UINT8_MAX;
            break;
        case TL_DTYPE_INT8:
            top = INT8_MAX;
            break;
        case TL_DTYPE_INT16:
            top = INT16_MAX;
            break;
        case TL_DTYPE_UINT16:
            top = UINT16_MAX;
            break;
        case TL_DTYPE_INT32:
            top = INT32_MAX;
            break;
        case TL_DTYPE_UINT32:
            top = UINT32_MAX;
            break;
        default:
            top = INT64_MAX;
            break;
        }
        if (tl_random_check_bounds("random_", dt, from, top, true) < 0) {
            return tl_py_raise(st);
        }
        return inplace_done(self, tl_random_integers_(
                                      t, from, (uint64_t)top -
                                                   (uint64_t)from + 1, g));
    }
    if (fill_integers(st, t, from, to, g, "random_") < 0) {
        return NULL;
    }
    return Py_NewRef(self);
}

/* bernoulli_(p=0.5, *, generator): p a number or a tensor. */
static PyObject *m_bernoulli_(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"p", "generator", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *kw[2];
    tl_generator *g;
    tl_tensor_impl *t = tl_py_impl(self);
    double p = 0.5;
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, kw,
                         "bernoulli_") < 0 ||
        parse_generator(st, kw[1], &g, "bernoulli_") < 0 ||
        require_cpu(t->device, "bernoulli_") < 0) {
        return NULL;
    }
    if (kw[0] && tl_py_is_tensor(st, kw[0])) {
        return inplace_done(self, tl_random_bernoulli_tensor_(
                                      t, tl_py_impl(kw[0]), g));
    }
    if (parse_double(kw[0], 0.5, &p, "bernoulli_", "p") < 0) {
        return NULL;
    }
    return inplace_done(self, tl_random_bernoulli_(t, p, g));
}

/* Tensor.bernoulli(p=None, *, generator) */
static PyObject *m_bernoulli(PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"p", "generator", NULL};
    PyObject *kw[2];
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, kw,
                         "bernoulli") < 0) {
        return NULL;
    }
    PyObject *fkw[4] = {self, kw[0], kw[1], NULL};
    return bernoulli_impl(tl_state_of(self), fkw);
}

/* Tensor.multinomial(num_samples, replacement=False, *, generator) */
static PyObject *m_multinomial(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"num_samples", "replacement",
                                        "generator", NULL};
    PyObject *kw[4];
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, kw,
                         "multinomial") < 0) {
        return NULL;
    }
    kw[3] = NULL;
    return multinomial_impl(tl_state_of(self), self, kw);
}

/* ---- tables and init ---------------------------------------------------------- */

static PyMethodDef random_tensor_methods[] = {
    {"uniform_", CF(m_uniform_), FASTKW,
     "uniform_($self, from_=0.0, to=1.0, /, *, generator=None)\n--\n\nFills self with "
     "numbers uniform on [from, to); the rounded upper bound never "
     "appears.  Floating and complex dtypes."},
    {"normal_", CF(m_normal_), FASTKW,
     "normal_($self, mean=0.0, std=1.0, *, generator=None)\n--\n\nFills self with "
     "normal numbers (complex: each part has variance std**2 / 2)."},
    {"random_", CF(m_random_), FASTKW,
     "random_($self, from_=0, to=None, /, *, generator=None)\n--\n\nFills self with "
     "integers uniform on [from, to); random_(to) is [0, to); no bounds: "
     "[0, 2**digits] for floats, [0, max] for integers."},
    {"exponential_", CF(m_exponential_), FASTKW,
     "exponential_($self, lambd=1.0, *, generator=None)\n--\n\nFills self with "
     "Exponential(lambd) numbers."},
    {"geometric_", CF(m_geometric_), FASTKW,
     "geometric_($self, p, *, generator=None)\n--\n\nFills self with the number of "
     "Bernoulli(p) trials up to the first success (1, 2, ...)."},
    {"log_normal_", CF(m_log_normal_), FASTKW,
     "log_normal_($self, mean=1.0, std=2.0, *, generator=None)\n--\n\nFills self with "
     "exp(Normal(mean, std))."},
    {"cauchy_", CF(m_cauchy_), FASTKW,
     "cauchy_($self, median=0.0, sigma=1.0, *, generator=None)\n--\n\nFills self with "
     "Cauchy(median, sigma) numbers."},
    {"bernoulli_", CF(m_bernoulli_), FASTKW,
     "bernoulli_($self, p=0.5, *, generator=None)\n--\n\nFills self with 1 with "
     "probability p (a number or a tensor broadcast to self), else 0."},
    {"bernoulli", CF(m_bernoulli), FASTKW,
     "bernoulli($self, p=None, *, generator=None)\n--\n\nSee tensorlib.bernoulli."},
    {"multinomial", CF(m_multinomial), FASTKW,
     "multinomial($self, num_samples, replacement=False, *, generator=None)\n--\n\n"
     "See tensorlib.multinomial."},
    {NULL},
};

static PyMethodDef random_functions[] = {
    {"manual_seed", py_manual_seed, METH_O,
     "manual_seed(seed, /)\n--\n\nSeeds the default CPU generator and returns "
     "it."},
    {"seed", py_seed, METH_NOARGS,
     "seed()\n--\n\nSeeds the default CPU generator from the operating "
     "system's entropy; returns the seed."},
    {"initial_seed", py_initial_seed, METH_NOARGS,
     "initial_seed()\n--\n\nThe default CPU generator's seed."},
    {"get_rng_state", py_get_rng_state, METH_NOARGS,
     "get_rng_state()\n--\n\nThe default CPU generator's state (a uint8 "
     "tensor)."},
    {"set_rng_state", py_set_rng_state, METH_O,
     "set_rng_state(new_state, /)\n--\n\nRestores the default CPU generator's "
     "state."},
    {"rand", CF(py_rand), FASTKW,
     "rand(*size, generator=None, out=None, dtype=None, device=None)\n--\n\n"
     "Numbers uniform on [0, 1)."},
    {"randn", CF(py_randn), FASTKW,
     "randn(*size, generator=None, out=None, dtype=None, device=None)\n--\n"
     "\nStandard normal numbers."},
    {"randint", CF(py_randint), FASTKW,
     "randint(low, high=None, size=None, *, generator=None, out=None, "
     "dtype=None, device=None)\n--\n\nIntegers uniform on [low, high) (int64 unless "
     "dtype says otherwise): randint(high, size) or randint(low, high, "
     "size), as PyTorch."},
    {"rand_like", CF(py_rand_like), FASTKW,
     "rand_like(input, *, dtype=None, device=None, generator=None)\n--\n\n"
     "rand() with input's shape, dtype and layout."},
    {"randn_like", CF(py_randn_like), FASTKW,
     "randn_like(input, *, dtype=None, device=None, generator=None)\n--\n\n"
     "randn() with input's shape, dtype and layout."},
    {"randint_like", CF(py_randint_like), FASTKW,
     "randint_like(input, low, high=None, *, dtype=None, device=None, "
     "generator=None)\n--\n\nrandint() with input's shape, dtype and "
     "layout."},
    {"randperm", CF(py_randperm), FASTKW,
     "randperm(n, *, generator=None, out=None, dtype=None, device=None)\n"
     "--\n\nA random permutation of 0 .. n-1."},
    {"normal", CF(py_normal), FASTKW,
     "normal(mean, std=1.0, size=None, *, generator=None, out=None, "
     "dtype=None, device=None)\n--\n\nNormal numbers: with numbers mean and "
     "std, of the given size; with tensors, broadcast (mean + std * z)."},
    {"bernoulli", CF(py_bernoulli), FASTKW,
     "bernoulli(input, p=None, *, generator=None, out=None)\n--\n\n1 with "
     "probability input[i] (or p), else 0, in input's dtype."},
    {"multinomial", CF(py_multinomial), FASTKW,
     "multinomial(input, num_samples, replacement=False, *, generator=None, "
     "out=None)\n--\n\nCategory indices drawn by the weights of each row of "
     "input (int64)."},
    {"poisson", CF(py_poisson), FASTKW,
     "poisson(input, generator=None)\n--\n\nPoisson(input[i]) numbers in "
     "input's dtype."},
    {NULL},
};

int tl_random_init(PyObject *m, tl_mstate *st)
{
    st->GeneratorType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &gen_spec, NULL);
    if (!st->GeneratorType ||
        PyModule_AddType(m, st->GeneratorType) < 0 ||
        PyModule_AddFunctions(m, random_functions) < 0) {
        return -1;
    }
    /* The in-place methods join the Tensor type as descriptors (the type
     * exists by now; Note [Tensor type assembly] covers the tables made
     * before it). */
    for (PyMethodDef *d = random_tensor_methods; d->ml_name; d++) {
        PyObject *descr = PyDescr_NewMethod(st->TensorType, d);
        if (!descr || PyObject_SetAttrString((PyObject *)st->TensorType,
                                             d->ml_name, descr) < 0) {
            Py_XDECREF(descr);
            return -1;
        }
        Py_DECREF(descr);
    }
    tl_generator *g = tl_generator_default(tl_device_cpu());
    if (!g) {
        tl_py_raise(st);
        return -1;
    }
    PyObject *dg = gen_wrap(st, g);
    if (!dg) {
        return -1;
    }
    int rc = PyModule_AddObjectRef(m, "default_generator", dg);
    Py_DECREF(dg);
    return rc;
}
