/* tensorlib/streams.h — streams and events as the allocation layer sees
 * them: the stream backend a caching pool can be given, and the pool calls
 * that make device memory safe to reuse across streams (the stream a block
 * was allocated on, record_stream, the deferred free).  See Note [Stream
 * aware pools] in csrc/alloc/pool.c.
 *
 * The pool never calls a device API itself: a backend supplies events.
 * csrc/cuda passes CUDA events; the C tests pass fakes.  Public: includes
 * only the C standard library (through base.h), C/C++-neutral. */
#ifndef TENSORLIB_STREAMS_H
#define TENSORLIB_STREAMS_H

#include "tensorlib/alloc.h"
#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

/* A stream: an opaque handle (for CUDA, a cudaStream_t's bits; 0 is the
 * device's default stream).  The pool only compares handles. */
typedef int64_t tl_stream;

/* Events on streams, supplied by whoever owns the device.  Every function
 * is called with the pool's lock held, so none may call back into the
 * pool.  Thread-safe. */
typedef struct tl_stream_backend {
    void *ctx;
    /* The stream the calling thread allocates on now (for CUDA, the
     * thread's current stream on the pool's device). */
    tl_stream (*current_stream)(void *ctx);
    /* Records an event on s, after the work queued on s so far.
     * Returns: owned event, or NULL after recording an error. */
    void *(*record_event)(void *ctx, tl_stream s);
    /* Returns 1 when event completed, 0 when not yet, or a negative
     * status after recording an error. */
    int (*query_event)(void *ctx, void *event);
    /* Blocks until event completed.  Returns 0 or a negative status.
     * (optional: NULL means the pool polls query_event) */
    int (*wait_event)(void *ctx, void *event);
    /* Releases an event that record_event returned. */
    void (*destroy_event)(void *ctx, void *event);
} tl_stream_backend;

/* As tl_pool_new, for memory used by streams: every block records the
 * stream it was allocated on (backend->current_stream() at allocation);
 * a free block is reused only by allocations on its own stream; a block
 * that other streams used (tl_pool_record_stream) is freed only once
 * events recorded on those streams at free time have completed.  backend
 * is copied.  Returns: owned pointer (release with tl_pool_destroy), or
 * NULL. */
TL_API tl_allocator *tl_pool_new_streams(const tl_raw_allocator *raw,
                                         const tl_pool_config *cfg,
                                         const char *name,
                                         const tl_stream_backend *backend);

/* As pool->allocate, on stream s instead of the current stream.  A pool
 * without a backend ignores s.  Returns: owned pointer, or NULL after
 * recording an error. */
TL_API void *tl_pool_allocate_on(const tl_allocator *pool, size_t nbytes,
                                 size_t alignment, tl_stream s);

/* Marks that stream s uses the block handed out at ptr (the pointer
 * allocate returned), so that freeing it waits for the work queued on s
 * by then.  Recording the block's own stream, or a stream twice, is a
 * no-op.  Errors: TL_ERR_VALUE when pool has no stream backend or did not
 * hand out ptr; TL_ERR_MEMORY.  Returns 0 or an error. */
TL_API int tl_pool_record_stream(const tl_allocator *pool, void *ptr,
                                 tl_stream s);

/* The stream the block at ptr was allocated on.  Errors: TL_ERR_VALUE
 * (not a pool, or ptr not handed out).  Returns 0 or an error. */
TL_API int tl_pool_block_stream(const tl_allocator *pool, const void *ptr,
                                tl_stream *out);

/* Frees the deferred blocks whose events completed (allocate, empty_cache
 * and the retry after a failed raw allocation do this too).  Returns the
 * number of blocks freed, or a negative status when pool is not a pool. */
TL_API int64_t tl_pool_process_events(const tl_allocator *pool);

/* Waits for the events of every deferred block, then frees them all.
 * Returns 0 or the first error a wait gave (the blocks are freed anyway:
 * see Note [Stream aware pools]). */
TL_API int tl_pool_synchronize_events(const tl_allocator *pool);

/* Number of freed blocks still waiting for their events. */
TL_API int64_t tl_pool_pending_frees(const tl_allocator *pool);

TL_EXTERN_C_END

#endif /* TENSORLIB_STREAMS_H */
