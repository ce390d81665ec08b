/* csrc/core/ops.c — the elementwise op entry points: binary and unary ops,
 * where and clamp.  Each one decides dtypes, validates everything (scanning
 * integer divisors and exponents first), builds a TensorIterator on the
 * stack, and runs the kernel from the tables in kernels_*.c.  Results come
 * from the iterator (tl_tensor_empty*); no data malloc here. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device_impl.h"
#include "iter_impl.h"
#include "kernels.h"
#include "op_grain.h"
#include "shape.h"

/* ---- the op table ------------------------------------------------------
 * Every row of TL_UNARY_OPS / TL_BINARY_OPS (tensorlib/op_table.h) as a
 * tl_op_info; the type checks below read these instead of naming ops. */

#define INFO_ROW(ID, name, py, set, res, impl, form, flags, hint, doc)      \
    {#name, #py, TL_OPSET_MASK(set), TL_OPR_##res, TL_OP_FLAGS(form, flags), \
     hint, doc},
static const tl_op_info unary_info[] = {TL_UNARY_OPS(INFO_ROW)};
static const tl_op_info binary_info[] = {TL_BINARY_OPS(INFO_ROW)};
#undef INFO_ROW
_Static_assert(sizeof unary_info / sizeof unary_info[0] == TL_UNARY_OP_COUNT,
               "one unary_info row per unary op");
_Static_assert(sizeof binary_info / sizeof binary_info[0] ==
                   TL_BINARY_OP_COUNT,
               "one binary_info row per binary op");

/* The device table's extra op codes (tensorlib/device_table.h) never
 * collide with a table op, nor with each other. */
_Static_assert(TL_BINARY_OP_COUNT < TL_DEV_ADD_ALPHA &&
                   TL_UNARY_OP_COUNT < TL_DEV_UNARY_COPY &&
                   TL_DEV_ADD_ALPHA != TL_DEV_UNARY_COPY,
               "device op codes collide with the op table");

#define ALIAS_ROW_U(alias, ID) {#alias, TL_UNARY_##ID},
#define ALIAS_ROW_B(alias, ID) {#alias, TL_BINARY_##ID},
static const struct {
    const char *name;
    int op;
} unary_aliases[] = {TL_UNARY_ALIASES(ALIAS_ROW_U)},
  binary_aliases[] = {TL_BINARY_ALIASES(ALIAS_ROW_B)};
#undef ALIAS_ROW_U
#undef ALIAS_ROW_B

const tl_op_info *tl_op_unary_info(int op)
{
    return op >= 0 && op < TL_UNARY_OP_COUNT ? &unary_info[op] : NULL;
}

const tl_op_info *tl_op_binary_info(int op)
{
    return op >= 0 && op < TL_BINARY_OP_COUNT ? &binary_info[op] : NULL;
}

int tl_op_binary_from_name(const char *name)
{
    for (int i = 0; i < TL_BINARY_OP_COUNT; i++) {
        if (strcmp(name, binary_info[i].name) == 0) {
            return i;
        }
    }
    for (size_t i = 0; i < sizeof binary_aliases / sizeof binary_aliases[0];
         i++) {
        if (strcmp(name, binary_aliases[i].name) == 0) {
            return binary_aliases[i].op;
        }
    }
    return -1;
}

const char *tl_op_binary_name(int op)
{
    return op >= 0 && op < TL_BINARY_OP_COUNT ? binary_info[op].name : NULL;
}

int tl_op_unary_from_name(const char *name)
{
    for (int i = 0; i < TL_UNARY_OP_COUNT; i++) {
        if (strcmp(name, unary_info[i].name) == 0) {
            return i;
        }
    }
    for (size_t i = 0; i < sizeof unary_aliases / sizeof unary_aliases[0];
         i++) {
        if (strcmp(name, unary_aliases[i].name) == 0) {
            return unary_aliases[i].op;
        }
    }
    return -1;
}

const char *tl_op_unary_name(int op)
{
    return op >= 0 && op < TL_UNARY_OP_COUNT ? unary_info[op].name : NULL;
}

/* The TL_OPCL_ class of a compute dtype (float16/bfloat16: F). */
static unsigned class_of(int dt)
{
    switch (tl_dtype_kind_of(dt)) {
    case TL_KIND_BOOL: return TL_OPCL_B;
    case TL_KIND_INT:
    case TL_KIND_UINT: return TL_OPCL_Z;
    case TL_KIND_FLOAT: return TL_OPCL_F;
    default: return TL_OPCL_C;
    }
}

/* float8 dtypes are storage dtypes: no set has them (arithmetic refuses
 * them as PyTorch does). */
int tl_op_set_has_dtype(unsigned set, tl_dtype dt)
{
    return tl_dtype_valid(dt) && !tl_dtype_is_float8(dt) &&
           (set & class_of(dt)) != 0;
}

int tl_op_unary_has_kernel(int op, tl_dtype dt)
{
    return tl_unary_kernel_get(op, dt) != NULL;
}

int tl_op_binary_has_kernel(int op, tl_dtype dt)
{
    return tl_binary_kernel_get(op, dt) != NULL;
}

/* Note [Grain per op]
 * ~~~~~~~~~~~~~~~~~~~
 * A thread's share of a loop must cost more than handing it over.  A
 * worker already spinning (Note [Spin before sleeping] in parallel.c)
 * takes its share within about 0.5 us here, so shares of 3-13 us of work
 * nearly halve an op's time on two threads.  One element count cannot
 * say that for every op: per element, the kernels cost from 0.02 ns
 * (isnan of int32) through 0.12 (add of float32), 0.45 (exp), 3.7 (tanh
 * of float64) to 120 ns (asinh of complex64).  With TL_ITER_GRAIN for all,
 * sin of 2^15 float32 took 25 us on one thread where two take 13.  So
 * each (op, compute-dtype kind) has the class of its measured cost
 * (op_grain.h, written by benchmarks/grain.py): grains of 32768, 8192,
 * 2048, 512 or 128 elements.  float16/bfloat16 take float32's class
 * (they compute in float32), every integer dtype int32's. */
