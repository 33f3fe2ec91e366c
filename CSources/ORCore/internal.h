/*
 * internal.h — what ORCore's files share with each other (never installed).
 *
 * LAYERS (each file uses only the ones above it)
 * ---------------------------------------------
 *   error.c      thread-local last error, orc_strerror
 *   buf.c        growable byte buffers, key arrays
 *   value.c      the value codec (tagged encoding), the order-preserving key
 *                encoding for indexes, orc_value_compare, decimal128 helpers
 *   env.c        environments: the process-wide registry, open, map growth
 *   txn.c        transactions, versions, metadata, named-database handles
 *   schema.c     the stored schema: encode, decode, cache, changes
 *   row.c        the row codec: one object's record
 *   object.c     objects: create, read, write, erase; primary keys; links
 *   index.c      secondary indexes and backlinks
 *   collection.c lists, sets, dictionaries: blob, cache, reads (collection_write.c:
 *                mutations; collection_impl.h joins them)
 *   query.c      predicate programs: compile, plan (query_eval.c: run, count,
 *                aggregate; query_sort.c: descriptors; query_impl.h joins them)
 *   text.c       case folding, diacritic removal, LIKE matching
 *   log.c        the changeset log: record, encode, compress, store, read, trim
 *                (log_read.c: the iterator and replay; log_format.h: the shared format)
 *   copy.c       compact copy
 *   check.c      orc_env_check
 *   verify.c     structural verification of LMDB pages on open
 *
 * FILE LAYOUT (named LMDB databases inside one MDB_NOSUBDIR environment)
 * ---------------------------------------------------------------------
 *   main      the named databases' records (LMDB's), and from format 2:
 *               "orc.version"  u64 LE           last committed version
 *               "orc.tables"   u32 n, then per table id 1..n:
 *                              u64 next_key, u64 count   (LE)
 *   "meta"    name (bytes)                      -> value
 *               "orc.format"   u32 LE           ORC_FORMAT_VERSION when created
 *               "orc.version", "orc.tables"     here in format 1 files
 *               "orc.schema"   schema blob      (schema.c)
 *               "orc.hold.<consumer>" u64 LE    log consumer positions
 *               anything not starting "orc."    user metadata (orc_meta_*)
 *   A file keeps the format it was created with: a build reads formats 1 to 3
 *   and writes each in its own layout; builds before format N refuse format N.
 *   "t<id>"   u64 BE object key                 -> row record (row.c)
 *             (one database per table, so keys ascend and inserts append)
 *   "p<id>"   encoded primary key (keyenc)      -> object key: u64 LE before format 3,
 *             from format 3 its fewest LE bytes (pk_value_put)
 *   "idx"     format 3: u32 BE table | u16 BE col | keyenc(value) | u64 BE first key
 *                       -> the chunk's other keys, as LEB128 distances (index.c, CHUNKS)
 *             before:   u32 BE table | u16 BE col | keyenc(value) | u64 BE key -> (empty)
 *             Equal values are never duplicates of one LMDB key: ORCore uses no
 *             MDB_DUPSORT database anywhere (LMDB 0.9.24 has cursor bugs there).
 *   "coll"    u32 BE table | u64 BE key | u16 BE col  -> collection blob (collection.c)
 *   "blink"   u32 BE target table | u64 BE target key | u32 BE origin table |
 *             u16 BE origin col | u64 BE origin key  -> u32 LE reference count
 *   "log"     u64 BE version                    -> u8 codec (0 raw, 1 zstd) | u32 LE raw size | bytes
 */
#ifndef ORCORE_INTERNAL_H
#define ORCORE_INTERNAL_H

#include "orcore.h"
#include "lmdb_page.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

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

/*
 * A primary-key entry's value, the object key: u64 LE in files before format 3; from
 * format 3 as few LE bytes as it needs (1 to 8, the last not zero unless it is the only one).
 */
static inline size_t pk_value_put(uint8_t out[8], uint64_t key, uint32_t format)
{
    st64(out, key);
    if (format < 3) return 8;
    size_t n = 8;
    while (n > 1 && out[n - 1] == 0) n--;
    return n;
}

