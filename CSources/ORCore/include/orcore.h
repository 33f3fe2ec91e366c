/*
 * orcore.h — the whole public C API of ORCore, OpenRealm's storage engine.
 *
 * OVERVIEW
 * ========
 * ORCore stores typed objects in an LMDB environment. The model, from the
 * outside in:
 *
 *  - An ENVIRONMENT (orc_env) is one realm file (opened with MDB_NOSUBDIR, so
 *    the data lives at `path` and LMDB's lock table at `path-lock`). A file is
 *    opened at most once per process: opening it again returns another handle
 *    on the same shared environment. Many readers and one writer, across
 *    threads and processes.
 *
 *  - A TRANSACTION (orc_txn) is a read snapshot or the single write
 *    transaction. Every committed write transaction gets the next VERSION
 *    number (the first commit of a new file is version 1). A read transaction
 *    sees the version that was current when it began, until it ends.
 *
 *  - The SCHEMA is stored in the file: CLASSES (top-level, embedded or
 *    asymmetric), each a TABLE with a stable 32-bit table id, and PROPERTIES,
 *    each a COLUMN with a stable 16-bit column id inside its table. Column ids
 *    of removed properties are never reused.
 *
 *  - An OBJECT is a row of a table, named by a 64-bit OBJECT KEY that is
 *    unique within its table and never reused. A class may have a PRIMARY KEY
 *    property (int, string, ObjectId or UUID, optionally nullable); the engine
 *    keeps it unique.
 *
 *  - A property holds one value (orc_value) or a COLLECTION of values: a LIST
 *    (ordered, duplicates allowed), a SET (unique values, kept in value order)
 *    or a DICTIONARY (string keys, kept in key order). Values may be LINKS to
 *    objects of one target class. Links to EMBEDDED objects own them: an
 *    embedded object has exactly one parent and is erased with it.
 *
 *  - INDEXES: the primary key index, and secondary indexes on properties
 *    flagged ORC_PROP_INDEXED, ordered and allowing duplicate values. Both are
 *    kept up to date by every write and used by the query planner.
 *
 *  - A QUERY is a compiled PREDICATE PROGRAM (the byte format documented under
 *    "Queries" below), optionally followed by SORT / DISTINCT / LIMIT
 *    descriptors. It runs in C over raw rows and returns object keys.
 *
 *  - The CHANGESET LOG: every commit appends one changeset (the instructions
 *    the transaction performed), keyed by its version, compressed with zstd
 *    above a size threshold. Consumers read it by version; it is trimmed up to
 *    the oldest version a registered consumer still needs. An environment
 *    opened with ORC_ENV_NO_LOG keeps none, one opened with ORC_ENV_LEAN_LOG
 *    no large changeset that no consumer holds.
 *
 * ERRORS
 * ======
 * Every function that can fail returns an int status: ORC_OK (0), one of the
 * ORC_ERR_* codes below (a reserved negative range), or an errno value passed
 * through from the system. On failure a message naming the cause is left for
 * the calling thread: orc_last_error() returns it until the thread's next
 * failing call. orc_strerror() names a code. Nothing in ORCore aborts the
 * process on bad input or a damaged file.
 *
 * THREADS
 * =======
 * An orc_env handle may be used from any thread. A read transaction may be
 * used from any thread, but by one thread at a time. A write transaction must
 * end (commit or abort) on the thread that began it, and a thread may hold at
 * most one write transaction per environment.
 *
 * LIFETIMES
 * =========
 * Strings and binary values returned by reads (orc_value.string) point into
 * the database map or into transaction-owned memory. They stay valid until the
 * transaction ends or, in a write transaction, until its next write.
 * orc_txn_generation() changes whenever such pointers may have become stale.
 */
#ifndef ORCORE_H
#define ORCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

/** Success. */
#define ORC_OK 0
/** The named object, class, property, key, log entry or element does not exist. */
#define ORC_ERR_NOT_FOUND (-41000)
/** A unique thing already exists: a primary key, a class or property name, a destination file. */
#define ORC_ERR_EXISTS (-41001)
/** An argument is malformed or out of its domain (NULL handle, bad name, bad flags). */
#define ORC_ERR_INVALID_ARG (-41002)
/** A value's type does not match the property, or an operation does not apply to the property's type. */
#define ORC_ERR_WRONG_TYPE (-41003)
/** Null was given for a property that is not optional. */
#define ORC_ERR_NOT_NULLABLE (-41004)
/** A write was attempted in a read transaction or on a read-only environment. */
#define ORC_ERR_READ_ONLY (-41005)
/** The file is damaged: a structure in it is inconsistent or truncated. */
#define ORC_ERR_CORRUPT (-41006)
/** The file is not a realm (not an LMDB file, or an LMDB file without ORCore's metadata). */
#define ORC_ERR_NOT_A_REALM (-41007)
/** The file was written by a newer, unknown ORCore format version. */
#define ORC_ERR_FORMAT_VERSION (-41008)
/** The stored schema cannot be read, or a schema change is not allowed. */
#define ORC_ERR_SCHEMA (-41009)
/** The map could not grow (the disk is full, or growth was blocked by open transactions). */
#define ORC_ERR_MAP_FULL (-41010)
/** The operation would deadlock or the resource is in use (a second write transaction on one thread, too many readers). */
#define ORC_ERR_BUSY (-41011)
/** A query program is malformed; the message gives the byte offset. */
#define ORC_ERR_QUERY (-41012)
/** An index into a collection is out of range. */
#define ORC_ERR_OUT_OF_RANGE (-41013)
/** A log entry was trimmed and is no longer available. */
#define ORC_ERR_TRIMMED (-41014)
/** The transaction is no longer usable (an earlier failure inside it, or it already ended). */
#define ORC_ERR_BAD_TXN (-41015)
/** Memory could not be allocated. */
#define ORC_ERR_NOMEM (-41016)
/** An embedded object's ownership rule was broken (a second parent, or a dangling embedded object). */
#define ORC_ERR_EMBEDDED (-41017)
/** The lock file belongs to an incompatible LMDB build or is unreadable. */
#define ORC_ERR_INCOMPATIBLE_LOCK (-41018)
/** An internal invariant failed; this is a bug in ORCore. */
#define ORC_ERR_INTERNAL (-41019)

/** The lowest and highest ORCore status codes (inclusive). */
#define ORC_ERR_FIRST ORC_ERR_INTERNAL
#define ORC_ERR_LAST ORC_ERR_NOT_FOUND

