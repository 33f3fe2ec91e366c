/*
 * txn.c — transactions, versions, metadata and named-database handles.
 *
 * INVARIANTS
 *  1. Every live orc_txn holds core->map_lock shared (see env.c, 4).
 *  2. A write transaction holds core->write_mutex from begin to end, on one
 *     thread; a second write on that thread is ORC_ERR_BUSY, not a deadlock.
 *  3. A commit writes, in one LMDB transaction: the schema (if changed), the
 *     table states (if changed), "orc.version" = version + 1, and the
 *     changeset of that version. So a version exists iff its changeset does,
 *     unless the environment keeps less (log.c, "KEEPING LESS"): then the
 *     commit empties the log instead, and every version reads as trimmed.
 *  4. Database handles. LMDB keeps a handle opened inside a transaction only if
 *     that transaction commits, lets other transactions use it only if they
 *     begin after that commit, and shares the handle table between all
 *     transactions of the process: a handle opened in a transaction that is
 *     still running can be taken by another opener, and closed under it if the
 *     first one aborts. So handles of existing databases are opened only by
 *     open_handles(), in a short read transaction of its own that commits at
 *     once, under core->lock, before the transaction that needs them begins:
 *     mdb_begin() makes sure every table database of the new snapshot has its
 *     handle (core->handles_upto), so a reader never opens one and a miss means
 *     the database does not exist in its snapshot. The only handles opened inside
 *     a running transaction are the databases a write transaction creates; nobody
 *     else can know their names before it commits, and it publishes them to the
 *     core only after its commit succeeds.
 *  5. mdb_dbi_open is never called concurrently (core->lock serialises it).
 *  6. txn.c calls no layer above it. What those layers do when a transaction
 *     ends or commits (closing their cursors, forgetting their caches, flushing
 *     deferred index entries, storing the changeset, replaying the transaction
 *     after map growth) runs through the table orc_txn_hooks (txn.h, HOOKS).
 *
 * TABLE STATES ("orc.tables": in the main database from format 2, in "meta" before)
 *   u32 LE n | n × (u64 LE next_key, u64 LE count)   for table ids 1 ... n
 */
#include "txn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int meta_redo_apply(orc_txn *txn, const uint8_t *p, size_t n);

static int meta_read(MDB_txn *t, MDB_dbi dbi, const char *name, MDB_val *v)
{
    MDB_val k = {strlen(name), (void *)name};
    return mdb_get(t, dbi, &k, v);
}

/* Loads the version and the schema (shared with the core's cache when unchanged). */
static int txn_load(orc_txn *txn) { return env_read_state(txn->core, txn->mdb, &txn->version, &txn->schema); }

void table_db_format(char name[16], uint32_t table, bool pk) { snprintf(name, 16, "%c%u", pk ? 'p' : 't', table); }

/* Parses an ORCore table database name ("t12", "p12", as table_db_format writes them); 0 when it is not one. */
static uint32_t table_db_name(const MDB_val *k, bool *pk)
{
    const char *p = k->mv_data;
    if (k->mv_size < 2 || k->mv_size > 11 || (p[0] != 't' && p[0] != 'p')) return 0;
    uint64_t n = 0;
    for (size_t i = 1; i < k->mv_size; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        n = n * 10 + (uint64_t)(p[i] - '0');
    }
    *pk = p[0] == 'p';
    return n > 0 && n <= ORC_MAX_TABLES ? (uint32_t)n : 0;
}

static int ensure_dbi_cap(orc_envcore *core, uint32_t table);

/*
 * Opens a handle for every table database of the latest snapshot that has none,
 * in a read transaction that commits at once, and publishes them (invariant 4).
 * Needs core->lock; no transaction of this process may have an LMDB transaction
 * with databases opened but not yet committed, other than a writer's creations.
 */
