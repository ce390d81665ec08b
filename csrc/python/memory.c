/* csrc/python/memory.c — Python bindings of the memory system: memory
 * kinds of tensors, pinned memory, the registry (read and rerouted to the
 * built-in allocators by name), allocator statistics, the workspace arena
 * (tensorlib.workspace / WorkspaceArena), execution plans
 * (tensorlib.ExecutionPlan) and the multi-threaded allocator stress hook.
 * It accesses the process-global registry; it owns no allocator. */
#include "pytl.h"
#include "fault_py.h"
#include "tensorlib/ops.h"


/* Returns: new reference to tensorlib.MemoryKind(k), or NULL. */
static PyObject *memkind_object(tl_memkind k)
{
    PyObject *mod = PyImport_ImportModule("tensorlib");
    if (!mod) {
        return NULL;
    }
    PyObject *cls = PyObject_GetAttrString(mod, "MemoryKind");
    Py_DECREF(mod);
    if (!cls) {
        return NULL;
    }
    PyObject *r = PyObject_CallFunction(cls, "i", (int)k);
    Py_DECREF(cls);
    return r;
}

/* Parses a required memory kind (None is refused).  Returns 0 / -1. */
static int require_memkind(tl_mstate *st, PyObject *o, tl_memkind *out,
                           const char *fname)
{
    if (!o || o == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s() needs a memory kind", fname);
        return -1;
    }
    if (PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): a memory kind is a "
                     "tensorlib.MemoryKind or a str, not bool", fname);
        return -1;
    }
    return tl_py_parse_memkind(st, o, out);
}

/* Parses a non-negative byte count.  Returns 0 / -1 (ValueError when
 * negative, OverflowError beyond int64). */
static int parse_nbytes(PyObject *o, int64_t *out, const char *what)
{
    if (tl_py_int64(o, out, what) < 0) {
        return -1;
    }
    if (*out < 0) {
        PyErr_Format(PyExc_ValueError, "%s must be non-negative, got %lld",
                     what, (long long)*out);
        return -1;
    }
    return 0;
}

/* ---- tensors: memory kind, pinned memory -------------------------------- */

static PyObject *t_get_memory_kind(PyObject *self, void *c)
{
    return memkind_object(tl_block_memkind(tl_py_impl(self)->storage->block));
}

/* Whether b's memory is page-locked host memory: allocated for HostPinned
 * by the pinned allocator, or by whatever was registered for (cpu,
 * HostPinned) other than the plain built-ins. */
static bool block_is_pinned(const tl_block *b)
{
    const tl_allocator *o = tl_block_owner(b);
    if (!o || b->hooks || tl_block_memkind(b) != TL_MEMKIND_HOST_PINNED) {
        return false;
    }
    return o == tl_cpu_pinned_allocator() ||
           (o != tl_cpu_aligned_allocator() &&
            o != tl_cpu_caching_allocator());
}

static PyObject *t_is_pinned(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(block_is_pinned(tl_py_impl(self)->storage->block));
}

/* pin_memory(): a copy in page-locked memory (self when already pinned),
 * as PyTorch. */
static PyObject *t_pin_memory(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *t = tl_py_impl(self);
    if (t->device.type != TL_DEVICE_CPU) {
        char dev[32];
        tl_device_format(t->device, dev, sizeof dev);
        PyErr_Format(PyExc_RuntimeError, "cannot pin a %s tensor: only "
                     "dense CPU tensors can be pinned", dev);
        return NULL;
    }
    if (tl_tensor_check_live(t) < 0) {
        return tl_py_raise(st);
    }
    if (block_is_pinned(t->storage->block)) {
        return Py_NewRef(self);
    }
    tl_tensor_impl *p = tl_tensor_empty(t->ndim, t->sizes,
                                        (tl_dtype)t->dtype, t->device,
                                        TL_MEMKIND_HOST_PINNED);
    if (!p || tl_op_copy_(p, t) < 0) {
        tl_tensor_decref(p);
        return tl_py_raise(st);
    }
    return tl_py_wrap(st, p);
}

