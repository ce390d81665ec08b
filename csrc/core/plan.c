/* csrc/core/plan.c — execution plans: the declared buffers and views, their
 * layout in one allocation per (device, memory kind), and prepare, which
 * makes those allocations and carves the tensors with sub-storages.  It
 * owns the plan's metadata; the memory belongs to the storages it hands
 * out.  It never allocates per buffer. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "../alloc/fault.h"
#include "../alloc/alloc_internal.h"
#include "tensor_impl.h"
#include "tensorlib/plan.h"


/* One declared entry.  A buffer: offset is its byte offset in its group's
 * allocation (a multiple of align).  A view: of is the index of its
 * buffer and offset is in elements of that buffer. */
typedef struct entry {
    char *name;          /* owned */
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS]; /* elements */
    int16_t dtype;
    int of;              /* -1 for a buffer */
    int group;           /* index into groups (buffers) */
    int64_t offset;
    int64_t nbytes;      /* buffers: numel * itemsize */
    size_t align;
} entry;

/* One allocation: every buffer of one (device, kind). */
typedef struct group {
    tl_device device;
    tl_memkind kind;
    int64_t total;       /* bytes, padding included */
    size_t align;        /* largest alignment of its buffers */
} group;

struct tl_plan {
    entry *entries;
    int count, cap;
    group groups[TL_MEMKIND_COUNT * 4];
    int ngroups;
};

tl_plan *tl_plan_new(void)
{
    tl_plan *p = tl_fault_calloc(1, sizeof(*p));
    if (!p) {
        tl_error(TL_ERR_MEMORY, "failed to allocate an execution plan");
    }
    return p;
}

void tl_plan_free(tl_plan *p)
{
    if (!p) {
        return;
    }
    for (int i = 0; i < p->count; i++) {
        free(p->entries[i].name);
    }
    free(p->entries);
    free(p);
}