static int grain_kind(tl_dtype dt)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16:
    case TL_DTYPE_BFLOAT16:
    case TL_DTYPE_FLOAT32:
        return 1;
    case TL_DTYPE_FLOAT64:
        return 2;
    case TL_DTYPE_COMPLEX64:
        return 3;
    case TL_DTYPE_COMPLEX128:
        return 4;
    default:
        return tl_dtype_is_intlike(dt) ? 0 : -1;
    }
}

static int64_t grain_of(const char *cls, tl_dtype dt)
{
    const int k = grain_kind(dt);
    if (k < 0 || cls[k] < 'a' || cls[k] > 'e') {
        return 0;
    }
    return (int64_t)32768 >> (2 * (cls[k] - 'a'));
}

int64_t tl_op_unary_grain(int op, tl_dtype dt)
{
    if (op < 0 || op >= TL_UNARY_OP_COUNT || !tl_dtype_valid(dt)) {
        return 0;
    }
    return grain_of(unary_grain[op], dt);
}

int64_t tl_op_binary_grain(int op, tl_dtype dt)
{
    if (op < 0 || op >= TL_BINARY_OP_COUNT || !tl_dtype_valid(dt)) {
        return 0;
    }
    return grain_of(binary_grain[op], dt);
}

/* ---- helpers ------------------------------------------------------------ */

static const char *dname(int dt) { return tl_dtype_table[dt].name; }

/* float16 and bfloat16 compute in float32. */
static int kernel_dtype(int dt)
{
    return dt == TL_DTYPE_FLOAT16 || dt == TL_DTYPE_BFLOAT16
               ? TL_DTYPE_FLOAT32
               : dt;
}

/* Scans t, read as the integral dtype dt, for a zero (on a device: the
 * table's TL_DEV_SCAN_ZERO).  Returns 1 when it holds one, 0 when not, or
 * an error. */
static int scan_for_zero(tl_tensor_impl *t, int dt)
{
    tl_iter it;
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_input(&c, t);
    c.static_dtype = dt;
    c.check_mem_overlap = false;
    c.device_kernels = true;
    int rc = tl_iter_build(&it, &c);
    if (rc < 0) {
        return rc;
    }
    int flag = 0;
    if (it.device.type != TL_DEVICE_CPU) {
        flag = tl_device_scan(&it, TL_DEV_SCAN_ZERO);
    } else {
        tl_iter_for_each(&it, tl_scan_zero_kernel_get(dt), &flag);
    }
    tl_iter_release(&it);
    return flag;
}

/* numel of the broadcast of n tensors (0 on error: the iterator reports
 * it later). */
static int64_t broadcast_numel(int n, tl_tensor_impl *const *ts)
{
    int ndims[4];
    const int64_t *sizes[4];
    int64_t shape[TL_MAX_DIMS];
    int nd, m = 0;
    for (int i = 0; i < n; i++) {
        if (ts[i]) {
            ndims[m] = ts[i]->ndim;
            sizes[m] = ts[i]->sizes;
            m++;
        }
    }
    if (tl_iter_infer_size(m, ndims, sizes, &nd, shape) < 0) {
        tl_error_clear();
        return 1; /* let the iterator report the shape error */
    }
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        numel *= shape[d];
    }
    return numel;
}

/* Runs kernel over an iterator built from c, with float16/bfloat16
 * computed in float32: inputs whose target is `compute` and outputs whose
 * target is `compute` are switched to kdt.  On a device, the table runs
 * dev (kind, op, 16 value bytes or NULL) instead (Note [Device kernel
 * table]).  Returns: new reference to output 0, or NULL. */
static tl_tensor_impl *run_op(tl_iter_config *c, tl_iter_loop2d kernel,
                              void *ctx, int compute, int kdt,
                              const bool *keep_dtype, int dev_kind,
                              int dev_op, const void *dev_value);

/* Note [Rounding through float16]
 * float16/bfloat16 ops run float32 kernels (kdt): an operand read as the
 * compute dtype is retargeted to float32.  That is exact only for memory
 * that already holds compute-dtype values (and for the output, whose
 * float32 result is then rounded once on write).  An int16/int32/int64
 * input must first round to the compute dtype (int64 2049 + float16 0.5
 * is 2048 + 0.5 = 2048 in PyTorch and NumPy, not 2049.5 -> 2050), and a
 * wider out= (float32, float64, complex) must receive the float16-rounded
 * result, not the float32 one.  The iterator converts once, so such
 * operands take this slower path: inputs are converted to the compute
 * dtype first, the result goes to a compute-dtype temporary, and that is
 * copied (cast) into out.  The first build has already validated
 * everything (shapes, casts, writability, overlap), so only allocation
 * can fail from here. */
static tl_tensor_impl *run_op_rounded(const tl_iter_config *c,
                                      const bool *convert,
                                      tl_iter_loop2d kernel, void *ctx,
                                      int compute, int kdt,
                                      const bool *keep_dtype, int dev_kind,
                                      int dev_op, const void *dev_value)
{
    tl_iter_config c2 = *c;
    tl_tensor_impl *tmp[TL_ITER_MAX_OPERANDS] = {NULL};
    tl_tensor_impl *res = NULL, *out = NULL;
    const int nt = c->noutputs + c->ninputs;
    for (int k = c->noutputs; k < nt; k++) {
        if (convert[k]) {
            tmp[k] = tl_op_to_dtype(c->operands[k], (tl_dtype)compute, false);
            if (!tmp[k]) {
                goto cleanup;
            }
            c2.operands[k] = tmp[k];
        }
    }
    if (convert[0]) {
        out = c->operands[0];
        c2.operands[0] = NULL; /* a compute-dtype temporary */
    }
    res = run_op(&c2, kernel, ctx, compute, kdt, keep_dtype, dev_kind,
                 dev_op, dev_value);
    if (res && out) {
        int rc = tl_op_copy_(out, res);
        tl_tensor_decref(res);
        res = NULL;
        if (rc == 0) {
            tl_tensor_incref(out);
            res = out;
        }
    }
cleanup:
    for (int k = 0; k < nt; k++) {
        tl_tensor_decref(tmp[k]);
    }
    return res;
}

