/*
 * test_collection.c — lists, sets and dictionaries (collection.c), through the
 * public API; the damaged-blob tests write raw records with LMDB (collection.h).
 */
#include "collection_fixture.h"
#include "object.h"

#include <stdlib.h>

/* ---- values ------------------------------------------------------------------ */

static orc_value v_oid(uint8_t fill)
{
    orc_value v = {.type = ORC_TYPE_OBJECT_ID};
    memset(v.object_id, fill, sizeof v.object_id);
    return v;
}
static orc_value v_uuid(uint8_t fill)
{
    orc_value v = {.type = ORC_TYPE_UUID};
    memset(v.uuid, fill, sizeof v.uuid);
    return v;
}


static bool record_exists(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col)
{
    uint8_t kb[14];
    st32be(kb, table);
    st64be(kb + 4, key);
    st16be(kb + 12, col);
    MDB_val mk = {14, kb}, mv;
    return mdb_get(txn->mdb, txn->core->dbi_coll, &mk, &mv) == MDB_SUCCESS;
}

static size_t backlinks(orc_txn *txn, uint32_t t, uint64_t k, uint32_t ot, uint16_t oc)
{
    orc_keys keys = {0};
    if (orc_obj_backlinks(txn, t, k, ot, oc, &keys) != ORC_OK) {
        orc_keys_free(&keys);
        return (size_t)-1;
    }
    size_t n = keys.count;
    orc_keys_free(&keys);
    return n;
}

/* ---- lists ------------------------------------------------------------------- */

