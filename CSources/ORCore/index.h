/*
 * index.h — secondary indexes and backlinks (index.c; entry layouts in env.h,
 * FILE LAYOUT, and index.c, CHUNKS).
 */
#ifndef ORCORE_INDEX_H
#define ORCORE_INDEX_H

#include "scan.h"
#include "row.h"
#include "txn.h"
#include "value.h"

/** Adds or removes an object's index entries for one column value. */
int idx_insert(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key);
int idx_remove(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key);
/**
 * Puts the index entries idx_insert deferred into "idx" (sorted; appended past the
 * database's last key). Everything that reads or removes index entries in a write
 * transaction calls it first, and so does the commit. Returns ORC_OK,
 * ORC_ERR_MAP_FULL (the LMDB transaction is dead: grow and replay), or another
 * status after poisoning the transaction.
 */
int idx_flush(orc_txn *txn);
/**
 * Puts pending entries (pointers to u16 size | key, as idx_insert lays them out) into
 * LMDB's key order, by value groups when there are few (index.c, "ORDERING BY VALUE
 * GROUPS"), else by qsort. ORC_OK or ORC_ERR_NOMEM (nothing reported; e[] unchanged).
 */
int idx_order(const uint8_t **e, size_t n);
/** Drops the deferred index entries (the LMDB transaction they belonged to ended). */
void idx_forget(orc_txn *txn);
/** The bytes before an index entry's value: u32 BE table | u16 BE col. */
#define IDX_PREFIX_BYTES 6
/** Format 3 chunks: at most IDX_CHUNK_MAX bytes of key distances, so at most IDX_CHUNK_KEYS keys. */
#define IDX_CHUNK_MAX 240
#define IDX_CHUNK_KEYS (IDX_CHUNK_MAX + 1)
/**
 * Decodes a format 3 chunk (index.c, CHUNKS): `first` (the key's last 8 bytes) and the
 * keys its n bytes of data add, into out[0..*count) (room for IDX_CHUNK_KEYS).
 * ORC_ERR_CORRUPT (nothing reported) when the data is not a well-formed chunk.
 */
int idx_chunk_decode(uint64_t first, const uint8_t *d, size_t n, uint64_t *out, size_t *count);
/** Whether the index of (table, col) holds object `key` under value v (either layout). */
int idx_contains(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key, bool *found);
/** Builds / drops every entry of an index. */
int idx_build(orc_txn *txn, uint32_t table, uint16_t col);
int idx_drop(orc_txn *txn, uint32_t table, uint16_t col);

/** Callback for scans: return 0 to go on, 1 to stop, or an error status. */
typedef int (*key_cb)(void *ctx, uint64_t key);
/**
 * Calls `cb` for each object whose indexed value lies in the range (NULL
 * bound = open). Both bounds are treated as inclusive (the flags are
 * accepted for callers' clarity, not used). Candidates only: with truncated strings, a key may be
 * reported whose value is outside the range, so callers recheck rows.
 * Order: by value, then key.
 */
int idx_scan(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *lo, bool lo_incl,
             const orc_value *hi, bool hi_incl, key_cb cb, void *ctx);

/** Backlinks: origin (table, col, key) refers `count` times to target (table, key). */
int blink_add(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, uint64_t okey);
int blink_remove(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, uint64_t okey);
/** Calls cb(ctx, otable, ocol, okey, count) for each backlink of a target; origin filter when otable != 0. */
typedef int (*blink_cb)(void *ctx, uint32_t otable, uint16_t ocol, uint64_t okey, uint32_t count);
int blink_each(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, blink_cb cb, void *ctx);

/* Hooks (layers.c): idx_flush at commit, idx_forget when the LMDB transaction ends. */

#endif /* ORCORE_INDEX_H */