static tl_tensor_impl *run_op(tl_iter_config *c, tl_iter_loop2d kernel,
                              void *ctx, int compute, int kdt,
                              const bool *keep_dtype, int dev_kind,
                              int dev_op, const void *dev_value)
{
    tl_iter it;
    bool convert[TL_ITER_MAX_OPERANDS] = {false};
    bool rounded = false;
    c->device_kernels = true;
    if (tl_iter_build(&it, c) < 0) {
        return NULL;
    }
    for (int k = 0; k < it.ntensors; k++) {
        if (keep_dtype && keep_dtype[k]) {
            tl_iter_set_target_dtype(&it, k,
                                     (tl_dtype)it.ops[k].original->dtype);
        } else if (it.ops[k].target_dtype == compute && kdt != compute) {
            /* Note [Rounding through float16]: only the single output
             * (every caller here has one) or an input may need it. */
            if (it.ops[k].dtype != compute &&
                it.device.type == TL_DEVICE_CPU &&
                (k >= it.noutputs || k == 0)) {
                convert[k] = rounded = true;
            }
            tl_iter_set_target_dtype(&it, k, (tl_dtype)kdt);
        }
    }
    if (rounded) {
        tl_iter_release(&it);
        return run_op_rounded(c, convert, kernel, ctx, compute, kdt,
                              keep_dtype, dev_kind, dev_op, dev_value);
    }
    if (it.device.type != TL_DEVICE_CPU) {
        if (tl_device_run(&it, dev_kind, dev_op, dev_value) < 0) {
            tl_iter_release(&it);
            return NULL;
        }
    } else {
        tl_iter_for_each(&it, kernel, ctx);
    }
    tl_tensor_impl *out = tl_iter_output(&it, 0);
    tl_iter_release(&it);
    if (c->operands[0]) {
        tl_tensor_bump_version(c->operands[0]);
    }
    return out;
}

/* ---- binary ops --------------------------------------------------------- */

/* The op's compute and result dtypes from its row (tensorlib/op_table.h):
 * the result rule applied to dt (the promoted input dtype), then the set
 * of compute dtypes with kernels.  operands names the input dtypes in the
 * refusal (NULL: dt). */
static int row_types(const tl_op_info *row, int dt, const char *operands,
                     int *compute, int *result)
{
    *compute = *result = dt;
    switch (row->res) {
    case TL_OPR_FLOAT:
        if (tl_dtype_is_intlike(dt)) {
            *compute = *result = TL_DEFAULT_FLOAT;
        }
        break;
    case TL_OPR_BOOL:
        *result = TL_DTYPE_BOOL;
        break;
    case TL_OPR_LOGICAL:
        *compute = *result = TL_DTYPE_BOOL;
        break;
    case TL_OPR_DOUBLE:
        *compute = *result = tl_dtype_kind_of(dt) == TL_KIND_COMPLEX
                                 ? TL_DTYPE_COMPLEX128
                                 : TL_DTYPE_FLOAT64;
        break;
    case TL_OPR_REAL:
        if (dt == TL_DTYPE_COMPLEX64) {
            *result = TL_DTYPE_FLOAT32;
        } else if (dt == TL_DTYPE_COMPLEX128) {
            *result = TL_DTYPE_FLOAT64;
        }
        break;
    default:
        break;
    }
    const int k = tl_dtype_kind_of(*compute);
    if ((row->flags & TL_OPF_BOOL_AS_INT64) && k == TL_KIND_BOOL) {
        *compute = *result = TL_DTYPE_INT64;
    }
    if ((row->flags & TL_OPF_INT_IDENTITY) &&
        (k == TL_KIND_INT || k == TL_KIND_UINT)) {
        return 0; /* a copy */
    }
    if (!tl_op_set_has_dtype(row->set, (tl_dtype)*compute)) {
        return tl_error(TL_ERR_TYPE, "%s is not supported for %s%s",
                        row->name, operands ? operands : dname(*compute),
                        row->hint);
    }
    return 0;
}

/* compute: the dtype inputs are read as; result: the output's. */
static int binary_types(int op, tl_tensor_impl *a, tl_tensor_impl *b,
                        int *compute, int *result)
{
    const tl_op_info *row = &binary_info[op];
    tl_tensor_impl *ab[2] = {a, b};
    if ((row->flags & TL_OPF_NO_BOOL_OPERAND) &&
        (a->dtype == TL_DTYPE_BOOL || b->dtype == TL_DTYPE_BOOL)) {
        return tl_error(TL_ERR_TYPE, "%s is not supported for bool operands "
                        "(%s and %s)%s", row->name, dname(a->dtype),
                        dname(b->dtype), row->hint);
    }
    return row_types(row, (int)tl_result_type(2, ab), NULL, compute, result);
}

int tl_op_binary_result_type(int op, tl_tensor_impl *a, tl_tensor_impl *b,
                             tl_dtype *out)
{
    int compute, result;
    if (op < 0 || op >= TL_BINARY_OP_COUNT) {
        return tl_error(TL_ERR_VALUE, "unknown binary op %d", op);
    }
    int rc = binary_types(op, a, b, &compute, &result);
    if (rc == 0) {
        *out = (tl_dtype)result;
    }
    return rc;
}

/* alpha's kind may not rise above the result's (PyTorch's rule): a bool
 * alpha only for bool results, a float one not for integers, a complex
 * one only for complex results. */
