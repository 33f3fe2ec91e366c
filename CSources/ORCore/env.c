/*
 * env.c — environments: the process-wide registry, open and close, map size.
 *
 * INVARIANTS
 *  1. A file is opened by LMDB at most once per process (LMDB forbids a second
 *     open: closing it would drop the first one's POSIX locks). orc_env handles
 *     share one orc_envcore per (device, inode), found in `registry`.
 *  2. Before LMDB maps an existing file, verify_pages() checks its structure
 *     with pread, so a truncated or foreign file is an error, never a SIGBUS
 *     or a wild read inside LMDB.
 *  3. A file ORCore created always has the "meta" database with "orc.format";
 *     an LMDB file without it is ORC_ERR_NOT_A_REALM.
 *  4. The map is resized only while holding map_lock exclusively, which every
 *     live transaction holds shared: LMDB remaps, and a reader in the middle of
 *     a page would otherwise read unmapped memory.
 */
#include "env.h"
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Address space is reserved, not memory: 64-bit processes have plenty. */
#define DEFAULT_MAP_SIZE ((size_t)16 << 30)
#define MIN_MAP_SIZE ((size_t)1 << 20)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static orc_envcore *registry;

static size_t round_up_map(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

/*
 * Opens the shared databases and checks the format marker, in a write
 * transaction that creates what is missing when `create`, else in a read
 * transaction; then something missing sets *missing (when `missing` is given)
 * instead of being an error.
 */
static int open_databases(orc_envcore *core, bool create, bool *missing)
{
    MDB_txn *t;
    int rc = mdb_txn_begin(core->mdb, NULL, create ? 0 : MDB_RDONLY, &t);
    if (rc) return orc_fail_mdb(rc, "beginning the opening transaction");
    unsigned cflag = create ? MDB_CREATE : 0;

    /* A foreign LMDB file has keys in its main database but no "meta". */
    MDB_dbi main_dbi;
    MDB_stat st;
    rc = mdb_dbi_open(t, NULL, 0, &main_dbi);
    if (!rc) rc = mdb_stat(t, main_dbi, &st);
    if (rc) goto fail_mdb;
    core->dbi_state = main_dbi;
    rc = mdb_dbi_open(t, "meta", 0, &core->dbi_meta);
    if (rc == MDB_NOTFOUND && st.ms_entries == 0 && missing) goto incomplete;
    if (rc == MDB_NOTFOUND && st.ms_entries == 0 && create)
        rc = mdb_dbi_open(t, "meta", MDB_CREATE, &core->dbi_meta); /* MDB_INCOMPATIBLE: a main database with duplicates */
    if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
        mdb_txn_abort(t);
        return orc_fail(ORC_ERR_NOT_A_REALM, "'%s' is an LMDB file without OpenRealm's metadata", core->path);
    }
    if (rc) goto fail_mdb;

    struct {
        const char *name;
        MDB_dbi *dbi;
    } shared[] = {
        {"idx", &core->dbi_idx}, {"coll", &core->dbi_coll}, {"blink", &core->dbi_blink}, {"log", &core->dbi_log},
    };
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        rc = mdb_dbi_open(t, shared[i].name, cflag, shared[i].dbi);
        if (rc == MDB_NOTFOUND && missing) goto incomplete;
        if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
            mdb_txn_abort(t);
            return orc_fail(ORC_ERR_NOT_A_REALM, "'%s' lacks the '%s' database", core->path, shared[i].name);
        }
        if (rc) goto fail_mdb;
    }

    MDB_val k = {10, (void *)"orc.format"}, v;
    rc = mdb_get(t, core->dbi_meta, &k, &v);
    if (rc == MDB_NOTFOUND && missing) goto incomplete;
    if (rc == MDB_NOTFOUND && create) {
        uint32_t fmt = ORC_FORMAT_VERSION;
        core->format = fmt;
        v.mv_size = 4;
        v.mv_data = &fmt;
        rc = mdb_put(t, core->dbi_meta, &k, &v, 0);
        if (rc) goto fail_mdb;
    } else if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(t);
        return orc_fail(ORC_ERR_NOT_A_REALM, "'%s' has no format marker", core->path);
    } else if (rc) {
        goto fail_mdb;
    } else {
        uint32_t fmt = v.mv_size == 4 ? ld32(v.mv_data) : 0;
        if (v.mv_size != 4 || fmt == 0) {
            mdb_txn_abort(t);
            return orc_fail(ORC_ERR_CORRUPT, "'%s' has a malformed format marker", core->path);
        }
        if (fmt > ORC_FORMAT_VERSION) {
            mdb_txn_abort(t);
            return orc_fail(ORC_ERR_FORMAT_VERSION, "'%s' has format version %u; this build reads up to %d",
                            core->path, fmt, ORC_FORMAT_VERSION);
        }
        core->format = fmt;
        if (fmt < 2) core->dbi_state = core->dbi_meta; /* format 1: the version and table states in "meta" */
    }
    rc = mdb_txn_commit(t); /* commit, not abort: keeps the dbi handles */
    if (rc) return orc_fail_mdb(rc, "committing the opening transaction");
    return ORC_OK;

