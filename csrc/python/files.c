/* csrc/python/files.c — the C half of tensorlib.save / tensorlib.load
 * (tensorlib/serialization.py parses and validates every header; this
 * file only moves bytes): reading a tensor's bytes from a file descriptor
 * or a buffer, writing a tensor's logical C-order bytes to a descriptor,
 * both with the GIL released, and mapping a file as tensors over one
 * mapping (tensorlib/mapped.h).  Also Tensor.lazy_clone (csrc/core/cow.c).
 * It never parses file contents. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pytl.h"
#include "tensorlib/cow.h"
#include "tensorlib/device_table.h"
#include "tensorlib/mapped.h"
#include "tensorlib/ops.h"

/* Sizes from a tuple or list of ints, strides C- or Fortran-ordered.
 * Returns ndim, or -1 with an exception. */
static int parse_layout(PyObject *shape, bool fortran, int64_t *sizes,
                        int64_t *strides, const char *fname)
{
    if (!PyTuple_Check(shape) && !PyList_Check(shape)) {
        PyErr_Format(PyExc_TypeError, "%s(): shape must be a tuple or "
                     "list of ints", fname);
        return -1;
    }
    int nd = tl_py_parse_shape(&shape, 1, sizes, fname);
    if (nd < 0) {
        return -1;
    }
    int64_t acc = 1;
    for (int k = 0; k < nd; k++) {
        int d = fortran ? k : nd - 1 - k;
        strides[d] = acc;
        acc *= sizes[d] > 1 ? sizes[d] : 1;
    }
    return nd;
}

/* Reads exactly n bytes at offset of fd into dst.  Returns 0, or errno
 * (EIO for a file that ends first).  Runs without the GIL. */
static int pread_all(int fd, char *dst, size_t n, int64_t offset)
{
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t r = pread(fd, dst, chunk, (off_t)offset);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (r == 0) {
            return EIO;
        }
        dst += r;
        offset += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Writes all n bytes of src to fd.  Returns 0 or errno.  No GIL. */
static int write_all(int fd, const char *src, size_t n)
{
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t r = write(fd, src, chunk);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        src += r;
        n -= (size_t)r;
    }
    return 0;
}

/* _files_read(src, offset, shape, dtype, fortran) -> a new tensor whose
 * bytes are read from src (an int file descriptor, read with pread, or an
 * object with the buffer protocol) at byte offset. */
static PyObject *py_files_read(PyObject *m, PyObject *const *args,
                               Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], offset, nbytes;
    tl_dtype dt = TL_DTYPE_FLOAT32;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "_files_read(src, offset, shape, "
                        "dtype, fortran)");
        return NULL;
    }
    int fortran = PyObject_IsTrue(args[4]);
    if (fortran < 0 || tl_py_int64(args[1], &offset, "offset") < 0 ||
        tl_py_parse_dtype(st, args[3], &dt) < 0) {
        return NULL;
    }
    int nd = parse_layout(args[2], fortran, sizes, strides, "_files_read");
    if (nd < 0) {
        return NULL;
    }
    if (tl_safe_numel_bytes(nd, sizes, tl_dtype_itemsize(dt), NULL,
                            &nbytes) < 0) {
        return tl_py_raise(st);
    }
    tl_tensor_impl *t = tl_tensor_empty_strided(nd, sizes, strides, dt,
                                                tl_device_cpu(),
                                                TL_MEMKIND_DEFAULT);
    if (!t) {
        return tl_py_raise(st);
    }
    char *dst = tl_impl_data(t);
    if (PyLong_Check(args[0])) {
        int fd = (int)PyLong_AsLong(args[0]);
        int err = 0;
        if (fd == -1 && PyErr_Occurred()) {
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS
        err = pread_all(fd, dst, (size_t)nbytes, offset);
        Py_END_ALLOW_THREADS
        if (err == EIO) {
            PyErr_Format(PyExc_ValueError, "file ends before the %lld bytes "
                         "at offset %lld", (long long)nbytes,
                         (long long)offset);
            goto fail;
        }
        if (err) {
            errno = err;
            PyErr_SetFromErrno(PyExc_OSError);
            goto fail;
        }
    } else {
        Py_buffer view;
        if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
            goto fail;
        }
        if (offset < 0 || offset > view.len || nbytes > view.len - offset) {
            PyErr_Format(PyExc_ValueError, "bytes [%lld, %lld + %lld) are "
                         "outside a buffer of %lld bytes", (long long)offset,
                         (long long)offset, (long long)nbytes,
                         (long long)view.len);
            PyBuffer_Release(&view);
            goto fail;
        }
        if (nbytes) {
            memcpy(dst, (char *)view.buf + offset, (size_t)nbytes);
        }
        PyBuffer_Release(&view);
    }
    return tl_py_wrap(st, t);
