/* tests/c/harness.h — a tiny C test harness.  A test file defines
 * functions `static void test_x(void)` and lists them in main with RUN();
 * CHECK records a failure and goes on; the process exits non-zero if any
 * check failed. */
#ifndef TENSORLIB_TESTS_HARNESS_H
#define TENSORLIB_TESTS_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tlh_failures = 0;
static int tlh_checks = 0;
static int tlh_tests = 0;

#define CHECK(c)                                                            \
    do {                                                                    \
        tlh_checks++;                                                       \
        if (!(c)) {                                                         \
            tlh_failures++;                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,          \
                    __LINE__, #c);                                          \
        }                                                                   \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                  \
    do {                                                                    \
        long long tlh_a = (long long)(a), tlh_b = (long long)(b);           \
        tlh_checks++;                                                       \
        if (tlh_a != tlh_b) {                                               \
            tlh_failures++;                                                 \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs "    \
                    "%lld)\n", __FILE__, __LINE__, #a, #b, tlh_a, tlh_b);   \
        }                                                                   \
    } while (0)

#define RUN(fn)                                                             \
    do {                                                                    \
        int tlh_before = tlh_failures;                                      \
        tlh_tests++;                                                        \
        fn();                                                               \
        printf("%s %s\n", tlh_failures == tlh_before ? "ok  " : "FAIL",     \
               #fn);                                                        \
    } while (0)

#define DONE()                                                              \
    do {                                                                    \
        printf("%d tests, %d checks, %d failures\n", tlh_tests,             \
               tlh_checks, tlh_failures);                                   \
        return tlh_failures ? 1 : 0;                                        \
    } while (0)

#endif /* TENSORLIB_TESTS_HARNESS_H */
