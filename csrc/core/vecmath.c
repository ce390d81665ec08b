/* csrc/core/vecmath.c — chooses, once per process, which build of the
 * vectorised transcendental loops runs (vecmath.h): the best the CPU has
 * (AVX-512, then AVX2 + FMA, then baseline), capped by the environment
 * variable TENSORLIB_VECMATH ("baseline", "avx2", "avx512"; "auto" or
 * unset: no cap).  Our own function pointers rather than a GNU ifunc, so
 * that the tests can run the baseline beside the selected build in one
 * process. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "vecmath.h"

static const char *const names[TL_VM_NFN] = {
    [TL_VM_EXP] = "exp",         [TL_VM_EXPM1] = "expm1",
    [TL_VM_LOG] = "log",         [TL_VM_LOG1P] = "log1p",
    [TL_VM_LOG2] = "log2",       [TL_VM_SIN] = "sin",
    [TL_VM_COS] = "cos",         [TL_VM_TAN] = "tan",
    [TL_VM_TANH] = "tanh",       [TL_VM_SIGMOID] = "sigmoid",
    [TL_VM_ERF] = "erf",         [TL_VM_POW] = "pow",
    [TL_VM_ATAN2] = "atan2",
};

const char *tl_vecmath_name(tl_vm_fn fn)
{
    return (unsigned)fn < TL_VM_NFN ? names[fn] : NULL;
}

int tl_vecmath_lookup(const char *name)
{
    for (int i = 0; i < TL_VM_NFN; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

int tl_vecmath_level(void)
{
    static _Atomic int cached = -1;
    int level = atomic_load_explicit(&cached, memory_order_relaxed);
    if (level >= 0) {
        return level;
    }
    const char *env = getenv("TENSORLIB_VECMATH");
    int cap = 2; /* 0 baseline, 1 avx2, 2 avx512 */
    if (env && strcmp(env, "baseline") == 0) {
        cap = 0;
    } else if (env && strcmp(env, "avx2") == 0) {
        cap = 1;
    }
    level = 0;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (cap >= 1 && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma")) {
        level = 1;
        if (cap >= 2 && __builtin_cpu_supports("avx512f") &&
            __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw")) {
            level = 2;
        }
    }
#else
    (void)cap;
#endif
    /* A race only makes two threads store the same answer. */
    atomic_store_explicit(&cached, level, memory_order_relaxed);
    return level;
}

static const tl_vm_table *choose(void)
{
#ifdef TL_VM_HAVE_X86_CLONES
    switch (tl_vecmath_level()) {
    case 2:
        return &tl_vm_table_avx512;
    case 1:
        return &tl_vm_table_avx2;
    default:
        break;
    }
#endif
    return &tl_vm_table_baseline;
}

/* Set once; a race only makes two threads compute the same answer. */
static _Atomic(const tl_vm_table *) selected;

const tl_vm_table *tl_vecmath_table(bool baseline)
{
    if (baseline) {
        return &tl_vm_table_baseline;
    }
    const tl_vm_table *t =
        atomic_load_explicit(&selected, memory_order_acquire);
    if (!t) {
        t = choose();
        atomic_store_explicit(&selected, t, memory_order_release);
    }
    return t;
}

void tl_vecmath_unary(tl_vm_fn fn, tl_dtype dt, const void *a, void *out,
                      int64_t n)
{
    tl_vecmath_table(false)->unary[fn][tl_vecmath_slot(dt)](a, out, n);
}

void tl_vecmath_binary(tl_vm_fn fn, tl_dtype dt, const void *a,
                       const void *b, void *out, int64_t n)
{
    tl_vecmath_table(false)
        ->binary[fn - TL_VM_NUNARY][tl_vecmath_slot(dt)](a, b, out, n);
}
