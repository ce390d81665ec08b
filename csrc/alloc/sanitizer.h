/* csrc/alloc/sanitizer.h — internal: tells AddressSanitizer which bytes of
 * allocator-owned memory a user may touch.  TL_ASAN is defined in ASan
 * builds; elsewhere the macros compile to nothing.  Only host memory may be
 * poisoned (never device pointers). */
#ifndef TENSORLIB_CSRC_ALLOC_SANITIZER_H
#define TENSORLIB_CSRC_ALLOC_SANITIZER_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/sanitizer.h is internal to tensorlib"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_ASAN 1
#endif
#endif

#ifdef TL_ASAN
#include <sanitizer/asan_interface.h>
/* Marks [p, p + n) unaddressable / addressable for ASan. */
#define TL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define TL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define TL_POISON(p, n) ((void)(p), (void)(n))
#define TL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif /* TENSORLIB_CSRC_ALLOC_SANITIZER_H */