/** Decodes a primary-key entry's value; false when it is not one the file's format writes. */
static inline bool pk_value_get(const uint8_t *p, size_t n, uint32_t format, uint64_t *key)
{
    if (format < 3 ? n != 8 : n < 1 || n > 8 || (n > 1 && p[n - 1] == 0)) return false;
    uint8_t b[8] = {0};
    memcpy(b, p, n);
    *key = ld64(b);
    return true;
}

/* ------------------------------------------------------------------------ */
/* value.c                                                                  */
/* ------------------------------------------------------------------------ */

/** Appends the tagged encoding of `v` (the `value` production of the query grammar). */
int val_encode(orc_buf *b, const orc_value *v);
/** Whether `v` has a tagged encoding: ORC_OK, or the error val_encode would report. */
int val_encodable(const orc_value *v);
/** Writes the encoding of a value val_encodable admits at `p` (val_encoded_size(v) bytes); returns its size. */
size_t val_write(uint8_t *p, const orc_value *v);
/**
 * Decodes a tagged value at data[*pos], bounds-checked against `size`;
 * advances *pos. Strings point into `data`. Returns ORC_OK or ORC_ERR_CORRUPT
 * (the caller decides whether that is a corrupt file or a bad query).
 */
int val_decode(const uint8_t *data, size_t size, size_t *pos, orc_value *out);
/** The size of v's tagged encoding; 0 for MIXED or an unknown type. */
size_t val_encoded_size(const orc_value *v);

/**
 * The longest key encoding in bytes, tag and terminator included; a string or
 * binary whose escaped bytes exceed KEYENC_MAX - 3 keeps the longest prefix
 * that fits and ends in 00 01 (`*exact_out` false).
 */
#define KEYENC_MAX 400
/**
 * Appends the order-preserving encoding of `v` to `b`: byte strings that sort
 * (memcmp) as orc_value_compare orders the values, for the types that can be
 * indexed or be primary keys. Strings are escaped (00 -> 00 FF) and end in
 * 00 00; truncated strings end in 00 01 instead. `exact_out` may be NULL.
 */
int keyenc(orc_buf *b, const orc_value *v, bool *exact_out);

/** True when `t` is numeric (int, float, double, decimal). */
static inline bool type_is_numeric(orc_type t)
{
    return t == ORC_TYPE_INT || t == ORC_TYPE_FLOAT || t == ORC_TYPE_DOUBLE || t == ORC_TYPE_DECIMAL;
}
/** Decimal128 helpers: compare, from double / int, to double, add, divide by an integer. */
int dec_compare(orc_decimal128 a, orc_decimal128 b);
orc_decimal128 dec_from_int(int64_t v);
orc_decimal128 dec_from_double(double v);
double dec_to_double(orc_decimal128 d);
bool dec_is_nan(orc_decimal128 d);
orc_decimal128 dec_add(orc_decimal128 a, orc_decimal128 b);
/** n = 0 gives ±infinity (0 / 0: NaN). */
orc_decimal128 dec_div_int(orc_decimal128 a, int64_t n);

/* ------------------------------------------------------------------------ */
/* schema.c                                                                 */
/* ------------------------------------------------------------------------ */

#define ORC_MAX_NAME 255
/** Named databases: 5 shared plus 2 per table. */
#define ORC_MAX_DBS 1024
#define ORC_MAX_TABLES ((ORC_MAX_DBS - 8) / 2)

typedef struct orc_prop {
    char *name;            /* NULL for a removed column */
    uint16_t col;
    orc_type type;
    orc_collection collection;
    uint32_t flags;
    uint32_t link_table;
} orc_prop;

typedef struct orc_class {
    char *name;            /* NULL for a removed class */
    uint32_t table;
    orc_class_kind kind;
    int32_t pk_col;
    uint16_t ncols;        /* column slots, removed ones included */
    orc_prop *props;       /* indexed by column id */
    uint32_t live_props;
    bool has_index;        /* some column is ORC_PROP_INDEXED */
    bool has_links;        /* some column holds links (link, mixed, or collections of them) */
    uint32_t *row_off;     /* row layout (row.c): [wide * (ncols + 1) + c] = offset of column c's field */
    int32_t *row_prev_var; /* [c] = the variable-size column before c, or -1 */
} orc_class;

