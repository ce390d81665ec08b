/* csrc/cuda/cuda_testing.c — the test hooks of the emulated CUDA runtime
 * (Note [Emulated CUDA faults] in cuda_prim_emulated.c), added to
 * tensorlib._C._testing by tl_testing_init (csrc/python/testing.c):
 * cuda_fail_call, cuda_fail_always, cuda_fault_state, cuda_live,
 * cuda_call_names and cuda_runtime_info.  Built with
 * TENSORLIB_CUDA=emulate only; not public API. */
#if defined(TL_WITH_CUDA) && defined(TL_CUDA_EMULATE)

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "cuda_prim.h"

/* The pending tl_error as MemoryError / RuntimeError.  Returns NULL. */
static PyObject *raise_error(void)
{
    PyErr_SetString(tl_error_kind() == TL_ERR_MEMORY ? PyExc_MemoryError
                                                     : PyExc_RuntimeError,
                    tl_error_message());
    tl_error_clear();
    return NULL;
}

/* A counted call from its CUDA name.  Returns its index, or -1 with
 * ValueError set. */
static int call_of(PyObject *name)
{
    const char *s = PyUnicode_AsUTF8(name);

    if (s == NULL) {
        return -1;
    }
    for (int c = 0; c < TL_CUDA_EMU_NCALLS; c++) {
        if (strcmp(s, tl_cuda_emu_call_name(c)) == 0) {
            return c;
        }
    }
    PyErr_Format(PyExc_ValueError, "no emulated CUDA call named %R", name);
    return -1;
}

static PyObject *fail_call(PyObject *m, PyObject *o)
{
    long long n = PyLong_AsLongLong(o);

    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    tl_cuda_emu_fault_arm(n);
    Py_RETURN_NONE;
}

static PyObject *fail_always(PyObject *m, PyObject *args)
{
    PyObject *name;
    int on = 1, c;

    if (!PyArg_ParseTuple(args, "O|p:cuda_fail_always", &name, &on)) {
        return NULL;
    }
    if (name == Py_None) {
        tl_cuda_emu_fault_unstick_all();
        Py_RETURN_NONE;
    }
    if ((c = call_of(name)) < 0) {
        return NULL;
    }
    if (tl_cuda_emu_fault_stick(c, on) < 0) {
        return raise_error();
    }
    Py_RETURN_NONE;
}

static PyObject *fault_state(PyObject *m, PyObject *unused)
{
    int fired;
    long long n = tl_cuda_emu_fault_state(&fired);

    if (fired < 0) {
        return Py_BuildValue("(LO)", n, Py_None);
    }
    return Py_BuildValue("(Ls)", n, tl_cuda_emu_call_name(fired));
}

static PyObject *live(PyObject *m, PyObject *unused)
{
    size_t bytes;
    long streams, events;
    long ranges = tl_cuda_emu_live(&bytes, &streams, &events);

    return Py_BuildValue("{s:l,s:n,s:l,s:l}", "ranges", ranges, "bytes",
                         (Py_ssize_t)bytes, "streams", streams, "events",
                         events);
}

static PyObject *call_names(PyObject *m, PyObject *unused)
{
    PyObject *t = PyTuple_New(TL_CUDA_EMU_NCALLS);

    for (int c = 0; t != NULL && c < TL_CUDA_EMU_NCALLS; c++) {
        PyObject *s = PyUnicode_FromString(tl_cuda_emu_call_name(c));
        if (s == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, c, s);
    }
    return t;
}

/* The device queries nothing else makes: properties and versions. */
static PyObject *runtime_info(PyObject *m, PyObject *o)
{
    char name[64];
    int sm, major, minor, rt, drv;
    long dev = PyLong_AsLong(o);

    if (dev == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (tl_cuda_device_properties((int)dev, name, sizeof(name), &sm, &major,
                                  &minor) < 0 ||
        tl_cuda_runtime_version(&rt) < 0 || tl_cuda_driver_version(&drv) < 0) {
        return raise_error();
    }
    return Py_BuildValue("{s:s,s:i,s:(ii),s:i,s:i}", "name", name,
                         "multiprocessors", sm, "capability", major, minor,
                         "runtime_version", rt, "driver_version", drv);
}

static PyMethodDef cuda_testing_methods[] = {
    {"cuda_fail_call", fail_call, METH_O,
     "cuda_fail_call(n, /)\n--\n\nMakes the n-th emulated CUDA runtime "
     "call from now fail once (n < 0 disarms)."},
    {"cuda_fail_always", fail_always, METH_VARARGS,
     "cuda_fail_always(name, on=True, /)\n--\n\nMakes every call of the "
     "named emulated CUDA primitive fail (a sticky error) or stop failing; "
     "None stops them all."},
    {"cuda_fault_state", fault_state, METH_NOARGS,
     "cuda_fault_state()\n--\n\n(calls counted since cuda_fail_call, the "
     "name of the call the one-shot fault hit or None)."},
    {"cuda_live", live, METH_NOARGS,
     "cuda_live()\n--\n\nWhat the emulated runtime holds: tracked ranges "
     "(device and page-locked memory) and their bytes, streams, events."},
    {"cuda_call_names", call_names, METH_NOARGS,
     "cuda_call_names()\n--\n\nThe names of the counted calls."},
    {"cuda_runtime_info", runtime_info, METH_O,
     "cuda_runtime_info(device, /)\n--\n\nDevice properties and runtime "
     "and driver versions."},
    {NULL},
};

int tl_cuda_testing_init(PyObject *sub)
{
    return PyModule_AddFunctions(sub, cuda_testing_methods);
}

#endif /* TL_WITH_CUDA && TL_CUDA_EMULATE */
