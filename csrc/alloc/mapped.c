/* csrc/alloc/mapped.c — memory-mapped files (tensorlib/mapped.h): the
 * refcounted mapping of a whole file, blocks over its byte ranges whose
 * external deleter drops the mapping, and the count of mapped bytes that
 * the stats report as mapped_bytes.  It owns the mapping structs (from
 * malloc) and the mappings themselves; it never reads the file's bytes
 * (pages are faulted in by whoever touches them). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block.h"
#include "fault.h"
#include "tensorlib/mapped.h"

struct tl_mapping {
    atomic_llong refcnt;
    void *base;           /* the mapping, from mmap; never NULL */
    size_t nbytes;        /* the file's size when mapped (> 0) */
    tl_map_mode mode;
};

/* Bytes mapped now: added when a mapping is made, taken off when the
 * last reference unmaps it. */
static atomic_llong mapped_now;

tl_mapping *tl_mapping_open(const char *path, tl_map_mode mode)
{
    int fd = -1;
    tl_mapping *m = NULL;
    struct stat sb;
    int prot, flags, oflags;

    switch (mode) {
    case TL_MAP_READ:
        prot = PROT_READ; flags = MAP_PRIVATE; oflags = O_RDONLY;
        break;
    case TL_MAP_COPY:
        prot = PROT_READ | PROT_WRITE; flags = MAP_PRIVATE;
        oflags = O_RDONLY;
        break;
    case TL_MAP_SHARED:
        prot = PROT_READ | PROT_WRITE; flags = MAP_SHARED; oflags = O_RDWR;
        break;
    default:
        tl_error(TL_ERR_VALUE, "unknown mapping mode %d", (int)mode);
        return NULL;
    }
    fd = open(path, oflags | O_CLOEXEC);
    if (fd < 0) {
        tl_error(TL_ERR_RUNTIME, "cannot open '%s' for mapping: %s", path,
                 strerror(errno));
        return NULL;
    }
    if (fstat(fd, &sb) < 0) {
        tl_error(TL_ERR_RUNTIME, "cannot stat '%s': %s", path,
                 strerror(errno));
        goto fail;
    }
    if (!S_ISREG(sb.st_mode)) {
        tl_error(TL_ERR_VALUE, "'%s' is not a regular file and cannot be "
                 "mapped", path);
        goto fail;
    }
    if (sb.st_size <= 0) {
        tl_error(TL_ERR_VALUE, "'%s' is empty: nothing to map", path);
        goto fail;
    }
    m = tl_fault_malloc(sizeof *m);
    if (!m) {
        tl_error(TL_ERR_MEMORY, "out of memory for a file mapping record");
        goto fail;
    }
    m->nbytes = (size_t)sb.st_size;
    m->mode = mode;
    m->base = mmap(NULL, m->nbytes, prot, flags, fd, 0);
    if (m->base == MAP_FAILED) {
        tl_error(TL_ERR_RUNTIME, "cannot map '%s' (%zu bytes): %s", path,
                 m->nbytes, strerror(errno));
        goto fail;
    }
    close(fd); /* the mapping keeps the file */
    atomic_init(&m->refcnt, 1);
    atomic_fetch_add(&mapped_now, (long long)m->nbytes);
    return m;

fail:
    free(m);
    if (fd >= 0) {
        close(fd);
    }
    return NULL;
}

void tl_mapping_incref(tl_mapping *m)
{
    atomic_fetch_add_explicit(&m->refcnt, 1, memory_order_relaxed);
}

void tl_mapping_decref(tl_mapping *m)
{
    if (!m || atomic_fetch_sub_explicit(&m->refcnt, 1,
                                        memory_order_acq_rel) != 1) {
        return;
    }
    munmap(m->base, m->nbytes);
    atomic_fetch_sub(&mapped_now, (long long)m->nbytes);
    free(m);
}

size_t tl_mapping_size(const tl_mapping *m) { return m->nbytes; }
void *tl_mapping_data(const tl_mapping *m) { return m->base; }
tl_map_mode tl_mapping_mode(const tl_mapping *m) { return m->mode; }

static void mapping_block_deleter(void *ctx)
{
    tl_mapping_decref(ctx);
}

tl_block *tl_mapping_block(tl_mapping *m, size_t offset, size_t nbytes)
{
    size_t end;
    if (tl_add_overflow_size(offset, nbytes, &end) || end > m->nbytes) {
        tl_error(TL_ERR_VALUE, "bytes [%zu, %zu + %zu) are outside a "
                 "mapped file of %zu bytes", offset, offset, nbytes,
                 m->nbytes);
        return NULL;
    }
    tl_block *b = tl_block_wrap((char *)m->base + offset, nbytes,
                                tl_device_cpu(), m->mode == TL_MAP_READ,
                                mapping_block_deleter, m);
    if (!b) {
        return NULL;
    }
    b->kind = TL_MEMKIND_HOST_PAGEABLE;
    tl_mapping_incref(m);
    return b;
}

bool tl_block_is_private_mapping(const tl_block *b)
{
    return b->owner == NULL && b->deleter == mapping_block_deleter &&
           ((const tl_mapping *)b->deleter_ctx)->mode != TL_MAP_SHARED;
}

int64_t tl_mapped_bytes(void)
{
    return atomic_load(&mapped_now);
}