PyMethodDef tl_memory_tensor_methods[] = {
    {"pin_memory", t_pin_memory, METH_NOARGS,
     "pin_memory($self, /)\n--\n\nA copy of the tensor in page-locked host "
     "memory (MemoryKind.HostPinned), or self when it is pinned already.  "
     "Where the system refuses to lock pages the copy is plain memory: see "
     "tensorlib.memory.pinned_is_locked()."},
    {"is_pinned", t_is_pinned, METH_NOARGS,
     "is_pinned($self, /)\n--\n\nWhether the tensor lives in memory from "
     "the HostPinned allocator."},
    {NULL},
};

PyGetSetDef tl_memory_tensor_getset[] = {
    {"memory_kind", t_get_memory_kind, NULL,
     "The tensorlib.MemoryKind its memory was allocated for.", NULL},
    {NULL},
};

/* ---- stats -------------------------------------------------------------- */

static PyObject *stats_dict(const tl_alloc_stats *s)
{
    return Py_BuildValue(
        "{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}",
        "active_bytes", (long long)s->active_bytes,
        "active_bytes_peak", (long long)s->active_bytes_peak,
        "reserved_bytes", (long long)s->reserved_bytes,
        "cached_bytes", (long long)s->cached_bytes,
        "alloc_count", (long long)s->alloc_count,
        "free_count", (long long)s->free_count,
        "cache_hits", (long long)s->cache_hits,
        "cache_misses", (long long)s->cache_misses,
        "largest_free_block", (long long)s->largest_free_block,
        "fragmentation_bytes", (long long)s->fragmentation_bytes,
        "mapped_bytes", (long long)s->mapped_bytes);
}

static PyObject *py_memory_stats(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[2];
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "memory_stats") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0 ||
        tl_py_parse_memkind(st, a[1], &kind) < 0) {
        return NULL;
    }
    bool all = !a[1] || a[1] == Py_None;
    tl_alloc_stats s;
    if (tl_registry_stats(dev, all ? -1 : (int)kind, &s) < 0) {
        return tl_py_raise(st);
    }
    return stats_dict(&s);
}

static PyObject *py_empty_cache(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[1];
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "empty_cache") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    tl_registry_empty_cache(dev);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *py_reset_peak(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[1];
    tl_device dev = tl_device_cpu();
    if (tl_py_parse_args(args, nargs, kwnames, names, 1, a,
                         "reset_peak_memory_stats") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0) {
        return NULL;
    }
    tl_registry_reset_peak(dev);
    Py_RETURN_NONE;
}

/* ---- registry ----------------------------------------------------------- */

static PyObject *py_allocator_for(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "kind", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[2];
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "allocator_for") < 0 ||
        tl_py_parse_device(st, a[0], &dev) < 0 ||
        (a[1] && a[1] != Py_None &&
         require_memkind(st, a[1], &kind, "allocator_for") < 0)) {
        return NULL;
    }
    const tl_allocator *al = tl_registry_get(dev, kind);
    if (!al) {
        return tl_py_raise(st);
    }
    return PyUnicode_FromString(al->name ? al->name : "?");
}

