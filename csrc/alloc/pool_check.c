/* csrc/alloc/pool_check.c — the caching pool's consistency checker
 * (tl_pool_check): walks every segment, block, bin and the hash table of
 * handed-out blocks under the pool's lock and reports the first broken
 * invariant as TL_ERR_RUNTIME.  Reads only; the tests and the stress hook
 * call it. */
#include <stdint.h>

#include "pool_impl.h"

/* Formats one invariant failure for tl_pool_check. */
#define BROKEN(...)                                                         \
    do {                                                                    \
        status = tl_error(TL_ERR_RUNTIME, __VA_ARGS__);                     \
        goto done;                                                          \
    } while (0)

static bool bin_contains(const pool *p, const bin_index *x, const pblock *b)
{
    const pblock *t = x->root[bin_of(p, b->size)];

    while (t != NULL && t != b) {
        t = t->child[!key_less(b, t)];
    }
    return t != NULL;
}

/* Counts the nodes of t, clearing *ok if t is not a treap of free blocks
 * of bin k with keys between lo and hi. */
static size_t tree_check(const pool *p, const pblock *t, unsigned k,
                         const pblock *lo, const pblock *hi, bool *ok)
{
    if (t == NULL) {
        return 0;
    }
    if ((lo != NULL && !key_less(lo, t)) ||
        (hi != NULL && !key_less(t, hi)) || t->allocated ||
        bin_of(p, t->size) != k ||
        (t->child[0] != NULL && t->child[0]->prio > t->prio) ||
        (t->child[1] != NULL && t->child[1]->prio > t->prio)) {
        *ok = false;
    }
    return 1 + tree_check(p, t->child[0], k, lo, t, ok) +
           tree_check(p, t->child[1], k, t, hi, ok);
}

static size_t bins_check(const pool *p, const bin_index *x, bool *ok)
{
    size_t n = 0;
    unsigned k;

    for (k = 0; k < NBINS; k++) {
        bool bit = (x->bits[k / 64] >> (k % 64)) & 1;
        bool sum = (x->summary >> (k / 64)) & 1;
        if (bit != (x->root[k] != NULL) || sum != (x->bits[k / 64] != 0)) {
            *ok = false;
        }
        n += tree_check(p, x->root[k], k, NULL, NULL, ok);
    }
    return n;
}

