/* tensorlib/dlpack_abi.h — the DLPack exchange ABI, declared once, written
 * from the published DLPack specification (version 1.1; the versioned
 * structs exist since 1.0).  Layouts and values are the specification's;
 * the names carry a TL_ prefix so they cannot clash with another copy of
 * dlpack.h in the same program.  Units and nullability at each field. */
#ifndef TENSORLIB_DLPACK_ABI_H
#define TENSORLIB_DLPACK_ABI_H

#include <stdint.h>

#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

#define TL_DLPACK_MAJOR 1
#define TL_DLPACK_MINOR 1

/* Capsule names: a producer hands out NAME; a consumer renames the capsule
 * to USED_NAME once it owns the managed tensor. */
#define TL_DLPACK_CAPSULE "dltensor"
#define TL_DLPACK_USED_CAPSULE "used_dltensor"
#define TL_DLPACK_VERSIONED_CAPSULE "dltensor_versioned"
#define TL_DLPACK_USED_VERSIONED_CAPSULE "used_dltensor_versioned"

/* flags of the versioned struct */
#define TL_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define TL_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)
#define TL_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED ((uint64_t)1 << 2)

typedef struct {
    uint32_t major;
    uint32_t minor;
} tl_dlpack_version;

/* Device types (the values the specification assigns). */
enum {
    TL_DL_CPU = 1,
    TL_DL_CUDA = 2,
    TL_DL_CUDA_HOST = 3,
    TL_DL_OPENCL = 4,
    TL_DL_VULKAN = 7,
    TL_DL_METAL = 8,
    TL_DL_VPI = 9,
    TL_DL_ROCM = 10,
    TL_DL_ROCM_HOST = 11,
    TL_DL_EXT_DEV = 12,
    TL_DL_CUDA_MANAGED = 13,
    TL_DL_ONEAPI = 14,
};

typedef struct {
    int32_t device_type; /* one of the TL_DL_* device types */
    int32_t device_id;   /* 0 for the CPU */
} tl_dl_device;

/* Type codes. */
enum {
    TL_DL_INT = 0,
    TL_DL_UINT = 1,
    TL_DL_FLOAT = 2,
    TL_DL_OPAQUE_HANDLE = 3,
    TL_DL_BFLOAT = 4,
    TL_DL_COMPLEX = 5,
    TL_DL_BOOL = 6,
};

typedef struct {
    uint8_t code;   /* a type code */
    uint8_t bits;   /* bits of one lane: 8, 16, 32, 64, 128 */
    uint16_t lanes; /* 1 for every dtype tensorlib exchanges */
} tl_dl_dtype;

typedef struct {
    void *data;            /* may be NULL when the tensor has no elements */
    tl_dl_device device;
    int32_t ndim;
    tl_dl_dtype dtype;
    int64_t *shape;        /* ndim entries; never NULL when ndim > 0 */
    int64_t *strides;      /* ndim entries, in elements; NULL means
                              compact row-major */
    uint64_t byte_offset;  /* bytes from data to element 0 */
} tl_dl_tensor;

/* The legacy managed tensor (no version, no flags). */
typedef struct tl_dl_managed_tensor {
    tl_dl_tensor dl_tensor;
    void *manager_ctx;     /* the producer's; may be NULL */
    /* Frees the producer's resources and the struct itself; may be NULL. */
    void (*deleter)(struct tl_dl_managed_tensor *self);
} tl_dl_managed_tensor;

/* The versioned managed tensor (DLPack >= 1.0).  Everything up to and
 * including flags keeps its place in future ABI versions. */
typedef struct tl_dl_managed_tensor_versioned {
    tl_dlpack_version version;
    void *manager_ctx;
    void (*deleter)(struct tl_dl_managed_tensor_versioned *self);
    uint64_t flags;        /* TL_DLPACK_FLAG_* bits; 0 by default */
    tl_dl_tensor dl_tensor;
} tl_dl_managed_tensor_versioned;

TL_EXTERN_C_END

#endif /* TENSORLIB_DLPACK_ABI_H */