incomplete:
    mdb_txn_abort(t);
    *missing = true;
    return ORC_OK;

fail_mdb:
    mdb_txn_abort(t);
    return orc_fail_mdb(rc, "opening the realm's databases");
}

/*
 * Opens the shared databases. A realm that has them all is opened in a read
 * transaction, so that opening never waits for another process's write
 * transaction (it did: a process opening a file while another held a long
 * write waited for its end); only a new file, or one missing a shared database
 * or its format marker, takes the writer's lock to create them.
 */
static int init_databases(orc_envcore *core, bool read_only)
{
    if (read_only) return open_databases(core, false, NULL);
    bool missing = false;
    int rc = open_databases(core, false, &missing);
    if (rc || !missing) return rc;
    return open_databases(core, true, NULL);
}

static void core_free(orc_envcore *core)
{
    if (core->mdb) mdb_env_close(core->mdb);
    if (core->schema) schema_release(core->schema);
    pthread_mutex_destroy(&core->lock);
    pthread_mutex_destroy(&core->write_mutex);
    pthread_rwlock_destroy(&core->map_lock);
    free(core->table_dbi);
    free(core->pk_dbi);
    free(core->txn_threads);
    free(core->path);
    free(core);
}

/* ---- the snapshot's state -------------------------------------------------------- */

static int meta_read(MDB_txn *t, MDB_dbi dbi, const char *name, MDB_val *v)
{
    MDB_val k = {strlen(name), (void *)name};
    return mdb_get(t, dbi, &k, v);
}

int env_read_state(orc_envcore *core, MDB_txn *t, uint64_t *version_out, orc_schema **schema_out)
{
    MDB_val v;
    int rc = meta_read(t, core->dbi_state, META_VERSION, &v);
    if (rc == MDB_NOTFOUND) {
        *version_out = 0;
    } else if (rc) {
        return orc_fail_mdb(rc, "reading the version");
    } else if (v.mv_size != 8) {
        return orc_fail(ORC_ERR_CORRUPT, "the stored version has %zu bytes, not 8", v.mv_size);
    } else {
        *version_out = ld64(v.mv_data);
    }

    rc = meta_read(t, core->dbi_meta, META_SCHEMA, &v);
    const uint8_t *blob = rc == MDB_NOTFOUND ? NULL : v.mv_data;
    size_t size = rc == MDB_NOTFOUND ? 0 : v.mv_size;
    if (rc && rc != MDB_NOTFOUND) return orc_fail_mdb(rc, "reading the schema");
    /* The blob starts with u32 magic, u64 generation: compare before decoding. */
    uint64_t gen = blob && size >= 12 ? ld64(blob + 4) : 0;
    pthread_mutex_lock(&core->lock);
    if (core->schema && core->schema->gen == gen && (blob || gen == 0)) {
        *schema_out = schema_retain(core->schema);
        pthread_mutex_unlock(&core->lock);
        return ORC_OK;
    }
    pthread_mutex_unlock(&core->lock);
    orc_schema *s;
    rc = blob ? schema_decode(blob, size, &s) : schema_decode(NULL, 0, &s);
    if (rc) return rc;
    *schema_out = s;
    pthread_mutex_lock(&core->lock);
    if (!core->schema || core->schema->gen < s->gen) {
        if (core->schema) schema_release(core->schema);
        core->schema = schema_retain(s);
    }
    pthread_mutex_unlock(&core->lock);
    return ORC_OK;
}

