/* csrc/core/reduce_impl.h — internal: what the reduction driver
 * (reduce.c) and the reduction kernels (reduce_kernels.c) share: the
 * accumulator record, the reduced-index space, and the kernel table.  Not
 * part of the public API (see csrc/include/tensorlib/reduce.h). */
#ifndef TENSORLIB_CSRC_CORE_REDUCE_IMPL_H
#define TENSORLIB_CSRC_CORE_REDUCE_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/reduce_impl.h is internal to tensorlib"
#endif

#include <stdint.h>

#include "tensorlib/reduce.h"
#include "tensorlib/base.h"

/* Note [Reduction accumulators]
 * One record per (output element, chunk of reduced elements).  What the
 * four doubles hold depends on the kernel family and the input dtype:
 * - sum / prod of bool and integers: u[0], wrapping uint64;
 * - sum of float16/bfloat16/float32, prod of any real float: d[0];
 * - sum of float64: d[0] + d[1] (a compensated pair, hi and lo);
 * - sum / prod of complex64, prod of complex128: d[0] + i d[1];
 * - sum of complex128: re d[0] + d[2], im d[1] + d[3] (compensated);
 * - amax/amin and the value of argmax/argmin: s[0] (signed integers and
 *   bool), u[0] (unsigned), d[0] (floats, exact); idx the element's index
 *   along the reduced dim (arg families);
 * - any/all: u[0] (0 or 1);
 * - var/std (second pass): d[0] the sum of squared deviations, d[1] (and
 *   d[2] for complex) the sum of deviations (re, im);
 * - nansum/nanmean: d[0] + d[1] the sum of the non-NaN elements, u[2]
 *   their count;
 * - aminmax: the min as amin's record in slot 0 (s[0], u[0] or d[0]),
 *   the max in slot 1. */
typedef struct tl_racc {
    union {
        double d[4];
        uint64_t u[4];
        int64_t s[4];
    } v;
    int64_t idx;
} tl_racc;

/* The reduced dims of one output element: nr dims, dim 0 fastest, sizes and
 * byte strides into the input.  The flat reduced index r walks them with
 * dim 0 fastest. */
typedef struct tl_rspace {
    int nr;
    int64_t size[TL_MAX_DIMS];
    int64_t stride[TL_MAX_DIMS];
} tl_rspace;

/* Byte offset of flat reduced index r; fills idx (nr entries). */
static inline int64_t tl_rspace_seek(const tl_rspace *rs, int64_t r,
                                     int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < rs->nr; d++) {
        idx[d] = r % rs->size[d];
        r /= rs->size[d];
        off += idx[d] * rs->stride[d];
    }
    return off;
}

/* Advances idx by one; returns the new byte offset given the old one. */
static inline int64_t tl_rspace_next(const tl_rspace *rs, int64_t *idx,
                                     int64_t off)
{
    for (int d = 0; d < rs->nr; d++) {
        off += rs->stride[d];
        if (++idx[d] < rs->size[d]) {
            return off;
        }
        off -= rs->stride[d] * rs->size[d];
        idx[d] = 0;
    }
    return off;
}

/* Kernel families (one per accumulator meaning). */
enum {
    TL_RF_SUM = 0,
    TL_RF_PROD,
    TL_RF_MAX,
    TL_RF_MIN,
    TL_RF_ARGMAX,
    TL_RF_ARGMIN,
    TL_RF_ANY,
    TL_RF_ALL,
    TL_RF_VAR, /* second pass of var/std: aux holds each output's mean */
    TL_RF_NANSUM, /* nansum / nanmean of real floats (count in u[2]) */
    TL_RF_NANSUM_NC, /* nansum of real floats: u[2] not kept (Note
                        [Nansum without the count], reduce_kernels.c) */
    TL_RF_COUNT_NONZERO, /* wrapping uint64 count of x != 0 */
    TL_RF_AMINMAX, /* min in v slot 0, max in slot 1 (Note [Aminmax in
                      one read], reduce_kernels.c) */
    TL_RF_NORM2, /* var's record, mean 0, sumsq finish (Note [Norm rows
                    without the deviations], reduce_kernels.c) */
    TL_RF_COUNT
};

/* What finishing a record needs. */
typedef struct tl_rfinish {
    int64_t count;     /* reduced elements per output (N) */
    bool mean;         /* sum: divide by count */
    double correction; /* var */
    bool take_sqrt;    /* std */
    bool sumsq;        /* var's kernels as a plain sum of squares (norm2) */
} tl_rfinish;