fail:
    tl_tensor_decref(t);
    return NULL;
}

/* _files_write(fd, tensor) -> None: writes the tensor's logical C-order
 * bytes (a contiguous copy first when it is not C-contiguous; a device
 * tensor is copied to the host). */
static PyObject *py_files_write(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    if (nargs != 2 || !tl_py_is_tensor(st, args[1])) {
        PyErr_SetString(PyExc_TypeError, "_files_write(fd, tensor)");
        return NULL;
    }
    int fd = (int)PyLong_AsLong(args[0]);
    if (fd == -1 && PyErr_Occurred()) {
        return NULL;
    }
    tl_tensor_impl *t = tl_py_impl(args[1]), *h = NULL, *c = NULL;
    if (tl_tensor_check_live(t) < 0) {
        return tl_py_raise(st);
    }
    if (t->device.type != TL_DEVICE_CPU &&
        !(h = tl_op_to_device(t, tl_device_cpu(), -1, false, false))) {
        return tl_py_raise(st);
    }
    c = tl_op_contiguous(h ? h : t, TL_FORMAT_CONTIGUOUS);
    tl_tensor_decref(h);
    if (!c) {
        return tl_py_raise(st);
    }
    /* A pin keeps the bytes alive even if another thread rebinds the
     * tensor while the GIL is released. */
    tl_block *b = c->storage->block;
    const char *src = tl_impl_data(c);
    size_t n = (size_t)(c->numel * tl_dtype_itemsize(c->dtype));
    int err;
    tl_block_pin(b);
    Py_BEGIN_ALLOW_THREADS
    err = write_all(fd, src, n);
    Py_END_ALLOW_THREADS
    tl_block_unpin(b);
    tl_tensor_decref(c);
    if (err) {
        errno = err;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

/* _files_map(path, mode, specs) -> list of tensors, one per spec
 * (offset, shape, dtype, fortran), each over its own block of one mapping
 * of the file; mode is "r", "c" or "r+". */
static PyObject *py_files_map(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs)
{
    tl_mstate *st = tl_state_of_module(m);
    tl_mapping *map = NULL;
    PyObject *out = NULL, *path = NULL;
    if (nargs != 3 || !PyUnicode_Check(args[1]) || !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "_files_map(path, mode: str, "
                        "specs: list)");
        return NULL;
    }
    const char *mode_s = PyUnicode_AsUTF8(args[1]);
    if (!mode_s) {
        return NULL;
    }
    tl_map_mode mode;
    if (strcmp(mode_s, "r") == 0) {
        mode = TL_MAP_READ;
    } else if (strcmp(mode_s, "c") == 0) {
        mode = TL_MAP_COPY;
    } else if (strcmp(mode_s, "r+") == 0) {
        mode = TL_MAP_SHARED;
    } else {
        PyErr_Format(PyExc_ValueError, "mmap mode must be 'r', 'c' or "
                     "'r+', not '%s'", mode_s);
        return NULL;
    }
    if (!PyUnicode_FSConverter(args[0], &path)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(args[2]);
    out = PyList_New(n);
    if (!out) {
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    map = tl_mapping_open(PyBytes_AS_STRING(path), mode);
    Py_END_ALLOW_THREADS
    if (!map) {
        tl_py_raise(st);
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *spec = PyList_GET_ITEM(args[2], i);
        int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], offset, nbytes;
        tl_dtype dt = TL_DTYPE_FLOAT32;
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4) {
            PyErr_SetString(PyExc_TypeError, "_files_map: each spec is "
                            "(offset, shape, dtype, fortran)");
            goto fail;
        }
        int fortran = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 3));
        if (fortran < 0 ||
            tl_py_int64(PyTuple_GET_ITEM(spec, 0), &offset, "offset") < 0 ||
            tl_py_parse_dtype(st, PyTuple_GET_ITEM(spec, 2), &dt) < 0) {
            goto fail;
        }
        int nd = parse_layout(PyTuple_GET_ITEM(spec, 1), fortran, sizes,
                              strides, "_files_map");
        if (nd < 0) {
            goto fail;
        }
        if (tl_safe_numel_bytes(nd, sizes, tl_dtype_itemsize(dt), NULL,
                                &nbytes) < 0) {
            tl_py_raise(st);
            goto fail;
        }
        if (offset < 0) {
            PyErr_Format(PyExc_ValueError, "negative offset %lld",
                         (long long)offset);
            goto fail;
        }
        tl_block *b = tl_mapping_block(map, (size_t)offset, (size_t)nbytes);
        if (!b) {
            tl_py_raise(st);
            goto fail;
        }
        tl_storage *s = tl_storage_from_block(b, 0, nbytes);
        tl_block_decref(b);
        if (!s) {
            tl_py_raise(st);
            goto fail;
        }
        tl_tensor_impl *t = tl_tensor_new(s, 0, nd, sizes, strides, dt);
        tl_storage_decref(s);
        PyObject *o = t ? tl_py_wrap(st, t) : tl_py_raise(st);
        if (!o) {
            goto fail;
        }
        PyList_SET_ITEM(out, i, o);
    }
    tl_mapping_decref(map); /* the blocks hold it now */
    Py_DECREF(path);
    return out;
