/*
 * collection_impl.h — shared by collection.c (the blob, the cache, checks,
 * reads) and collection_write.c (mutations and the hooks object.c calls).
 * Nothing else includes it; the blob layout and the invariants are in
 * collection.c's design comment.
 */
#ifndef ORCORE_COLLECTION_IMPL_H
#define ORCORE_COLLECTION_IMPL_H

#include "object.h"

/* The collection a public call works on: owner, property, loaded blob. */
typedef struct site {
    const orc_class *cls;
    const orc_prop *prop;
    uint64_t key;
    collref c;
} site;

/* A link element taken out of a blob before the blob is rewritten. */
typedef struct linkref {
    uint32_t table; /* 0: not a link */
    uint64_t key;
    bool embedded;
} linkref;

typedef struct linkvec {
    linkref *v;
    size_t n, cap;
} linkvec;

/* A run of bytes of a blob being built; `cont` continues the previous element. */
typedef struct piece {
    const uint8_t *p;
    size_t n;
    bool cont;
} piece;

/* ---- loading (collection.c) ---- */

/** The live class and collection property (`want` ORC_COLL_NONE: any kind). NOT_FOUND / WRONG_TYPE. */
int coll_resolve(orc_txn *txn, uint32_t table, uint16_t col, orc_collection want, const orc_class **cls_out,
                 const orc_prop **prop_out);
/** Loads a collection through the cache, checking its offsets; `need_owner` also checks the object exists. */
int coll_load_prop(orc_txn *txn, const orc_class *cls, const orc_prop *p, uint64_t key, bool need_owner,
                   collref *out);
/** Validates the transaction (a write one when `write`), the property and the owner, and loads. */
int coll_open(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, orc_collection want, bool write, site *s);
/** Element i's byte span [start, end) (i < count; offsets were checked at load). */
void coll_bounds(const collref *c, uint32_t i, size_t *start, size_t *end);
/** ORC_ERR_CORRUPT naming the collection, the reason and the element. */
int coll_corrupt(const orc_class *cls, const orc_prop *p, uint64_t key, const char *why, uint32_t i);
/** ORC_ERR_OUT_OF_RANGE naming the collection and its size. */
int coll_out_of_range(const site *s, size_t i);

/* ---- checks ---- */

/** Whether `v` may be an element (writes: also nullability, the link target, not embedded). */
int coll_check_value(orc_txn *txn, const site *s, const orc_value *v, bool write);
/** A dictionary key that can be stored: non-empty UTF-8, no '.', no leading '$'. */
int coll_check_key(const site *s, const char *k, size_t n);
bool coll_is_embedded(orc_txn *txn, uint32_t table);

/* ---- searching ---- */

/** The first position >= v in a set; *found when it holds v. */
int coll_set_search(const collref *c, const orc_value *v, uint32_t *pos, bool *found);
/** The first position whose key >= k in a dictionary; *found when it is k. */
int coll_dict_search(const collref *c, const char *k, size_t kn, uint32_t *pos, bool *found);

/* ---- building and storing ---- */

/** Encodes one element (a dictionary's key first) into a buffer owned by the transaction's cache. */
int coll_encode(orc_txn *txn, const orc_value *dkey, const orc_value *v, const orc_buf **out);
/** The cache's buffer for building blobs. */
int coll_build_buf(orc_txn *txn, orc_buf **out);
/** c's blob with elements [at, at+del) replaced by `ins` (NULL: none); empty result: out->size 0. */
int coll_splice(const collref *c, uint32_t at, uint32_t del, const orc_buf *ins, orc_buf *out);
/** A blob from pieces. */
int coll_build_pieces(const piece *ps, size_t np, orc_buf *out);
/** Writes the record, or deletes it when `blob` is empty; invalidates the cache; txn_touched. */
int coll_store(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_buf *blob);

/* ---- links ---- */

void coll_link_of(orc_txn *txn, const orc_value *v, linkref *out);
/** Appends the link elements of a whole collection. */
int coll_collect_links(orc_txn *txn, const collref *c, linkvec *out);
/** Removes a removed element's backlink and erases the embedded object it owned. */
int coll_drop_link(orc_txn *txn, const linkref *l, uint32_t otable, uint16_t ocol, uint64_t okey);

#endif /* ORCORE_COLLECTION_IMPL_H */