static int check_alpha(const tl_scalar *alpha, int dt)
{
    int k = tl_dtype_kind_of(dt);
    if (alpha->kind == TL_KIND_BOOL && dt != TL_DTYPE_BOOL) {
        return tl_error(TL_ERR_TYPE,
                        "alpha: a bool alpha needs a bool result, not %s",
                        dname(dt));
    }
    if ((k == TL_KIND_BOOL || k == TL_KIND_INT || k == TL_KIND_UINT) &&
        (alpha->kind == TL_KIND_FLOAT || alpha->kind == TL_KIND_COMPLEX)) {
        return tl_error(TL_ERR_TYPE,
                        "alpha: a %s alpha cannot scale a result of dtype "
                        "%s; pass an integer alpha or float operands",
                        alpha->kind == TL_KIND_FLOAT ? "float" : "complex",
                        dname(dt));
    }
    if (k != TL_KIND_COMPLEX && alpha->kind == TL_KIND_COMPLEX) {
        return tl_error(TL_ERR_TYPE,
                        "alpha: a complex alpha needs a complex result, not "
                        "%s", dname(dt));
    }
    return 0;
}

/* A Python scalar (alpha of add/sub, a bound of clamp) must survive its
 * conversion to the compute dtype dt, as PyTorch's checked conversion
 * (c10::overflows) does: an integer must fit (an unsigned type also takes
 * negatives down to -max, which wrap: uint8 alpha=-1 is allowed); a
 * finite float must not exceed the type's largest finite value (float16:
 * 65504; inf passes).  sub is add with -alpha, so -alpha is judged (int8
 * sub alpha=128 is fine, alpha=-128 is not).  Without this, int8
 * alpha=300 silently became 44, float32 alpha=1e40 became inf and int8
 * clamp(max=300) clamped at 44.  `what` names the argument. */
static int check_scalar_fits(const tl_scalar *alpha, int dt, bool negate,
                             const char *what)
{
    const int k = tl_dtype_kind_of(dt);
    bool ok = true;
    if ((k == TL_KIND_INT || k == TL_KIND_UINT) &&
        alpha->kind != TL_KIND_FLOAT && alpha->kind != TL_KIND_COMPLEX) {
        /* |alpha| and its sign, without overflowing on INT64_MIN. */
        bool neg = false;
        uint64_t mag;
        if (alpha->kind == TL_KIND_UINT) {
            mag = alpha->v.u;
        } else {
            neg = alpha->v.i < 0;
            mag = neg ? (uint64_t)0 - (uint64_t)alpha->v.i
                      : (uint64_t)alpha->v.i;
        }
        if (negate && mag != 0) {
            neg = !neg;
        }
        const int bits = (int)tl_dtype_table[dt].itemsize * 8;
        if (k == TL_KIND_INT) {
            const uint64_t max = (UINT64_C(1) << (bits - 1)) - 1;
            ok = neg ? mag <= max + 1 : mag <= max;
        } else {
            const uint64_t max = bits == 64 ? UINT64_MAX
                                            : (UINT64_C(1) << bits) - 1;
            ok = mag <= max;
        }
    } else if (k == TL_KIND_FLOAT || k == TL_KIND_COMPLEX) {
        double max = DBL_MAX;
        switch (dt) {
        case TL_DTYPE_FLOAT16: max = 65504.0; break;
        case TL_DTYPE_BFLOAT16: max = 0x1.fep127; break;
        case TL_DTYPE_FLOAT32:
        case TL_DTYPE_COMPLEX64: max = FLT_MAX; break;
        default: break;
        }
        double parts[2] = {0, 0};
        if (alpha->kind == TL_KIND_FLOAT) {
            parts[0] = alpha->v.f;
        } else if (alpha->kind == TL_KIND_COMPLEX) {
            parts[0] = alpha->v.c[0];
            parts[1] = alpha->v.c[1];
        } else if (alpha->kind == TL_KIND_UINT) {
            parts[0] = (double)alpha->v.u;
        } else {
            parts[0] = (double)alpha->v.i;
        }
        for (int i = 0; i < 2; i++) {
            if (isfinite(parts[i]) && fabs(parts[i]) > max) {
                ok = false;
            }
        }
    }
    if (!ok) {
        char buf[64];
        switch (alpha->kind) {
        case TL_KIND_UINT:
            snprintf(buf, sizeof buf, "%" PRIu64, alpha->v.u);
            break;
        case TL_KIND_FLOAT:
            snprintf(buf, sizeof buf, "%g", alpha->v.f);
            break;
        case TL_KIND_COMPLEX:
            snprintf(buf, sizeof buf, "(%g%+gj)", alpha->v.c[0],
                     alpha->v.c[1]);
            break;
        default:
            snprintf(buf, sizeof buf, "%" PRId64, alpha->v.i);
            break;
        }
        return tl_error(TL_ERR_OVERFLOW,
                        "%s %s is out of range for %s", what, buf,
                        dname(dt));
    }
    return 0;
}

/* check_scalar_fits for an operand that is a Python scalar (a wrapped
 * number); any other tensor passes.  ints_only: judge only integer
 * scalars going into integer dtypes (where(), whose float scalars
 * PyTorch converts unchecked).  Returns 0 or an error. */
static int check_wrapped_fits(tl_tensor_impl *t, int dt, bool ints_only,
                              const char *what)
{
    tl_scalar v;
    const int k = tl_dtype_kind_of(dt);
    if (!t || !(t->flags & TL_FLAG_WRAPPED_NUMBER) ||
        (ints_only && k != TL_KIND_INT && k != TL_KIND_UINT)) {
        return 0;
    }
    if (tl_tensor_item(t, &v) < 0) {
        return tl_error_kind();
    }
    if (ints_only && (v.kind == TL_KIND_FLOAT || v.kind == TL_KIND_COMPLEX)) {
        return 0;
    }
    return check_scalar_fits(&v, dt, false, what);
}

/* Note [Logical ops in the common dtype]: logical_and/or/xor test each
 * input for nonzero after its cast to the operands' common dtype, as
 * PyTorch and NumPy do.  The kernels test in bool directly, which is the
 * same for every operand whose dtype the common dtype widens; only a 0-d
 * operand (which does not set the common dtype against a dimensioned
 * one) can lose its nonzero value in the cast: int8 with a 0-d int16 256
 * (0 in int8), float16 with a 0-d float64 1e-10.  Such an operand is
 * converted first (one element), then the op runs as usual. */