static PyObject *py_set_allocator(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"kind", "name", "device", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[3];
    tl_device dev = tl_device_cpu();
    tl_memkind kind;
    if (tl_py_parse_args(args, nargs, kwnames, names, 3, a,
                         "set_allocator") < 0 ||
        require_memkind(st, a[0], &kind, "set_allocator") < 0 ||
        tl_py_parse_device(st, a[2], &dev) < 0) {
        return NULL;
    }
    if (!a[1] || !PyUnicode_Check(a[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "set_allocator(): name must be a str naming a "
                        "built-in allocator (see tensorlib.memory."
                        "allocators())");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(a[1]);
    if (!name) {
        return NULL;
    }
    const tl_allocator *al = tl_allocator_builtin(name);
    if (!al || tl_registry_set(dev, kind, al) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *py_allocators(PyObject *m, PyObject *unused)
{
    const char *names[16];
    int n = tl_allocator_builtin_names(names, 16);
    PyObject *r = PyList_New(n);
    for (int i = 0; r && i < n; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (!s) {
            Py_CLEAR(r);
            break;
        }
        PyList_SET_ITEM(r, i, s);
    }
    return r;
}

static PyObject *py_pinned_info(PyObject *m, PyObject *unused)
{
    tl_pinned_info pi;
    tl_pinned_info_get(&pi);
    return Py_BuildValue("{s:L,s:L,s:L,s:O}",
                         "locked_bytes", (long long)pi.locked_bytes,
                         "unlocked_bytes", (long long)pi.unlocked_bytes,
                         "lock_failures", (long long)pi.lock_failures,
                         "last_locked", pi.last_locked ? Py_True : Py_False);
}

static PyObject *py_pinned_refuse_lock(PyObject *m, PyObject *arg)
{
    int v = PyObject_IsTrue(arg);
    if (v < 0) {
        return NULL;
    }
    tl_pinned_refuse_lock(v != 0);
    Py_RETURN_NONE;
}

/* ---- the stress hook ---------------------------------------------------- */

static PyObject *py_memory_stress(PyObject *m, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"threads", "iters", "max_bytes",
                                        "live", "seed", "workspace", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[6];
    int64_t v[5] = {8, 2000, 1 << 16, 16, 1};
    if (tl_py_parse_args(args, nargs, kwnames, names, 6, a,
                         "_memory_stress") < 0) {
        return NULL;
    }
    for (int i = 0; i < 5; i++) {
        if (a[i] && tl_py_int64(a[i], &v[i], names[i]) < 0) {
            return NULL;
        }
        if (v[i] < 0 || v[i] > (1 << 30)) {
            PyErr_Format(PyExc_ValueError, "_memory_stress(): %s out of "
                         "range: %lld", names[i], (long long)v[i]);
            return NULL;
        }
    }
    int ws = a[5] ? PyObject_IsTrue(a[5]) : 1;
    if (ws < 0) {
        return NULL;
    }
    tl_alloc_stress_config cfg = {(int)v[0], (int)v[1], (size_t)v[2],
                                  (int)v[3], (unsigned)v[4], ws != 0};
    tl_alloc_stress_result r;
    int rc;
    memset(&r, 0, sizeof r);
    Py_BEGIN_ALLOW_THREADS
    rc = tl_alloc_stress(&cfg, &r);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        return tl_py_raise(st);
    }
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L}",
                         "allocs", (long long)r.allocs,
                         "frees", (long long)r.frees,
                         "resets", (long long)r.resets,
                         "corruptions", (long long)r.corruptions,
                         "failures", (long long)r.failures,
                         "stale", (long long)r.stale);
}

/* ---- workspace arenas --------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    tl_arena *arena;   /* strong; never NULL once built */
    int64_t nbytes;    /* what was asked */
    bool growable;
} WorkspaceObject;


#define ARENA(o) (((WorkspaceObject *)(o))->arena)

static void ws_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tl_arena_decref(ARENA(self));
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* workspace(nbytes, growable=True) */
static PyObject *py_workspace(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"nbytes", "growable", NULL};
    tl_mstate *st = tl_state_of_module(m);
    PyObject *a[2];
    int64_t n;
    if (tl_py_parse_args(args, nargs, kwnames, names, 2, a,
                         "workspace") < 0) {
        return NULL;
    }
    if (!a[0]) {
        PyErr_SetString(PyExc_TypeError, "workspace() needs nbytes");
        return NULL;
    }
    if (parse_nbytes(a[0], &n, "workspace(): nbytes") < 0) {
        return NULL;
    }
    int growable = a[1] ? PyObject_IsTrue(a[1]) : 1;
    if (growable < 0) {
        return NULL;
    }
    PyObject *tp = PyObject_GetAttrString(m, "WorkspaceArena");
    if (!tp) {
        return NULL;
    }
    if (!PyType_Check(tp)) {
        Py_DECREF(tp);
        PyErr_SetString(PyExc_RuntimeError,
                        "tensorlib._C.WorkspaceArena was replaced");
        return NULL;
    }
    tl_arena *arena;
    Py_BEGIN_ALLOW_THREADS
    arena = tl_arena_new(NULL, (size_t)n, growable ? 0 : TL_ARENA_FIXED);
    Py_END_ALLOW_THREADS
    if (!arena) {
        Py_DECREF(tp);
        return tl_py_raise(st);
    }
    WorkspaceObject *o = TL_PY_NEW(WorkspaceObject, (PyTypeObject *)tp);
    Py_DECREF(tp);
    if (!o) {
        tl_arena_decref(arena);
        return NULL;
    }
    o->arena = arena;
    o->nbytes = n;
    o->growable = growable != 0;
    return (PyObject *)o;
}