typedef struct orc_schema {
    int refs;
    uint64_t gen;          /* changes with every schema change */
    uint32_t ntables;      /* table ids are 1 ... ntables; classes[0] unused */
    orc_class *classes;    /* indexed by table id */
} orc_schema;

/** Parses a schema blob. Returns ORC_OK, ORC_ERR_SCHEMA (unreadable), ORC_ERR_NOMEM. */
int schema_decode(const uint8_t *data, size_t size, orc_schema **out);
int schema_encode(const orc_schema *s, orc_buf *out);
orc_schema *schema_retain(orc_schema *s);
void schema_release(orc_schema *s);
/** A deep copy for a write transaction's copy-on-write. */
int schema_clone(const orc_schema *s, orc_schema **out);

/** The live class with table id `table`, or NULL (no error recorded). */
const orc_class *schema_class(const orc_txn *txn, uint32_t table);
/** Like schema_class but records ORC_ERR_NOT_FOUND; returns the code via *rc. */
const orc_class *schema_class_req(const orc_txn *txn, uint32_t table, int *rc);
/** The live property at `col`, or NULL. */
static inline const orc_prop *class_prop(const orc_class *c, uint16_t col)
{
    return (col < c->ncols && c->props[col].name) ? &c->props[col] : NULL;
}
/** Whether a property's values (or elements) are links (ORC_TYPE_LINK or ORC_TYPE_MIXED). */
static inline bool prop_may_link(const orc_prop *p) { return p->type == ORC_TYPE_LINK || p->type == ORC_TYPE_MIXED; }

/* ------------------------------------------------------------------------ */
/* env.c / txn.c                                                            */
/* ------------------------------------------------------------------------ */

/** Per-table state carried by a transaction (stored in "orc.tables"). */
typedef struct orc_table_state {
    uint64_t next_key;
    uint64_t count;
    /*
     * Not stored: primary keys of this transaction's creates that did not come after
     * every primary key of the table (object.c, create_row). While there are none,
     * a new primary key is first put with MDB_APPEND.
     */
    uint32_t pk_unordered;
} orc_table_state;

/** The shared, per-file environment. */
typedef struct orc_envcore {
    MDB_env *mdb;
    char *path;
    dev_t dev;
    ino_t ino;
    int refs;
    unsigned flags;
    MDB_dbi dbi_meta, dbi_idx, dbi_coll, dbi_blink, dbi_log;
    MDB_dbi dbi_state;     /* where "orc.version" and "orc.tables" live: main (format 2) or dbi_meta */
    uint32_t format;       /* the file's format ("orc.format"), set on open */
    MDB_dbi *table_dbi;    /* [table id] object database, 0 when not yet opened */
    MDB_dbi *pk_dbi;       /* [table id] primary key database, 0 when not yet opened */
    uint32_t table_dbi_cap;
    /* Every table database of every snapshot up to this LMDB transaction id has its
     * handle in table_dbi / pk_dbi (see txn.c, invariant 4). Under lock. */
    size_t handles_upto;
    pthread_mutex_t lock;  /* guards dbi opening, the schema cache, the registry fields */
    pthread_rwlock_t map_lock; /* held shared by every live transaction; exclusively to resize */
    orc_schema *schema;    /* the latest schema read or committed */
    pthread_mutex_t write_mutex; /* held by the thread with the write transaction, begin to end */
    pthread_t writer;      /* that thread, valid while has_writer */
    bool has_writer;
    size_t map_size;
    uint64_t file_size_seen; /* env_file_size: the largest size the file was seen to have (atomic) */
    /* Where LMDB mapped the file, for scan.c's page walk: found on first use (under
     * lock), forgotten whenever the map is set again (under map_lock exclusively). */
    const uint8_t *scan_map;
    size_t scan_map_len;
    pthread_t *txn_threads; /* the thread that began each live transaction (under lock) */
    size_t txn_thread_count, txn_thread_cap;
    struct orc_envcore *next;
} orc_envcore;

