/*
 * object_read.h — reading objects (object_read.c): an object's row, its primary
 * key, and the read calls of orcore.h (find, get, exists, next, counts, row readers,
 * backlinks). The writes are in object.h, a layer above the log.
 */
#ifndef ORCORE_OBJECT_READ_H
#define ORCORE_OBJECT_READ_H

#include "index.h"
#include "row.h"
#include "scan.h"
#include "txn.h"

/** The row record of an object. Returns ORC_OK or ORC_ERR_NOT_FOUND. The pointer follows LIFETIMES. */
int obj_row(orc_txn *txn, uint32_t table, uint64_t key, const uint8_t **row, size_t *size);
/** The primary key value of an object (type NULL result and *has_pk false for classes without one). */
int obj_pk(orc_txn *txn, const orc_class *c, uint64_t key, orc_value *pk, bool *has_pk);
/** A type's name in object messages ("decimal128", "ObjectId"). */
const char *obj_type_name(orc_type t);
/** Hooks (layers.c): closes the read cursor; forgets the last row read. */
void obj_read_close(orc_txn *txn);
void obj_read_reset(orc_txn *txn);

#endif /* ORCORE_OBJECT_READ_H */