static tl_tensor_impl *logical_in_common_dtype(int op, tl_tensor_impl *out,
                                               tl_tensor_impl *a,
                                               tl_tensor_impl *b,
                                               tl_dtype common)
{
    tl_tensor_impl *ca = NULL, *cb = NULL, *r = NULL;
    /* Only the 0-d operands: a dimensioned one keeps its dtype (and its
     * memory: no copy of a big tensor). */
    if (!(ca = a->ndim == 0 ? tl_op_to_dtype(a, common, false)
                            : (tl_tensor_incref(a), a)) ||
        !(cb = b->ndim == 0 ? tl_op_to_dtype(b, common, false)
                            : (tl_tensor_incref(b), b))) {
        goto done;
    }
    r = tl_op_binary(op, out, ca, cb, NULL);
done:
    tl_tensor_decref(ca);
    tl_tensor_decref(cb);
    return r;
}

/* Note [Same-layout fast path]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The commonest small ops -- CPU tensors of one shape, all contiguous and
 * aligned and of the dtype the op computes and returns, or 0-d ones (a
 * Python scalar's wrapped number), no out= -- need none of the iterator:
 * no broadcast beyond the scalars, no buffer, no overlap (the output is
 * fresh), no thread split (at most the op's grain).  tl_op_binary and
 * tl_op_unary try it after every refusal of the general path has run
 * (dtypes, alpha, integer division by zero, negative powers): a 0-d input
 * is converted to the compute dtype as the iterator inlines it, the
 * output is made as the iterator's same-shape set-up makes it
 * (tl_tensor_empty of the inputs' sizes, default memory kind), and the
 * kernel runs once over numel elements, zero strides for the scalars:
 * about 750 instructions less of `a + b` on 10 floats (issue 22).  The
 * operands' liveness checks (a stale workspace tensor, a storage shrunk
 * under the view) run as the iterator runs them.  Returns 1 with *res set
 * (a new reference, or NULL after an error), or 0: not this case, the
 * iterator's turn. */
static int same_layout_run(tl_iter_loop2d kernel, void *ctx, int compute,
                           int nin, tl_tensor_impl *const *ins,
                           int64_t grain, tl_tensor_impl **res)
{
    const uint32_t need = TL_FLAG_CONTIGUOUS | TL_FLAG_ALIGNED;
    const tl_tensor_impl *ref = NULL;
    for (int k = 0; k < nin; k++) {
        const tl_tensor_impl *t = ins[k];
        if (t->device.type != TL_DEVICE_CPU) {
            return 0;
        }
        if (t->ndim == 0) {
            continue;
        }
        if ((int)t->dtype != compute || (t->flags & need) != need) {
            return 0;
        }
        if (!ref) {
            ref = t;
        } else if (!tl_sizes_equal(t, ref->ndim, ref->sizes)) {
            return 0;
        }
    }
    if (!ref || ref->numel == 0 || ref->numel > grain) {
        return 0;
    }
    for (int k = 0; k < nin; k++) {
        if (tl_tensor_check_live(ins[k]) < 0) {
            *res = NULL;
            return 1;
        }
    }
    tl_tensor_impl *o = tl_tensor_empty(ref->ndim, ref->sizes,
                                        (tl_dtype)compute, tl_device_cpu(),
                                        TL_MEMKIND_DEFAULT);
    if (!o) {
        *res = NULL;
        return 1;
    }
    const int64_t item = tl_itemsize((tl_dtype)compute);
    char *ptrs[3];
    int64_t st[6] = {0, 0, 0, 0, 0, 0};
    _Alignas(16) unsigned char scalar[2][16];
    ptrs[0] = tl_impl_data(o);
    st[0] = item;
    for (int k = 0; k < nin; k++) {
        const tl_tensor_impl *t = ins[k];
        if (t->ndim == 0) {
            tl_cvt_get(t->dtype, (tl_dtype)compute)((char *)scalar[k], 0,
                                                    tl_impl_data(t), 0, 1);
            ptrs[k + 1] = (char *)scalar[k];
        } else {
            ptrs[k + 1] = tl_impl_data(t);
            st[k + 1] = item;
        }
    }
    kernel(ptrs, st, ref->numel, 1, ctx);
    *res = o;
    return 1;
}

