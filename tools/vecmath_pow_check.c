/* tools/vecmath_pow_check.c — checks the float32 loops of the two-argument
 * vectorised functions (pow, atan2; csrc/core/vecmath*), for each
 * instruction-set build (the library's own vecmath_<isa>.c translation
 * units, linked in), on dense grids and on random pairs, against the
 * float64 loop rounded to float (within a couple of double ulps of the
 * exact value, so the rounded value is the correctly rounded float except
 * within about 2^-50 of a rounding boundary).  The sibling of
 * tools/vecmath_exhaustive.c (2^64 pairs cannot all be run); it reports
 * the same columns, per function, part and build.  Parts:
 *   pow  near1:  every float x in [0.5, 2) times 32 exponents each (4
 *                fixed, 4 integral, 24 with y log x spread over the whole
 *                range of finite nonzero results);
 *        ext:    every float x in [2^-149, 2^-124) (the subnormals and
 *                the two lowest normal binades) and in [2^125, 2^128),
 *                times 8 exponents, half of them with -x and an integral y;
 *        random: 10^9 pairs, three quarters with |x| log-uniform over the
 *                floats, either sign, and y log|x| in [-110, 95] (a third
 *                of them integral), a quarter with random bits in both.
 *   atan2 near1: every float y in [0.5, 2) times 32 x's (y/x from 2^-40
 *                to 2^40, either sign, a quarter of them near 1);
 *        ext:    the same y's scaled into the subnormals and to 2^127;
 *        random: 10^9 pairs (random bits, and log-uniform ratios).
 * Not part of the build or of CI: minutes per function on two cores.
 *
 *   gcc -O2 -std=c11 -fopenmp -DTL_BUILDING_LIB -Icsrc/core \
 *       -Icsrc/include tools/vecmath_pow_check.c csrc/core/vecmath_base.c \
 *       csrc/core/vecmath_avx2.c csrc/core/vecmath_avx512.c \
 *       -o /tmp/vmp -lm
 *   nice -n 19 /tmp/vmp [-r RANDOM_BLOCKS] [-c avx2,baseline] [pow|atan2 ...]
 *
 * -r sets the number of random blocks of 65536 pairs (default 15259,
 * 10^9 pairs); -c names the builds (default: baseline and every one the
 * CPU runs).  Exit status 1 when a result is 2 or more ulps from the
 * rounded reference or a special value differs. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecmath.h"
#include "vecmath_check.h"

#define BLOCK 65536
#define MAXB 3

typedef struct {
    uint32_t maxd;   /* largest integer ulp distance */
    double maxerr;   /* largest |ours - double| in result ulps */
    float wx, wy;    /* a pair where maxerr occurs */
    uint64_t notcr;  /* results not equal to the rounded reference */
    uint64_t special; /* special values with other bits */
    float sx, sy;    /* a pair where a special value differs */
    uint64_t n;
} stats;

static float asf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* splitmix64: the i-th random 64-bit word of stream s */
static uint64_t rnd(uint64_t s, uint64_t i)
{
    uint64_t z = s * 0x9e3779b97f4a7c15u + i * 0xbf58476d1ce4e5b9u + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) from the word w */
static double unif(uint64_t w, double lo, double hi)
{
    return lo + (hi - lo) * (double)(w >> 11) * 0x1p-53;
}

enum { PART_NEAR1, PART_EXT, PART_RANDOM, NPARTS };
static const char *const part_names[NPARTS] = {"near1", "ext", "random"};

/* an exponent for base |x| (finite, nonzero) such that y log|x| is t */
static float pow_y(double ax, double t, bool integral)
{
    double l = log(ax);
    double y = l == 0.0 ? t * 1e7 : t / l;
    return (float)(integral ? nearbyint(y) : y);
}

#define EXT_LO 0x00000001u /* 2^-149 .. 2^-124 */
#define EXT_LON (0x01800000u - EXT_LO)
#define EXT_HI 0x7e000000u /* 2^125 .. 2^128 */
#define EXT_HIN (0x7f800000u - EXT_HI)

static uint64_t part_blocks(bool ispow, int part, uint64_t nrandom)
{
    switch (part) {
    case PART_NEAR1:
        return ((uint64_t)1 << 24) * 32 / BLOCK;
    case PART_EXT:
        return ispow ? ((uint64_t)EXT_LON + EXT_HIN) * 8 / BLOCK + 1
                     : ((uint64_t)1 << 24) * 32 / BLOCK;
    default:
        return nrandom;
    }
}