/**
 * The name and meaning of a status code ("ORC_ERR_NOT_FOUND: not found"), or
 * strerror()'s text for an errno value. Cannot fail; the string is static.
 */
const char *orc_strerror(int status);

/**
 * The message of the calling thread's last failure, starting with the code's
 * name ("ORC_ERR_EXISTS: primary key 'x' already exists in class 'Task'").
 * Never NULL; "" when nothing has failed on this thread. Valid until the
 * thread's next failing ORCore call.
 */
const char *orc_last_error(void);

/** The last failure's status code on this thread (ORC_OK when none). */
int orc_last_status(void);

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

/** Value and property types. The numeric values are part of the file format. */
typedef enum orc_type {
    ORC_TYPE_NULL = 0,      /**< the null value (a value type only) */
    ORC_TYPE_BOOL = 1,
    ORC_TYPE_INT = 2,       /**< 64-bit signed integer */
    ORC_TYPE_FLOAT = 3,
    ORC_TYPE_DOUBLE = 4,
    ORC_TYPE_STRING = 5,    /**< UTF-8 bytes, not NUL-terminated, may contain NUL */
    ORC_TYPE_BINARY = 6,
    ORC_TYPE_TIMESTAMP = 7, /**< seconds and nanoseconds since 1970-01-01 UTC */
    ORC_TYPE_DECIMAL = 8,   /**< IEEE 754-2008 decimal128, binary integer decimal encoding */
    ORC_TYPE_OBJECT_ID = 9, /**< 12 bytes */
    ORC_TYPE_UUID = 10,     /**< 16 bytes */
    ORC_TYPE_LINK = 11,     /**< a link to an object: table id and object key */
    ORC_TYPE_MIXED = 12     /**< a property type only: holds a value of any other type */
} orc_type;

/**
 * A point in time. `nanoseconds` is in -999,999,999 ... 999,999,999 and has
 * the same sign as `seconds` (or either sign when seconds is 0).
 */
typedef struct orc_timestamp {
    int64_t seconds;
    int32_t nanoseconds;
} orc_timestamp;

/** decimal128 in the BID encoding: w[0] holds the low 64 bits, w[1] the high 64 bits. */
typedef struct orc_decimal128 {
    uint64_t w[2];
} orc_decimal128;

/** A typed value. Only the member named by `type` is meaningful. */
typedef struct orc_value {
    orc_type type;
    union {
        bool boolean;
        int64_t integer;
        float fnum;
        double dnum;
        struct {
            const char *data;
            size_t size;
        } string; /**< for ORC_TYPE_STRING and ORC_TYPE_BINARY */
        orc_timestamp timestamp;
        orc_decimal128 decimal;
        uint8_t object_id[12];
        uint8_t uuid[16];
        struct {
            uint32_t table;
            uint64_t key;
        } link;
    };
} orc_value;

/** A growable array of object keys, filled by ORCore. Free with orc_keys_free(). */
typedef struct orc_keys {
    uint64_t *keys;
    size_t count;
    size_t capacity;
} orc_keys;

/** The longest string primary key, in bytes (longer ones are ORC_ERR_INVALID_ARG). */
#define ORC_MAX_PK_STRING 256

/** Frees the array's storage and zeroes it. Cannot fail; NULL is ignored. */
void orc_keys_free(orc_keys *keys);

/**
 * Three-way comparison in ORCore's value order (the order of sets, sorting and
 * indexes): null first; numbers (int, float, double, decimal) compared by value
 * across types (int against double exactly; -0.0 equals 0; NaN of any numeric
 * type equals NaN and sorts below every other number, -infinity included; a
 * decimal against a float or double compares with the shortest decimal that
 * reads back as that double, integral doubles exactly); then bools
 * (false < true), strings (UTF-8 bytes, unsigned, a prefix first), binaries
 * (likewise), timestamps (seconds, then nanoseconds), ObjectIds and UUIDs
 * (bytes), links (table, then key). Values of different kinds order by kind.
 * Returns <0, 0 or >0. Cannot fail.
 */
int orc_value_compare(const orc_value *a, const orc_value *b);

/* ------------------------------------------------------------------------ */
/* Environments                                                             */
/* ------------------------------------------------------------------------ */

typedef struct orc_env orc_env;

/** orc_env_open flags. */
enum {
    /** Open read-only: write transactions fail with ORC_ERR_READ_ONLY. The file must exist. */
    ORC_ENV_READ_ONLY = 0x1,
    /** Do not fsync on commit (for in-memory realms and scratch files). A crash may lose recent commits. */
    ORC_ENV_NO_SYNC = 0x2,
    /** Fail with ORC_ERR_NOT_FOUND instead of creating a missing file. */
    ORC_ENV_NO_CREATE = 0x4,
    /**
     * Sync data on commit but not the meta page: a system crash may lose the
     * last commit but never corrupts the file. The "faster durability" mode.
     */
    ORC_ENV_NO_META_SYNC = 0x8,
    /** Verify every page's structure on open (slower; used for files of unknown origin). */
    ORC_ENV_VERIFY = 0x10,
    /**
     * Keep no changeset log: commits still record their changes (map growth
     * replays them) but store none, and a commit empties the log of what an
     * earlier open kept. For a file whose history is kept elsewhere (the sync
     * server's store); orc_log_get then reports ORC_ERR_TRIMMED.
     */
    ORC_ENV_NO_LOG = 0x20,
    /**
     * Keep a large changeset (4 MiB or more before compression: a bulk insert)
     * only while a consumer holds the log (orc_log_hold); with no hold,
     * nobody could read it, so its commit stores nothing and empties the log.
     * Smaller changesets are kept as always. For files no sync client uses.
     */
    ORC_ENV_LEAN_LOG = 0x40,
};

/** Options for orc_env_open(); zero-initialise and set what you need. */
typedef struct orc_env_options {
    /** Initial map size in bytes; 0 for the default. The map grows on demand beyond it. */
    size_t initial_map_size;
    /** Maximum simultaneous read transactions across processes; 0 for the default (510). */
    unsigned max_readers;
    /** File mode for a new file; 0 for 0644. */
    unsigned file_mode;
} orc_env_options;