static PyObject *ws_enter(PyObject *self, PyObject *unused)
{
    if (tl_arena_push(ARENA(self)) < 0) {
        return tl_py_raise(tl_state_of(self));
    }
    return Py_NewRef(self);
}

static PyObject *ws_exit(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs)
{
    tl_arena_reset(ARENA(self));
    if (tl_arena_pop(ARENA(self)) < 0) {
        return tl_py_raise(tl_state_of(self));
    }
    Py_RETURN_FALSE;
}

static PyObject *ws_reset(PyObject *self, PyObject *unused)
{
    tl_arena_reset(ARENA(self));
    Py_RETURN_NONE;
}

/* empty/zeros(*size, dtype=None, alignment=64): carved from this arena
 * (whether or not it is the innermost one). */
static PyObject *ws_make(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames,
                         const char *fname, bool zero)
{
    static const char *const kw[] = {"dtype", "alignment", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *o[2];
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], nbytes,
        align = TL_CPU_ALIGNMENT;
    tl_dtype dt = TL_DTYPE_FLOAT32;
    if (tl_py_parse_args(args + nargs, 0, kwnames, kw, 0, o, fname) < 0) {
        return NULL;
    }
    int ndim = tl_py_parse_shape(args, nargs, sizes, fname);
    if (ndim < 0 || tl_py_parse_dtype(st, o[0], &dt) < 0 ||
        (o[1] && tl_py_int64(o[1], &align, "alignment") < 0)) {
        return NULL;
    }
    if (align <= 0 || (align & (align - 1)) || align > 4096) {
        PyErr_Format(PyExc_ValueError, "%s(): alignment %lld is not a power "
                     "of two from 1 to 4096", fname, (long long)align);
        return NULL;
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), NULL,
                            &nbytes) < 0) {
        return tl_py_raise(st);
    }
    if (tl_dense_strides(ndim, sizes, TL_FORMAT_CONTIGUOUS, strides) < 0) {
        return tl_py_raise(st);
    }
    tl_block *b = tl_arena_alloc_block(ARENA(self), TL_MEMKIND_WORKSPACE,
                                       (size_t)nbytes, (size_t)align);
    if (!b) {
        return tl_py_raise(st);
    }
    tl_storage *s = tl_storage_from_block(b, 0, nbytes);
    tl_block_decref(b);
    tl_tensor_impl *t = s ? tl_tensor_new(s, 0, ndim, sizes, strides, dt)
                          : NULL;
    tl_storage_decref(s);
    if (!t) {
        return tl_py_raise(st);
    }
    if (zero && nbytes > 0) {
        memset(tl_impl_data(t), 0, (size_t)nbytes);
    }
    return tl_py_wrap(st, t);
}

static PyObject *ws_empty(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return ws_make(self, args, nargs, kwnames, "empty", false);
}

static PyObject *ws_zeros(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    return ws_make(self, args, nargs, kwnames, "zeros", true);
}

static PyObject *ws_stats(PyObject *self, PyObject *unused)
{
    tl_alloc_stats s;
    tl_arena_stats(ARENA(self), &s);
    return stats_dict(&s);
}

static PyObject *ws_get_generation(PyObject *self, void *c)
{
    return PyLong_FromUnsignedLongLong(tl_arena_generation(ARENA(self)));
}

static PyObject *ws_get_capacity(PyObject *self, void *c)
{
    return PyLong_FromSize_t(tl_arena_capacity(ARENA(self)));
}

static PyObject *ws_get_used(PyObject *self, void *c)
{
    return PyLong_FromSize_t(tl_arena_used(ARENA(self)));
}

static PyObject *ws_get_chunks(PyObject *self, void *c)
{
    return PyLong_FromLong(tl_arena_chunk_count(ARENA(self)));
}

