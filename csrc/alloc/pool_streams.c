/* csrc/alloc/pool_streams.c — the stream-aware side of the caching pool
 * (Note [Stream aware pools] in pool.c): per-stream free indexes, frees
 * deferred on events recorded on the other streams that used a block, and
 * the stream calls of tensorlib/streams.h (record_stream, block_stream,
 * processing and synchronising events).  Block carving and merging stay
 * in pool.c; a deferred block goes back through tl_pool_release_block_slow.
 * Never calls a device API itself: the pool's stream backend does. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "pool_impl.h"
#include "fault.h"

/* Returns: the free indexes of stream s (made on first use; they live as
 * long as the pool), or NULL after recording TL_ERR_MEMORY. */
static sbins *sbins_for(pool *p, tl_stream s)
{
    sbins *x;

    for (x = &p->sb0; x != NULL; x = x->next) {
        if (x->stream == s) {
            return x;
        }
    }
    x = tl_fault_calloc(1, sizeof(*x));
    if (x == NULL) {
        tl_error(TL_ERR_MEMORY, "pool '%s': no memory for the free-block "
                 "index of a new stream", p->name);
        return NULL;
    }
    x->stream = s;
    x->next = p->sb0.next;
    p->sb0.next = x;
    return x;
}

/* Waits for one event: wait_event, or polling query_event.  Returns 0 or
 * a negative status. */
static int event_wait(pool *p, void *ev)
{
    int q;

    if (p->backend.wait_event != NULL) {
        return p->backend.wait_event(p->backend.ctx, ev);
    }
    while ((q = p->backend.query_event(p->backend.ctx, ev)) == 0) {
        sched_yield();
    }
    return q < 0 ? q : 0;
}

/* Frees the deferred blocks whose events completed, waiting for them all
 * when wait (Note [Stream aware pools]).  Returns the number freed, or the
 * first wait error (the blocks are freed anyway). */
int64_t tl_pool_process_deferred(pool *p, bool wait)
{
    deferred **link = &p->dfirst;
    int64_t freed = 0;
    int err = 0;

    while (*link != NULL) {
        deferred *d = *link;
        while (d->nev > 0) {
            void *ev = d->ev[d->nev - 1];
            int q;
            if (wait) {
                q = event_wait(p, ev);
                if (q < 0 && err == 0) {
                    err = q;
                }
                q = 1; /* freed anyway: see the Note */
            }
            else {
                q = p->backend.query_event(p->backend.ctx, ev);
            }
            if (q <= 0) {
                break; /* pending, or a query error: stay deferred */
            }
            p->backend.destroy_event(p->backend.ctx, ev);
            d->nev--;
        }
        if (d->nev > 0) {
            link = &d->next;
            continue;
        }
        *link = d->next;
        p->ndeferred--;
        d->b->deferred = false;
        tl_pool_release_block_slow(p, d->b);
        free(d);
        freed++;
    }
    return err < 0 ? err : freed;
}

/* Parks b (handed out, out of the hash table, with other streams' uses)
 * until events recorded now on those streams complete. */
COLD_EXTERN void tl_pool_defer_free(pool *p, pblock *b)
{
    stream_set *u = b->uses;
    deferred *d = tl_fault_malloc(sizeof(*d) + (size_t)u->n * sizeof(void *));
    int nev = 0, i;

    b->uses = NULL;
    for (i = 0; d != NULL && i < u->n; i++) {
        void *ev = p->backend.record_event(p->backend.ctx, u->s[i]);
        if (ev == NULL) {
            break;
        }
        d->ev[nev++] = ev;
    }
    if (d == NULL || nev < u->n) {
        /* Cannot defer: wait for what was recorded, free now. */
        fprintf(stderr, "tensorlib: pool '%s': could not record the events "
                "that a block used by %d other stream(s) needs (%s); "
                "freeing it now\n", p->name, u->n,
                d == NULL ? "out of memory" : tl_error_message());
        for (i = 0; i < nev; i++) {
            (void)event_wait(p, d->ev[i]);
            p->backend.destroy_event(p->backend.ctx, d->ev[i]);
        }
        free(d);
        free(u);
        tl_pool_release_block_slow(p, b);
        return;
    }
    free(u);
    d->b = b;
    d->nev = nev;
    d->next = p->dfirst;
    p->dfirst = d;
    p->ndeferred++;
    b->deferred = true;
}