TEST(collection_list_every_type)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    CHECK_OK(open_env("types.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Holder", ORC_CLASS_TOP_LEVEL, &t));

    enum { NT = 12, NV = 4 };
    static const char bin[] = {0, 1, 2, 0};
    orc_type types[NT] = {ORC_TYPE_BOOL,    ORC_TYPE_INT,       ORC_TYPE_FLOAT,   ORC_TYPE_DOUBLE,
                          ORC_TYPE_STRING,  ORC_TYPE_BINARY,    ORC_TYPE_TIMESTAMP, ORC_TYPE_DECIMAL,
                          ORC_TYPE_OBJECT_ID, ORC_TYPE_UUID,    ORC_TYPE_MIXED,   ORC_TYPE_INT};
    uint32_t flags[NT] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ORC_PROP_OPTIONAL};
    orc_value vals[NT][NV] = {
        {v_bool(true), v_bool(false), v_bool(true), v_bool(true)},
        {v_int(0), v_int(-7), v_int(INT64_MAX), v_int(INT64_MIN)},
        {v_float(1.5f), v_float(-0.25f), v_float(3e38f), v_float(0)},
        {v_double(2.5), v_double(-1e300), v_double(0.1), v_double(7)},
        {v_str(""), v_str("héllo"), v_str("a longer string with some bytes in it"), v_str("z")},
        {v_bin(bin, 4), v_bin(bin, 0), v_bin(bin, 1), v_bin("xyz", 3)},
        {v_timestamp(0, 0), v_timestamp(-5, -10), v_timestamp(1700000000, 999999999), v_timestamp(0, -1)},
        {v_decimal(1, 0x3040000000000000ULL), v_decimal(25, 0x303e000000000000ULL), v_decimal(0, 0x3040000000000000ULL),
         v_decimal(7, 0xb040000000000000ULL)},
        {v_oid(1), v_oid(0xff), v_oid(0), v_oid(7)},
        {v_uuid(2), v_uuid(0), v_uuid(0xee), v_uuid(9)},
        {v_str("mixed"), v_int(3), v_null(), v_double(4.5)},
        {v_int(1), v_null(), v_int(-1), v_null()},
    };
    uint16_t cols[NT];
    char name[16];
    for (int i = 0; i < NT; i++) {
        snprintf(name, sizeof name, "list%d", i);
        CHECK_OK(add_prop(txn, t, name, types[i], ORC_COLL_LIST, flags[i], 0, &cols[i]));
    }
    uint64_t k;
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    for (int i = 0; i < NT; i++) {
        size_t size = 99;
        CHECK_OK(orc_coll_size(txn, t, k, cols[i], &size));
        CHECK_EQ(size, 0);
        for (int j = 0; j < NV; j++) CHECK_OK(orc_list_insert(txn, t, k, cols[i], (size_t)j, &vals[i][j]));
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < NT; i++) {
            size_t size;
            CHECK_OK(orc_coll_size(txn, t, k, cols[i], &size));
            CHECK_EQ(size, NV);
            for (int j = 0; j < NV; j++) {
                orc_value v;
                CHECK_OK(orc_coll_get(txn, t, k, cols[i], (size_t)j, &v));
                CHECK(same(v, vals[i][j]));
                size_t at;
                CHECK_OK(orc_coll_find(txn, t, k, cols[i], &vals[i][j], &at));
                CHECK(same(vals[i][at], vals[i][j]));
            }
        }
        if (pass == 0) {
            CHECK_OK(orc_txn_commit(txn, NULL));
            CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
        }
    }
    orc_txn_abort(txn);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(collection_list_operations)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t col, other;
    uint64_t k;
    CHECK_OK(open_env("listops.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "nums", ORC_TYPE_INT, ORC_COLL_LIST, 0, 0, &col));
    CHECK_OK(add_prop(txn, t, "more", ORC_TYPE_INT, ORC_COLL_LIST, 0, 0, &other));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));

    orc_value v;
    CHECK_RC(orc_coll_get(txn, t, k, col, 0, &v), ORC_ERR_OUT_OF_RANGE);
    CHECK_RC(orc_list_erase(txn, t, k, col, 0), ORC_ERR_OUT_OF_RANGE);
    orc_value x10 = v_int(10), x20 = v_int(20), x30 = v_int(30), x5 = v_int(5), x40 = v_int(40), x25 = v_int(25);
    CHECK_OK(orc_list_insert(txn, t, k, col, 0, &x10));
    CHECK_OK(orc_list_insert(txn, t, k, col, 1, &x30));
    CHECK_OK(orc_list_insert(txn, t, k, col, 1, &x20));
    CHECK_OK(orc_list_insert(txn, t, k, col, 0, &x5));
    CHECK_RC(orc_list_insert(txn, t, k, col, 5, &x40), ORC_ERR_OUT_OF_RANGE);
    CHECK_OK(orc_list_insert(txn, t, k, col, 4, &x40));
    int64_t a[] = {5, 10, 20, 30, 40};
    CHECK_OK(list_matches(txn, t, k, col, a, NULL, 5));

    CHECK_OK(orc_list_set(txn, t, k, col, 2, &x25));
    CHECK_RC(orc_list_set(txn, t, k, col, 5, &x25), ORC_ERR_OUT_OF_RANGE);
    int64_t b[] = {5, 10, 25, 30, 40};
    CHECK_OK(list_matches(txn, t, k, col, b, NULL, 5));

    /* Realm's move: the element ends at `to`. */
    CHECK_OK(orc_list_move(txn, t, k, col, 0, 3));
    int64_t c[] = {10, 25, 30, 5, 40};
    CHECK_OK(list_matches(txn, t, k, col, c, NULL, 5));
    CHECK_OK(orc_list_move(txn, t, k, col, 4, 0));
    int64_t d[] = {40, 10, 25, 30, 5};
    CHECK_OK(list_matches(txn, t, k, col, d, NULL, 5));
    CHECK_OK(orc_list_move(txn, t, k, col, 2, 2));
    CHECK_OK(orc_list_move(txn, t, k, col, 3, 4));
    int64_t e[] = {40, 10, 25, 5, 30};
    CHECK_OK(list_matches(txn, t, k, col, e, NULL, 5));
    CHECK_RC(orc_list_move(txn, t, k, col, 5, 0), ORC_ERR_OUT_OF_RANGE);
    CHECK_RC(orc_list_move(txn, t, k, col, 0, 5), ORC_ERR_OUT_OF_RANGE);
    CHECK_OK(list_matches(txn, t, k, col, e, NULL, 5));

    CHECK_OK(orc_list_erase(txn, t, k, col, 0));
    CHECK_RC(orc_list_erase(txn, t, k, col, 4), ORC_ERR_OUT_OF_RANGE);
    int64_t f[] = {10, 25, 5, 30};
    CHECK_OK(list_matches(txn, t, k, col, f, NULL, 4));

    size_t at;
    CHECK_OK(orc_coll_find(txn, t, k, col, &x30, &at));
    CHECK_EQ(at, 3);
    orc_value x99 = v_int(99), s = v_str("10");
    CHECK_RC(orc_coll_find(txn, t, k, col, &x99, &at), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_coll_find(txn, t, k, col, &s, &at), ORC_ERR_WRONG_TYPE);

    /* The other list of the same object is independent. */
    CHECK_OK(orc_list_insert(txn, t, k, other, 0, &x99));
    CHECK_OK(list_matches(txn, t, k, col, f, NULL, 4));
    CHECK_OK(orc_txn_commit(txn, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_OK(list_matches(txn, t, k, col, f, NULL, 4));
    CHECK_RC(orc_list_insert(txn, t, k, col, 0, &x5), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_coll_clear(txn, t, k, col), ORC_ERR_READ_ONLY);
    orc_txn_abort(txn);

    /* Emptying a list removes its record, by erasing or by clearing. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK(record_exists(txn, t, k, col));
    for (int i = 0; i < 4; i++) CHECK_OK(orc_list_erase(txn, t, k, col, 0));
    CHECK(!record_exists(txn, t, k, col));
    CHECK_OK(list_matches(txn, t, k, col, NULL, NULL, 0));
    CHECK(record_exists(txn, t, k, other));
    CHECK_OK(orc_coll_clear(txn, t, k, other));
    CHECK(!record_exists(txn, t, k, other));
    CHECK_OK(orc_coll_clear(txn, t, k, other));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(collection_rejects_bad_input)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t, target;
    uint16_t ints, opt, set, dict, plain, links, mixed;
    uint64_t k, tk;
    CHECK_OK(open_env("bad.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Target", ORC_CLASS_TOP_LEVEL, &target));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "ints", ORC_TYPE_INT, ORC_COLL_LIST, 0, 0, &ints));
    CHECK_OK(add_prop(txn, t, "opt", ORC_TYPE_STRING, ORC_COLL_LIST, ORC_PROP_OPTIONAL, 0, &opt));
    CHECK_OK(add_prop(txn, t, "set", ORC_TYPE_INT, ORC_COLL_SET, 0, 0, &set));
    CHECK_OK(add_prop(txn, t, "dict", ORC_TYPE_INT, ORC_COLL_DICT, 0, 0, &dict));
    CHECK_OK(add_prop(txn, t, "plain", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &plain));
    CHECK_OK(add_prop(txn, t, "links", ORC_TYPE_LINK, ORC_COLL_LIST, 0, target, &links));
    CHECK_OK(add_prop(txn, t, "mixed", ORC_TYPE_MIXED, ORC_COLL_LIST, 0, 0, &mixed));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &tk));

    orc_value one = v_int(1), str = v_str("s"), nul = v_null(), dbl = v_double(1);
    CHECK_RC(orc_list_insert(txn, t, k, ints, 0, &str), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, ints, 0, &dbl), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, ints, 0, &nul), ORC_ERR_NOT_NULLABLE);
    CHECK_RC(orc_list_insert(txn, t, k, ints, 0, NULL), ORC_ERR_INVALID_ARG);
    CHECK_OK(orc_list_insert(txn, t, k, opt, 0, &nul));
    CHECK_RC(orc_list_insert(txn, t, k, opt, 0, &one), ORC_ERR_WRONG_TYPE);
    orc_value bad_str = {.type = ORC_TYPE_STRING, .string = {NULL, 3}};
    CHECK_RC(orc_list_insert(txn, t, k, opt, 0, &bad_str), ORC_ERR_INVALID_ARG);
    CHECK_OK(orc_list_insert(txn, t, k, ints, 0, &one));
    CHECK_RC(orc_list_set(txn, t, k, ints, 0, &nul), ORC_ERR_NOT_NULLABLE);
    CHECK_RC(orc_list_set(txn, t, k, ints, 0, &str), ORC_ERR_WRONG_TYPE);

    /* The wrong kind of collection, or not a collection at all. */
    bool flag;
    CHECK_RC(orc_list_insert(txn, t, k, set, 0, &one), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_set_insert(txn, t, k, ints, &one, &flag), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_dict_set(txn, t, k, ints, "a", 1, &one), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, dict, 0, &one), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, plain, 0, &one), ORC_ERR_WRONG_TYPE);
    size_t size;
    CHECK_RC(orc_coll_size(txn, t, k, plain, &size), ORC_ERR_WRONG_TYPE);
    orc_value key_out;
    CHECK_RC(orc_dict_key_at(txn, t, k, set, 0, &key_out), ORC_ERR_WRONG_TYPE);

    /* Missing object, column, class. */
    CHECK_RC(orc_coll_size(txn, t, k + 100, ints, &size), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_list_insert(txn, t, k + 100, ints, 0, &one), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_coll_size(txn, t, k, 200, &size), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_coll_size(txn, 999, k, ints, &size), ORC_ERR_NOT_FOUND);

    /* Links: the right table, an existing target. */
    orc_value to_owner = v_link(t, k), missing = v_link(target, tk + 50), good = v_link(target, tk);
    CHECK_RC(orc_list_insert(txn, t, k, links, 0, &to_owner), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, links, 0, &missing), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_list_insert(txn, t, k, links, 0, &one), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, links, 0, &nul), ORC_ERR_NOT_NULLABLE);
    CHECK_OK(orc_list_insert(txn, t, k, links, 0, &good));
    /* Mixed takes any value type, links to any existing object, but not the MIXED pseudo-type. */
    orc_value mixed_type = {.type = ORC_TYPE_MIXED};
    orc_value bad_time = v_timestamp(5, -1);
    CHECK_RC(orc_list_insert(txn, t, k, mixed, 0, &mixed_type), ORC_ERR_WRONG_TYPE);
    CHECK_RC(orc_list_insert(txn, t, k, mixed, 0, &bad_time), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_list_insert(txn, t, k, mixed, 0, &missing), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 0, &nul));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 1, &to_owner));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 2, &good));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 3, &str));

    /* Nothing above changed what it rejected. */
    int64_t want[] = {1};
    CHECK_OK(list_matches(txn, t, k, ints, want, NULL, 1));
    CHECK_OK(orc_coll_size(txn, t, k, opt, &size));
    CHECK_EQ(size, 1);
    CHECK_OK(orc_coll_size(txn, t, k, mixed, &size));
    CHECK_EQ(size, 4);
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- sets -------------------------------------------------------------------- */