static PyObject *ws_get_nbytes(PyObject *self, void *c)
{
    return PyLong_FromLongLong(((WorkspaceObject *)self)->nbytes);
}

static PyObject *ws_get_growable(PyObject *self, void *c)
{
    return PyBool_FromLong(((WorkspaceObject *)self)->growable);
}

static PyObject *ws_get_active(PyObject *self, void *c)
{
    tl_arena *cur = tl_arena_current();
    return PyBool_FromLong(cur == ARENA(self));
}

static PyObject *ws_repr(PyObject *self)
{
    return PyUnicode_FromFormat(
        "<tensorlib.WorkspaceArena of %zu bytes in %d chunk(s), %zu used, "
        "generation %llu%s>",
        tl_arena_capacity(ARENA(self)), tl_arena_chunk_count(ARENA(self)),
        tl_arena_used(ARENA(self)),
        (unsigned long long)tl_arena_generation(ARENA(self)),
        ((WorkspaceObject *)self)->growable ? "" : ", fixed");
}

static PyMethodDef ws_methods[] = {
    {"__enter__", ws_enter, METH_NOARGS,
     "__enter__($self, /)\n--\n\nPushes the arena on this thread's "
     "workspace stack."},
    {"__exit__", CF(ws_exit), METH_FASTCALL,
     "__exit__($self, *exc_info)\n--\n\nResets the arena and pops it."},
    {"reset", ws_reset, METH_NOARGS,
     "reset($self, /)\n--\n\nReleases every tensor carved so far at once "
     "(touching one afterwards raises RuntimeError).  O(chunks); never "
     "fails: memory still exported or used by a running kernel is kept "
     "until that ends, and the arena continues in fresh memory."},
    {"empty", CF(ws_empty), FASTKW,
     "empty($self, *size, dtype=None, alignment=64)\n--\n\nAn "
     "uninitialised tensor carved from this arena."},
    {"zeros", CF(ws_zeros), FASTKW,
     "zeros($self, *size, dtype=None, alignment=64)\n--\n\n"},
    {"stats", ws_stats, METH_NOARGS,
     "stats($self, /)\n--\n\nThis arena's counters (memory_stats schema)."},
    {NULL},
};

static PyGetSetDef ws_getset[] = {
    {"generation", ws_get_generation, NULL,
     "The live generation: 1, plus one per reset.", NULL},
    {"capacity", ws_get_capacity, NULL,
     "Bytes of the chunks the arena carves from now.", NULL},
    {"used", ws_get_used, NULL, "Bytes bumped in this generation.", NULL},
    {"chunks", ws_get_chunks, NULL, "How many chunks it holds.", NULL},
    {"nbytes", ws_get_nbytes, NULL, "The size it was made with.", NULL},
    {"growable", ws_get_growable, NULL,
     "Whether exhaustion chains a new chunk (else MemoryError).", NULL},
    {"active", ws_get_active, NULL,
     "Whether it is this thread's innermost workspace.", NULL},
    {NULL},
};

static PyType_Slot ws_slots[] = {
    {Py_tp_dealloc, ws_dealloc},
    {Py_tp_methods, ws_methods},
    {Py_tp_getset, ws_getset},
    {Py_tp_repr, ws_repr},
    {Py_tp_doc, "A workspace arena: a bump-pointer region whose tensors are "
                "released together by reset().  Made by "
                "tensorlib.workspace(nbytes, growable=True)."},
    {0, NULL},
};

static PyType_Spec ws_spec = {
    .name = "tensorlib.WorkspaceArena",
    .basicsize = sizeof(WorkspaceObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = ws_slots,
};

/* ---- execution plans ---------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    tl_plan *plan; /* owned */
} PlanObject;

#define PLAN(o) (((PlanObject *)(o))->plan)

static PyObject *plan_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "ExecutionPlan() takes no "
                        "arguments");
        return NULL;
    }
    PlanObject *o = (PlanObject *)tp->tp_alloc(tp, 0);
    if (!o) {
        return NULL;
    }
    o->plan = tl_plan_new();
    if (!o->plan) {
        Py_DECREF(o);
        return tl_py_raise(tl_state_of_type(tp));
    }
    return (PyObject *)o;
}