static int find(const tl_plan *p, const char *name)
{
    for (int i = 0; i < p->count; i++) {
        if (strcmp(p->entries[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Makes room for one more entry and copies its name.  Returns: the new
 * (zeroed, not yet counted) entry, or NULL after recording an error. */
static entry *entry_reserve(tl_plan *p, const char *name)
{
    if (!name || !name[0]) {
        tl_error(TL_ERR_VALUE, "a plan buffer needs a non-empty name");
        return NULL;
    }
    if (find(p, name) >= 0) {
        tl_error(TL_ERR_VALUE, "the plan already has a buffer named "
                 "'%.64s'", name);
        return NULL;
    }
    if (p->count == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        entry *e = tl_fault_realloc(p->entries, (size_t)cap * sizeof(*e));
        if (!e) {
            tl_error(TL_ERR_MEMORY, "failed to grow an execution plan to "
                     "%d buffers", cap);
            return NULL;
        }
        p->entries = e;
        p->cap = cap;
    }
    entry *e = &p->entries[p->count];
    memset(e, 0, sizeof(*e));
    e->name = strdup(name);
    if (!e->name) {
        tl_error(TL_ERR_MEMORY, "failed to copy a plan buffer name");
        return NULL;
    }
    return e;
}

int tl_plan_add_buffer(tl_plan *p, const char *name, int ndim,
                       const int64_t *sizes, tl_dtype dt, tl_device dev,
                       tl_memkind kind, size_t alignment)
{
    int64_t nbytes, off, end;
    int g;
    if (!tl_dtype_valid(dt)) {
        return tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
    }
    if (ndim < 0 || ndim > TL_MAX_DIMS) {
        return tl_error(TL_ERR_VALUE, "a plan buffer has 0 to %d dims, not "
                        "%d", TL_MAX_DIMS, ndim);
    }
    if (tl_check_alignment(alignment) < 0) {
        return tl_error_kind();
    }
    if ((int)kind < 0 || kind >= TL_MEMKIND_COUNT) {
        return tl_error(TL_ERR_VALUE, "memory kind %d is out of range",
                        (int)kind);
    }
    if (tl_memkind_is_host(kind) && dev.type != TL_DEVICE_CPU) {
        char d[32];
        tl_device_format(dev, d, sizeof d);
        return tl_error(TL_ERR_VALUE, "memory kind %s is a host kind and "
                        "cannot be used on device %s", tl_memkind_name(kind),
                        d);
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), NULL,
                            &nbytes) < 0) {
        return tl_error_kind();
    }
    for (g = 0; g < p->ngroups; g++) {
        if (tl_device_eq(p->groups[g].device, dev) &&
            p->groups[g].kind == kind) {
            break;
        }
    }
    if (g == (int)(sizeof p->groups / sizeof p->groups[0])) {
        return tl_error(TL_ERR_VALUE, "a plan spans at most %d (device, "
                        "memory kind) pairs", g);
    }
    const int64_t total = g < p->ngroups ? p->groups[g].total : 0;
    const int64_t a = (int64_t)alignment;
    if (tl_add_overflow_i64(total, a - 1, &off) ||
        tl_add_overflow_i64(off / a * a, nbytes, &end)) {
        return tl_error(TL_ERR_OVERFLOW, "plan buffer '%.64s' of %" PRId64
                        " bytes after %" PRId64 " bytes overflows int64",
                        name ? name : "", nbytes, total);
    }
    off = off / a * a;
    int64_t strides[TL_MAX_DIMS];
    if (tl_dense_strides(ndim, sizes, TL_FORMAT_CONTIGUOUS, strides) < 0) {
        return tl_error_kind();
    }
    entry *e = entry_reserve(p, name);
    if (!e) {
        return tl_error_kind();
    }
    e->ndim = ndim;
    memcpy(e->sizes, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(e->strides, strides, (size_t)ndim * sizeof(int64_t));
    e->dtype = (int16_t)dt;
    e->of = -1;
    e->group = g;
    e->offset = off;
    e->nbytes = nbytes;
    e->align = alignment;
    if (g == p->ngroups) {
        p->groups[g].device = dev;
        p->groups[g].kind = kind;
        p->groups[g].align = 1;
        p->ngroups++;
    }
    p->groups[g].total = end;
    if (alignment > p->groups[g].align) {
        p->groups[g].align = alignment;
    }
    p->count++;
    return 0;
}

int tl_plan_add_view(tl_plan *p, const char *name, const char *of, int ndim,
                     const int64_t *sizes, const int64_t *strides,
                     int64_t offset)
{
    int64_t st[TL_MAX_DIMS];
    int b = of ? find(p, of) : -1;
    if (b < 0) {
        return tl_error(TL_ERR_VALUE, "plan view '%.64s': no buffer named "
                        "'%.64s' was declared", name ? name : "",
                        of ? of : "(null)");
    }
    const entry *base = &p->entries[b];
    if (base->of >= 0) {
        return tl_error(TL_ERR_VALUE, "plan view '%.64s': '%.64s' is a view; "
                        "name the buffer '%s' and combine the offsets",
                        name ? name : "", of,
                        p->entries[base->of].name);
    }
    if (ndim < 0 || ndim > TL_MAX_DIMS) {
        return tl_error(TL_ERR_VALUE, "a plan view has 0 to %d dims, not %d",
                        TL_MAX_DIMS, ndim);
    }
    const int64_t isz = tl_itemsize(base->dtype);
    if (tl_safe_numel_bytes(ndim, sizes, isz, NULL, NULL) < 0) {
        return tl_error_kind();
    }
    if (strides) {
        memcpy(st, strides, (size_t)ndim * sizeof(int64_t));
    } else if (tl_dense_strides(ndim, sizes, TL_FORMAT_CONTIGUOUS, st) < 0) {
        return tl_error_kind();
    }
    if (tl_check_in_bounds(ndim, sizes, st, offset, isz, base->nbytes) < 0) {
        return tl_error(TL_ERR_SHAPE, "plan view '%.64s' does not fit buffer "
                        "'%.64s' of shape %s (%" PRId64 " bytes): %s",
                        name ? name : "", of,
                        tl_fmt_list(0, base->ndim, base->sizes),
                        base->nbytes, tl_error_message());
    }
    entry *e = entry_reserve(p, name);
    if (!e) {
        return tl_error_kind();
    }
    base = &p->entries[b]; /* entries may have moved */
    e->ndim = ndim;
    memcpy(e->sizes, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(e->strides, st, (size_t)ndim * sizeof(int64_t));
    e->dtype = base->dtype;
    e->of = b;
    e->group = base->group;
    e->offset = offset;
    e->nbytes = 0;
    e->align = base->align;
    p->count++;
    return 0;
}

int tl_plan_count(const tl_plan *p) { return p->count; }

const char *tl_plan_name(const tl_plan *p, int i)
{
    return i >= 0 && i < p->count ? p->entries[i].name : NULL;
}

bool tl_plan_is_view(const tl_plan *p, int i)
{
    return i >= 0 && i < p->count && p->entries[i].of >= 0;
}

int64_t tl_plan_offset(const tl_plan *p, int i)
{
    if (i < 0 || i >= p->count) {
        return -1;
    }
    const entry *e = &p->entries[i];
    if (e->of < 0) {
        return e->offset;
    }
    return p->entries[e->of].offset + e->offset * tl_itemsize(e->dtype);
}

int64_t tl_plan_workspace_bytes(const tl_plan *p)
{
    int64_t n = 0;
    for (int g = 0; g < p->ngroups; g++) {
        n += p->groups[g].total;
    }
    return n;
}

int tl_plan_allocation_count(const tl_plan *p) { return p->ngroups; }

int tl_plan_prepare(tl_plan *p, tl_tensor_impl **out)
{
    tl_storage *whole[sizeof p->groups / sizeof p->groups[0]] = {NULL};
    int rc = 0, i, g;
    for (i = 0; i < p->count; i++) {
        out[i] = NULL;
    }
    /* Validate every group's allocator before allocating anything. */
    for (g = 0; g < p->ngroups; g++) {
        if (!tl_registry_get(p->groups[g].device, p->groups[g].kind)) {
            return tl_error_kind();
        }
    }
    for (g = 0; g < p->ngroups; g++) {
        const group *gr = &p->groups[g];
        const tl_allocator *a = tl_registry_get(gr->device, gr->kind);
        size_t align = gr->align > TL_CPU_ALIGNMENT ? gr->align
                                                    : TL_CPU_ALIGNMENT;
        tl_block *b = a ? tl_block_alloc_from(a, gr->kind, (size_t)gr->total,
                                              align)
                        : NULL;
        if (!b) {
            rc = tl_error_kind();
            goto fail;
        }
        whole[g] = tl_storage_from_block(b, 0, gr->total);
        tl_block_decref(b);
        if (!whole[g]) {
            rc = tl_error_kind();
            goto fail;
        }
    }
    for (i = 0; i < p->count; i++) {
        const entry *e = &p->entries[i];
        tl_tensor_impl *t;
        if (e->of < 0) {
            tl_storage *sub = tl_storage_sub(whole[e->group], e->offset,
                                             e->nbytes);
            t = sub ? tl_tensor_new(sub, 0, e->ndim, e->sizes, e->strides,
                                    (tl_dtype)e->dtype)
                    : NULL;
            tl_storage_decref(sub);
        } else {
            t = tl_tensor_as_strided(out[e->of], e->ndim, e->sizes,
                                     e->strides, e->offset);
        }
        if (!t) {
            rc = tl_error_kind();
            goto fail;
        }
        /* The plan owns the layout. */
        t->flags &= ~(uint32_t)TL_FLAG_ALLOW_METADATA_CHANGE;
        out[i] = t;
    }
    for (g = 0; g < p->ngroups; g++) {
        tl_storage_decref(whole[g]);
    }
    return 0;

fail:
    for (i = 0; i < p->count; i++) {
        tl_tensor_decref(out[i]);
        out[i] = NULL;
    }
    for (g = 0; g < p->ngroups; g++) {
        tl_storage_decref(whole[g]);
    }
    return rc;
}