static int open_handles(orc_envcore *core)
{
    MDB_txn *t;
    MDB_cursor *c;
    int mrc = mdb_txn_begin(core->mdb, NULL, MDB_RDONLY, &t);
    if (mrc) return orc_fail_mdb(mrc, "beginning to open database handles");
    size_t id = mdb_txn_id(t);
    struct { uint32_t table; bool pk; MDB_dbi dbi; } opened[64];
    size_t n = 0;
    int rc = ORC_OK;
    bool more = true;
    while (more && !rc) {
        more = false;
        n = 0;
        MDB_dbi main_dbi;
        if ((mrc = mdb_dbi_open(t, NULL, 0, &main_dbi)) || (mrc = mdb_cursor_open(t, main_dbi, &c))) break;
        MDB_val k, d;
        for (mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !mrc; mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
            bool pk = false;
            uint32_t table = table_db_name(&k, &pk);
            if (!table) continue;
            if ((rc = ensure_dbi_cap(core, table))) break;
            if ((pk ? core->pk_dbi : core->table_dbi)[table]) continue;
            if (n == sizeof opened / sizeof opened[0]) {
                more = true; /* publish this batch, then scan again */
                break;
            }
            char name[16];
            memcpy(name, k.mv_data, k.mv_size);
            name[k.mv_size] = 0;
            MDB_dbi dbi;
            int orc = mdb_dbi_open(t, name, 0, &dbi);
            if (orc) {
                rc = orc_fail_mdb(orc, "opening a table's database");
                break;
            }
            opened[n].table = table;
            opened[n].pk = pk;
            opened[n].dbi = dbi;
            n++;
        }
        mdb_cursor_close(c);
        if (mrc == MDB_NOTFOUND) mrc = 0;
        if (rc || mrc) break;
        /* Published only once committed: before that, no other transaction may use them. */
        if ((mrc = mdb_txn_commit(t))) {
            t = NULL;
            break;
        }
        t = NULL;
        for (size_t i = 0; i < n; i++) (opened[i].pk ? core->pk_dbi : core->table_dbi)[opened[i].table] = opened[i].dbi;
        if (more && (mrc = mdb_txn_begin(core->mdb, NULL, MDB_RDONLY, &t))) break;
        if (more) id = mdb_txn_id(t);
    }
    if (t) mdb_txn_abort(t);
    if (rc) return rc;
    if (mrc) return orc_fail_mdb(mrc, "opening database handles");
    if (id > core->handles_upto) core->handles_upto = id;
    return ORC_OK;
}

/* Whether every table database of `txn`'s snapshot has a handle; if not, ends the
 * LMDB transaction (which has opened nothing), opens them and returns false. */
static int handles_ready(orc_txn *txn, bool *ready)
{
    orc_envcore *core = txn->core;
    size_t id = mdb_txn_id(txn->mdb);
    size_t snapshot = txn->write ? id - 1 : id;
    pthread_mutex_lock(&core->lock);
    *ready = snapshot <= core->handles_upto;
    int rc = ORC_OK;
    if (!*ready) {
        mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
        rc = open_handles(core);
    }
    pthread_mutex_unlock(&core->lock);
    return rc;
}

static int mdb_begin(orc_txn *txn)
{
    orc_envcore *core = txn->core;
    for (int attempt = 0;; attempt++) {
        pthread_rwlock_rdlock(&core->map_lock);
        int rc = mdb_txn_begin(core->mdb, NULL, txn->write ? 0 : MDB_RDONLY, &txn->mdb);
        if (rc == MDB_MAP_RESIZED && attempt < 3) {
            pthread_rwlock_unlock(&core->map_lock);
            if ((rc = env_adopt_map(core))) return rc;
            continue;
        }
        if (rc) {
            pthread_rwlock_unlock(&core->map_lock);
            txn->mdb = NULL;
            return orc_fail_mdb(rc, txn->write ? "beginning a write transaction" : "beginning a read transaction");
        }
        /* Another process may commit new tables between the scan and the new
         * begin: scan again (a few times; each scan makes progress). */
        bool ready = true;
        if (attempt < 8 && (rc = handles_ready(txn, &ready))) {
            if (txn->mdb) mdb_txn_abort(txn->mdb);
            txn->mdb = NULL;
            pthread_rwlock_unlock(&core->map_lock);
            return rc;
        }
        if (!ready) {
            pthread_rwlock_unlock(&core->map_lock);
            continue;
        }
        txn->lmdb_id = mdb_txn_id(txn->mdb);
        txn->holds_map_lock = true;
        txn->begun_on = pthread_self();
        env_note_thread(core, txn->begun_on, true);
        return ORC_OK;
    }
}

/* Has the layers above close the cursors they keep open (before the LMDB transaction ends). */
static void close_cursors(orc_txn *txn)
{
    const txn_hooks *h = &orc_txn_hooks;
    for (size_t i = 0; i < h->nlayers; i++)
        if (h->layers[i].close) h->layers[i].close(txn);
}