static void plan_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tl_plan_free(PLAN(self));
    tp->tp_free(self);
    Py_DECREF(tp);
}

static const char *str_arg(PyObject *o, const char *what)
{
    if (!o || !PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str", what);
        return NULL;
    }
    return PyUnicode_AsUTF8(o);
}

/* add_buffer(name, shape, dtype=None, device=None, memory_kind=None,
 *            alignment=64) */
static PyObject *plan_add_buffer(PyObject *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"name", "shape", "dtype", "device",
                                        "memory_kind", "alignment", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[6];
    int64_t sizes[TL_MAX_DIMS], align = TL_CPU_ALIGNMENT;
    tl_dtype dt = TL_DTYPE_FLOAT32;
    tl_device dev = tl_device_cpu();
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    if (tl_py_parse_args(args, nargs, kwnames, names, 6, a,
                         "add_buffer") < 0) {
        return NULL;
    }
    const char *name = str_arg(a[0], "add_buffer(): name");
    if (!name) {
        return NULL;
    }
    if (!a[1]) {
        PyErr_SetString(PyExc_TypeError, "add_buffer() needs a shape");
        return NULL;
    }
    int ndim = tl_py_parse_shape(&a[1], 1, sizes, "add_buffer");
    if (ndim < 0 || tl_py_parse_dtype(st, a[2], &dt) < 0 ||
        tl_py_parse_device(st, a[3], &dev) < 0 ||
        (a[4] && a[4] != Py_None &&
         require_memkind(st, a[4], &kind, "add_buffer") < 0) ||
        (a[5] && tl_py_int64(a[5], &align, "add_buffer(): alignment") < 0)) {
        return NULL;
    }
    if (align <= 0) {
        PyErr_Format(PyExc_ValueError, "add_buffer(): alignment %lld is not "
                     "a power of two from 1 to 4096", (long long)align);
        return NULL;
    }
    if (tl_plan_add_buffer(PLAN(self), name, ndim, sizes, dt, dev, kind,
                           (size_t)align) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

/* add_view_buffer(name, of, shape, stride=None, offset=0) */
static PyObject *plan_add_view(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"name", "of", "shape", "stride",
                                        "offset", NULL};
    tl_mstate *st = tl_state_of(self);
    PyObject *a[5];
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], offset = 0;
    if (tl_py_parse_args(args, nargs, kwnames, names, 5, a,
                         "add_view_buffer") < 0) {
        return NULL;
    }
    const char *name = str_arg(a[0], "add_view_buffer(): name");
    const char *of = name ? str_arg(a[1], "add_view_buffer(): of") : NULL;
    if (!of) {
        return NULL;
    }
    if (!a[2]) {
        PyErr_SetString(PyExc_TypeError, "add_view_buffer() needs a shape");
        return NULL;
    }
    int ndim = tl_py_parse_shape(&a[2], 1, sizes, "add_view_buffer");
    if (ndim < 0 || (a[4] && tl_py_int64(a[4], &offset,
                                         "add_view_buffer(): offset") < 0)) {
        return NULL;
    }
    bool have_stride = a[3] && a[3] != Py_None;
    if (have_stride) {
        int sn = tl_py_parse_shape(&a[3], 1, strides, "add_view_buffer");
        if (sn < 0) {
            return NULL;
        }
        if (sn != ndim) {
            PyErr_Format(st->ShapeError, "add_view_buffer(): %d strides for "
                         "%d dims", sn, ndim);
            return NULL;
        }
    }
    if (tl_plan_add_view(PLAN(self), name, of, ndim, sizes,
                         have_stride ? strides : NULL, offset) < 0) {
        return tl_py_raise(st);
    }
    Py_RETURN_NONE;
}