TEST(collection_set_sorted_unique)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t ints, strs, mixed;
    uint64_t k;
    CHECK_OK(open_env("sets.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "ints", ORC_TYPE_INT, ORC_COLL_SET, 0, 0, &ints));
    CHECK_OK(add_prop(txn, t, "strs", ORC_TYPE_STRING, ORC_COLL_SET, 0, 0, &strs));
    CHECK_OK(add_prop(txn, t, "mixed", ORC_TYPE_MIXED, ORC_COLL_SET, 0, 0, &mixed));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));

    int64_t in[] = {5, 1, 3, 1, 5, 2, -4};
    bool fresh[] = {true, true, true, false, false, true, true};
    for (int i = 0; i < 7; i++) {
        orc_value v = v_int(in[i]);
        bool inserted = !fresh[i];
        CHECK_OK(orc_set_insert(txn, t, k, ints, &v, &inserted));
        CHECK_EQ(inserted, fresh[i]);
    }
    int64_t sorted[] = {-4, 1, 2, 3, 5};
    CHECK_OK(list_matches(txn, t, k, ints, sorted, NULL, 5));
    orc_value three = v_int(3), five = v_int(5), nul = v_null();
    bool erased = false;
    CHECK_OK(orc_set_erase(txn, t, k, ints, &three, &erased));
    CHECK(erased);
    CHECK_OK(orc_set_erase(txn, t, k, ints, &three, &erased));
    CHECK(!erased);
    CHECK_OK(orc_set_erase(txn, t, k, ints, &nul, &erased));
    CHECK(!erased);
    CHECK_RC(orc_set_insert(txn, t, k, ints, &nul, NULL), ORC_ERR_NOT_NULLABLE);
    size_t at;
    CHECK_OK(orc_coll_find(txn, t, k, ints, &five, &at));
    CHECK_EQ(at, 3);
    CHECK_RC(orc_coll_find(txn, t, k, ints, &three, &at), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_list_erase(txn, t, k, ints, 0), ORC_ERR_WRONG_TYPE);

    const char *words[] = {"pear", "apple", "Zebra", "app", "", "apple", "äpfel"};
    for (int i = 0; i < 7; i++) {
        orc_value v = v_str(words[i]);
        CHECK_OK(orc_set_insert(txn, t, k, strs, &v, NULL));
    }
    const char *wsorted[] = {"", "Zebra", "app", "apple", "pear", "äpfel"};
    size_t size;
    CHECK_OK(orc_coll_size(txn, t, k, strs, &size));
    CHECK_EQ(size, 6);
    for (size_t i = 0; i < 6; i++) {
        orc_value v;
        CHECK_OK(orc_coll_get(txn, t, k, strs, i, &v));
        CHECK(str_is(v, wsorted[i]));
    }

    /* Mixed: values of every kind, kept in orc_value_compare order. */
    static const char bytes[] = "ab";
    orc_value mv[] = {v_str("b"), v_int(3),      v_null(),     v_double(2.5), v_bool(true), v_str("a"),
                      v_bin(bytes, 2), v_timestamp(10, 0), v_oid(3),  v_uuid(4),     v_bool(false), v_int(-1),
                      v_float(2.75f), v_link(t, k), v_int(3),    v_null(),      v_str("a")};
    size_t nmv = sizeof mv / sizeof *mv, distinct = 0;
    for (size_t i = 0; i < nmv; i++) {
        bool inserted;
        CHECK_OK(orc_set_insert(txn, t, k, mixed, &mv[i], &inserted));
        bool seen = false;
        for (size_t j = 0; j < i; j++) seen |= orc_value_compare(&mv[i], &mv[j]) == 0;
        CHECK_EQ(inserted, !seen);
        distinct += !seen;
    }
    CHECK_OK(orc_txn_commit(txn, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_OK(orc_coll_size(txn, t, k, mixed, &size));
    CHECK_EQ(size, distinct);
    orc_value prev;
    for (size_t i = 0; i < size; i++) {
        orc_value v;
        CHECK_OK(orc_coll_get(txn, t, k, mixed, i, &v));
        if (i) CHECK(orc_value_compare(&prev, &v) < 0);
        CHECK_OK(orc_coll_find(txn, t, k, mixed, &v, &at));
        CHECK_EQ(at, i);
        prev = v;
    }
    orc_txn_abort(txn);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- dictionaries ------------------------------------------------------------- */

TEST(collection_dict_sorted_keys)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t col;
    uint64_t k;
    CHECK_OK(open_env("dict.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "d", ORC_TYPE_INT, ORC_COLL_DICT, ORC_PROP_OPTIONAL, 0, &col));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));

    const char *keys[] = {"b", "a", "é", "c", "ab", "x$"};
    for (int i = 0; i < 6; i++) {
        orc_value v = v_int(i + 1);
        CHECK_OK(orc_dict_set(txn, t, k, col, keys[i], strlen(keys[i]), &v));
    }
    const char *order[] = {"a", "ab", "b", "c", "x$", "é"};
    int64_t values[] = {2, 5, 1, 4, 6, 3};
    size_t size;
    CHECK_OK(orc_coll_size(txn, t, k, col, &size));
    CHECK_EQ(size, 6);
    for (size_t i = 0; i < 6; i++) {
        orc_value kv, v;
        CHECK_OK(orc_dict_key_at(txn, t, k, col, i, &kv));
        CHECK(str_is(kv, order[i]));
        CHECK_OK(orc_coll_get(txn, t, k, col, i, &v));
        CHECK(same(v, v_int(values[i])));
        CHECK_OK(orc_dict_get(txn, t, k, col, order[i], strlen(order[i]), &v));
        CHECK(same(v, v_int(values[i])));
    }
    orc_value kv, v;
    CHECK_RC(orc_dict_key_at(txn, t, k, col, 6, &kv), ORC_ERR_OUT_OF_RANGE);
    CHECK_RC(orc_dict_get(txn, t, k, col, "zz", 2, &v), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_dict_get(txn, t, k, col, "a", 0, &v), ORC_ERR_NOT_FOUND);

    /* Overwrite keeps the size; null is a value for an optional dictionary. */
    orc_value ten = v_int(10), nul = v_null(), four = v_int(4);
    CHECK_OK(orc_dict_set(txn, t, k, col, "a", 1, &ten));
    CHECK_OK(orc_dict_set(txn, t, k, col, "b", 1, &nul));
    CHECK_OK(orc_coll_size(txn, t, k, col, &size));
    CHECK_EQ(size, 6);
    CHECK_OK(orc_dict_get(txn, t, k, col, "a", 1, &v));
    CHECK(same(v, ten));
    CHECK_OK(orc_dict_get(txn, t, k, col, "b", 1, &v));
    CHECK_EQ(v.type, ORC_TYPE_NULL);
    size_t at;
    CHECK_OK(orc_coll_find(txn, t, k, col, &four, &at));
    CHECK_EQ(at, 3); /* "c" */
    CHECK_OK(orc_coll_find(txn, t, k, col, &nul, &at));
    CHECK_EQ(at, 2); /* "b" */

    bool erased = false;
    CHECK_OK(orc_dict_erase(txn, t, k, col, "ab", 2, &erased));
    CHECK(erased);
    CHECK_OK(orc_dict_erase(txn, t, k, col, "ab", 2, &erased));
    CHECK(!erased);
    CHECK_OK(orc_dict_erase(txn, t, k, col, "a.b", 3, &erased));
    CHECK(!erased);
    CHECK_RC(orc_dict_get(txn, t, k, col, "ab", 2, &v), ORC_ERR_NOT_FOUND);

    /* Keys Realm cannot store. */
    CHECK_RC(orc_dict_set(txn, t, k, col, "", 0, &ten), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_dict_set(txn, t, k, col, "a.b", 3, &ten), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_dict_set(txn, t, k, col, ".", 1, &ten), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_dict_set(txn, t, k, col, "$x", 2, &ten), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_dict_set(txn, t, k, col, "\xff\xfe", 2, &ten), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_dict_set(txn, t, k, col, NULL, 3, &ten), ORC_ERR_INVALID_ARG);
    orc_value str = v_str("no");
    CHECK_RC(orc_dict_set(txn, t, k, col, "q", 1, &str), ORC_ERR_WRONG_TYPE);
    CHECK_OK(orc_coll_size(txn, t, k, col, &size));
    CHECK_EQ(size, 5);
    CHECK_OK(orc_txn_commit(txn, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_dict_key_at(txn, t, k, col, 4, &kv));
    CHECK(str_is(kv, "é"));
    CHECK_OK(orc_coll_clear(txn, t, k, col));
    CHECK_OK(orc_coll_size(txn, t, k, col, &size));
    CHECK_EQ(size, 0);
    CHECK(!record_exists(txn, t, k, col));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- links ------------------------------------------------------------------- */

TEST(collection_links_and_erased_targets)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t, target;
    uint16_t list, set, dict, mixed;
    uint64_t k, t1, t2, t3, k2;
    CHECK_OK(open_env("links.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Target", ORC_CLASS_TOP_LEVEL, &target));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "list", ORC_TYPE_LINK, ORC_COLL_LIST, 0, target, &list));
    CHECK_OK(add_prop(txn, t, "set", ORC_TYPE_LINK, ORC_COLL_SET, 0, target, &set));
    CHECK_OK(add_prop(txn, t, "dict", ORC_TYPE_LINK, ORC_COLL_DICT, ORC_PROP_OPTIONAL, target, &dict));
    CHECK_OK(add_prop(txn, t, "mixed", ORC_TYPE_MIXED, ORC_COLL_LIST, 0, 0, &mixed));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k2));
    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &t1));
    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &t2));
    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &t3));

    orc_value l1 = v_link(target, t1), l2 = v_link(target, t2), l3 = v_link(target, t3);
    orc_value one = v_int(1), x = v_str("x");
    CHECK_OK(orc_list_insert(txn, t, k, list, 0, &l1));
    CHECK_OK(orc_list_insert(txn, t, k, list, 1, &l2));
    CHECK_OK(orc_list_insert(txn, t, k, list, 2, &l1));
    CHECK_OK(orc_set_insert(txn, t, k, set, &l2, NULL));
    CHECK_OK(orc_set_insert(txn, t, k, set, &l1, NULL));
    CHECK_OK(orc_dict_set(txn, t, k, dict, "a", 1, &l1));
    CHECK_OK(orc_dict_set(txn, t, k, dict, "b", 1, &l2));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 0, &one));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 1, &l1));
    CHECK_OK(orc_list_insert(txn, t, k, mixed, 2, &x));
    CHECK_OK(orc_list_insert(txn, t, k2, list, 0, &l3));

    CHECK_EQ(backlinks(txn, target, t1, t, list), 1);
    CHECK_EQ(backlinks(txn, target, t1, t, set), 1);
    CHECK_EQ(backlinks(txn, target, t1, t, dict), 1);
    CHECK_EQ(backlinks(txn, target, t1, t, mixed), 1);
    CHECK_EQ(backlinks(txn, target, t2, t, mixed), 0);
    uint64_t count;
    CHECK_OK(orc_obj_backlink_count(txn, target, t3, &count));
    CHECK_EQ(count, 1);
    orc_value got;
    CHECK_OK(orc_coll_get(txn, t, k, list, 2, &got));
    CHECK(same(got, l1));
    CHECK_EQ(got.link.table, target);

    /* One of two occurrences gone: the backlink stays; both gone: it goes. */
    CHECK_OK(orc_list_erase(txn, t, k, list, 2));
    CHECK_EQ(backlinks(txn, target, t1, t, list), 1);
    CHECK_OK(orc_list_insert(txn, t, k, list, 2, &l1));
    CHECK_OK(orc_list_set(txn, t, k2, list, 0, &l2));
    CHECK_OK(orc_obj_backlink_count(txn, target, t3, &count));
    CHECK_EQ(count, 0);
    CHECK_EQ(backlinks(txn, target, t2, t, list), 2);
    CHECK_OK(orc_list_set(txn, t, k2, list, 0, &l3));
    CHECK_OK(orc_obj_backlink_count(txn, target, t3, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(backlinks(txn, target, t2, t, list), 1);
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);

    /* Erasing a target: list and set entries go, dictionary values become null. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_obj_erase(txn, target, t1));
    size_t size;
    CHECK_OK(orc_coll_size(txn, t, k, list, &size));
    CHECK_EQ(size, 1);
    CHECK_OK(orc_coll_get(txn, t, k, list, 0, &got));
    CHECK(same(got, l2));
    CHECK_OK(orc_coll_size(txn, t, k, set, &size));
    CHECK_EQ(size, 1);
    CHECK_OK(orc_coll_get(txn, t, k, set, 0, &got));
    CHECK(same(got, l2));
    CHECK_OK(orc_coll_size(txn, t, k, dict, &size));
    CHECK_EQ(size, 2);
    CHECK_OK(orc_dict_get(txn, t, k, dict, "a", 1, &got));
    CHECK_EQ(got.type, ORC_TYPE_NULL);
    CHECK_OK(orc_dict_get(txn, t, k, dict, "b", 1, &got));
    CHECK(same(got, l2));
    CHECK_OK(orc_coll_size(txn, t, k, mixed, &size));
    CHECK_EQ(size, 2);
    CHECK_OK(orc_coll_get(txn, t, k, mixed, 1, &got));
    CHECK(str_is(got, "x"));
    CHECK_EQ(backlinks(txn, target, t2, t, list), 1);
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);

    /* Erasing the owner drops its backlinks. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_obj_erase(txn, t, k));
    CHECK_EQ(backlinks(txn, target, t2, t, list), 0);
    CHECK_EQ(backlinks(txn, target, t2, t, set), 0);
    CHECK_EQ(backlinks(txn, target, t2, t, dict), 0);
    CHECK(!record_exists(txn, t, k, list));
    CHECK(!record_exists(txn, t, k, dict));
    CHECK_RC(orc_coll_size(txn, t, k, list, &size), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_obj_backlink_count(txn, target, t3, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- embedded ----------------------------------------------------------------- */

static int link_key_at(orc_txn *txn, uint32_t t, uint64_t k, uint16_t col, size_t i, uint64_t *key)
{
    orc_value v;
    int rc = orc_coll_get(txn, t, k, col, i, &v);
    if (rc) return rc;
    if (v.type != ORC_TYPE_LINK) return -1;
    *key = v.link.key;
    return ORC_OK;
}

TEST(collection_embedded_elements)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t, emb;
    uint16_t list, dict, n;
    uint64_t k, c1, c2, c3, got;
    CHECK_OK(open_env("embedded.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Part", ORC_CLASS_EMBEDDED, &emb));
    CHECK_OK(add_prop(txn, emb, "n", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &n));
    CHECK_OK(orc_class_add(txn, "Whole", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "parts", ORC_TYPE_LINK, ORC_COLL_LIST, 0, emb, &list));
    CHECK_OK(add_prop(txn, t, "named", ORC_TYPE_LINK, ORC_COLL_DICT, ORC_PROP_OPTIONAL, emb, &dict));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));

    CHECK_OK(orc_obj_create_embedded(txn, t, k, list, 0, NULL, &c1));
    CHECK_OK(orc_obj_create_embedded(txn, t, k, list, 0, NULL, &c2));
    CHECK_OK(orc_obj_create_embedded(txn, t, k, list, 2, NULL, &c3));
    uint64_t dummy;
    CHECK_RC(orc_obj_create_embedded(txn, t, k, list, 9, NULL, &dummy), ORC_ERR_OUT_OF_RANGE);
    uint64_t want[] = {c2, c1, c3};
    size_t size;
    CHECK_OK(orc_coll_size(txn, t, k, list, &size));
    CHECK_EQ(size, 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_OK(link_key_at(txn, t, k, list, i, &got));
        CHECK_EQ(got, want[i]);
    }
    CHECK_EQ(backlinks(txn, emb, c1, t, list), 1);
    uint64_t count;
    CHECK_OK(orc_table_count(txn, emb, &count));
    CHECK_EQ(count, 3);

    /* Links to embedded objects cannot be inserted or set directly. */
    orc_value l1 = v_link(emb, c1);
    CHECK_RC(orc_list_insert(txn, t, k, list, 0, &l1), ORC_ERR_EMBEDDED);
    CHECK_RC(orc_list_set(txn, t, k, list, 0, &l1), ORC_ERR_EMBEDDED);
    CHECK_RC(orc_dict_set(txn, t, k, dict, "a", 1, &l1), ORC_ERR_EMBEDDED);

    /* Moving keeps the objects; erasing an element erases its object. */
    CHECK_OK(orc_list_move(txn, t, k, list, 0, 2));
    CHECK_OK(link_key_at(txn, t, k, list, 2, &got));
    CHECK_EQ(got, c2);
    CHECK_OK(orc_list_erase(txn, t, k, list, 0)); /* c1 */
    CHECK(!orc_obj_exists(txn, emb, c1));
    CHECK(orc_obj_exists(txn, emb, c2));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_coll_clear(txn, t, k, list));
    CHECK(!orc_obj_exists(txn, emb, c2));
    CHECK(!orc_obj_exists(txn, emb, c3));
    CHECK_OK(orc_table_count(txn, emb, &count));
    CHECK_EQ(count, 0);

    /* Dictionary: a new object at a key replaces (and erases) the old one. */
    orc_value ka = v_str("a"), kb = v_str("b");
    uint64_t d1, d2, d3;
    CHECK_OK(orc_obj_create_embedded(txn, t, k, dict, 0, &ka, &d1));
    CHECK_OK(orc_obj_create_embedded(txn, t, k, dict, 0, &ka, &d2));
    CHECK(!orc_obj_exists(txn, emb, d1));
    CHECK_OK(orc_obj_create_embedded(txn, t, k, dict, 0, &kb, &d3));
    CHECK_OK(orc_coll_size(txn, t, k, dict, &size));
    CHECK_EQ(size, 2);
    orc_value v, nul = v_null();
    CHECK_OK(orc_dict_get(txn, t, k, dict, "a", 1, &v));
    CHECK(same(v, v_link(emb, d2)));
    CHECK_OK(orc_dict_set(txn, t, k, dict, "a", 1, &nul));
    CHECK(!orc_obj_exists(txn, emb, d2));
    bool erased;
    CHECK_OK(orc_dict_erase(txn, t, k, dict, "b", 1, &erased));
    CHECK(erased);
    CHECK(!orc_obj_exists(txn, emb, d3));

    /* Erasing the parent erases what it still owns. */
    uint64_t e1, e2;
    CHECK_OK(orc_obj_create_embedded(txn, t, k, list, 0, NULL, &e1));
    CHECK_OK(orc_obj_create_embedded(txn, t, k, dict, 0, &kb, &e2));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_obj_erase(txn, t, k));
    CHECK(!orc_obj_exists(txn, emb, e1));
    CHECK(!orc_obj_exists(txn, emb, e2));
    CHECK_OK(orc_table_count(txn, emb, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- the changeset ------------------------------------------------------------- */

TEST(collection_logged_instructions)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t, target;
    uint16_t list, set, dict;
    uint64_t k, t1, version;
    CHECK_OK(open_env("log.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Target", ORC_CLASS_TOP_LEVEL, &target));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "list", ORC_TYPE_LINK, ORC_COLL_LIST, 0, target, &list));
    CHECK_OK(add_prop(txn, t, "set", ORC_TYPE_INT, ORC_COLL_SET, 0, 0, &set));
    CHECK_OK(add_prop(txn, t, "dict", ORC_TYPE_INT, ORC_COLL_DICT, 0, 0, &dict));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &t1));
    CHECK_OK(orc_txn_commit(txn, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    orc_value l1 = v_link(target, t1), seven = v_int(7);
    CHECK_OK(orc_list_insert(txn, t, k, list, 0, &l1));
    CHECK_OK(orc_list_insert(txn, t, k, list, 1, &l1));
    CHECK_OK(orc_list_insert(txn, t, k, list, 1, &l1));
    CHECK_OK(orc_list_move(txn, t, k, list, 0, 2));
    CHECK_OK(orc_list_move(txn, t, k, list, 1, 1)); /* no change, not recorded */
    CHECK_OK(orc_set_insert(txn, t, k, set, &seven, NULL));
    CHECK_OK(orc_set_insert(txn, t, k, set, &seven, NULL)); /* already there, not recorded */
    CHECK_OK(orc_dict_set(txn, t, k, dict, "key", 3, &seven));
    CHECK_OK(orc_dict_erase(txn, t, k, dict, "key", 3, NULL));
    CHECK_OK(orc_coll_clear(txn, t, k, set));
    CHECK_OK(orc_obj_erase(txn, target, t1));
    CHECK_OK(orc_txn_commit(txn, &version));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    const void *data;
    size_t size;
    CHECK_OK(orc_log_get(txn, version, &data, &size));
    orc_changeset_iter it = {0};
    CHECK_OK(orc_changeset_iter_init(&it, data, size));
    struct {
        orc_instr_op op;
        uint64_t index, index2;
        bool derived;
    } want[] = {
        {ORC_INSTR_LIST_INSERT, 0, 0, false}, {ORC_INSTR_LIST_INSERT, 1, 0, false},
        {ORC_INSTR_LIST_INSERT, 1, 0, false}, {ORC_INSTR_LIST_MOVE, 0, 2, false},
        {ORC_INSTR_SET_INSERT, 0, 0, false},  {ORC_INSTR_DICT_SET, 0, 0, false},
        {ORC_INSTR_DICT_ERASE, 0, 0, false},  {ORC_INSTR_COLL_CLEAR, 0, 0, false},
        {ORC_INSTR_LIST_ERASE, 2, 0, true},   {ORC_INSTR_LIST_ERASE, 1, 0, true},
        {ORC_INSTR_LIST_ERASE, 0, 0, true},
    };
    size_t nwant = sizeof want / sizeof *want, seen = 0;
    orc_instr in;
    int rc;
    while ((rc = orc_changeset_iter_next(&it, &in)) == ORC_OK) {
        if (in.table != t) continue; /* the target's ERASE */
        CHECK(seen < nwant);
        CHECK_EQ(in.op, want[seen].op);
        CHECK_EQ(in.key, k);
        CHECK_EQ((in.flags & ORC_INSTR_DERIVED) != 0, want[seen].derived);
        if (in.op == ORC_INSTR_LIST_INSERT || in.op == ORC_INSTR_LIST_MOVE || in.op == ORC_INSTR_LIST_ERASE) {
            CHECK_EQ(in.col, list);
            CHECK_EQ(in.index, want[seen].index);
        }
        if (in.op == ORC_INSTR_LIST_INSERT) CHECK(same(in.value, l1));
        if (in.op == ORC_INSTR_LIST_MOVE) CHECK_EQ(in.index2, want[seen].index2);
        if (in.op == ORC_INSTR_SET_INSERT) CHECK(same(in.value, seven));
        if (in.op == ORC_INSTR_DICT_SET) {
            CHECK(str_is(in.dict_key, "key"));
            CHECK(same(in.value, seven));
        }
        if (in.op == ORC_INSTR_DICT_ERASE) CHECK(str_is(in.dict_key, "key"));
        if (in.op == ORC_INSTR_COLL_CLEAR) CHECK_EQ(in.col, set);
        seen++;
    }
    CHECK_RC(rc, ORC_ERR_NOT_FOUND);
    CHECK_EQ(seen, nwant);
    orc_txn_abort(txn);
    orc_env_close(env);
}

/* ---- reading: the cache ---------------------------------------------------------- */

TEST(collection_reads_follow_writes)
{
    orc_env *env;
    orc_txn *txn, *reader;
    uint32_t t;
    uint16_t a, b;
    uint64_t k1, k2;
    CHECK_OK(open_env("cache.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "a", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0, &a));
    CHECK_OK(add_prop(txn, t, "b", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0, &b));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k1));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k2));
    orc_value s1 = v_str("one"), s2 = v_str("two"), s3 = v_str("three"), got;
    CHECK_OK(orc_list_insert(txn, t, k1, a, 0, &s1));
    CHECK_OK(orc_list_insert(txn, t, k2, a, 0, &s2));
    CHECK_OK(orc_list_insert(txn, t, k1, b, 0, &s3));
    /* Alternate between collections so each read replaces the cached one. */
    for (int round = 0; round < 3; round++) {
        CHECK_OK(orc_coll_get(txn, t, k1, a, 0, &got));
        CHECK(str_is(got, "one"));
        CHECK_OK(orc_coll_get(txn, t, k2, a, 0, &got));
        CHECK(str_is(got, "two"));
        CHECK_OK(orc_coll_get(txn, t, k1, b, 0, &got));
        CHECK(str_is(got, "three"));
    }
    CHECK_OK(orc_txn_commit(txn, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &reader));
    CHECK_OK(orc_coll_get(reader, t, k1, a, 0, &got));
    CHECK(str_is(got, "one"));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_coll_get(txn, t, k1, a, 0, &got)); /* cached ... */
    CHECK_OK(orc_list_set(txn, t, k1, a, 0, &s2));  /* ... and stale now */
    CHECK_OK(orc_coll_get(txn, t, k1, a, 0, &got));
    CHECK(str_is(got, "two"));
    CHECK_OK(orc_obj_erase(txn, t, k1));
    size_t size;
    CHECK_RC(orc_coll_size(txn, t, k1, a, &size), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_txn_commit(txn, NULL));

    /* The reader still sees its snapshot, then the new state after renewing. */
    CHECK_OK(orc_coll_get(reader, t, k1, a, 0, &got));
    CHECK(str_is(got, "one"));
    CHECK_OK(orc_txn_renew(reader));
    CHECK_RC(orc_coll_size(reader, t, k1, a, &size), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_coll_get(reader, t, k2, a, 0, &got));
    CHECK(str_is(got, "two"));
    orc_txn_abort(reader);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- damaged blobs --------------------------------------------------------------- */

