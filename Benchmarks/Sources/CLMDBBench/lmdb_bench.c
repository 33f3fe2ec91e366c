/*
 * lmdb_bench.c — raw LMDB side of openrealm-bench (layout in lmdb_bench.h).
 * What a careful hand-written store would do and nothing cleverer: puts into
 * "tasks" use MDB_NOOVERWRITE (primary keys are unique), default durability
 * unless lb_set_nometasync says otherwise, no caching between operations.
 */
#include "lmdb_bench.h"

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lb_env {
    MDB_env *env;
    MDB_dbi tasks, assignee;
};

const char *lb_error(int rc) { return mdb_strerror(rc); }

void lb_task_id(uint64_t index, uint8_t out[12])
{
    /* A fixed 4-byte timestamp, then the index big-endian: ids ascend with i. */
    out[0] = 0x66; out[1] = 0x00; out[2] = 0x00; out[3] = 0x00;
    for (int b = 0; b < 8; b++) out[4 + b] = (uint8_t)(index >> (56 - 8 * b));
}

/* The values of task i: the twin of TaskSeed in BenchModel (keep them equal). */
typedef struct {
    uint8_t id[12];
    char name[32]; int name_len;
    char assignee[32]; int assignee_len; /* -1: null */
    int completed;
    int64_t progress;
    int64_t due;
} lb_task;

static void make_task(uint64_t i, lb_task *t)
{
    lb_task_id(i, t->id);
    t->name_len = snprintf(t->name, sizeof t->name, "task %llu", (unsigned long long)i);
    if (i % 16 == 15) t->assignee_len = -1;
    else t->assignee_len = snprintf(t->assignee, sizeof t->assignee, "user %llu", (unsigned long long)(i % 100));
    t->completed = i % 3 == 0;
    t->progress = (int64_t)((i * 7919) % 240);
    t->due = 1700000000 + (int64_t)i;
}

static size_t encode(const lb_task *t, uint8_t *buf)
{
    size_t n = 0;
    memcpy(buf + n, &t->progress, 8); n += 8;
    memcpy(buf + n, &t->due, 8); n += 8;
    buf[n++] = (uint8_t)t->completed;
    buf[n++] = (uint8_t)t->name_len;
    memcpy(buf + n, t->name, (size_t)t->name_len); n += (size_t)t->name_len;
    if (t->assignee_len < 0) {
        buf[n++] = 0xFF;
    } else {
        buf[n++] = (uint8_t)t->assignee_len;
        memcpy(buf + n, t->assignee, (size_t)t->assignee_len); n += (size_t)t->assignee_len;
    }
    return n;
}

