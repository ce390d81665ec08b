/* tensorlib/device.h — devices (type + index) and memory kinds. */
#ifndef TENSORLIB_DEVICE_H
#define TENSORLIB_DEVICE_H

#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

typedef enum tl_device_type {
    TL_DEVICE_CPU = 0,
    TL_DEVICE_CUDA = 1,
    TL_DEVICE_TYPE_COUNT
} tl_device_type;

/* A device: type plus index (always 0 for the CPU; >= 0 for CUDA). */
typedef struct tl_device {
    int16_t type;  /* a tl_device_type */
    int16_t index;
} tl_device;

#define TL_MAX_DEVICE_INDEX 63

/* What memory is for.  Host kinds are only valid on the CPU. */
typedef enum tl_memkind {
    TL_MEMKIND_DEFAULT = 0,
    TL_MEMKIND_PERSISTENT = 1,
    TL_MEMKIND_WORKSPACE = 2,
    TL_MEMKIND_KVCACHE = 3,
    TL_MEMKIND_HOST_PINNED = 4,
    TL_MEMKIND_HOST_PAGEABLE = 5,
    TL_MEMKIND_COUNT
} tl_memkind;

static inline tl_device tl_device_cpu(void)
{
    tl_device d = {TL_DEVICE_CPU, 0};
    return d;
}

static inline bool tl_device_eq(tl_device a, tl_device b)
{
    return a.type == b.type && a.index == b.index;
}

/* Parses "cpu", "cuda", "cuda:N" (also "cpu:0").  Returns 0, or
 * TL_ERR_VALUE naming the string. */
TL_API int tl_device_parse(const char *s, tl_device *out);

/* Writes "cpu" or "cuda:N" into buf (always NUL-terminated). */
TL_API void tl_device_format(tl_device d, char *buf, size_t n);

/* Returns: a static string ("Default", "Persistent", ...), or NULL when k is
 * not a memory kind. */
TL_API const char *tl_memkind_name(tl_memkind k);

/* Parses a memory-kind name (case-insensitive; "host_pinned" and
 * "HostPinned" both work).  Returns 0 or TL_ERR_VALUE. */
TL_API int tl_memkind_parse(const char *s, tl_memkind *out);

static inline bool tl_memkind_is_host(tl_memkind k)
{
    return k == TL_MEMKIND_HOST_PINNED || k == TL_MEMKIND_HOST_PAGEABLE;
}

TL_EXTERN_C_END

#endif /* TENSORLIB_DEVICE_H */
