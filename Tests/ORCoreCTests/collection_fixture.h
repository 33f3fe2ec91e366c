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

/* Classes Target and Owner; Owner has a list, a set and a dictionary (of optional values) of links to Target. */
static int add_link_owner(orc_txn *txn, uint32_t *target, uint32_t *owner, uint16_t *list, uint16_t *set,
                          uint16_t *dict)
{
    int rc;
    if ((rc = orc_class_add(txn, "Target", ORC_CLASS_TOP_LEVEL, target)) ||
        (rc = orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, owner)))
        return rc;
    if ((rc = add_prop(txn, *owner, "list", ORC_TYPE_LINK, ORC_COLL_LIST, 0, *target, list)) ||
        (rc = add_prop(txn, *owner, "set", ORC_TYPE_LINK, ORC_COLL_SET, 0, *target, set)))
        return rc;
    return add_prop(txn, *owner, "dict", ORC_TYPE_LINK, ORC_COLL_DICT, ORC_PROP_OPTIONAL, *target, dict);
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
