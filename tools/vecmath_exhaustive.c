/* tools/vecmath_exhaustive.c — checks the float32 loops of the
 * vectorised transcendental functions (csrc/core/vecmath*) on every one
 * of the 2^32 float32 bit patterns, for each instruction-set build (the
 * library's own vecmath_<isa>.c translation units, linked in), against a
 * float64 loop (double kernels within a couple of double ulps, so their
 * value rounded to float is the correctly rounded float except within
 * about 2^-50 of a rounding boundary).  Reports, per function and build,
 * the largest distance in float ulps from that rounded value (an
 * integer: 1 means a neighbour of the correctly rounded float), the
 * largest error against the double value in ulps of the result, how many
 * arguments are not correctly rounded, and the special values (+-0,
 * +-inf, NaN) whose bits differ from the reference.  Not part of the
 * build or of CI: a minute or a few per function on two cores.
 *
 *   gcc -O2 -std=c11 -fopenmp -DTL_BUILDING_LIB -Icsrc/core \
 *       -Icsrc/include tools/vecmath_exhaustive.c csrc/core/vecmath_base.c \
 *       csrc/core/vecmath_avx2.c csrc/core/vecmath_avx512.c \
 *       -o /tmp/vmx -lm
 *   nice -n 19 /tmp/vmx [-lo:hi] [-c avx2,baseline] [function ...]
 *
 * -lo:hi checks only the patterns whose top 16 bits are in [lo, hi)
 * (hex), a quick sample; -c names the builds (default: baseline and every
 * one the CPU runs); no function names: all the unary ones.  The
 * reference is the float64 loop of the best build the CPU runs. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecmath.h"
#include "vecmath_check.h"

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

#define MAXB 3

/* One block of 65536 patterns (top 16 bits hi) through the reference f64
 * loop and each build's f32 loop; st[b] gets build b's statistics. */
static void check_block(tl_vm_unary_loop f64, tl_vm_unary_loop *f32,
                        int nb, uint32_t hi, stats *st)
{
    static _Thread_local float in[BLOCK], out[BLOCK];
    static _Thread_local double din[BLOCK], dref[BLOCK];
    for (uint32_t lo = 0; lo < BLOCK; lo++) {
        uint32_t u = hi << 16 | lo;
        memcpy(&in[lo], &u, sizeof u);
        din[lo] = (double)in[lo];
    }
    f64(din, dref, BLOCK);
    for (int b = 0; b < nb; b++) {
        f32[b](in, out, BLOCK);
        stats *s = &st[b];
        memset(s, 0, sizeof *s);
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
            s->notcr++;
            bool spec = c != c || r != r || R == 0.0 || isinf(R) ||
                        (r == 0.0f && c == 0.0f);
            if (spec) {
                if (s->special++ == 0) {
                    s->arg_special = arg;
                }
                continue;
            }
            int64_t d = ordered(r) - ordered(c);
            uint32_t ad = (uint32_t)(d < 0 ? -d : d);
            if (ad > s->maxd) {
                s->maxd = ad;
                s->arg_maxd = arg;
            }
            /* overflow boundary (one of them inf): counts as 1 ulp */
            double err = isinf(c) || isinf(r) ? 1.0
                                              : fabs((double)r - R) / ulp_at(c);
            if (err > s->maxerr) {
                s->maxerr = err;
                s->arg_maxerr = arg;
            }
        }
    }
}

int main(int argc, char **argv)
{
    uint32_t lo = 0, hi = 65536;
    const char *builds = NULL;
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-c") == 0 && first + 1 < argc) {
            builds = argv[first + 1];
            first += 2;
        } else if (sscanf(argv[first] + 1, "%" SCNx32 ":%" SCNx32, &lo,
                          &hi) == 2 && lo < hi && hi <= 65536) {
            first++;
        } else {
            fprintf(stderr, "bad argument %s\n", argv[first]);
            return 2;
        }
    }
    const tl_vm_table *tab[MAXB];
    int nb = 0;
    if (builds) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", builds);
        for (char *tok = strtok(buf, ","); tok && nb < MAXB;
             tok = strtok(NULL, ",")) {
            tab[nb] = build_named(tok);
            if (!tab[nb]) {
                fprintf(stderr, "build %s unknown or not run here\n", tok);
                return 2;
            }
            nb++;
        }
    } else {
        const char *all[] = {"avx512", "avx2", "baseline"};
        for (int i = 0; i < 3; i++) {
            if ((tab[nb] = build_named(all[i])) != NULL) {
                nb++;
            }
        }
    }
    /* reference: the best build the CPU runs */
    const tl_vm_table *ref = build_named("avx512");
    ref = ref ? ref : build_named("avx2");
    ref = ref ? ref : &tl_vm_table_baseline;
    const char *all[TL_VM_NUNARY] = {"exp",  "expm1", "log",     "log1p",
                                     "log2", "sin",   "cos",     "tan",
                                     "tanh", "sigmoid", "erf"};
    int nnames = argc > first ? argc - first : TL_VM_NUNARY;
    const char *const *names =
        argc > first ? (const char *const *)argv + first : all;
    stats *blocks = malloc(sizeof(stats) * MAXB * 65536);
    if (!blocks) {
        return 1;
    }
    printf("patterns %#x0000..%#x0000, reference: float64 loops of %s\n", lo,
           hi, ref->isa);
    printf("%-8s %-9s %8s %12s %12s %10s  %s\n", "function", "build",
           "max ulp", "max err", "not CR", "special", "worst argument");
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
        tl_vm_unary_loop f32[MAXB];
        for (int b = 0; b < nb; b++) {
            f32[b] = tab[b]->unary[fn][0];
        }
        tl_vm_unary_loop f64 = ref->unary[fn][1];
#pragma omp parallel for schedule(dynamic, 8)
        for (int64_t h = lo; h < hi; h++) {
            check_block(f64, f32, nb, (uint32_t)h, &blocks[h * MAXB]);
        }
        for (int b = 0; b < nb; b++) {
            stats t = {0};
            for (uint32_t h = lo; h < hi; h++) {
                stats *s = &blocks[h * MAXB + b];
                if (s->maxd > t.maxd) {
                    t.maxd = s->maxd;
                    t.arg_maxd = s->arg_maxd;
                }
                if (s->maxerr > t.maxerr) {
                    t.maxerr = s->maxerr;
                    t.arg_maxerr = s->arg_maxerr;
                }
                if (s->special && !t.special) {
                    t.arg_special = s->arg_special;
                }
                t.notcr += s->notcr;
                t.special += s->special;
            }
            float wa, ws;
            memcpy(&wa, &t.arg_maxerr, sizeof wa);
            memcpy(&ws, &t.arg_special, sizeof ws);
            printf("%-8s %-9s %8" PRIu32 " %12.4f %12" PRIu64 " %10" PRIu64
                   "  %a (%.9g)",
                   names[k], tab[b]->isa, t.maxd, t.maxerr, t.notcr,
                   t.special, (double)wa, (double)wa);
            if (t.special) {
                printf("; special at %a", (double)ws);
            }
            printf("\n");
            fflush(stdout);
            if (t.maxd > 1 || t.special) {
                bad = 1;
            }
        }
    }
    free(blocks);
    return bad;
}
