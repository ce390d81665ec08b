/* tensorlib/random.h — random numbers: counter-based generators
 * (Philox4x32-10) and the fills that draw from them.
 *
 * Note [Counter-based random numbers]
 * A generator is (seed, offset): the Philox key is the seed and the offset
 * counts 128-bit Philox blocks already handed out.  An op reserves the
 * blocks it needs under the generator's lock (offset += nblocks) and then
 * computes element i's numbers from (seed, the reserved offset, i) alone,
 * so the values are the same for any thread count, any output layout
 * (a strided out= gets what a contiguous one would, element for element in
 * row-major order) and any device that runs the same arithmetic.  Two
 * threads drawing from one generator get disjoint ranges (which one is
 * first is up to the scheduler).  The state is plain memory, so after
 * fork() parent and child continue the same stream unless one reseeds (as
 * NumPy and PyTorch).  The lock is held only for the reservation; a fork
 * while another thread holds it would leave it locked in the child (the
 * Python layer reserves with the GIL held, so a fork from Python never
 * sees it taken).
 *
 * Conventions for the fills (tl_random_*): t is written in place (borrowed)
 * after every check passes -- a failed call leaves t and the generator as
 * they were; g NULL means the default generator of t's device; t must be
 * writable (TL_ERR_READONLY), not overlap itself (TL_ERR_SHAPE) and live
 * on the CPU (TL_ERR_NOT_IMPLEMENTED names the op for other devices); a
 * generator of another device than t is TL_ERR_RUNTIME.  Parameters out of
 * their domain are TL_ERR_VALUE naming them; a dtype the op does not
 * support (as PyTorch) is TL_ERR_TYPE.  Every successful fill bumps t's
 * version.  Floating results are computed in float32 (float16, bfloat16,
 * float32) or float64 and rounded once to t's dtype. */
#ifndef TENSORLIB_RANDOM_H
#define TENSORLIB_RANDOM_H

#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/dtype.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

typedef struct tl_generator tl_generator;

/* The seed a new generator (and the default one) starts from, as
 * PyTorch's. */
#define TL_DEFAULT_SEED UINT64_C(67280421310721)

/* ---- generators ----------------------------------------------------------- */

/* A new generator for dev, seeded with TL_DEFAULT_SEED, offset 0.
 * Returns: new reference, or NULL. */
TL_API tl_generator *tl_generator_new(tl_device dev);
TL_API void tl_generator_incref(tl_generator *g);
TL_API void tl_generator_decref(tl_generator *g); /* no-op on NULL */

/* The process-wide default generator of dev (one per device type and
 * index, made on first use).  Returns: borrowed (lives for the process),
 * or NULL with TL_ERR_VALUE for an invalid device. */
TL_API tl_generator *tl_generator_default(tl_device dev);

TL_API tl_device tl_generator_device(const tl_generator *g);

/* Sets the seed and rewinds the offset to 0. */
TL_API void tl_generator_manual_seed(tl_generator *g, uint64_t seed);
/* Seeds g from the operating system's entropy (the time as a fallback).
 * Returns: the new seed. */
TL_API uint64_t tl_generator_seed(tl_generator *g);
/* The seed last set (by manual_seed, seed or set_state). */
TL_API uint64_t tl_generator_initial_seed(tl_generator *g);

/* The whole state is (seed, offset). */
TL_API void tl_generator_get_state(tl_generator *g, uint64_t *seed,
                                   uint64_t *offset);
TL_API void tl_generator_set_state(tl_generator *g, uint64_t seed,
                                   uint64_t offset);

/* Reserves nblocks Philox blocks: *seed and *offset get the key and the
 * first block, and g's offset moves past them.  TL_ERR_OVERFLOW (g
 * unchanged) when the 64-bit offset would wrap.  Returns 0 or an error. */
TL_API int tl_generator_reserve(tl_generator *g, uint64_t nblocks,
                                uint64_t *seed, uint64_t *offset);

/* Note [Taking back a draw] (csrc/core/random.c): a call that draws and
 * then fails (an allocation after the draw) gives its numbers back when
 * nobody else drew from the generator in between.  tl_generator_mark
 * records g's state and counts this thread's reservations from g until
 * tl_generator_unmark; tl_generator_take_back restores the recorded state
 * when g moved by exactly those reservations (another thread's draw, or a
 * new seed, leaves g as it is) and returns whether it did.  Marks do not
 * nest: a thread has one at a time.  g NULL: the CPU default generator. */