struct orc_env {
    orc_envcore *core;
    unsigned flags;
    char *path;
};

typedef struct orc_coll_cache orc_coll_cache;

struct orc_txn {
    orc_env *env;
    orc_envcore *core;
    MDB_txn *mdb;
    bool write;
    bool failed;           /* a write failed half-way: only abort is allowed */
    size_t lmdb_id;        /* mdb_txn_id of the LMDB transaction */
    uint64_t version;
    uint64_t generation;
    orc_schema *schema;
    bool schema_dirty;
    orc_table_state *tables; /* [table id], write transactions: dirty copy */
    uint32_t ntables_state;
    bool tables_dirty;
    orc_buf changeset;     /* instructions recorded by this write transaction (log.c) */
    uint32_t instr_count;
    orc_buf scratch;       /* reused buffers: rows (object.c) */
    orc_buf scratch2;      /* index keys (index.c) */
    orc_buf scratch3;      /* primary keys (object.c) */
    orc_buf idx_pending;   /* index entries not yet in "idx" (index.c: u16 size | key, ...) */
    size_t idx_pending_n;
    void **arena;          /* allocations freed at the end (decompressed log entries) */
    size_t arena_count, arena_cap;
    MDB_cursor *obj_cursor; /* reused cursor for object reads */
    /*
     * Write transactions: the cursors that put the rows and primary keys of the last
     * objects created in `table` with MDB_APPEND (object.c, create_row). LMDB appends
     * through a cursor already at the end of the tree by comparing with the last key,
     * without a search from the root, and it trusts that position: any other write to
     * those databases drops the cursors first (obj_append_forget), as does the end of
     * the LMDB transaction.
     */
    struct { uint32_t table; MDB_cursor *row, *pk; } append;
    /*
     * The last row obj_row returned in a read transaction: reading several properties
     * of one object descends the table's B-tree once. A read snapshot's pages never
     * move; renew changes `generation`. (Write transactions move pages as they write,
     * so they do not use it.)
     */
    struct {
        uint64_t generation, key;
        uint32_t table;
        const uint8_t *data;
        size_t size;
        const orc_class *cls; /* the table's class when known (NULL: look it up) */
    } last_row;
    uint32_t obj_cursor_table;
    /* Read transactions: the row readers (scan.c), allocated on first use, and what
     * their walks share for one generation of the snapshot. */
    struct row_reader *readers;
    unsigned reader_next;
    struct { uint64_t generation; const uint8_t *map; size_t psize; uint64_t last_pg; } walkenv;
    orc_coll_cache *coll_cache;
    bool replaying;        /* log_replay is redoing the transaction after map growth */
    struct { uint32_t table; bool pk; MDB_dbi dbi; } *new_dbis; /* created here, published at commit */
    size_t new_dbi_count;
    bool holds_map_lock;
    orc_buf meta_redo;     /* metadata writes (not in the changeset), redone after map growth */
    int op_depth;          /* nesting of ORC_WRITE_OP: only the outermost grows and retries */
    uint32_t last_dbi_table[2]; /* the last table whose object [0] / primary key [1] dbi was asked for */
    MDB_dbi last_dbi[2];
    pthread_t begun_on;    /* the thread that began the LMDB transaction */   /* ... and that dbi: most calls skip core->lock (0 table: none) */
};

/**
 * Map growth. A public write function runs its body through ORC_WRITE_OP: if
 * the body fails with ORC_ERR_MAP_FULL, the instructions it recorded are cut
 * from the changeset, txn_grow() aborts the LMDB transaction, grows the map,
 * begins a new one and replays the changeset recorded so far, and the body
 * runs again; nested public calls leave that to the outermost. (LMDB can only resize with no transaction open in the process,
 * and its write transaction dies on MDB_MAP_FULL, so the changeset doubles as
 * the transaction's redo log.)
 */
