/*
 * env.h — environments (env.c): the per-file core shared by every orc_env of one
 * file, the process-wide registry, map growth, the file's size, and what a snapshot
 * holds of the engine's state (its version and schema).
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
#ifndef ORCORE_ENV_H
#define ORCORE_ENV_H

#include "lmdb_page.h"
#include "schema.h"

#include <lmdb.h>
#include <pthread.h>
#include <sys/types.h>

/* The engine's own metadata names (FILE LAYOUT). */
#define META_VERSION "orc.version"
#define META_SCHEMA "orc.schema"
#define META_TABLES "orc.tables"

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
/** Records that `t` began (`add`) or ended a transaction on `core`, for env_thread_has_txn. */
void env_note_thread(orc_envcore *core, pthread_t t, bool add);
/**
 * Reads the version and the schema of the snapshot `t` (an LMDB transaction on
 * core->mdb); the schema is shared with the core's cache when it is the same
 * generation, else decoded and cached. *schema_out is retained for the caller.
 */
int env_read_state(orc_envcore *core, MDB_txn *t, uint64_t *version_out, orc_schema **schema_out);

#endif /* ORCORE_ENV_H */
