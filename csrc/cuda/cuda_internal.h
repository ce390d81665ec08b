/* csrc/cuda/cuda_internal.h — what the files of the CUDA plug-in share:
 * the kernel launchers of the .cu files (called by cuda_module.c) and the
 * plug-in's entry point (called by csrc/python/cuda.c at import).
 * Internal to csrc/cuda; C/C++-neutral. */
#ifndef TENSORLIB_CSRC_CUDA_CUDA_INTERNAL_H
#define TENSORLIB_CSRC_CUDA_CUDA_INTERNAL_H

#include "cuda_prim.h"
#include "tensorlib/device_table.h"

TL_EXTERN_C_BEGIN

/* Elementwise launchers (ew_*.cu), queued on s; the current device is
 * the loop's.  Returns 0 or an error. */
int tl_cuda_ew_binary(const tl_dev_loop *L, const tl_dev_op *op,
                      tl_cuda_stream s);
int tl_cuda_ew_unary(const tl_dev_loop *L, const tl_dev_op *op,
                     tl_cuda_stream s);
int tl_cuda_ew_copy(const tl_dev_loop *L, tl_cuda_stream s);
int tl_cuda_ew_fill(const tl_dev_loop *L, const tl_dev_op *op,
                    tl_cuda_stream s);
int tl_cuda_ew_where(const tl_dev_loop *L, tl_cuda_stream s);
int tl_cuda_ew_clamp(const tl_dev_loop *L, tl_cuda_stream s);
/* Sets the device int at dflag to 1 when an element is 0. */
int tl_cuda_ew_scan(const tl_dev_loop *L, const tl_dev_op *op, int *dflag,
                    tl_cuda_stream s);
/* reduce.cu.  Bytes of device scratch memory tl_cuda_reduce needs for r
 * (0: none; Note [Reduction schedules]). */
size_t tl_cuda_reduce_scratch(const tl_dev_reduce *r);
/* Queues r on s; scratch (tl_cuda_reduce_scratch(r) bytes, NULL when that
 * is 0) must stay allocated to s's work (a block freed on the stream it
 * was allocated on is). */
int tl_cuda_reduce(const tl_dev_reduce *r, void *scratch, tl_cuda_stream s);

/* Installs the CUDA row of the device kernel table and registers the
 * CUDA device allocators for every device index (lazily backed: nothing
 * here calls the CUDA runtime).  Idempotent.  Returns 0 or an error. */
int tl_cuda_plugin_init(void);

/* Initialises CUDA now (normally on first use): counts the devices and,
 * when there is one, registers the page-locked (cudaMallocHost) caching
 * allocator for (cpu, HostPinned).  Returns the device count (>= 0). */
int tl_cuda_lazy_init(void);

TL_EXTERN_C_END

#endif /* TENSORLIB_CSRC_CUDA_CUDA_INTERNAL_H */
