/*
 * harness.h — the C tests' registry and assertions.
 *
 * A test is `TEST(group_name) { ... }`; it registers itself at load time.
 * `orcore_tests [prefix...]` runs the tests whose names start with a prefix
 * (all without one) and prints one line per test, then
 * "N passed, N failed". Each CTest entry runs one group (the part of the name
 * before the first '_').
 *
 * Assertions stop the current test on failure and print the file, line, the
 * expression and, for ORCore calls, orc_last_error().
 */
#ifndef ORC_TEST_HARNESS_H
#define ORC_TEST_HARNESS_H

#include "orcore.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
/** Marks the running test failed (used by the macros). */
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** A fresh path (not yet existing) inside the run's temporary directory. */
const char *test_path(const char *name);
/** The run's temporary directory (removed at exit unless ORC_TEST_KEEP is set). */
const char *test_dir(void);
/** A deterministic per-test random seed (ORC_TEST_SEED overrides), and a xorshift generator. */
uint64_t test_seed(void);
uint64_t test_rand(uint64_t *state);

#define TEST(name)                                                                  \
    static void test_##name(void);                                                  \
    __attribute__((constructor)) static void register_##name(void)                  \
    {                                                                               \
        test_register(#name, test_##name);                                          \
    }                                                                               \
    static void test_##name(void)

/* Ends the whole run, naming the test, when it has not finished within `seconds` (a
 * deadlock in the engine would otherwise hang CTest until its own timeout); 0 disarms. */
void test_guard(unsigned seconds);

/* A test that must finish within `seconds`. Its body is a function of its own, so that
 * the guard is disarmed even when a failed CHECK returns from the body early. */
#define GUARDED_TEST(name, seconds)                                                 \
    static void name##_body(void);                                                  \
    TEST(name)                                                                      \
    {                                                                               \
        test_guard(seconds);                                                        \
        name##_body();                                                              \
        test_guard(0);                                                              \
    }                                                                               \
    static void name##_body(void)

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                      \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_OK(expr)                                                              \
    do {                                                                            \
        int check_rc_ = (expr);                                                     \
        if (check_rc_ != ORC_OK) {                                                  \
            test_fail(__FILE__, __LINE__, "%s returned %s (%s)", #expr,             \
                      orc_strerror(check_rc_), orc_last_error());                   \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_RC(expr, want)                                                        \
    do {                                                                            \
        int check_rc_ = (expr);                                                     \
        if (check_rc_ != (want)) {                                                  \
            test_fail(__FILE__, __LINE__, "%s returned %s, want %s (%s)", #expr,    \
                      orc_strerror(check_rc_), orc_strerror(want), orc_last_error()); \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);             \
        if (check_a_ != check_b_) {                                                 \
            test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b,         \
                      check_a_, check_b_);                                          \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *check_a_ = (a), *check_b_ = (b);                                \
        if (strcmp(check_a_, check_b_) != 0) {                                      \
            test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,     \
                      check_a_, check_b_);                                          \
            return;                                                                 \
        }                                                                           \
    } while (0)

/** Fails the test when orc_env_check finds a problem. */
#define CHECK_ENV(env) CHECK_OK(orc_env_check((env), NULL))

/* For helpers that return bool (true: fine) instead of stopping a test. */
#define HFAIL(...)                                                                  \
    do {                                                                            \
        test_fail(__FILE__, __LINE__, __VA_ARGS__);                                 \
        return false;                                                               \
    } while (0)
#define HOK(expr)                                                                   \
    do {                                                                            \
        int h_rc_ = (expr);                                                         \
        if (h_rc_ != ORC_OK)                                                        \
            HFAIL("%s returned %s (%s)", #expr, orc_strerror(h_rc_), orc_last_error()); \
    } while (0)

/* Value constructors. Strings and binaries are borrowed, not copied. */
static inline orc_value v_null(void) { return (orc_value){.type = ORC_TYPE_NULL}; }
static inline orc_value v_bool(bool b) { return (orc_value){.type = ORC_TYPE_BOOL, .boolean = b}; }
static inline orc_value v_int(int64_t i) { return (orc_value){.type = ORC_TYPE_INT, .integer = i}; }
static inline orc_value v_float(float f) { return (orc_value){.type = ORC_TYPE_FLOAT, .fnum = f}; }
static inline orc_value v_double(double d) { return (orc_value){.type = ORC_TYPE_DOUBLE, .dnum = d}; }
static inline orc_value v_strn(const char *s, size_t n)
{
    return (orc_value){.type = ORC_TYPE_STRING, .string = {.data = s, .size = n}};
}
static inline orc_value v_str(const char *s) { return v_strn(s, strlen(s)); }
static inline orc_value v_bin(const void *p, size_t n)
{
    return (orc_value){.type = ORC_TYPE_BINARY, .string = {.data = (const char *)p, .size = n}};
}
static inline orc_value v_timestamp(int64_t seconds, int32_t nanoseconds)
{
    return (orc_value){.type = ORC_TYPE_TIMESTAMP, .timestamp = {.seconds = seconds, .nanoseconds = nanoseconds}};
}
static inline orc_value v_decimal(uint64_t low, uint64_t high)
{
    return (orc_value){.type = ORC_TYPE_DECIMAL, .decimal = {.w = {low, high}}};
}
static inline orc_value v_link(uint32_t table, uint64_t key)
{
    orc_value v = {.type = ORC_TYPE_LINK};
    v.link.table = table;
    v.link.key = key;
    return v;
}

/* Exact equality: same type and the same bits (floats by bits, strings by bytes). */
static inline bool value_identical(const orc_value *a, const orc_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case ORC_TYPE_NULL: return true;
    case ORC_TYPE_BOOL: return a->boolean == b->boolean;
    case ORC_TYPE_INT: return a->integer == b->integer;
    case ORC_TYPE_FLOAT: return memcmp(&a->fnum, &b->fnum, sizeof(float)) == 0;
    case ORC_TYPE_DOUBLE: return memcmp(&a->dnum, &b->dnum, sizeof(double)) == 0;
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        return a->string.size == b->string.size &&
               (a->string.size == 0 || memcmp(a->string.data, b->string.data, a->string.size) == 0);
    case ORC_TYPE_TIMESTAMP:
        return a->timestamp.seconds == b->timestamp.seconds && a->timestamp.nanoseconds == b->timestamp.nanoseconds;
    case ORC_TYPE_DECIMAL: return a->decimal.w[0] == b->decimal.w[0] && a->decimal.w[1] == b->decimal.w[1];
    case ORC_TYPE_OBJECT_ID: return memcmp(a->object_id, b->object_id, 12) == 0;
    case ORC_TYPE_UUID: return memcmp(a->uuid, b->uuid, 16) == 0;
    case ORC_TYPE_LINK: return a->link.table == b->link.table && a->link.key == b->link.key;
    default: return false;
    }
}

#endif
