/* csrc/core/dtype_impl.h — internal: the dtype table and scalar C types
 * used by kernels.  Not part of the public API. */
#ifndef TENSORLIB_CSRC_CORE_DTYPE_IMPL_H
#define TENSORLIB_CSRC_CORE_DTYPE_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/dtype_impl.h is internal to tensorlib"
#endif

#include <complex.h>
#include <stdbool.h>

#include "tensorlib/dtype.h"

extern const tl_dtype_info tl_dtype_table[TL_DTYPE_COUNT];

/* The dtype predicates, once (a tl_dtype_kind; bool or an integer). */
static inline int tl_dtype_kind_of(int dt) { return tl_dtype_table[dt].kind; }
static inline bool tl_dtype_is_intlike(int dt)
{
    int k = tl_dtype_kind_of(dt);
    return k == TL_KIND_BOOL || k == TL_KIND_INT || k == TL_KIND_UINT;
}

/* Refuses the float8 storage dtypes (casts, copies, views and files only)
 * for op, an operation that computes with or orders values (sorting,
 * scans, products, indexed accumulation), as PyTorch refuses them.
 * Returns 0, or TL_ERR_TYPE naming op and the dtype. */
int tl_dtype_check_computable(const char *op, int dt);

static inline int64_t tl_itemsize(int dt)
{
    return tl_dtype_table[dt].itemsize;
}

/* Storage types of float16 / bfloat16 (bit patterns). */
typedef uint16_t tl_half;
typedef uint16_t tl_bf16;
typedef float _Complex tl_c64;
typedef double _Complex tl_c128;

#endif /* TENSORLIB_CSRC_CORE_DTYPE_IMPL_H */
