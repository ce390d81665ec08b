/* csrc/core/vecmath_avx2.c — the AVX2 + FMA build of the vectorised
 * transcendental loops of vecmath_body.h: tl_vm_table_avx2 (x86-64 only;
 * run only where __builtin_cpu_supports says the CPU has both). */
#include "vecmath_pragmas.h"

#include "vecmath.h"

#ifdef TL_VM_HAVE_X86_CLONES
#pragma GCC target("avx2,fma")
#define VM_ISA avx2
#define VM_ISA_NAME "avx2"
#define VM_HAVE_FMA 1
#include "vecmath_body.h"
#endif
