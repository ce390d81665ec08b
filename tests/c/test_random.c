/* tests/c/test_random.c — random numbers through the public C API:
 * Philox4x32-10 against the known-answer vectors Random123 publishes
 * (tests/kat_vectors of github.com/DEShawResearch/random123), generator
 * state and reservation, reproducibility for 1 and 3 threads and for a
 * transposed destination, the [from, to) bound of float16 uniforms,
 * bounded integers, errors that leave the generator unchanged, and the
 * default generator. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorlib/iter.h"
#include "tensorlib/random.h"
#include "tensorlib/tensorlib.h"
#include "tensorlib/view.h"

static tl_tensor_impl *empty(int nd, const int64_t *sizes, tl_dtype dt)
{
    return tl_tensor_empty(nd, sizes, dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

static void test_philox_kat(void)
{
    /* counter, key, expected: the three philox4x32 10 lines. */
    static const uint32_t kat[3][10] = {
        {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
         0x00000000, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
         0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        tl_philox4x32_10(kat[v], kat[v] + 4, out);
        for (int k = 0; k < 4; k++) {
            CHECK_EQ_I64(out[k], kat[v][6 + k]);
        }
    }
}

static void test_generator_state(void)
{
    tl_generator *g = tl_generator_new(tl_device_cpu());
    uint64_t s, o;
    CHECK(g != NULL);
    CHECK_EQ_I64(tl_generator_initial_seed(g), TL_DEFAULT_SEED);
    tl_generator_manual_seed(g, 42);
    CHECK_EQ_I64(tl_generator_reserve(g, 10, &s, &o), 0);
    CHECK_EQ_I64(s, 42);
    CHECK_EQ_I64(o, 0);
    CHECK_EQ_I64(tl_generator_reserve(g, 5, &s, &o), 0);
    CHECK_EQ_I64(o, 10);
    tl_generator_get_state(g, &s, &o);
    CHECK_EQ_I64(o, 15);
    tl_generator_set_state(g, 7, UINT64_MAX - 1);
    CHECK(tl_generator_reserve(g, 2, &s, &o) == TL_ERR_OVERFLOW);
    tl_generator_get_state(g, &s, &o);
    CHECK_EQ_I64(o, (long long)(UINT64_MAX - 1));
    uint64_t a = tl_generator_seed(g);
    CHECK_EQ_I64(tl_generator_initial_seed(g), (long long)a);
    tl_generator_decref(g);
}

/* rand-like fill into a fresh tensor with the given thread count. */
static tl_tensor_impl *filled(int threads, tl_dtype dt, int64_t n,
                              int which)
{
    tl_set_num_threads(threads);
    tl_generator *g = tl_generator_new(tl_device_cpu());
    tl_generator_manual_seed(g, 1234);
    tl_tensor_impl *t = empty(1, &n, dt);
    int rc = which == 0   ? tl_random_uniform_(t, -1.0, 2.0, g)
             : which == 1 ? tl_random_normal_(t, 0.5, 2.0, g)
                          : tl_random_integers_(t, -5, 1000003, g);
    CHECK_EQ_I64(rc, 0);
    tl_generator_decref(g);
    return t;
}

static void test_threads_identical(void)
{
    const int64_t n = 300001; /* odd, several tiles, above the grain */
    const tl_dtype dts[] = {TL_DTYPE_FLOAT32, TL_DTYPE_FLOAT64,
                            TL_DTYPE_FLOAT16, TL_DTYPE_INT64};
    for (int which = 0; which < 3; which++) {
        for (int d = 0; d < 4; d++) {
            if (which < 2 && dts[d] == TL_DTYPE_INT64) {
                continue;
            }
            tl_tensor_impl *a = filled(1, dts[d], n, which);
            tl_tensor_impl *b = filled(3, dts[d], n, which);
            CHECK(memcmp(tl_tensor_data(a), tl_tensor_data(b),
                         (size_t)(n * tl_dtype_itemsize(dts[d]))) == 0);
            tl_tensor_decref(a);
            tl_tensor_decref(b);
        }
    }
    tl_set_num_threads(2);
}

