/* benchmarks/bounds/kernels.c — plain-C versions of the large cases of
 * benchmarks/run.py, the "C bound" column: what a straightforward,
 * cache-aware C loop (gcc -O3 -march=native) achieves on the same buffers,
 * timed in the same process and interleaved with the libraries, so that a
 * busy machine slows the bound and the libraries alike.
 *
 * run.py builds this into build/bench/libtlbounds.so with
 *   gcc -O3 -march=native -std=c11 -shared -fPIC -pthread
 * and calls it through ctypes (a few µs per call, nothing next to the
 * milliseconds of these cases).  Every function takes the thread count nt
 * and splits its outer loop over nt pthreads (nt = 1: the caller's thread).
 * Outputs are written into caller-provided, already faulted-in buffers: the
 * bound of an allocating op is the op with an allocator that costs
 * nothing. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define TILE 64
#define MAXT 64

typedef struct {
    void (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
    int64_t lo, hi;
} part;

static void *part_main(void *p)
{
    part *j = p;
    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

/* Runs fn over [0, n) in nt contiguous parts aligned to `align`. */
static void par(void (*fn)(void *, int64_t, int64_t), void *ctx, int64_t n,
                int nt, int64_t align)
{
    if (nt <= 1 || n < 2 * align) {
        fn(ctx, 0, n);
        return;
    }
    if (nt > MAXT) {
        nt = MAXT;
    }
    pthread_t th[MAXT];
    part parts[MAXT];
    int64_t per = (n + nt - 1) / nt;
    per = (per + align - 1) / align * align;
    int used = 0;
    for (int t = 0; t < nt; t++) {
        int64_t lo = t * per, hi = lo + per < n ? lo + per : n;
        if (lo >= n) {
            break;
        }
        parts[t] = (part){fn, ctx, lo, hi};
        used++;
    }
    for (int t = 1; t < used; t++) {
        if (pthread_create(&th[t], NULL, part_main, &parts[t]) != 0) {
            part_main(&parts[t]); /* no thread: do it here */
            th[t] = 0;
        }
    }
    part_main(&parts[0]);
    for (int t = 1; t < used; t++) {
        if (th[t]) {
            pthread_join(th[t], NULL);
        }
    }
}

/* ---- c = a + b ----------------------------------------------------------- */

typedef struct {
    const float *a, *b;
    float *c;
    int64_t n;
} add_ctx;

static void add_part(void *vc, int64_t lo, int64_t hi)
{
    const add_ctx *x = vc;
    const float *restrict a = x->a, *restrict b = x->b;
    float *restrict c = x->c;
    for (int64_t i = lo; i < hi; i++) {
        c[i] = a[i] + b[i];
    }
}

void tlb_add_f32(const float *a, const float *b, float *c, int64_t n, int nt)
{
    add_ctx x = {a, b, c, n};
    par(add_part, &x, n, nt, 4096);
}

/* ---- (m,1) + (1,n) --------------------------------------------------------- */

typedef struct {
    const float *col, *row;
    float *c;
    int64_t m, n;
} bc_ctx;

static void bcast_part(void *vc, int64_t lo, int64_t hi)
{
    const bc_ctx *x = vc;
    for (int64_t i = lo; i < hi; i++) {
        const float v = x->col[i];
        const float *restrict r = x->row;
        float *restrict c = x->c + i * x->n;
        for (int64_t j = 0; j < x->n; j++) {
            c[j] = v + r[j];
        }
    }
}

void tlb_bcast_add_f32(const float *col, const float *row, float *c,
                       int64_t m, int64_t n, int nt)
{
    bc_ctx x = {col, row, c, m, n};
    par(bcast_part, &x, m, nt, 1);
}

/* ---- c = a.T + a and c = a.T, n x n, in TILE x TILE tiles ---------------- */

typedef struct {
    const float *a;
    float *c;
    int64_t n;
} sq_ctx;

static void tadd_part(void *vc, int64_t lo, int64_t hi)
{
    const sq_ctx *x = vc;
    const int64_t n = x->n;
    const float *restrict a = x->a;
    float *restrict c = x->c;
    for (int64_t ii = lo; ii < hi; ii += TILE) {
        const int64_t ie = ii + TILE < hi ? ii + TILE : hi;
        for (int64_t jj = 0; jj < n; jj += TILE) {
            const int64_t je = jj + TILE < n ? jj + TILE : n;
            for (int64_t i = ii; i < ie; i++) {
                for (int64_t j = jj; j < je; j++) {
                    c[i * n + j] = a[j * n + i] + a[i * n + j];
                }
            }
        }
    }
}

void tlb_tadd_f32(const float *a, float *c, int64_t n, int nt)
{
    sq_ctx x = {a, c, n};
    par(tadd_part, &x, n, nt, TILE);
}

static void tcopy_part(void *vc, int64_t lo, int64_t hi)
{
    const sq_ctx *x = vc;
    const int64_t n = x->n;
    const float *restrict a = x->a;
    float *restrict c = x->c;
    for (int64_t ii = lo; ii < hi; ii += TILE) {
        const int64_t ie = ii + TILE < hi ? ii + TILE : hi;
        for (int64_t jj = 0; jj < n; jj += TILE) {
            const int64_t je = jj + TILE < n ? jj + TILE : n;
            for (int64_t i = ii; i < ie; i++) {
                for (int64_t j = jj; j < je; j++) {
                    c[i * n + j] = a[j * n + i];
                }
            }
        }
    }
}

