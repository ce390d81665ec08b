/* benchmarks/bounds/bandwidth.c — what the machine can do for the large
 * cases of benchmarks/run.py, in plain C with no library: the bound each
 * tensorlib case is held against in benchmarks/README.md ("What bounds
 * each case").
 *
 * Built and run by benchmarks/bounds/run_bounds.py; by hand:
 *   gcc -O3 -march=native -std=c11 -D_GNU_SOURCE -fopenmp-simd \
 *       benchmarks/bounds/bandwidth.c -lpthread -o build/bench/bandwidth
 *   build/bench/bandwidth [THREADS]
 *
 * Every number is the best of REPEATS runs, in ms per call and in GB/s of
 * bytes moved (read + written).  Buffers are touched before timing unless
 * the case is about first touch. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define REPEATS 9
#define N24 (1L << 24)
#define N2 4096L
#define TILE 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *xalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 2u << 20, n) != 0) {
        perror("posix_memalign");
        exit(1);
    }
    memset(p, 0, n); /* fault every page in */
    return p;
}

static float *A, *B, *C;
static double *D;

/* ---- kernels, each over [lo, hi) so threads can split them ---------------- */

static void k_memcpy(long lo, long hi)
{
    memcpy(C + lo, A + lo, (size_t)(hi - lo) * sizeof(float));
}

static void k_add(long lo, long hi)
{
    float *restrict c = C;
    const float *restrict a = A, *restrict b = B;
    for (long i = lo; i < hi; i++) {
        c[i] = a[i] + b[i];
    }
}

static volatile double sink;

static void k_sum(long lo, long hi)
{
    /* 16 independent accumulators so that the adds are not the bound. */
    float acc[16] = {0};
    const float *restrict a = A;
    long i = lo;
    for (; i + 16 <= hi; i += 16) {
        for (int k = 0; k < 16; k++) {
            acc[k] += a[i + k];
        }
    }
    double s = 0;
    for (; i < hi; i++) {
        s += a[i];
    }
    for (int k = 0; k < 16; k++) {
        s += acc[k];
    }
    sink = s;
}

static void k_cast(long lo, long hi)
{
    double *restrict d = D;
    const float *restrict a = A;
    for (long i = lo; i < hi; i++) {
        d[i] = (double)a[i];
    }
}

/* rows [lo, hi) of c = a.T + a, 4096 x 4096, naive: a.T read with a
 * 16 KiB stride. */
static void k_tadd_naive(long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        for (long j = 0; j < N2; j++) {
            C[i * N2 + j] = A[j * N2 + i] + A[i * N2 + j];
        }
    }
}

/* the same in TILE x TILE tiles (rows lo..hi are tile-aligned). */
static void k_tadd_tiled(long lo, long hi)
{
    for (long ii = lo; ii < hi; ii += TILE) {
        for (long jj = 0; jj < N2; jj += TILE) {
            for (long i = ii; i < ii + TILE; i++) {
                for (long j = jj; j < jj + TILE; j++) {
                    C[i * N2 + j] = A[j * N2 + i] + A[i * N2 + j];
                }
            }
        }
    }
}

static void k_tcopy_naive(long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        for (long j = 0; j < N2; j++) {
            C[i * N2 + j] = A[j * N2 + i];
        }
    }
}

static void k_tcopy_tiled(long lo, long hi)
{
    for (long ii = lo; ii < hi; ii += TILE) {
        for (long jj = 0; jj < N2; jj += TILE) {
            for (long i = ii; i < ii + TILE; i++) {
                for (long j = jj; j < jj + TILE; j++) {
                    C[i * N2 + j] = A[j * N2 + i];
                }
            }
        }
    }
}

/* rows [lo, hi) of (4096,1) + (1,4096) */
static void k_bcast(long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        const float x = A[i];
        float *restrict c = C + i * N2;
        const float *restrict b = B;
        for (long j = 0; j < N2; j++) {
            c[j] = x + b[j];
        }
    }
}

/* sum over dim 0 of 4096 x 4096 into 4096 floats: rows added into one
 * accumulator row that stays in L1. */
static void k_sum0(long lo, long hi)
{
    float *restrict out = C + lo;
    for (long j = lo; j < hi; j++) {
        out[j - lo] = 0;
    }
    for (long i = 0; i < N2; i++) {
        const float *restrict row = A + i * N2;
        for (long j = lo; j < hi; j++) {
            out[j - lo] += row[j];
        }
    }
}

/* ---- threads ----------------------------------------------------------------- */

typedef struct {
    void (*fn)(long, long);
    long lo, hi;
} job;

static void *run_job(void *p)
{
    job *j = p;
    j->fn(j->lo, j->hi);
    return NULL;
}

