/* csrc/python/scalars.c — conversions between Python scalars and single
 * elements of each dtype, as torch.tensor() and item() do.  Elements may
 * be unaligned (imported memory), so they are moved with memcpy. */
#include <math.h>
#include <string.h>

#include "pytl.h"
#include "../core/float8.h"

/* A Python scalar classified: which kind and its value. */
typedef struct {
    int kind; /* TL_KIND_BOOL/INT/UINT/FLOAT/COMPLEX */
    int64_t i;
    uint64_t u;
    double f;
    double c[2];
} pyscalar;

int tl_py_numpy_scalar_dtype(PyObject *o, tl_dtype *out); /* numpy_bridge.c */

/* Returns: the dtype of o when o is a 0-d tensorlib.Tensor (a PyTorch
 * Scalar argument accepts those), else -1, with no exception either way. */
static int zero_dim_tensor_dtype(PyObject *o)
{
    if (!PyType_HasFeature(Py_TYPE(o), Py_TPFLAGS_HEAPTYPE)) {
        return -1; /* Python and NumPy scalars: static types */
    }
    PyObject *m = PyType_GetModuleByDef(Py_TYPE(o), &tl_module_def);
    if (!m) {
        PyErr_Clear(); /* a heap type of another module */
        return -1;
    }
    tl_mstate *st = tl_state_of_module(m);
    if (!tl_py_is_tensor(st, o) || tl_py_impl(o)->ndim != 0) {
        return -1;
    }
    return tl_py_impl(o)->dtype;
}

/* Returns 1 and fills s when o is a scalar we accept, 0 when it is not a
 * scalar (no exception), -1 on error. */
static int classify(PyObject *o, pyscalar *s)
{
    if (PyBool_Check(o)) {
        s->kind = TL_KIND_BOOL;
        s->i = (o == Py_True);
        return 1;
    }
    if (PyLong_Check(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow == 0) {
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            s->kind = TL_KIND_INT;
            s->i = v;
            return 1;
        }
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
                s->kind = TL_KIND_UINT;
                s->u = u;
                return 1;
            }
            PyErr_Clear();
        }
        PyErr_Format(PyExc_OverflowError,
                     "Python int %R is too large to convert to any integer "
                     "dtype", o);
        return -1;
    }
    if (PyFloat_Check(o)) {
        s->kind = TL_KIND_FLOAT;
        s->f = PyFloat_AS_DOUBLE(o);
        return 1;
    }
    if (PyComplex_Check(o)) {
        s->kind = TL_KIND_COMPLEX;
        s->c[0] = PyComplex_RealAsDouble(o);
        s->c[1] = PyComplex_ImagAsDouble(o);
        return 1;
    }
    tl_dtype nd;
    int r = tl_py_numpy_scalar_dtype(o, &nd);
    if (r < 0) {
        return -1;
    }
    if (r > 0 || zero_dim_tensor_dtype(o) >= 0) {
        PyObject *item = PyObject_CallMethod(o, "item", NULL);
        if (!item) {
            return -1;
        }
        int rr = classify(item, s);
        Py_DECREF(item);
        return rr;
    }
    return 0;
}

static int store_int_checked(const pyscalar *s, tl_dtype dt, void *dst)
{
    /* s is INT, UINT or BOOL; range-checked against dt (as NumPy 2 does,
     * rather than wrapping). */
    int64_t lo = 0;
    uint64_t hi = 0;
    switch (dt) {
    case TL_DTYPE_UINT8: hi = UINT8_MAX; break;
    case TL_DTYPE_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case TL_DTYPE_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case TL_DTYPE_UINT16: hi = UINT16_MAX; break;
    case TL_DTYPE_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    case TL_DTYPE_UINT32: hi = UINT32_MAX; break;
    case TL_DTYPE_INT64: lo = INT64_MIN; hi = INT64_MAX; break;
    case TL_DTYPE_UINT64: hi = UINT64_MAX; break;
    default: return -1;
    }
    bool ok;
    uint64_t bits;
    if (s->kind == TL_KIND_UINT) {
        ok = s->u <= hi;
        bits = s->u;
    } else {
        ok = s->i >= lo && (s->i < 0 || (uint64_t)s->i <= hi);
        bits = (uint64_t)s->i;
    }
    if (!ok) {
        if (s->kind == TL_KIND_UINT) {
            PyErr_Format(PyExc_OverflowError,
                         "value %llu is out of range for %s", (unsigned long long)s->u,
                         tl_dtype_info_of(dt)->name);
        } else {
            PyErr_Format(PyExc_OverflowError,
                         "value %lld is out of range for %s", (long long)s->i,
                         tl_dtype_info_of(dt)->name);
        }
        return -1;
    }
    /* Little-endian: the low bytes of the two's complement are the value. */
    int64_t size = tl_dtype_itemsize(dt);
    uint8_t tmp[8];
    for (int b = 0; b < size; b++) {
        tmp[b] = (uint8_t)(bits >> (8 * b));
    }
    memcpy(dst, tmp, (size_t)size);
    return 0;
}

