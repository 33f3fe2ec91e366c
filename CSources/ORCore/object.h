/*
 * object.h — writing objects (object.c): create, set, erase, links and their
 * backlinks, table clears. Invariants at the top of object.c. Collections (collection.h)
 * are the same layer: erasing an object erases its collections, and removing an
 * element may erase the embedded object it owned.
 */
#ifndef ORCORE_OBJECT_H
#define ORCORE_OBJECT_H

#include "collection.h"
#include "index.h"
#include "log.h"
#include "object_read.h"

/** Erases every object of a table as derived erasures; `log_clear` also records CLEAR_TABLE. */
int table_clear_internal(orc_txn *txn, uint32_t table, bool log_clear);
/** Creates an object with a given key (0: the next key). Used by orc_obj_create and replay. */
int obj_create_internal(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols,
                        const orc_value *values, size_t n, uint64_t *key_out);
/** Erases an object; `derived` marks erasures caused by another instruction. */
int obj_erase_internal(orc_txn *txn, uint32_t table, uint64_t key, bool derived);
/* Closes the append cursors of create_row (before any other write to a table's or a
 * primary-key database, and before the LMDB transaction ends: a hook). Cannot fail. */
void obj_append_forget(orc_txn *txn);

#endif /* ORCORE_OBJECT_H */