/* Splits [0, n) into nt ranges (aligned to `align`) run on nt threads. */
static void parallel(void (*fn)(long, long), long n, int nt, long align)
{
    if (nt <= 1) {
        fn(0, n);
        return;
    }
    pthread_t th[64];
    job jobs[64];
    long per = (n / nt + align - 1) / align * align;
    for (int t = 0; t < nt; t++) {
        long lo = t * per, hi = lo + per < n ? lo + per : n;
        jobs[t] = (job){fn, lo < n ? lo : n, hi};
        if (t > 0) {
            pthread_create(&th[t], NULL, run_job, &jobs[t]);
        }
    }
    run_job(&jobs[0]);
    for (int t = 1; t < nt; t++) {
        pthread_join(th[t], NULL);
    }
}

static void report(const char *name, const char *what, double ms,
                   double bytes)
{
    printf("%-22s %9.2f ms %8.1f GB/s  %s\n", name, ms, bytes / ms / 1e6,
           what);
    fflush(stdout);
}

static double best(void (*fn)(long, long), long n, int nt, long align)
{
    double b = 1e300;
    parallel(fn, n, nt, align); /* warm-up */
    for (int r = 0; r < REPEATS; r++) {
        double t0 = now_ms();
        parallel(fn, n, nt, align);
        double t = now_ms() - t0;
        if (t < b) {
            b = t;
        }
    }
    return b;
}

/* First touch: a fresh mapping of n bytes written once, then unmapped, as
 * an allocating op whose allocator returns memory to the OS pays it. */
static double first_touch(size_t n, bool huge)
{
    double b = 1e300;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = now_ms();
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        if (huge) {
            (void)madvise(p, n, MADV_HUGEPAGE);
        }
        memset(p, 1, n);
        munmap(p, n);
        double t = now_ms() - t0;
        if (t < b) {
            b = t;
        }
    }
    return b;
}

static double warm_memset(size_t n)
{
    char *p = xalloc(n);
    double b = 1e300;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = now_ms();
        memset(p, r, n);
        double t = now_ms() - t0;
        if (t < b) {
            b = t;
        }
    }
    free(p);
    return b;
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 1;
    if (nt < 1 || nt > 64) {
        nt = 1;
    }
    const double f4 = sizeof(float), mb64 = N24 * f4;
    A = xalloc((size_t)N24 * sizeof(float));
    B = xalloc((size_t)N24 * sizeof(float));
    C = xalloc((size_t)N24 * sizeof(float));
    D = xalloc((size_t)N24 * sizeof(double));
    for (long i = 0; i < N24; i++) {
        A[i] = (float)(i % 1000) * 0.5f;
        B[i] = 1.0f;
    }
    printf("threads: %d   (2^24 float32 = 64 MiB; 4096x4096 float32 = 64 "
           "MiB)\n", nt);
    printf("%-22s %12s %13s  %s\n", "case", "time", "bandwidth", "what");
    report("memcpy_64MiB", "memcpy of 64 MiB (read 64 + write 64)",
           best(k_memcpy, N24, nt, 4096), 2 * mb64);
    report("add_2^24", "c[i] = a[i] + b[i], all pre-faulted (3 x 64 MiB)",
           best(k_add, N24, nt, 4096), 3 * mb64);
    report("sum_2^24", "sum of 64 MiB (read only)",
           best(k_sum, N24, nt, 4096), mb64);
    report("cast_f32_f64", "d[i] = (double)a[i] into pre-faulted 128 MiB",
           best(k_cast, N24, nt, 4096), 3 * mb64);
    report("bcast_add", "(4096,1) + (1,4096): one 64 MiB output stream",
           best(k_bcast, N2, nt, 1), mb64);
    report("sum_dim0", "4096x4096 summed over dim 0, row by row",
           best(k_sum0, N2, nt, 16), mb64);
    report("tadd_naive", "c = a.T + a, a.T read with a 16 KiB stride",
           best(k_tadd_naive, N2, nt, 1), 3 * mb64);
    report("tadd_tiled", "c = a.T + a in 64x64 tiles",
           best(k_tadd_tiled, N2, nt, TILE), 3 * mb64);
    report("tcopy_naive", "c = a.T (contiguous copy), naive",
           best(k_tcopy_naive, N2, nt, 1), 2 * mb64);
    report("tcopy_tiled", "c = a.T in 64x64 tiles",
           best(k_tcopy_tiled, N2, nt, TILE), 2 * mb64);
    if (nt == 1) {
        report("memset_warm_64MiB", "memset of 64 MiB already faulted in",
               warm_memset((size_t)mb64), mb64);
        report("first_touch_4k", "mmap + memset + munmap 64 MiB, 4 KiB pages",
               first_touch((size_t)mb64, false), mb64);
        report("first_touch_thp", "the same after madvise(MADV_HUGEPAGE)",
               first_touch((size_t)mb64, true), mb64);
        report("first_touch_128M", "mmap + memset + munmap 128 MiB (f64 out)",
               first_touch((size_t)(2 * mb64), true), 2 * mb64);
    }
    return 0;
}