static PyObject *plan_prepare(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    const int n = tl_plan_count(PLAN(self));
    tl_tensor_impl **out = tl_py_mem_calloc(n ? (size_t)n : 1, sizeof *out);
    PyObject *d = NULL;
    int i = 0;
    if (!out) {
        return PyErr_NoMemory();
    }
    if (tl_plan_prepare(PLAN(self), out) < 0) {
        PyMem_Free(out);
        return tl_py_raise(st);
    }
    d = PyDict_New();
    for (i = 0; d && i < n; i++) {
        PyObject *t = tl_py_wrap(st, out[i]); /* steals out[i] */
        out[i] = NULL;
        if (!t || PyDict_SetItemString(d, tl_plan_name(PLAN(self), i),
                                       t) < 0) {
            Py_XDECREF(t);
            Py_CLEAR(d);
            i++;
            break;
        }
        Py_DECREF(t);
    }
    for (; i < n; i++) {
        tl_tensor_decref(out[i]);
    }
    PyMem_Free(out);
    return d;
}

static PyObject *plan_get_workspace_bytes(PyObject *self, void *c)
{
    return PyLong_FromLongLong(tl_plan_workspace_bytes(PLAN(self)));
}

static PyObject *plan_get_allocations(PyObject *self, void *c)
{
    return PyLong_FromLong(tl_plan_allocation_count(PLAN(self)));
}