/* Reads the version and the schema once, in a snapshot of its own, as every transaction will. */
static int check_state(orc_envcore *core)
{
    MDB_txn *t;
    int rc;
    for (int attempt = 0;; attempt++) {
        rc = mdb_txn_begin(core->mdb, NULL, MDB_RDONLY, &t);
        if (rc != MDB_MAP_RESIZED || attempt == 3) break;
        if ((rc = env_adopt_map(core))) return rc;
    }
    if (rc) return orc_fail_mdb(rc, "beginning a read transaction");
    uint64_t version;
    orc_schema *s = NULL;
    rc = env_read_state(core, t, &version, &s);
    mdb_txn_abort(t);
    if (s) schema_release(s);
    return rc;
}

/*
 * Live transactions by the thread that began them, so that map growth can
 * tell at once that it would wait for its own thread (see env_grow_map).
 */
void env_note_thread(orc_envcore *core, pthread_t t, bool add)
{
    pthread_mutex_lock(&core->lock);
    if (add) {
        if (core->txn_thread_count == core->txn_thread_cap) {
            size_t cap = core->txn_thread_cap ? core->txn_thread_cap * 2 : 16;
            pthread_t *a = realloc(core->txn_threads, cap * sizeof *a);
            if (a) {
                core->txn_threads = a;
                core->txn_thread_cap = cap;
            }
        }
        if (core->txn_thread_count < core->txn_thread_cap) core->txn_threads[core->txn_thread_count++] = t;
    } else {
        for (size_t i = 0; i < core->txn_thread_count; i++)
            if (pthread_equal(core->txn_threads[i], t)) {
                core->txn_threads[i] = core->txn_threads[--core->txn_thread_count];
                break;
            }
    }
    pthread_mutex_unlock(&core->lock);
}

bool env_thread_has_txn(orc_envcore *core)
{
    bool found = false;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&core->lock);
    for (size_t i = 0; i < core->txn_thread_count && !found; i++) found = pthread_equal(core->txn_threads[i], self);
    pthread_mutex_unlock(&core->lock);
    return found;
}


static int core_open(const char *path, unsigned flags, const orc_env_options *opt, int fd, orc_envcore **out)
{
    orc_envcore *core = calloc(1, sizeof *core);
    if (!core) return orc_fail(ORC_ERR_NOMEM, "allocating an environment");
    pthread_mutex_init(&core->lock, NULL);
    pthread_mutex_init(&core->write_mutex, NULL);
    pthread_rwlock_init(&core->map_lock, NULL);
    core->flags = flags;
    core->refs = 1;
    core->path = strdup(path);
    if (!core->path) {
        core_free(core);
        return orc_fail(ORC_ERR_NOMEM, "allocating an environment");
    }

    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        core_free(core);
        return orc_fail(e, "stat '%s'", path);
    }
    core->dev = st.st_dev;
    core->ino = st.st_ino;
    if (st.st_size == 0 && (flags & ORC_ENV_READ_ONLY)) {
        /* LMDB would write meta pages into it; a read-only open must leave the file as it is. */
        core_free(core);
        return orc_fail(ORC_ERR_NOT_A_REALM, "'%s' is empty: there is no realm to open read-only", path);
    }
    if (st.st_size > 0) {
        int rc = verify_pages(path, fd, (flags & ORC_ENV_VERIFY) != 0);
        if (rc) {
            core_free(core);
            return rc;
        }
    }

    size_t map = opt && opt->initial_map_size ? opt->initial_map_size : DEFAULT_MAP_SIZE;
    if (map < MIN_MAP_SIZE) map = MIN_MAP_SIZE;
    if ((size_t)st.st_size * 2 > map) map = (size_t)st.st_size * 2;
    map = round_up_map(map);

    int rc = mdb_env_create(&core->mdb);
    if (!rc) rc = mdb_env_set_maxdbs(core->mdb, ORC_MAX_DBS);
    if (!rc) rc = mdb_env_set_maxreaders(core->mdb, opt && opt->max_readers ? opt->max_readers : 510);
    if (!rc) rc = mdb_env_set_mapsize(core->mdb, map);
    if (rc) {
        core_free(core);
        return orc_fail_mdb(rc, "creating the LMDB environment");
    }
    unsigned mflags = MDB_NOSUBDIR | MDB_NOTLS;
    if (flags & ORC_ENV_NO_SYNC) mflags |= MDB_NOSYNC;
    if (flags & ORC_ENV_NO_META_SYNC) mflags |= MDB_NOMETASYNC;
    /*
     * Read-only is a property of the handle (see orc_env_open): LMDB opens
     * read-write whenever the file allows it, so that a later read-write
     * handle can share this environment.
     */
    if (access(path, W_OK) != 0) {
        mflags |= MDB_RDONLY;
        core->flags |= ORC_ENV_READ_ONLY;
    } else {
        core->flags &= ~(unsigned)ORC_ENV_READ_ONLY;
    }
    rc = mdb_env_open(core->mdb, path, mflags, opt && opt->file_mode ? opt->file_mode : 0644);
    if (rc) {
        core_free(core);
        switch (rc) {
        case MDB_INVALID: return orc_fail(ORC_ERR_NOT_A_REALM, "'%s' is not an LMDB file", path);
        case MDB_VERSION_MISMATCH:
            return orc_fail(ORC_ERR_INCOMPATIBLE_LOCK, "'%s-lock' was written by an incompatible LMDB", path);
        case MDB_CORRUPTED: return orc_fail(ORC_ERR_CORRUPT, "'%s' is damaged", path);
        default: return orc_fail_mdb(rc, path);
        }
    }
    MDB_envinfo info;
    mdb_env_info(core->mdb, &info);
    core->map_size = info.me_mapsize;

    rc = init_databases(core, (flags & ORC_ENV_READ_ONLY) != 0 || (core->flags & ORC_ENV_READ_ONLY) != 0);
    if (rc) {
        core_free(core);
        return rc;
    }
    /* Fail at open, not at first use, when the version or the schema cannot be read. */
    if ((rc = check_state(core))) {
        core_free(core);
        return rc;
    }
    *out = core;
    return ORC_OK;
}

