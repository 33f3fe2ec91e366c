/*
 * test_object.c — objects: create with and without primary keys, lookups,
 * exact round trips of every type, type and nullability errors, set_many,
 * add_int, erase and what it does to links and backlinks, embedded objects,
 * table-wide operations, the row cursor, and object keys never being reused.
 *
 * Values are compared bit for bit (floats by their bytes, strings and
 * binaries by size and bytes), and every write test ends with orc_env_check.
 */
#include "harness.h"

#include <math.h>
#include <stdlib.h>


static orc_value v_oid(uint8_t seed)
{
    orc_value v = {.type = ORC_TYPE_OBJECT_ID};
    for (int i = 0; i < 12; i++) v.object_id[i] = (uint8_t)(seed * 31 + i * 7);
    return v;
}
static orc_value v_uuid(uint8_t seed)
{
    orc_value v = {.type = ORC_TYPE_UUID};
    for (int i = 0; i < 16; i++) v.uuid[i] = (uint8_t)(seed * 17 + i * 13);
    return v;
}


static bool get_is(orc_txn *txn, uint32_t t, uint64_t k, uint16_t c, const orc_value *want)
{
    orc_value v;
    HOK(orc_obj_get(txn, t, k, c, &v));
    if (!value_identical(&v, want)) HFAIL("table %u key %" PRIu64 " col %u: got type %d, want type %d (or different bits)", t, k, c, v.type, want->type);
    return true;
}

static bool count_is(orc_txn *txn, uint32_t t, uint64_t want)
{
    uint64_t n;
    HOK(orc_table_count(txn, t, &n));
    if (n != want) HFAIL("count %" PRIu64 ", want %" PRIu64, n, want);
    return true;
}

static int open_new(const char *path, orc_env **env) { return orc_env_open(path, ORC_ENV_NO_SYNC, NULL, env); }
static int reopen(orc_env **env, const char *path)
{
    orc_env_close(*env);
    return orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, env);
}

static int add_prop(orc_txn *w, uint32_t t, const char *name, orc_type type, orc_collection coll, uint32_t flags,
                    uint32_t link, uint16_t *col)
{
    orc_prop_spec s = {.name = name, .type = type, .collection = coll, .flags = flags, .link_table = link};
    return orc_prop_add(w, t, &s, col);
}

TEST(object_create_without_primary_key)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t ci, cs;
    uint64_t k[4];
    CHECK_OK(open_new(test_path("nopk.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "O", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(w, t, "i", ORC_TYPE_INT, 0, 0, 0, &ci));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, ORC_PROP_OPTIONAL, 0, &cs));
    for (int i = 0; i < 3; i++) {
        uint16_t cols[2] = {ci, cs};
        orc_value vals[2] = {v_int(i * 10), v_str(i == 1 ? "one" : "x")};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &k[i]));
        CHECK(orc_obj_exists(w, t, k[i]));
        if (i) CHECK(k[i] > k[i - 1]);
    }
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k[3])); /* all defaults */
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(count_is(r, t, 4));
    orc_value want = v_int(10);
    CHECK(get_is(r, t, k[1], ci, &want));
    want = v_str("one");
    CHECK(get_is(r, t, k[1], cs, &want));
    want = v_int(0);
    CHECK(get_is(r, t, k[3], ci, &want));
    want = v_null();
    CHECK(get_is(r, t, k[3], cs, &want));
    uint64_t found;
    orc_value one = v_str("one");
    CHECK_RC(orc_obj_find(r, t, &one, &found), ORC_ERR_INVALID_ARG); /* no primary key */
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* The i-th test key of a primary-key type (i < 8). */
static orc_value pk_value(orc_type type, int i, char *buf)
{
    switch (type) {
    case ORC_TYPE_INT: {
        static const int64_t ints[8] = {INT64_MIN, -1000000, -1, 0, 1, 255, 256, INT64_MAX};
        return v_int(ints[i]);
    }
    case ORC_TYPE_STRING:
        switch (i) {
        case 0: return v_strn("", 0);
        case 1: return v_str("a");
        case 2: return v_strn("a\0b", 3);
        case 3: return v_strn("a\0", 2);
        case 4: return v_str("\xc3\xbc"); /* ü */
        default:
            /* Keys of the longest allowed size, ORC_MAX_PK_STRING bytes, sharing all but the last. */
            memset(buf, 'k', ORC_MAX_PK_STRING - 1);
            buf[ORC_MAX_PK_STRING - 1] = (char)('0' + i);
            return v_strn(buf, ORC_MAX_PK_STRING);
        }
    case ORC_TYPE_OBJECT_ID: return v_oid((uint8_t)(i * 3 + 1));
    case ORC_TYPE_UUID: {
        orc_value v = v_uuid((uint8_t)(i * 5 + 2));
        if (i == 0) memset(v.uuid, 0, 16);
        if (i == 7) memset(v.uuid, 0xff, 16);
        return v;
    }
    default: return v_null();
    }
}