static void gen_pow(int part, uint64_t blk, float *x, float *y)
{
    for (uint32_t j = 0; j < BLOCK; j++) {
        uint64_t i = blk * BLOCK + j;
        uint64_t w = rnd((uint64_t)part + 1, i), w2 = rnd(part + 11, i);
        if (part == PART_NEAR1) {
            float xv = asf(0x3f000000u + (uint32_t)(i >> 5));
            uint32_t k = (uint32_t)(i & 31);
            static const float fixed[4] = {2.0f, -1.0f, 0.5f, 3.0f};
            x[j] = xv;
            y[j] = k < 4 ? fixed[k]
                 : k < 8 ? (float)nearbyint(unif(w, -200, 200))
                         : pow_y(xv, unif(w, -105, 90), false);
        } else if (part == PART_EXT) {
            uint64_t p = i >> 3;
            p = p >= (uint64_t)EXT_LON + EXT_HIN ? 0 : p;
            uint32_t bits = p < EXT_LON ? EXT_LO + (uint32_t)p
                                        : EXT_HI + (uint32_t)(p - EXT_LON);
            float xv = asf(bits);
            bool neg = (i & 7) >= 4;
            x[j] = neg ? -xv : xv;
            y[j] = pow_y(xv, unif(w, -110, 95), neg);
        } else if ((w2 & 3) == 0) { /* random bits */
            x[j] = asf((uint32_t)w);
            y[j] = asf((uint32_t)(w >> 32));
        } else {
            double ax = exp2(unif(w, -149, 128));
            float xv = (float)ax;
            xv = xv == 0.0f ? 0x1p-149f : xv;
            x[j] = (w2 >> 8) & 1 ? -xv : xv;
            y[j] = pow_y(xv, unif(w2, -110, 95), (w2 >> 9) % 3 == 0);
        }
    }
}

/* atan2(a, b): a the ordinate */
static void gen_atan2(int part, uint64_t blk, float *a, float *b)
{
    for (uint32_t j = 0; j < BLOCK; j++) {
        uint64_t i = blk * BLOCK + j;
        uint64_t w = rnd((uint64_t)part + 21, i), w2 = rnd(part + 31, i);
        if (part == PART_RANDOM && (w2 & 3) == 0) {
            a[j] = asf((uint32_t)w);
            b[j] = asf((uint32_t)(w >> 32));
            continue;
        }
        double av, ratio;
        if (part == PART_RANDOM) {
            av = exp2(unif(w2, -149, 128));
        } else {
            av = asf(0x3f000000u + (uint32_t)(i >> 5));
        }
        if (part == PART_EXT) {
            av = (i & 32) ? av * 0x1p-140 : av * 0x1p126;
        }
        ratio = (w & 3) == 0 ? 1.0 + unif(w, -0.5, 0.5)
                             : exp2(unif(w, -40, 40));
        double bv = av / ratio;
        float af = (float)av, bf = (float)bv;
        a[j] = (w >> 62) & 1 ? -af : af;
        b[j] = (w >> 63) & 1 ? -bf : bf;
    }
}