static int store_float(double f, tl_dtype dt, void *dst)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16: {
        uint16_t h = tl_half_from_double(f);
        memcpy(dst, &h, 2);
        return 0;
    }
    case TL_DTYPE_BFLOAT16: {
        uint16_t h = tl_bf16_from_double(f);
        memcpy(dst, &h, 2);
        return 0;
    }
    case TL_DTYPE_FLOAT8_E4M3FN:
        *(uint8_t *)dst = tl_f8e4m3fn_from_double(f);
        return 0;
    case TL_DTYPE_FLOAT8_E5M2:
        *(uint8_t *)dst = tl_f8e5m2_from_double(f);
        return 0;
    case TL_DTYPE_FLOAT32: {
        float v = (float)f;
        memcpy(dst, &v, 4);
        return 0;
    }
    case TL_DTYPE_FLOAT64:
        memcpy(dst, &f, 8);
        return 0;
    case TL_DTYPE_COMPLEX64: {
        float v[2] = {(float)f, 0.0f};
        memcpy(dst, v, 8);
        return 0;
    }
    case TL_DTYPE_COMPLEX128: {
        double v[2] = {f, 0.0};
        memcpy(dst, v, 16);
        return 0;
    }
    default:
        return -1;
    }
}

int tl_py_store_scalar(PyObject *o, tl_dtype dt, void *dst)
{
    const int kind = tl_dtype_info_of(dt)->kind;
    /* An int into a floating or complex element: its value rounded to a
     * double, so that ints past the 64-bit range are numbers too (as in
     * PyTorch: 2**64 into float32 is 1.8447e19; past float64's range
     * PyLong_AsDouble raises OverflowError).  For ints in range this is
     * the value the classified path stores. */
    if ((kind == TL_KIND_FLOAT || kind == TL_KIND_COMPLEX) &&
        PyLong_Check(o) && !PyBool_Check(o)) {
        const double f = PyLong_AsDouble(o);
        if (f == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        return store_float(f, dt, dst);
    }
    pyscalar s;
    int r = classify(o, &s);
    if (r < 0) {
        return -1;
    }
    if (r == 0) {
        PyErr_Format(PyExc_TypeError,
                     "expected a number (bool, int, float or complex) for a "
                     "%s element, got %.100s", tl_dtype_info_of(dt)->name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    if (kind == TL_KIND_BOOL) {
        uint8_t b;
        switch (s.kind) {
        case TL_KIND_COMPLEX: b = s.c[0] != 0 || s.c[1] != 0; break;
        case TL_KIND_FLOAT: b = s.f != 0; break;
        case TL_KIND_UINT: b = s.u != 0; break;
        default: b = s.i != 0; break;
        }
        memcpy(dst, &b, 1);
        return 0;
    }
    if (s.kind == TL_KIND_COMPLEX) {
        if (kind != TL_KIND_COMPLEX) {
            PyErr_Format(PyExc_TypeError,
                         "cannot store the complex value %R in a %s tensor",
                         o, tl_dtype_info_of(dt)->name);
            return -1;
        }
        if (dt == TL_DTYPE_COMPLEX64) {
            float v[2] = {(float)s.c[0], (float)s.c[1]};
            memcpy(dst, v, 8);
        } else {
            memcpy(dst, s.c, 16);
        }
        return 0;
    }
    if (kind == TL_KIND_INT || kind == TL_KIND_UINT) {
        if (s.kind == TL_KIND_FLOAT) {
            double t = trunc(s.f);
            if (!isfinite(s.f) || t < -0x1p63 || t >= 0x1p64) {
                PyErr_Format(PyExc_OverflowError,
                             "value %R is out of range for %s", o, tl_dtype_info_of(dt)->name);
                return -1;
            }
            pyscalar si;
            if (t >= 0x1p63) {
                si.kind = TL_KIND_UINT;
                si.u = (uint64_t)t;
            } else {
                si.kind = TL_KIND_INT;
                si.i = (int64_t)t;
            }
            if (store_int_checked(&si, dt, dst) < 0) {
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError,
                             "value %R is out of range for %s", o, tl_dtype_info_of(dt)->name);
                return -1;
            }
            return 0;
        }
        return store_int_checked(&s, dt, dst);
    }
    /* Floating or complex destination from a real value. */
    double f;
    if (s.kind == TL_KIND_FLOAT) {
        f = s.f;
    } else if (s.kind == TL_KIND_UINT) {
        f = (double)s.u;
    } else {
        f = (double)s.i;
    }
    return store_float(f, dt, dst);
}

PyObject *tl_py_load_scalar(tl_dtype dt, const void *src)
{
    switch (dt) {
    case TL_DTYPE_BOOL: {
        uint8_t v;
        memcpy(&v, src, 1);
        return PyBool_FromLong(v != 0);
    }
#define LOAD_INT(code, ctype, conv)                                         \
    case code: {                                                            \
        ctype v;                                                            \
        memcpy(&v, src, sizeof v);                                          \
        return conv(v);                                                     \
    }
    LOAD_INT(TL_DTYPE_UINT8, uint8_t, PyLong_FromLong)
    LOAD_INT(TL_DTYPE_INT8, int8_t, PyLong_FromLong)
    LOAD_INT(TL_DTYPE_INT16, int16_t, PyLong_FromLong)
    LOAD_INT(TL_DTYPE_UINT16, uint16_t, PyLong_FromLong)
    LOAD_INT(TL_DTYPE_INT32, int32_t, PyLong_FromLong)
    LOAD_INT(TL_DTYPE_UINT32, uint32_t, PyLong_FromUnsignedLong)
    LOAD_INT(TL_DTYPE_INT64, int64_t, PyLong_FromLongLong)
    LOAD_INT(TL_DTYPE_UINT64, uint64_t, PyLong_FromUnsignedLongLong)
    LOAD_INT(TL_DTYPE_FLOAT32, float, PyFloat_FromDouble)
    LOAD_INT(TL_DTYPE_FLOAT64, double, PyFloat_FromDouble)
#undef LOAD_INT
    case TL_DTYPE_FLOAT16: {
        uint16_t h;
        memcpy(&h, src, 2);
        return PyFloat_FromDouble(tl_half_to_float(h));
    }
    case TL_DTYPE_BFLOAT16: {
        uint16_t h;
        memcpy(&h, src, 2);
        return PyFloat_FromDouble(tl_bf16_to_float(h));
    }
    case TL_DTYPE_FLOAT8_E4M3FN:
        return PyFloat_FromDouble(
            tl_f8e4m3fn_to_float(*(const uint8_t *)src));
    case TL_DTYPE_FLOAT8_E5M2:
        return PyFloat_FromDouble(tl_f8e5m2_to_float(*(const uint8_t *)src));
    case TL_DTYPE_COMPLEX64: {
        float v[2];
        memcpy(v, src, 8);
        return PyComplex_FromDoubles(v[0], v[1]);
    }
    case TL_DTYPE_COMPLEX128: {
        double v[2];
        memcpy(v, src, 16);
        return PyComplex_FromDoubles(v[0], v[1]);
    }
    default:
        PyErr_SetString(PyExc_SystemError, "bad dtype");
        return NULL;
    }
}

bool tl_py_plain_scalar_dtype(PyObject *o, tl_dtype *out)
{
    if (PyFloat_CheckExact(o)) {
        *out = TL_DTYPE_FLOAT32;
    } else if (PyLong_CheckExact(o)) {
        *out = TL_DTYPE_INT64;
    } else if (PyBool_Check(o)) {
        *out = TL_DTYPE_BOOL;
    } else if (PyComplex_CheckExact(o)) {
        *out = TL_DTYPE_COMPLEX64;
    } else {
        return false;
    }
    return true;
}

int tl_py_scalar_dtype(PyObject *o, tl_dtype *out)
{
    if (tl_py_plain_scalar_dtype(o, out)) {
        return 0;
    }
    /* NumPy scalars and 0-d tensors count as the Python scalar of their
     * kind (as a PyTorch Scalar argument does: torch.full((2,),
     * numpy.float64(1)) is float32), checked first because numpy.float64
     * subclasses float. */
    tl_dtype nd;
    int r = tl_py_numpy_scalar_dtype(o, &nd);
    if (r < 0) {
        return -1;
    }
    if (r == 0) {
        int td = zero_dim_tensor_dtype(o); /* likewise a 0-d tensor */
        if (td >= 0) {
            nd = (tl_dtype)td;
            r = 1;
        }
    }
    if (r > 0) {
        switch (tl_dtype_info_of(nd)->kind) {
        case TL_KIND_BOOL: *out = TL_DTYPE_BOOL; break;
        case TL_KIND_UINT:
        case TL_KIND_INT: *out = TL_DTYPE_INT64; break;
        case TL_KIND_FLOAT: *out = TL_DTYPE_FLOAT32; break;
        default: *out = TL_DTYPE_COMPLEX64; break;
        }
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = TL_DTYPE_BOOL;
    } else if (PyLong_Check(o)) {
        *out = TL_DTYPE_INT64;
    } else if (PyFloat_Check(o)) {
        *out = TL_DTYPE_FLOAT32;
    } else if (PyComplex_Check(o)) {
        *out = TL_DTYPE_COMPLEX64;
    } else {
        return -1;
    }
    return 0;
}