int txn_grow(orc_txn *txn, size_t changeset_mark);
#define ORC_WRITE_OP(txn, call)                                                             \
    ({                                                                                      \
        orc_txn *wo_txn_ = (txn);                                                           \
        int wo_rc_;                                                                         \
        if (!wo_txn_ || wo_txn_->op_depth || wo_txn_->replaying) {                          \
            if (wo_txn_) wo_txn_->op_depth++;                                               \
            wo_rc_ = (call);                                                                \
            if (wo_txn_) wo_txn_->op_depth--;                                               \
        } else {                                                                            \
            size_t wo_mark_ = wo_txn_->changeset.size;                                      \
            for (;;) {                                                                      \
                wo_txn_->op_depth = 1;                                                      \
                wo_rc_ = (call);                                                            \
                wo_txn_->op_depth = 0;                                                      \
                if (wo_rc_ != ORC_ERR_MAP_FULL || txn_grow(wo_txn_, wo_mark_)) break;          \
            }                                                                               \
        }                                                                                   \
        wo_rc_;                                                                             \
    })

/** Fails with ORC_ERR_READ_ONLY / ORC_ERR_BAD_TXN unless `txn` is a usable write transaction. */
int txn_require_write(orc_txn *txn);
/** Marks a write transaction failed after a half-done change (only abort remains). Returns rc. */
int txn_poison(orc_txn *txn, int rc);
/** The name of a table's object ("t<table>") or primary-key ("p<table>") database. */
void table_db_format(char name[16], uint32_t table, bool pk);
/** The object / primary-key database of a table, opening (or, in a write txn, creating) it. */
int txn_table_dbi(orc_txn *txn, uint32_t table, MDB_dbi *out);
int txn_pk_dbi(orc_txn *txn, uint32_t table, MDB_dbi *out);
/* Closes a cursor the transaction keeps, if open, and forgets it. */
static inline void cursor_drop(MDB_cursor **cur)
{
    if (*cur) mdb_cursor_close(*cur);
    *cur = NULL;
}
/* Closes the append cursors of create_row (before any other write to a table's or a
 * primary-key database, and before the LMDB transaction ends). Cannot fail. */
void obj_append_forget(orc_txn *txn);
/** The table's state (next key, count); write transactions get a mutable copy. */
orc_table_state *txn_table_state(orc_txn *txn, uint32_t table);
/** Keeps `p` (malloc'ed) until the transaction ends. */
int txn_keep(orc_txn *txn, void *p);
/** Called after every write: invalidates read pointers and caches. */
void txn_touched(orc_txn *txn);

/** Grows the map (env.c); the caller holds no transaction. */
int env_grow_map(orc_envcore *core, size_t min_size);
/**
 * The file's size when it is at least `want` bytes, as far as this process knows,
 * without asking the kernel; else from fstat of LMDB's descriptor (ORC_OK, or an
 * errno with a message). See env.c, THE FILE'S SIZE.
 */
int env_file_size(orc_envcore *core, uint64_t want, uint64_t *size);
/** Records that the file now has at least `size` bytes (the caller extended it). */
void env_file_size_grew(orc_envcore *core, uint64_t size);
/** Whether the calling thread began a transaction on `core` that is still live. */
bool env_thread_has_txn(orc_envcore *core);
/** Adopts a map size another process set (after MDB_MAP_RESIZED). */
int env_adopt_map(orc_envcore *core);
/** Metadata writes without the "orc." reservation check, for the engine's own names. */
int meta_put(orc_txn *txn, const char *name, const void *data, size_t size);
int meta_del(orc_txn *txn, const char *name);

/**
 * Checks the LMDB file's structure before mdb_env_open (deep = ORC_ENV_VERIFY).
 * When `fd` is writable and only one meta page is damaged, rewrites it from
 * the intact one (see verify.c). Returns ORC_OK, ORC_ERR_CORRUPT,
 * ORC_ERR_NOT_A_REALM, ORC_ERR_NOMEM or an errno value.
 */
int verify_pages(const char *path, int fd, bool deep);

