/* csrc/core/vecmath.h — internal: vectorised float32/float64 loops for the
 * hot transcendental functions (exp, expm1, log, log1p, log2, sin, cos,
 * tan, tanh, sigmoid, erf, pow, atan2), compiled once per instruction set
 * (AVX-512, AVX2+FMA, baseline x86-64) and chosen once per process.
 *
 * Every loop reads n contiguous elements and writes n contiguous elements;
 * out may equal an input exactly (in place) but must not partly overlap
 * one.  Pointers need only the alignment of the element type.  Loops never
 * fail and never allocate.  Which instruction set runs is decided on first
 * use from __builtin_cpu_supports and the TENSORLIB_VECMATH environment
 * variable ("baseline", "avx2" or "avx512": at most what the CPU has;
 * unset or "auto": the best the CPU has).  See Note [Vectorised
 * transcendental functions] in vecmath_body.h for the algorithms and
 * bounds. */
#ifndef TENSORLIB_CSRC_CORE_VECMATH_H
#define TENSORLIB_CSRC_CORE_VECMATH_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/vecmath.h is internal to tensorlib"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "tensorlib/dtype.h"

/* The functions, one id each.  Unary ids come first; TL_VM_NUNARY ends
 * them.  Binary (two tensor inputs): pow (a ** b) and atan2 (atan2(a, b),
 * a the ordinate as in C). */
typedef enum tl_vm_fn {
    TL_VM_EXP,
    TL_VM_EXPM1,
    TL_VM_LOG,
    TL_VM_LOG1P,
    TL_VM_LOG2,
    TL_VM_SIN,
    TL_VM_COS,
    TL_VM_TAN,
    TL_VM_TANH,
    TL_VM_SIGMOID,
    TL_VM_ERF,
    TL_VM_NUNARY,
    TL_VM_POW = TL_VM_NUNARY,
    TL_VM_ATAN2,
    TL_VM_NFN
} tl_vm_fn;

#define TL_VM_NBINARY (TL_VM_NFN - TL_VM_NUNARY)

/* One loop signature per arity, the element type fixed by the table slot
 * (index 0: float32, 1: float64).  pow_scalar raises every a[i] to the one
 * exponent y (given in double; the float32 loop rounds it to float32
 * first, the exponent in the tensor's dtype as NumPy and PyTorch take it). */
typedef void (*tl_vm_unary_loop)(const void *a, void *out, int64_t n);
typedef void (*tl_vm_binary_loop)(const void *a, const void *b, void *out,
                                  int64_t n);
typedef void (*tl_vm_pow_scalar_loop)(const void *a, double y, void *out,
                                      int64_t n);

/* One instruction set's loops.  Every slot is filled. */
typedef struct tl_vm_table {
    const char *isa; /* "avx512", "avx2" or "baseline" */
    tl_vm_unary_loop unary[TL_VM_NUNARY][2];
    tl_vm_binary_loop binary[TL_VM_NBINARY][2];
    tl_vm_pow_scalar_loop pow_scalar[2];
} tl_vm_table;

/* The selected table (chosen on the first call, thread-safe), or with
 * baseline the baseline one.  Returns: borrowed (static). */
const tl_vm_table *tl_vecmath_table(bool baseline);

/* The instruction-set level this process may use, the CPU's capped by
 * TENSORLIB_VECMATH: 2 AVX-512 (F, DQ, VL, BW) with AVX2 and FMA, 1 AVX2
 * with FMA, 0 baseline.  Decided on the first call (thread-safe).  The
 * vecmath tables follow it where their clones are built (gcc); the
 * reduction kernels' AVX2 and AVX-512 clones follow it too. */
int tl_vecmath_level(void);

/* The function's name ("exp", ..., "atan2"), or NULL for a bad id. */
const char *tl_vecmath_name(tl_vm_fn fn);
/* The id of a name, or -1. */
int tl_vecmath_lookup(const char *name);

/* Table slot of a dtype: 0 float32, 1 float64, -1 otherwise. */
static inline int tl_vecmath_slot(tl_dtype dt)
{
    return dt == TL_DTYPE_FLOAT32 ? 0 : dt == TL_DTYPE_FLOAT64 ? 1 : -1;
}

/* Plain typed entry points on the selected table, for kernels to call. */
void tl_vecmath_unary(tl_vm_fn fn, tl_dtype dt, const void *a, void *out,
                      int64_t n);
void tl_vecmath_binary(tl_vm_fn fn, tl_dtype dt, const void *a,
                       const void *b, void *out, int64_t n);

/* The per-ISA tables (vecmath_base.c, vecmath_avx2.c, vecmath_avx512.c). */
extern const tl_vm_table tl_vm_table_baseline;
/* The clones need gcc's #pragma GCC target (clang builds run the baseline
 * table only). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TL_VM_HAVE_X86_CLONES 1
extern const tl_vm_table tl_vm_table_avx2;
extern const tl_vm_table tl_vm_table_avx512;
#endif

#endif /* TENSORLIB_CSRC_CORE_VECMATH_H */
