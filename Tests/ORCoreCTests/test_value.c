/*
 * test_value.c — value.c on its own: the tagged codec, the order-preserving
 * key encoding against orc_value_compare, cross-type numeric comparison and
 * decimal128 arithmetic (decimals are built by hand from coefficient and
 * exponent, so the BID layout itself is under test).
 */
#include "harness.h"
#include "value.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

static int sgn(int x) { return (x > 0) - (x < 0); }

static orc_value v_dec(orc_decimal128 d) { orc_value v = { .type = ORC_TYPE_DECIMAL, .decimal = d }; return v; }
static orc_value v_bytes(orc_type t, const void *p, size_t n)
{
    orc_value v = { .type = t };
    v.string.data = p;
    v.string.size = n;
    return v;
}
static orc_value v_oid(uint8_t fill, uint8_t last)
{
    orc_value v = { .type = ORC_TYPE_OBJECT_ID };
    memset(v.object_id, fill, 12);
    v.object_id[11] = last;
    return v;
}
static orc_value v_uuid(uint8_t fill, uint8_t last)
{
    orc_value v = { .type = ORC_TYPE_UUID };
    memset(v.uuid, fill, 16);
    v.uuid[15] = last;
    return v;
}

static u128 p10(int n)
{
    u128 p = 1;
    while (n-- > 0) p *= 10;
    return p;
}

/* A decimal128 in the BID layout, by hand: sign, coefficient (< 10^34), exponent (bias 6176). */
static orc_decimal128 dmake(bool neg, u128 coef, int exp)
{
    orc_decimal128 d;
    d.w[0] = (uint64_t)coef;
    d.w[1] = ((uint64_t)neg << 63) | ((uint64_t)(exp + 6176) << 49) | (uint64_t)(coef >> 64);
    return d;
}

static bool dsame(orc_decimal128 a, orc_decimal128 b) { return a.w[0] == b.w[0] && a.w[1] == b.w[1]; }

static const orc_decimal128 DEC_NAN = { { 0, 0x7C00000000000000ULL } };
static const orc_decimal128 DEC_INF = { { 0, 0x7800000000000000ULL } };
static const orc_decimal128 DEC_NINF = { { 0, 0xF800000000000000ULL } };

/* Encodes `v` with keyenc into `out` (at most KEYENC_MAX bytes); returns the size. */
static size_t key_of(const orc_value *v, uint8_t *out, bool *exact)
{
    orc_buf b = { 0 };
    bool ex = false;
    int rc = keyenc(&b, v, &ex);
    size_t n = rc == ORC_OK ? b.size : 0;
    if (rc == ORC_OK && n <= KEYENC_MAX) memcpy(out, b.data, n);
    if (exact) *exact = ex;
    buf_free(&b);
    return rc == ORC_OK ? n : SIZE_MAX;
}

static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = memcmp(a, b, n);
    if (c) return sgn(c);
    return (an > bn) - (an < bn);
}

/*
 * Checks every pair of `vals`: the key order agrees with orc_value_compare
 * (exactly for exact keys, without contradiction for truncated ones), equal
 * values share a key, and no key is a prefix of a different key.
 */
static bool keys_agree(const orc_value *vals, size_t n, char *why, size_t why_size)
{
    uint8_t(*keys)[KEYENC_MAX] = malloc(n * KEYENC_MAX);
    size_t *len = malloc(n * sizeof *len);
    bool *exact = malloc(n * sizeof *exact);
    bool ok = keys && len && exact;
    for (size_t i = 0; ok && i < n; i++) {
        len[i] = key_of(&vals[i], keys[i], &exact[i]);
        if (len[i] == SIZE_MAX || len[i] > KEYENC_MAX) {
            snprintf(why, why_size, "value %zu: keyenc failed or too long", i);
            ok = false;
        }
    }
    for (size_t i = 0; ok && i < n; i++) {
        for (size_t j = 0; ok && j < n; j++) {
            int vc = sgn(orc_value_compare(&vals[i], &vals[j]));
            int kc = key_cmp(keys[i], len[i], keys[j], len[j]);
            bool both_exact = exact[i] && exact[j];
            if ((both_exact && vc != kc) || (vc < 0 && kc > 0) || (vc > 0 && kc < 0) || (vc == 0 && kc != 0)) {
                snprintf(why, why_size, "values %zu and %zu: compare %d, keys %d", i, j, vc, kc);
                ok = false;
            }
            size_t m = len[i] < len[j] ? len[i] : len[j];
            if (kc != 0 && memcmp(keys[i], keys[j], m) == 0) {
                snprintf(why, why_size, "values %zu and %zu: one key is a prefix of the other", i, j);
                ok = false;
            }
        }
    }
    free(keys);
    free(len);
    free(exact);
    return ok;
}

