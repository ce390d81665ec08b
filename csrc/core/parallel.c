/* csrc/core/parallel.c — a small pthread pool: parallel loops over
 * contiguous ranges or fixed chunks, the thread count, fork safety, and the
 * hooks that let the Python layer release the GIL around big loops.  It
 * knows nothing of tensors; it mallocs only its thread table. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "parallel.h"
#include "../alloc/fault.h"
#include "tensorlib/status.h"

/* Note [Thread pool]
 * Workers sleep on work_cv until `generation` moves.  A caller (one at a
 * time: job_mu; a second caller, or a nested one, runs its loop serially)
 * publishes a job -- task, ctx, task ranges -- under mu, bumps the
 * generation and runs tasks itself too.  Tasks are claimed with atomic
 * counters (Note [Task ranges]).  A worker joining a job counts itself in
 * `active` under mu and reads the job there, so it never mixes two jobs;
 * the caller returns once every task is done and no worker is still
 * inside the job.  A worker may wake only after the job it was woken for
 * is over: `open` (cleared under mu before the caller waits) keeps it
 * from joining then, or it would claim task numbers from the next job's
 * counters with this job's task and ctx (a ctx on a returned caller's
 * stack).  Workers with an id at or above the job's `want` sit it out, so
 * tl_set_num_threads can lower the count without stopping threads.
 *
 * Spinning (Note [Spin before sleeping]): a worker that finds no new
 * generation, and a caller whose workers are still busy, first spin on
 * the atomic fields for up to TL_SPIN_NS before they sleep on the
 * condition variables.
 *
 * fork(): the prepare handler takes job_mu and mu, so no job is half
 * published; in the child the workers are gone, so the handler forgets
 * them, unlocks, and re-creates the condition variables (their waiters
 * vanished with the parent's threads).  Workers are created again lazily
 * on the next parallel loop. */
static struct {
    pthread_mutex_t mu;
    pthread_mutex_t job_mu;
    pthread_cond_t work_cv;
    pthread_cond_t done_cv;
    pthread_t *threads; /* malloc'd; nworkers entries in use */
    int nworkers;
    int cap;
    uint64_t generation;
    void (*task)(void *ctx, int64_t t);
    void *ctx;
    int want; /* workers 0 .. want-1 take part in this job */
    bool open; /* the job may still be joined (Note [Thread pool]) */
    int active;
    int nranges; /* task ranges in use (Note [Task ranges]) */
    atomic_llong pending;
    atomic_int awake; /* workers not asleep on work_cv (Note [Cold pool]) */
    atomic_llong last_cold_ns; /* a small job's time while all slept */
} pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .job_mu = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
};

/* Note [Task ranges]
 * A job's tasks are cut into one contiguous range per thread taking part
 * (range 0 for the caller, range w + 1 for worker w), each with its own
 * claim counter on its own cache line.  A thread claims the tasks of its
 * range in order, then those left in the others, one at a time from their
 * fronts: a thread that is late or descheduled still loses its tasks to
 * the others, as with one shared counter.  What the ranges buy: each
 * thread streams through its own contiguous stretch of memory.  Reduction
 * chunks (Note [Reduction chunks]) handed out in turn from one counter put
 * two threads on neighbouring 128 KB chunks; a two-thread C sum of 2^24
 * floats (AVX2, the pool's spinning, the two layouts alternated in one
 * process, 2-vCPU Zen 4 VM) took 1.47 ms that way and 1.12-1.13 ms with
 * a contiguous half per thread (2^23: 569 -> 512-524 us).  In the library
 * (float32 sum and amax on two threads, both ways alternated in one
 * process, four runs): 2^22 floats 5-15% faster in every run, 2^23 and
 * 2^24 up to 10% faster in most runs and within noise in the rest.  The
 * ranges end where the tasks do, so a task's number still decides
 * everything it computes: results do not depend on which thread ran it. */
#define TL_TASK_RANGES 64
typedef struct {
    _Alignas(64) atomic_llong next;
    int64_t end;
} task_range;
static task_range task_ranges[TL_TASK_RANGES];