tl_tensor_impl *tl_op_binary(int op, tl_tensor_impl *out, tl_tensor_impl *a,
                             tl_tensor_impl *b, const tl_scalar *alpha)
{
    int compute, result, rc;
    if (op < 0 || op >= TL_BINARY_OP_COUNT) {
        tl_error(TL_ERR_VALUE, "unknown binary op %d", op);
        return NULL;
    }
    const tl_op_info *row = &binary_info[op];
    if (!a || !b) {
        tl_error(TL_ERR_VALUE, "%s: an operand is NULL", row->name);
        return NULL;
    }
    if (alpha && !(row->flags & TL_OPF_ALPHA)) {
        /* Only add and sub scale their second operand; silently ignoring
         * alpha (mul(a, b, alpha=2) == a * b) would hide a caller's
         * mistake.  PyTorch's other ops have no alpha argument either. */
        tl_error(TL_ERR_TYPE, "%s() got an unexpected keyword argument "
                 "'alpha'", row->name);
        return NULL;
    }
    if (binary_types(op, a, b, &compute, &result) < 0) {
        return NULL;
    }
    if (row->res == TL_OPR_DOUBLE && out && (int)out->dtype != result) {
        /* PyTorch's rule for float_power: no cast on the way out. */
        tl_error(TL_ERR_TYPE, "the output given to %s has dtype %s but the "
                 "operation's result requires dtype %s", row->name,
                 dname(out->dtype), dname(result));
        return NULL;
    }
    if ((row->flags & TL_OPF_LOGICAL_COMMON) &&
        (a->ndim == 0 || b->ndim == 0) && a->dtype != b->dtype) {
        tl_tensor_impl *ab[2] = {a, b};
        const int common = (int)tl_result_type(2, ab);
        if ((a->ndim == 0 && a->dtype != common) ||
            (b->ndim == 0 && b->dtype != common)) {
            return logical_in_common_dtype(op, out, a, b,
                                           (tl_dtype)common);
        }
    }
    const int kdt = (row->flags & TL_OPF_HALF_IN_DTYPE)
                        ? compute
                        : kernel_dtype(compute);
    int kop = op;
    tl_kernel_ctx kctx;
    memset(&kctx, 0, sizeof kctx);
    if (alpha) { /* add or sub (TL_OPF_ALPHA) */
        if (check_alpha(alpha, compute) < 0 ||
            check_scalar_fits(alpha, compute, op == TL_BINARY_SUB,
                              "alpha") < 0) {
            return NULL;
        }
        unsigned char one[16] = {0};
        tl_scalar s1 = tl_scalar_int(1);
        memset(kctx.alpha, 0, sizeof kctx.alpha);
        tl_scalar_cast(alpha, kdt, kctx.alpha);
        tl_scalar_cast(&s1, kdt, one);
        if (memcmp(one, kctx.alpha, sizeof one) != 0) {
            if (op == TL_BINARY_SUB) {
                /* a - alpha * b == a + (-alpha) * b, exactly. */
                unsigned char neg[16];
                char *ptrs[2] = {(char *)neg, (char *)kctx.alpha};
                int64_t st[4] = {0, 0, 0, 0};
                tl_unary_kernel_get(TL_UNARY_NEG, kdt)(ptrs, st, 1, 1, NULL);
                memcpy(kctx.alpha, neg, sizeof neg);
            }
            kop = TL_KERNEL_ADD_ALPHA;
        }
    }
    tl_iter_loop2d kernel = tl_binary_kernel_get(kop, kdt);
    if (!kernel) {
        tl_error(TL_ERR_TYPE, "%s is not supported for %s", row->name,
                 dname(compute));
        return NULL;
    }

    /* Integer division by zero and negative integer powers are refused
     * before anything is allocated or written. */
    tl_tensor_impl *ab[2] = {a, b};
    const bool int_compute = tl_dtype_kind_of(compute) == TL_KIND_INT ||
                             tl_dtype_kind_of(compute) == TL_KIND_UINT;
    if (int_compute && (row->flags & TL_OPF_ZERO_DIV) &&
        broadcast_numel(2, ab) > 0) {
        rc = scan_for_zero(b, compute);
        if (rc < 0) {
            return NULL;
        }
        if (rc) {
            tl_error(TL_ERR_ZERO_DIVISION,
                     "integer division or modulo by zero (%s of %s "
                     "tensors)", row->name, dname(compute));
            return NULL;
        }
    }
    /* Note [Negative integer powers]: as PyTorch, only a Python-scalar
     * exponent below 0 is refused (t ** -1 on integers: there is no
     * integer answer to give).  Tensor exponents, 0-d ones included, take
     * PyTorch's integer powi: 1 ** -n == 1, (-1) ** -n == +-1, anything
     * else ** -n == 0.  The scalar's sign is judged as given, before the
     * cast to the compute dtype: uint8 ** -1 is refused although -1 casts
     * to 255, and a scalar that the result dtype cannot hold (int8 **
     * 255, float16 ** 70000) is an overflow, as PyTorch's conversion of
     * the exponent to an integer or half type; float32/float64 results
     * take any float exponent.  Empty operands are judged too, as
     * PyTorch does. */
    const bool half_result = result == TL_DTYPE_FLOAT16 ||
                             result == TL_DTYPE_BFLOAT16;
    if ((row->flags & TL_OPF_POW_EXPONENT) && (int_compute || half_result) &&
        (b->flags & TL_FLAG_WRAPPED_NUMBER)) {
        tl_scalar e;
        if (tl_tensor_item(b, &e) < 0) {
            return NULL;
        }
        if (int_compute && e.kind == TL_KIND_INT && e.v.i < 0) {
            tl_error(TL_ERR_VALUE, "pow: an integer tensor (%s) to the "
                     "negative power %" PRId64 " has no integer result; "
                     "use a float tensor or exponent", dname(compute),
                     e.v.i);
            return NULL;
        }
        if (check_scalar_fits(&e, result, false, "exponent") < 0) {
            return NULL;
        }
    }

    const int64_t grain = tl_op_binary_grain(op, (tl_dtype)compute);
    tl_tensor_impl *fast;
    if (!out && result == compute && kdt == compute &&
        same_layout_run(kernel, &kctx, compute, 2, ab,
                        grain > 0 ? grain : TL_ITER_GRAIN, &fast)) {
        return fast; /* Note [Same-layout fast path] */
    }
    tl_iter_config c;
    tl_iter_config_init(&c);
    c.grain = grain; /* Note [Grain per op] */
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, b);
    c.static_dtype = compute;
    c.output_dtype = result;
    c.cast_common_dtype_to_outputs = true;
    c.enforce_safe_casting_to_output = true;
    return run_op(&c, kernel, &kctx, compute, kdt, NULL, TL_DEV_BINARY,
                  kop == TL_KERNEL_ADD_ALPHA ? TL_DEV_ADD_ALPHA : op,
                  kctx.alpha);
}

/* ---- unary ops ---------------------------------------------------------- */

static int unary_types(int op, int a, int *compute, int *result)
{
    return row_types(&unary_info[op], a, NULL, compute, result);
}

int tl_op_unary_result_type(int op, tl_dtype a, tl_dtype *out)
{
    int compute, result;
    if (op < 0 || op >= TL_UNARY_OP_COUNT || !tl_dtype_valid(a)) {
        return tl_error(TL_ERR_VALUE, "unknown unary op %d or dtype %d", op,
                        (int)a);
    }
    int rc = unary_types(op, a, &compute, &result);
    if (rc == 0) {
        *out = (tl_dtype)result;
    }
    return rc;
}