#define CHECK_KEYS(vals, n)                                                         \
    do {                                                                            \
        char why_[200] = "out of memory";                                           \
        if (!keys_agree((vals), (n), why_, sizeof why_)) {                          \
            test_fail(__FILE__, __LINE__, "key order: %s", why_);                   \
            return;                                                                 \
        }                                                                           \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The tagged codec                                                         */
/* ------------------------------------------------------------------------ */

static orc_value *sample_values(size_t *n)
{
    static orc_value vals[20];
    static const char str[] = "h\0llo \xc3\xa9";
    static const uint8_t bin[] = { 0, 1, 2, 0xFF };
    size_t i = 0;
    vals[i++] = v_null();
    vals[i++] = v_bool(false);
    vals[i++] = v_bool(true);
    vals[i++] = v_int(INT64_MIN);
    vals[i++] = v_int(-42);
    vals[i++] = v_float(-1.25f);
    vals[i++] = v_double(6.02214076e23);
    vals[i++] = v_double(-0.0);
    vals[i++] = v_bytes(ORC_TYPE_STRING, str, sizeof str - 1);
    vals[i++] = v_bytes(ORC_TYPE_STRING, "", 0);
    vals[i++] = v_bytes(ORC_TYPE_BINARY, bin, sizeof bin);
    vals[i++] = v_timestamp(-5, -123456789);
    vals[i++] = v_dec(dmake(true, 15, -1));
    vals[i++] = v_oid(0xAB, 0x01);
    vals[i++] = v_uuid(0x5C, 0xFE);
    vals[i++] = v_link(7, 0xFFFFFFFFFFFFFFFFULL);
    *n = i;
    return vals;
}

TEST(value_codec_roundtrip)
{
    size_t n;
    orc_value *vals = sample_values(&n);
    orc_buf b = { 0 };
    for (size_t i = 0; i < n; i++) CHECK_OK(val_encode(&b, &vals[i]));
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += val_encoded_size(&vals[i]);
    CHECK_EQ(total, b.size);

    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        orc_value out;
        size_t before = pos;
        CHECK_OK(val_decode(b.data, b.size, &pos, &out));
        CHECK_EQ(pos - before, val_encoded_size(&vals[i]));
        CHECK_EQ(out.type, vals[i].type);
        CHECK_EQ(orc_value_compare(&out, &vals[i]), 0);
        if (out.type == ORC_TYPE_STRING || out.type == ORC_TYPE_BINARY) {
            CHECK(out.string.data >= (const char *)b.data && out.string.data <= (const char *)b.data + b.size);
        }
        if (out.type == ORC_TYPE_DOUBLE) CHECK_EQ(signbit(out.dnum) != 0, signbit(vals[i].dnum) != 0);
        if (out.type == ORC_TYPE_DECIMAL) CHECK(dsame(out.decimal, vals[i].decimal));
        if (out.type == ORC_TYPE_TIMESTAMP) CHECK_EQ(out.timestamp.nanoseconds, vals[i].timestamp.nanoseconds);
    }
    CHECK_EQ(pos, b.size);
    buf_free(&b);
}

TEST(value_codec_layout)
{
    /* The bytes of the query grammar's `value` production, little-endian. */
    orc_buf b = { 0 };
    orc_value v = v_int(0x0102030405060708LL);
    CHECK_OK(val_encode(&b, &v));
    const uint8_t want_int[] = { 2, 8, 7, 6, 5, 4, 3, 2, 1 };
    CHECK_EQ(b.size, sizeof want_int);
    CHECK(memcmp(b.data, want_int, sizeof want_int) == 0);

    b.size = 0;
    v = v_link(0x0A0B0C0D, 0x1122334455667788ULL);
    CHECK_OK(val_encode(&b, &v));
    const uint8_t want_link[] = { 11, 0x0D, 0x0C, 0x0B, 0x0A, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
    CHECK_EQ(b.size, sizeof want_link);
    CHECK(memcmp(b.data, want_link, sizeof want_link) == 0);

    b.size = 0;
    v = v_str("ab");
    CHECK_OK(val_encode(&b, &v));
    const uint8_t want_str[] = { 5, 2, 0, 0, 0, 'a', 'b' };
    CHECK_EQ(b.size, sizeof want_str);
    CHECK(memcmp(b.data, want_str, sizeof want_str) == 0);

    b.size = 0;
    v = v_timestamp(-1, -2);
    CHECK_OK(val_encode(&b, &v));
    const uint8_t want_ts[] = { 7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF };
    CHECK_EQ(b.size, sizeof want_ts);
    CHECK(memcmp(b.data, want_ts, sizeof want_ts) == 0);

    b.size = 0;
    v = v_bool(true);
    CHECK_OK(val_encode(&b, &v));
    CHECK_EQ(b.size, 2);
    CHECK_EQ(b.data[0], 1);
    CHECK_EQ(b.data[1], 1);

    b.size = 0;
    v = v_dec(dmake(false, 15, -1));
    CHECK_OK(val_encode(&b, &v));
    CHECK_EQ(b.size, 17);
    CHECK_EQ(b.data[0], 8);
    CHECK_EQ(ld64(b.data + 1), 15);
    CHECK_EQ(ld64(b.data + 9), (uint64_t)6175 << 49);

    /* MIXED is not a value type. */
    v.type = ORC_TYPE_MIXED;
    CHECK_RC(val_encode(&b, &v), ORC_ERR_WRONG_TYPE);
    CHECK_EQ(val_encoded_size(&v), 0);
    buf_free(&b);
}

TEST(value_codec_corrupt)
{
    size_t n;
    orc_value *vals = sample_values(&n);
    for (size_t i = 0; i < n; i++) {
        orc_buf b = { 0 };
        CHECK_OK(val_encode(&b, &vals[i]));
        /* Every proper prefix is truncated. */
        for (size_t cut = 0; cut < b.size; cut++) {
            size_t pos = 0;
            orc_value out;
            CHECK_RC(val_decode(b.data, cut, &pos, &out), ORC_ERR_CORRUPT);
            CHECK_EQ(pos, 0);
            CHECK(strstr(orc_last_error(), "offset 0") != NULL);
        }
        buf_free(&b);
    }

    orc_value out;
    size_t pos;
    /* A bool byte other than 0 / 1. */
    const uint8_t bad_bool[] = { 1, 2 };
    pos = 0;
    CHECK_RC(val_decode(bad_bool, sizeof bad_bool, &pos, &out), ORC_ERR_CORRUPT);
    /* MIXED and unknown type bytes; the offset is reported. */
    const uint8_t bad_types[] = { 0, 12, 200 };
    pos = 1;
    CHECK_RC(val_decode(bad_types, sizeof bad_types, &pos, &out), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "offset 1") != NULL);
    pos = 2;
    CHECK_RC(val_decode(bad_types, sizeof bad_types, &pos, &out), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "offset 2") != NULL);
    /* A string length that overruns, including one that would wrap a size_t sum. */
    const uint8_t long_str[] = { 5, 0xFF, 0xFF, 0xFF, 0xFF, 'a' };
    pos = 0;
    CHECK_RC(val_decode(long_str, sizeof long_str, &pos, &out), ORC_ERR_CORRUPT);
    const uint8_t short_bin[] = { 6, 3, 0, 0, 0, 'a', 'b' };
    pos = 0;
    CHECK_RC(val_decode(short_bin, sizeof short_bin, &pos, &out), ORC_ERR_CORRUPT);
    /* A position at or past the end. */
    pos = 3;
    CHECK_RC(val_decode(bad_types, sizeof bad_types, &pos, &out), ORC_ERR_CORRUPT);
    pos = 99;
    CHECK_RC(val_decode(bad_types, sizeof bad_types, &pos, &out), ORC_ERR_CORRUPT);
    /* A value in the middle of a buffer decodes at its offset. */
    pos = 0;
    CHECK_OK(val_decode(bad_types, sizeof bad_types, &pos, &out));
    CHECK_EQ(out.type, ORC_TYPE_NULL);
    CHECK_EQ(pos, 1);
}

