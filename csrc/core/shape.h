/* csrc/core/shape.h — internal: formatting of int64 lists for messages and
 * other shape helpers shared by core files. */
#ifndef TENSORLIB_CSRC_CORE_SHAPE_H
#define TENSORLIB_CSRC_CORE_SHAPE_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/shape.h is internal to tensorlib"
#endif

#include "tensorlib/base.h"

/* Writes "[a, b, c]" into buf (always NUL-terminated, "..." if cut).
 * Returns: buf. */
char *tl_format_list(char *buf, size_t n, int count, const int64_t *v);

/* A thread-local scratch buffer set for messages: tl_fmt_list(slot, ...)
 * formats into slot 0..3.  Returns: borrowed (valid until the same slot is
 * used again on this thread). */
const char *tl_fmt_list(int slot, int count, const int64_t *v);

#endif /* TENSORLIB_CSRC_CORE_SHAPE_H */