int lb_open(const char *path, lb_env **out)
{
    lb_env *e = calloc(1, sizeof *e);
    if (!e) return ENOMEM;
    int rc = mdb_env_create(&e->env);
    if (!rc) rc = mdb_env_set_maxdbs(e->env, 4);
    if (!rc) rc = mdb_env_set_mapsize(e->env, (size_t)16 << 30);
    if (!rc) rc = mdb_env_open(e->env, path, MDB_NOSUBDIR, 0644);
    MDB_txn *txn = NULL;
    if (!rc) rc = mdb_txn_begin(e->env, NULL, 0, &txn);
    if (!rc) rc = mdb_dbi_open(txn, "tasks", MDB_CREATE, &e->tasks);
    if (!rc) rc = mdb_dbi_open(txn, "assignee", MDB_CREATE, &e->assignee);
    if (!rc) rc = mdb_txn_commit(txn);
    else if (txn) mdb_txn_abort(txn);
    if (rc) {
        if (e->env) mdb_env_close(e->env);
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

void lb_close(lb_env *env)
{
    if (!env) return;
    mdb_env_close(env->env);
    free(env);
}

int lb_set_nometasync(lb_env *env, int on) { return mdb_env_set_flags(env->env, MDB_NOMETASYNC, on); }

static int put_task(lb_env *env, MDB_txn *txn, uint64_t i)
{
    lb_task t;
    uint8_t rec[128], ikey[64];
    make_task(i, &t);
    MDB_val k = { 12, t.id }, v = { encode(&t, rec), rec };
    int rc = mdb_put(txn, env->tasks, &k, &v, MDB_NOOVERWRITE);
    if (rc || t.assignee_len < 0) return rc;
    memcpy(ikey, t.assignee, (size_t)t.assignee_len);
    ikey[t.assignee_len] = 0;
    memcpy(ikey + t.assignee_len + 1, t.id, 12);
    MDB_val ik = { (size_t)t.assignee_len + 13, ikey }, iv = { 0, NULL };
    return mdb_put(txn, env->assignee, &ik, &iv, 0);
}

int lb_bulk_insert(lb_env *env, uint64_t first, uint64_t count)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(env->env, NULL, 0, &txn);
    if (rc) return rc;
    for (uint64_t i = first; i < first + count && !rc; i++) rc = put_task(env, txn, i);
    if (rc) { mdb_txn_abort(txn); return rc; }
    return mdb_txn_commit(txn);
}

int lb_insert_one(lb_env *env, uint64_t index) { return lb_bulk_insert(env, index, 1); }

/* Calls `body` on every record of "tasks" in one read transaction. */
#define SCAN_TASKS(env, rec, BODY)                                              \
    do {                                                                        \
        MDB_txn *txn_; MDB_cursor *cur_; MDB_val k_, v_;                        \
        int rc_ = mdb_txn_begin((env)->env, NULL, MDB_RDONLY, &txn_);           \
        if (rc_) return rc_;                                                    \
        rc_ = mdb_cursor_open(txn_, (env)->tasks, &cur_);                       \
        if (rc_) { mdb_txn_abort(txn_); return rc_; }                           \
        for (rc_ = mdb_cursor_get(cur_, &k_, &v_, MDB_FIRST); rc_ == 0;         \
             rc_ = mdb_cursor_get(cur_, &k_, &v_, MDB_NEXT)) {                  \
            const uint8_t *rec = v_.mv_data;                                    \
            BODY                                                                \
        }                                                                       \
        mdb_cursor_close(cur_);                                                 \
        mdb_txn_abort(txn_);                                                    \
        if (rc_ != MDB_NOTFOUND) return rc_;                                    \
    } while (0)

int lb_scan_two(lb_env *env, uint64_t *count, int64_t *progress_sum, uint64_t *name_bytes)
{
    uint64_t n = 0, bytes = 0;
    int64_t sum = 0;
    SCAN_TASKS(env, rec, {
        int64_t p;
        memcpy(&p, rec, 8);
        sum += p;
        bytes += rec[17];
        n++;
    });
    *count = n; *progress_sum = sum; *name_bytes = bytes;
    return 0;
}

int lb_count_progress_at_least(lb_env *env, int64_t min, uint64_t *count)
{
    uint64_t n = 0;
    SCAN_TASKS(env, rec, {
        int64_t p;
        memcpy(&p, rec, 8);
        n += p >= min;
    });
    *count = n;
    return 0;
}

int lb_count_assignee(lb_env *env, const char *name, size_t len, uint64_t *count)
{
    uint8_t prefix[64];
    if (len + 1 > sizeof prefix) return EINVAL;
    memcpy(prefix, name, len);
    prefix[len] = 0;
    MDB_txn *txn; MDB_cursor *cur;
    int rc = mdb_txn_begin(env->env, NULL, MDB_RDONLY, &txn);
    if (rc) return rc;
    rc = mdb_cursor_open(txn, env->assignee, &cur);
    if (rc) { mdb_txn_abort(txn); return rc; }
    MDB_val k = { len + 1, prefix }, v;
    uint64_t n = 0;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size < len + 1 || memcmp(k.mv_data, prefix, len + 1) != 0) break;
        n++;
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    if (rc && rc != MDB_NOTFOUND) return rc;
    *count = n;
    return 0;
}

int lb_point_reads(lb_env *env, const uint64_t *indexes, size_t n, uint64_t *found, int64_t *progress_sum)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(env->env, NULL, MDB_RDONLY, &txn);
    if (rc) return rc;
    uint64_t hits = 0;
    int64_t sum = 0;
    for (size_t j = 0; j < n; j++) {
        uint8_t id[12];
        lb_task_id(indexes[j], id);
        MDB_val k = { 12, id }, v;
        rc = mdb_get(txn, env->tasks, &k, &v);
        if (rc == MDB_NOTFOUND) continue;
        if (rc) break;
        int64_t p;
        memcpy(&p, v.mv_data, 8);
        sum += p;
        hits++;
    }
    mdb_txn_abort(txn);
    if (rc && rc != MDB_NOTFOUND) return rc;
    *found = hits; *progress_sum = sum;
    return 0;
}

int lb_task_count(lb_env *env, uint64_t *count)
{
    MDB_txn *txn;
    MDB_stat st;
    int rc = mdb_txn_begin(env->env, NULL, MDB_RDONLY, &txn);
    if (rc) return rc;
    rc = mdb_stat(txn, env->tasks, &st);
    mdb_txn_abort(txn);
    if (!rc) *count = st.ms_entries;
    return rc;
}