/* ------------------------------------------------------------------------ */
/* The key encoding                                                         */
/* ------------------------------------------------------------------------ */

TEST(value_keyenc_ints)
{
    uint64_t rng = test_seed();
    enum { N = 400 };
    orc_value vals[N];
    const int64_t edges[] = { INT64_MIN, INT64_MIN + 1, -256, -255, -1, 0, 1, 255, 256, INT64_MAX - 1, INT64_MAX };
    size_t n = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) vals[n++] = v_int(edges[i]);
    while (n < N) {
        uint64_t r = test_rand(&rng);
        /* Mix full-range values with small ones so that neighbours and equal pairs occur. */
        vals[n++] = v_int((r & 1) ? (int64_t)r : (int64_t)(r % 64) - 32);
    }
    CHECK_KEYS(vals, n);

    /* The documented bytes: tag, then big-endian with the sign bit flipped. */
    uint8_t k[KEYENC_MAX];
    orc_value one = v_int(1);
    CHECK_EQ(key_of(&one, k, NULL), 9);
    const uint8_t want[] = { 0x10, 0x80, 0, 0, 0, 0, 0, 0, 1 };
    CHECK(memcmp(k, want, 9) == 0);
}

TEST(value_keyenc_doubles)
{
    uint64_t rng = test_seed();
    enum { N = 400 };
    orc_value vals[N];
    const double edges[] = { -INFINITY, -DBL_MAX, -1e10, -1.5, -1.0, -DBL_MIN, -4.9e-324, -0.0, 0.0,
                             4.9e-324, DBL_MIN, 0.5, 1.0, 1.5, 1e300, DBL_MAX, INFINITY, NAN, -NAN };
    size_t n = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) vals[n++] = v_double(edges[i]);
    vals[n++] = v_float(1.5f);
    vals[n++] = v_float(-0.0f);
    vals[n++] = v_float(NAN);
    vals[n++] = v_float(-INFINITY);
    vals[n++] = v_float(0.1f);
    while (n < N) {
        uint64_t r = test_rand(&rng);
        double d;
        switch (r % 4) {
        case 0: memcpy(&d, &r, 8); break; /* any bit pattern, NaN payloads included */
        case 1: d = (double)((int64_t)(r >> 8) % 1000) / 8.0; break;
        case 2: d = -(double)(r >> 40); break;
        default: {
            uint32_t fb = (uint32_t)(r >> 16);
            float f;
            memcpy(&f, &fb, 4);
            vals[n++] = v_float(f);
            continue;
        }
        }
        vals[n++] = v_double(d);
    }
    CHECK_KEYS(vals, n);

    /* Equal values share one key: -0.0 and 0.0, every NaN, a float and its double. */
    uint8_t a[KEYENC_MAX], b[KEYENC_MAX];
    orc_value x = v_double(-0.0), y = v_double(0.0);
    CHECK(key_of(&x, a, NULL) == 9 && key_of(&y, b, NULL) == 9 && memcmp(a, b, 9) == 0);
    x = v_double(NAN);
    uint64_t payload = 0x7FF0000000000123ULL;
    memcpy(&y.dnum, &payload, 8);
    CHECK(isnan(y.dnum));
    CHECK(key_of(&x, a, NULL) == 9 && key_of(&y, b, NULL) == 9 && memcmp(a, b, 9) == 0);
    x = v_float(0.75f);
    y = v_double(0.75);
    CHECK(key_of(&x, a, NULL) == 9 && key_of(&y, b, NULL) == 9 && memcmp(a, b, 9) == 0);
    /* Ints and doubles have their own tags (the planner uses indexes only within a type). */
    x = v_int(0);
    CHECK(key_of(&x, a, NULL) == 9 && a[0] != b[0]);
}

/* A random byte string over a small alphabet, so that prefixes and NULs are common. */
static size_t rand_bytes(uint64_t *rng, char *out, size_t max)
{
    static const char alphabet[] = { 0x00, 0x01, 'a', 'b', (char)0xFF };
    size_t n = test_rand(rng) % (max + 1);
    for (size_t i = 0; i < n; i++) out[i] = alphabet[test_rand(rng) % sizeof alphabet];
    return n;
}