/* Ends the LMDB transaction (commit for readers, see invariant 4) and releases the map lock. */
static void mdb_end(orc_txn *txn, bool commit_reader)
{
    close_cursors(txn);
    if (txn->mdb) {
        if (!txn->write && commit_reader) mdb_txn_commit(txn->mdb);
        else mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
    }
    if (txn->holds_map_lock) {
        env_note_thread(txn->core, txn->begun_on, false);
        pthread_rwlock_unlock(&txn->core->map_lock);
        txn->holds_map_lock = false;
    }
}

static void txn_reset_state(orc_txn *txn)
{
    if (txn->schema) schema_release(txn->schema);
    txn->schema = NULL;
    txn->schema_dirty = false;
    free(txn->tables);
    txn->tables = NULL;
    txn->ntables_state = 0;
    txn->tables_dirty = false;
    free(txn->new_dbis);
    txn->new_dbis = NULL;
    txn->new_dbi_count = 0;
    txn->last_dbi_table[0] = txn->last_dbi_table[1] = 0;
    const txn_hooks *h = &orc_txn_hooks;
    for (size_t i = 0; i < h->nlayers; i++)
        if (h->layers[i].reset) h->layers[i].reset(txn);
    txn->generation++;
}

static void txn_free(orc_txn *txn)
{
    txn_reset_state(txn);
    for (size_t i = 0; i < txn->arena_count; i++) free(txn->arena[i]);
    free(txn->arena);
    buf_free(&txn->changeset);
    buf_free(&txn->scratch);
    buf_free(&txn->scratch2);
    buf_free(&txn->scratch3);
    buf_free(&txn->idx_pending);
    buf_free(&txn->meta_redo);
    free(txn->readers);
    if (txn->write) {
        orc_envcore *core = txn->core;
        core->has_writer = false;
        pthread_mutex_unlock(&core->write_mutex);
    }
    free(txn);
}

int orc_txn_begin(orc_env *env, int kind, orc_txn **out)
{
    if (!env || !out || (kind != ORC_TXN_READ && kind != ORC_TXN_WRITE))
        return orc_fail(ORC_ERR_INVALID_ARG, "orc_txn_begin needs an environment, a kind and an out pointer");
    *out = NULL;
    orc_envcore *core = env->core;
    bool write = kind == ORC_TXN_WRITE;
    if (write && (env->flags & ORC_ENV_READ_ONLY))
        return orc_fail(ORC_ERR_READ_ONLY, "'%s' is open read-only", env->path);
    if (write) {
        /* Reading has_writer without the mutex is safe: only this thread can have set it to itself. */
        if (core->has_writer && pthread_equal(core->writer, pthread_self()))
            return orc_fail(ORC_ERR_BUSY, "this thread already has a write transaction on '%s'", env->path);
    }
    orc_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return orc_fail(ORC_ERR_NOMEM, "allocating a transaction");
    txn->env = env;
    txn->core = core;
    txn->write = write;
    txn->generation = 1;
    if (write) {
        pthread_mutex_lock(&core->write_mutex);
        core->writer = pthread_self();
        core->has_writer = true;
    }
    int rc = mdb_begin(txn);
    if (!rc) rc = txn_load(txn);
    if (rc) {
        mdb_end(txn, false);
        txn_free(txn);
        return rc;
    }
    *out = txn;
    return ORC_OK;
}

/* Puts a named metadata value into `dbi` ("meta", or the main database). */
static int named_put(orc_txn *txn, MDB_dbi dbi, const char *name, const void *data, size_t size)
{
    MDB_val k = {strlen(name), (void *)name}, v = {size, (void *)data};
    int mrc = mdb_put(txn->mdb, dbi, &k, &v, 0);
    if (mrc == MDB_MAP_FULL) return ORC_ERR_MAP_FULL;
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "writing metadata"));
    txn_touched(txn);
    return ORC_OK;
}

/* The version and the table states: in the main database from format 2, where a
 * commit writes them into the page it rewrites anyway (the main database's leaf,
 * holding the records of the databases the commit changed); "meta" was one more
 * page in every commit. Files of format 1 keep them in "meta" (FILE LAYOUT). Both
 * are regenerated at every commit, so map growth needs no redo record of them. */
static int state_put(orc_txn *txn, const char *name, const void *data, size_t size)
{
    return named_put(txn, txn->core->dbi_state, name, data, size);
}

