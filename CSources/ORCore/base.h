/*
 * base.h — the lowest layer (error.c, buf.c): recorded errors, growable byte
 * buffers, unaligned loads and stores, LEB128 varints. Every other file builds on it.
 *
 * LAYERS, lowest first. A file includes the headers of its own layer and of the
 * layers above it in this list, never of one below (scripts/check-layers reads
 * this table and fails the build's tests when an include runs the other way).
 * A layer offers the layers below it nothing; where a lower layer must run work
 * of a higher one (a commit flushing deferred index entries, map growth replaying
 * the transaction), it declares a hook that layers.c fills (txn.h, HOOKS).
 *
 *   1  base     base.h lmdb_page.h     error.c buf.c
 *               recorded errors, byte buffers, byte order, varints; LMDB's page constants
 *   2  value    value.h text.h geo.h   value.c text.c geo.c
 *               the value codec, the ordered key encoding, decimal128; text matching;
 *               geometry on the sphere (GEOWITHIN)
 *   3  verify   verify.h verify_impl.h verify.c verify_tree.c
 *               structural checks of LMDB pages before LMDB maps a file
 *   4  schema   schema.h row.h         schema.c row.c
 *               the stored schema (codec, sharing) and the row record each class lays out
 *   5  env      env.h                  env.c
 *               environments: registry, open, map growth, the snapshot's version and schema
 *   6  txn      txn.h                  txn.c
 *               transactions, commits, metadata, named-database handles, table states, hooks
 *   7  scan     scan.h                 scan.c
 *               reading rows: table scans, rows and primary keys by key in read snapshots
 *   8  index    index.h                index.c
 *               secondary indexes and backlinks
 *   9  read     object_read.h          object_read.c
 *               reading objects: rows, primary keys, lookups, counts, the row readers of orcore.h
 *  10  log      log.h log_format.h     log.c log_read.c
 *               the changeset log: recording, storing at commit, trimming, the iterator
 *  11  object   object.h collection.h collection_impl.h   object.c collection.c collection_write.c
 *               object and collection writes (erasing an object erases its collections'
 *               embedded objects and the reverse, so the two are one layer)
 *  12  catalog  -                      schema_api.c
 *               the schema calls of orcore.h: lookups and changes
 *  13  query    query_impl.h           query.c query_plan.c query_eval.c query_agg.c query_sort.c query_geo.c
 *               predicate programs: compile, plan, evaluate and run, aggregate, sort; GEOWITHIN
 *  14  top      replay.h               replay.c layers.c copy.c check.c
 *               replaying a changeset, the hook table for txn.c, compact copy, orc_env_check
 */
#ifndef ORCORE_BASE_H
#define ORCORE_BASE_H

#include "orcore.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* error.c                                                                  */
/* ------------------------------------------------------------------------ */

/** Records `code` and a formatted message for this thread; returns `code`. */
int orc_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Like orc_fail, for an outcome callers expect and mostly drop (a primary key not found):
 *  the message `before` `name` `after` is written only when orc_last_error() asks for it.
 *  `before` and `after` must be string literals; `name` is copied. */
int orc_fail_later(int code, const char *before, const char *name, const char *after);
/** Maps an LMDB return code to an ORCore status and records a message naming `what`. ORC_OK stays ORC_OK. */
int orc_fail_mdb(int rc, const char *what);

/* ------------------------------------------------------------------------ */
/* buf.c                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct orc_buf {
    uint8_t *data;
    size_t size;
    size_t cap;
} orc_buf;

int buf_reserve(orc_buf *b, size_t extra);
int buf_put(orc_buf *b, const void *p, size_t n);
int buf_put_u8(orc_buf *b, uint8_t v);
int buf_put_u16(orc_buf *b, uint16_t v); /* LE */
int buf_put_u32(orc_buf *b, uint32_t v); /* LE */
int buf_put_u64(orc_buf *b, uint64_t v); /* LE */
void buf_free(orc_buf *b);
int keys_push(orc_keys *k, uint64_t key);
/*
 * Room for one more element in a growable array of `count` elements of `size`
 * bytes with room for `*cap`: when it is full, the array whose address is
 * `items_at` (a `T **`) is reallocated to twice the room, or to `first`
 * elements when it has none, and `*cap` updated. ORC_ERR_NOMEM names `what`;
 * then the array and `*cap` are as they were.
 */
int array_reserve(void *items_at, size_t count, size_t *cap, size_t size, size_t first, const char *what);

/* Unaligned little- and big-endian loads and stores. */
static inline uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void st16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint16_t ld16be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t ld32be(const uint8_t *p) { return __builtin_bswap32(ld32(p)); }
static inline uint64_t ld64be(const uint8_t *p) { return __builtin_bswap64(ld64(p)); }
static inline void st16be(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void st32be(uint8_t *p, uint32_t v) { st32(p, __builtin_bswap32(v)); }
static inline void st64be(uint8_t *p, uint64_t v) { st64(p, __builtin_bswap64(v)); }

/*
 * LEB128 varints: seven bits a byte, the lowest first, the high bit set on every byte
 * but the last (a changeset's "v" fields, log.c and log_read.c; an index chunk's
 * distances, index.c). At most CS_VARINT_MAX (10) bytes.
 */
static inline size_t leb_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

/** Writes v at p (room for leb_size(v) bytes); returns the bytes written. */
static inline size_t leb_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/** Reads a varint at p[*pos] (p holds n bytes), advancing *pos; false when it is cut short or wider than 64 bits. */
static inline bool leb_get(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= n) return false;
        uint8_t b = p[(*pos)++];
        if (shift == 63 && b > 1) return false; /* more than 64 bits */
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

#endif /* ORCORE_BASE_H */