TEST(value_keyenc_strings)
{
    uint64_t rng = test_seed();
    enum { N = 400 };
    static char store[N][8];
    orc_value vals[N];
    for (size_t i = 0; i < N; i++) {
        size_t len = rand_bytes(&rng, store[i], 6);
        vals[i] = v_bytes(i % 5 == 0 ? ORC_TYPE_BINARY : ORC_TYPE_STRING, store[i], len);
    }
    CHECK_KEYS(vals, N);

    /* The documented escape: 00 -> 00 FF, terminated by 00 00. */
    uint8_t k[KEYENC_MAX];
    bool exact = false;
    orc_value v = v_bytes(ORC_TYPE_STRING, "a\0b", 3);
    CHECK_EQ(key_of(&v, k, &exact), 7);
    const uint8_t want[] = { 0x30, 'a', 0x00, 0xFF, 'b', 0x00, 0x00 };
    CHECK(memcmp(k, want, sizeof want) == 0);
    CHECK(exact);
}

TEST(value_keyenc_long_strings)
{
    uint64_t rng = test_seed();
    enum { N = 240 };
    static char store[N][520];
    orc_value vals[N];
    /* Long strings sharing long prefixes, some full of NULs, around the truncation point. */
    char prefix[520];
    for (size_t i = 0; i < sizeof prefix; i++) prefix[i] = (char)('a' + (i % 3));
    for (size_t i = 0; i < N; i++) {
        char *s = store[i];
        size_t len;
        switch (i % 4) {
        case 0: /* a long common prefix with a short random tail */
            len = 380 + test_rand(&rng) % 30;
            memcpy(s, prefix, len);
            len += rand_bytes(&rng, s + len, 8);
            break;
        case 1: /* NULs and 0xFF: the escape doubles the length */
            len = 150 + test_rand(&rng) % 100;
            for (size_t j = 0; j < len; j++) s[j] = (test_rand(&rng) % 8) ? 0 : (char)0xFF;
            break;
        case 2: /* only NULs */
            len = 190 + test_rand(&rng) % 20;
            memset(s, 0, len);
            break;
        default: /* short to very long */
            len = rand_bytes(&rng, s, 8);
            if (test_rand(&rng) & 1) {
                size_t extra = test_rand(&rng) % 500;
                memcpy(s + len, prefix, extra);
                len += extra;
            }
            break;
        }
        vals[i] = v_bytes(ORC_TYPE_STRING, s, len);
    }
    CHECK_KEYS(vals, N);

    /* Keys stay within KEYENC_MAX; exactness is lost exactly when the escaped bytes do not fit. */
    for (size_t i = 0; i < N; i++) {
        uint8_t k[KEYENC_MAX];
        bool exact = true;
        size_t klen = key_of(&vals[i], k, &exact);
        CHECK(klen <= KEYENC_MAX);
        size_t escaped = vals[i].string.size;
        for (size_t j = 0; j < vals[i].string.size; j++) escaped += vals[i].string.data[j] == 0;
        CHECK_EQ(exact, escaped <= KEYENC_MAX - 3);
        CHECK_EQ(k[klen - 2], 0);
        CHECK_EQ(k[klen - 1], exact ? 0 : 1);
    }

    /* A truncated string sorts after its own prefix and before longer strings that differ later. */
    static char big[1000];
    memset(big, 'x', sizeof big);
    orc_value trunc_v = v_bytes(ORC_TYPE_STRING, big, 900);
    orc_value longer = v_bytes(ORC_TYPE_STRING, big, 1000);
    uint8_t a[KEYENC_MAX], b[KEYENC_MAX];
    bool ea, eb;
    size_t an = key_of(&trunc_v, a, &ea), bn = key_of(&longer, b, &eb);
    CHECK(!ea && !eb);
    CHECK(an == bn && memcmp(a, b, an) == 0); /* both truncated to the same prefix: equal keys */
    orc_value fits = v_bytes(ORC_TYPE_STRING, big, KEYENC_MAX - 3);
    bn = key_of(&fits, b, &eb);
    CHECK(eb);
    CHECK(key_cmp(b, bn, a, an) < 0);
}

TEST(value_keyenc_fixed)
{
    uint64_t rng = test_seed();
    enum { N = 400 };
    orc_value vals[N];
    size_t n = 0;
    const int64_t secs[] = { INT64_MIN, -2, -1, 0, 1, 2, INT64_MAX };
    while (n < 160) {
        int64_t s = (test_rand(&rng) % 3) ? secs[test_rand(&rng) % 7] : (int64_t)test_rand(&rng);
        int32_t ns = (int32_t)(test_rand(&rng) % 1999999999) - 999999999;
        if (s > 0 && ns < 0) ns = -ns;
        if (s < 0 && ns > 0) ns = -ns;
        vals[n++] = v_timestamp(s, ns);
    }
    while (n < 240) vals[n++] = v_oid((uint8_t)(test_rand(&rng) % 3), (uint8_t)test_rand(&rng));
    while (n < 320) vals[n++] = v_uuid((uint8_t)(test_rand(&rng) % 3 * 0x7F), (uint8_t)test_rand(&rng));
    while (n < 380) vals[n++] = v_link((uint32_t)(test_rand(&rng) % 3), test_rand(&rng) % 4 ? test_rand(&rng) % 5 : test_rand(&rng));
    vals[n++] = v_bool(false);
    vals[n++] = v_bool(true);
    vals[n++] = v_null();
    CHECK_KEYS(vals, n);
}