/* ------------------------------------------------------------------------ */
/* row.c — the row record
 * ------------------------------------------------------------------------ *
 *   offset  size        field
 *   0       2           u16 k: the columns this row holds (later ones read as default)
 *   2       2           u16 flags: bit 0 = wide (variable ends are u32, else u16)
 *   4       ceil(k/8)   null bitmap, bit c set = column c is null
 *   F       fixed(k)    one field per column, F = 4 + ceil(k/8), at row_off[c]:
 *                       BOOL 1 | INT, DOUBLE, LINK (target key) 8 | FLOAT 4 |
 *                       TIMESTAMP 12 (i64 s, i32 ns) | DECIMAL 16 | OBJECT_ID 12 |
 *                       UUID 16 | STRING, BINARY, MIXED: the end of its bytes in
 *                       the variable area (u16, or u32 when wide) | collections 0
 *   F + fixed(k)        the variable area: variable columns' bytes in column
 *                       order, each from the previous one's end (MIXED: tagged value)
 *   Widths come from column types, removed columns included, so the layout of
 *   the first k columns is the same for every row of the class.
 */
/* ------------------------------------------------------------------------ */
/*
 *   offset  size        field
 *   0       2           u16 ncols: column slots present (later columns read as default)
 *   2       2           u16 reserved (0)
 *   4       ceil(n/8)   null bitmap, bit c set = column c is null
 *   S       8 * ncols   slots, S = 4 + ceil(n/8) rounded up to 8
 *   ...                 variable area
 *
 *   slot by type:  BOOL u64 0/1 | INT i64 | FLOAT f32 in the low 4 bytes |
 *                  DOUBLE f64 | LINK u64 target key |
 *                  STRING, BINARY, TIMESTAMP (i64 s, i32 ns), DECIMAL (16),
 *                  OBJECT_ID (12), UUID (16), MIXED (tagged value):
 *                      u32 offset from the row start | u32 length, bytes in the variable area
 *                  collections: unused (their elements live in "coll")
 */

/** Computes a class's row layout (row_off, row_prev_var) from its column types. ORC_OK or ORC_ERR_NOMEM. */
int row_layout(orc_class *c);
/** Reads column `col` of a row into `out`. Strings point into `row`. Returns ORC_OK or ORC_ERR_CORRUPT. */
int row_get(const orc_class *c, const uint8_t *row, size_t size, uint16_t col, orc_value *out);
/** Builds a row: `vals` has c->ncols entries (NULL entries and collections read as null/default). */
int row_build(const orc_class *c, const orc_value *vals, orc_buf *out);
/** Rewrites `row` with the given columns replaced. */
int row_update(const orc_class *c, const uint8_t *row, size_t size, const uint16_t *cols,
               const orc_value *vals, size_t n, orc_buf *out);
/** The default value of a property for rows that predate it. */
void prop_default(const orc_prop *p, orc_value *out);

/* ------------------------------------------------------------------------ */
/* object.c                                                                 */
/* ------------------------------------------------------------------------ */

/** The row record of an object. Returns ORC_OK or ORC_ERR_NOT_FOUND. The pointer follows LIFETIMES. */
int obj_row(orc_txn *txn, uint32_t table, uint64_t key, const uint8_t **row, size_t *size);

/*
 * A sequential scan over a table's rows, in key order (scan.c). In a read
 * transaction it walks the table's leaf pages in the map itself; in a write
 * transaction, and for small tables, it steps an LMDB cursor.
 */