static int store_tables(orc_txn *txn)
{
    orc_buf *b = &txn->scratch;
    b->size = 0;
    int rc = buf_put_u32(b, txn->ntables_state);
    for (uint32_t t = 1; !rc && t <= txn->ntables_state; t++) {
        rc = buf_put_u64(b, txn->tables[t].next_key);
        if (!rc) rc = buf_put_u64(b, txn->tables[t].count);
    }
    return rc ? rc : state_put(txn, META_TABLES, b->data, b->size);
}

/*
 * THE FILE'S TAIL. A commit that makes the file longer has fdatasync persist the
 * new size as well as the pages: on ext4 a journal commit, measured at 40-100 µs
 * more per commit on this VM's disk, and after a bulk load every small commit grew
 * the file by a page or two (the index pages the load filled split). So a syncing
 * commit keeps TAIL_LOW pages of zeros written past the last page in use, writing
 * TAIL_CHUNK at a time at the file's end before LMDB writes its own pages; LMDB's
 * pages then land in space the file already has. Safe: this runs holding LMDB's
 * writer lock, so no other commit writes meanwhile; nothing committed lies past
 * the file's end (pages past it are free and never read), and LMDB's writes into
 * the range come after these. A failed write (a full disk, an I/O error) fails
 * the commit, as a failed write of LMDB's would: an I/O error is never silent.
 */
#define TAIL_LOW 16
#define TAIL_CHUNK 64

static int reserve_tail(orc_txn *txn)
{
    orc_envcore *core = txn->core;
    if (core->flags & ORC_ENV_NO_SYNC) return ORC_OK;
    int fd;
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_get_fd(core->mdb, &fd) || mdb_env_info(core->mdb, &info) || mdb_env_stat(core->mdb, &st))
        return ORC_OK;
    uint64_t page = st.ms_psize, size;
    uint64_t used = ((uint64_t)info.me_last_pgno + 1) * page;
    int rc = env_file_size(core, used + TAIL_LOW * page, &size); /* no fstat while the tail is known to be there */
    if (rc) return rc;
    if (size >= used + TAIL_LOW * page) return ORC_OK;
    static const uint8_t zeros[TAIL_CHUNK * 4096];
    uint64_t end = used + TAIL_CHUNK * page;
    while (size < end) {
        size_t n = end - size < sizeof zeros ? (size_t)(end - size) : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, (off_t)size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            env_file_size_grew(core, size);
            return orc_fail(e, "extending '%s' for the commit: %s", core->path, strerror(e));
        }
        size += (uint64_t)w;
    }
    env_file_size_grew(core, size);
    return ORC_OK;
}

/* What a commit writes besides the changeset: the layers' deferred writes, then the
 * schema (if changed), the table states (if changed) and the version. */
static int commit_records(orc_txn *txn, uint64_t version)
{
    const txn_hooks *h = &orc_txn_hooks;
    int rc = ORC_OK;
    for (size_t i = 0; i < h->nlayers && !rc; i++)
        if (h->layers[i].flush) rc = h->layers[i].flush(txn);
    if (!rc && txn->schema_dirty) {
        orc_buf *b = &txn->scratch3;
        b->size = 0;
        rc = schema_encode(txn->schema, b);
        if (!rc) rc = meta_put(txn, META_SCHEMA, b->data, b->size);
    }
    if (!rc && txn->tables_dirty) rc = store_tables(txn);
    if (!rc) rc = state_put(txn, META_VERSION, &version, 8);
    return rc;
}

/* Everything a commit writes before mdb_txn_commit (invariant 3): the changeset
 * store runs commit_records inside it. */
static int commit_prepare(orc_txn *txn, uint64_t version)
{
    return orc_txn_hooks.store_changeset(txn, version, commit_records);
}