/* Note [Spin before sleeping]
 * Waking a thread asleep on a condition variable takes a futex call and
 * a trip through the scheduler: 20-60 us on the 2-vCPU VMs here, as long
 * as a whole sum of 10^6 floats.  So back-to-back parallel ops at
 * 10^5-10^6 elements gained nothing from a second thread (sum of 10^6
 * floats: 62 us on one thread and on two; PyTorch's OpenMP workers spin
 * and took 37).  A worker that finishes a job, and a caller that finishes
 * its share first, now spin on `generation` (resp. `pending` and
 * `active`) with a pause instruction for up to TL_SPIN_NS before
 * sleeping, as OpenMP runtimes do (for far longer by default: GOMP
 * spins about 300,000 rounds, Intel's KMP_BLOCKTIME is 200 ms).  The
 * fields the spinners read are written with atomic stores under mu;
 * everything else is still read under mu, so the protocol of Note
 * [Thread pool] is unchanged.  The cost: an idle worker burns up to
 * TL_SPIN_NS of CPU after each parallel loop. */
#define TL_SPIN_NS 100000

/* Note [Cold pool]
 * Waking a worker asleep on work_cv costs the caller about 10 us here (the
 * broadcast's futex call 6 us, and with mu still held, the woken worker's
 * hand-off 4 more), and the worker starts its share only about 65 us after
 * the broadcast (a two-thread C program, median of 200 wakes, 2-vCPU VM).
 * So a loop of less than about 16 shares -- 16 grains, some 64 us of work
 * with the grains of Note [Grain per op] -- gains nothing from waking it:
 * the caller runs every share itself before the worker arrives, and pays
 * the 10 us (an isolated add of 2^16 floats: 10.6 us on one thread, 18.9
 * with the wake).  tl_parallel_for therefore runs such a loop on the
 * calling thread when no worker is awake, unless another such loop came
 * less than TL_COLD_WINDOW_NS before: a run of back-to-back loops wakes the
 * workers once, and they then stay awake through the spinning of Note
 * [Spin before sleeping] (so a timing loop of 2^16-element adds still takes
 * both threads).  The job's broadcast also comes after mu is released, so
 * a woken worker does not wait for the caller's unlock. */
#define TL_COLD_SHARES 16
#define TL_COLD_WINDOW_NS 1000000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spins while busy(arg) holds, for at most TL_SPIN_NS; called without mu. */
static void spin_while(bool (*busy)(uint64_t), uint64_t arg)
{
    const int64_t t0 = now_ns();
    for (int i = 1; busy(arg); i++) {
        cpu_relax();
        if ((i & 63) == 0 && now_ns() - t0 > TL_SPIN_NS) {
            return;
        }
    }
}

static atomic_int num_threads; /* 0: not set, use the core count */
static _Thread_local int in_region;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void *(*release_hook)(void);
static void (*reacquire_hook)(void *);

bool tl_parallel_in_region(void) { return in_region != 0; }

void tl_parallel_set_release_hooks(void *(*release)(void),
                                   void (*reacquire)(void *token))
{
    release_hook = release;
    reacquire_hook = reacquire;
}

void *tl_parallel_release(void)
{
    return release_hook ? release_hook() : NULL;
}

void tl_parallel_reacquire(void *token)
{
    if (reacquire_hook) {
        reacquire_hook(token);
    }
}

static int default_threads(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) {
            return n;
        }
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int tl_set_num_threads(int n)
{
    if (n < 1) {
        return tl_error(TL_ERR_VALUE,
                        "set_num_threads: the number of threads must be "
                        "positive, got %d", n);
    }
    if (n > 1024) {
        n = 1024;
    }
    atomic_store(&num_threads, n);
    return 0;
}

int tl_get_num_threads(void)
{
    int n = atomic_load(&num_threads);
    if (n == 0) {
        n = default_threads();
        int expected = 0;
        atomic_compare_exchange_strong(&num_threads, &expected, n);
        n = atomic_load(&num_threads);
    }
    return n;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&pool.job_mu);
    pthread_mutex_lock(&pool.mu);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.job_mu);
}

