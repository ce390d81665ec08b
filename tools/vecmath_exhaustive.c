/* tools/vecmath_exhaustive.c — checks the float32 loops of
 * csrc/core/vecmath_body.h on every one of the 2^32 float32 bit patterns
 * against the float64 loops (double kernels within a couple of double
 * ulps, so their value rounded to float is the correctly rounded float
 * except within about 2^-50 of a rounding boundary).  Reports, per
 * function, the largest distance in float ulps from that rounded value
 * (an integer: 1 means a neighbour of the correctly rounded float), the
 * largest error against the double value in ulps of the result, how many
 * arguments are not correctly rounded, and the special values (+-0,
 * +-inf, NaN) whose bits differ from the reference.  Not part of the
 * build or of CI: about a minute per function and clone on two cores.
 *
 *   gcc -O2 -std=c11 -fopenmp -DTL_BUILDING_LIB -DVM_TOOL_AVX2 \
 *       -Icsrc/core -Icsrc/include tools/vecmath_exhaustive.c \
 *       -o /tmp/vmx_avx2 -lm            # or -DVM_TOOL_BASELINE
 *   nice -n 19 /tmp/vmx_avx2 exp sin cos ...   # no names: all unary
 *
 * The first argument may be -lo:hi to check only the patterns whose top
 * 16 bits are in [lo, hi) (hex), for a quick sample. */
#include "vecmath_pragmas.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecmath.h"

#if defined(VM_TOOL_AVX2)
#pragma GCC target("avx2,fma")
#define VM_ISA avx2
#define VM_ISA_NAME "avx2"
#define VM_HAVE_FMA 1
#elif defined(VM_TOOL_AVX512)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")
#define VM_ISA avx512
#define VM_ISA_NAME "avx512"
#define VM_HAVE_FMA 1
#else
#define VM_ISA baseline
#define VM_ISA_NAME "baseline"
#define VM_HAVE_FMA 0
#endif
#include "vecmath_body.h"

#define BLOCK 65536

typedef struct {
    uint32_t maxd;     /* largest integer ulp distance */
    double maxerr;     /* largest |ours - double| in result ulps */
    uint32_t arg_maxd; /* an argument (bits) where maxd occurs */
    uint32_t arg_maxerr;
    uint64_t notcr;    /* results not equal to the rounded reference */
    uint64_t special;  /* special values with other bits */
    uint32_t arg_special;
} stats;

/* Ordered integer of a float's bits (-0 and +0 equal). */
static int64_t ordered(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u >> 31) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

/* The spacing of floats at |c| (c finite). */
static double ulp_at(float c)
{
    float a = fabsf(c);
    if (a < 0x1p-126f) {
        return 0x1p-149;
    }
    int e;
    frexpf(a, &e);
    return ldexp(1.0, e - 24);
}

static void check_block(tl_vm_unary_loop f32, tl_vm_unary_loop f64,
                        uint32_t hi, stats *st)
{
    float in[BLOCK], out[BLOCK];
    double din[BLOCK], dref[BLOCK];
    for (uint32_t lo = 0; lo < BLOCK; lo++) {
        uint32_t u = hi << 16 | lo;
        memcpy(&in[lo], &u, sizeof u);
        din[lo] = (double)in[lo];
    }
    f32(in, out, BLOCK);
    f64(din, dref, BLOCK);
    memset(st, 0, sizeof *st);
    for (uint32_t lo = 0; lo < BLOCK; lo++) {
        uint32_t arg = hi << 16 | lo;
        float r = out[lo];
        double R = dref[lo];
        float c = (float)R;
        uint32_t rb, cb;
        memcpy(&rb, &r, sizeof rb);
        memcpy(&cb, &c, sizeof cb);
        if (rb == cb || (c != c && r != r)) {
            continue;
        }
        st->notcr++;
        bool spec = c != c || r != r || R == 0.0 || isinf(R) ||
                    (r == 0.0f && c == 0.0f);
        if (spec) {
            if (st->special++ == 0) {
                st->arg_special = arg;
            }
            continue;
        }
        int64_t d = ordered(r) - ordered(c);
        uint32_t ad = (uint32_t)(d < 0 ? -d : d);
        if (ad > st->maxd) {
            st->maxd = ad;
            st->arg_maxd = arg;
        }
        if (!isinf(c) && !isinf(r)) {
            double err = fabs((double)r - R) / ulp_at(c);
            if (err > st->maxerr) {
                st->maxerr = err;
                st->arg_maxerr = arg;
            }
        } else if (st->maxerr < 1.0) { /* overflow boundary: 1 ulp */
            st->maxerr = 1.0;
            st->arg_maxerr = arg;
        }
    }
}