int orc_txn_commit(orc_txn *txn, uint64_t *version_out)
{
    if (!txn) return orc_fail(ORC_ERR_INVALID_ARG, "orc_txn_commit needs a transaction");
    if (!txn->write) {
        if (version_out) *version_out = txn->version;
        mdb_end(txn, true);
        txn_free(txn);
        return ORC_OK;
    }
    if (txn->failed) {
        orc_txn_abort(txn);
        return orc_fail(ORC_ERR_BAD_TXN, "the transaction failed earlier and was rolled back");
    }
    uint64_t version = txn->version + 1;
    int rc;
    for (;;) {
        size_t mark = txn->changeset.size;
        rc = commit_prepare(txn, version);
        if (!rc) {
            close_cursors(txn);
            if ((rc = reserve_tail(txn))) break;
            int mrc = mdb_txn_commit(txn->mdb);
            txn->mdb = NULL;
            rc = mrc == MDB_MAP_FULL ? ORC_ERR_MAP_FULL : mrc ? orc_fail_mdb(mrc, "committing") : ORC_OK;
        }
        if (rc != ORC_ERR_MAP_FULL) break;
        /* Storing the changeset added nothing to it; txn_grow replays up to `mark`. */
        if ((rc = txn_grow(txn, mark))) break;
    }
    if (rc) {
        orc_txn_abort(txn);
        return rc;
    }
    orc_envcore *core = txn->core;
    pthread_mutex_lock(&core->lock);
    if (core->handles_upto + 1 >= txn->lmdb_id && core->handles_upto < txn->lmdb_id) core->handles_upto = txn->lmdb_id;
    for (size_t i = 0; i < txn->new_dbi_count; i++) {
        uint32_t t = txn->new_dbis[i].table;
        if (t < core->table_dbi_cap) (txn->new_dbis[i].pk ? core->pk_dbi : core->table_dbi)[t] = txn->new_dbis[i].dbi;
    }
    if (txn->schema_dirty) {
        if (core->schema) schema_release(core->schema);
        core->schema = schema_retain(txn->schema);
    }
    pthread_mutex_unlock(&core->lock);
    txn->holds_map_lock = false;
    env_note_thread(core, txn->begun_on, false);
    pthread_rwlock_unlock(&core->map_lock);
    if (version_out) *version_out = version;
    txn_free(txn);
    return ORC_OK;
}

void orc_txn_abort(orc_txn *txn)
{
    if (!txn) return;
    mdb_end(txn, true);
    txn_free(txn);
}

uint64_t orc_txn_version(const orc_txn *txn) { return txn ? txn->version : 0; }

int orc_env_version(orc_env *env, uint64_t *version_out)
{
    orc_txn *t;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &t);
    if (rc) return rc;
    *version_out = orc_txn_version(t);
    orc_txn_abort(t);
    return ORC_OK;
}

/* Here rather than in env.c: the version comes from a read transaction. */
int orc_env_info_get(orc_env *env, orc_env_info *info)
{
    if (!env || !info) return orc_fail(ORC_ERR_INVALID_ARG, "orc_env_info_get needs an environment and an out pointer");
    MDB_envinfo ei;
    MDB_stat st;
    int rc = mdb_env_info(env->core->mdb, &ei);
    if (!rc) rc = mdb_env_stat(env->core->mdb, &st);
    if (rc) return orc_fail_mdb(rc, "reading environment information");
    info->map_size = ei.me_mapsize;
    info->page_size = st.ms_psize;
    info->used_bytes = (ei.me_last_pgno + 1) * (size_t)st.ms_psize;
    info->readers = ei.me_numreaders;
    return orc_env_version(env, &info->version);
}

const orc_class *schema_class_req(const orc_txn *txn, uint32_t table, int *rc)
{
    const orc_class *c = schema_class(txn, table);
    *rc = c ? ORC_OK : orc_fail(ORC_ERR_NOT_FOUND, "no class with table id %u", table);
    return c;
}
bool orc_txn_is_write(const orc_txn *txn) { return txn && txn->write; }
uint64_t orc_txn_generation(const orc_txn *txn) { return txn ? txn->generation : 0; }

int orc_txn_renew(orc_txn *txn)
{
    if (!txn || txn->write) return orc_fail(ORC_ERR_INVALID_ARG, "orc_txn_renew takes a read transaction");
    txn_reset_state(txn);
    for (size_t i = 0; i < txn->arena_count; i++) free(txn->arena[i]);
    txn->arena_count = 0;
    mdb_end(txn, true);
    int rc = mdb_begin(txn);
    if (!rc) rc = txn_load(txn);
    if (rc) txn->failed = true;
    return rc;
}

int txn_require_write(orc_txn *txn)
{
    if (!txn) return orc_fail(ORC_ERR_INVALID_ARG, "no transaction");
    if (!txn->write) return orc_fail(ORC_ERR_READ_ONLY, "cannot write in a read transaction");
    if (txn->failed || !txn->mdb)
        return orc_fail(ORC_ERR_BAD_TXN, "the transaction failed earlier; only abort is possible");
    return ORC_OK;
}

