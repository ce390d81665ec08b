/* tensorlib/plan.h — execution plans: declare named buffers (shape, dtype,
 * device, memory kind, alignment) and views of them, then prepare them
 * all from one allocation per (device, kind) — one in the usual case —
 * carved with sub-storages at offsets aligned as asked.  Every tensor a
 * plan hands out has its metadata locked (resize_/set_ refused). */
#ifndef TENSORLIB_PLAN_H
#define TENSORLIB_PLAN_H

#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/dtype.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

typedef struct tl_plan tl_plan;

/* Returns: owned plan (release with tl_plan_free), or NULL. */
TL_API tl_plan *tl_plan_new(void);
TL_API void tl_plan_free(tl_plan *p); /* no-op on NULL */

/* Declares a contiguous buffer.  Its byte offset in its (device, kind)
 * allocation is the group's running total rounded up to alignment.
 * Errors: TL_ERR_VALUE (empty or duplicate name, alignment not a power of
 * two from 1 to 4096, bad memory kind, a host kind on a non-CPU device,
 * negative sizes), TL_ERR_TYPE (dtype), TL_ERR_OVERFLOW (sizes).
 * Nothing changes on failure.  Returns 0 or an error. */
TL_API int tl_plan_add_buffer(tl_plan *p, const char *name, int ndim,
                              const int64_t *sizes, tl_dtype dt,
                              tl_device dev, tl_memkind kind,
                              size_t alignment);

/* Declares a view of buffer `of` (a buffer, not a view): sizes, strides in
 * elements (NULL: contiguous) and an element offset into the buffer; every
 * reachable element must lie inside the buffer (TL_ERR_SHAPE naming both).
 * Errors: TL_ERR_VALUE (unknown `of`, a view named as `of`, duplicate
 * name).  Returns 0 or an error. */
TL_API int tl_plan_add_view(tl_plan *p, const char *name, const char *of,
                            int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset);

/* Entries (buffers and views) in declaration order. */
TL_API int tl_plan_count(const tl_plan *p);
/* Returns: borrowed name (valid while p lives). */
TL_API const char *tl_plan_name(const tl_plan *p, int i);
TL_API bool tl_plan_is_view(const tl_plan *p, int i);
/* Byte offset of entry i's element 0 from the start of its allocation. */
TL_API int64_t tl_plan_offset(const tl_plan *p, int i);
/* Bytes the buffers take, alignment padding included, over all
 * allocations. */
TL_API int64_t tl_plan_workspace_bytes(const tl_plan *p);
/* How many allocations prepare makes (distinct (device, kind) pairs). */
TL_API int tl_plan_allocation_count(const tl_plan *p);

/* Makes one allocation per (device, kind) from the registry (Workspace:
 * this thread's innermost arena), aligned to the largest alignment asked,
 * and carves every buffer and view from it.  out must hold
 * tl_plan_count(p) entries.  On failure nothing is allocated.
 * Returns 0 or an error; out[i]: new references. */
TL_API int tl_plan_prepare(tl_plan *p, tl_tensor_impl **out);

TL_EXTERN_C_END

#endif /* TENSORLIB_PLAN_H */