static void test_transposed_identical(void)
{
    int64_t sz[2] = {37, 53};
    int64_t tsz[2] = {53, 37};
    tl_generator *g = tl_generator_new(tl_device_cpu());
    tl_tensor_impl *a = empty(2, sz, TL_DTYPE_FLOAT32);
    tl_tensor_impl *base = empty(2, tsz, TL_DTYPE_FLOAT32);
    tl_tensor_impl *b = tl_view_transpose(base, 0, 1);
    tl_generator_manual_seed(g, 9);
    CHECK_EQ_I64(tl_random_normal_(a, 0.0, 1.0, g), 0);
    tl_generator_manual_seed(g, 9);
    CHECK_EQ_I64(tl_random_normal_(b, 0.0, 1.0, g), 0);
    const float *pa = tl_tensor_data(a), *pb = tl_tensor_data(base);
    int same = 1;
    for (int i = 0; i < 37; i++) {
        for (int k = 0; k < 53; k++) {
            same &= pa[i * 53 + k] == pb[k * 37 + i];
        }
    }
    CHECK(same);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
    tl_tensor_decref(base);
    tl_generator_decref(g);
}

static void test_half_upper_bound(void)
{
    /* [1, 2) in float16 and bfloat16: 2 never appears, though 1 + u for
     * the largest u rounds to 2 in the dtype. */
    int64_t n = 1 << 16;
    const tl_dtype dts[] = {TL_DTYPE_FLOAT16, TL_DTYPE_BFLOAT16};
    for (int d = 0; d < 2; d++) {
        tl_tensor_impl *t = empty(1, &n, dts[d]);
        CHECK_EQ_I64(tl_random_uniform_(t, 1.0, 2.0, NULL), 0);
        const uint16_t *p = tl_tensor_data(t);
        float mx = 0.0f, mn = 10.0f;
        for (int64_t i = 0; i < n; i++) {
            float v = dts[d] == TL_DTYPE_FLOAT16 ? tl_half_to_float(p[i])
                                                 : tl_bf16_to_float(p[i]);
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
        }
        CHECK(mx < 2.0f);
        CHECK(mx > 1.98f);
        CHECK(mn >= 1.0f);
        tl_tensor_decref(t);
    }
}

static void test_integers(void)
{
    int64_t n = 100000;
    tl_tensor_impl *t = empty(1, &n, TL_DTYPE_INT8);
    CHECK_EQ_I64(tl_random_check_bounds("randint", TL_DTYPE_INT8, -128, 128,
                                        false), 0);
    CHECK(tl_random_check_bounds("randint", TL_DTYPE_INT8, -128, 129,
                                 false) == TL_ERR_VALUE);
    CHECK(tl_random_check_bounds("randint", TL_DTYPE_INT8, 3, 3, false) ==
          TL_ERR_VALUE);
    CHECK_EQ_I64(tl_random_integers_(t, -3, 7, NULL), 0);
    const int8_t *p = tl_tensor_data(t);
    int64_t counts[7] = {0};
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (p[i] < -3 || p[i] > 3) {
            bad = 1;
        } else {
            counts[p[i] + 3]++;
        }
    }
    CHECK(!bad);
    for (int k = 0; k < 7; k++) { /* expected 14286, sd ~ 111 */
        CHECK(counts[k] > 13500 && counts[k] < 15100);
    }
    tl_tensor_decref(t);
}

static void test_errors_leave_state(void)
{
    int64_t n = 8;
    tl_generator *g = tl_generator_new(tl_device_cpu());
    tl_tensor_impl *f = empty(1, &n, TL_DTYPE_FLOAT32);
    tl_tensor_impl *i = empty(1, &n, TL_DTYPE_INT32);
    uint64_t s0, o0, s1, o1;
    tl_generator_get_state(g, &s0, &o0);
    CHECK(tl_random_normal_(f, 0.0, -1.0, g) == TL_ERR_VALUE);
    CHECK(tl_random_normal_(f, 0.0, NAN, g) == TL_ERR_VALUE);
    CHECK(tl_random_uniform_(f, 2.0, 1.0, g) == TL_ERR_VALUE);
    CHECK(tl_random_uniform_(i, 0.0, 1.0, g) == TL_ERR_TYPE);
    CHECK(tl_random_exponential_(f, 0.0, g) == TL_ERR_VALUE);
    CHECK(tl_random_geometric_(f, 1.0, g) == TL_ERR_VALUE);
    CHECK(tl_random_bernoulli_(f, 1.5, g) == TL_ERR_VALUE);
    CHECK(tl_random_cauchy_(f, 0.0, 0.0, g) == TL_ERR_VALUE);
    tl_generator_get_state(g, &s1, &o1);
    CHECK_EQ_I64(o1, o0);
    CHECK_EQ_I64(s1, s0);
    /* Expanded (self-overlapping) destinations are refused. */
    int64_t one = 1, four = 4, zero = 0;
    tl_tensor_impl *s = empty(1, &one, TL_DTYPE_FLOAT32);
    tl_tensor_impl *e = tl_tensor_as_strided(s, 1, &four, &zero, 0);
    CHECK(e != NULL);
    CHECK(tl_random_uniform_(e, 0.0, 1.0, g) == TL_ERR_SHAPE);
    tl_tensor_decref(e);
    tl_tensor_decref(s);
    tl_tensor_decref(f);
    tl_tensor_decref(i);
    tl_generator_decref(g);
}