/**
 * Opens (creating unless ORC_ENV_NO_CREATE) the realm file at `path`.
 * `options` may be NULL. Opening a file this process already has open shares
 * the environment; the flags of the first open win except ORC_ENV_READ_ONLY,
 * ORC_ENV_NO_LOG and ORC_ENV_LEAN_LOG, which apply per handle (to the
 * transactions begun on it).
 *
 * Returns ORC_OK, ORC_ERR_NOT_FOUND (missing and NO_CREATE or READ_ONLY),
 * ORC_ERR_NOT_A_REALM, ORC_ERR_CORRUPT (damaged or truncated),
 * ORC_ERR_FORMAT_VERSION, ORC_ERR_SCHEMA, ORC_ERR_INCOMPATIBLE_LOCK,
 * ORC_ERR_INVALID_ARG, ORC_ERR_NOMEM, or an errno value (EACCES, ...).
 */
int orc_env_open(const char *path, unsigned flags, const orc_env_options *options, orc_env **out);

/**
 * Closes a handle. Transactions begun on it must have ended. The shared
 * environment closes with its last handle. Cannot fail; NULL is ignored.
 */
void orc_env_close(orc_env *env);

/** The path the handle was opened with. Cannot fail. */
const char *orc_env_path(const orc_env *env);

/** The last committed version (0 for a new, never-written file). Returns ORC_OK or an LMDB error. */
int orc_env_version(orc_env *env, uint64_t *version_out);

/** Statistics of an environment. */
typedef struct orc_env_info {
    size_t map_size;      /**< current map size in bytes */
    size_t used_bytes;    /**< bytes of the file in use (last page) */
    size_t page_size;
    unsigned readers;     /**< read slots in use across processes */
    uint64_t version;
} orc_env_info;

/** Fills `info`. Returns ORC_OK or an LMDB error. */
int orc_env_info_get(orc_env *env, orc_env_info *info);

/**
 * Writes a compacted copy of the latest committed state to `dest_path`, which
 * must not exist. The copy is a complete realm (schema, objects, indexes, log,
 * metadata). Returns ORC_OK, ORC_ERR_EXISTS, or an errno value.
 */
int orc_env_copy(orc_env *env, const char *dest_path);

/**
 * Verifies the environment in a read transaction. First the file's pages, as
 * ORC_ENV_VERIFY checks them at open (meta pages, every B-tree, the free
 * list); damage there counts as one problem and ends the check, since reading
 * on through LMDB could crash. Then its logical consistency: every secondary
 * and primary-key index entry matches its row and every row its entries,
 * primary keys are unique, links and collection links point at live objects,
 * backlinks match links, embedded objects have exactly one parent, per-table
 * counts match, and the changeset log is contiguous.
 * Returns ORC_OK, ORC_ERR_CORRUPT (the message names the first problem and
 * `problems_out`, if not NULL, receives how many were found), an errno value
 * (the file could not be read), or an LMDB error.
 */
int orc_env_check(orc_env *env, size_t *problems_out);

/**
 * Removes a realm file and its lock file. The file must not be open in this
 * process. Returns ORC_OK (also when nothing existed), ORC_ERR_BUSY, or an
 * errno value.
 */
int orc_env_delete_files(const char *path);

/* ------------------------------------------------------------------------ */
/* Transactions                                                             */
/* ------------------------------------------------------------------------ */

typedef struct orc_txn orc_txn;

enum {
    ORC_TXN_READ = 0,
    ORC_TXN_WRITE = 1,
};

/**
 * Begins a transaction. A write transaction waits for the writer lock (held
 * by another thread or process) and sees the latest version.
 * Returns ORC_OK, ORC_ERR_READ_ONLY (write on a read-only handle),
 * ORC_ERR_BUSY (this thread already has a write transaction on this
 * environment, or the reader table is full), ORC_ERR_MAP_FULL, ORC_ERR_NOMEM,
 * EIO (the environment stopped after a failed write: see orc_txn_commit),
 * or an LMDB error.
 */
int orc_txn_begin(orc_env *env, int kind, orc_txn **out);

/**
 * Commits a write transaction (a read transaction simply ends) and frees it.
 * On success `version_out` (may be NULL) receives the new version. On failure
 * the transaction is aborted and freed; nothing of it is visible.
 *
 * I/O errors and a full disk (EIO, ENOSPC, EFBIG): when writing or syncing
 * the transaction's pages fails, the file stays at the previous commit and
 * the environment stays usable. When writing the commit record itself (LMDB's
 * meta page) fails, the environment stops: every later orc_txn_begin on it
 * returns EIO until every handle on the file is closed and the file is opened
 * again. Opened again, the file holds the previous commit, or this one when
 * the failed write reached the file after all (a synchronous write can fail
 * in its flush after its bytes were stored) — whole either way, never in part.
 * The fault tests (Tests/ORCoreFaults, docs/RELIABILITY.md) check all this.
 *
 * Returns ORC_OK, ORC_ERR_BAD_TXN, ORC_ERR_MAP_FULL, or an errno value (EIO,
 * ENOSPC, EFBIG).
 */
int orc_txn_commit(orc_txn *txn, uint64_t *version_out);

/** Ends a transaction without committing and frees it. Cannot fail; NULL is ignored. */
void orc_txn_abort(orc_txn *txn);

/** The version this transaction reads (for a write transaction: the version it started from). Cannot fail. */
uint64_t orc_txn_version(const orc_txn *txn);

/** True for a write transaction. Cannot fail. */
bool orc_txn_is_write(const orc_txn *txn);

/**
 * A counter that changes whenever pointers returned by reads in this
 * transaction may have become invalid (every write increments it). Cannot fail.
 */
uint64_t orc_txn_generation(const orc_txn *txn);

/**
 * Renews a read transaction to the latest version without freeing it
 * (cheaper than abort + begin). Returns ORC_OK, ORC_ERR_INVALID_ARG (a write
 * transaction), or an LMDB error.
 */
int orc_txn_renew(orc_txn *txn);

/* ------------------------------------------------------------------------ */
/* Metadata: small named values stored in the file                          */
/* ------------------------------------------------------------------------ */

/**
 * Reads a named metadata value (names starting with "orc." are reserved).
 * `*data_out` is valid as read pointers are (see LIFETIMES).
 * Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_INVALID_ARG.
 */
int orc_meta_get(orc_txn *txn, const char *name, const void **data_out, size_t *size_out);

/** Sets (size > 0 or data non-NULL) a named metadata value in a write transaction. Not logged. */
int orc_meta_set(orc_txn *txn, const char *name, const void *data, size_t size);

