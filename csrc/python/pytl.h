/* csrc/python/pytl.h — internal to the extension module tensorlib._C: the
 * module state, the Python object structs, and the helpers shared by the
 * files of csrc/python.  The only layer that includes Python.h. */
#ifndef TENSORLIB_CSRC_PYTHON_PYTL_H
#define TENSORLIB_CSRC_PYTHON_PYTL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The extension sees the C core through the public API (the umbrella
 * header) plus one internal header, core's tensor_impl.h (with the block
 * and dtype-table structs it includes), whose fields it reads directly on
 * hot paths: sizes, strides, dtype, storage and flags.  Other internal
 * headers are included only by the one file that needs them: cuda.c (the
 * CUDA plug-in's start-up call, in a TL_WITH_CUDA build), scalars.c
 * (float8.h's conversions), vecmath.c (vecmath.h, for the tests' hooks)
 * and tensor_type.c (alloc's sanitizer.h, for TL_ASAN). */
#include "tensorlib/tensorlib.h"
#include "../core/tensor_impl.h"

/* Per-module state: the types, exceptions and singletons; module_traverse
 * visits and module_clear clears every object here (module.c).  The
 * process-global allocator registry is accessed, not owned, from here. */
typedef struct {
    PyTypeObject *TensorType;
    PyTypeObject *DtypeType;
    PyTypeObject *DeviceType;
    PyTypeObject *SizeType;
    PyTypeObject *MemoryFormatType;
    PyTypeObject *ExporterType;  /* keeps a storage exported for NumPy */
    PyTypeObject *StorageType;
    PyTypeObject *TensorIterType; /* iter(tensor): its rows */
    PyObject *ShapeError;
    PyObject *TooHardError;
    PyObject *dtypes[TL_DTYPE_COUNT];      /* the dtype singletons */
    PyObject *formats[4];                  /* memory format singletons */
    PyObject *cpu_device;                  /* device('cpu') */
    PyTypeObject *GeneratorType; /* random.c: tensorlib.Generator */
} tl_mstate;

/* Python objects. */
typedef struct {
    PyObject_HEAD
    tl_tensor_impl *impl;   /* strong reference; never NULL once built */
    PyObject *weakreflist;
    /* Issue 22: the last .shape Size and .stride() tuple handed out
     * (owned, or NULL), each reused while the impl's meta_gen still reads
     * the value it had when the tuple was made (Note [Shape tuple
     * cache], tensor_type.c). */
    PyObject *shape_cache;
    PyObject *stride_cache;
    uint32_t shape_gen;
    uint32_t stride_gen;
} TensorObject;

typedef struct {
    PyObject_HEAD
    int code;               /* a tl_dtype */
} DtypeObject;

typedef struct {
    PyObject_HEAD
    tl_device dev;
    /* device("cuda") with no index: it means device 0 (tensorlib has no
     * per-thread current device) but, as in PyTorch, shows no index
     * ('cuda', index None) and is not equal to device("cuda:0"). */
    bool no_index;
} DeviceObject;

typedef struct {
    PyObject_HEAD
    int fmt;                /* a tl_memory_format */
} MemoryFormatObject;

/* Method-table helpers for every file: the flags of a vectorcall method
 * with keywords (parsed by args.c's tl_py_parse_args), and the cast of
 * its function to the PyCFunction slot type. */
#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define CF(f) ((PyCFunction)(void (*)(void))(f))

extern PyModuleDef tl_module_def;

/* State lookup from a module object or from one of our types. */
static inline tl_mstate *tl_state_of_module(PyObject *m)
{
    return (tl_mstate *)PyModule_GetState(m);
}
static inline tl_mstate *tl_state_of_type(PyTypeObject *tp)
{
    return (tl_mstate *)PyType_GetModuleState(tp);
}
/* For objects of our own types (methods, getters). */
static inline tl_mstate *tl_state_of(PyObject *self)
{
    return tl_state_of_type(Py_TYPE(self));
}

/* ---- errors (errors.c) ---- */

/* Raises the exception for the thread's tl_error record and clears it.
 * Returns: NULL (so a caller can `return tl_py_raise(st);`). */
PyObject *tl_py_raise(tl_mstate *st);
/* As tl_py_raise, for int-returning callers.  Returns: -1. */
int tl_py_raise_int(tl_mstate *st);

/* ---- tensors (tensor_type.c) ---- */

/* The Python object of impl: the existing one when the impl's slot holds
 * one, else a new object.  Steals: impl (also on failure).
 * Returns: new reference, or NULL. */
PyObject *tl_py_wrap(tl_mstate *st, tl_tensor_impl *impl);

static inline int tl_py_is_tensor(tl_mstate *st, PyObject *o)
{
    return Py_IS_TYPE(o, st->TensorType);
}
static inline tl_tensor_impl *tl_py_impl(PyObject *o)
{
    return ((TensorObject *)o)->impl;
}

int tl_tensor_type_init(PyObject *m, tl_mstate *st);

/* Tables that other files add to the Tensor type (Note [Tensor type
 * assembly] in tensor_type.c); each is NULL-terminated. */
extern PyMethodDef tl_ops_tensor_methods[];   /* ops.c */
extern PyType_Slot tl_ops_tensor_slots[];     /* ops.c */
extern PyMethodDef tl_view_tensor_methods[];  /* views.c */
extern PyGetSetDef tl_view_tensor_getset[];   /* views.c */
extern PyType_Slot tl_view_tensor_slots[];    /* views.c */
extern PyMethodDef tl_view_functions[];       /* views.c: module level */
extern PyType_Slot tl_index_tensor_slots[];   /* indexing.c */
extern PyMethodDef tl_storage_tensor_methods[]; /* storage.c */
extern PyMethodDef tl_reduce_tensor_methods[]; /* reduce_ops.c */
extern PyMethodDef tl_reduce_functions[];     /* reduce_ops.c: module */
extern PyMethodDef tl_storage_functions[];    /* storage.c: module level */
int tl_storage_type_init(PyObject *m, tl_mstate *st);
/* Returns: borrowed storage of a tensorlib.UntypedStorage, or NULL with
 * TypeError. */
tl_storage *tl_py_storage_impl(tl_mstate *st, PyObject *o);
/* Returns: new reference to s's Python object (s not stolen). */
PyObject *tl_py_storage_wrap(tl_mstate *st, tl_storage *s);
extern PyMethodDef tl_interop_tensor_methods[]; /* interop.c */
extern PyGetSetDef tl_interop_tensor_getset[];  /* interop.c */
extern PyMethodDef tl_interop_functions[];      /* interop.c: module */
extern PyMethodDef tl_memory_tensor_methods[];  /* memory.c */
extern PyGetSetDef tl_memory_tensor_getset[];   /* memory.c */
extern PyMethodDef tl_memory_functions[];       /* memory.c: module */
int tl_memory_init(PyObject *m, tl_mstate *st);  /* memory.c: types */
extern PyMethodDef tl_cuda_tensor_methods[];  /* cuda.c */
extern PyGetSetDef tl_cuda_tensor_getset[];   /* cuda.c */
/* cuda.c: adds the _cuda_* functions and, in a CUDA build, starts the
 * CUDA plug-in.  Returns 0 / -1. */
int tl_cuda_init(PyObject *m, tl_mstate *st);
extern PyMethodDef tl_index_tensor_methods[]; /* indexing.c */
extern PyMethodDef tl_linalg_tensor_methods[]; /* linalg.c */
extern PyType_Slot tl_linalg_tensor_slots[];   /* linalg.c: @, @= */
/* linalg.c: matmul and the private _lapack_* functions.  Returns 0 / -1. */
int tl_linalg_init(PyObject *m, tl_mstate *st);
extern PyMethodDef tl_files_functions[];      /* files.c: module level */
extern PyMethodDef tl_files_tensor_methods[]; /* files.c: lazy_clone */

/* Converts a Python or NumPy scalar: 1 and *out filled, 0 when o is not a
 * scalar, -1 on error (OverflowError for ints beyond uint64). */
struct tl_scalar;
int tl_py_as_scalar(PyObject *o, struct tl_scalar *out);

/* ---- dtypes, devices, formats (types.c) ---- */

int tl_types_init(PyObject *m, tl_mstate *st);

/* Returns: new reference to the dtype singleton. */
PyObject *tl_py_dtype(tl_mstate *st, tl_dtype dt);
/* Returns: new reference to a device object. */
PyObject *tl_py_device(tl_mstate *st, tl_device d);
/* Converts None (-> *out unchanged), a dtype object, a string, a NumPy
 * dtype or a Python type (bool, int, float, complex).  Returns 0 / -1. */
int tl_py_parse_dtype(tl_mstate *st, PyObject *o, tl_dtype *out);
/* Converts None (-> *out unchanged), a device object, a str or an int
 * (CUDA index).  Returns 0 / -1. */
int tl_py_parse_device(tl_mstate *st, PyObject *o, tl_device *out);
/* Converts None (-> *out unchanged) or a memory format object.
 * Returns 0 / -1. */
int tl_py_parse_memory_format(tl_mstate *st, PyObject *o, int *out);
/* Converts None (-> *out unchanged), a MemoryKind int enum or a str.
 * Returns 0 / -1. */
int tl_py_parse_memkind(tl_mstate *st, PyObject *o, tl_memkind *out);
/* Converts a shape argument: either the positional ints of *size or one
 * sequence.  Returns ndim, or -1 with an exception. */
int tl_py_parse_shape(PyObject *const *args, Py_ssize_t nargs,
                      int64_t *sizes, const char *fname);
/* Converts one Python int (or __index__ object) to int64 with a clear
 * error naming what.  Returns 0 / -1. */
int tl_py_int64(PyObject *o, int64_t *out, const char *what);
/* Returns: new reference to a tensorlib.Size of the given ints. */
PyObject *tl_py_size(tl_mstate *st, int n, const int64_t *v);

/* ---- argument parsing (args.c) ---- */

/* The out= argument of an op: *out = NULL when o is NULL or None, else
 * o's impl (borrowed: valid while o lives).  Returns 0, or -1 with a
 * TypeError naming fname when o is not a tensor. */
static inline int tl_py_parse_out(tl_mstate *st, PyObject *o,
                                  tl_tensor_impl **out, const char *fname)
{
    *out = NULL;
    if (!o || o == Py_None) {
        return 0;
    }
    if (!tl_py_is_tensor(st, o)) {
        PyErr_Format(PyExc_TypeError, "%s(): out must be a tensor, not "
                     "%.100s", fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = tl_py_impl(o);
    return 0;
}

/* Parses a vectorcall argument list against kw names (NULL-terminated):
 * the first npos_max may come positionally; all may come by keyword.
 * Fills out[i] with borrowed references (NULL when absent).
 * Returns 0 / -1 with TypeError naming fname. */
int tl_py_parse_args(PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, const char *const *names,
                     Py_ssize_t npos_max, PyObject **out, const char *fname);

/* ---- elements and scalars (scalars.c) ---- */

/* Stores Python scalar o (bool, int, float, complex, or a one-element
 * tensor / NumPy scalar) into dst as dtype dt, as torch.tensor() does.
 * Returns 0 / -1 (TypeError for other objects, OverflowError when an int
 * does not fit the dtype). */
int tl_py_store_scalar(PyObject *o, tl_dtype dt, void *dst);
/* Returns: new reference to the Python scalar of the element at src
 * (possibly unaligned). */
PyObject *tl_py_load_scalar(tl_dtype dt, const void *src);
/* The dtype torch.tensor infers for a Python scalar: bool, int64,
 * float32 (default float), complex64.  Returns 0 if o is a scalar. */
int tl_py_scalar_dtype(PyObject *o, tl_dtype *out);
/* The same for exactly a bool, int, float or complex (not a subclass:
 * NumPy scalars subclass float and complex but keep their own dtype).
 * Returns whether o is one; cheap enough to try first. */
bool tl_py_plain_scalar_dtype(PyObject *o, tl_dtype *out);

/* ---- creation (creation.c), NumPy and buffers (numpy_bridge.c) ---- */

extern PyMethodDef tl_creation_methods[];
extern PyMethodDef tl_numpy_methods[];
extern PyBufferProcs tl_tensor_buffer_procs;
int tl_numpy_init(PyObject *m, tl_mstate *st);
/* Returns: new reference to a zero-copy NumPy array over t, or NULL. */
PyObject *tl_py_to_numpy(tl_mstate *st, PyObject *t);
/* Returns: new reference to a tensor sharing a NumPy array's memory
 * (the array is kept alive by the storage), or NULL. */
PyObject *tl_py_from_numpy(tl_mstate *st, PyObject *arr);
/* 1 and the dtype when o is a NumPy scalar or 0-d array, 0 when not,
 * -1 on error. */
int tl_py_numpy_scalar_dtype_or_0d(PyObject *o, tl_dtype *out);
int tl_py_numpy_scalar_dtype(PyObject *o, tl_dtype *out);
int tl_py_is_ndarray(PyObject *o);
/* Wraps dim into [0, ndim).  Returns 0 or -1 with IndexError. */
int tl_py_wrap_dim(int64_t dim, int ndim, int *out);
/* t[i] along dim 0, i in range.  Returns: new reference, or NULL. */
tl_tensor_impl *tl_py_select0(tl_tensor_impl *t, int64_t i);
/* Returns: new reference, a tensor built from data as tensorlib.tensor(). */
PyObject *tl_py_tensor_from_data(tl_mstate *st, PyObject *data, int dtype,
                                 tl_device dev);

/* ---- random numbers (random.c) ---- */

/* Adds Generator, default_generator, the random functions and the
 * in-place Tensor methods (after tl_tensor_type_init).  Returns 0 / -1. */
int tl_random_init(PyObject *m, tl_mstate *st);

#endif /* TENSORLIB_CSRC_PYTHON_PYTL_H */
