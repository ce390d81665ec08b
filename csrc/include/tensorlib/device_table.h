/* tensorlib/device_table.h — the per-device kernel table.  Core never calls
 * a device API: for tensors that are not on the CPU it describes the work
 * (an elementwise loop over a built iterator, a reduction layout, a byte
 * copy between memory blocks) in the plain structs below and hands it to
 * the table row of the device type, which a plug-in (csrc/cuda) fills when
 * the extension starts.  An empty row means "built without that device".
 *
 * Public and C/C++-neutral (the .cu files of csrc/cuda include it): no
 * _Atomic, restrict or _Static_assert here.  See Note [Device kernel
 * table] in csrc/core/device_table.c for how core routes through it. */
#ifndef TENSORLIB_DEVICE_TABLE_H
#define TENSORLIB_DEVICE_TABLE_H

#include "tensorlib/alloc.h"
#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/status.h"
#include "tensorlib/streams.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

#define TL_DEVICE_OPS_ABI_VERSION 2 /* 2: op codes from the op table */

/* Operands of one elementwise launch at most (TL_ITER_MAX_OPERANDS). */
#define TL_DEV_MAX_OPERANDS 8

/* What an elementwise launch computes. */
typedef enum tl_dev_kind {
    TL_DEV_COPY = 0,   /* out = in, converted (ops: out, in) */
    TL_DEV_FILL,       /* out = value (ops: out; value in out's dtype) */
    TL_DEV_BINARY,     /* out = a <op> b (ops: out, a, b); op a
                          tl_binary_op, or TL_DEV_ADD_ALPHA */
    TL_DEV_UNARY,      /* out = op(a) (ops: out, a); op a tl_unary_op, or
                          TL_DEV_UNARY_COPY (floor/ceil/... of ints) */
    TL_DEV_WHERE,      /* out = cond ? a : b (ops: out, cond, a, b) */
    TL_DEV_CLAMP,      /* out = min(max(a, lo), hi) (ops: out, a, lo, hi) */
    TL_DEV_SCAN_ZERO,  /* *found = any element == 0 (ops: in) */
    TL_DEV_KIND_COUNT
} tl_dev_kind;

/* Op codes beyond the table's ops (csrc/core/ops.c asserts that both
 * stay above TL_BINARY_OP_COUNT / TL_UNARY_OP_COUNT and differ).
 * a + alpha * b (binary kind; the compute dtype's alpha in `value`): */
#define TL_DEV_ADD_ALPHA 256
/* A unary op that copies (floor, ceil, round, trunc of integers): */
#define TL_DEV_UNARY_COPY 257

/* 16 bytes holding one element of any dtype (complex128 included). */
typedef union tl_dev_value {
    unsigned char b[16];
    int64_t i[2];
    double f[2];
} tl_dev_value;

/* One operand.  Units: strides in bytes, in iteration order (the fastest
 * moving dim first), 0 on broadcast dims; may be negative. */
typedef struct tl_dev_operand {
    /* Device address of the element at index 0 of every dim, or NULL when
     * the operand is one value held in `scalar` (a CPU number). */
    char *data;
    int32_t dtype;        /* dtype of the memory at data (or of scalar) */
    int32_t target_dtype; /* dtype the op computes this operand in */
    tl_dev_value scalar;  /* when data == NULL */
    int64_t strides[TL_MAX_DIMS];
} tl_dev_operand;

/* An elementwise launch: the built iterator in plain form.  Outputs come
 * first.  The op reads each input converted from dtype to target_dtype,
 * computes, and writes each output converted from target_dtype to dtype
 * (Note [Element conversions] in csrc/core/kernels_copy.c gives the
 * conversions; the device must give the same results).  No output partly
 * overlaps an input; an output may be exactly an input (in place). */
typedef struct tl_dev_loop {
    int32_t ntensors;
    int32_t noutputs;
    int32_t ndim;                 /* >= 1 */
    tl_device device;
    int64_t numel;                /* >= 1: product of shape */
    int64_t shape[TL_MAX_DIMS];   /* iteration order, fastest first */
    tl_dev_operand ops[TL_DEV_MAX_OPERANDS];
} tl_dev_loop;

/* What to run over a tl_dev_loop. */
typedef struct tl_dev_op {
    int32_t kind;        /* a tl_dev_kind */
    int32_t op;          /* binary / unary op, as the kind says */
    tl_dev_value value;  /* alpha (compute dtype) or the fill value */
} tl_dev_op;

/* A reduction on a device: out[o] = reduce over r of in[o, r], for every
 * output element o (flat over the kept dims, dim 0 fastest) and reduced
 * index r (flat over the reduced dims, dim 0 fastest).  Byte strides.  The
 * accumulation rules are those of tensorlib/reduce.h ("Values"); the
 * result, of res_dtype, is written converted to out_dtype. */