/** Removes a named metadata value. Returns ORC_OK (also when absent), ORC_ERR_READ_ONLY. */
int orc_meta_delete(orc_txn *txn, const char *name);

/* ------------------------------------------------------------------------ */
/* Schema                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum orc_class_kind {
    ORC_CLASS_TOP_LEVEL = 0,
    ORC_CLASS_EMBEDDED = 1,   /**< objects exist only as the value of one parent's link */
    ORC_CLASS_ASYMMETRIC = 2, /**< create-only objects (upload-only in sync) */
} orc_class_kind;

typedef enum orc_collection {
    ORC_COLL_NONE = 0,
    ORC_COLL_LIST = 1,
    ORC_COLL_SET = 2,
    ORC_COLL_DICT = 3,
} orc_collection;

/** Property flags. */
enum {
    ORC_PROP_OPTIONAL = 0x1,    /**< values (or collection elements) may be null */
    ORC_PROP_PRIMARY_KEY = 0x2, /**< at most one per class; int, string, ObjectId or UUID, no collection */
    ORC_PROP_INDEXED = 0x4,     /**< keep a secondary index; bool, int, string, timestamp, ObjectId, UUID, mixed */
};

/** A property to add. For ORC_TYPE_LINK, `link_table` names the target class. */
typedef struct orc_prop_spec {
    const char *name;
    orc_type type;
    orc_collection collection;
    uint32_t flags;
    uint32_t link_table;
} orc_prop_spec;

/** A stored property. `name` is valid for the transaction's lifetime. */
typedef struct orc_prop_info {
    const char *name;
    uint16_t col;
    orc_type type;
    orc_collection collection;
    uint32_t flags;
    uint32_t link_table;
} orc_prop_info;

/** A stored class. `name` is valid for the transaction's lifetime. */
typedef struct orc_class_info {
    const char *name;
    uint32_t table;
    orc_class_kind kind;
    int32_t pk_col;        /**< the primary key's column, or -1 */
    uint32_t prop_count;   /**< live properties */
} orc_class_info;

/** The number of classes. Cannot fail. */
uint32_t orc_schema_class_count(orc_txn *txn);
/** The i-th class, in table id order. Returns ORC_OK or ORC_ERR_OUT_OF_RANGE. */
int orc_schema_class_at(orc_txn *txn, uint32_t i, orc_class_info *out);
/** The class named `name`. Returns ORC_OK or ORC_ERR_NOT_FOUND. */
int orc_schema_class_find(orc_txn *txn, const char *name, orc_class_info *out);
/** The class with table id `table`. Returns ORC_OK or ORC_ERR_NOT_FOUND. */
int orc_schema_class_get(orc_txn *txn, uint32_t table, orc_class_info *out);
/** The i-th live property of a class, in column order. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_OUT_OF_RANGE. */
int orc_schema_prop_at(orc_txn *txn, uint32_t table, uint32_t i, orc_prop_info *out);
/** A property by name. Returns ORC_OK or ORC_ERR_NOT_FOUND. */
int orc_schema_prop_find(orc_txn *txn, uint32_t table, const char *name, orc_prop_info *out);
/** A property by column id. Returns ORC_OK or ORC_ERR_NOT_FOUND (no such or removed column). */
int orc_schema_prop_get(orc_txn *txn, uint32_t table, uint16_t col, orc_prop_info *out);

/**
 * Adds a class in a write transaction. Returns ORC_OK, ORC_ERR_EXISTS,
 * ORC_ERR_INVALID_ARG (empty or too long name, bad kind), ORC_ERR_READ_ONLY.
 */
int orc_class_add(orc_txn *txn, const char *name, orc_class_kind kind, uint32_t *table_out);
/** Removes a class and all its objects (links to them become null). Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_SCHEMA (other classes link to it). */
int orc_class_remove(orc_txn *txn, uint32_t table);
/** Renames a class. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_EXISTS, ORC_ERR_INVALID_ARG. */
int orc_class_rename(orc_txn *txn, uint32_t table, const char *new_name);
/**
 * Makes `col` the primary key (or removes the primary key when col is -1),
 * rebuilding the primary-key index. Returns ORC_OK, ORC_ERR_NOT_FOUND,
 * ORC_ERR_WRONG_TYPE, ORC_ERR_EXISTS (existing values are not unique).
 */
int orc_class_set_primary_key(orc_txn *txn, uint32_t table, int32_t col);

/**
 * Adds a property; existing objects read it as null (optional) or the type's
 * zero value. Returns ORC_OK, ORC_ERR_EXISTS, ORC_ERR_INVALID_ARG,
 * ORC_ERR_WRONG_TYPE (a flag that does not fit the type), ORC_ERR_NOT_FOUND
 * (link target), ORC_ERR_SCHEMA (a primary key on a class that has objects
 * whose values are not unique, or a second primary key).
 */
int orc_prop_add(orc_txn *txn, uint32_t table, const orc_prop_spec *spec, uint16_t *col_out);
/** Removes a property and its values. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_SCHEMA (the primary key). */
int orc_prop_remove(orc_txn *txn, uint32_t table, uint16_t col);
/** Renames a property; values stay. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_EXISTS, ORC_ERR_INVALID_ARG. */
int orc_prop_rename(orc_txn *txn, uint32_t table, uint16_t col, const char *new_name);
/** Adds or drops the secondary index of a property. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_WRONG_TYPE. */
int orc_prop_set_indexed(orc_txn *txn, uint32_t table, uint16_t col, bool indexed);

/* ------------------------------------------------------------------------ */
/* Objects                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * Creates an object of a top-level or asymmetric class. `cols`/`values` give
 * initial values (n may be 0); properties not given read as null or zero.
 * If the class has a primary key its value must be among them (null is a
 * valid key for an optional primary key; a string key has at most
 * ORC_MAX_PK_STRING bytes). Collections and embedded objects
 * cannot be given here. Returns ORC_OK, ORC_ERR_EXISTS (duplicate primary
 * key), ORC_ERR_INVALID_ARG (primary key missing, embedded class, a column
 * twice), ORC_ERR_NOT_FOUND (class or column), ORC_ERR_WRONG_TYPE,
 * ORC_ERR_NOT_NULLABLE, ORC_ERR_READ_ONLY.
 */
int orc_obj_create(orc_txn *txn, uint32_t table, const uint16_t *cols, const orc_value *values,
                   size_t n, uint64_t *key_out);

