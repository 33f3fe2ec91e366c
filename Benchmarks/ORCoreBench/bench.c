/*
 * bench.c — orcore_bench: ORCore beside raw LMDB doing the equivalent work.
 *
 * WHAT IT MEASURES
 * ================
 * The object is the docs' "Task" model:
 *
 *   _id ObjectId (primary key) | name String | owner String? | status String |
 *   assignee String (indexed)  | progressMinutes Int | isComplete Bool
 *
 * Each workload runs on ORCore and on raw LMDB, interleaved in one process
 * (ORCore, LMDB, ORCore, LMDB, ... for --rounds rounds), so both sides see
 * the same machine state; the table reports the median of the rounds.
 *
 *   1 bulk insert    N objects in one write transaction, commit included
 *   2 point read     primary key -> progressMinutes, random keys, one read txn
 *   3 scan count     progressMinutes >= 60 over every object (ns per object)
 *   4 index lookup   assignee == "name K" -> keys (ns per lookup; ORCore's
 *                    time includes compiling the query, which its callers pay
 *                    for every new constant)
 *   5 one-object commit, default durability, then ORC_ENV_NO_META_SYNC vs
 *                    MDB_NOMETASYNC (only comparable pairwise within a run:
 *                    fsync times follow the disk's load)
 *
 * THE RAW LMDB SIDE
 * =================
 * What a careful hand-written store would do, nothing cleverer:
 *
 *   "tasks"    key: the 12-byte ObjectId        value: the record below
 *   "assignee" key: assignee bytes | 0x00 | ObjectId (12)   value: empty
 *
 *   record:  offset 0  i64 LE progressMinutes
 *                   8  u8 isComplete
 *                   9  u8 len + name bytes
 *                      u8 len + owner bytes (len 0xFF = null, no bytes)
 *                      u8 len + status bytes
 *                      u8 len + assignee bytes
 *
 * Puts into "tasks" use MDB_NOOVERWRITE because ORCore enforces primary-key
 * uniqueness; both sides use default LMDB durability unless a workload says
 * otherwise. Neither side caches anything between operations: each point
 * read searches its B-trees, each lookup starts a fresh query / cursor range.
 *
 * HONESTY RULES
 * =============
 *  - Both sides generate the same objects from the same function inside the
 *    timed loop (a few ns each; it is the same constant on both sides).
 *  - Results are cross-checked (sums, counts, per-name hits); a mismatch is
 *    reported and makes the exit status 1.
 *  - Files live in a fresh mkdtemp directory (or --dir) and are removed at
 *    exit, also on a fatal error or SIGINT/SIGTERM (--keep leaves them for
 *    inspection with mdb_stat -a -n FILE).
 */
#include "orcore.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <lmdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Global state, kept global so that fatal() and the signal handler can     */
/* remove the files whatever state the run is in.                           */
/* ------------------------------------------------------------------------ */

enum { NCOLS = 7 };
enum { C_ID, C_NAME, C_OWNER, C_STATUS, C_ASSIGNEE, C_PROGRESS, C_COMPLETE };

static struct {
    char dir[PATH_MAX];
    bool own_dir;
    char orc_path[PATH_MAX], orc_lock[PATH_MAX];
    char mdb_path[PATH_MAX], mdb_lock[PATH_MAX];
    orc_env *orc;
    uint32_t table;
    uint16_t col[NCOLS];
    MDB_env *mdb;
    MDB_dbi dbi_tasks, dbi_assignee;
    size_t mdb_map_size;
    bool mismatch;
    bool keep; /* --keep: leave the files for inspection (mdb_stat -a -n FILE) */
} g;

static void remove_files_raw(void)
{
    /* Only async-signal-safe calls: this also runs from the signal handler. */
    if (g.keep)
        return;
    unlink(g.orc_path);
    unlink(g.orc_lock);
    unlink(g.mdb_path);
    unlink(g.mdb_lock);
    if (g.own_dir)
        rmdir(g.dir);
}

static void on_signal(int sig)
{
    remove_files_raw();
    _exit(128 + sig);
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "orcore_bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    /* Handles may be inside transactions here: unlink instead of closing. */
    remove_files_raw();
    exit(2);
}

/* Workload functions stay out of line so a profiler can name them (valgrind --toggle-collect=orc_scan_count). */
#define PROFILED __attribute__((noinline))