typedef struct tl_draw_mark {
    tl_generator *g;
    uint64_t seed, offset; /* g's state at the mark */
    uint64_t drawn;        /* blocks this thread reserved from g since */
} tl_draw_mark;
TL_API void tl_generator_mark(tl_generator *g, tl_draw_mark *m);
TL_API bool tl_generator_take_back(tl_draw_mark *m);
TL_API void tl_generator_unmark(tl_draw_mark *m);

/* Philox4x32-10 of Random123: out = the 10-round bijection of ctr under
 * key (as Random123's philox4x32(ctr, key)). */
TL_API void tl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                             uint32_t out[4]);

/* ---- fills ---------------------------------------------------------------- */

/* Uniform on [from, to) for floating t; never returns to's value rounded
 * to t's dtype.  TL_ERR_VALUE unless from <= to and to - from is finite. */
TL_API int tl_random_uniform_(tl_tensor_impl *t, double from, double to,
                              tl_generator *g);

/* Normal(mean, std) for floating t (Box-Muller, Note [Normal sampling]);
 * TL_ERR_VALUE for std < 0 or NaN. */
TL_API int tl_random_normal_(tl_tensor_impl *t, double mean, double std,
                             tl_generator *g);

/* log(x) ~ Normal(mean, std), floating t. */
TL_API int tl_random_log_normal_(tl_tensor_impl *t, double mean,
                                 double std, tl_generator *g);

/* Integers uniform on [low, low + range) (range 0 means 2^64) for any
 * non-complex t; the caller has checked that the bounds fit t's dtype
 * (tl_random_check_bounds).  Exact: rejection keeps every value equally
 * likely. */
TL_API int tl_random_integers_(tl_tensor_impl *t, int64_t low,
                               uint64_t range, tl_generator *g);

/* PyTorch's checks for integers on [low, high) into dtype dt (randint,
 * random_): TL_ERR_VALUE unless low < high and low and high - 1 are
 * within dt's range (floating dtypes: within +-2^digits).  `what` names
 * the op in the message.  Returns 0 or TL_ERR_VALUE. */
TL_API int tl_random_check_bounds(const char *what, tl_dtype dt,
                                  int64_t low, int64_t high,
                                  bool high_inclusive);

/* random_() with no bounds: [0, 2^digits] for floating dtypes (24 for
 * float32, 53 float64, 11 float16, 8 bfloat16), [0, max] for integers,
 * {0, 1} for bool. */
TL_API int tl_random_random_full_(tl_tensor_impl *t, tl_generator *g);

/* Exponential(lambd) for floating t: TL_ERR_VALUE unless lambd > 0. */
TL_API int tl_random_exponential_(tl_tensor_impl *t, double lambd,
                                  tl_generator *g);

/* Geometric(p) on {1, 2, ...} (trials up to the first success) for any
 * non-complex, non-bool t: TL_ERR_VALUE unless 0 < p < 1. */
TL_API int tl_random_geometric_(tl_tensor_impl *t, double p,
                                tl_generator *g);

/* Cauchy(median, sigma) for floating t: TL_ERR_VALUE unless sigma > 0. */
TL_API int tl_random_cauchy_(tl_tensor_impl *t, double median,
                             double sigma, tl_generator *g);

/* 1 with probability p, else 0, for any non-complex t: TL_ERR_VALUE
 * unless 0 <= p <= 1. */
TL_API int tl_random_bernoulli_(tl_tensor_impl *t, double p,
                                tl_generator *g);

/* As tl_random_bernoulli_ with one probability per element of t: p (any
 * real dtype) broadcast to t's shape; every p in [0, 1] (TL_ERR_VALUE). */
TL_API int tl_random_bernoulli_tensor_(tl_tensor_impl *t,
                                       tl_tensor_impl *p, tl_generator *g);

/* Poisson(rates[i]) for floating rates, a new tensor of rates' shape and
 * dtype: TL_ERR_VALUE for a negative, NaN or infinite rate.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_random_poisson(tl_tensor_impl *rates,
                                         tl_generator *g);

/* num_samples category indices per row of probs (1-D or 2-D, floating,
 * non-negative finite weights with a positive sum per row), drawn with or
 * without replacement; int64 of shape (num_samples) or (rows,
 * num_samples).  Without replacement num_samples must not exceed the
 * number of categories, nor the count of non-zero weights of any row.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_random_multinomial(tl_tensor_impl *probs,
                                             int64_t num_samples,
                                             bool replacement,
                                             tl_generator *g);

/* A random permutation of 0 .. n-1 written into the 1-D tensor t of n
 * elements (any non-complex, non-bool dtype that holds n - 1). */
TL_API int tl_random_randperm_(tl_tensor_impl *t, tl_generator *g);

TL_EXTERN_C_END

#endif /* TENSORLIB_RANDOM_H */