/**
 * Creates an embedded object as the value of a parent's property: a single
 * link (`index` ignored, the previous embedded object is erased), a list
 * (inserted at `index`), or a dictionary (at key `dict_key`, replacing and
 * erasing the previous value). Returns ORC_OK, ORC_ERR_WRONG_TYPE (the
 * property does not link to an embedded class), ORC_ERR_OUT_OF_RANGE,
 * ORC_ERR_NOT_FOUND, ORC_ERR_READ_ONLY.
 */
int orc_obj_create_embedded(orc_txn *txn, uint32_t parent_table, uint64_t parent_key, uint16_t col,
                            size_t index, const orc_value *dict_key, uint64_t *child_key_out);

/** Whether an object exists. Cannot fail (false for unknown tables). */
bool orc_obj_exists(orc_txn *txn, uint32_t table, uint64_t key);

/** Finds an object by primary key. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_WRONG_TYPE, ORC_ERR_INVALID_ARG (no primary key). */
int orc_obj_find(orc_txn *txn, uint32_t table, const orc_value *pk, uint64_t *key_out);

/**
 * Reads one property without decoding the rest of the row.
 * Returns ORC_OK, ORC_ERR_NOT_FOUND (object or column), ORC_ERR_WRONG_TYPE
 * (a collection property), ORC_ERR_CORRUPT.
 */
int orc_obj_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, orc_value *out);

/**
 * Sets one property. Setting the primary key of an existing object is
 * ORC_ERR_INVALID_ARG unless the value is unchanged. Setting a link to an
 * embedded object is ORC_ERR_EMBEDDED (use orc_obj_create_embedded); setting
 * it to null erases the embedded object. Returns ORC_OK, ORC_ERR_NOT_FOUND,
 * ORC_ERR_WRONG_TYPE, ORC_ERR_NOT_NULLABLE, ORC_ERR_INVALID_ARG,
 * ORC_ERR_READ_ONLY.
 */
int orc_obj_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value);

/** Sets several properties with one row rewrite. Same rules and results as orc_obj_set. */
int orc_obj_set_many(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols,
                     const orc_value *values, size_t n);

/**
 * Adds `delta` to an int property (or an int held by a mixed property),
 * recorded as an addition so that concurrent additions commute in sync.
 * Returns ORC_OK, ORC_ERR_WRONG_TYPE (not an int, or null), ORC_ERR_NOT_FOUND.
 */
int orc_obj_add_int(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, int64_t delta);

/**
 * Erases an object: links to it become null, list and set entries of it are
 * removed, dictionary values of it become null, and the embedded objects it
 * owns are erased with it. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_READ_ONLY.
 */
int orc_obj_erase(orc_txn *txn, uint32_t table, uint64_t key);

/**
 * The key of the first object of a table whose key is above `after` (0 for the
 * table's first object), in `*key_out`. Walks the table in key order without a
 * list of its keys: in a read transaction, a call whose `after` is the key it
 * returned last steps one row further, and the properties of the object it
 * returns are then read (orc_obj_get) without another lookup. In a write
 * transaction every call searches from the root. Returns ORC_OK,
 * ORC_ERR_NOT_FOUND (no object above `after`, or no such table),
 * ORC_ERR_INVALID_ARG, ORC_ERR_CORRUPT.
 */
int orc_obj_next(orc_txn *txn, uint32_t table, uint64_t after, uint64_t *key_out);

/** The number of objects in a table. Returns ORC_OK or ORC_ERR_NOT_FOUND. */
int orc_table_count(orc_txn *txn, uint32_t table, uint64_t *count_out);

/** Erases every object of a table (as orc_obj_erase does, one by one). Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_READ_ONLY. */
int orc_table_clear(orc_txn *txn, uint32_t table);

/** Appends the keys of every object of a table, in key order, to `out`. Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_NOMEM. */
int orc_table_keys(orc_txn *txn, uint32_t table, orc_keys *out);

/**
 * For objects that link to (table, key) through property `origin_col` of
 * class `origin_table` (a link, list, set, dictionary or mixed property):
 * appends their keys to `out`, once per object, in key order.
 * Returns ORC_OK, ORC_ERR_NOT_FOUND, ORC_ERR_NOMEM.
 */
int orc_obj_backlinks(orc_txn *txn, uint32_t table, uint64_t key, uint32_t origin_table,
                      uint16_t origin_col, orc_keys *out);

/** The number of objects linking to (table, key) from any property of any class. Returns ORC_OK, ORC_ERR_NOT_FOUND. */
int orc_obj_backlink_count(orc_txn *txn, uint32_t table, uint64_t key, uint64_t *count_out);

/* ------------------------------------------------------------------------ */
/* Row cursor: fast sequential reads                                        */
/* ------------------------------------------------------------------------ */

typedef struct orc_row orc_row;

/**
 * Opens a row reader on a table. orc_row_seek positions it on an object; a
 * seek to a key just after the current one walks forward instead of searching
 * from the root, so reading objects in key order costs about as much as an
 * LMDB cursor step. Returns ORC_OK, ORC_ERR_NOT_FOUND (table), ORC_ERR_NOMEM.
 */
int orc_row_open(orc_txn *txn, uint32_t table, orc_row **out);
/** Positions on object `key`. Returns ORC_OK or ORC_ERR_NOT_FOUND. */
int orc_row_seek(orc_row *row, uint64_t key);
/** Moves to the next object in key order. Returns ORC_OK or ORC_ERR_NOT_FOUND at the end. */
int orc_row_next(orc_row *row);
/** The current object's key. Cannot fail (0 when not positioned). */
uint64_t orc_row_key(const orc_row *row);
/** Reads a property of the current object, as orc_obj_get does. */
int orc_row_get(orc_row *row, uint16_t col, orc_value *out);
/** Closes the reader. Cannot fail; NULL is ignored. Must happen before the transaction ends. */
void orc_row_close(orc_row *row);

/* ------------------------------------------------------------------------ */
/* Collections (list, set, dictionary properties)                          */
/* ------------------------------------------------------------------------ */
/*
 * All take the owning object (table, key) and the collection property's
 * column. Every call returns ORC_ERR_NOT_FOUND for a missing object or column
 * and ORC_ERR_WRONG_TYPE when the property is not a collection of the kind the
 * call needs or a value has the wrong type; writes return ORC_ERR_READ_ONLY in
 * a read transaction. Links in collections name their target's key; a link
 * value's table is checked against the property's target.
 */