#define ORC(call)                                                                   \
    do {                                                                            \
        int orc_rc_ = (call);                                                       \
        if (orc_rc_ != ORC_OK)                                                      \
            fatal("%s:%d %s failed: %s", __FILE__, __LINE__, #call, orc_last_error()); \
    } while (0)

#define MDB(call)                                                                   \
    do {                                                                            \
        int mdb_rc_ = (call);                                                       \
        if (mdb_rc_ != MDB_SUCCESS)                                                 \
            fatal("%s:%d %s failed: %s", __FILE__, __LINE__, #call, mdb_strerror(mdb_rc_)); \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        fatal("out of memory (%zu bytes)", n);
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        fatal("out of memory (%zu bytes)", n);
    return q;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* ------------------------------------------------------------------------ */
/* Deterministic Task data                                                  */
/* ------------------------------------------------------------------------ */

typedef struct str {
    const char *s;
    size_t n;
} str;

static const char *const OWNER_NAMES[20] = {
    "Alice Johnson", "Bob Smith",     "Carol White",  "David Brown",  "Eve Davis",
    "Frank Miller",  "Grace Wilson",  "Heidi Moore",  "Ivan Taylor",  "Judy Anderson",
    "Mallory Thomas", "Niaj Jackson", "Olivia Martin", "Peggy Lee",   "Rupert Harris",
    "Sybil Clark",   "Trent Lewis",   "Uma Walker",   "Victor Hall",  "Wendy Young",
};
static const char *const STATUS_NAMES[3] = {"Open", "In Progress", "Done"};

static str OWNERS[20], STATUSES[3], ASSIGNEES[100];
static char assignee_buf[100][12];

static void data_init(void)
{
    for (int i = 0; i < 20; i++)
        OWNERS[i] = (str){OWNER_NAMES[i], strlen(OWNER_NAMES[i])};
    for (int i = 0; i < 3; i++)
        STATUSES[i] = (str){STATUS_NAMES[i], strlen(STATUS_NAMES[i])};
    for (int i = 0; i < 100; i++) {
        int n = snprintf(assignee_buf[i], sizeof assignee_buf[i], "name %d", i);
        ASSIGNEES[i] = (str){assignee_buf[i], (size_t)n};
    }
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

typedef struct task {
    uint8_t oid[12];
    char name[32];
    size_t name_len;
    int owner; /* -1: null */
    int status;
    int assignee;
    int64_t progress;
    bool complete;
} task;

/*
 * ObjectIds as one process would mint them: a timestamp that ticks every
 * 1,000 objects, a fixed 5-byte process id and a 3-byte counter, so they
 * ascend like real ones do. Unique for every i (the counter alone repeats
 * only every 2^24 objects, by which time the timestamp has moved).
 */
static void task_oid(uint64_t i, uint8_t oid[12])
{
    uint32_t ts = 0x65A00000u + (uint32_t)(i / 1000);
    uint32_t counter = (uint32_t)((0x123456u + i) & 0xFFFFFFu);
    oid[0] = (uint8_t)(ts >> 24);
    oid[1] = (uint8_t)(ts >> 16);
    oid[2] = (uint8_t)(ts >> 8);
    oid[3] = (uint8_t)ts;
    oid[4] = 0x5E; oid[5] = 0x1D; oid[6] = 0xC0; oid[7] = 0xDE; oid[8] = 0x42;
    oid[9] = (uint8_t)(counter >> 16);
    oid[10] = (uint8_t)(counter >> 8);
    oid[11] = (uint8_t)counter;
}

static void task_make(uint64_t i, task *t)
{
    uint64_t h = splitmix64(i ^ 0x7A5C0FFEEull);
    task_oid(i, t->oid);

    /* "Task <i+1>" without snprintf, which would dwarf a raw LMDB put. */
    char digits[24];
    size_t nd = 0;
    uint64_t v = i + 1;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(t->name, "Task ", 5);
    for (size_t k = 0; k < nd; k++)
        t->name[5 + k] = digits[nd - 1 - k];
    t->name_len = 5 + nd;

    uint32_t o = (uint32_t)(h % 22); /* about one task in eleven has no owner */
    t->owner = o < 20 ? (int)o : -1;
    t->status = (int)((h >> 8) % 3);
    t->assignee = (int)((h >> 16) % 100);
    t->progress = (int64_t)((h >> 32) % 120);
    t->complete = t->status == 2;
}

/* ------------------------------------------------------------------------ */
/* ORCore side                                                              */
/* ------------------------------------------------------------------------ */

static void orc_open(unsigned flags)
{
    ORC(orc_env_open(g.orc_path, flags, NULL, &g.orc));
}

static void orc_close(void)
{
    orc_env_close(g.orc);
    g.orc = NULL;
}

static void orc_create_schema(void)
{
    static const orc_prop_spec specs[NCOLS] = {
        {"_id", ORC_TYPE_OBJECT_ID, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0},
        {"name", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0},
        {"owner", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0},
        {"status", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0},
        {"assignee", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0},
        {"progressMinutes", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0},
        {"isComplete", ORC_TYPE_BOOL, ORC_COLL_NONE, 0, 0},
    };
    orc_txn *txn;
    ORC(orc_txn_begin(g.orc, ORC_TXN_WRITE, &txn));
    ORC(orc_class_add(txn, "Task", ORC_CLASS_TOP_LEVEL, &g.table));
    for (int c = 0; c < NCOLS; c++)
        ORC(orc_prop_add(txn, g.table, &specs[c], &g.col[c]));
    ORC(orc_txn_commit(txn, NULL));
}

/* Fresh file with the schema in place (not timed). */
static void orc_fresh(void)
{
    if (g.orc)
        orc_close();
    ORC(orc_env_delete_files(g.orc_path));
    orc_open(0);
    orc_create_schema();
}

static void orc_values(const task *t, orc_value v[NCOLS])
{
    v[C_ID].type = ORC_TYPE_OBJECT_ID;
    memcpy(v[C_ID].object_id, t->oid, 12);
    v[C_NAME].type = ORC_TYPE_STRING;
    v[C_NAME].string.data = t->name;
    v[C_NAME].string.size = t->name_len;
    if (t->owner < 0) {
        v[C_OWNER].type = ORC_TYPE_NULL;
    } else {
        v[C_OWNER].type = ORC_TYPE_STRING;
        v[C_OWNER].string.data = OWNERS[t->owner].s;
        v[C_OWNER].string.size = OWNERS[t->owner].n;
    }
    v[C_STATUS].type = ORC_TYPE_STRING;
    v[C_STATUS].string.data = STATUSES[t->status].s;
    v[C_STATUS].string.size = STATUSES[t->status].n;
    v[C_ASSIGNEE].type = ORC_TYPE_STRING;
    v[C_ASSIGNEE].string.data = ASSIGNEES[t->assignee].s;
    v[C_ASSIGNEE].string.size = ASSIGNEES[t->assignee].n;
    v[C_PROGRESS].type = ORC_TYPE_INT;
    v[C_PROGRESS].integer = t->progress;
    v[C_COMPLETE].type = ORC_TYPE_BOOL;
    v[C_COMPLETE].boolean = t->complete;
}

/* Creates objects first ... first+n-1 inside `txn`. */
static void orc_insert_range(orc_txn *txn, uint64_t first, size_t n)
{
    task t;
    orc_value v[NCOLS];
    uint64_t key;
    for (size_t k = 0; k < n; k++) {
        task_make(first + k, &t);
        orc_values(&t, v);
        ORC(orc_obj_create(txn, g.table, g.col, v, NCOLS, &key));
    }
}

PROFILED static uint64_t orc_bulk(size_t n)
{
    uint64_t t0 = now_ns();
    orc_txn *txn;
    ORC(orc_txn_begin(g.orc, ORC_TXN_WRITE, &txn));
    orc_insert_range(txn, 0, n);
    ORC(orc_txn_commit(txn, NULL));
    return now_ns() - t0;
}

PROFILED static uint64_t orc_point_reads(const uint8_t (*oids)[12], size_t n, int64_t *sum_out)
{
    uint64_t t0 = now_ns();
    orc_txn *txn;
    ORC(orc_txn_begin(g.orc, ORC_TXN_READ, &txn));
    int64_t sum = 0;
    orc_value pk = {.type = ORC_TYPE_OBJECT_ID}, out;
    for (size_t k = 0; k < n; k++) {
        uint64_t key;
        memcpy(pk.object_id, oids[k], 12);
        ORC(orc_obj_find(txn, g.table, &pk, &key));
        ORC(orc_obj_get(txn, g.table, key, g.col[C_PROGRESS], &out));
        if (out.type != ORC_TYPE_INT)
            fatal("point read: progressMinutes came back with type %d", (int)out.type);
        sum += out.integer;
    }
    orc_txn_abort(txn);
    *sum_out = sum;
    return now_ns() - t0;
}

static void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put_le32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put_le64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* CMP op flags quantifier | PATH 1 step (prop col) agg none | CONST. Returns the bytes written before the constant. */
static size_t prog_cmp_head(uint8_t *p, uint8_t op, uint16_t col)
{
    p[0] = ORC_OP_CMP;
    p[1] = op;
    p[2] = 0;
    p[3] = ORC_Q_DEFAULT;
    p[4] = ORC_EXPR_PATH;
    p[5] = 1;
    p[6] = ORC_STEP_PROP;
    put_le16(p + 7, col);
    p[9] = ORC_AGG_NONE;
    p[10] = ORC_EXPR_CONST;
    return 11;
}

PROFILED static uint64_t orc_scan_count(uint64_t *count_out)
{
    uint8_t prog[32];
    size_t len = prog_cmp_head(prog, ORC_CMP_GE, g.col[C_PROGRESS]);
    prog[len++] = ORC_TYPE_INT;
    put_le64(prog + len, 60);
    len += 8;

    uint64_t t0 = now_ns();
    orc_txn *txn;
    orc_query *q;
    ORC(orc_txn_begin(g.orc, ORC_TXN_READ, &txn));
    ORC(orc_query_compile(txn, g.table, prog, len, &q));
    ORC(orc_query_count(txn, q, count_out));
    orc_query_free(q);
    orc_txn_abort(txn);
    return now_ns() - t0;
}

/* The order in which lookups visit the 100 assignees (37 is prime to 100). */
static int lookup_name(size_t k) { return (int)((k * 37 + 42) % 100); }

PROFILED static uint64_t orc_index_lookups(size_t n, uint64_t hits[100], bool *used_index_out)
{
    uint8_t prog[64];
    orc_keys keys = {0};
    bool used_index = true;
    uint64_t t0 = now_ns();
    orc_txn *txn;
    ORC(orc_txn_begin(g.orc, ORC_TXN_READ, &txn));
    for (size_t k = 0; k < n; k++) {
        const str *name = &ASSIGNEES[lookup_name(k)];
        size_t len = prog_cmp_head(prog, ORC_CMP_EQ, g.col[C_ASSIGNEE]);
        prog[len++] = ORC_TYPE_STRING;
        put_le32(prog + len, (uint32_t)name->n);
        len += 4;
        memcpy(prog + len, name->s, name->n);
        len += name->n;

        orc_query *q;
        ORC(orc_query_compile(txn, g.table, prog, len, &q));
        keys.count = 0;
        ORC(orc_query_run(txn, q, &keys));
        used_index = used_index && orc_query_used_index(q);
        orc_query_free(q);
        hits[lookup_name(k)] = keys.count;
    }
    orc_txn_abort(txn);
    uint64_t dt = now_ns() - t0;
    orc_keys_free(&keys);
    *used_index_out = used_index;
    return dt;
}

PROFILED static uint64_t orc_commits(uint64_t first, size_t n)
{
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < n; k++) {
        orc_txn *txn;
        ORC(orc_txn_begin(g.orc, ORC_TXN_WRITE, &txn));
        orc_insert_range(txn, first + k, 1);
        ORC(orc_txn_commit(txn, NULL));
    }
    return now_ns() - t0;
}

/* ------------------------------------------------------------------------ */
/* Raw LMDB side                                                            */
/* ------------------------------------------------------------------------ */

static void mdb_open_env(unsigned flags)
{
    MDB(mdb_env_create(&g.mdb));
    MDB(mdb_env_set_maxdbs(g.mdb, 2));
    MDB(mdb_env_set_mapsize(g.mdb, g.mdb_map_size));
    MDB(mdb_env_open(g.mdb, g.mdb_path, MDB_NOSUBDIR | flags, 0644));
    MDB_txn *txn;
    MDB(mdb_txn_begin(g.mdb, NULL, 0, &txn));
    MDB(mdb_dbi_open(txn, "tasks", MDB_CREATE, &g.dbi_tasks));
    MDB(mdb_dbi_open(txn, "assignee", MDB_CREATE, &g.dbi_assignee));
    MDB(mdb_txn_commit(txn));
}

static void mdb_close_env(void)
{
    mdb_env_close(g.mdb);
    g.mdb = NULL;
}

static void mdb_fresh(void)
{
    if (g.mdb)
        mdb_close_env();
    if ((unlink(g.mdb_path) != 0 && errno != ENOENT) || (unlink(g.mdb_lock) != 0 && errno != ENOENT))
        fatal("cannot remove %s: %s", g.mdb_path, strerror(errno));
    mdb_open_env(0);
}

/* The record layout of the design comment. Returns its size; buf holds >= 9 + 4 * 256 bytes. */
static size_t rec_encode(const task *t, uint8_t *buf)
{
    size_t p = 0;
    put_le64(buf, (uint64_t)t->progress);
    buf[8] = t->complete;
    p = 9;
    buf[p++] = (uint8_t)t->name_len;
    memcpy(buf + p, t->name, t->name_len);
    p += t->name_len;
    if (t->owner < 0) {
        buf[p++] = 0xFF;
    } else {
        const str *o = &OWNERS[t->owner];
        buf[p++] = (uint8_t)o->n;
        memcpy(buf + p, o->s, o->n);
        p += o->n;
    }
    const str *s = &STATUSES[t->status];
    buf[p++] = (uint8_t)s->n;
    memcpy(buf + p, s->s, s->n);
    p += s->n;
    const str *a = &ASSIGNEES[t->assignee];
    buf[p++] = (uint8_t)a->n;
    memcpy(buf + p, a->s, a->n);
    p += a->n;
    return p;
}

static int64_t rec_progress(const MDB_val *v)
{
    if (v->mv_size < 9)
        fatal("raw LMDB record of %zu bytes is too short", v->mv_size);
    const uint8_t *p = v->mv_data;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | p[i];
    return (int64_t)x;
}

static void mdb_insert_range(MDB_txn *txn, uint64_t first, size_t n)
{
    task t;
    uint8_t rec[9 + 4 * 256];
    uint8_t ikey[256 + 1 + 12];
    for (size_t k = 0; k < n; k++) {
        task_make(first + k, &t);
        MDB_val key = {12, t.oid};
        MDB_val val = {rec_encode(&t, rec), rec};
        MDB(mdb_put(txn, g.dbi_tasks, &key, &val, MDB_NOOVERWRITE));

        const str *a = &ASSIGNEES[t.assignee];
        memcpy(ikey, a->s, a->n);
        ikey[a->n] = 0;
        memcpy(ikey + a->n + 1, t.oid, 12);
        MDB_val ik = {a->n + 1 + 12, ikey};
        MDB_val empty = {0, NULL};
        MDB(mdb_put(txn, g.dbi_assignee, &ik, &empty, 0));
    }
}

PROFILED static uint64_t mdb_bulk(size_t n)
{
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    MDB(mdb_txn_begin(g.mdb, NULL, 0, &txn));
    mdb_insert_range(txn, 0, n);
    MDB(mdb_txn_commit(txn));
    return now_ns() - t0;
}

PROFILED static uint64_t mdb_point_reads(const uint8_t (*oids)[12], size_t n, int64_t *sum_out)
{
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    MDB(mdb_txn_begin(g.mdb, NULL, MDB_RDONLY, &txn));
    int64_t sum = 0;
    for (size_t k = 0; k < n; k++) {
        MDB_val key = {12, (void *)oids[k]}, val;
        MDB(mdb_get(txn, g.dbi_tasks, &key, &val));
        sum += rec_progress(&val);
    }
    mdb_txn_abort(txn);
    *sum_out = sum;
    return now_ns() - t0;
}

PROFILED static uint64_t mdb_scan_count(uint64_t *count_out)
{
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    MDB_cursor *cur;
    MDB(mdb_txn_begin(g.mdb, NULL, MDB_RDONLY, &txn));
    MDB(mdb_cursor_open(txn, g.dbi_tasks, &cur));
    uint64_t count = 0;
    MDB_val key, val;
    int rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
    while (rc == MDB_SUCCESS) {
        if (rec_progress(&val) >= 60)
            count++;
        rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
    }
    if (rc != MDB_NOTFOUND)
        fatal("raw LMDB scan: %s", mdb_strerror(rc));
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    *count_out = count;
    return now_ns() - t0;
}

PROFILED static uint64_t mdb_index_lookups(size_t n, uint64_t hits[100])
{
    size_t cap = 1024, count = 0;
    uint8_t (*found)[12] = xmalloc(cap * 12);
    uint8_t prefix[256 + 1];
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    MDB(mdb_txn_begin(g.mdb, NULL, MDB_RDONLY, &txn));
    for (size_t k = 0; k < n; k++) {
        const str *name = &ASSIGNEES[lookup_name(k)];
        memcpy(prefix, name->s, name->n);
        prefix[name->n] = 0;
        size_t plen = name->n + 1;

        /* A fresh cursor per lookup, as a query is fresh per lookup on the other side. */
        MDB_cursor *cur;
        MDB(mdb_cursor_open(txn, g.dbi_assignee, &cur));
        MDB_val key = {plen, prefix}, val;
        count = 0;
        int rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
        while (rc == MDB_SUCCESS && key.mv_size == plen + 12 && memcmp(key.mv_data, prefix, plen) == 0) {
            if (count == cap) {
                cap *= 2;
                found = xrealloc(found, cap * 12);
            }
            memcpy(found[count++], (const uint8_t *)key.mv_data + plen, 12);
            rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
        }
        if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
            fatal("raw LMDB index scan: %s", mdb_strerror(rc));
        mdb_cursor_close(cur);
        hits[lookup_name(k)] = count;
    }
    mdb_txn_abort(txn);
    uint64_t dt = now_ns() - t0;
    free(found);
    return dt;
}

PROFILED static uint64_t mdb_commits(uint64_t first, size_t n)
{
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < n; k++) {
        MDB_txn *txn;
        MDB(mdb_txn_begin(g.mdb, NULL, 0, &txn));
        mdb_insert_range(txn, first + k, 1);
        MDB(mdb_txn_commit(txn));
    }
    return now_ns() - t0;
}

/* ------------------------------------------------------------------------ */
/* Results                                                                  */
/* ------------------------------------------------------------------------ */

enum { MAX_ROUNDS = 64 };

typedef struct result {
    const char *name;
    const char *unit;   /* what one "op" is */
    const char *aim;    /* "" for report-only rows */
    double aim_ratio;   /* 0 for report-only rows */
    double orc[MAX_ROUNDS], mdb[MAX_ROUNDS]; /* ns per op, per round */
    int rounds;
    bool present;
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void record(result *r, int round, uint64_t orc_ns, uint64_t mdb_ns, size_t ops)
{
    r->orc[round] = (double)orc_ns / (double)ops;
    r->mdb[round] = (double)mdb_ns / (double)ops;
    if (round + 1 > r->rounds)
        r->rounds = round + 1;
    r->present = true;
}

static void mismatch(const char *what, long long orc, long long mdb)
{
    fprintf(stderr, "MISMATCH in %s: ORCore %lld, LMDB %lld\n", what, orc, mdb);
    g.mismatch = true;
}

static void print_table(result *rows, int nrows)
{
    printf("\n%-34s %-8s %14s %14s %8s %7s %s\n", "workload", "op", "ORCore ns/op", "LMDB ns/op",
           "ratio", "aim", "met");
    for (int i = 0; i < nrows; i++) {
        result *r = &rows[i];
        if (!r->present)
            continue;
        double o = median(r->orc, r->rounds), m = median(r->mdb, r->rounds);
        double ratio = m > 0 ? o / m : 0;
        const char *met = r->aim_ratio > 0 ? (ratio <= r->aim_ratio ? "yes" : "NO") : "-";
        printf("%-34s %-8s %14.1f %14.1f %7.2fx %7s %s\n", r->name, r->unit, o, m, ratio,
               r->aim[0] ? r->aim : "-", met);
    }
    printf("\nper round (ORCore / LMDB ns per op):\n");
    for (int i = 0; i < nrows; i++) {
        result *r = &rows[i];
        if (!r->present)
            continue;
        printf("  %-34s", r->name);
        for (int k = 0; k < r->rounds; k++)
            printf(" %.1f/%.1f", r->orc[k], r->mdb[k]);
        printf("\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: orcore_bench [--objects N] [--rounds R] [--quick] [--dir DIR]\n"
            "                    [--reads N] [--lookups N] [--commits N] [--only LIST] [--keep]\n"
            "  --objects N   objects to bulk insert (default 1000000)\n"
            "  --rounds R    interleaved rounds per workload, median reported (default 3)\n"
            "  --quick       N = 100000, 1 round, 50 commits\n"
            "  --dir DIR     where to put the two files (default: a fresh mkdtemp under /tmp)\n"
            "  --reads N     point reads per round (default min(objects, 200000))\n"
            "  --lookups N   index lookups per round (default 100)\n"
            "  --commits N   one-object commits per round and mode (default 200)\n"
            "  --only LIST   workloads to report, e.g. 13 (default 12345); the data is\n"
            "                always loaded once\n"
            "  --keep        leave both files in place at the end (for mdb_stat -a -n FILE)\n");
}

static size_t parse_count(const char *opt, const char *s, size_t min, size_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s ? s : "", &end, 10);
    if (!s || errno || *end || end == s || v < min || v > max) {
        fprintf(stderr, "orcore_bench: %s needs a number in %zu...%zu, got '%s'\n", opt, min, max, s ? s : "");
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    size_t objects = 1000000, reads = 0, lookups = 100, commits = 200;
    int rounds = 3;
    const char *dir = NULL, *only = "12345";
    bool reads_set = false, commits_set = false, rounds_set = false, objects_set = false, quick = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--objects")) { objects = parse_count(a, next, 1, (size_t)1 << 32); objects_set = true; i++; }
        else if (!strcmp(a, "--rounds")) { rounds = (int)parse_count(a, next, 1, MAX_ROUNDS); rounds_set = true; i++; }
        else if (!strcmp(a, "--reads")) { reads = parse_count(a, next, 1, (size_t)1 << 32); reads_set = true; i++; }
        else if (!strcmp(a, "--lookups")) { lookups = parse_count(a, next, 1, 1000000); i++; }
        else if (!strcmp(a, "--commits")) { commits = parse_count(a, next, 1, 1000000); commits_set = true; i++; }
        else if (!strcmp(a, "--dir")) {
            if (!next) { usage(stderr); return 2; }
            dir = next; i++;
        } else if (!strcmp(a, "--only")) {
            if (!next || strspn(next, "12345") != strlen(next) || !*next) { usage(stderr); return 2; }
            only = next; i++;
        } else if (!strcmp(a, "--quick")) quick = true;
        else if (!strcmp(a, "--keep")) g.keep = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "orcore_bench: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    if (quick) {
        if (!objects_set) objects = 100000;
        if (!rounds_set) rounds = 1;
        if (!commits_set) commits = 50;
    }
    if (!reads_set)
        reads = objects < 200000 ? objects : 200000;
    bool want[6] = {false};
    for (const char *p = only; *p; p++)
        want[*p - '0'] = true;

    /* Paths. */
    if (dir) {
        if (snprintf(g.dir, sizeof g.dir, "%s", dir) >= (int)sizeof g.dir)
            fatal("--dir path too long");
    } else {
        snprintf(g.dir, sizeof g.dir, "/tmp/orcore-bench-XXXXXX");
        if (!mkdtemp(g.dir))
            fatal("mkdtemp: %s", strerror(errno));
        g.own_dir = true;
    }
    if (snprintf(g.orc_path, sizeof g.orc_path, "%s/bench-orcore.realm", g.dir) >= (int)sizeof g.orc_path ||
        snprintf(g.orc_lock, sizeof g.orc_lock, "%s-lock", g.orc_path) >= (int)sizeof g.orc_lock ||
        snprintf(g.mdb_path, sizeof g.mdb_path, "%s/bench-lmdb.mdb", g.dir) >= (int)sizeof g.mdb_path ||
        snprintf(g.mdb_lock, sizeof g.mdb_lock, "%s-lock", g.mdb_path) >= (int)sizeof g.mdb_lock)
        fatal("--dir path too long");
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    /* Generous and sparse: raw LMDB cannot grow its map by itself. */
    g.mdb_map_size = ((size_t)64 << 20) + objects * (size_t)1024;
    data_init();

    printf("%s; raw side: %s\n", orc_version_string(), mdb_version(NULL, NULL, NULL));
    printf("objects %zu, rounds %d, point reads %zu, index lookups %zu, commits %zu, dir %s\n",
           objects, rounds, reads, lookups, commits, g.dir);
    fflush(stdout);

    enum { R_BULK, R_POINT, R_SCAN, R_LOOKUP, R_COMMIT, R_COMMIT_NMS, NROWS };
    result rows[NROWS] = {
        [R_BULK] = {"1 bulk insert (one txn)", "object", "<=1.5x", 1.5},
        [R_POINT] = {"2 point read by primary key", "read", "<=1.5x", 1.5},
        [R_SCAN] = {"3 scan count progress>=60", "object", "<=2x", 2.0},
        [R_LOOKUP] = {"4 indexed lookup assignee==", "lookup", "", 0},
        [R_COMMIT] = {"5 one-object commit (sync)", "commit", "", 0},
        [R_COMMIT_NMS] = {"5 one-object commit (no meta sync)", "commit", "", 0},
    };

    /* 1. Bulk insert; the last round's files serve the read workloads. */
    long rss_after_orc_bulk = 0;
    int bulk_rounds = want[1] ? rounds : 1;
    for (int r = 0; r < bulk_rounds; r++) {
        orc_fresh();
        uint64_t to = orc_bulk(objects);
        if (r == 0)
            rss_after_orc_bulk = peak_rss_kb();
        mdb_fresh();
        uint64_t tm = mdb_bulk(objects);
        if (want[1])
            record(&rows[R_BULK], r, to, tm, objects);
        printf("  bulk round %d: ORCore %.2f s, LMDB %.2f s\n", r + 1, to / 1e9, tm / 1e9);
        fflush(stdout);
    }
    {
        orc_txn *txn;
        uint64_t n;
        ORC(orc_txn_begin(g.orc, ORC_TXN_READ, &txn));
        ORC(orc_table_count(txn, g.table, &n));
        orc_txn_abort(txn);
        MDB_txn *mt;
        MDB_stat st;
        MDB(mdb_txn_begin(g.mdb, NULL, MDB_RDONLY, &mt));
        MDB(mdb_stat(mt, g.dbi_tasks, &st));
        mdb_txn_abort(mt);
        if (n != objects || st.ms_entries != objects)
            mismatch("object count after bulk insert", (long long)n, (long long)st.ms_entries);
    }
    long long orc_size = file_size(g.orc_path), mdb_size = file_size(g.mdb_path);
    orc_env_info oinfo;
    ORC(orc_env_info_get(g.orc, &oinfo));
    MDB_envinfo minfo;
    MDB_stat mstat;
    MDB(mdb_env_info(g.mdb, &minfo));
    MDB(mdb_env_stat(g.mdb, &mstat));
    size_t mdb_used = (minfo.me_last_pgno + 1) * (size_t)mstat.ms_psize;

    /* 2. Point reads: the same random keys on both sides. */
    if (want[2]) {
        uint8_t (*oids)[12] = xmalloc(reads * 12);
        uint64_t s = 0x5EED;
        for (size_t k = 0; k < reads; k++) {
            s = splitmix64(s);
            task_oid(s % objects, oids[k]);
        }
        for (int r = 0; r < rounds; r++) {
            int64_t so, sm;
            uint64_t to = orc_point_reads((const uint8_t (*)[12])oids, reads, &so);
            uint64_t tm = mdb_point_reads((const uint8_t (*)[12])oids, reads, &sm);
            if (so != sm)
                mismatch("point read sum", so, sm);
            record(&rows[R_POINT], r, to, tm, reads);
        }
        free(oids);
    }

    /* 3. Full-scan count. */
    if (want[3]) {
        for (int r = 0; r < rounds; r++) {
            uint64_t co, cm;
            uint64_t to = orc_scan_count(&co);
            uint64_t tm = mdb_scan_count(&cm);
            if (co != cm)
                mismatch("scan count", (long long)co, (long long)cm);
            record(&rows[R_SCAN], r, to, tm, objects);
        }
    }

    /* 4. Indexed equality lookups. */
    bool used_index = true;
    if (want[4]) {
        for (int r = 0; r < rounds; r++) {
            uint64_t ho[100] = {0}, hm[100] = {0};
            bool ui;
            uint64_t to = orc_index_lookups(lookups, ho, &ui);
            uint64_t tm = mdb_index_lookups(lookups, hm);
            used_index = used_index && ui;
            for (int k = 0; k < 100; k++)
                if (ho[k] != hm[k])
                    mismatch(ASSIGNEES[k].s, (long long)ho[k], (long long)hm[k]);
            record(&rows[R_LOOKUP], r, to, tm, lookups);
        }
    }

    /* 5. One-object commits: default durability, then without the meta-page sync. */
    if (want[5]) {
        uint64_t next = objects;
        for (int mode = 0; mode < 2; mode++) {
            if (mode == 1) {
                orc_close();
                orc_open(ORC_ENV_NO_META_SYNC);
                mdb_close_env();
                mdb_open_env(MDB_NOMETASYNC);
            }
            for (int r = 0; r < rounds; r++) {
                uint64_t to = orc_commits(next, commits);
                uint64_t tm = mdb_commits(next, commits);
                next += commits;
                record(&rows[mode ? R_COMMIT_NMS : R_COMMIT], r, to, tm, commits);
            }
        }
    }

    long rss_end = peak_rss_kb();
    orc_close();
    mdb_close_env();

    print_table(rows, NROWS);
    printf("\nfiles after the bulk insert of %zu objects:\n", objects);
    printf("  ORCore %8.1f MB (%6.1f B/object), %.1f MB in use\n", orc_size / 1e6,
           (double)orc_size / (double)objects, oinfo.used_bytes / 1e6);
    printf("  LMDB   %8.1f MB (%6.1f B/object), %.1f MB in use\n", mdb_size / 1e6,
           (double)mdb_size / (double)objects, mdb_used / 1e6);
    printf("peak RSS: %.1f MB after ORCore's first bulk insert (ORCore runs first), %.1f MB for the whole run\n",
           rss_after_orc_bulk / 1024.0, rss_end / 1024.0);
    if (want[4] && !used_index)
        printf("note: ORCore did NOT use the assignee index for the lookups\n");
    printf("ns/op are medians of %d interleaved round(s); commit timings depend on the disk: compare pairwise only\n",
           rounds);

    if (g.keep) {
        printf("kept: %s and %s\n", g.orc_path, g.mdb_path);
    } else {
        int rc = orc_env_delete_files(g.orc_path);
        if (rc != ORC_OK)
            fprintf(stderr, "orcore_bench: removing %s: %s\n", g.orc_path, orc_last_error());
        remove_files_raw();
    }
    if (g.mismatch) {
        fprintf(stderr, "orcore_bench: results differ between ORCore and LMDB (see MISMATCH above)\n");
        return 1;
    }
    return 0;
}