static int put_raw(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const void *data, size_t n)
{
    uint8_t kb[14];
    st32be(kb, table);
    st64be(kb + 4, key);
    st16be(kb + 12, col);
    MDB_val mk = {14, kb}, mv = {n, (void *)data};
    int rc = mdb_put(txn->mdb, txn->core->dbi_coll, &mk, &mv, 0);
    txn_touched(txn);
    return rc ? -1 : ORC_OK;
}

TEST(collection_damaged_blobs)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t ints, dict;
    CHECK_OK(open_env("damaged.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "ints", ORC_TYPE_INT, ORC_COLL_LIST, 0, 0, &ints));
    CHECK_OK(add_prop(txn, t, "dict", ORC_TYPE_INT, ORC_COLL_DICT, 0, 0, &dict));

    /* A sound blob first: [7] as count 1, offset 8, INT tag, i64 LE. */
    uint8_t good[17] = {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0};
    /* `header`: the damage is in the count or offsets, which every load checks. */
    struct {
        const char *what;
        bool header;
        uint8_t bytes[24];
        size_t n;
    } cases[] = {
        {"too short", true, {1, 0}, 2},
        {"count too large", true, {0xff, 0xff, 0xff, 0x0f, 8, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0}, 17},
        {"first offset wrong", true, {1, 0, 0, 0, 9, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0}, 17},
        {"offsets out of order", true,
         {2, 0, 0, 0, 12, 0, 0, 0, 12, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0, 0}, 22},
        {"offset past the end", true,
         {2, 0, 0, 0, 12, 0, 0, 0, 40, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0, 0}, 22},
        {"truncated value", false, {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0}, 12},
        {"bad tag", false, {1, 0, 0, 0, 8, 0, 0, 0, 0x7f, 7, 0, 0, 0, 0, 0, 0, 0}, 17},
        {"trailing bytes", false, {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_INT, 7, 0, 0, 0, 0, 0, 0, 0, 1}, 18},
        {"wrong type", false, {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_BOOL, 1}, 10},
        {"null in a non-optional list", false, {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_NULL}, 9},
    };
    uint64_t k;
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(put_raw(txn, t, k, ints, good, sizeof good));
    orc_value v;
    CHECK_OK(orc_coll_get(txn, t, k, ints, 0, &v));
    CHECK(same(v, v_int(7)));

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
        CHECK_OK(put_raw(txn, t, k, ints, cases[i].bytes, cases[i].n));
        size_t size = 0;
        int rc = orc_coll_size(txn, t, k, ints, &size);
        if (rc == ORC_OK) rc = orc_coll_get(txn, t, k, ints, 0, &v);
        if (rc != ORC_ERR_CORRUPT) {
            test_fail(__FILE__, __LINE__, "case '%s': got %s, want ORC_ERR_CORRUPT", cases[i].what,
                      orc_strerror(rc));
            break;
        }
        orc_value one = v_int(1);
        if (cases[i].header) CHECK_RC(orc_list_insert(txn, t, k, ints, 0, &one), ORC_ERR_CORRUPT);
        else CHECK_RC(orc_list_erase(txn, t, k, ints, 0), ORC_ERR_CORRUPT); /* decodes the element it removes */
    }

    /* A dictionary element whose key is not a string. */
    uint8_t bad_key[] = {1, 0, 0, 0, 8, 0, 0, 0, ORC_TYPE_INT, 1, 0, 0, 0, 0, 0, 0, 0, ORC_TYPE_INT, 2, 0, 0, 0, 0, 0, 0, 0};
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(put_raw(txn, t, k, dict, bad_key, sizeof bad_key));
    orc_value kv;
    CHECK_RC(orc_dict_key_at(txn, t, k, dict, 0, &kv), ORC_ERR_CORRUPT);
    CHECK_RC(orc_dict_get(txn, t, k, dict, "a", 1, &v), ORC_ERR_CORRUPT);
    orc_txn_abort(txn);
    orc_env_close(env);
}