/** The number of elements of any collection. */
int orc_coll_size(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t *size_out);
/** The element at position i: list order, set value order, or dictionary key order (the value). ORC_ERR_OUT_OF_RANGE past the end. */
int orc_coll_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, orc_value *out);
/** The position of the first element equal to `value` (dictionaries: by value). ORC_ERR_NOT_FOUND when absent. */
int orc_coll_find(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value, size_t *index_out);
/** Removes every element (embedded elements are erased). */
int orc_coll_clear(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col);

/** Inserts at position i (0 ... size). ORC_ERR_OUT_OF_RANGE past size; ORC_ERR_EMBEDDED for a link to an embedded class. */
int orc_list_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value);
/**
 * Inserts n values at positions i, i + 1, ..., i + n - 1 (i in 0 ... size), as n calls
 * of orc_list_insert would, recording n inserts, but rewriting the list once. Nothing
 * changes when a value is refused (the same errors as orc_list_insert).
 */
int orc_list_insert_many(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *values,
                         size_t n);
/** Replaces position i. ORC_ERR_OUT_OF_RANGE. Replacing an embedded element erases it. */
int orc_list_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value);
/** Removes position i (an embedded element is erased). ORC_ERR_OUT_OF_RANGE. */
int orc_list_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i);
/** Moves the element at `from` so that it ends at `to`. ORC_ERR_OUT_OF_RANGE. */
int orc_list_move(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t from, size_t to);

/** Adds a value to a set; `inserted_out` (may be NULL) tells whether it was new. */
int orc_set_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value, bool *inserted_out);
/** Removes a value from a set; `erased_out` (may be NULL) tells whether it was there. */
int orc_set_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value, bool *erased_out);

/** The dictionary key at position i (key order), as a string value. ORC_ERR_OUT_OF_RANGE. */
int orc_dict_key_at(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, orc_value *key_out);
/** The value at a dictionary key. ORC_ERR_NOT_FOUND when absent. */
int orc_dict_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len, orc_value *out);
/** Sets a dictionary key (keys are non-empty UTF-8 strings without '.' prefix '$'). ORC_ERR_INVALID_ARG for a bad key. */
int orc_dict_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len, const orc_value *value);
/** Removes a dictionary key; `erased_out` (may be NULL) tells whether it was there. */
int orc_dict_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len, bool *erased_out);

/* ------------------------------------------------------------------------ */
/* Queries                                                                  */
/* ------------------------------------------------------------------------ */
/*
 * A query is a PROGRAM of bytes: one predicate, then zero or more
 * descriptors, applied in order. Integers are little-endian. Grammar:
 *
 *   program    := pred descriptor*
 *   pred       := 0x01 AND   u32 n  pred{n}         (n = 0 is true)
 *               | 0x02 OR    u32 n  pred{n}         (n = 0 is false)
 *               | 0x03 NOT   pred
 *               | 0x04 TRUE
 *               | 0x05 FALSE
 *               | 0x06 CMP   u8 op  u8 flags  u8 quantifier  expr expr
 *               | 0x07 GEOWITHIN path path shape  (see below)
 *   expr       := 0x10 PATH  path
 *               | 0x11 CONST value
 *               | 0x12 LIST  u32 n value{n}       (the right side of IN and BETWEEN)
 *               | 0x13 SUBQUERY path pred         (the number of objects of a
 *                                                  link collection matching pred,
 *                                                  evaluated on the target class)
 *   path       := u8 nsteps step{nsteps} u8 agg   (nsteps = 0: the object itself, as a link)
 *   step       := 0x00 u16 col                    (a property; links are followed)
 *               | 0x01 u32 origin_table u16 origin_col   (backlinks: objects linking here)
 *               | 0x02 u32 len bytes              (a dictionary's value at a key)
 *   agg        := 0 none | 1 @count | 2 @size | 3 @min | 4 @max | 5 @sum | 6 @avg
 *               | 7 @keys (a dictionary's keys) | 8 @values (a dictionary's values)
 *   value      := u8 type payload                 (type is an orc_type:
 *                 NULL: nothing; BOOL: u8; INT: i64; FLOAT: f32; DOUBLE: f64;
 *                 STRING, BINARY: u32 len bytes; TIMESTAMP: i64 s, i32 ns;
 *                 DECIMAL: u64 low, u64 high; OBJECT_ID: 12 bytes; UUID: 16 bytes;
 *                 LINK: u32 table, u64 key)
 *   shape      := 0x01 BOX     f64 lng f64 lat f64 lng f64 lat   (bottom-left, top-right corners)
 *               | 0x02 POLYGON u32 nrings (u32 npoints (f64 lng f64 lat f64 alt){npoints}){nrings}
 *                                                 (the outer ring, then the holes; each ring closed)
 *               | 0x03 CIRCLE  f64 lng f64 lat f64 alt f64 radius_in_radians
 *   descriptor := 0x20 SORT u8 n (path u8 ascending){n}
 *               | 0x21 DISTINCT u8 n path{n}
 *               | 0x22 LIMIT u64 n
 *
 * A path yields the values reached from an object: one value for a plain
 * property, any number through collections and to-many links. A CMP is true
 * when, per its quantifier (ANY by default for a path of many values, ALL or
 * NONE when given), the values of the left expression compare as `op` says
 * with the right expression (a right path of many values: any pair). A path
 * through a null link yields nothing (and compares to null as null). @count /
 * @size yield the collection's size, @min / @max / @sum / @avg one number.
 * Strings compare by UTF-8 bytes; with ORC_CMP_CASE_INSENSITIVE they compare
 * after simple Unicode case folding and with ORC_CMP_DIACRITIC_INSENSITIVE
 * after removing Latin, Greek and Cyrillic diacritics. LIKE takes `*` (any
 * run) and `?` (one character). Null equals only null; ordering comparisons
 * with null are false. Numbers compare across int, float, double and decimal.
 * An aggregate at the end of a path reduces every value the path reaches from
 * one object (`items.price` with @sum sums the prices of all linked items);
 * @count / @size of a string or binary is its length in bytes. A query is
 * used by one thread at a time (it keeps scratch buffers).
 *
 * GEOWITHIN asks whether an object's location lies in a shape on the
 * sphere. The location is an embedded object shaped like a GeoJSON point:
 * its first path reaches the location's `type` (a string property), its
 * second its `coordinates` (a list of doubles: longitude, latitude, and an
 * ignored altitude), both through the same single link (no collection on
 * the way; ORC_ERR_WRONG_TYPE otherwise). It matches when the type is
 * "Point" in any case and the first two coordinates are a valid longitude
 * and latitude inside the shape: a box of latitudes and longitudes (edges
 * included; the box crosses the antimeridian when its left longitude is
 * greater than its right one), a polygon whose edges are great-circle arcs
 * (inside the outer ring and no hole), a circle of every point within the
 * radius's angle of the centre. A null link or another shape never matches.
 * A region that is not valid (a box whose bottom is above its top, a
 * negative radius, a ring not closed or with fewer than 3 distinct
 * vertices, edges that cross, a hole outside the outer ring or inside
 * another hole, an edge in two rings, more than 10,000 points) is
 * ORC_ERR_INVALID_ARG at compile time, the message naming the shape and why.
 *
 * The planner uses a secondary index when an indexed property is compared
 * with EQ, IN, BETWEEN or an ordering operator against non-null constants of
 * its own type at the top level (directly or inside a top-level AND), and the
 * primary-key index for EQ and IN; null constants and numbers compared with a
 * mixed property are left to a scan. Results never depend on the plan.
 */