static void check_block(bool ispow, int part, uint64_t blk,
                        tl_vm_binary_loop f64, tl_vm_binary_loop *f32,
                        int nb, stats *st)
{
    static _Thread_local float x[BLOCK], y[BLOCK], out[BLOCK];
    static _Thread_local double dx[BLOCK], dy[BLOCK], dref[BLOCK];
    if (ispow) {
        gen_pow(part, blk, x, y);
    } else {
        gen_atan2(part, blk, x, y);
    }
    for (uint32_t j = 0; j < BLOCK; j++) {
        dx[j] = x[j];
        dy[j] = y[j];
    }
    f64(dx, dy, dref, BLOCK);
    for (int b = 0; b < nb; b++) {
        f32[b](x, y, out, BLOCK);
        stats *s = &st[b];
        s->n += BLOCK;
        for (uint32_t j = 0; j < BLOCK; j++) {
            float r = out[j];
            double R = dref[j];
            float c = (float)R;
            uint32_t rb, cb;
            memcpy(&rb, &r, sizeof rb);
            memcpy(&cb, &c, sizeof cb);
            if (rb == cb || (c != c && r != r)) {
                continue;
            }
            s->notcr++;
            bool spec = c != c || r != r || R == 0.0 || isinf(R) ||
                        (r == 0.0f && c == 0.0f) ||
                        (isinf(x[j]) || isinf(y[j]) || x[j] == 0.0f ||
                         y[j] == 0.0f);
            if (spec && !((isinf(c) || isinf(r)) && !isinf(R) &&
                          (r == r))) {
                if (s->special++ == 0) {
                    s->sx = x[j];
                    s->sy = y[j];
                }
                continue;
            }
            int64_t d = ordered(r) - ordered(c);
            uint32_t ad = (uint32_t)(d < 0 ? -d : d);
            s->maxd = ad > s->maxd ? ad : s->maxd;
            /* overflow boundary (one of them inf): counts as 1 ulp */
            double err = isinf(c) || isinf(r)
                             ? 1.0
                             : fabs((double)r - R) / ulp_at(c);
            if (err > s->maxerr) {
                s->maxerr = err;
                s->wx = x[j];
                s->wy = y[j];
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *builds = NULL;
    uint64_t nrandom = 15259; /* 10^9 pairs */
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-c") == 0 && first + 1 < argc) {
            builds = argv[first + 1];
            first += 2;
        } else if (strcmp(argv[first], "-r") == 0 && first + 1 < argc) {
            nrandom = strtoull(argv[first + 1], NULL, 10);
            first += 2;
        } else {
            fprintf(stderr, "bad argument %s\n", argv[first]);
            return 2;
        }
    }
    const tl_vm_table *tab[MAXB];
    const char *bname[MAXB];
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
            bname[nb] = tab[nb]->isa;
            nb++;
        }
    } else {
        const char *all[] = {"avx512", "avx2", "baseline"};
        for (int i = 0; i < 3; i++) {
            if ((tab[nb] = build_named(all[i])) != NULL) {
                bname[nb] = tab[nb]->isa;
                nb++;
            }
        }
    }
    const tl_vm_table *ref = build_named("avx512");
    ref = ref ? ref : build_named("avx2");
    ref = ref ? ref : &tl_vm_table_baseline;
    const char *defnames[] = {"pow", "atan2"};
    int nnames = argc > first ? argc - first : 2;
    const char *const *names =
        argc > first ? (const char *const *)argv + first : defnames;
    printf("reference: float64 loops of %s rounded to float\n", ref->isa);
    printf("%-6s %-7s %-9s %12s %8s %12s %12s %10s  %s\n", "func", "part",
           "build", "pairs", "max ulp", "max err", "not CR", "special",
           "worst pair (x, y)");
    int bad = 0;
    for (int k = 0; k < nnames; k++) {
        bool ispow = strcmp(names[k], "pow") == 0;
        if (!ispow && strcmp(names[k], "atan2") != 0) {
            fprintf(stderr, "unknown function %s\n", names[k]);
            return 2;
        }
        int fn = ispow ? TL_VM_POW : TL_VM_ATAN2;
        tl_vm_binary_loop f32[MAXB];
        for (int b = 0; b < nb; b++) {
            f32[b] = tab[b]->binary[fn - TL_VM_NUNARY][0];
        }
        tl_vm_binary_loop f64 = ref->binary[fn - TL_VM_NUNARY][1];
        for (int part = 0; part < NPARTS; part++) {
            int64_t nblk = (int64_t)part_blocks(ispow, part, nrandom);
            stats tot[MAXB];
            memset(tot, 0, sizeof tot);
#pragma omp parallel
            {
                stats mine[MAXB];
                memset(mine, 0, sizeof mine);
#pragma omp for schedule(dynamic, 4)
                for (int64_t blk = 0; blk < nblk; blk++) {
                    stats st[MAXB];
                    memset(st, 0, sizeof st);
                    check_block(ispow, part, (uint64_t)blk, f64, f32, nb, st);
                    for (int b = 0; b < nb; b++) {
                        stats *m = &mine[b], *s = &st[b];
                        m->n += s->n;
                        m->notcr += s->notcr;
                        m->maxd = s->maxd > m->maxd ? s->maxd : m->maxd;
                        if (s->maxerr > m->maxerr) {
                            m->maxerr = s->maxerr;
                            m->wx = s->wx;
                            m->wy = s->wy;
                        }
                        if (s->special && !m->special) {
                            m->sx = s->sx;
                            m->sy = s->sy;
                        }
                        m->special += s->special;
                    }
                }
#pragma omp critical
                for (int b = 0; b < nb; b++) {
                    stats *t = &tot[b], *m = &mine[b];
                    t->n += m->n;
                    t->notcr += m->notcr;
                    t->maxd = m->maxd > t->maxd ? m->maxd : t->maxd;
                    if (m->maxerr > t->maxerr) {
                        t->maxerr = m->maxerr;
                        t->wx = m->wx;
                        t->wy = m->wy;
                    }
                    if (m->special && !t->special) {
                        t->sx = m->sx;
                        t->sy = m->sy;
                    }
                    t->special += m->special;
                }
            }
            for (int b = 0; b < nb; b++) {
                stats *t = &tot[b];
                printf("%-6s %-7s %-9s %12" PRIu64 " %8" PRIu32
                       " %12.4f %12" PRIu64 " %10" PRIu64 "  (%a, %a)",
                       names[k], part_names[part], bname[b], t->n, t->maxd,
                       t->maxerr, t->notcr, t->special, (double)t->wx,
                       (double)t->wy);
                if (t->special) {
                    printf("; special at (%a, %a)", (double)t->sx,
                           (double)t->sy);
                }
                printf("\n");
                fflush(stdout);
                if (t->maxd > 1 || t->special) {
                    bad = 1;
                }
            }
        }
    }
    return bad;
}
