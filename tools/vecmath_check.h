/* tools/vecmath_check.h — what the float32 accuracy checkers
 * (vecmath_exhaustive.c, vecmath_pow_check.c) share: the ulp arithmetic
 * on float32 results and the choice of a vecmath build by name.  A tools
 * header (static functions), included once per checker. */
#ifndef TENSORLIB_TOOLS_VECMATH_CHECK_H
#define TENSORLIB_TOOLS_VECMATH_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vecmath.h"

/* Ordered integer of a float's bits (-0 and +0 equal). */
static int64_t ordered(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u >> 31) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

/* The spacing of floats at |c| (c finite). */
static double ulp_at(float c)
{
    float a = fabsf(c);
    if (a < 0x1p-126f) {
        return 0x1p-149;
    }
    int e;
    frexpf(a, &e);
    return ldexp(1.0, e - 24);
}

/* The loops of the build called name ("baseline", "avx2", "avx512"), or
 * NULL when this CPU cannot run it.  Returns: borrowed (static). */
static const tl_vm_table *build_named(const char *name)
{
    if (strcmp(name, "baseline") == 0) {
        return &tl_vm_table_baseline;
    }
#ifdef TL_VM_HAVE_X86_CLONES
    __builtin_cpu_init();
    bool fma = __builtin_cpu_supports("fma");
    if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") && fma) {
        return &tl_vm_table_avx2;
    }
    if (strcmp(name, "avx512") == 0 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && fma) {
        return &tl_vm_table_avx512;
    }
#endif
    return NULL;
}

#endif