int txn_poison(orc_txn *txn, int rc)
{
    if (rc != ORC_ERR_MAP_FULL) txn->failed = true;
    return rc;
}

void txn_touched(orc_txn *txn) { txn->generation++; }

int txn_keep(orc_txn *txn, void *p)
{
    int rc = array_reserve(&txn->arena, txn->arena_count, &txn->arena_cap, sizeof *txn->arena, 8, "the transaction's memory list");
    if (rc) {
        free(p);
        return rc;
    }
    txn->arena[txn->arena_count++] = p;
    return ORC_OK;
}

/* ---- named database handles ---------------------------------------------- */

static int ensure_dbi_cap(orc_envcore *core, uint32_t table)
{
    if (table < core->table_dbi_cap) return ORC_OK;
    uint32_t cap = core->table_dbi_cap ? core->table_dbi_cap : 16;
    while (cap <= table) cap *= 2;
    MDB_dbi *a = realloc(core->table_dbi, cap * sizeof *a);
    if (!a) return orc_fail(ORC_ERR_NOMEM, "allocating database handles");
    core->table_dbi = a;
    MDB_dbi *b = realloc(core->pk_dbi, cap * sizeof *b);
    if (!b) return orc_fail(ORC_ERR_NOMEM, "allocating database handles");
    core->pk_dbi = b;
    memset(a + core->table_dbi_cap, 0, (cap - core->table_dbi_cap) * sizeof *a);
    memset(b + core->table_dbi_cap, 0, (cap - core->table_dbi_cap) * sizeof *b);
    core->table_dbi_cap = cap;
    return ORC_OK;
}

static int table_dbi_slow(orc_txn *txn, uint32_t table, bool pk, MDB_dbi *out);

static int table_dbi(orc_txn *txn, uint32_t table, bool pk, MDB_dbi *out)
{
    if (table && txn->last_dbi_table[pk] == table) {
        *out = txn->last_dbi[pk];
        return ORC_OK;
    }
    int rc = table_dbi_slow(txn, table, pk, out);
    if (!rc) {
        txn->last_dbi_table[pk] = table;
        txn->last_dbi[pk] = *out;
    }
    return rc;
}

static int table_dbi_slow(orc_txn *txn, uint32_t table, bool pk, MDB_dbi *out)
{
    for (size_t i = 0; i < txn->new_dbi_count; i++)
        if (txn->new_dbis[i].table == table && txn->new_dbis[i].pk == pk) {
            *out = txn->new_dbis[i].dbi;
            return ORC_OK;
        }
    orc_envcore *core = txn->core;
    pthread_mutex_lock(&core->lock);
    int rc = ensure_dbi_cap(core, table);
    if (rc) {
        pthread_mutex_unlock(&core->lock);
        return rc;
    }
    MDB_dbi cached = (pk ? core->pk_dbi : core->table_dbi)[table];
    if (cached || !txn->write) {
        /* A reader's snapshot has a handle for each of its databases (invariant 4). */
        pthread_mutex_unlock(&core->lock);
        if (!cached) return orc_fail(ORC_ERR_NOT_FOUND, "the database of table %u does not exist", table);
        *out = cached;
        return ORC_OK;
    }
    /* A database this write transaction creates (invariant 4). */
    char name[16];
    table_db_format(name, table, pk);
    MDB_dbi dbi;
    int mrc = mdb_dbi_open(txn->mdb, name, MDB_CREATE, &dbi);
    pthread_mutex_unlock(&core->lock);
    if (mrc == MDB_NOTFOUND) return orc_fail(ORC_ERR_NOT_FOUND, "the database of table %u does not exist", table);
    if (mrc) return orc_fail_mdb(mrc, "opening a table's database");
    if (txn->write) {
        void *p = realloc(txn->new_dbis, (txn->new_dbi_count + 1) * sizeof *txn->new_dbis);
        if (!p) return orc_fail(ORC_ERR_NOMEM, "allocating database handles");
        txn->new_dbis = p;
        txn->new_dbis[txn->new_dbi_count].table = table;
        txn->new_dbis[txn->new_dbi_count].pk = pk;
        txn->new_dbis[txn->new_dbi_count].dbi = dbi;
        txn->new_dbi_count++;
    }
    *out = dbi;
    return ORC_OK;
}