TEST(value_keyenc_kinds)
{
    /* One or two values of each kind, mixed: keys sort kinds as orc_value_compare does. */
    orc_value vals[] = {
        v_link(1, 1), v_uuid(0, 0), v_oid(0xFF, 0xFF), v_timestamp(INT64_MIN, -999999999), v_bytes(ORC_TYPE_BINARY, "", 0),
        v_str(""), v_str("\xff\xff"), v_bool(true), v_bool(false), v_int(INT64_MAX), v_int(INT64_MIN), v_null(),
        v_bytes(ORC_TYPE_BINARY, "\xff", 1), v_timestamp(INT64_MAX, 999999999), v_uuid(0xFF, 0xFF), v_link(0, 0),
    };
    CHECK_KEYS(vals, sizeof vals / sizeof vals[0]);
    /* Doubles among themselves and the neighbouring kinds. */
    orc_value dvals[] = { v_null(), v_double(NAN), v_double(-INFINITY), v_double(INFINITY), v_bool(false) };
    CHECK_KEYS(dvals, sizeof dvals / sizeof dvals[0]);
}

TEST(value_keyenc_rejects)
{
    orc_buf b = { 0 };
    /* Decimals encode (they can sit in indexed mixed properties), consistently but unordered. */
    orc_value v = v_dec(dmake(false, 1, 0));
    CHECK_OK(keyenc(&b, &v, NULL));
    CHECK_EQ(b.size, 17);
    orc_buf b2 = { 0 };
    CHECK_OK(keyenc(&b2, &v, NULL));
    CHECK(b2.size == b.size && memcmp(b.data, b2.data, b.size) == 0);
    buf_free(&b2);
    b.size = 0;
    v.type = ORC_TYPE_MIXED;
    CHECK_RC(keyenc(&b, &v, NULL), ORC_ERR_WRONG_TYPE);
    v.type = (orc_type)99;
    CHECK_RC(keyenc(&b, &v, NULL), ORC_ERR_INVALID_ARG);
    CHECK_EQ(b.size, 0);
    /* exact_out may be NULL. */
    v = v_str("ok");
    CHECK_OK(keyenc(&b, &v, NULL));
    CHECK_EQ(b.size, 5);
    buf_free(&b);
}

/* ------------------------------------------------------------------------ */
/* orc_value_compare                                                        */
/* ------------------------------------------------------------------------ */

static int cmpv(orc_value a, orc_value b) { return sgn(orc_value_compare(&a, &b)); }
#define CMP cmpv

TEST(value_compare_numbers)
{
    const int64_t two53 = 9007199254740992LL;
    orc_value i, d;
    /* int vs double exactly, beyond 2^53 where converting the int would round. */
    i = v_int(two53 + 1);
    d = v_double(9007199254740992.0);
    CHECK_EQ(sgn(orc_value_compare(&i, &d)), 1);
    CHECK_EQ(sgn(orc_value_compare(&d, &i)), -1);
    i = v_int(two53);
    CHECK_EQ(orc_value_compare(&i, &d), 0);
    i = v_int(two53 + 1);
    d = v_double(9007199254740994.0);
    CHECK_EQ(sgn(orc_value_compare(&i, &d)), -1);
    i = v_int(INT64_MAX);
    d = v_double(9223372036854775808.0);
    CHECK_EQ(sgn(orc_value_compare(&i, &d)), -1);
    i = v_int(INT64_MIN);
    d = v_double(-9223372036854775808.0);
    CHECK_EQ(orc_value_compare(&i, &d), 0);
    d = v_double(-1e300);
    CHECK_EQ(sgn(orc_value_compare(&i, &d)), 1);
    /* Fractions next to integers, both signs. */
    CHECK_EQ(CMP(v_int(-1), v_double(-0.5)), -1);
    CHECK_EQ(CMP(v_int(0), v_double(-0.5)), 1);
    CHECK_EQ(CMP(v_int(-1), v_double(-1.5)), 1);
    CHECK_EQ(CMP(v_int(1), v_double(0.999999)), 1);
    CHECK_EQ(CMP(v_int(0), v_double(-0.0)), 0);
    CHECK_EQ(CMP(v_int(3), v_float(3.0f)), 0);
    CHECK_EQ(CMP(v_float(0.1f), v_double(0.1)), 1); /* 0.1f is 0.100000001490116... */
    /* NaN is the lowest number and equals itself. */
    CHECK_EQ(CMP(v_int(INT64_MIN), v_double(NAN)), 1);
    CHECK_EQ(CMP(v_double(NAN), v_double(-INFINITY)), -1);
    CHECK_EQ(CMP(v_double(NAN), v_float(NAN)), 0);
    CHECK_EQ(CMP(v_double(-0.0), v_double(0.0)), 0);
    /* Decimals against the other number types. */
    orc_decimal128 one_half = dmake(false, 15, -1);
    CHECK_EQ(CMP(v_dec(one_half), v_double(1.5)), 0);
    CHECK_EQ(CMP(v_dec(one_half), v_float(1.5f)), 0);
    CHECK_EQ(CMP(v_dec(one_half), v_int(1)), 1);
    CHECK_EQ(CMP(v_dec(one_half), v_int(2)), -1);
    CHECK_EQ(CMP(v_int(2), v_dec(one_half)), 1);
    CHECK_EQ(CMP(v_dec(dmake(false, 1, -1)), v_double(0.1)), 0);
    CHECK_EQ(CMP(v_dec(dmake(false, 1, 40)), v_int(INT64_MAX)), 1);
    CHECK_EQ(CMP(v_dec(dmake(true, 1, 40)), v_int(INT64_MIN)), -1);
    CHECK_EQ(CMP(v_dec(dmake(false, (u128)9223372036854775807LL, 0)), v_int(INT64_MAX)), 0);
    CHECK_EQ(CMP(v_dec(dmake(false, (u128)9223372036854775807LL * 10 + 1, -1)), v_int(INT64_MAX)), 1);
    CHECK_EQ(CMP(v_dec(DEC_NAN), v_int(INT64_MIN)), -1);
    CHECK_EQ(CMP(v_dec(DEC_NAN), v_double(NAN)), 0);
    CHECK_EQ(CMP(v_dec(DEC_INF), v_double(INFINITY)), 0);
    CHECK_EQ(CMP(v_dec(DEC_NINF), v_double(-1e308)), -1);

    /* Antisymmetry and agreement with a sort over a random mix of ints and doubles. */
    uint64_t rng = test_seed();
    enum { N = 300 };
    orc_value vals[N];
    for (size_t k = 0; k < N; k++) {
        uint64_t r = test_rand(&rng);
        int64_t base = (int64_t)(r % 2 ? r >> 1 : (r >> 2) % 100);
        if (k % 3 == 0) vals[k] = v_int(base);
        else if (k % 3 == 1) vals[k] = v_double((double)base + (double)(r % 4) / 4.0);
        else vals[k] = v_dec(dec_from_int(base));
    }
    for (size_t a = 0; a < N; a++) {
        for (size_t b = 0; b < N; b++) {
            CHECK_EQ(sgn(orc_value_compare(&vals[a], &vals[b])), -sgn(orc_value_compare(&vals[b], &vals[a])));
        }
    }
}