static void fork_child(void)
{
    free(pool.threads);
    pool.threads = NULL;
    pool.nworkers = 0;
    pool.cap = 0;
    pool.active = 0;
    pool.open = false;
    atomic_store(&pool.awake, 0);
    atomic_store(&pool.pending, 0);
    pthread_cond_init(&pool.work_cv, NULL);
    pthread_cond_init(&pool.done_cv, NULL);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.job_mu);
}

static void register_atfork(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Claims and runs tasks until none is left: first those of the range
 * `part` starts at, then the other ranges' (Note [Task ranges]). */
static void run_tasks(void (*task)(void *, int64_t), void *ctx, int part)
{
    const int nr = pool.nranges;
    int64_t done = 0;
    for (int k = 0; k < nr; k++) {
        task_range *r = &task_ranges[(part + k) % nr];
        for (;;) {
            int64_t t = atomic_fetch_add(&r->next, 1);
            if (t >= r->end) {
                break;
            }
            task(ctx, t);
            done++;
        }
    }
    if (done) {
        atomic_fetch_sub(&pool.pending, done);
    }
}

/* spin_while's conditions: no job after generation `seen` yet; the
 * current job still has tasks or workers. */
static bool no_new_job(uint64_t seen)
{
    return __atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == seen;
}

static bool job_running(uint64_t unused)
{
    (void)unused;
    return atomic_load(&pool.pending) > 0 ||
           __atomic_load_n(&pool.active, __ATOMIC_ACQUIRE) > 0;
}

static void *worker_main(void *arg)
{
    const int id = (int)(intptr_t)arg;
    in_region = 1;
    atomic_fetch_add(&pool.awake, 1);
    pthread_mutex_lock(&pool.mu);
    uint64_t seen = pool.generation;
    for (;;) {
        if (pool.generation == seen) {
            /* Note [Spin before sleeping] */
            pthread_mutex_unlock(&pool.mu);
            spin_while(no_new_job, seen);
            pthread_mutex_lock(&pool.mu);
        }
        if (pool.generation == seen) {
            atomic_fetch_sub(&pool.awake, 1); /* Note [Cold pool] */
            while (pool.generation == seen) {
                pthread_cond_wait(&pool.work_cv, &pool.mu);
            }
            atomic_fetch_add(&pool.awake, 1);
        }
        seen = pool.generation;
        if (!pool.open || id >= pool.want) {
            continue; /* woken too late for a finished job, or not wanted */
        }
        void (*task)(void *, int64_t) = pool.task;
        void *ctx = pool.ctx;
        __atomic_store_n(&pool.active, pool.active + 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&pool.mu);
        run_tasks(task, ctx, id + 1);
        pthread_mutex_lock(&pool.mu);
        __atomic_store_n(&pool.active, pool.active - 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&pool.done_cv);
    }
    return NULL; /* not reached: workers live as long as the process */
}

/* Makes at least n workers (fewer if the system refuses).  Called with mu
 * held.  Returns: the number of workers. */
static int ensure_workers(int n)
{
    if (n > pool.cap) {
        pthread_t *t = tl_fault_realloc(pool.threads, (size_t)n * sizeof *t);
        if (!t) {
            return pool.nworkers;
        }
        pool.threads = t;
        pool.cap = n;
    }
    while (pool.nworkers < n) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&pool.threads[pool.nworkers], &attr,
                                worker_main,
                                (void *)(intptr_t)pool.nworkers);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            break;
        }
        pool.nworkers++;
    }
    return pool.nworkers;
}

/* Runs task(ctx, t) for t in [0, ntasks) on up to nthreads threads (the
 * caller included).  Returns false, having run nothing, when the pool is
 * unavailable (busy, nested, or no workers): the caller runs serially. */