int txn_table_dbi(orc_txn *txn, uint32_t table, MDB_dbi *out) { return table_dbi(txn, table, false, out); }
int txn_pk_dbi(orc_txn *txn, uint32_t table, MDB_dbi *out) { return table_dbi(txn, table, true, out); }

/* ---- table states ------------------------------------------------------------ */

static int load_tables(orc_txn *txn)
{
    MDB_val v;
    int rc = meta_read(txn->mdb, txn->core->dbi_state, META_TABLES, &v);
    uint32_t n = 0;
    if (rc && rc != MDB_NOTFOUND) return orc_fail_mdb(rc, "reading table states");
    if (!rc) {
        if (v.mv_size < 4) return orc_fail(ORC_ERR_CORRUPT, "table states are truncated");
        n = ld32(v.mv_data);
        if ((size_t)n * 16 + 4 != v.mv_size || n > ORC_MAX_TABLES)
            return orc_fail(ORC_ERR_CORRUPT, "table states have %zu bytes for %u tables", v.mv_size, n);
    }
    uint32_t cap = txn->schema->ntables > n ? txn->schema->ntables : n;
    txn->tables = calloc((size_t)cap + 1, sizeof *txn->tables);
    if (!txn->tables) return orc_fail(ORC_ERR_NOMEM, "allocating table states");
    for (uint32_t t = 1; t <= n; t++) {
        const uint8_t *p = (const uint8_t *)v.mv_data + 4 + (size_t)(t - 1) * 16;
        txn->tables[t].next_key = ld64(p);
        txn->tables[t].count = ld64(p + 8);
    }
    for (uint32_t t = 1; t <= cap; t++)
        if (txn->tables[t].next_key == 0) txn->tables[t].next_key = 1;
    txn->ntables_state = cap;
    return ORC_OK;
}

orc_table_state *txn_table_state(orc_txn *txn, uint32_t table)
{
    if (!txn->tables && load_tables(txn)) return NULL;
    if (table > txn->ntables_state) {
        if (table > ORC_MAX_TABLES) return NULL;
        orc_table_state *a = realloc(txn->tables, ((size_t)table + 1) * sizeof *a);
        if (!a) return NULL;
        for (uint32_t t = txn->ntables_state + 1; t <= table; t++) {
            a[t].next_key = 1;
            a[t].count = 0;
            a[t].pk_unordered = 0;
        }
        txn->tables = a;
        txn->ntables_state = table;
    }
    return table ? &txn->tables[table] : NULL;
}

/* ---- map growth -------------------------------------------------------------- */

int txn_grow(orc_txn *txn, size_t changeset_mark)
{
    txn->generation++;
    orc_envcore *core = txn->core;
    uint64_t version = txn->version;
    /* The redo log: what the transaction did before the operation that failed. */
    size_t n = changeset_mark;
    uint8_t *redo = n ? malloc(n) : NULL;
    if (n && !redo) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "saving the transaction for map growth"));
    if (n) memcpy(redo, txn->changeset.data, n);
    orc_buf meta = txn->meta_redo;
    txn->meta_redo = (orc_buf){0};
    int rc;
    for (;;) {
        mdb_end(txn, false);
        txn_reset_state(txn);
        txn->changeset.size = 0;
        txn->instr_count = 0;
        if ((rc = env_grow_map(core, 0))) break;
        if ((rc = mdb_begin(txn)) || (rc = txn_load(txn))) break;
        if (txn->version != version) {
            rc = orc_fail(ORC_ERR_MAP_FULL, "the map grew while another process committed; the transaction is lost");
            break;
        }
        txn->replaying = true;
        rc = n ? orc_txn_hooks.replay(txn, redo, n) : ORC_OK;
        if (!rc) rc = meta_redo_apply(txn, meta.data, meta.size);
        txn->replaying = false;
        if (rc != ORC_ERR_MAP_FULL) break;
    }
    free(redo);
    buf_free(&txn->meta_redo);
    txn->meta_redo = meta;
    if (rc) {
        txn->failed = true;
        return rc;
    }
    return ORC_OK;
}

/* ---- metadata ---------------------------------------------------------------- */

static int check_meta_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 400) return orc_fail(ORC_ERR_INVALID_ARG, "metadata names have 1 to 400 bytes");
    return ORC_OK;
}