int orc_env_open(const char *path, unsigned flags, const orc_env_options *options, orc_env **out)
{
    if (!path || !*path || !out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_env_open needs a path and an out pointer");
    *out = NULL;
    bool read_only = (flags & ORC_ENV_READ_ONLY) != 0;
    int oflags = O_CLOEXEC | (read_only ? O_RDONLY : O_RDWR);
    if (!read_only && !(flags & ORC_ENV_NO_CREATE)) oflags |= O_CREAT;
    int fd = open(path, oflags, options && options->file_mode ? options->file_mode : 0644);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT && !(oflags & O_CREAT)) return orc_fail(ORC_ERR_NOT_FOUND, "no realm file at '%s'", path);
        return orc_fail(e, "cannot open '%s': %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s' is not a regular file", path);
    }

    orc_env *env = calloc(1, sizeof *env);
    char *p = strdup(path);
    if (!env || !p) {
        free(env);
        free(p);
        close(fd);
        return orc_fail(ORC_ERR_NOMEM, "allocating an environment handle");
    }
    env->flags = flags;
    env->path = p;

    pthread_mutex_lock(&registry_lock);
    orc_envcore *core = registry;
    while (core && !(core->dev == st.st_dev && core->ino == st.st_ino)) core = core->next;
    int rc = ORC_OK;
    if (core) {
        if ((core->flags & ORC_ENV_READ_ONLY) && !read_only) {
            rc = orc_fail(ORC_ERR_READ_ONLY, "'%s' is not writable; it is open read-only in this process", path);
        } else {
            core->refs++;
        }
    } else {
        rc = core_open(path, flags, options, fd, &core);
        if (!rc) {
            core->next = registry;
            registry = core;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    close(fd);
    if (rc) {
        free(env->path);
        free(env);
        return rc;
    }
    env->core = core;
    *out = env;
    return ORC_OK;
}

void orc_env_close(orc_env *env)
{
    if (!env) return;
    orc_envcore *core = env->core;
    pthread_mutex_lock(&registry_lock);
    if (--core->refs == 0) {
        orc_envcore **pp = &registry;
        while (*pp && *pp != core) pp = &(*pp)->next;
        if (*pp) *pp = core->next;
        core_free(core);
    }
    pthread_mutex_unlock(&registry_lock);
    free(env->path);
    free(env);
}

const char *orc_env_path(const orc_env *env) { return env ? env->path : ""; }

/*
 * THE FILE'S SIZE. The page walk bounds its reads by the file's size and a syncing
 * commit keeps zero pages past the pages in use (txn.c, THE FILE'S TAIL): both need
 * to know the size is large enough, not what it is. Asking the kernel costs more
 * than the call: on ext4 (mounted with i_version, as this VM's root is) a stat of
 * the file marks its change counter as read, so the next write dirties the inode
 * and the commit's fdatasync then writes a fast-commit block as well as the pages —
 * measured with a probe writing 9 scattered pages and syncing, 300 times each way:
 * 236-272 µs a sync without a stat before the writes, 281-313 µs with one; in
 * ORCore's durable commits (block-layer trace) a metadata write in 150 of 200
 * syncs, against 16 of 200 for raw LMDB. A file does not shrink while it is open
 * (LMDB never truncates it), so the largest size seen answers until a commit or a
 * snapshot needs more; only then is the file stat'ed again.
 */
int env_file_size(orc_envcore *core, uint64_t want, uint64_t *size)
{
    uint64_t seen = __atomic_load_n(&core->file_size_seen, __ATOMIC_ACQUIRE);
    if (seen >= want) {
        *size = seen;
        return ORC_OK;
    }
    int fd;
    struct stat st;
    if (mdb_env_get_fd(core->mdb, &fd) != 0) return orc_fail(EBADF, "the file of '%s' is not open", core->path);
    if (fstat(fd, &st) != 0) return orc_fail(errno, "reading the size of '%s': %s", core->path, strerror(errno));
    *size = (uint64_t)st.st_size;
    env_file_size_grew(core, *size);
    return ORC_OK;
}

void env_file_size_grew(orc_envcore *core, uint64_t size)
{
    uint64_t seen = __atomic_load_n(&core->file_size_seen, __ATOMIC_RELAXED);
    while (seen < size &&
           !__atomic_compare_exchange_n(&core->file_size_seen, &seen, size, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
}

/* Sets the map size to `size` (0: the file's size), with map_lock held for writing, and
 * records what LMDB made of it; the scan map is then stale (scan.c finds it anew).
 * Returns LMDB's code. */
static int env_set_map_locked(orc_envcore *core, size_t size)
{
    int rc = mdb_env_set_mapsize(core->mdb, size);
    if (!rc) {
        MDB_envinfo info;
        mdb_env_info(core->mdb, &info);
        core->map_size = info.me_mapsize;
    }
    core->scan_map = NULL; /* LMDB mapped the file again */
    return rc;
}

/*
 * Grows the map to at least twice its size (or `min_size`), waiting a bounded
 * time for this process's other transactions to end. The caller holds no
 * transaction of its own.
 */
int env_grow_map(orc_envcore *core, size_t min_size)
{
    if (env_thread_has_txn(core))
        return orc_fail(ORC_ERR_MAP_FULL,
                        "the map of '%s' is full and cannot grow while this thread has another transaction open on it",
                        core->path);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    int rc = pthread_rwlock_timedwrlock(&core->map_lock, &deadline);
    if (rc)
        return orc_fail(ORC_ERR_MAP_FULL,
                        "the map of '%s' is full and could not grow: other transactions of this process stayed open",
                        core->path);
    size_t want = core->map_size * 2;
    if (want < min_size) want = min_size;
    want = round_up_map(want);
    rc = env_set_map_locked(core, want);
    pthread_rwlock_unlock(&core->map_lock);
    if (rc) return orc_fail(ORC_ERR_MAP_FULL, "growing the map of '%s' to %zu bytes: %s", core->path, want, mdb_strerror(rc));
    return ORC_OK;
}

/* Another process grew the file beyond our map: adopt its size (see MDB_MAP_RESIZED). */
int env_adopt_map(orc_envcore *core)
{
    pthread_rwlock_wrlock(&core->map_lock);
    int rc = env_set_map_locked(core, 0);
    pthread_rwlock_unlock(&core->map_lock);
    return rc ? orc_fail_mdb(rc, "adopting the map size set by another process") : ORC_OK;
}

int orc_env_delete_files(const char *path)
{
    if (!path || !*path) return orc_fail(ORC_ERR_INVALID_ARG, "orc_env_delete_files needs a path");
    struct stat st;
    if (stat(path, &st) == 0) {
        pthread_mutex_lock(&registry_lock);
        orc_envcore *core = registry;
        while (core && !(core->dev == st.st_dev && core->ino == st.st_ino)) core = core->next;
        pthread_mutex_unlock(&registry_lock);
        if (core) return orc_fail(ORC_ERR_BUSY, "'%s' is open in this process", path);
    }
    char lock[4096];
    if (snprintf(lock, sizeof lock, "%s-lock", path) >= (int)sizeof lock)
        return orc_fail(ORC_ERR_INVALID_ARG, "path too long");
    if (unlink(path) != 0 && errno != ENOENT) return orc_fail(errno, "removing '%s'", path);
    if (unlink(lock) != 0 && errno != ENOENT) return orc_fail(errno, "removing '%s'", lock);
    return ORC_OK;
}