fail:
    tl_mapping_decref(map);
    Py_XDECREF(out);
    Py_XDECREF(path);
    return NULL;
}

/* _mapped_bytes() -> bytes of files mapped now (as memory_stats). */
static PyObject *py_mapped_bytes(PyObject *m, PyObject *unused)
{
    return PyLong_FromLongLong(tl_mapped_bytes());
}

PyMethodDef tl_files_functions[] = {
    {"_files_read", (PyCFunction)(void (*)(void))py_files_read,
     METH_FASTCALL,
     "_files_read(src, offset, shape, dtype, fortran, /)\n--\n\n"
     "A new tensor read from a file descriptor (pread) or a buffer."},
    {"_files_write", (PyCFunction)(void (*)(void))py_files_write,
     METH_FASTCALL,
     "_files_write(fd, tensor, /)\n--\n\n"
     "Writes the tensor's logical C-order bytes to a file descriptor."},
    {"_files_map", (PyCFunction)(void (*)(void))py_files_map, METH_FASTCALL,
     "_files_map(path, mode, specs, /)\n--\n\n"
     "Maps a file once; one tensor per (offset, shape, dtype, fortran)."},
    {"_mapped_bytes", py_mapped_bytes, METH_NOARGS,
     "_mapped_bytes()\n--\n\n"
     "Bytes of files mapped now."},
    {NULL},
};

/* ---- copy-on-write clones ----------------------------------------------- */

static PyObject *t_lazy_clone(PyObject *self, PyObject *unused)
{
    tl_mstate *st = tl_state_of(self);
    tl_tensor_impl *r = tl_tensor_lazy_clone(tl_py_impl(self));
    return r ? tl_py_wrap(st, r) : tl_py_raise(st);
}

PyMethodDef tl_files_tensor_methods[] = {
    {"lazy_clone", t_lazy_clone, METH_NOARGS,
     "lazy_clone($self, /)\n--\n\n"
     "A copy that shares the bytes until either side is first written "
     "(copy-on-write).  Its own storage object and version counter; "
     "shares_memory() with the source is False.  The first write to "
     "either side copies (the last remaining holder of memory tensorlib "
     "allocated takes the bytes over without copying; borrowed memory "
     "from NumPy, DLPack or a file is always copied).  Reads and "
     "data_ptr() do not copy.  Writable even when the source is "
     "read-only."},
    {NULL},
};
