/* csrc/core/vecmath_base.c — the baseline (x86-64 SSE2, or whatever the
 * compiler targets elsewhere) build of the vectorised transcendental loops
 * of vecmath_body.h: tl_vm_table_baseline. */
#include "vecmath_pragmas.h"

#define VM_ISA baseline
#define VM_ISA_NAME "baseline"
#define VM_HAVE_FMA 0
#include "vecmath_body.h"