int orc_meta_get(orc_txn *txn, const char *name, const void **data_out, size_t *size_out)
{
    int rc = check_meta_name(name);
    if (rc) return rc;
    if (strncmp(name, "orc.", 4) == 0)
        return orc_fail(ORC_ERR_INVALID_ARG, "metadata names starting with 'orc.' are reserved ('%s')", name);
    if (!txn || !txn->mdb) return orc_fail(ORC_ERR_BAD_TXN, "the transaction has ended");
    MDB_val v;
    int mrc = meta_read(txn->mdb, txn->core->dbi_meta, name, &v);
    if (mrc == MDB_NOTFOUND) return orc_fail(ORC_ERR_NOT_FOUND, "no metadata named '%s'", name);
    if (mrc) return orc_fail_mdb(mrc, "reading metadata");
    *data_out = v.mv_data;
    *size_out = v.mv_size;
    return ORC_OK;
}

/*
 * Metadata is not in the changeset, so writes other than the three a commit
 * regenerates are kept in meta_redo for map growth:
 *   u8 op (1 put, 2 delete) | u32 name length | name | u32 size | data
 */
static bool regenerated_at_commit(const char *name)
{
    return !strcmp(name, META_VERSION) || !strcmp(name, META_SCHEMA) || !strcmp(name, META_TABLES);
}

static int redo_record(orc_txn *txn, uint8_t op, const char *name, const void *data, size_t size)
{
    if (txn->replaying || regenerated_at_commit(name)) return ORC_OK;
    orc_buf *b = &txn->meta_redo;
    size_t n = strlen(name);
    int rc = buf_put_u8(b, op);
    if (!rc) rc = buf_put_u32(b, (uint32_t)n);
    if (!rc) rc = buf_put(b, name, n);
    if (!rc) rc = buf_put_u32(b, (uint32_t)size);
    if (!rc) rc = buf_put(b, data, size);
    return rc;
}

int meta_put(orc_txn *txn, const char *name, const void *data, size_t size)
{
    int rc = named_put(txn, txn->core->dbi_meta, name, data, size);
    return rc ? rc : redo_record(txn, 1, name, data, size);
}

int meta_del(orc_txn *txn, const char *name)
{
    MDB_val k = {strlen(name), (void *)name};
    int mrc = mdb_del(txn->mdb, txn->core->dbi_meta, &k, NULL);
    if (mrc == MDB_MAP_FULL) return ORC_ERR_MAP_FULL;
    if (mrc && mrc != MDB_NOTFOUND) return txn_poison(txn, orc_fail_mdb(mrc, "deleting metadata"));
    txn_touched(txn);
    return redo_record(txn, 2, name, NULL, 0);
}

/* Re-applies recorded metadata writes after map growth. */
static int meta_redo_apply(orc_txn *txn, const uint8_t *p, size_t n)
{
    size_t pos = 0;
    char name[512];
    while (pos < n) {
        uint8_t op = p[pos];
        uint32_t len = ld32(p + pos + 1);
        memcpy(name, p + pos + 5, len);
        name[len] = 0;
        pos += 5 + len;
        uint32_t size = ld32(p + pos);
        const uint8_t *data = p + pos + 4;
        pos += 4 + size;
        int rc = op == 1 ? meta_put(txn, name, data, size) : meta_del(txn, name);
        if (rc) return rc;
    }
    return ORC_OK;
}

static int check_user_name(orc_txn *txn, const char *name)
{
    int rc = txn_require_write(txn);
    if (!rc) rc = check_meta_name(name);
    if (!rc && strncmp(name, "orc.", 4) == 0)
        rc = orc_fail(ORC_ERR_INVALID_ARG, "metadata names starting with 'orc.' are reserved ('%s')", name);
    return rc;
}

int orc_meta_set(orc_txn *txn, const char *name, const void *data, size_t size)
{
    int rc = check_user_name(txn, name);
    if (rc) return rc;
    if (!data && size) return orc_fail(ORC_ERR_INVALID_ARG, "metadata of %zu bytes without data", size);
    return ORC_WRITE_OP(txn, meta_put(txn, name, data ? data : "", size));
}

int orc_meta_delete(orc_txn *txn, const char *name)
{
    int rc = check_user_name(txn, name);
    if (rc) return rc;
    return ORC_WRITE_OP(txn, meta_del(txn, name));
}