typedef struct tl_dev_reduce {
    int32_t op;          /* TL_REDUCE_SUM, PROD, MEAN, AMAX, AMIN, MAX, MIN,
                            ANY or ALL */
    tl_device device;
    const char *in;      /* device address of input element (0, 0) */
    int32_t in_dtype;
    char *out;           /* device address of output element 0 */
    int32_t out_dtype;
    int32_t res_dtype;
    int32_t nk;          /* kept dims */
    int64_t ksize[TL_MAX_DIMS];
    int64_t kin[TL_MAX_DIMS];   /* input byte strides of the kept dims */
    int64_t kout[TL_MAX_DIMS];  /* output byte strides of the kept dims */
    int32_t nr;          /* reduced dims */
    int64_t rsize[TL_MAX_DIMS];
    int64_t rstride[TL_MAX_DIMS];
    int64_t nout;        /* product of ksize (>= 1) */
    int64_t M;           /* product of rsize (>= 1): reduced elements */
} tl_dev_reduce;

/* Flags of copy_bytes. */
#define TL_DEV_NON_BLOCKING 1u

/* One device type's row.  Every function records an error before it
 * returns a negative status.  Thread-safe. */
typedef struct tl_device_ops {
    uint32_t abi_version; /* TL_DEVICE_OPS_ABI_VERSION */
    const char *name;     /* "cuda" */
    /* Devices usable now: >= 0 (0 without a driver or a device: never an
     * error). */
    int (*device_count)(void);
    /* 0 when device index can be used; else records TL_ERR_RUNTIME ("no
     * CUDA device is available", "cuda:3 is not available (2 CUDA
     * devices)") and returns it. */
    int (*check_device)(int index);
    /* Waits until every stream of device index is idle. */
    int (*synchronize)(int index);
    /* Copies nbytes from src's memory at src_offset to dst's at
     * dst_offset; each block lives on the CPU or on a device of this
     * type.  Blocking unless TL_DEV_NON_BLOCKING: then it may return
     * before the copy finished, keeping src alive until it did, and
     * marking a CPU dst block pending (Note [Pending host reads] in
     * csrc/alloc/block.c), so that its first host read waits. */
    int (*copy_bytes)(tl_block *dst, size_t dst_offset, tl_block *src,
                      size_t src_offset, size_t nbytes, unsigned flags);
    /* Runs op over loop on loop->device's current stream. */
    int (*elementwise)(const tl_dev_loop *loop, const tl_dev_op *op);
    /* The scans (TL_DEV_SCAN_*): *found = 1 when some element matches.
     * Waits for the answer. */
    int (*scan)(const tl_dev_loop *loop, const tl_dev_op *op, int *found);
    /* Runs a reduction on r->device's current stream. */
    int (*reduce)(const tl_dev_reduce *r);
    /* Streams of device index (Note [Stream aware pools] in
     * csrc/alloc/pool.c says what allocation does with them). */
    int (*stream_new)(int index, int priority, tl_stream *out);
    int (*stream_free)(int index, tl_stream s);
    /* 1 when every piece of work queued on s finished, 0 when not. */
    int (*stream_query)(int index, tl_stream s);
    int (*stream_synchronize)(int index, tl_stream s);
    /* The calling thread's current stream on device index (0 until set). */
    tl_stream (*current_stream)(int index);
    int (*set_current_stream)(int index, tl_stream s);
    /* Marks that stream s uses b (a block of this device type), so that
     * its memory is not reused before the work queued on s by the time b
     * is freed completes. */
    int (*record_stream)(tl_block *b, tl_stream s);
} tl_device_ops;

/* Installs the row of device type t (a plug-in calls this once, at
 * start-up, before any tensor of that type exists).  ops must stay valid
 * for the process.  Errors: TL_ERR_VALUE (bad type or ABI version).
 * Returns 0 or an error. */
TL_API int tl_device_ops_register(int type, const tl_device_ops *ops);

/* Returns: borrowed row of device type t, or NULL after recording
 * TL_ERR_RUNTIME "tensorlib was built without CUDA" (for CUDA; the device
 * name otherwise). */
TL_API const tl_device_ops *tl_device_ops_get(int type);

/* Whether a row is installed for t (no error recorded). */
TL_API bool tl_device_ops_present(int type);

/* Checks that tensors can live on d: always for the CPU; for CUDA, that
 * the row is installed ("tensorlib was built without CUDA") and the device
 * is usable ("no CUDA device is available").  Errors: TL_ERR_RUNTIME.
 * Returns 0 or an error. */
TL_API int tl_device_require(tl_device d);

/* ---- core operations across devices (csrc/core/device_table.c) ---------- */

/* t on device dev in dtype dt (-1: t's): t itself (increfed) when it is
 * already there in that dtype and !copy, else a new tensor with t's layout
 * when t is non-overlapping and dense (else contiguous).  non_blocking:
 * see Note [Cross-device copies].  A CPU result of a non-blocking copy
 * from a device comes from the (cpu, HostPinned) allocator when one is
 * registered.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_to_device(tl_tensor_impl *t, tl_device dev,
                                       int dt, bool copy, bool non_blocking);

/* copy_ with non_blocking (tl_op_copy_ is this with false): dst and src
 * may be on different devices.  Returns 0 or an error. */
TL_API int tl_op_copy_nb_(tl_tensor_impl *dst, tl_tensor_impl *src,
                          bool non_blocking);

/* Marks that stream s of t's device uses t's memory (record_stream).
 * Errors: TL_ERR_VALUE for a CPU tensor or memory that no stream-aware
 * pool of the device handed out.  Returns 0 or an error. */
TL_API int tl_tensor_record_stream(tl_tensor_impl *t, tl_stream s);

TL_EXTERN_C_END

#endif /* TENSORLIB_DEVICE_TABLE_H */