int main(int argc, char **argv)
{
    uint32_t lo = 0, hi = 65536;
    int first = 1;
    if (argc > 1 && argv[1][0] == '-') {
        if (sscanf(argv[1] + 1, "%" SCNx32 ":%" SCNx32, &lo, &hi) != 2 ||
            lo >= hi || hi > 65536) {
            fprintf(stderr, "bad range %s\n", argv[1]);
            return 2;
        }
        first = 2;
    }
    const char *all[TL_VM_NUNARY] = {"exp",  "expm1", "log",     "log1p", "log2",
                         "sin",  "cos",   "tan",     "tanh",  "sigmoid",
                         "erf"};
    int nnames = argc > first ? argc - first : (int)(sizeof all / sizeof *all);
    const char *const *names =
        argc > first ? (const char *const *)argv + first : all;
    stats *blocks = malloc(sizeof(stats) * 65536);
    if (!blocks) {
        return 1;
    }
    printf("clone %s, patterns %#x0000..%#x0000\n", VM_ISA_NAME, lo, hi);
    printf("%-8s %8s %12s %12s %10s  %s\n", "function", "max ulp",
           "max err", "not CR", "special", "worst argument");
    int bad = 0;
    for (int k = 0; k < nnames; k++) {
        int fn = -1; /* all[] is in tl_vm_fn's order */
        for (int j = 0; j < TL_VM_NUNARY; j++) {
            fn = strcmp(all[j], names[k]) == 0 ? j : fn;
        }
        if (fn < 0) {
            fprintf(stderr, "unknown unary function %s\n", names[k]);
            return 2;
        }
        tl_vm_unary_loop f32 = VM_TABLE.unary[fn][0];
        tl_vm_unary_loop f64 = VM_TABLE.unary[fn][1];
#pragma omp parallel for schedule(dynamic, 8)
        for (int64_t h = lo; h < hi; h++) {
            check_block(f32, f64, (uint32_t)h, &blocks[h]);
        }
        stats t = {0};
        for (uint32_t h = lo; h < hi; h++) {
            stats *b = &blocks[h];
            if (b->maxd > t.maxd) {
                t.maxd = b->maxd;
                t.arg_maxd = b->arg_maxd;
            }
            if (b->maxerr > t.maxerr) {
                t.maxerr = b->maxerr;
                t.arg_maxerr = b->arg_maxerr;
            }
            if (b->special && !t.special) {
                t.arg_special = b->arg_special;
            }
            t.notcr += b->notcr;
            t.special += b->special;
        }
        float wa, ws;
        memcpy(&wa, &t.arg_maxerr, sizeof wa);
        memcpy(&ws, &t.arg_special, sizeof ws);
        printf("%-8s %8" PRIu32 " %12.4f %12" PRIu64 " %10" PRIu64
               "  %a (%.9g)",
               names[k], t.maxd, t.maxerr, t.notcr, t.special, wa,
               (double)wa);
        if (t.special) {
            printf("; special at %a", (double)ws);
        }
        printf("\n");
        fflush(stdout);
        if (t.maxd > 1 || t.special) {
            bad = 1;
        }
    }
    free(blocks);
    return bad;
}