static PyObject *plan_get_offsets(PyObject *self, void *c)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < tl_plan_count(PLAN(self)); i++) {
        PyObject *v = PyLong_FromLongLong(tl_plan_offset(PLAN(self), i));
        if (!v ||
            PyDict_SetItemString(d, tl_plan_name(PLAN(self), i), v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *plan_get_names(PyObject *self, void *c)
{
    const int n = tl_plan_count(PLAN(self));
    PyObject *r = PyList_New(n);
    for (int i = 0; r && i < n; i++) {
        PyObject *s = PyUnicode_FromString(tl_plan_name(PLAN(self), i));
        if (!s) {
            Py_CLEAR(r);
            break;
        }
        PyList_SET_ITEM(r, i, s);
    }
    return r;
}

static Py_ssize_t plan_len(PyObject *self)
{
    return tl_plan_count(PLAN(self));
}

static PyObject *plan_repr(PyObject *self)
{
    return PyUnicode_FromFormat(
        "<tensorlib.ExecutionPlan of %d buffer(s), %lld workspace bytes in "
        "%d allocation(s)>", tl_plan_count(PLAN(self)),
        (long long)tl_plan_workspace_bytes(PLAN(self)),
        tl_plan_allocation_count(PLAN(self)));
}

static PyMethodDef plan_methods[] = {
    {"add_buffer", CF(plan_add_buffer), FASTKW,
     "add_buffer($self, name, shape, dtype=None, device=None, "
     "memory_kind=None, alignment=64)\n--\n\nDeclares a contiguous buffer; "
     "its offset is rounded up to alignment (a power of two, at most "
     "4096)."},
    {"add_view_buffer", CF(plan_add_view), FASTKW,
     "add_view_buffer($self, name, of, shape, stride=None, offset=0)\n--\n\n"
     "Declares a view of buffer `of` (strides and offset in elements); it "
     "must fit inside the buffer (ShapeError)."},
    {"prepare", plan_prepare, METH_NOARGS,
     "prepare($self, /)\n--\n\nOne allocation per (device, memory kind) "
     "carved into every buffer and view: a dict name -> tensor, each with "
     "its metadata locked."},
    {NULL},
};

static PyGetSetDef plan_getset[] = {
    {"workspace_bytes", plan_get_workspace_bytes, NULL,
     "Bytes the buffers take, alignment padding included.", NULL},
    {"allocation_count", plan_get_allocations, NULL,
     "How many allocations prepare() makes.", NULL},
    {"offsets", plan_get_offsets, NULL,
     "name -> byte offset of element 0 in its allocation.", NULL},
    {"names", plan_get_names, NULL, "Declared names, in order.", NULL},
    {NULL},
};

static PyType_Slot plan_slots[] = {
    {Py_tp_new, plan_new},
    {Py_tp_dealloc, plan_dealloc},
    {Py_tp_methods, plan_methods},
    {Py_tp_getset, plan_getset},
    {Py_tp_repr, plan_repr},
    {Py_sq_length, plan_len},
    {Py_tp_doc, "ExecutionPlan()\n--\n\nDeclare buffers and views of them, "
                "then prepare() them all from one allocation (per device "
                "and memory kind)."},
    {0, NULL},
};

static PyType_Spec plan_spec = {
    .name = "tensorlib.ExecutionPlan",
    .basicsize = sizeof(PlanObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = plan_slots,
};

/* ---- module ------------------------------------------------------------- */

static PyObject *py_workspace_depth(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(tl_arena_depth());
}

static PyObject *py_current_workspace_generation(PyObject *m,
                                                 PyObject *unused)
{
    tl_arena *a = tl_arena_current();
    if (!a) {
        Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLongLong(tl_arena_generation(a));
}

static PyObject *py_block_generation(PyObject *m, PyObject *o)
{
    tl_mstate *st = tl_state_of_module(m);
    if (!tl_py_is_tensor(st, o)) {
        PyErr_SetString(PyExc_TypeError, "expected a tensorlib.Tensor");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(
        tl_block_generation(tl_py_impl(o)->storage->block));
}

PyMethodDef tl_memory_functions[] = {
    {"memory_stats", CF(py_memory_stats), FASTKW,
     "memory_stats(device='cpu', kind=None)\n--\n\nAllocator statistics as "
     "a dict (the distinct allocators of every kind of the device summed "
     "when kind is None)."},
    {"empty_cache", CF(py_empty_cache), FASTKW,
     "empty_cache(device='cpu')\n--\n\nReturns cached blocks (and unused "
     "workspace chunks) to the system; nothing in use is touched."},
    {"reset_peak_memory_stats", CF(py_reset_peak), FASTKW,
     "reset_peak_memory_stats(device='cpu')\n--\n\nSets every allocator's "
     "active_bytes_peak to its active_bytes."},
    {"workspace", CF(py_workspace), FASTKW,
     "workspace(nbytes, growable=True)\n--\n\nA workspace arena of nbytes; "
     "`with tensorlib.workspace(n) as ws:` makes it this thread's innermost "
     "workspace (memory_kind=MemoryKind.Workspace carves from it) and "
     "resets it on exit."},
    {"_allocator_for", CF(py_allocator_for), FASTKW,
     "_allocator_for(device='cpu', kind=None)\n--\n\n"},
    {"_allocator_name", CF(py_allocator_for), FASTKW,
     "_allocator_name(device='cpu', kind=None)\n--\n\n"},
    {"_set_allocator", CF(py_set_allocator), FASTKW,
     "_set_allocator(kind, name, device='cpu')\n--\n\n"},
    {"_allocators", py_allocators, METH_NOARGS, "_allocators()\n--\n\n"},
    {"_pinned_info", py_pinned_info, METH_NOARGS, "_pinned_info()\n--\n\n"},
    {"_pinned_refuse_lock", py_pinned_refuse_lock, METH_O,
     "_pinned_refuse_lock(refuse, /)\n--\n\nFault injection: act as if "
     "every mlock were refused."},
    {"_memory_stress", CF(py_memory_stress), FASTKW,
     "_memory_stress(threads=8, iters=2000, max_bytes=65536, live=16, "
     "seed=1, workspace=True)\n--\n\nRuns tl_alloc_stress with the GIL "
     "released (a test hook)."},
    {"_workspace_depth", py_workspace_depth, METH_NOARGS,
     "_workspace_depth()\n--\n\n"},
    {"_current_workspace_generation", py_current_workspace_generation,
     METH_NOARGS, "_current_workspace_generation()\n--\n\n"},
    {"_block_generation", py_block_generation, METH_O,
     "_block_generation(tensor, /)\n--\n\n"},
    {NULL},
};

int tl_memory_init(PyObject *m, tl_mstate *st)
{
    PyObject *ws = PyType_FromModuleAndSpec(m, &ws_spec, NULL);
    if (!ws) {
        return -1;
    }
    int rc = PyModule_AddObjectRef(m, "WorkspaceArena", ws);
    Py_DECREF(ws);
    if (rc < 0) {
        return -1;
    }
    PyObject *plan = PyType_FromModuleAndSpec(m, &plan_spec, NULL);
    if (!plan) {
        return -1;
    }
    rc = PyModule_AddObjectRef(m, "ExecutionPlan", plan);
    Py_DECREF(plan);
    return rc;
}