/* A leaf's node count and the bytes its nodes fill (scan.c, ASKING FOR A LEAF BEFORE SEARCHING IT). */
typedef struct leaf_shape {
    unsigned n, used;
} leaf_shape;
typedef struct tscan {
    MDB_cursor *cur;          /* the cursor path */
    const uint8_t *row;       /* the current row: its bytes, size and object key */
    size_t size;
    uint64_t key;
    uint32_t table;
    bool started;             /* the cursor path: MDB_FIRST was done */
    /* the page walk (scan.c, "WALKING THE LEAVES") */
    const uint8_t *leaf;      /* the current leaf page */
    unsigned li, ln;          /* its next node and its node count (0 when not walking) */
    unsigned upper;           /* where its node area starts */
    bool walk;
    const uint8_t *map;
    size_t psize;
    uint64_t last_pg;         /* the last page number the walk may read */
    uint64_t left;            /* rows the table's database record still promises */
    uint64_t root;            /* the tree's root page */
    unsigned depth, top;      /* the tree's depth; branch pages on the stack */
    leaf_shape shape;         /* the last leaf a seek searched */
    struct tscan_level { const uint8_t *page; unsigned i, n, upper; } up[MAX_DEPTH]; /* last */
} tscan;
/* How many rows ahead the walk asks the cache for a row it will read (the offset is in the page). */
#define TSCAN_AHEAD 4
int tscan_open(orc_txn *txn, uint32_t table, tscan *s);
/** The page walk's step to the next leaf, and the cursor path. */
int tscan_next_slow(tscan *s);
/** Reads the current leaf's node s->li (scan.c checks each field against the page). */
int tscan_node(tscan *s);
/** Asks the cache for the row TSCAN_AHEAD nodes on in the current leaf (a hint: nothing is checked). */
static inline void tscan_prefetch(const tscan *s)
{
    if (s->li + TSCAN_AHEAD < s->ln) __builtin_prefetch(s->leaf + ld16(s->leaf + PAGEHDRSZ + 2u * (s->li + TSCAN_AHEAD)));
}
/** Advances to the first (first call) or next row. Returns ORC_OK or ORC_ERR_NOT_FOUND at the end. */
static inline int tscan_next(tscan *s)
{
    if (s->li < s->ln && s->left) {
        /* the common step: a plain row on the current leaf */
        const uint8_t *pg = s->leaf;
        unsigned off = ld16(pg + PAGEHDRSZ + 2u * s->li);
        tscan_prefetch(s);
        if (off >= s->upper && off <= s->psize - NODESIZE - 8u) {
            const uint8_t *n = pg + off;
            size_t dsize = (size_t)ld16(n) | (size_t)ld16(n + 2) << 16;
            if (ld16(n + 4) == 0 && ld16(n + 6) == 8 && dsize <= s->psize - off - NODESIZE - 8u) {
                s->li++;
                s->left--;
                s->key = ld64be(n + NODESIZE);
                s->row = n + NODESIZE + 8u;
                s->size = dsize;
                return ORC_OK;
            }
        }
        return tscan_node(s); /* an overflow row, or damage */
    }
    return tscan_next_slow(s);
}
void tscan_close(tscan *s);

/*
 * A read transaction's reader of one table's rows by key (scan.c, "READING ROWS BY
 * KEY"): a walk kept standing after the last row it returned.
 */
typedef struct row_reader {
    uint32_t table;        /* 0: a free slot */
    uint64_t generation;   /* the transaction generation it belongs to */
    bool usable;           /* the walk reads this table (else the cursor does) */
    bool positioned;       /* w.li is the first node past every key <= at */
    uint64_t at;
    bool pk_known;         /* pk_walk, pk_root and pk_depth are set for this generation */
    bool pk_walk;          /* pk_get descends the primary-key index (else mdb_get does) */
    unsigned pk_depth;
    uint64_t pk_root;
    leaf_shape pk_shape;   /* the primary-key index's last leaf searched */
    tscan w;
} row_reader;
#define ROW_READERS 8
/* rows_get / rows_next: this table is read through the LMDB cursor instead. */
#define ROWS_BY_CURSOR 1
/**
 * The row of `key` (read transactions). ORC_OK, ORC_ERR_NOT_FOUND (no such row;
 * nothing reported), ROWS_BY_CURSOR, or a reported error (ORC_ERR_CORRUPT).
 */
int rows_get(orc_txn *txn, uint32_t table, uint64_t key, MDB_val *row);
/** The first row with a key above `after`; statuses as rows_get (NOT_FOUND: none). */
int rows_next(orc_txn *txn, uint32_t table, uint64_t after, uint64_t *key, MDB_val *row);
/**
 * The object key stored in `table`'s primary-key index under the key bytes t
 * (keyenc) — read transactions; statuses as rows_get (ROWS_BY_CURSOR: use mdb_get).
 */