/* The stream work of an allocation: polls the deferred frees and finds
 * s's free indexes.  Returns: borrowed, or NULL after recording an error. */
COLD_EXTERN sbins *tl_pool_stream_prepare(pool *p, tl_stream s)
{
    if (p->dfirst != NULL) {
        (void)tl_pool_process_deferred(p, false);
    }
    return sbins_for(p, s);
}

/* ---- stream calls (tensorlib/streams.h) --------------------------------- */

int tl_pool_record_stream(const tl_allocator *a, void *ptr, tl_stream s)
{
    pool *p = tl_pool_of(a);
    pblock *b;
    stream_set *u;
    int i;

    if (p == NULL || !p->streams) {
        return tl_error(TL_ERR_VALUE, "record_stream: allocator '%s' does "
                        "not track streams",
                        a != NULL && a->name != NULL ? a->name : "?");
    }
    tl_lock_acquire(&p->mu);
    b = ptr != NULL ? hash_find(p, ptr) : NULL;
    if (b == NULL) {
        tl_lock_release(&p->mu);
        return tl_error(TL_ERR_VALUE, "record_stream: pool '%s' did not "
                        "hand out %p (or it was freed)", p->name, ptr);
    }
    if (b->seg->sb->stream == s) {
        tl_lock_release(&p->mu);
        return TL_OK;
    }
    u = b->uses;
    for (i = 0; u != NULL && i < u->n; i++) {
        if (u->s[i] == s) {
            tl_lock_release(&p->mu);
            return TL_OK;
        }
    }
    if (u == NULL || u->n == u->cap) {
        int cap = u == NULL ? 2 : 2 * u->cap;
        stream_set *nu =
            tl_fault_realloc(u, sizeof(*nu) + (size_t)cap * sizeof(tl_stream));
        if (nu == NULL) {
            tl_lock_release(&p->mu);
            return tl_error(TL_ERR_MEMORY, "record_stream: out of memory");
        }
        if (u == NULL) {
            nu->n = 0;
        }
        nu->cap = cap;
        b->uses = u = nu;
    }
    u->s[u->n++] = s;
    tl_lock_release(&p->mu);
    return TL_OK;
}

int tl_pool_block_stream(const tl_allocator *a, const void *ptr,
                         tl_stream *out)
{
    pool *p = tl_pool_of(a);
    pblock *b;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_block_stream: not a pool");
    }
    tl_lock_acquire(&p->mu);
    b = ptr != NULL ? hash_find(p, ptr) : NULL;
    if (b != NULL) {
        *out = b->seg->sb->stream;
    }
    tl_lock_release(&p->mu);
    if (b == NULL) {
        return tl_error(TL_ERR_VALUE, "pool '%s' did not hand out %p",
                        p->name, ptr);
    }
    return TL_OK;
}

int64_t tl_pool_process_events(const tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    int64_t n = 0;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_process_events: not a pool");
    }
    tl_lock_acquire(&p->mu);
    if (p->dfirst != NULL) {
        n = tl_pool_process_deferred(p, false);
    }
    tl_lock_release(&p->mu);
    return n;
}

int tl_pool_synchronize_events(const tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    int64_t n = 0;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE,
                        "tl_pool_synchronize_events: not a pool");
    }
    tl_lock_acquire(&p->mu);
    if (p->dfirst != NULL) {
        n = tl_pool_process_deferred(p, true);
    }
    tl_lock_release(&p->mu);
    return n < 0 ? (int)n : TL_OK;
}

int64_t tl_pool_pending_frees(const tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    int64_t n;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_pending_frees: not a pool");
    }
    tl_lock_acquire(&p->mu);
    n = p->ndeferred;
    tl_lock_release(&p->mu);
    return n;
}