static bool pool_run(int nthreads, int64_t ntasks,
                     void (*task)(void *, int64_t), void *ctx)
{
    if (in_region || nthreads <= 1 || ntasks <= 1) {
        return false;
    }
    pthread_once(&atfork_once, register_atfork);
    if (pthread_mutex_trylock(&pool.job_mu) != 0) {
        return false;
    }
    pthread_mutex_lock(&pool.mu);
    int workers = ensure_workers(nthreads - 1);
    if (workers == 0) {
        pthread_mutex_unlock(&pool.mu);
        pthread_mutex_unlock(&pool.job_mu);
        return false;
    }
    pool.task = task;
    pool.ctx = ctx;
    pool.want = nthreads - 1 < workers ? nthreads - 1 : workers;
    /* Note [Task ranges] */
    int nr = pool.want + 1 < TL_TASK_RANGES ? pool.want + 1 : TL_TASK_RANGES;
    if (nr > ntasks) {
        nr = (int)ntasks;
    }
    const int64_t base = ntasks / nr, rem = ntasks % nr;
    int64_t begin = 0;
    for (int r = 0; r < nr; r++) {
        atomic_store_explicit(&task_ranges[r].next, begin,
                              memory_order_relaxed);
        begin += base + (r < rem ? 1 : 0);
        task_ranges[r].end = begin;
    }
    pool.nranges = nr;
    atomic_store(&pool.pending, ntasks);
    pool.open = true;
    __atomic_store_n(&pool.generation, pool.generation + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pool.mu);
    /* After the unlock (Note [Cold pool]): a sleeper re-checks generation
     * under mu, so none misses the job; job_mu keeps fork() away. */
    pthread_cond_broadcast(&pool.work_cv);

    in_region = 1;
    run_tasks(task, ctx, 0);
    in_region = 0;

    pthread_mutex_lock(&pool.mu);
    pool.open = false; /* every task is claimed: no one may join late */
    if (atomic_load(&pool.pending) > 0 || pool.active > 0) {
        /* Note [Spin before sleeping] */
        pthread_mutex_unlock(&pool.mu);
        spin_while(job_running, 0);
        pthread_mutex_lock(&pool.mu);
    }
    while (atomic_load(&pool.pending) > 0 || pool.active > 0) {
        pthread_cond_wait(&pool.done_cv, &pool.mu);
    }
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.job_mu);
    return true;
}

typedef struct {
    void (*fn)(void *ctx, int64_t begin, int64_t end);
    void *ctx;
    int64_t n;
    int64_t parts;
} range_job;

static void range_task(void *vctx, int64_t t)
{
    const range_job *j = vctx;
    int64_t base = j->n / j->parts, rem = j->n % j->parts;
    int64_t begin = t * base + (t < rem ? t : rem);
    int64_t end = begin + base + (t < rem ? 1 : 0);
    if (begin < end) {
        j->fn(j->ctx, begin, end);
    }
}

void tl_parallel_for(int64_t n, int64_t grain,
                     void (*fn)(void *ctx, int64_t begin, int64_t end),
                     void *ctx)
{
    if (n <= 0) {
        return;
    }
    int64_t nt = tl_get_num_threads();
    int64_t max_parts = grain > 0 ? n / grain + (n % grain != 0) : n;
    if (nt > max_parts) {
        nt = max_parts;
    }
    if (nt > 1 && max_parts < TL_COLD_SHARES &&
        atomic_load(&pool.awake) == 0) {
        /* Note [Cold pool] */
        const int64_t t = now_ns();
        const int64_t prev = atomic_exchange(&pool.last_cold_ns, t);
        if (t - prev >= TL_COLD_WINDOW_NS) {
            fn(ctx, 0, n);
            return;
        }
    }
    range_job j = {fn, ctx, n, nt};
    if (!pool_run((int)nt, nt, range_task, &j)) {
        fn(ctx, 0, n);
    }
}

void tl_parallel_chunks(int64_t nchunks, void (*fn)(void *ctx, int64_t chunk),
                        void *ctx)
{
    if (nchunks <= 0) {
        return;
    }
    int64_t nt = tl_get_num_threads();
    if (nt > nchunks) {
        nt = nchunks;
    }
    if (!pool_run((int)nt, nchunks, fn, ctx)) {
        for (int64_t c = 0; c < nchunks; c++) {
            fn(ctx, c);
        }
    }
}
