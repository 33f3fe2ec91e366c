/*
 * collection.h — lists, sets and dictionaries (collection.c: the blob, the cache,
 * reads; collection_write.c: mutations). Shares a layer with object.h.
 *
 *   offset  size       field
 *   0       4          u32 LE count
 *   4       4*count    u32 LE offsets of each element from the blob start
 *   ...                elements: list/set: tagged value; dict: tagged string key then tagged value
 *   Elements are stored back to back in index order: element i spans
 *   [off[i], off[i+1]), the last up to the blob's end; off[0] = 4 + 4 * count.
 *   An empty collection has no record.
 *   Sets keep elements in orc_value_compare order, dictionaries in key byte order.
 */
#ifndef ORCORE_COLLECTION_H
#define ORCORE_COLLECTION_H

#include "index.h"
#include "log.h"
#include "object_read.h"

typedef struct collref {
    const uint8_t *blob;   /* NULL for an empty collection */
    size_t size;
    uint32_t count;
    const orc_prop *prop;
} collref;

/** Loads a collection for reading (empty when never written). */
int coll_load(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, collref *out);
/** Element i (dictionaries: the value; `dkey` may be NULL or receives the key). Bounds-checked. */
int coll_elem(const collref *c, uint32_t i, orc_value *dkey, orc_value *value);
/** Removes every element referring to (ttable, tkey) from one collection (erase of a link target). */
int coll_remove_links(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, uint32_t ttable, uint64_t tkey);
/** Deletes the collections of an object (erase), removing backlinks and erasing embedded elements. */
int coll_erase_object(orc_txn *txn, const orc_class *c, uint64_t key);
/**
 * Puts a link to a just-created embedded object into a list (at `index`) or a
 * dictionary (at `dict_key`, erasing an embedded value it replaces), adding
 * the backlink. Not logged: the caller logs ORC_INSTR_CREATE_EMBEDDED.
 */
int coll_attach(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t index,
                const orc_value *dict_key, uint32_t child_table, uint64_t child_key);
/** Frees the transaction's collection cache (called when the transaction ends). */
void coll_cache_free(orc_txn *txn);

#endif /* ORCORE_COLLECTION_H */