int pk_get(orc_txn *txn, uint32_t table, const uint8_t *t, size_t tn, uint64_t *key);

/** Erases every object of a table as derived erasures; `log_clear` also records CLEAR_TABLE. */
int table_clear_internal(orc_txn *txn, uint32_t table, bool log_clear);
/** Creates an object with a given key (0: the next key). Used by orc_obj_create and replay. */
int obj_create_internal(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols,
                        const orc_value *values, size_t n, uint64_t *key_out);
/** The primary key value of an object (type NULL result and *has_pk false for classes without one). */
int obj_pk(orc_txn *txn, const orc_class *c, uint64_t key, orc_value *pk, bool *has_pk);
/** Erases an object; `derived` marks erasures caused by another instruction. */
int obj_erase_internal(orc_txn *txn, uint32_t table, uint64_t key, bool derived);

/* ------------------------------------------------------------------------ */
/* index.c                                                                  */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* collection.c — the collection blob                                       */
/* ------------------------------------------------------------------------ */
/*
 *   offset  size       field
 *   0       4          u32 LE count
 *   4       4*count    u32 LE offsets of each element from the blob start
 *   ...                elements: list/set: tagged value; dict: tagged string key then tagged value
 *   Elements are stored back to back in index order: element i spans
 *   [off[i], off[i+1]), the last up to the blob's end; off[0] = 4 + 4 * count.
 *   An empty collection has no record.
 *   Sets keep elements in orc_value_compare order, dictionaries in key byte order.
 */

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

/* ------------------------------------------------------------------------ */
/* text.c                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * String predicates with ORC_CMP_* flags: equality, begins / ends / contains,
 * LIKE with * and ?, and ordering (for case-insensitive < >). UTF-8 in, no
 * allocation for inputs up to a few KB.
 */
bool text_equal(const char *a, size_t an, const char *b, size_t bn, unsigned flags);
bool text_begins(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_ends(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_contains(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_like(const char *s, size_t sn, const char *pattern, size_t pn, unsigned flags);
int text_compare(const char *a, size_t an, const char *b, size_t bn, unsigned flags);

/* ------------------------------------------------------------------------ */
/* log.c — recording                                                        */
/* ------------------------------------------------------------------------ */
/*
 * Each mutating function in object.c / collection.c / schema.c records one
 * instruction in txn->changeset by calling these. log_commit() stores the
 * changeset under the new version when the transaction commits.
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
/** A changeset's log entry in the making: its header, and its compressed form (log.c). */
#define LOG_PACK_HEADER 21 /* CS_HEADER_SIZE of log_format.h */
typedef struct log_pack {
    uint64_t version;
    uint32_t count;
    const uint8_t *instr;
    size_t n;
    int workers;
    pthread_t thread;
    bool started, done;
    int rc;
    const char *zerr;
    uint8_t header[LOG_PACK_HEADER];
    uint8_t *packed;
    size_t packed_size;
} log_pack;
/** Starts packing a large changeset on a thread of its own, while the commit goes on
 *  (log.c, "PACKING BESIDE THE REST OF THE COMMIT"); small ones wait for log_commit. */
void log_pack_start(orc_txn *txn, uint64_t version, log_pack *pk);
/** Stores the changeset under `version` (compressing above a threshold), with what
 *  log_pack_start packed when it is this changeset. */
int log_commit(orc_txn *txn, uint64_t version, log_pack *pk);
/** Waits for the packing thread if it still runs, and frees the pack. */
void log_pack_end(log_pack *pk);
/** Whether this commit stores its changeset (log.c, "KEEPING LESS"). */
int log_keeps(orc_txn *txn, bool *keep);
/** Empties the log, for a commit that stores no changeset. */
int log_empty(orc_txn *txn);
/** Re-executes the non-derived instructions of a changeset (map growth replays the transaction). */
int log_replay(orc_txn *txn, const uint8_t *data, size_t size);

#endif /* ORCORE_INTERNAL_H */