/** CMP operators. */
enum {
    ORC_CMP_EQ = 1, ORC_CMP_NE = 2, ORC_CMP_LT = 3, ORC_CMP_LE = 4, ORC_CMP_GT = 5, ORC_CMP_GE = 6,
    ORC_CMP_BEGINS_WITH = 7, ORC_CMP_ENDS_WITH = 8, ORC_CMP_CONTAINS = 9, ORC_CMP_LIKE = 10,
    ORC_CMP_IN = 11,      /**< right side a LIST: equal to one of its values */
    ORC_CMP_BETWEEN = 12, /**< right side a LIST of two: lower <= x <= upper */
};
/** CMP flags. */
enum { ORC_CMP_CASE_INSENSITIVE = 0x1, ORC_CMP_DIACRITIC_INSENSITIVE = 0x2 };
/** CMP quantifiers. */
enum { ORC_Q_DEFAULT = 0, ORC_Q_ANY = 1, ORC_Q_ALL = 2, ORC_Q_NONE = 3 };
/** Program opcodes. */
enum {
    ORC_OP_AND = 0x01, ORC_OP_OR = 0x02, ORC_OP_NOT = 0x03, ORC_OP_TRUE = 0x04, ORC_OP_FALSE = 0x05,
    ORC_OP_CMP = 0x06, ORC_OP_GEO_WITHIN = 0x07, ORC_EXPR_PATH = 0x10, ORC_EXPR_CONST = 0x11, ORC_EXPR_LIST = 0x12,
    ORC_EXPR_SUBQUERY = 0x13, ORC_DESC_SORT = 0x20, ORC_DESC_DISTINCT = 0x21, ORC_DESC_LIMIT = 0x22,
};
enum { ORC_STEP_PROP = 0x00, ORC_STEP_BACKLINK = 0x01, ORC_STEP_DICT_KEY = 0x02 };
/** Aggregates, in paths and for orc_query_aggregate. */
typedef enum orc_agg {
    ORC_AGG_NONE = 0, ORC_AGG_COUNT = 1, ORC_AGG_SIZE = 2, ORC_AGG_MIN = 3, ORC_AGG_MAX = 4,
    ORC_AGG_SUM = 5, ORC_AGG_AVG = 6, ORC_AGG_KEYS = 7, ORC_AGG_VALUES = 8,
} orc_agg;

typedef struct orc_query orc_query;

/**
 * Compiles a program against the schema seen by `txn` for class `table`.
 * The query may be run in later transactions while the schema stays the same.
 * Returns ORC_OK, ORC_ERR_QUERY (malformed: the message names the byte offset
 * and what was expected), ORC_ERR_NOT_FOUND (class or column),
 * ORC_ERR_WRONG_TYPE (an operator or constant that does not fit the
 * property), ORC_ERR_INVALID_ARG (a GEOWITHIN region that is not valid),
 * ORC_ERR_NOMEM.
 */
int orc_query_compile(orc_txn *txn, uint32_t table, const void *program, size_t size, orc_query **out);

/** Frees a query. Cannot fail; NULL is ignored. */
void orc_query_free(orc_query *query);

/**
 * Restricts the query to the given objects, in the given order (a list's
 * links, backlinks), instead of the whole table; keys are copied. keys NULL:
 * the whole table again; keys non-NULL and n = 0: an empty domain.
 * Returns ORC_OK or ORC_ERR_NOMEM.
 */
int orc_query_set_domain(orc_query *query, const uint64_t *keys, size_t n);

/**
 * Runs the query, appending matching keys (sorted, distinct and limited as the
 * descriptors say, else in key or domain order) to `out`. Returns ORC_OK,
 * ORC_ERR_SCHEMA (the schema changed since the query was compiled),
 * ORC_ERR_NOMEM, ORC_ERR_CORRUPT.
 */
int orc_query_run(orc_txn *txn, orc_query *query, orc_keys *out);

/** Counts matching objects (descriptors applied). Returns ORC_OK or an error as orc_query_run. */
int orc_query_count(orc_txn *txn, orc_query *query, uint64_t *count_out);

/**
 * Aggregates property `col` (int, float, double, decimal, timestamp for
 * min / max) over the matching objects: ORC_AGG_MIN, _MAX, _SUM, _AVG or
 * _COUNT (non-null values). Nulls are skipped; min / max / avg of no values
 * is null; sum of no values is 0 of the property's type. Sums of ints are
 * ints (a double when they overflow int64), of floats and doubles doubles, of
 * decimals decimals; @avg is a double, or a decimal for decimals. Returns
 * ORC_OK, ORC_ERR_WRONG_TYPE, ORC_ERR_NOT_FOUND, ORC_ERR_INVALID_ARG (an
 * aggregate kind that does not apply), ORC_ERR_SCHEMA (schema changed).
 */
int orc_query_aggregate(orc_txn *txn, orc_query *query, uint16_t col, orc_agg agg, orc_value *out);

/** Whether the last orc_query_run/count of this query used an index (for tests and explain). Cannot fail. */
bool orc_query_used_index(const orc_query *query);