tl_tensor_impl *tl_op_unary(int op, tl_tensor_impl *out, tl_tensor_impl *a)
{
    int compute, result;
    if (op < 0 || op >= TL_UNARY_OP_COUNT) {
        tl_error(TL_ERR_VALUE, "unknown unary op %d", op);
        return NULL;
    }
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s: the operand is NULL", unary_info[op].name);
        return NULL;
    }
    if (unary_types(op, a->dtype, &compute, &result) < 0) {
        return NULL;
    }
    const int kdt = kernel_dtype(compute);
    tl_iter_loop2d kernel;
    int dev_op = op;
    if ((unary_info[op].flags & TL_OPF_INT_IDENTITY) &&
        tl_dtype_is_intlike(compute)) {
        kernel = tl_copy_loop_get(compute, compute); /* a copy, as PyTorch */
        dev_op = TL_DEV_UNARY_COPY;
    } else {
        kernel = tl_unary_kernel_get(op, kdt);
    }
    if (!kernel) {
        tl_error(TL_ERR_TYPE, "%s is not supported for %s",
                 unary_info[op].name,
                 dname(compute));
        return NULL;
    }
    const int64_t grain = tl_op_unary_grain(op, (tl_dtype)compute);
    tl_tensor_impl *fast;
    if (!out && result == compute && kdt == compute &&
        same_layout_run(kernel, NULL, compute, 1, &a,
                        grain > 0 ? grain : TL_ITER_GRAIN, &fast)) {
        return fast; /* Note [Same-layout fast path] */
    }
    tl_iter_config c;
    tl_iter_config_init(&c);
    c.grain = grain; /* Note [Grain per op] */
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, a);
    c.static_dtype = compute;
    c.output_dtype = result;
    c.cast_common_dtype_to_outputs = true;
    c.enforce_safe_casting_to_output = true;
    /* abs of complex: the output (float32/float64) is already what the
     * kernel writes, so only switch what equals compute. */
    return run_op(&c, kernel, NULL, compute, kdt, NULL, TL_DEV_UNARY, dev_op,
                  NULL);
}

/* Note [Rounding to decimals]: round(x, decimals=d) is NumPy's recipe,
 * one op at a time in x's dtype: y = x * 10^d (x / 10^-d for d < 0), y =
 * round-half-even(y), result = y / 10^d (y * 10^-d).  10^|d| is a double
 * (inf beyond 10^308, so huge d gives NaN as in NumPy and PyTorch), cast
 * to x's dtype as a Python scalar is; float16/bfloat16 round after each
 * step, as NumPy's half loops do.  Only the last step writes out, so a
 * refused out= or a failure leaves every operand as it was. */
tl_tensor_impl *tl_op_round_decimals(tl_tensor_impl *out, tl_tensor_impl *a,
                                     int64_t decimals)
{
    int compute, result;
    if (decimals == 0 || !a) {
        return tl_op_unary(TL_UNARY_ROUND, out, a);
    }
    if (unary_types(TL_UNARY_ROUND, a->dtype, &compute, &result) < 0) {
        return NULL;
    }
    if (tl_dtype_is_intlike(compute)) {
        if (decimals > 0) { /* integers already have no decimals */
            return tl_op_unary(TL_UNARY_ROUND, out, a);
        }
        tl_error(TL_ERR_TYPE, "round(decimals=%" PRId64 ") is not supported "
                 "for %s tensors: convert to a float dtype first", decimals,
                 dname(compute));
        return NULL;
    }
    const bool up = decimals > 0; /* scale up first, else down */
    const double mag = up ? (double)decimals : -(double)decimals;
    tl_scalar ten_s = tl_scalar_float(pow(10.0, mag));
    tl_tensor_impl *ten = NULL, *y = NULL, *r = NULL, *res = NULL;
    if (!(ten = tl_scalar_to_tensor(&ten_s))) {
        goto done;
    }
    if (!(y = tl_op_binary(up ? TL_BINARY_MUL : TL_BINARY_DIV, NULL, a, ten,
                           NULL))) {
        goto done;
    }
    if (!(r = tl_op_unary(TL_UNARY_ROUND, y, y))) {
        goto done;
    }
    res = tl_op_binary(up ? TL_BINARY_DIV : TL_BINARY_MUL, out, y, ten, NULL);
done:
    tl_tensor_decref(r);
    tl_tensor_decref(y);
    tl_tensor_decref(ten);
    return res;
}

/* Note [Division with rounding]: div(a, b, rounding_mode=) composes
 * kernels the table has.  "floor" is floor_divide (Python's rule, as
 * PyTorch).  "trunc" on floats is trunc(a / b), one op at a time in the
 * result dtype (NumPy's np.trunc(np.divide(a, b))); on integers it is
 * C's division, from floor_divide corrected by one where the remainder
 * is nonzero and the signs differ (unsigned types need no correction);
 * it wraps like floor_divide (INT_MIN / -1 is INT_MIN), and a zero
 * divisor is refused by floor_divide before anything is written.  Only
 * the last op writes out. */
