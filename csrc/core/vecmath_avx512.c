/* csrc/core/vecmath_avx512.c — the AVX-512 (F, DQ, VL, BW) + FMA build of
 * the vectorised transcendental loops of vecmath_body.h:
 * tl_vm_table_avx512 (x86-64 only; run only where __builtin_cpu_supports
 * says the CPU has them). */
#include "vecmath_pragmas.h"

#include "vecmath.h"

#ifdef TL_VM_HAVE_X86_CLONES
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")
#define VM_ISA avx512
#define VM_ISA_NAME "avx512"
#define VM_HAVE_FMA 1
#include "vecmath_body.h"
#endif
