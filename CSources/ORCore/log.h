/*
 * log.h — the changeset log (log.c, log_read.c): recording instructions in a write
 * transaction, storing the changeset at commit, keeping and trimming the log, and
 * the changeset iterator. The format is drawn at the top of log.c; log_format.h holds
 * its constants for log.c, log_read.c, replay.c and check.c.
 */
#ifndef ORCORE_LOG_H
#define ORCORE_LOG_H

#include "object_read.h"
#include "txn.h"
#include "value.h"

/* ------------------------------------------------------------------------ */
/* log.c — recording                                                        */
/* ------------------------------------------------------------------------ */
/*
 * Each mutating function in object.c / collection_write.c / schema_api.c records
 * one instruction in txn->changeset by calling these; log_store_changeset (a hook
 * of the commit) stores the changeset under the new version.
 */
int log_create(orc_txn *txn, const orc_class *c, uint64_t key, const uint16_t *cols,
               const orc_value *vals, size_t n);
int log_erase(orc_txn *txn, const orc_class *c, uint64_t key, const orc_value *pk, bool derived);
int log_set(orc_txn *txn, const orc_class *c, uint64_t key, uint16_t col, const orc_value *v, bool derived);
int log_add_int(orc_txn *txn, const orc_class *c, uint64_t key, uint16_t col, int64_t delta);
/** List / set / dictionary instructions: op is one of ORC_INSTR_LIST_* / SET_* / DICT_* / COLL_CLEAR. */
int log_coll(orc_txn *txn, const orc_class *c, uint64_t key, orc_instr_op op, uint16_t col, uint64_t index,
             uint64_t index2, const orc_value *dict_key, const orc_value *v, bool derived);
int log_create_embedded(orc_txn *txn, const orc_class *parent, uint64_t parent_key, uint16_t col,
                        uint64_t index, const orc_value *dict_key, uint32_t child_table, uint64_t child_key);
/** Schema instructions; `name`, `prop` as the op needs (NULL otherwise). */
int log_schema(orc_txn *txn, orc_instr_op op, uint32_t table, uint16_t col, const char *name,
               const orc_prop *prop, orc_class_kind kind);
/** Starts `it` on a header-less instruction stream (a write transaction's changeset). */
void log_iter_bare(orc_changeset_iter *it, const uint8_t *data, size_t size);
/** The store_changeset hook (layers.c): runs `body` and stores the changeset as `version`,
 *  compressing a large one on a thread of its own meanwhile (log.c, "PACKING BESIDE THE
 *  REST OF THE COMMIT"), or empties the log when the environment keeps none ("KEEPING LESS"). */
int log_store_changeset(orc_txn *txn, uint64_t version, txn_commit_body body);

#endif /* ORCORE_LOG_H */