/* ------------------------------------------------------------------------ */
/* The changeset log                                                        */
/* ------------------------------------------------------------------------ */
/*
 * A changeset is a sequence of instructions. Object instructions name the
 * object by (table, key) and, for classes with a primary key, by its value.
 * Instructions flagged ORC_INSTR_DERIVED are consequences of others in the
 * same changeset (a link nulled because its target was erased, an embedded
 * object erased with its parent); a consumer that replays the changeset
 * skips them, a consumer that reports changes uses them.
 */
typedef enum orc_instr_op {
    ORC_INSTR_CREATE = 1,        /**< object created; `index` SETs flagged ORC_INSTR_INITIAL follow */
    ORC_INSTR_ERASE = 2,
    ORC_INSTR_SET = 3,           /**< col = value */
    ORC_INSTR_ADD_INT = 4,       /**< col += delta */
    ORC_INSTR_LIST_INSERT = 5,   /**< col, index, value */
    ORC_INSTR_LIST_SET = 6,      /**< col, index, value */
    ORC_INSTR_LIST_ERASE = 7,    /**< col, index */
    ORC_INSTR_LIST_MOVE = 8,     /**< col, index (from), index2 (to) */
    ORC_INSTR_COLL_CLEAR = 9,    /**< col */
    ORC_INSTR_SET_INSERT = 10,   /**< col, value */
    ORC_INSTR_SET_ERASE = 11,    /**< col, value */
    ORC_INSTR_DICT_SET = 12,     /**< col, dict_key, value */
    ORC_INSTR_DICT_ERASE = 13,   /**< col, dict_key */
    ORC_INSTR_CREATE_EMBEDDED = 14, /**< parent (table, key, pk), col, index or dict_key; child_table, child_key */
    ORC_INSTR_ADD_CLASS = 20,    /**< table, name, kind */
    ORC_INSTR_REMOVE_CLASS = 21, /**< table */
    ORC_INSTR_RENAME_CLASS = 22, /**< table, name */
    ORC_INSTR_ADD_PROP = 23,     /**< table, col, name, prop_type, collection, prop_flags, link_table */
    ORC_INSTR_REMOVE_PROP = 24,  /**< table, col */
    ORC_INSTR_RENAME_PROP = 25,  /**< table, col, name */
    ORC_INSTR_SET_INDEXED = 26,  /**< table, col, prop_flags (ORC_PROP_INDEXED or 0) */
    ORC_INSTR_SET_PRIMARY_KEY = 27, /**< table, col (-1 as 0xFFFF for none) */
    ORC_INSTR_CLEAR_TABLE = 28,  /**< table (followed by derived ERASEs) */
} orc_instr_op;

enum { ORC_INSTR_DERIVED = 0x1, ORC_INSTR_INITIAL = 0x2 };

/** One decoded instruction; pointers are valid as long as the changeset bytes are. */
typedef struct orc_instr {
    orc_instr_op op;
    uint32_t flags;
    uint32_t table;
    uint64_t key;
    bool has_pk;
    orc_value pk;
    uint16_t col;
    uint64_t index;
    uint64_t index2;
    orc_value value;
    orc_value dict_key;   /**< a string value, or type NULL */
    int64_t delta;
    uint32_t child_table;
    uint64_t child_key;
    const char *name;     /**< class or property name (not NUL-terminated) */
    size_t name_len;
    orc_type prop_type;
    orc_collection collection;
    uint32_t prop_flags;
    uint32_t link_table;
    orc_class_kind kind;
} orc_instr;

/**
 * Reads the changeset of `version` (decompressed). `*data_out` is valid until
 * the transaction ends. Returns ORC_OK, ORC_ERR_NOT_FOUND (a version not yet
 * committed), ORC_ERR_TRIMMED, ORC_ERR_CORRUPT.
 */
int orc_log_get(orc_txn *txn, uint64_t version, const void **data_out, size_t *size_out);

/** The oldest version still in the log (0 when empty). Cannot fail. */
uint64_t orc_log_first_version(orc_txn *txn);

/**
 * Registers (or moves) a named consumer's position: it still needs every
 * changeset after `version`. Returns ORC_OK, ORC_ERR_INVALID_ARG, ORC_ERR_READ_ONLY.
 */
int orc_log_hold(orc_txn *txn, const char *consumer, uint64_t version);
/** Unregisters a consumer. Returns ORC_OK (also when absent), ORC_ERR_READ_ONLY. */
int orc_log_release(orc_txn *txn, const char *consumer);
/**
 * Removes changesets of versions <= `upto`, but never one a registered
 * consumer still needs. `trimmed_upto_out` (may be NULL) receives the highest
 * version actually removed (0 when none). Returns ORC_OK, ORC_ERR_READ_ONLY.
 */
int orc_log_trim(orc_txn *txn, uint64_t upto, uint64_t *trimmed_upto_out);

/** A cursor over a changeset's instructions. Zero-initialise, then orc_changeset_iter_init(). */
typedef struct orc_changeset_iter {
    const uint8_t *data;
    size_t size;
    size_t pos;
    uint64_t version;
    /* private: pending initial SETs of a CREATE */
    uint32_t pending;
    orc_instr create;
} orc_changeset_iter;

/**
 * Starts iterating changeset bytes (from orc_log_get). Returns ORC_OK or
 * ORC_ERR_CORRUPT (bad header).
 */
int orc_changeset_iter_init(orc_changeset_iter *it, const void *data, size_t size);
/**
 * Decodes the next instruction. Returns ORC_OK, ORC_ERR_NOT_FOUND at the end,
 * ORC_ERR_CORRUPT (truncated or malformed; the message gives the offset).
 */
int orc_changeset_iter_next(orc_changeset_iter *it, orc_instr *out);

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

/** "ORCore <major>.<minor>.<patch> (LMDB x.y.z, zstd x.y.z)". Cannot fail. */
const char *orc_version_string(void);

/**
 * The on-disk format version this build creates files in. It reads and writes
 * files of every format up to it, each in its own layout (a file keeps the
 * format it was created with); a file of a later format is ORC_ERR_FORMAT_VERSION.
 * 2: the version and table states moved from "meta" into LMDB's main database.
 * 3: index entries of one value grouped into chunks of object keys; primary-key
 *    entries hold the object key in as few bytes as it needs.
 */
#define ORC_FORMAT_VERSION 3

#ifdef __cplusplus
}
#endif

#endif /* ORCORE_H */
