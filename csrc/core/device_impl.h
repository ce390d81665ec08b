/* csrc/core/device_impl.h — internal: how core code hands work on non-CPU
 * tensors to the device kernel table (tensorlib/device_table.h).  Not part
 * of the public API; see Note [Device kernel table] in device_table.c. */
#ifndef TENSORLIB_CSRC_CORE_DEVICE_IMPL_H
#define TENSORLIB_CSRC_CORE_DEVICE_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/device_impl.h is internal to tensorlib"
#endif

#include "iter_impl.h"
#include "tensorlib/device_table.h"

/* Runs kind/op (value: 16 bytes of alpha or fill value, or NULL) over a
 * built iterator whose device is not the CPU.  Returns 0 or an error. */
int tl_device_run(const tl_iter *it, int kind, int op, const void *value);

/* A scan (TL_DEV_SCAN_ZERO) over a built one-input
 * iterator on a device.  Returns 1 (found), 0, or an error. */
int tl_device_scan(const tl_iter *it, int kind);

/* Runs r through its device's row.  Returns 0 or an error. */
int tl_device_reduce(const tl_dev_reduce *r);

/* True when copying src into dst crosses devices (a 0-dim CPU src is a
 * number any device's kernels take directly). */
static inline bool tl_device_is_cross(const tl_tensor_impl *dst,
                                      const tl_tensor_impl *src)
{
    return !tl_device_eq(dst->device, src->device) &&
           !(src->ndim == 0 && src->device.type == TL_DEVICE_CPU);
}

/* copy_ from src into dst on another device (Note [Cross-device copies]):
 * validates (writable, broadcastable, no self-overlap), then copies.  Does
 * not bump dst's version.  Returns 0 or an error. */
int tl_device_copy_cross(tl_tensor_impl *dst, tl_tensor_impl *src,
                         bool non_blocking);

/* Reads element 0 of t (on a device) into out (16 bytes, host).
 * Returns 0 or an error. */
int tl_device_read_element(const tl_tensor_impl *t, void *out);

/* Copies nbytes between two blocks (either may be on the CPU) through the
 * row of the non-CPU one, blocking.  Returns 0 or an error. */
int tl_device_copy_blocks(tl_block *dst, size_t dst_offset, tl_block *src,
                          size_t src_offset, size_t nbytes);

/* Records TL_ERR_NOT_IMPLEMENTED naming what when t is not on the CPU.
 * Returns 0 or the error. */
int tl_device_cpu_only(const tl_tensor_impl *t, const char *what);

/* Records the TL_ERR_RUNTIME of operands found on two devices a and b
 * (the iterator's and the reductions' out= check share it).  Returns the
 * error. */
int tl_device_mismatch(tl_device a, tl_device b);

#endif /* TENSORLIB_CSRC_CORE_DEVICE_IMPL_H */