TEST(object_primary_keys_of_each_type)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("pks.realm"));
    static const orc_type types[4] = {ORC_TYPE_INT, ORC_TYPE_STRING, ORC_TYPE_OBJECT_ID, ORC_TYPE_UUID};
    orc_env *env;
    orc_txn *w, *r;
    uint32_t tables[8];
    uint16_t cid[8], cv[8];
    uint64_t keys[8][9];
    static char buf[8][9][600];

    CHECK_OK(open_new(path, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int ti = 0; ti < 8; ti++) {
        orc_type type = types[ti % 4];
        bool opt = ti >= 4;
        char name[32];
        snprintf(name, sizeof name, "PK%d%s", (int)type, opt ? "opt" : "");
        CHECK_OK(orc_class_add(w, name, ORC_CLASS_TOP_LEVEL, &tables[ti]));
        CHECK_OK(add_prop(w, tables[ti], "id", type, 0, ORC_PROP_PRIMARY_KEY | (opt ? ORC_PROP_OPTIONAL : 0), 0,
                          &cid[ti]));
        CHECK_OK(add_prop(w, tables[ti], "v", ORC_TYPE_INT, 0, 0, 0, &cv[ti]));
        orc_class_info ci;
        CHECK_OK(orc_schema_class_get(w, tables[ti], &ci));
        CHECK_EQ(ci.pk_col, cid[ti]);
        uint32_t t = tables[ti];
        int n = opt ? 9 : 8;
        for (int i = 0; i < n; i++) {
            uint16_t cols[2] = {cid[ti], cv[ti]};
            orc_value vals[2] = {i < 8 ? pk_value(type, i, buf[ti][i]) : v_null(), v_int(i)};
            CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &keys[ti][i]));
        }
        /* A duplicate is refused and the first object is intact. */
        for (int i = 0; i < n; i++) {
            char dupbuf[600];
            uint16_t cols[2] = {cid[ti], cv[ti]};
            orc_value vals[2] = {i < 8 ? pk_value(type, i, dupbuf) : v_null(), v_int(99)};
            CHECK_RC(orc_obj_create(w, t, cols, vals, 2, NULL), ORC_ERR_EXISTS);
            orc_value want = v_int(i);
            CHECK(get_is(w, t, keys[ti][i], cv[ti], &want));
            uint64_t found;
            CHECK_OK(orc_obj_find(w, t, &vals[0], &found));
            CHECK_EQ(found, keys[ti][i]);
        }
        CHECK(count_is(w, t, (uint64_t)n));
        /* The key must be given; null only where optional. */
        orc_value v = v_int(5);
        CHECK_RC(orc_obj_create(w, t, &cv[ti], &v, 1, NULL), ORC_ERR_INVALID_ARG);
        orc_value nul = v_null();
        if (!opt) CHECK_RC(orc_obj_create(w, t, &cid[ti], &nul, 1, NULL), ORC_ERR_NOT_NULLABLE);
        /* Lookups of the wrong type or of absent values. */
        orc_value wrong = type == ORC_TYPE_STRING ? v_int(1) : v_str("1");
        uint64_t found;
        CHECK_RC(orc_obj_find(w, t, &wrong, &found), ORC_ERR_WRONG_TYPE);
        if (!opt) {
            int rc = orc_obj_find(w, t, &nul, &found);
            CHECK(rc == ORC_ERR_NOT_FOUND || rc == ORC_ERR_WRONG_TYPE);
        }
        if (type == ORC_TYPE_STRING) {
            /* One byte over the limit. */
            static char too_long[ORC_MAX_PK_STRING + 1];
            memset(too_long, 'z', sizeof too_long);
            orc_value tl = v_strn(too_long, sizeof too_long);
            CHECK_RC(orc_obj_create(w, t, &cid[ti], &tl, 1, NULL), ORC_ERR_INVALID_ARG);
        }
        CHECK(count_is(w, t, (uint64_t)n));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    /* Absent keys, erase frees a key, everything still found after reopening. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    uint64_t found;
    orc_value absent_i = v_int(42), absent_s = v_str("zz"), absent_o = v_oid(200), absent_u = v_uuid(201);
    CHECK_RC(orc_obj_find(w, tables[0], &absent_i, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_find(w, tables[1], &absent_s, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_find(w, tables[2], &absent_o, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_find(w, tables[3], &absent_u, &found), ORC_ERR_NOT_FOUND);
    /* A miss's message is written when asked for, and names the class; the next failure replaces it. */
    char expected[128];
    snprintf(expected, sizeof expected, "ORC_ERR_NOT_FOUND: class 'PK%dopt' has no object with that primary key",
             (int)ORC_TYPE_UUID);
    CHECK_RC(orc_obj_find(w, tables[7], &absent_u, &found), ORC_ERR_NOT_FOUND);
    CHECK_EQ(orc_last_status(), ORC_ERR_NOT_FOUND);
    CHECK_STR(orc_last_error(), expected);
    CHECK_STR(orc_last_error(), expected);
    CHECK_RC(orc_obj_find(w, tables[0], &absent_i, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_find(w, 999, &absent_i, &found), ORC_ERR_NOT_FOUND);
    CHECK(strstr(orc_last_error(), "PK") == NULL);
    char b6[600], b7[600];
    orc_value s6 = pk_value(ORC_TYPE_STRING, 6, b6), s7 = pk_value(ORC_TYPE_STRING, 7, b7);
    CHECK_OK(orc_obj_erase(w, tables[1], keys[1][6]));
    CHECK_RC(orc_obj_find(w, tables[1], &s6, &found), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_obj_find(w, tables[1], &s7, &found)); /* the neighbour sharing 255 bytes stays */
    CHECK_EQ(found, keys[1][7]);
    uint64_t knew;
    CHECK_OK(orc_obj_create(w, tables[1], &cid[1], &s6, 1, &knew));
    CHECK(knew != keys[1][6]);
    keys[1][6] = knew;
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(reopen(&env, path));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    for (int ti = 0; ti < 8; ti++) {
        int n = ti >= 4 ? 9 : 8;
        for (int i = 0; i < n; i++) {
            char pb[600];
            orc_value pk = i < 8 ? pk_value(types[ti % 4], i, pb) : v_null();
            CHECK_OK(orc_obj_find(r, tables[ti], &pk, &found));
            CHECK_EQ(found, keys[ti][i]);
            CHECK(get_is(r, tables[ti], found, cid[ti], &pk));
        }
    }
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Class "All": one required and one optional property per plain type, a mixed, a link. */
typedef struct all_class {
    uint32_t t, target;
    uint16_t req[ORC_TYPE_UUID + 1], opt[ORC_TYPE_UUID + 1], mixed, link;
} all_class;

static bool make_all_class(orc_txn *w, all_class *a)
{
    HOK(orc_class_add(w, "Target", ORC_CLASS_TOP_LEVEL, &a->target));
    HOK(orc_class_add(w, "All", ORC_CLASS_TOP_LEVEL, &a->t));
    for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
        char name[32];
        snprintf(name, sizeof name, "r%d", type);
        HOK(add_prop(w, a->t, name, (orc_type)type, 0, 0, 0, &a->req[type]));
        snprintf(name, sizeof name, "o%d", type);
        HOK(add_prop(w, a->t, name, (orc_type)type, 0, ORC_PROP_OPTIONAL, 0, &a->opt[type]));
    }
    HOK(add_prop(w, a->t, "m", ORC_TYPE_MIXED, 0, ORC_PROP_OPTIONAL, 0, &a->mixed));
    HOK(add_prop(w, a->t, "l", ORC_TYPE_LINK, 0, ORC_PROP_OPTIONAL, a->target, &a->link));
    return true;
}

/* Test values per type: several each, including the edges. */
#define NVALS 5
static uint8_t big_binary[1 << 20];
static char long_string[100000];
static orc_value sample(orc_type type, int i)
{
    switch (type) {
    case ORC_TYPE_BOOL: return v_bool(i & 1);
    case ORC_TYPE_INT: {
        static const int64_t v[NVALS] = {INT64_MIN, -1, 0, 1234567890123, INT64_MAX};
        return v_int(v[i]);
    }
    case ORC_TYPE_FLOAT: {
        static const float v[NVALS] = {-0.0f, 1.5f, -3.25e-20f, 3.4e38f, INFINITY};
        return v_float(v[i]);
    }
    case ORC_TYPE_DOUBLE: {
        static const double v[NVALS] = {-0.0, 1e300, -2.2250738585072014e-308, 5e-324, -INFINITY};
        return v_double(v[i]);
    }
    case ORC_TYPE_STRING:
        switch (i) {
        case 0: return v_strn("", 0);
        case 1: return v_strn("nul\0inside\0", 11);
        case 2: return v_str("h\xc3\xa9llo w\xc3\xb6rld \xf0\x9f\x98\x80");
        case 3: return v_strn(long_string, sizeof long_string);
        default: return v_strn("\0", 1);
        }
    case ORC_TYPE_BINARY:
        switch (i) {
        case 0: return v_bin("", 0);
        case 1: return v_bin("\0\0\0", 3);
        case 2: return v_bin(big_binary, sizeof big_binary);
        case 3: return v_bin(big_binary + 7, 4095);
        default: return v_bin("\xff", 1);
        }
    case ORC_TYPE_TIMESTAMP: {
        static const orc_timestamp v[NVALS] = {
            {-1000, -500000000}, {0, -1}, {-62135596800LL, 0}, {1700000000, 999999999}, {0, 0}};
        return v_timestamp(v[i].seconds, v[i].nanoseconds);
    }
    case ORC_TYPE_DECIMAL: {
        static const uint64_t v[NVALS][2] = {{12345, 0x3040000000000000ULL},
                                             {1, 0xB040000000000000ULL},
                                             {0xFFFFFFFFFFFFFFFFULL, 0x3041ED09BEAD87C0ULL},
                                             {0, 0x3040000000000000ULL},
                                             {7, 0x2FFE000000000000ULL}};
        return v_decimal(v[i][0], v[i][1]);
    }
    case ORC_TYPE_OBJECT_ID: return v_oid((uint8_t)i);
    case ORC_TYPE_UUID: return v_uuid((uint8_t)i);
    default: return v_null();
    }
}

static void fill_samples(void)
{
    for (size_t i = 0; i < sizeof big_binary; i++) big_binary[i] = (uint8_t)(i * 2654435761u >> 13);
    for (size_t i = 0; i < sizeof long_string; i++) long_string[i] = (char)('a' + i % 26);
    long_string[5000] = 0; /* a NUL in the middle of a long string */
}