/* Columns processed by one cols() call at most.  Over rows far apart (dim
 * 0 of a C-contiguous matrix) a cols() call reads a run of this many
 * columns from each row before the next row: runs of 2048 float32 (8 KiB)
 * rather than 512 keep the hardware prefetchers on each row (one thread,
 * Zen 4, dim 0 of 4096^2 from memory: float32 sum 1.07 -> 0.70 of NumPy's
 * time, float64 0.73 -> 0.61, int32 amin 1.04 -> 0.67).  A task still takes
 * a narrower block of outputs when that keeps threads busy (reduce.c,
 * outer_block). */
#define TL_REDUCE_TILE 2048

/* Note [Reduction chunks]
 * Work splits into tasks of (a block of outputs) x (a chunk of at most
 * TL_REDUCE_RCHUNK reduced elements).  Chunk boundaries depend only on M
 * (the reduced count), never on the thread count; a chunk's partial
 * records are combined pairwise in a fixed order after all tasks ran;
 * output blocks never change a value.  So results are bit-identical for
 * any number of threads.  The float accuracy of Note [Summation
 * accuracy] (reduce_kernels.c) depends on the chunk length: a run of up
 * to TL_REDUCE_RCHUNK elements accumulates in lanes before the pairwise
 * combination.  TL_REDUCE_TASK_WORK: the reduced elements one task aims
 * at (outputs per block = TASK_WORK / chunk length). */
#define TL_REDUCE_RCHUNK ((int64_t)32768)
#define TL_REDUCE_TASK_WORK ((int64_t)65536)

typedef struct tl_rkernel {
    /* dtype finish() writes. */
    int final_dtype;
    /* Partial results combine pairwise (sums) rather than in order. */
    bool pairwise;
    /* a = a (earlier elements) combined with b (later ones). */
    void (*combine)(tl_racc *a, const tl_racc *b);
    /* Reduces n >= 1 elements at p (byte stride s) into *res (overwritten).
     * idx0: reduced index of element 0 (arg families).  aux: this output's
     * auxiliary record (var: the mean), else NULL. */
    void (*row)(const char *p, int64_t n, int64_t s, int64_t idx0,
                const tl_racc *aux, tl_racc *res);
    /* For n <= TL_REDUCE_TILE columns (byte stride cs) starting at base:
     * reduces the rows r in [rb, re) of rs (row r of column j at
     * base + offset(r) + j * cs) into res[0..n) (overwritten).  The
     * reduced index of row r is r (arg families have one reduced dim).
     * aux: n auxiliary records, or NULL. */
    void (*cols)(const char *base, int64_t n, int64_t cs, const tl_rspace *rs,
                 int64_t rb, int64_t re, const tl_racc *aux, tl_racc *res);
    /* Writes the value of *a as final_dtype at dst (aligned). */
    void (*finish)(const tl_racc *a, const tl_rfinish *f, void *dst);
    /* any / all: a record whose v.u[0] is `absorb` (any: 1, all: 0)
     * decides the output whatever the other chunks hold, so a whole
     * reduction skips the chunks not yet started once one chunk gives it
     * (Note [Absorbing chunks] in reduce.c). */
    bool absorbs;
    uint64_t absorb;
    /* Optional (NULL: row() a row): reduces m rows of n >= 1 elements,
     * element byte stride s, row j at p + j * rs, into res[0..m), as m
     * calls row(p + j * rs, n, s, idx0, aux ? aux + j : NULL, res + j)
     * would, the same bits.  The driver's one-dim inner case calls it once
     * for a run of outputs (Note [Row runs], reduce_kernels.c). */
    void (*rows)(const char *p, int64_t m, int64_t rs, int64_t n, int64_t s,
                 int64_t idx0, const tl_racc *aux, tl_racc *res);
} tl_rkernel;

/* The kernel of family fam reading dtype dt, or NULL when the pair is not
 * supported. */
const tl_rkernel *tl_reduce_kernel_get(int fam, int dt);

/* Writes the values of the n records at a as k->final_dtype to dst[0..n)
 * (aligned, contiguous), as k->finish would one by one: the plain
 * finishes' loops without a call an element. */
void tl_reduce_finish_n(const tl_rkernel *k, const tl_racc *a, int64_t n,
                        const tl_rfinish *f, void *dst);

/* Tells the kernels that this thread's reduction reads `bytes` of input
 * in all, before it calls them: only how they read depends on it (Note
 * [Prefetch in the lane kernels], Note [Row folds over close rows]),
 * never a value. */
void tl_reduce_kernel_footprint(int64_t bytes);

#endif /* TENSORLIB_CSRC_CORE_REDUCE_IMPL_H */