void tlb_tcopy_f32(const float *a, float *c, int64_t n, int nt)
{
    sq_ctx x = {a, c, n};
    par(tcopy_part, &x, n, nt, TILE);
}

/* ---- sums ------------------------------------------------------------------ */

/* Blocks of 4096 summed in 16 float lanes (vectorised), block sums added
 * in double: accurate to well within the runner's check, at read speed. */
static double sum_range(const float *restrict a, int64_t lo, int64_t hi)
{
    double total = 0;
    for (int64_t b = lo; b < hi; b += 4096) {
        const int64_t e = b + 4096 < hi ? b + 4096 : hi;
        float acc[16] = {0};
        int64_t i = b;
        for (; i + 16 <= e; i += 16) {
            for (int k = 0; k < 16; k++) {
                acc[k] += a[i + k];
            }
        }
        float s = 0;
        for (; i < e; i++) {
            s += a[i];
        }
        for (int k = 0; k < 16; k++) {
            s += acc[k];
        }
        total += s;
    }
    return total;
}

typedef struct {
    const float *a;
    double partial[MAXT];
    int64_t per;
} sum_ctx;

static void sum_part(void *vc, int64_t lo, int64_t hi)
{
    sum_ctx *x = vc;
    x->partial[lo / x->per] = sum_range(x->a, lo, hi);
}

double tlb_sum_f32(const float *a, int64_t n, int nt)
{
    if (nt < 1) {
        nt = 1;
    }
    if (nt > MAXT) {
        nt = MAXT;
    }
    sum_ctx x;
    x.a = a;
    /* the same part size par() uses, so lo / per names the part */
    int64_t per = (n + nt - 1) / nt;
    x.per = (per + 4095) / 4096 * 4096;
    if (x.per == 0) {
        x.per = 4096;
    }
    memset(x.partial, 0, sizeof x.partial);
    par(sum_part, &x, n, n < 2 * 4096 ? 1 : nt, 4096);
    double s = 0;
    for (int t = 0; t < MAXT; t++) {
        s += x.partial[t];
    }
    return s;
}

/* out[j] = sum_i a[i, j] over an m x n row-major a: whole rows are added
 * into the output row (which stays in cache); threads take column ranges. */
typedef struct {
    const float *a;
    float *out;
    int64_t m, n;
} sum0_ctx;

static void sum0_part(void *vc, int64_t lo, int64_t hi)
{
    const sum0_ctx *x = vc;
    float *restrict o = x->out;
    for (int64_t j = lo; j < hi; j++) {
        o[j] = 0;
    }
    for (int64_t i = 0; i < x->m; i++) {
        const float *restrict r = x->a + i * x->n;
        for (int64_t j = lo; j < hi; j++) {
            o[j] += r[j];
        }
    }
}

void tlb_sum0_f32(const float *a, float *out, int64_t m, int64_t n, int nt)
{
    sum0_ctx x = {a, out, m, n};
    par(sum0_part, &x, n, nt, 16);
}

/* ---- cast, in-place flip add ---------------------------------------------- */

typedef struct {
    const float *a;
    double *d;
} cast_ctx;

static void cast_part(void *vc, int64_t lo, int64_t hi)
{
    const cast_ctx *x = vc;
    const float *restrict a = x->a;
    double *restrict d = x->d;
    for (int64_t i = lo; i < hi; i++) {
        d[i] = (double)a[i];
    }
}

void tlb_cast_f32_f64(const float *a, double *d, int64_t n, int nt)
{
    cast_ctx x = {a, d};
    par(cast_part, &x, n, nt, 4096);
}

/* x += x[::-1] in place: x[i] and x[n-1-i] both become their sum, one
 * read and one write pass, no temporary. */
typedef struct {
    float *x;
    int64_t n;
} flip_ctx;

static void flip_part(void *vc, int64_t lo, int64_t hi)
{
    const flip_ctx *f = vc;
    float *x = f->x;
    const int64_t n = f->n;
    /* Blocks of 64 from the front and the mirrored block from the back,
     * through small buffers so that the loops vectorise. */
    for (int64_t b = lo; b < hi; b += 64) {
        const int64_t m = b + 64 < hi ? 64 : hi - b;
        float front[64], back[64], s[64];
        memcpy(front, x + b, (size_t)m * sizeof(float));
        memcpy(back, x + n - b - m, (size_t)m * sizeof(float));
        for (int64_t k = 0; k < m; k++) {
            s[k] = front[k] + back[m - 1 - k];
        }
        memcpy(x + b, s, (size_t)m * sizeof(float));
        for (int64_t k = 0; k < m; k++) {
            back[m - 1 - k] = s[k];
        }
        memcpy(x + n - b - m, back, (size_t)m * sizeof(float));
    }
}

void tlb_flip_iadd_f32(float *x, int64_t n, int nt)
{
    flip_ctx f = {x, n};
    par(flip_part, &f, n / 2, nt, 4096);
    if (n % 2) {
        x[n / 2] += x[n / 2];
    }
}