TEST(object_every_type_round_trips_exactly)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("types.realm"));
    fill_samples();
    orc_env *env;
    orc_txn *w, *r;
    all_class a;
    uint64_t keys[NVALS], tk[2];
    CHECK_OK(open_new(path, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_all_class(w, &a));
    CHECK_OK(orc_obj_create(w, a.target, NULL, NULL, 0, &tk[0]));
    CHECK_OK(orc_obj_create(w, a.target, NULL, NULL, 0, &tk[1]));
    for (int i = 0; i < NVALS; i++) {
        /* Half through create, half through set. */
        uint16_t cols[64];
        orc_value vals[64];
        size_t n = 0;
        for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
            cols[n] = a.req[type];
            vals[n++] = sample((orc_type)type, i);
            cols[n] = a.opt[type];
            vals[n++] = (i % 2) ? v_null() : sample((orc_type)type, (i + 1) % NVALS);
        }
        cols[n] = a.link;
        vals[n++] = i == 2 ? v_null() : v_link(a.target, tk[i % 2]);
        if (i < 3) {
            CHECK_OK(orc_obj_create(w, a.t, cols, vals, n, &keys[i]));
        } else {
            CHECK_OK(orc_obj_create(w, a.t, NULL, NULL, 0, &keys[i]));
            for (size_t j = 0; j < n; j++) CHECK_OK(orc_obj_set(w, a.t, keys[i], cols[j], &vals[j]));
        }
    }
    CHECK_OK(orc_txn_commit(w, NULL));

    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        for (int i = 0; i < NVALS; i++) {
            for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
                orc_value want = sample((orc_type)type, i);
                CHECK(get_is(r, a.t, keys[i], a.req[type], &want));
                want = (i % 2) ? v_null() : sample((orc_type)type, (i + 1) % NVALS);
                CHECK(get_is(r, a.t, keys[i], a.opt[type], &want));
            }
            orc_value want = i == 2 ? v_null() : v_link(a.target, tk[i % 2]);
            CHECK(get_is(r, a.t, keys[i], a.link, &want));
        }
        orc_txn_abort(r);
        if (pass == 0) CHECK_OK(reopen(&env, path));
    }

    /* NaN stays NaN. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value nan_d = v_double(NAN), nan_f = v_float(NAN), got;
    CHECK_OK(orc_obj_set(w, a.t, keys[0], a.req[ORC_TYPE_DOUBLE], &nan_d));
    CHECK_OK(orc_obj_set(w, a.t, keys[0], a.req[ORC_TYPE_FLOAT], &nan_f));
    CHECK_OK(orc_obj_get(w, a.t, keys[0], a.req[ORC_TYPE_DOUBLE], &got));
    CHECK(isnan(got.dnum));
    CHECK_OK(orc_obj_get(w, a.t, keys[0], a.req[ORC_TYPE_FLOAT], &got));
    CHECK(isnan(got.fnum));
    /* Setting an optional property back to null. */
    orc_value nul = v_null();
    for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
        CHECK_OK(orc_obj_set(w, a.t, keys[0], a.opt[type], &nul));
        CHECK(get_is(w, a.t, keys[0], a.opt[type], &nul));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_mixed_holds_every_type)
{
    fill_samples();
    orc_env *env;
    orc_txn *w, *r;
    all_class a;
    uint64_t k, tk;
    orc_value vals[20];
    size_t n = 0;
    CHECK_OK(open_new(test_path("mixed.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_all_class(w, &a));
    CHECK_OK(orc_obj_create(w, a.target, NULL, NULL, 0, &tk));
    CHECK_OK(orc_obj_create(w, a.t, NULL, NULL, 0, &k));
    vals[n++] = v_null();
    for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) vals[n++] = sample((orc_type)type, (type * 3) % NVALS);
    vals[n++] = sample(ORC_TYPE_STRING, 1);
    vals[n++] = sample(ORC_TYPE_BINARY, 2);
    vals[n++] = v_link(a.target, tk);
    vals[n++] = v_link(a.t, k); /* a mixed link may point at any class, itself included */
    CHECK_OK(orc_txn_commit(w, NULL));
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_OK(orc_obj_set(w, a.t, k, a.mixed, &vals[i]));
        CHECK(get_is(w, a.t, k, a.mixed, &vals[i]));
        CHECK_OK(orc_txn_commit(w, NULL));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK(get_is(r, a.t, k, a.mixed, &vals[i]));
        uint64_t blc;
        CHECK_OK(orc_obj_backlink_count(r, a.target, tk, &blc));
        CHECK_EQ(blc, vals[i].type == ORC_TYPE_LINK && vals[i].link.table == a.target ? 1 : 0);
        orc_txn_abort(r);
        CHECK_ENV(env);
    }
    /* A mixed link to a missing object is refused. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value dangling = v_link(a.target, tk + 1000);
    CHECK_RC(orc_obj_set(w, a.t, k, a.mixed, &dangling), ORC_ERR_NOT_FOUND);
    orc_txn_abort(w);
    orc_env_close(env);
}

TEST(object_type_and_null_errors)
{
    fill_samples();
    orc_env *env;
    orc_txn *w;
    all_class a;
    uint64_t k, tk;
    uint32_t other;
    uint64_t ok_other;
    CHECK_OK(open_new(test_path("errors.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_all_class(w, &a));
    CHECK_OK(orc_class_add(w, "Other", ORC_CLASS_TOP_LEVEL, &other));
    CHECK_OK(orc_obj_create(w, other, NULL, NULL, 0, &ok_other));
    CHECK_OK(orc_obj_create(w, a.target, NULL, NULL, 0, &tk));
    CHECK_OK(orc_obj_create(w, a.t, NULL, NULL, 0, &k));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
        orc_value before;
        CHECK_OK(orc_obj_get(w, a.t, k, a.req[type], &before));
        /* Null into a required property. */
        orc_value nul = v_null();
        CHECK_RC(orc_obj_set(w, a.t, k, a.req[type], &nul), ORC_ERR_NOT_NULLABLE);
        CHECK(strncmp(orc_last_error(), "ORC_ERR_NOT_NULLABLE", 20) == 0);
        /* Every other type is refused, in required and optional properties alike. */
        for (int other_type = ORC_TYPE_BOOL; other_type <= ORC_TYPE_UUID; other_type++) {
            if (other_type == type) continue;
            orc_value v = sample((orc_type)other_type, 1);
            CHECK_RC(orc_obj_set(w, a.t, k, a.req[type], &v), ORC_ERR_WRONG_TYPE);
            CHECK_RC(orc_obj_set(w, a.t, k, a.opt[type], &v), ORC_ERR_WRONG_TYPE);
        }
        orc_value lnk = v_link(a.target, tk);
        CHECK_RC(orc_obj_set(w, a.t, k, a.req[type], &lnk), ORC_ERR_WRONG_TYPE);
        CHECK(get_is(w, a.t, k, a.req[type], &before));
        CHECK(get_is(w, a.t, k, a.opt[type], &nul));
    }
    /* Links: wrong class, missing object; a non-link value. */
    orc_value wrong_class = v_link(other, ok_other);
    CHECK_RC(orc_obj_set(w, a.t, k, a.link, &wrong_class), ORC_ERR_WRONG_TYPE);
    orc_value missing = v_link(a.target, tk + 1000);
    CHECK_RC(orc_obj_set(w, a.t, k, a.link, &missing), ORC_ERR_NOT_FOUND);
    orc_value i5 = v_int(5);
    CHECK_RC(orc_obj_set(w, a.t, k, a.link, &i5), ORC_ERR_WRONG_TYPE);
    /* Malformed values. */
    orc_value bad_type = {.type = (orc_type)77};
    int rc = orc_obj_set(w, a.t, k, a.mixed, &bad_type);
    CHECK(rc == ORC_ERR_INVALID_ARG || rc == ORC_ERR_WRONG_TYPE);
    orc_value mixed_as_value = {.type = ORC_TYPE_MIXED};
    rc = orc_obj_set(w, a.t, k, a.mixed, &mixed_as_value);
    CHECK(rc == ORC_ERR_INVALID_ARG || rc == ORC_ERR_WRONG_TYPE);
    orc_value ts_bad = v_timestamp(1, -5);
    CHECK_RC(orc_obj_set(w, a.t, k, a.req[ORC_TYPE_TIMESTAMP], &ts_bad), ORC_ERR_INVALID_ARG);
    ts_bad = v_timestamp(0, 1000000000);
    CHECK_RC(orc_obj_set(w, a.t, k, a.req[ORC_TYPE_TIMESTAMP], &ts_bad), ORC_ERR_INVALID_ARG);
    orc_value str_null_data = {.type = ORC_TYPE_STRING, .string = {.data = NULL, .size = 5}};
    CHECK_RC(orc_obj_set(w, a.t, k, a.req[ORC_TYPE_STRING], &str_null_data), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_obj_set(w, a.t, k, a.req[ORC_TYPE_INT], NULL), ORC_ERR_INVALID_ARG);
    /* Create checks the same rules. */
    orc_value s = v_str("x");
    CHECK_RC(orc_obj_create(w, a.t, &a.req[ORC_TYPE_INT], &s, 1, NULL), ORC_ERR_WRONG_TYPE);
    orc_value nul = v_null();
    CHECK_RC(orc_obj_create(w, a.t, &a.req[ORC_TYPE_INT], &nul, 1, NULL), ORC_ERR_NOT_NULLABLE);
    CHECK(count_is(w, a.t, 1));
    /* The transaction is still usable after refused writes. */
    orc_value i9 = v_int(9);
    CHECK_OK(orc_obj_set(w, a.t, k, a.req[ORC_TYPE_INT], &i9));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_primary_key_cannot_change)
{
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t cid, cv;
    uint64_t k, k2;
    CHECK_OK(open_new(test_path("pkchange.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "P", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(w, t, "id", ORC_TYPE_STRING, 0, ORC_PROP_PRIMARY_KEY, 0, &cid));
    CHECK_OK(add_prop(w, t, "v", ORC_TYPE_INT, 0, 0, 0, &cv));
    orc_value a = v_str("a"), b = v_str("b"), c = v_str("c");
    CHECK_OK(orc_obj_create(w, t, &cid, &a, 1, &k));
    CHECK_OK(orc_obj_create(w, t, &cid, &b, 1, &k2));
    CHECK_RC(orc_obj_set(w, t, k, cid, &c), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_obj_set(w, t, k, cid, &b), ORC_ERR_INVALID_ARG);
    CHECK_OK(orc_obj_set(w, t, k, cid, &a)); /* unchanged: allowed */
    /* set_many with a changed key is refused as a whole. */
    uint16_t cols[2] = {cv, cid};
    orc_value vals[2] = {v_int(5), c};
    CHECK_RC(orc_obj_set_many(w, t, k, cols, vals, 2), ORC_ERR_INVALID_ARG);
    orc_value zero = v_int(0);
    CHECK(get_is(w, t, k, cv, &zero));
    CHECK(get_is(w, t, k, cid, &a));
    uint64_t found;
    CHECK_OK(orc_obj_find(w, t, &a, &found));
    CHECK_EQ(found, k);
    CHECK_RC(orc_obj_find(w, t, &c, &found), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_set_many)
{
    fill_samples();
    orc_env *env;
    orc_txn *w, *r;
    all_class a;
    uint64_t k;
    CHECK_OK(open_new(test_path("setmany.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_all_class(w, &a));
    CHECK_OK(orc_obj_create(w, a.t, NULL, NULL, 0, &k));
    uint16_t cols[32];
    orc_value vals[32];
    size_t n = 0;
    for (int type = ORC_TYPE_BOOL; type <= ORC_TYPE_UUID; type++) {
        cols[n] = a.req[type];
        vals[n++] = sample((orc_type)type, 3);
        cols[n] = a.opt[type];
        vals[n++] = sample((orc_type)type, 4);
    }
    CHECK_OK(orc_obj_set_many(w, a.t, k, cols, vals, n));
    for (size_t i = 0; i < n; i++) CHECK(get_is(w, a.t, k, cols[i], &vals[i]));
    /* One bad value: nothing of the call is applied. */
    uint16_t cols2[3] = {a.req[ORC_TYPE_INT], a.req[ORC_TYPE_STRING], a.req[ORC_TYPE_BOOL]};
    orc_value vals2[3] = {v_int(-7), v_str("changed"), v_int(1)};
    CHECK_RC(orc_obj_set_many(w, a.t, k, cols2, vals2, 3), ORC_ERR_WRONG_TYPE);
    orc_value nul = v_null();
    vals2[2] = nul;
    CHECK_RC(orc_obj_set_many(w, a.t, k, cols2, vals2, 3), ORC_ERR_NOT_NULLABLE);
    /* The same column twice. */
    uint16_t cols3[2] = {a.req[ORC_TYPE_INT], a.req[ORC_TYPE_INT]};
    orc_value vals3[2] = {v_int(1), v_int(2)};
    CHECK_RC(orc_obj_set_many(w, a.t, k, cols3, vals3, 2), ORC_ERR_INVALID_ARG);
    uint16_t cols4[2] = {a.req[ORC_TYPE_INT], 999};
    CHECK_RC(orc_obj_set_many(w, a.t, k, cols4, vals3, 2), ORC_ERR_NOT_FOUND);
    for (size_t i = 0; i < n; i++) CHECK(get_is(w, a.t, k, cols[i], &vals[i]));
    CHECK_OK(orc_obj_set_many(w, a.t, k, cols, vals, 0)); /* nothing to do */
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    for (size_t i = 0; i < n; i++) CHECK(get_is(r, a.t, k, cols[i], &vals[i]));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_add_int)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t ci, coi, cm, cs, cidx;
    uint64_t k;
    CHECK_OK(open_new(test_path("addint.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "N", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(w, t, "i", ORC_TYPE_INT, 0, 0, 0, &ci));
    CHECK_OK(add_prop(w, t, "oi", ORC_TYPE_INT, 0, ORC_PROP_OPTIONAL, 0, &coi));
    CHECK_OK(add_prop(w, t, "m", ORC_TYPE_MIXED, 0, ORC_PROP_OPTIONAL, 0, &cm));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, 0, 0, &cs));
    CHECK_OK(add_prop(w, t, "x", ORC_TYPE_INT, 0, ORC_PROP_INDEXED, 0, &cidx));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_obj_add_int(w, t, k, ci, 5));
    CHECK_OK(orc_obj_add_int(w, t, k, ci, -12));
    CHECK_OK(orc_obj_add_int(w, t, k, ci, 1000000000000LL));
    orc_value want = v_int(1000000000000LL - 7);
    CHECK(get_is(w, t, k, ci, &want));
    /* Null optional int and non-int types are refused. */
    CHECK_RC(orc_obj_add_int(w, t, k, coi, 1), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_obj_add_int(w, t, k, cm, 1), ORC_ERR_WRONG_TYPE); /* mixed holding null */
    CHECK_RC(orc_obj_add_int(w, t, k, cs, 1), ORC_ERR_WRONG_TYPE);
    orc_value d = v_double(1.0);
    CHECK_OK(orc_obj_set(w, t, k, cm, &d));
    CHECK_RC(orc_obj_add_int(w, t, k, cm, 1), ORC_ERR_WRONG_TYPE); /* mixed holding a double */
    orc_value three = v_int(3);
    CHECK_OK(orc_obj_set(w, t, k, coi, &three));
    CHECK_OK(orc_obj_set(w, t, k, cm, &three));
    CHECK_OK(orc_obj_add_int(w, t, k, coi, 4));
    CHECK_OK(orc_obj_add_int(w, t, k, cm, -4));
    CHECK_OK(orc_obj_add_int(w, t, k, cidx, 10)); /* indexed: the index must follow */
    CHECK_RC(orc_obj_add_int(w, t, k + 100, ci, 1), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_add_int(w, t, k, 999, 1), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    want = v_int(7);
    CHECK(get_is(r, t, k, coi, &want));
    want = v_int(-1);
    CHECK(get_is(r, t, k, cm, &want));
    want = v_int(10);
    CHECK(get_is(r, t, k, cidx, &want));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_erase_nulls_links_and_updates_backlinks)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t tp, td;
    uint16_t cdog, cdogs, cset, cdict, cmix;
    uint64_t p[4], d[3], blc;
    CHECK_OK(open_new(test_path("erase.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Dog", ORC_CLASS_TOP_LEVEL, &td));
    CHECK_OK(orc_class_add(w, "Person", ORC_CLASS_TOP_LEVEL, &tp));
    CHECK_OK(add_prop(w, tp, "dog", ORC_TYPE_LINK, 0, ORC_PROP_OPTIONAL, td, &cdog));
    CHECK_OK(add_prop(w, tp, "dogs", ORC_TYPE_LINK, ORC_COLL_LIST, 0, td, &cdogs));
    CHECK_OK(add_prop(w, tp, "dogset", ORC_TYPE_LINK, ORC_COLL_SET, 0, td, &cset));
    CHECK_OK(add_prop(w, tp, "dogdict", ORC_TYPE_LINK, ORC_COLL_DICT, ORC_PROP_OPTIONAL, td, &cdict));
    CHECK_OK(add_prop(w, tp, "any", ORC_TYPE_MIXED, 0, ORC_PROP_OPTIONAL, 0, &cmix));
    for (int i = 0; i < 3; i++) CHECK_OK(orc_obj_create(w, td, NULL, NULL, 0, &d[i]));
    for (int i = 0; i < 4; i++) CHECK_OK(orc_obj_create(w, tp, NULL, NULL, 0, &p[i]));
    orc_value d0 = v_link(td, d[0]), d1 = v_link(td, d[1]), d2 = v_link(td, d[2]);
    /* p0.dog = d0, p1.dog = d0, p2.dogs = [d0, d1, d0], p3: set {d0}, dict {a: d0, b: d1}, any = d0 */
    CHECK_OK(orc_obj_set(w, tp, p[0], cdog, &d0));
    CHECK_OK(orc_obj_set(w, tp, p[1], cdog, &d0));
    CHECK_OK(orc_list_insert(w, tp, p[2], cdogs, 0, &d0));
    CHECK_OK(orc_list_insert(w, tp, p[2], cdogs, 1, &d1));
    CHECK_OK(orc_list_insert(w, tp, p[2], cdogs, 2, &d0));
    CHECK_OK(orc_set_insert(w, tp, p[3], cset, &d0, NULL));
    CHECK_OK(orc_dict_set(w, tp, p[3], cdict, "a", 1, &d0));
    CHECK_OK(orc_dict_set(w, tp, p[3], cdict, "b", 1, &d1));
    CHECK_OK(orc_obj_set(w, tp, p[3], cmix, &d0));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_obj_backlink_count(r, td, d[0], &blc));
    CHECK_EQ(blc, 4); /* p0, p1, p2, p3: objects, not references */
    CHECK_OK(orc_obj_backlink_count(r, td, d[1], &blc));
    CHECK_EQ(blc, 2);
    CHECK_OK(orc_obj_backlink_count(r, td, d[2], &blc));
    CHECK_EQ(blc, 0);
    orc_keys bl = {0};
    CHECK_OK(orc_obj_backlinks(r, td, d[0], tp, cdog, &bl));
    CHECK_EQ(bl.count, 2);
    CHECK_EQ(bl.keys[0], p[0]);
    CHECK_EQ(bl.keys[1], p[1]);
    bl.count = 0;
    CHECK_OK(orc_obj_backlinks(r, td, d[0], tp, cdogs, &bl));
    CHECK_EQ(bl.count, 1); /* once per object though p2 links twice */
    CHECK_EQ(bl.keys[0], p[2]);
    bl.count = 0;
    CHECK_OK(orc_obj_backlinks(r, td, d[0], tp, cmix, &bl));
    CHECK_EQ(bl.count, 1);
    CHECK_EQ(bl.keys[0], p[3]);
    orc_keys_free(&bl);
    orc_txn_abort(r);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_erase(w, td, d[0]));
    CHECK(!orc_obj_exists(w, td, d[0]));
    CHECK_RC(orc_obj_erase(w, td, d[0]), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value nul = v_null(), v;
    CHECK(get_is(r, tp, p[0], cdog, &nul));
    CHECK(get_is(r, tp, p[1], cdog, &nul));
    CHECK(get_is(r, tp, p[3], cmix, &nul));
    size_t n;
    CHECK_OK(orc_coll_size(r, tp, p[2], cdogs, &n));
    CHECK_EQ(n, 1);
    CHECK_OK(orc_coll_get(r, tp, p[2], cdogs, 0, &v));
    CHECK(value_identical(&v, &d1));
    CHECK_OK(orc_coll_size(r, tp, p[3], cset, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(orc_coll_size(r, tp, p[3], cdict, &n));
    CHECK_EQ(n, 2); /* dictionary values become null; the keys stay */
    CHECK_OK(orc_dict_get(r, tp, p[3], cdict, "a", 1, &v));
    CHECK_EQ(v.type, ORC_TYPE_NULL);
    CHECK_OK(orc_dict_get(r, tp, p[3], cdict, "b", 1, &v));
    CHECK(value_identical(&v, &d1));
    CHECK_OK(orc_obj_backlink_count(r, td, d[1], &blc));
    CHECK_EQ(blc, 2);
    CHECK_RC(orc_obj_backlink_count(r, td, d[0], &blc), ORC_ERR_NOT_FOUND);
    CHECK(count_is(r, td, 2));
    orc_txn_abort(r);

    /* Erasing the linking objects removes their backlinks. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_set(w, tp, p[0], cdog, &d2));
    CHECK_OK(orc_obj_erase(w, tp, p[2]));
    CHECK_OK(orc_obj_erase(w, tp, p[3]));
    CHECK_OK(orc_obj_backlink_count(w, td, d[1], &blc));
    CHECK_EQ(blc, 0);
    CHECK_OK(orc_obj_backlink_count(w, td, d[2], &blc));
    CHECK_EQ(blc, 1);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_embedded_objects_are_owned)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t tp, te, tf;
    uint16_t cchild, clist, cv, csub, cfv, cplain;
    uint64_t p, p2, c1, c2, c3, c4, blc;
    CHECK_OK(open_new(test_path("embedded.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Leaf", ORC_CLASS_EMBEDDED, &tf));
    CHECK_OK(orc_class_add(w, "Emb", ORC_CLASS_EMBEDDED, &te));
    CHECK_OK(orc_class_add(w, "Parent", ORC_CLASS_TOP_LEVEL, &tp));
    CHECK_OK(add_prop(w, tf, "fv", ORC_TYPE_INT, 0, 0, 0, &cfv));
    CHECK_OK(add_prop(w, te, "v", ORC_TYPE_INT, 0, 0, 0, &cv));
    CHECK_OK(add_prop(w, te, "sub", ORC_TYPE_LINK, 0, ORC_PROP_OPTIONAL, tf, &csub));
    CHECK_OK(add_prop(w, tp, "child", ORC_TYPE_LINK, 0, ORC_PROP_OPTIONAL, te, &cchild));
    CHECK_OK(add_prop(w, tp, "children", ORC_TYPE_LINK, ORC_COLL_LIST, 0, te, &clist));
    CHECK_OK(add_prop(w, tp, "plain", ORC_TYPE_INT, 0, 0, 0, &cplain));
    CHECK_OK(orc_obj_create(w, tp, NULL, NULL, 0, &p));
    CHECK_OK(orc_obj_create(w, tp, NULL, NULL, 0, &p2));

    /* Embedded classes cannot be created directly. */
    CHECK_RC(orc_obj_create(w, te, NULL, NULL, 0, NULL), ORC_ERR_INVALID_ARG);
    /* Only on a property linking to an embedded class. */
    CHECK_RC(orc_obj_create_embedded(w, tp, p, cplain, 0, NULL, &c1), ORC_ERR_WRONG_TYPE);

    CHECK_OK(orc_obj_create_embedded(w, tp, p, cchild, 0, NULL, &c1));
    orc_value v = v_int(11);
    CHECK_OK(orc_obj_set(w, te, c1, cv, &v));
    orc_value got;
    CHECK_OK(orc_obj_get(w, tp, p, cchild, &got));
    CHECK_EQ(got.type, ORC_TYPE_LINK);
    CHECK_EQ(got.link.table, te);
    CHECK_EQ(got.link.key, c1);
    CHECK_OK(orc_obj_backlink_count(w, te, c1, &blc));
    CHECK_EQ(blc, 1);
    CHECK(count_is(w, te, 1));
    /* An embedded object cannot get a second parent through a plain set. */
    orc_value l1 = v_link(te, c1);
    CHECK_RC(orc_obj_set(w, tp, p2, cchild, &l1), ORC_ERR_EMBEDDED);
    CHECK_RC(orc_list_insert(w, tp, p2, clist, 0, &l1), ORC_ERR_EMBEDDED);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    /* Replacing the child erases the previous one. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_create_embedded(w, tp, p, cchild, 0, NULL, &c2));
    CHECK(c2 != c1);
    CHECK(!orc_obj_exists(w, te, c1));
    CHECK(orc_obj_exists(w, te, c2));
    CHECK(count_is(w, te, 1));
    /* Setting the link to null erases the child. */
    orc_value nul = v_null();
    CHECK_OK(orc_obj_set(w, tp, p, cchild, &nul));
    CHECK(!orc_obj_exists(w, te, c2));
    CHECK(count_is(w, te, 0));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    /* Nested: parent -> c3 -> leaf c4; plus two list children. Erasing the parent erases all. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_create_embedded(w, tp, p, cchild, 0, NULL, &c3));
    CHECK_OK(orc_obj_create_embedded(w, te, c3, csub, 0, NULL, &c4));
    v = v_int(44);
    CHECK_OK(orc_obj_set(w, tf, c4, cfv, &v));
    uint64_t l0, lA, lB;
    CHECK_OK(orc_obj_create_embedded(w, tp, p, clist, 0, NULL, &l0));
    CHECK_OK(orc_obj_create_embedded(w, tp, p, clist, 0, NULL, &lA)); /* inserted before l0 */
    CHECK_RC(orc_obj_create_embedded(w, tp, p, clist, 5, NULL, &lB), ORC_ERR_OUT_OF_RANGE);
    CHECK_OK(orc_obj_create_embedded(w, tp, p2, clist, 0, NULL, &lB)); /* another parent's child */
    size_t n;
    CHECK_OK(orc_coll_size(w, tp, p, clist, &n));
    CHECK_EQ(n, 2);
    CHECK_OK(orc_coll_get(w, tp, p, clist, 0, &got));
    CHECK_EQ(got.link.key, lA);
    CHECK(count_is(w, te, 4));
    CHECK(count_is(w, tf, 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_erase(w, tp, p));
    CHECK(!orc_obj_exists(w, te, c3));
    CHECK(!orc_obj_exists(w, tf, c4));
    CHECK(!orc_obj_exists(w, te, l0));
    CHECK(!orc_obj_exists(w, te, lA));
    CHECK(orc_obj_exists(w, te, lB));
    CHECK(count_is(w, te, 1));
    CHECK(count_is(w, tf, 0));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(orc_obj_exists(r, te, lB));
    CHECK_OK(orc_obj_backlink_count(r, te, lB, &blc));
    CHECK_EQ(blc, 1);
    orc_txn_abort(r);
    orc_env_close(env);
}

TEST(object_table_count_keys_clear)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("table.realm"));
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t, tl;
    uint16_t cv, cl;
    uint64_t keys[50], lk, max_key = 0;
    CHECK_OK(open_new(path, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "T", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_class_add(w, "L", ORC_CLASS_TOP_LEVEL, &tl));
    CHECK_OK(add_prop(w, t, "v", ORC_TYPE_INT, 0, ORC_PROP_INDEXED, 0, &cv));
    CHECK_OK(add_prop(w, tl, "t", ORC_TYPE_LINK, 0, ORC_PROP_OPTIONAL, t, &cl));
    for (int i = 0; i < 50; i++) {
        orc_value v = v_int(i % 4);
        CHECK_OK(orc_obj_create(w, t, &cv, &v, 1, &keys[i]));
        if (keys[i] > max_key) max_key = keys[i];
    }
    orc_value link = v_link(t, keys[10]);
    CHECK_OK(orc_obj_create(w, tl, &cl, &link, 1, &lk));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(count_is(w, t, 50));
    orc_keys ks = {0};
    CHECK_OK(orc_table_keys(w, t, &ks));
    CHECK_EQ(ks.count, 50);
    for (int i = 0; i < 50; i++) CHECK_EQ(ks.keys[i], keys[i]);
    /* Erase the newest objects: their keys are not handed out again. */
    for (int i = 45; i < 50; i++) CHECK_OK(orc_obj_erase(w, t, keys[i]));
    for (int i = 0; i < 5; i++) CHECK_OK(orc_obj_erase(w, t, keys[i * 7]));
    uint64_t k;
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK(k > max_key);
    max_key = k;
    CHECK(count_is(w, t, 41));
    /* orc_table_keys appends. */
    CHECK_OK(orc_table_keys(w, t, &ks));
    CHECK_EQ(ks.count, 50 + 41);
    for (size_t i = 51; i < ks.count; i++) CHECK(ks.keys[i] > ks.keys[i - 1]);
    orc_keys_free(&ks);
    CHECK(ks.keys == NULL && ks.count == 0);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    /* Clear: everything goes, links to the objects become null; keys still not reused (also after reopen). */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_table_clear(w, t));
    CHECK(count_is(w, t, 0));
    CHECK_OK(orc_table_keys(w, t, &ks));
    CHECK_EQ(ks.count, 0);
    orc_value nul = v_null();
    CHECK(get_is(w, tl, lk, cl, &nul));
    CHECK_RC(orc_table_clear(w, 9999), ORC_ERR_NOT_FOUND);
    uint64_t n;
    CHECK_RC(orc_table_count(w, 9999, &n), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_table_keys(w, 9999, &ks), ORC_ERR_NOT_FOUND);
    orc_keys_free(&ks);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    CHECK_OK(reopen(&env, path));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(count_is(w, t, 0));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK(k > max_key);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(count_is(r, t, 1));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_missing_objects_and_columns)
{
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t cv, cl;
    uint64_t k, gone;
    CHECK_OK(open_new(test_path("missing.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "T", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(w, t, "v", ORC_TYPE_INT, 0, 0, 0, &cv));
    CHECK_OK(add_prop(w, t, "l", ORC_TYPE_INT, ORC_COLL_LIST, 0, 0, &cl));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &gone));
    CHECK_OK(orc_obj_erase(w, t, gone));
    orc_value v = v_int(1), out;
    CHECK(!orc_obj_exists(w, t, gone));
    CHECK(!orc_obj_exists(w, 9999, k));
    CHECK(!orc_obj_exists(w, t, 0));
    CHECK_RC(orc_obj_get(w, t, gone, cv, &out), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_set(w, t, gone, cv, &v), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_erase(w, t, gone), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_add_int(w, t, gone, cv, 1), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_get(w, 9999, k, cv, &out), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_get(w, t, k, 999, &out), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_set(w, t, k, 999, &v), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_erase(w, 9999, k), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_create(w, 9999, NULL, NULL, 0, NULL), ORC_ERR_NOT_FOUND);
    uint16_t badcol = 999;
    CHECK_RC(orc_obj_create(w, t, &badcol, &v, 1, NULL), ORC_ERR_NOT_FOUND);
    uint64_t blc;
    CHECK_RC(orc_obj_backlink_count(w, t, gone, &blc), ORC_ERR_NOT_FOUND);
    /* A collection property is not a single value. */
    CHECK_RC(orc_obj_get(w, t, k, cl, &out), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_obj_set(w, t, k, cl, &v), ORC_ERR_WRONG_TYPE);
    /* Nor can it be given at creation. */
    int rc = orc_obj_create(w, t, &cl, &v, 1, NULL);
    CHECK(rc == ORC_ERR_INVALID_ARG || rc == ORC_ERR_WRONG_TYPE);
    /* A column twice. */
    uint16_t twice[2] = {cv, cv};
    orc_value two[2] = {v_int(1), v_int(2)};
    CHECK_RC(orc_obj_create(w, t, twice, two, 2, NULL), ORC_ERR_INVALID_ARG);
    CHECK(count_is(w, t, 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_asymmetric_create)
{
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t cid;
    CHECK_OK(open_new(test_path("asym.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Event", ORC_CLASS_ASYMMETRIC, &t));
    CHECK_OK(add_prop(w, t, "_id", ORC_TYPE_OBJECT_ID, 0, ORC_PROP_PRIMARY_KEY, 0, &cid));
    orc_value id = v_oid(9);
    uint64_t k;
    CHECK_OK(orc_obj_create(w, t, &cid, &id, 1, &k));
    CHECK_RC(orc_obj_create(w, t, &cid, &id, 1, NULL), ORC_ERR_EXISTS);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(object_row_cursor_reads_in_key_order)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t, empty;
    uint16_t ci, cs;
    CHECK_OK(open_new(test_path("rows.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "R", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_class_add(w, "Empty", ORC_CLASS_TOP_LEVEL, &empty));
    CHECK_OK(add_prop(w, t, "i", ORC_TYPE_INT, 0, 0, 0, &ci));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, 0, 0, &cs));
    for (int i = 0; i < 1000; i++) {
        char s[24];
        snprintf(s, sizeof s, "row %d", i);
        uint16_t cols[2] = {ci, cs};
        orc_value vals[2] = {v_int(i * 3), v_str(s)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, NULL));
    }
    orc_keys all = {0};
    CHECK_OK(orc_table_keys(w, t, &all));
    for (size_t i = 0; i < all.count; i += 3) CHECK_OK(orc_obj_erase(w, t, all.keys[i]));
    orc_keys_free(&all);
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_keys keys = {0};
    CHECK_OK(orc_table_keys(r, t, &keys));
    CHECK_EQ(keys.count, 666);
    orc_row *row;
    CHECK_OK(orc_row_open(r, t, &row));
    CHECK_EQ(orc_row_key(row), 0);
    CHECK_OK(orc_row_seek(row, keys.keys[0]));
    size_t n = 0;
    int rc;
    do {
        CHECK(n < keys.count);
        CHECK_EQ(orc_row_key(row), keys.keys[n]);
        orc_value a, b, c, d;
        CHECK_OK(orc_row_get(row, ci, &a));
        CHECK_OK(orc_obj_get(r, t, keys.keys[n], ci, &b));
        CHECK(value_identical(&a, &b));
        CHECK_OK(orc_row_get(row, cs, &c));
        CHECK_OK(orc_obj_get(r, t, keys.keys[n], cs, &d));
        CHECK(value_identical(&c, &d));
        char want[32];
        snprintf(want, sizeof want, "row %" PRId64, a.integer / 3);
        CHECK(c.string.size == strlen(want) && memcmp(c.string.data, want, c.string.size) == 0);
        n++;
    } while ((rc = orc_row_next(row)) == ORC_OK);
    CHECK_RC(rc, ORC_ERR_NOT_FOUND);
    CHECK_EQ(n, keys.count);
    /* Seeks: erased keys are not found, backwards and forwards both work. */
    uint64_t erased = keys.keys[0] - 1; /* keys.keys[0] is the 2nd created; the 1st was erased */
    CHECK_RC(orc_row_seek(row, erased), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_row_seek(row, keys.keys[keys.count - 1] + 1), ORC_ERR_NOT_FOUND);
    for (size_t i = keys.count; i-- > 0;) {
        if (i % 37) continue;
        CHECK_OK(orc_row_seek(row, keys.keys[i]));
        CHECK_EQ(orc_row_key(row), keys.keys[i]);
    }
    for (size_t i = 0; i < keys.count; i++) {
        CHECK_OK(orc_row_seek(row, keys.keys[i]));
        orc_value a, b;
        CHECK_OK(orc_row_get(row, ci, &a));
        CHECK_OK(orc_obj_get(r, t, keys.keys[i], ci, &b));
        CHECK(value_identical(&a, &b));
    }
    orc_value dummy;
    CHECK_RC(orc_row_get(row, 999, &dummy), ORC_ERR_NOT_FOUND);
    orc_row_close(row);
    orc_row_close(NULL);
    /* An empty table: nothing to seek to. */
    CHECK_OK(orc_row_open(r, empty, &row));
    CHECK_RC(orc_row_seek(row, 1), ORC_ERR_NOT_FOUND);
    orc_row_close(row);
    CHECK_RC(orc_row_open(r, 9999, &row), ORC_ERR_NOT_FOUND);
    orc_keys_free(&keys);
    orc_txn_abort(r);
    orc_env_close(env);
}

/*
 * orc_obj_get decodes further properties of the row it read last without a lookup:
 * the row must be the one asked for (same table and key), in the same read
 * transaction generation, and a renewed transaction reads the committed version.
 */
TEST(object_get_reuses_the_last_row_only_while_it_is_current)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t, u;
    uint16_t ci, cs, cu;
    CHECK_OK(open_new(test_path("lastrow.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "T", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_class_add(w, "U", ORC_CLASS_TOP_LEVEL, &u));
    CHECK_OK(add_prop(w, t, "i", ORC_TYPE_INT, 0, 0, 0, &ci));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, 0, 0, &cs));
    CHECK_OK(add_prop(w, u, "i", ORC_TYPE_INT, 0, 0, 0, &cu));
    uint64_t k1, k2, ku;
    uint16_t cols[2] = {ci, cs};
    orc_value a[2] = {v_int(1), v_str("one")}, b[2] = {v_int(2), v_str("two")}, c = v_int(-7);
    CHECK_OK(orc_obj_create(w, t, cols, a, 2, &k1));
    CHECK_OK(orc_obj_create(w, t, cols, b, 2, &k2));
    CHECK_OK(orc_obj_create(w, u, &cu, &c, 1, &ku));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value v;
    CHECK_OK(orc_obj_get(r, t, k1, ci, &v));
    CHECK_EQ(v.integer, 1);
    CHECK(get_is(r, t, k1, cs, &a[1]));
    CHECK_RC(orc_obj_get(r, t, k1, 999, &v), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_get(r, t, k1, ci, NULL), ORC_ERR_INVALID_ARG);
    /* Another table's row in between (its key may equal k1): then back to T. */
    CHECK(get_is(r, u, ku, cu, &c));
    CHECK(get_is(r, t, k2, cs, &b[1]));
    CHECK(get_is(r, t, k2, ci, &b[0]));
    CHECK(get_is(r, t, k1, ci, &a[0]));

    /* A commit, then a renew: the row read before is not reused. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value changed = v_str("uno");
    CHECK_OK(orc_obj_set(w, t, k1, cs, &changed));
    CHECK(get_is(w, t, k1, cs, &changed));
    CHECK_OK(orc_obj_erase(w, t, k2));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(get_is(r, t, k1, cs, &a[1]));
    CHECK_OK(orc_txn_renew(r));
    CHECK(get_is(r, t, k1, cs, &changed));
    CHECK(get_is(r, t, k1, ci, &a[0]));
    CHECK_RC(orc_obj_get(r, t, k2, ci, &v), ORC_ERR_NOT_FOUND);
    orc_txn_abort(r);
    orc_env_close(env);
}

/*
 * orc_obj_next walks a table in key order: erased keys are skipped, a walk from any
 * key resumes after it, other reads in between (another table's rows, a row far
 * away) do not lose its place, the properties of the row it returned are read at
 * once, and in a write transaction it sees the transaction's own inserts and erases.
 */
TEST(object_next_walks_a_table_in_key_order)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t, u, empty;
    uint16_t ci, cs, cu;
    CHECK_OK(open_new(test_path("walk.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "W", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_class_add(w, "U", ORC_CLASS_TOP_LEVEL, &u));
    CHECK_OK(orc_class_add(w, "Empty", ORC_CLASS_TOP_LEVEL, &empty));
    CHECK_OK(add_prop(w, t, "i", ORC_TYPE_INT, 0, 0, 0, &ci));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, 0, 0, &cs));
    CHECK_OK(add_prop(w, u, "i", ORC_TYPE_INT, 0, 0, 0, &cu));
    for (int i = 0; i < 2000; i++) {
        char s[24];
        snprintf(s, sizeof s, "walk %d", i);
        uint16_t cols[2] = {ci, cs};
        orc_value vals[2] = {v_int(i), v_str(s)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, NULL));
    }
    orc_value uv = v_int(-1);
    uint64_t ku;
    CHECK_OK(orc_obj_create(w, u, &cu, &uv, 1, &ku));
    orc_keys all = {0};
    CHECK_OK(orc_table_keys(w, t, &all));
    for (size_t i = 0; i < all.count; i++)
        if (i % 5 == 1 || (i >= 700 && i < 900)) CHECK_OK(orc_obj_erase(w, t, all.keys[i]));
    orc_keys_free(&all);
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_keys keys = {0};
    CHECK_OK(orc_table_keys(r, t, &keys));
    CHECK(keys.count > 1000);
    uint64_t key = 0, last = 0;
    size_t n = 0;
    int rc;
    while ((rc = orc_obj_next(r, t, key, &key)) == ORC_OK) {
        CHECK(n < keys.count);
        CHECK_EQ(key, keys.keys[n]);
        orc_value a, s;
        CHECK_OK(orc_obj_get(r, t, key, ci, &a));
        CHECK_OK(orc_obj_get(r, t, key, cs, &s));
        char want[24];
        snprintf(want, sizeof want, "walk %" PRId64, a.integer);
        CHECK(s.string.size == strlen(want) && memcmp(s.string.data, want, s.string.size) == 0);
        /* Every so often the loop body reads elsewhere: another table, a row far away. */
        if (n % 97 == 3) CHECK(get_is(r, u, ku, cu, &uv));
        if (n % 89 == 5) CHECK_OK(orc_obj_get(r, t, keys.keys[keys.count - 1 - n], ci, &a));
        last = key;
        n++;
    }
    CHECK_RC(rc, ORC_ERR_NOT_FOUND);
    CHECK_EQ(n, keys.count);
    CHECK_EQ(last, keys.keys[keys.count - 1]);
    /* From an erased key, from the middle of the erased run, past the end. */
    uint64_t found;
    CHECK_OK(orc_obj_next(r, t, keys.keys[0] + 1, &found));
    CHECK_EQ(found, keys.keys[1]);
    for (size_t i = 1; i < keys.count; i += 53) {
        CHECK_OK(orc_obj_next(r, t, keys.keys[i - 1], &found));
        CHECK_EQ(found, keys.keys[i]);
    }
    CHECK_RC(orc_obj_next(r, t, last, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_next(r, t, UINT64_MAX, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_next(r, empty, 0, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_next(r, 9999, 0, &found), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_obj_next(r, t, 0, NULL), ORC_ERR_INVALID_ARG);

    /* A write transaction: its own erases and inserts are walked as they stand. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_erase(w, t, keys.keys[0]));
    uint64_t added;
    CHECK_OK(orc_obj_create(w, t, &ci, &uv, 1, &added));
    size_t m = 0;
    key = 0;
    while ((rc = orc_obj_next(w, t, key, &key)) == ORC_OK) {
        CHECK_EQ(key, m + 1 < keys.count ? keys.keys[m + 1] : added);
        if (m % 200 == 0) CHECK_OK(orc_obj_set(w, t, key, ci, &uv));
        m++;
    }
    CHECK_RC(rc, ORC_ERR_NOT_FOUND);
    CHECK_EQ(m, keys.count);
    orc_txn_abort(w);

    /* The read transaction renewed after a commit walks the new version. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_erase(w, t, keys.keys[1]));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_obj_next(r, t, keys.keys[0], &found));
    CHECK_EQ(found, keys.keys[1]);
    CHECK_OK(orc_txn_renew(r));
    CHECK_OK(orc_obj_next(r, t, keys.keys[0], &found));
    CHECK_EQ(found, keys.keys[2]);
    orc_keys_free(&keys);
    orc_txn_abort(r);
    orc_env_close(env);
}

/*
 * Primary keys are first put with MDB_APPEND while they ascend: keys in any order
 * (ascending, then below the last, then ascending again from above, duplicates of
 * the last key and of keys in the middle) are all found, duplicates are refused with
 * nothing written, and the file checks clean, within one transaction and across
 * several.
 */
TEST(object_primary_keys_in_any_order_are_indexed)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cid, cv;
    CHECK_OK(open_new(test_path("pkorder.realm"), &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "P", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(w, t, "id", ORC_TYPE_INT, 0, ORC_PROP_PRIMARY_KEY, 0, &cid));
    CHECK_OK(add_prop(w, t, "v", ORC_TYPE_INT, 0, 0, 0, &cv));
    /* Ascending; then a run below; duplicates of the last and of the middle; random. */
    int64_t order[3000];
    size_t n = 0;
    for (int64_t i = 1000; i < 2000; i++) order[n++] = i;
    for (int64_t i = 999; i >= 500; i--) order[n++] = i;
    for (int64_t i = 5000; i < 5300; i++) order[n++] = i;
    uint64_t seed = 42;
    while (n < 3000) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        order[n++] = 10000 + (int64_t)(seed >> 40) % 100000;
    }
    size_t created = 0, refused = 0;
    for (int round = 0; round < 2; round++) {
        for (size_t i = round ? 1500 : 0; i < (round ? 3000 : 1500); i++) {
            uint16_t cols[2] = {cid, cv};
            orc_value vals[2] = {v_int(order[i]), v_int(order[i] * 2)};
            int rc = orc_obj_create(w, t, cols, vals, 2, NULL);
            if (rc == ORC_ERR_EXISTS) {
                refused++;
                continue;
            }
            CHECK_OK(rc);
            created++;
            /* The key just put, and one from the middle, again: refused, nothing written. */
            if (i % 97 == 0) {
                CHECK_RC(orc_obj_create(w, t, cols, vals, 2, NULL), ORC_ERR_EXISTS);
                orc_value mid[2] = {v_int(order[i / 2]), v_int(0)};
                CHECK_RC(orc_obj_create(w, t, cols, mid, 2, NULL), ORC_ERR_EXISTS);
            }
        }
        CHECK_OK(orc_txn_commit(w, NULL));
        CHECK_OK(orc_txn_begin(env, round ? ORC_TXN_READ : ORC_TXN_WRITE, round ? &r : &w));
    }
    CHECK(refused > 0); /* the random keys repeat some */
    CHECK(count_is(r, t, created));
    for (size_t i = 0; i < 3000; i++) {
        orc_value pk = v_int(order[i]), v;
        uint64_t key;
        CHECK_OK(orc_obj_find(r, t, &pk, &key));
        CHECK_OK(orc_obj_get(r, t, key, cv, &v));
        CHECK_EQ(v.integer, order[i] * 2);
    }
    orc_value absent = v_int(3);
    uint64_t key;
    CHECK_RC(orc_obj_find(r, t, &absent, &key), ORC_ERR_NOT_FOUND);
    orc_txn_abort(r);
    size_t problems = 99;
    CHECK_OK(orc_env_check(env, &problems));
    CHECK_EQ(problems, 0);
    orc_env_close(env);
}

/*
 * Creates append rows and ascending primary keys through cursors kept between
 * creates. Everything else that writes those databases in between — a row rewritten
 * longer (page splits), erases of the last object and of others, creates in another
 * class and with keys below the last, the map growing mid-transaction — must leave
 * every object findable by primary key, with its values, and the file checking clean.
 */
TEST(object_appends_survive_every_other_write_in_between)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t, u;
    uint16_t cid, cs, uid;
    orc_env_options opt = {.initial_map_size = 1 << 20};
    CHECK_OK(orc_env_open(test_path("appends.realm"), ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "A", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_class_add(w, "B", ORC_CLASS_TOP_LEVEL, &u));
    CHECK_OK(add_prop(w, t, "id", ORC_TYPE_INT, 0, ORC_PROP_PRIMARY_KEY, 0, &cid));
    CHECK_OK(add_prop(w, t, "s", ORC_TYPE_STRING, 0, 0, 0, &cs));
    CHECK_OK(add_prop(w, u, "id", ORC_TYPE_INT, 0, ORC_PROP_PRIMARY_KEY, 0, &uid));
    enum { N = 12000 };
    static uint8_t alive[N + 1000];
    static uint64_t keys[N + 1000];
    static char big[600];
    memset(big, 'x', sizeof big - 1);
    uint64_t seed = 7;
    int64_t next_id = 1000; /* ascending ids from here; ids below it are "late" ones */
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned op = (unsigned)(seed >> 33) % 20;
        int64_t id = op == 0 ? (int64_t)((seed >> 20) % 1000) : next_id++;
        if (alive[id]) id = next_id++;
        uint16_t cols[2] = {cid, cs};
        char s[32];
        snprintf(s, sizeof s, "a%" PRId64, id);
        orc_value vals[2] = {v_int(id), v_str(s)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &keys[id]));
        alive[id] = 1;
        if (op == 1) { /* the object just made, rewritten much longer: its page splits */
            orc_value longer = v_str(big);
            CHECK_OK(orc_obj_set(w, t, keys[id], cs, &longer));
        } else if (op == 2) { /* the last object goes again */
            CHECK_OK(orc_obj_erase(w, t, keys[id]));
            alive[id] = 0;
        } else if (op == 3 && id > 1100 && alive[id - 37]) {
            CHECK_OK(orc_obj_erase(w, t, keys[id - 37]));
            alive[id - 37] = 0;
        } else if (op == 4) { /* another class in between */
            orc_value bv = v_int(i);
            CHECK_OK(orc_obj_create(w, u, &uid, &bv, 1, NULL));
        }
        if (i % 5000 == 4999) { /* and a commit now and then */
            CHECK_OK(orc_txn_commit(w, NULL));
            CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        }
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    uint64_t count = 0;
    for (int64_t id = 0; id < next_id; id++) {
        orc_value pk = v_int(id), s;
        uint64_t key;
        int rc = orc_obj_find(r, t, &pk, &key);
        if (!alive[id]) {
            CHECK_RC(rc, ORC_ERR_NOT_FOUND);
            continue;
        }
        CHECK_OK(rc);
        CHECK_EQ(key, keys[id]);
        CHECK_OK(orc_obj_get(r, t, key, cs, &s));
        char want[32];
        snprintf(want, sizeof want, "a%" PRId64, id);
        CHECK(s.string.size == strlen(want) ? memcmp(s.string.data, want, s.string.size) == 0
                                            : s.string.size == sizeof big - 1);
        count++;
    }
    CHECK(count_is(r, t, count));
    orc_txn_abort(r);
    size_t problems = 99;
    CHECK_OK(orc_env_check(env, &problems));
    CHECK_EQ(problems, 0);
    orc_env_info info;
    CHECK_OK(orc_env_info_get(env, &info));
    CHECK(info.map_size > (size_t)1 << 20); /* the map grew on the way */
    orc_env_close(env);
}