static void test_default_generator(void)
{
    tl_generator *d = tl_generator_default(tl_device_cpu());
    CHECK(d != NULL);
    CHECK(d == tl_generator_default(tl_device_cpu()));
    tl_generator_incref(d); /* no-ops on defaults */
    tl_generator_decref(d);
    tl_generator_decref(d);
    CHECK(tl_generator_device(d).type == TL_DEVICE_CPU);
}

/* Note [Taking back a draw]: a marked call's reservations are undone only
 * while the generator moved by exactly them. */
static void test_take_back(void)
{
    tl_generator *g = tl_generator_new(tl_device_cpu());
    tl_generator *h = tl_generator_new(tl_device_cpu());
    uint64_t seed, off, s0, o0, o;
    tl_generator_manual_seed(g, 9);
    tl_generator_get_state(g, &s0, &o0);

    /* nothing drawn: nothing to take back */
    tl_draw_mark m;
    tl_generator_mark(g, &m);
    CHECK(!tl_generator_take_back(&m));
    tl_generator_unmark(&m);

    /* this thread's draws only (two of them, and one from another
     * generator that is not counted): undone */
    tl_generator_mark(g, &m);
    CHECK(tl_generator_reserve(g, 5, &seed, &off) == 0);
    CHECK(tl_generator_reserve(h, 3, &seed, &off) == 0);
    CHECK(tl_generator_reserve(g, 2, &seed, &off) == 0);
    CHECK_EQ_I64(m.drawn, 7);
    CHECK(tl_generator_take_back(&m));
    tl_generator_unmark(&m);
    tl_generator_get_state(g, &seed, &o);
    CHECK_EQ_I64(o, o0);
    CHECK(seed == s0);

    /* a draw after unmark is not counted */
    CHECK(tl_generator_reserve(g, 4, &seed, &off) == 0);
    CHECK(!tl_generator_take_back(&m));
    tl_generator_get_state(g, &seed, &o);
    CHECK_EQ_I64(o, o0 + 4);

    /* someone else's draw in between (set_state stands in for another
     * thread's reservation): left as it is */
    tl_generator_mark(g, &m);
    CHECK(tl_generator_reserve(g, 5, &seed, &off) == 0);
    tl_generator_set_state(g, s0, o0 + 4 + 5 + 6);
    CHECK(!tl_generator_take_back(&m));
    tl_generator_unmark(&m);
    tl_generator_get_state(g, &seed, &o);
    CHECK_EQ_I64(o, o0 + 15);

    /* reseeded in between: left as it is */
    tl_generator_mark(g, &m);
    CHECK(tl_generator_reserve(g, 5, &seed, &off) == 0);
    tl_generator_manual_seed(g, 10);
    CHECK(!tl_generator_take_back(&m));
    tl_generator_unmark(&m);
    tl_generator_get_state(g, &seed, &o);
    CHECK(seed == 10 && o == 0);

    /* NULL marks the default CPU generator */
    tl_generator *d = tl_generator_default(tl_device_cpu());
    tl_generator_get_state(d, &s0, &o0);
    tl_generator_mark(NULL, &m);
    CHECK(m.g == d);
    CHECK(tl_generator_reserve(d, 8, &seed, &off) == 0);
    CHECK(tl_generator_take_back(&m));
    tl_generator_unmark(&m);
    tl_generator_get_state(d, &seed, &o);
    CHECK_EQ_I64(o, o0);

    tl_generator_decref(h);
    tl_generator_decref(g);
}

int main(void)
{
    RUN(test_philox_kat);
    RUN(test_generator_state);
    RUN(test_threads_identical);
    RUN(test_transposed_identical);
    RUN(test_half_upper_bound);
    RUN(test_integers);
    RUN(test_errors_leave_state);
    RUN(test_default_generator);
    RUN(test_take_back);
    DONE();
}
