/* csrc/alloc/status.c — the thread-local error record behind status.h: one
 * kind and one message per thread.  It only records; turning a record into
 * a Python exception is csrc/python's business.  It never allocates, so it
 * works when memory has run out. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tensorlib/status.h"

#define MESSAGE_CAP 512

/* The record of this thread.  err_msg is always NUL-terminated. */
static _Thread_local tl_status err_kind = TL_OK;
static _Thread_local char err_msg[MESSAGE_CAP];

int tl_error(tl_status kind, const char *fmt, ...)
{
    /* Formatted into a local buffer first, so that a caller may refine the
     * previous message: tl_error(k, "while x: %s", tl_error_message()). */
    char buf[MESSAGE_CAP];
    int n = 0;

    buf[0] = '\0';
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        n = vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
    }
    if (n < 0) {
        buf[0] = '\0';
        n = 0;
    }
    else if ((size_t)n >= sizeof(buf)) {
        /* Truncated: say so rather than end mid-word silently. */
        memcpy(buf + sizeof(buf) - 4, "...", 4);
        n = (int)sizeof(buf) - 1;
    }
    memcpy(err_msg, buf, (size_t)n + 1);
    err_kind = kind;
    return kind;
}

tl_status tl_error_kind(void)
{
    return err_kind;
}

const char *tl_error_message(void)
{
    return err_msg;
}

void tl_error_clear(void)
{
    err_kind = TL_OK;
    err_msg[0] = '\0';
}
