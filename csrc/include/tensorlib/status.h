/* tensorlib/status.h — status codes and the thread-local error record.
 * Core and alloc functions return 0 (or a non-NULL pointer) on success and a
 * negative tl_status (or NULL) on failure, after recording the kind and a
 * message here.  Only csrc/python turns the record into an exception. */
#ifndef TENSORLIB_STATUS_H
#define TENSORLIB_STATUS_H

#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

typedef enum tl_status {
    TL_OK = 0,
    TL_ERR_VALUE = -1,          /* a bad value: unknown name, bad alignment */
    TL_ERR_SHAPE = -2,          /* sizes, strides, broadcast, overlap */
    TL_ERR_INDEX = -3,          /* an index or dim out of range */
    TL_ERR_TYPE = -4,           /* unsupported dtype or argument type */
    TL_ERR_MEMORY = -5,         /* allocation failed */
    TL_ERR_OVERFLOW = -6,       /* a size that does not fit */
    TL_ERR_ZERO_DIVISION = -7,  /* integer division or remainder by zero */
    TL_ERR_BUFFER = -8,         /* export conflicts */
    TL_ERR_RUNTIME = -9,        /* misuse of state */
    TL_ERR_NOT_IMPLEMENTED = -10, /* a documented gap */
    TL_ERR_READONLY = -11,      /* a write into read-only memory (ValueError) */
} tl_status;

/* Records kind and a printf-style message for this thread, replacing any
 * earlier record.  Returns: kind, so a failure is one statement. */
TL_API int tl_error(tl_status kind, const char *fmt, ...) TL_PRINTF(2, 3);

/* The kind of the last recorded error on this thread (TL_OK if none). */
TL_API tl_status tl_error_kind(void);

/* Returns: borrowed (valid until the next tl_error on this thread). */
TL_API const char *tl_error_message(void);

TL_API void tl_error_clear(void);

TL_EXTERN_C_END

#endif /* TENSORLIB_STATUS_H */
