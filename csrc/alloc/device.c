/* csrc/alloc/device.c — device strings ("cpu", "cuda:N") and memory-kind
 * names: parsing, formatting and the error messages for bad spellings.  It
 * knows names only; whether a device exists is the registry's question. */

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tensorlib/device.h"
#include "tensorlib/status.h"

/* Longest part of a user string quoted back in a message. */
#define QUOTE_MAX 64

static const char *const kind_names[TL_MEMKIND_COUNT] = {
    [TL_MEMKIND_DEFAULT] = "Default",
    [TL_MEMKIND_PERSISTENT] = "Persistent",
    [TL_MEMKIND_WORKSPACE] = "Workspace",
    [TL_MEMKIND_KVCACHE] = "KVCache",
    [TL_MEMKIND_HOST_PINNED] = "HostPinned",
    [TL_MEMKIND_HOST_PAGEABLE] = "HostPageable",
};

/* Parses the index after "type:".  Digits only, no sign, no leading zero
 * (as PyTorch), at most TL_MAX_DEVICE_INDEX.  Returns the index or -1. */
static int parse_index(const char *s)
{
    int v = 0;

    if (!isdigit((unsigned char)s[0]) || (s[0] == '0' && s[1] != '\0')) {
        return -1;
    }
    for (; *s != '\0'; s++) {
        if (!isdigit((unsigned char)*s)) {
            return -1;
        }
        v = v * 10 + (*s - '0');
        if (v > TL_MAX_DEVICE_INDEX) {
            return -1;
        }
    }
    return v;
}

int tl_device_parse(const char *s, tl_device *out)
{
    tl_device d = {TL_DEVICE_CPU, 0};
    const char *rest;
    int index;

    if (s == NULL) {
        return tl_error(TL_ERR_VALUE, "device string is NULL");
    }
    if (strncmp(s, "cpu", 3) == 0) {
        d.type = TL_DEVICE_CPU;
        rest = s + 3;
    }
    else if (strncmp(s, "cuda", 4) == 0) {
        d.type = TL_DEVICE_CUDA;
        rest = s + 4;
    }
    else {
        goto unknown;
    }
    if (*rest == '\0') {
        *out = d; /* "cpu" and "cuda" mean index 0 */
        return TL_OK;
    }
    if (*rest != ':') {
        goto unknown;
    }
    index = parse_index(rest + 1);
    if (index < 0) {
        return tl_error(TL_ERR_VALUE,
                        "invalid device '%.*s': the index must be an "
                        "integer from 0 to %d",
                        QUOTE_MAX, s, TL_MAX_DEVICE_INDEX);
    }
    if (d.type == TL_DEVICE_CPU && index != 0) {
        return tl_error(TL_ERR_VALUE,
                        "invalid device '%.*s': the cpu device has only "
                        "index 0",
                        QUOTE_MAX, s);
    }
    d.index = (int16_t)index;
    *out = d;
    return TL_OK;

unknown:
    return tl_error(TL_ERR_VALUE,
                    "unknown device '%.*s': expected 'cpu', 'cuda' or "
                    "'cuda:N'",
                    QUOTE_MAX, s);
}

void tl_device_format(tl_device d, char *buf, size_t n)
{
    if (buf == NULL || n == 0) {
        return;
    }
    switch (d.type) {
    case TL_DEVICE_CPU:
        snprintf(buf, n, "cpu");
        break;
    case TL_DEVICE_CUDA:
        snprintf(buf, n, "cuda:%d", (int)d.index);
        break;
    default:
        snprintf(buf, n, "<device type %d>:%d", (int)d.type, (int)d.index);
        break;
    }
}

const char *tl_memkind_name(tl_memkind k)
{
    if ((int)k < 0 || k >= TL_MEMKIND_COUNT) {
        return NULL;
    }
    return kind_names[k];
}

int tl_memkind_parse(const char *s, tl_memkind *out)
{
    /* Compare lower-cased with '_' and '-' dropped, so "host_pinned",
     * "HostPinned" and "KV_CACHE" all match. */
    char norm[32];
    size_t n = 0;
    const char *c;
    int k;

    if (s == NULL) {
        return tl_error(TL_ERR_VALUE, "memory kind is NULL");
    }
    for (c = s; *c != '\0'; c++) {
        if (*c == '_' || *c == '-') {
            continue;
        }
        if (n + 1 >= sizeof(norm)) {
            goto unknown;
        }
        norm[n++] = (char)tolower((unsigned char)*c);
    }
    norm[n] = '\0';
    for (k = 0; k < TL_MEMKIND_COUNT; k++) {
        const char *name = kind_names[k];
        size_t i;
        for (i = 0; name[i] != '\0'; i++) {
            if (tolower((unsigned char)name[i]) != norm[i]) {
                break;
            }
        }
        if (name[i] == '\0' && norm[i] == '\0') {
            *out = (tl_memkind)k;
            return TL_OK;
        }
    }

unknown:
    return tl_error(TL_ERR_VALUE,
                    "unknown memory kind '%.*s': expected one of Default, "
                    "Persistent, Workspace, KVCache, HostPinned, "
                    "HostPageable",
                    QUOTE_MAX, s);
}