tl_tensor_impl *tl_op_div_rounding(tl_tensor_impl *out, tl_tensor_impl *a,
                                   tl_tensor_impl *b, int mode)
{
    if (mode == TL_DIV_TRUE) {
        return tl_op_binary(TL_BINARY_DIV, out, a, b, NULL);
    }
    if (mode == TL_DIV_FLOOR) {
        return tl_op_binary(TL_BINARY_FLOOR_DIVIDE, out, a, b, NULL);
    }
    if (mode != TL_DIV_TRUNC) {
        tl_error(TL_ERR_VALUE, "div: unknown rounding mode %d", mode);
        return NULL;
    }
    int compute, result;
    if (!a || !b) {
        tl_error(TL_ERR_VALUE, "div: an operand is NULL");
        return NULL;
    }
    tl_tensor_impl *ab[2] = {a, b};
    const int common = (int)tl_result_type(2, ab);
    if (common == TL_DTYPE_BOOL ||
        tl_dtype_kind_of(common) == TL_KIND_COMPLEX) {
        tl_error(TL_ERR_TYPE, "div(rounding_mode='trunc') is not supported "
                 "for %s", dname(common));
        return NULL;
    }
    if (binary_types(TL_BINARY_FLOOR_DIVIDE, a, b, &compute, &result) < 0) {
        return NULL;
    }
    tl_tensor_impl *q = NULL, *r = NULL, *na = NULL, *nb = NULL,
                   *sx = NULL, *nz = NULL, *fix = NULL, *res = NULL;
    tl_scalar zero = tl_scalar_int(0);
    tl_tensor_impl *z = tl_scalar_to_tensor(&zero);
    if (!z) {
        return NULL;
    }
    if (tl_dtype_kind_of(result) == TL_KIND_FLOAT) {
        if ((q = tl_op_binary(TL_BINARY_DIV, NULL, a, b, NULL))) {
            res = tl_op_unary(TL_UNARY_TRUNC, out, q);
        }
        goto done;
    }
    if (!(q = tl_op_binary(TL_BINARY_FLOOR_DIVIDE, NULL, a, b, NULL))) {
        goto done;
    }
    if (tl_dtype_kind_of(result) == TL_KIND_UINT) { /* no negative operands */
        if (!out) {
            res = q;
            q = NULL;
        } else { /* into out= by out='s rules */
            res = tl_op_binary(TL_BINARY_ADD, out, q, z, NULL);
        }
        goto done;
    }
    /* q + ((a % b != 0) & ((a < 0) ^ (b < 0))) */
    if (!(r = tl_op_binary(TL_BINARY_REMAINDER, NULL, a, b, NULL)) ||
        !(nz = tl_op_binary(TL_BINARY_NE, NULL, r, z, NULL)) ||
        !(na = tl_op_binary(TL_BINARY_LT, NULL, a, z, NULL)) ||
        !(nb = tl_op_binary(TL_BINARY_LT, NULL, b, z, NULL)) ||
        !(sx = tl_op_binary(TL_BINARY_LOGICAL_XOR, NULL, na, nb, NULL)) ||
        !(fix = tl_op_binary(TL_BINARY_LOGICAL_AND, NULL, nz, sx, NULL))) {
        goto done;
    }
    res = tl_op_binary(TL_BINARY_ADD, out, q, fix, NULL);
done:
    tl_tensor_decref(fix);
    tl_tensor_decref(sx);
    tl_tensor_decref(nb);
    tl_tensor_decref(na);
    tl_tensor_decref(nz);
    tl_tensor_decref(r);
    tl_tensor_decref(q);
    tl_tensor_decref(z);
    return res;
}

/* ---- where -------------------------------------------------------------- */

tl_tensor_impl *tl_op_where(tl_tensor_impl *out, tl_tensor_impl *cond,
                            tl_tensor_impl *a, tl_tensor_impl *b)
{
    if (!cond || !a || !b) {
        tl_error(TL_ERR_VALUE, "where: an operand is NULL");
        return NULL;
    }
    if (cond->dtype != TL_DTYPE_BOOL) {
        tl_error(TL_ERR_TYPE,
                 "where(): the condition must have dtype bool, not %s "
                 "(compare it first, e.g. cond != 0)",
                 tl_dtype_table[cond->dtype].name);
        return NULL;
    }
    tl_tensor_impl *ab[2] = {a, b};
    const int result = tl_result_type(2, ab);
    /* A Python int must fit an integer result, as PyTorch checks it
     * (where(c, uint8, 300) is refused, not 44). */
    if (check_wrapped_fits(a, result, true, "input") < 0 ||
        check_wrapped_fits(b, result, true, "other") < 0) {
        return NULL;
    }
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, cond);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, b);
    c.static_dtype = result;
    c.cast_common_dtype_to_outputs = true;
    c.enforce_safe_casting_to_output = true;
    const bool keep[4] = {false, true, false, false}; /* cond stays bool */
    return run_op(&c, tl_where_kernel_get((int)tl_itemsize(result)), NULL,
                  result, result, keep, TL_DEV_WHERE, 0, NULL);
}

/* ---- clamp -------------------------------------------------------------- */

tl_tensor_impl *tl_op_clamp(tl_tensor_impl *out, tl_tensor_impl *a,
                            tl_tensor_impl *lo, tl_tensor_impl *hi)
{
    if (!a) {
        tl_error(TL_ERR_VALUE, "clamp: the operand is NULL");
        return NULL;
    }
    if (!lo && !hi) {
        tl_error(TL_ERR_VALUE,
                 "clamp(): min and max are both None; give at least one "
                 "bound");
        return NULL;
    }
    tl_tensor_impl *all[3] = {a, lo, hi};
    const int result = tl_result_type(3, all);
    if (tl_dtype_kind_of(result) == TL_KIND_COMPLEX) {
        tl_error(TL_ERR_TYPE, "clamp is not supported for complex types");
        return NULL;
    }
    /* Python-scalar bounds are converted with PyTorch's overflow check
     * (clamp(int8, max=300) is refused, not clamped at 300 - 256). */
    if (check_wrapped_fits(lo, result, false, "min") < 0 ||
        check_wrapped_fits(hi, result, false, "max") < 0) {
        return NULL;
    }
    const int kdt = kernel_dtype(result);
    tl_iter_loop2d kernel;
    int dev_kind = TL_DEV_CLAMP, dev_op = 0;
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, a);
    if (lo && hi) {
        tl_iter_config_add_input(&c, lo);
        tl_iter_config_add_input(&c, hi);
        kernel = tl_clamp_kernel_get(kdt);
    } else {
        dev_kind = TL_DEV_BINARY;
        dev_op = lo ? TL_BINARY_MAXIMUM : TL_BINARY_MINIMUM;
        /* One bound: NaN-propagating maximum / minimum. */
        tl_iter_config_add_input(&c, lo ? lo : hi);
        kernel = tl_binary_kernel_get(lo ? TL_BINARY_MAXIMUM
                                         : TL_BINARY_MINIMUM, kdt);
    }
    if (!kernel) {
        tl_error(TL_ERR_TYPE, "clamp is not supported for %s", dname(result));
        return NULL;
    }
    c.static_dtype = result;
    c.cast_common_dtype_to_outputs = true;
    c.enforce_safe_casting_to_output = true;
    return run_op(&c, kernel, NULL, result, kdt, NULL, dev_kind, dev_op,
                  NULL);
}
