/*
 * collection_fixture.h — helpers shared by the `collection` group's two files
 * (test_collection.c, test_collection_random.c).
 */
#ifndef ORC_COLLECTION_FIXTURE_H
#define ORC_COLLECTION_FIXTURE_H

#include "harness.h"

static bool same(orc_value a, orc_value b) { return a.type == b.type && orc_value_compare(&a, &b) == 0; }

static bool str_is(orc_value v, const char *s)
{
    return v.type == ORC_TYPE_STRING && v.string.size == strlen(s) && memcmp(v.string.data, s, v.string.size) == 0;
}

static int add_prop(orc_txn *txn, uint32_t table, const char *name, orc_type type, orc_collection coll,
                    uint32_t flags, uint32_t link_table, uint16_t *col)
{
    orc_prop_spec spec = {.name = name, .type = type, .collection = coll, .flags = flags, .link_table = link_table};
    return orc_prop_add(txn, table, &spec, col);
}

static int open_env(const char *name, orc_env **env)
{
    return orc_env_open(test_path(name), ORC_ENV_NO_SYNC, NULL, env);
}

/* Compares an int list (nulls as `nulls[i]`) with the stored one: ORC_OK, an ORCore error, -1 size, -2 element. */
static int list_matches(orc_txn *txn, uint32_t t, uint64_t k, uint16_t col, const int64_t *vals, const bool *nulls,
                        size_t n)
{
    size_t size;
    int rc = orc_coll_size(txn, t, k, col, &size);
    if (rc) return rc;
    if (size != n) return -1;
    for (size_t i = 0; i < n; i++) {
        orc_value v;
        if ((rc = orc_coll_get(txn, t, k, col, i, &v))) return rc;
        if (nulls && nulls[i] ? v.type != ORC_TYPE_NULL : !same(v, v_int(vals[i]))) return -2;
    }
    return ORC_OK;
}

#endif
