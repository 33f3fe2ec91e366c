/*
 * txn.h — transactions (txn.c): begin, commit, abort, renew; versions, metadata,
 * named-database handles, table states, map growth, and the hooks through which the
 * layers above do their end-of-transaction work. Invariants at the top of txn.c.
 */
#ifndef ORCORE_TXN_H
#define ORCORE_TXN_H

#include "env.h"
#include "schema.h"

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

typedef struct orc_coll_cache orc_coll_cache;

struct orc_txn {
    /* ---- the transaction layer's own state (txn.c) ---- */
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
    /*
     * The instructions this write transaction recorded: log.c appends them and stores
     * them at commit; txn.c keeps them as the transaction's redo log for map growth.
     */
    orc_buf changeset;
    uint32_t instr_count;
    orc_buf scratch;       /* reused buffers: rows (object.c), table states at commit */
    orc_buf scratch3;      /* primary keys (object.c), the schema blob at commit */
    void **arena;          /* allocations freed at the end (decompressed log entries) */
    size_t arena_count, arena_cap;
    bool replaying;        /* the replay hook is redoing the transaction after map growth */
    struct { uint32_t table; bool pk; MDB_dbi dbi; } *new_dbis; /* created here, published at commit */
    size_t new_dbi_count;
    bool holds_map_lock;
    orc_buf meta_redo;     /* metadata writes (not in the changeset), redone after map growth */
    int op_depth;          /* nesting of ORC_WRITE_OP: only the outermost grows and retries */
    uint32_t last_dbi_table[2]; /* the last table whose object [0] / primary key [1] dbi was asked for */
    MDB_dbi last_dbi[2];   /* ... and that dbi: most calls skip core->lock (0 table: none) */
    pthread_t begun_on;    /* the thread that began the LMDB transaction */

    /*
     * ---- state of the layers above, one group each ----
     * txn.c does not read these: the owning layer's hooks (HOOKS below) close and
     * reset them when the LMDB transaction ends; txn.c frees their memory last.
     */
    /* scan.c: the row readers of read transactions, allocated on first use, and
     * what their walks share for one generation of the snapshot. */
    struct row_reader *readers;
    unsigned reader_next;
    struct { uint64_t generation; const uint8_t *map; size_t psize; uint64_t last_pg; } walkenv;
    /* index.c */
    orc_buf scratch2;      /* index keys */
    orc_buf idx_pending;   /* index entries not yet in "idx" (u16 size | key, ...) */
    size_t idx_pending_n;
    /* object_read.c */
    MDB_cursor *obj_cursor; /* reused cursor for object reads */
    uint32_t obj_cursor_table;
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
    /*
     * object.c. Write transactions: the cursors that put the rows and primary keys of the last
     * objects created in `table` with MDB_APPEND (object.c, create_row). LMDB appends
     * through a cursor already at the end of the tree by comparing with the last key,
     * without a search from the root, and it trusts that position: any other write to
     * those databases drops the cursors first (obj_append_forget), as does the end of
     * the LMDB transaction.
     */
    struct { uint32_t table; MDB_cursor *row, *pk; } append;
    /* collection.c */
    orc_coll_cache *coll_cache;
};

/**
 * Map growth. A public write function runs its body through ORC_WRITE_OP: if
 * the body fails with ORC_ERR_MAP_FULL, the instructions it recorded are cut
 * from the changeset, txn_grow() aborts the LMDB transaction, grows the map,
 * begins a new one and replays the changeset recorded so far, and the body
 * runs again; nested public calls leave that to the outermost. (LMDB can only
 * resize with no transaction open in the process, and its write transaction dies on MDB_MAP_FULL, so the changeset doubles as
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
/** The table's state (next key, count); write transactions get a mutable copy. */
orc_table_state *txn_table_state(orc_txn *txn, uint32_t table);
/** Keeps `p` (malloc'ed) until the transaction ends. */
int txn_keep(orc_txn *txn, void *p);
/** Called after every write: invalidates read pointers and caches. */
void txn_touched(orc_txn *txn);
/** Metadata writes without the "orc." reservation check, for the engine's own names. */
int meta_put(orc_txn *txn, const char *name, const void *data, size_t size);
int meta_del(orc_txn *txn, const char *name);

/** The live class with table id `table` in the transaction's schema, or NULL (no error recorded). */
static inline const orc_class *schema_class(const orc_txn *txn, uint32_t table)
{
    const orc_schema *s = txn ? txn->schema : NULL;
    if (!s || table == 0 || table > s->ntables || !s->classes[table].name) return NULL;
    return &s->classes[table];
}
/** Like schema_class but records ORC_ERR_NOT_FOUND; returns the code via *rc. */
const orc_class *schema_class_req(const orc_txn *txn, uint32_t table, int *rc);

/*
 * HOOKS. The layers above keep per-transaction state in struct orc_txn and have
 * work to do when a transaction commits or its LMDB transaction ends. txn.c names
 * none of them: it runs the table orc_txn_hooks, which layers.c (the top layer)
 * fills. A const table, so a commit costs a few indirect calls and no allocation.
 */
typedef struct txn_layer_hooks {
    const char *layer;
    /** Before the LMDB transaction ends (commit, abort, renew, map growth): closes the
     *  cursors the layer keeps on it. Cannot fail. NULL: nothing to do. */
    void (*close)(orc_txn *txn);
    /** After the LMDB transaction ended or on renew: forgets what belonged to it
     *  (caches, deferred writes). Cannot fail. NULL: nothing to do. */
    void (*reset)(orc_txn *txn);
    /** At commit, before txn.c writes the schema, table states and version: puts the
     *  layer's deferred writes. ORC_OK, ORC_ERR_MAP_FULL (the commit grows the map and
     *  replays), or another status after txn_poison. NULL: nothing to do. */
    int (*flush)(orc_txn *txn);
} txn_layer_hooks;

/** What a commit writes besides the changeset: the layers' flushes, the schema, the
 *  table states and the version (txn.c). */
typedef int (*txn_commit_body)(orc_txn *txn, uint64_t version);

typedef struct txn_hooks {
    const txn_layer_hooks *layers; /* run in this order */
    size_t nlayers;
    /** Runs `body` and stores the changeset as version `version` (log.c: it may start
     *  compressing before `body` and finish after). Returns body's status or its own. */
    int (*store_changeset)(orc_txn *txn, uint64_t version, txn_commit_body body);
    /** Re-executes the first `size` bytes of the transaction's changeset after map
     *  growth began a new LMDB transaction (replay.c). */
    int (*replay)(orc_txn *txn, const uint8_t *data, size_t size);
} txn_hooks;

/** The table txn.c runs (layers.c). */
extern const txn_hooks orc_txn_hooks;

#endif /* ORCORE_TXN_H */