TEST(value_compare_kinds)
{
    /* Strictly increasing, kinds in the documented order. */
    orc_value seq[] = {
        v_null(),
        v_double(NAN),
        v_dec(DEC_NINF),
        v_int(-5),
        v_dec(dmake(false, 3, 0)),
        v_double(1e300),
        v_bool(false),
        v_bool(true),
        v_str(""),
        v_str("a"),
        v_bytes(ORC_TYPE_STRING, "a\0", 2),
        v_bytes(ORC_TYPE_STRING, "a\x01", 2),
        v_str("b"),
        v_str("\xff"),
        v_bytes(ORC_TYPE_BINARY, "", 0),
        v_bytes(ORC_TYPE_BINARY, "\x01", 1),
        v_timestamp(INT64_MIN, 0),
        v_timestamp(-1, -999999999),
        v_timestamp(-1, 0),
        v_timestamp(0, -5),
        v_timestamp(0, 0),
        v_timestamp(0, 5),
        v_timestamp(1, 0),
        v_oid(0, 0),
        v_oid(0, 1),
        v_oid(0xFF, 0),
        v_uuid(0, 0),
        v_uuid(0x80, 0),
        v_link(1, 0),
        v_link(1, 5),
        v_link(2, 0),
    };
    size_t n = sizeof seq / sizeof seq[0];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            int want = (i > j) - (i < j);
            if (sgn(orc_value_compare(&seq[i], &seq[j])) != want) {
                test_fail(__FILE__, __LINE__, "compare(seq[%zu], seq[%zu]) != %d", i, j, want);
                return;
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Decimal128                                                               */
/* ------------------------------------------------------------------------ */

TEST(value_decimal_layout)
{
    /* 10^34 - 1, the largest canonical coefficient, laid out by hand. */
    orc_decimal128 max = dmake(false, p10(34) - 1, 0);
    CHECK_EQ(max.w[0], 0x378D8E63FFFFFFFFULL);
    CHECK_EQ(max.w[1], 0x0001ED09BEAD87C0ULL | ((uint64_t)6176 << 49));
    /* Non-canonical encodings read as zero: a coefficient above 10^34 - 1 ... */
    orc_decimal128 big = { { 0xFFFFFFFFFFFFFFFFULL, ((uint64_t)6176 << 49) | 0x0001FFFFFFFFFFFFULL } };
    CHECK_EQ(dec_compare(big, dmake(false, 0, 0)), 0);
    CHECK_EQ(dec_compare(big, dmake(false, 1, -30)), -1);
    /* ... and the large-coefficient form (steering bits 11, then the exponent in bits 60..47). */
    orc_decimal128 steer = { { 12345, 0x6000000000000000ULL | ((uint64_t)6176 << 47) | 77 } };
    CHECK_EQ(dec_compare(steer, dmake(true, 0, 3)), 0);
    CHECK(!dec_is_nan(steer));
    CHECK(dec_is_nan(DEC_NAN));
    orc_decimal128 snan = { { 1, 0x7E00000000000000ULL } };
    CHECK(dec_is_nan(snan));
    CHECK(!dec_is_nan(DEC_INF));
    CHECK(!dec_is_nan(max));
}

TEST(value_decimal_compare)
{
    orc_decimal128 a = dmake(false, 15, -1); /* 1.5 */
    CHECK_EQ(dec_compare(a, dmake(false, 150, -2)), 0);
    CHECK_EQ(dec_compare(a, dmake(false, p10(32) * 15, -33)), 0); /* 34 digits */
    CHECK_EQ(dec_compare(a, dmake(false, 149, -2)), 1);
    CHECK_EQ(dec_compare(a, dmake(false, 151, -2)), -1);
    CHECK_EQ(dec_compare(a, dmake(false, 2, 0)), -1);
    CHECK_EQ(dec_compare(dmake(false, 10, 0), dmake(false, 1, 1)), 0);
    CHECK_EQ(dec_compare(dmake(false, 99, 0), dmake(false, 1, 2)), -1);
    /* Zeros of any exponent and sign are equal. */
    CHECK_EQ(dec_compare(dmake(false, 0, 5), dmake(false, 0, -3)), 0);
    CHECK_EQ(dec_compare(dmake(true, 0, 0), dmake(false, 0, 100)), 0);
    /* Signs. */
    CHECK_EQ(dec_compare(dmake(true, 15, -1), dmake(false, 0, 0)), -1);
    CHECK_EQ(dec_compare(dmake(true, 2, 0), dmake(true, 15, -1)), -1);
    CHECK_EQ(dec_compare(dmake(true, 1, 5), dmake(true, 1, 4)), -1);
    /* Extremes of the exponent range. */
    orc_decimal128 huge = dmake(false, p10(34) - 1, 6111), tiny = dmake(false, 1, -6176);
    CHECK_EQ(dec_compare(tiny, dmake(false, 0, 0)), 1);
    CHECK_EQ(dec_compare(huge, dmake(false, p10(33), 6111)), 1);
    CHECK_EQ(dec_compare(dmake(false, p10(34) - 2, 6111), huge), -1);
    CHECK_EQ(dec_compare(dmake(false, 1, 6111), dmake(false, p10(33), -6176)), 1);
    /* NaN lowest, then -inf ... +inf. */
    orc_decimal128 order[] = { DEC_NAN, DEC_NINF, dmake(true, 1, 6000), dmake(true, 1, 0), dmake(false, 0, 0),
                               tiny, a, huge, DEC_INF };
    size_t n = sizeof order / sizeof order[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) CHECK_EQ(sgn(dec_compare(order[i], order[j])), (i > j) - (i < j));
}

TEST(value_decimal_add)
{
    /* Exact sums keep the smaller exponent. */
    CHECK(dsame(dec_add(dmake(false, 15, -1), dmake(false, 225, -2)), dmake(false, 375, -2)));
    CHECK(dsame(dec_add(dmake(false, 15, -1), dmake(true, 225, -2)), dmake(true, 75, -2)));
    CHECK(dsame(dec_add(dmake(false, 1, 3), dmake(false, 1, 0)), dmake(false, 1001, 0)));
    orc_decimal128 zero = dec_add(dmake(false, 15, -1), dmake(true, 15, -1));
    CHECK_EQ(dec_compare(zero, dmake(false, 0, 0)), 0);
    CHECK_EQ(zero.w[1] >> 63, 0);
    CHECK(dsame(dec_add(dmake(false, 0, 0), dmake(true, 7, -2)), dmake(true, 7, -2)));

    /* Rounding to 34 digits, half to even. */
    orc_decimal128 max = dmake(false, p10(34) - 1, 0);
    CHECK(dsame(dec_add(max, dmake(false, 5, -1)), dmake(false, p10(33), 1)));        /* odd: up */
    CHECK(dsame(dec_add(dmake(false, p10(34) - 2, 0), dmake(false, 5, -1)),           /* even: stays */
                dmake(false, p10(34) - 2, 0)));
    CHECK(dsame(dec_add(dmake(false, p10(34) - 2, 0), dmake(false, 6, -1)), max));
    CHECK(dsame(dec_add(dmake(false, p10(33), 1), dmake(true, 6, -1)), max));          /* 10^34 - 0.6 */

    /* Far-apart exponents: the small operand only decides the rounding. */
    orc_decimal128 two = dmake(false, 2 * p10(33), 4); /* 2e37 */
    orc_decimal128 tie_plus = dmake(false, 50000000000001ULL, -10); /* 5000.0000000001 */
    CHECK(dsame(dec_add(two, tie_plus), dmake(false, 2 * p10(33) + 1, 4)));
    CHECK(dsame(dec_add(two, dmake(true, 50000000000001ULL, -10)), dmake(false, 2 * p10(33) - 1, 4)));
    CHECK(dsame(dec_add(two, dmake(false, 5, 3)), dmake(false, 2 * p10(33), 4)));       /* exact tie: even */
    CHECK_EQ(dec_compare(dec_add(dmake(false, 1, 43), dmake(true, 6, -1)), dmake(false, 1, 43)), 0);
    CHECK_EQ(dec_compare(dec_add(dmake(false, 1, 40), dmake(false, 1, -6000)), dmake(false, 1, 40)), 0);

    /* Special values and overflow. */
    CHECK(dec_is_nan(dec_add(DEC_INF, DEC_NINF)));
    CHECK(dec_is_nan(dec_add(DEC_NAN, dmake(false, 1, 0))));
    CHECK_EQ(dec_compare(dec_add(DEC_INF, dmake(true, 1, 6000)), DEC_INF), 0);
    orc_decimal128 top = dmake(false, p10(34) - 1, 6111);
    CHECK_EQ(dec_compare(dec_add(top, top), DEC_INF), 0);
    CHECK_EQ(dec_compare(dec_add(dmake(true, p10(34) - 1, 6111), dmake(true, p10(34) - 1, 6111)), DEC_NINF), 0);
}

TEST(value_decimal_div)
{
    u128 threes = 0, sixes = 0;
    for (int i = 0; i < 34; i++) {
        threes = threes * 10 + 3;
        sixes = sixes * 10 + 6;
    }
    CHECK(dsame(dec_div_int(dec_from_int(1), 3), dmake(false, threes, -34)));
    CHECK(dsame(dec_div_int(dec_from_int(2), 3), dmake(false, sixes + 1, -34))); /* ...6667 */
    CHECK(dsame(dec_div_int(dec_from_int(-2), 3), dmake(true, sixes + 1, -34)));
    /* Exact quotients stop as soon as they are exact. */
    CHECK(dsame(dec_div_int(dec_from_int(10), 4), dmake(false, 25, -1)));
    CHECK(dsame(dec_div_int(dmake(false, 75, -1), -3), dmake(true, 25, -1)));
    CHECK(dsame(dec_div_int(dmake(false, 6, 2), 3), dmake(false, 2, 2)));
    /* An average: (1.5 + 2.5 + 3.5) / 3 = 2.5. */
    orc_decimal128 sum = dec_add(dec_add(dmake(false, 15, -1), dmake(false, 25, -1)), dmake(false, 35, -1));
    CHECK_EQ(dec_compare(dec_div_int(sum, 3), dmake(false, 25, -1)), 0);
    CHECK_EQ(dec_compare(dec_div_int(dec_from_int(INT64_MIN), INT64_MIN), dec_from_int(1)), 0);
    /* (2^63 - 1) / -2^63 = -0.99999999999999999989... */
    orc_decimal128 q = dec_div_int(dec_from_int(INT64_MAX), INT64_MIN);
    CHECK_EQ(dec_compare(q, dmake(true, 1, 0)), 1);
    CHECK_EQ(dec_compare(q, dmake(true, 9999999999999999998ULL, -19)), -1);
    /* Division by zero as IEEE: infinity, or NaN for 0 / 0. */
    CHECK_EQ(dec_compare(dec_div_int(dec_from_int(5), 0), DEC_INF), 0);
    CHECK_EQ(dec_compare(dec_div_int(dec_from_int(-5), 0), DEC_NINF), 0);
    CHECK(dec_is_nan(dec_div_int(dec_from_int(0), 0)));
    CHECK(dec_is_nan(dec_div_int(DEC_NAN, 2)));
    CHECK_EQ(dec_compare(dec_div_int(dmake(false, 0, -3), 7), dmake(false, 0, 0)), 0);
}

TEST(value_decimal_convert)
{
    CHECK(dsame(dec_from_int(INT64_MIN), dmake(true, (u128)9223372036854775808ULL, 0)));
    CHECK(dsame(dec_from_int(0), dmake(false, 0, 0)));
    CHECK(dsame(dec_from_double(0.1), dmake(false, 1, -1)));
    CHECK(dsame(dec_from_double(1.5), dmake(false, 15, -1)));
    CHECK(dsame(dec_from_double(-2.0), dec_from_int(-2)));
    CHECK_EQ(dec_compare(dec_from_double(1e20), dmake(false, p10(20), 0)), 0);
    /* Integral doubles convert exactly (2^60, not its shortest form 1.152921504606847e18) ... */
    CHECK(dsame(dec_from_double(1152921504606846976.0), dmake(false, 1152921504606846976ULL, 0)));
    CHECK(dsame(dec_from_double(-0x1p100), dmake(true, (u128)1 << 100, 0)));
    /* ... so int, double and decimal comparisons stay transitive around them. */
    orc_value i = v_int(1152921504606846990LL), x = v_double(1152921504606846976.0);
    orc_value d = v_dec(dec_from_int(1152921504606846990LL));
    CHECK_EQ(sgn(orc_value_compare(&i, &x)), 1);
    CHECK_EQ(sgn(orc_value_compare(&d, &x)), 1);
    CHECK_EQ(orc_value_compare(&i, &d), 0);
    CHECK_EQ(dec_compare(dec_from_double(-0.0), dmake(false, 0, 0)), 0);
    CHECK_EQ(dec_compare(dec_from_double(1.0 / 3.0), dmake(false, 3333333333333333ULL, -16)), 0);
    CHECK(dec_is_nan(dec_from_double(NAN)));
    CHECK_EQ(dec_compare(dec_from_double(-INFINITY), DEC_NINF), 0);

    CHECK(dec_to_double(dmake(false, 15, -1)) == 1.5);
    CHECK(dec_to_double(dmake(true, 25, -1)) == -2.5);
    CHECK(dec_to_double(dmake(false, p10(34) - 1, 6111)) == INFINITY);
    CHECK(dec_to_double(dmake(false, 1, -6176)) == 0.0);
    CHECK(isnan(dec_to_double(DEC_NAN)));
    CHECK(dec_to_double(DEC_NINF) == -INFINITY);
    u128 threes = 0;
    for (int i = 0; i < 34; i++) threes = threes * 10 + 3;
    CHECK(dec_to_double(dmake(false, threes, -34)) == 1.0 / 3.0);
    CHECK(dec_to_double(dmake(false, 1, -400)) == 0.0);
    CHECK(signbit(dec_to_double(dmake(true, 0, 0))));

    /* Random doubles survive the round trip, and the conversion keeps their order. */
    uint64_t rng = test_seed();
    double prev = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t r = test_rand(&rng);
        double d;
        memcpy(&d, &r, 8);
        if (!isfinite(d)) continue;
        orc_decimal128 x = dec_from_double(d);
        if (dec_to_double(x) != d) {
            test_fail(__FILE__, __LINE__, "%.17g does not survive the round trip", d);
            return;
        }
        int want = (d > prev) - (d < prev);
        CHECK_EQ(sgn(dec_compare(x, dec_from_double(prev))), want);
        prev = d;
    }
    CHECK(dec_to_double(dec_from_double(DBL_MAX)) == DBL_MAX);
    CHECK(dec_to_double(dec_from_double(4.9e-324)) == 4.9e-324);
    CHECK(dec_to_double(dec_from_double(-DBL_MIN)) == -DBL_MIN);
}
