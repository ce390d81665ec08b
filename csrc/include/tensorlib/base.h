/* tensorlib/base.h — visibility, assertions, fixed limits and checked integer
 * arithmetic shared by every layer.  Public: includes only the C standard
 * library, and stays C/C++-neutral (no _Atomic, restrict or _Static_assert)
 * because nvcc compiles .cu files that include it as C++. */
#ifndef TENSORLIB_BASE_H
#define TENSORLIB_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define TL_EXTERN_C_BEGIN extern "C" {
#define TL_EXTERN_C_END }
#else
#define TL_EXTERN_C_BEGIN
#define TL_EXTERN_C_END
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TL_API __attribute__((visibility("default")))
#define TL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TL_API
#define TL_LIKELY(x) (x)
#define TL_UNLIKELY(x) (x)
#define TL_PRINTF(f, a)
#endif

/* Dimensions kept inline in a tensor impl; more go to the heap. */
#define TL_INLINE_DIMS 5
/* Hard limit on the number of dimensions of any tensor. */
#define TL_MAX_DIMS 64
/* Alignment of every data pointer handed out by the CPU allocators. */
#define TL_CPU_ALIGNMENT 64

/* TL_ASSERT checks what the code itself guarantees; compiled out unless
 * TL_DEBUG is defined.  Anything a user can reach is an error return. */
#ifdef TL_DEBUG
#include <stdio.h>
#include <stdlib.h>
#define TL_ASSERT(c)                                                        \
    do {                                                                    \
        if (!(c)) {                                                         \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__,      \
                    __LINE__, #c);                                          \
            abort();                                                        \
        }                                                                   \
    } while (0)
#else
#define TL_ASSERT(c) ((void)0)
#endif

/* Checked arithmetic: each returns true when the result overflowed (then
 * *out is unspecified).  Every numel, nbytes and offset goes through these. */
static inline bool tl_mul_overflow_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline bool tl_add_overflow_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}
static inline bool tl_add_overflow_size(size_t a, size_t b, size_t *out)
{
    return __builtin_add_overflow(a, b, out);
}
static inline bool tl_mul_overflow_size(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

#endif /* TENSORLIB_BASE_H */