int tl_pool_check(const tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    const segment *s;
    int status = TL_OK;
    int64_t nsegs = 0, reserved = 0, handed = 0, active = 0, nfull = 0;
    int64_t ndeferred = 0, nlisted = 0, nquick = 0;
    size_t nfree = 0, nlive = 0, in_trees;
    const deferred *d;
    const sbins *x;
    bool ok = true;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_check: not a pool");
    }
    tl_lock_acquire(&p->mu);
    for (s = p->segs; s != NULL; s = s->next) {
        const pblock *b;
        size_t covered = 0;
        nsegs++;
        reserved += (int64_t)s->size;
        if (s->first == NULL || s->first->ptr != s->base ||
            s->first->prev != NULL) {
            BROKEN("pool '%s': segment %p does not start with its first "
                   "block", p->name, (void *)s->base);
        }
        for (b = s->first; b != NULL; b = b->next) {
            if (b->seg != s || b->ptr != s->base + covered ||
                b->size == 0 || b->size % p->cfg.granule != 0 ||
                (b->next != NULL && b->next->prev != b)) {
                BROKEN("pool '%s': block %p of segment %p is misplaced",
                       p->name, (void *)b->ptr, (void *)s->base);
            }
            covered += b->size;
            if (b->allocated && b->deferred) {
                ndeferred++;
                handed += (int64_t)b->size;
                if (hash_find(p, b->uptr) == b || b->uses != NULL) {
                    BROKEN("pool '%s': deferred block %p is findable or "
                           "still has stream uses", p->name,
                           (void *)b->ptr);
                }
            }
            else if (b->allocated && b->quick) {
                nquick++;
                if (hash_find(p, b->uptr) == b || b->uptr != b->ptr ||
                    b->requested != 0 || b->uses != NULL ||
                    (b->size >> p->gshift) > QUICK_CLASSES) {
                    BROKEN("pool '%s': quick block %p is findable, offset, "
                           "in use or too large", p->name, (void *)b->ptr);
                }
            }
            else if (b->allocated) {
                nlive++;
                handed += (int64_t)b->size;
                active += (int64_t)b->requested;
                if (hash_find(p, b->uptr) != b || b->uptr < b->ptr ||
                    (size_t)(b->uptr - b->ptr) + b->requested > b->size) {
                    BROKEN("pool '%s': handed-out block %p is not findable "
                           "or overflows", p->name, (void *)b->ptr);
                }
            }
            else {
                if (b->deferred || b->quick || b->uses != NULL) {
                    BROKEN("pool '%s': free block %p is marked deferred or "
                           "has stream uses", p->name, (void *)b->ptr);
                }
                nfree++;
                if (b->next != NULL && !b->next->allocated) {
                    BROKEN("pool '%s': free blocks %p and %p are adjacent",
                           p->name, (void *)b->ptr, (void *)b->next->ptr);
                }
                if (!bin_contains(p, seg_bins(s), b)) {
                    BROKEN("pool '%s': free block %p is not in its tree",
                           p->name, (void *)b->ptr);
                }
            }
        }
        if (!p->streams && s->sb != &p->sb0) {
            BROKEN("pool '%s': segment %p belongs to a stream in a pool "
                   "without streams", p->name, (void *)s->base);
        }
        if (covered != s->size) {
            BROKEN("pool '%s': segment %p: blocks cover %zu of %zu bytes",
                   p->name, (void *)s->base, covered, s->size);
        }
        if (s->fully_free !=
            (!s->first->allocated && s->first->next == NULL)) {
            BROKEN("pool '%s': segment %p is %son the fully free list",
                   p->name, (void *)s->base, s->fully_free ? "" : "not ");
        }
        nfull += s->fully_free;
    }
    for (s = p->ffirst; s != NULL; s = s->fnext) {
        nfull--;
    }
    for (d = p->dfirst; d != NULL; d = d->next) {
        if (!d->b->deferred || !d->b->allocated || d->nev <= 0) {
            BROKEN("pool '%s': deferred list entry %p is not a deferred "
                   "block with events", p->name, (void *)d->b->ptr);
        }
        ndeferred--;
        nlisted++;
    }
    if (ndeferred != 0 || nlisted != p->ndeferred) {
        BROKEN("pool '%s': %lld deferred blocks listed, %lld counted, %lld "
               "unlisted", p->name, (long long)nlisted,
               (long long)p->ndeferred, (long long)ndeferred);
    }
    for (unsigned q = 0; q < QUICK_CLASSES; q++) {
        int64_t n = 0;
        for (const pblock *b = p->quick[q]; b != NULL; b = b->hnext) {
            if (!b->quick || !b->allocated ||
                b->size != ((size_t)q + 1) << p->gshift) {
                BROKEN("pool '%s': quick list %u holds block %p of %zu "
                       "bytes that is not a quick block of its size",
                       p->name, q, (void *)b->ptr, b->size);
            }
            n++;
        }
        if (n != p->nquick[q] || n > QUICK_DEPTH) {
            BROKEN("pool '%s': quick list %u holds %lld blocks, counted "
                   "%d", p->name, q, (long long)n, (int)p->nquick[q]);
        }
        nquick -= n;
    }
    if (nquick != 0) {
        BROKEN("pool '%s': %lld quick blocks are on no quick list",
               p->name, (long long)nquick);
    }
    in_trees = 0;
    for (x = &p->sb0; x != NULL; x = x->next) {
        in_trees += bins_check(p, &x->bins[SMALL], &ok) +
                    bins_check(p, &x->bins[LARGE], &ok);
    }
    if (!ok || in_trees != nfree) {
        BROKEN("pool '%s': the free trees are out of order or hold %zu "
               "blocks for %zu free", p->name, in_trees, nfree);
    }
    if (nfull != 0 || nsegs != p->nsegs || reserved != p->reserved ||
        handed != p->handed || active != p->active || nlive != p->nlive) {
        BROKEN("pool '%s': counters disagree with the segments (segments "
               "%lld/%lld, reserved %lld/%lld, handed %lld/%lld, active "
               "%lld/%lld, live %zu/%zu)", p->name, (long long)nsegs,
               (long long)p->nsegs, (long long)reserved,
               (long long)p->reserved, (long long)handed,
               (long long)p->handed, (long long)active, (long long)p->active,
               nlive, p->nlive);
    }

done:
    tl_lock_release(&p->mu);
    return status;
}

#undef BROKEN
