/*
 * lmdb_bench.h — raw LMDB doing the work of the Task benchmarks: the floor no
 * layer over LMDB can beat. Records are plain keys and values:
 *
 *   "tasks"    key: the 12-byte ObjectId of the task    value: the record below
 *   "assignee" key: assignee bytes | 0x00 | ObjectId   value: empty (non-null assignees only)
 *
 *   record: offset 0  i64 LE progressMinutes
 *                  8  i64 LE dueDate (seconds since 1970)
 *                 16  u8 completed
 *                 17  u8 len + taskName bytes
 *                     u8 len + assignee bytes (len 0xFF: null, no bytes)
 *
 * The records come from lb_task(), the C twin of BenchModel's TaskSeed: task i
 * has the same values on every side. Every function returns 0 or an LMDB error
 * code (see lb_error); none prints or exits.
 */
#ifndef LMDB_BENCH_H
#define LMDB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lb_env lb_env;

/** Opens (creating) the LMDB file at `path` (MDB_NOSUBDIR, lock file `path-lock`). */
int lb_open(const char *path, lb_env **out);
/** Closes the environment. NULL is ignored. */
void lb_close(lb_env *env);
/** Turns MDB_NOMETASYNC on or off (sync data on commit, not the meta page). */
int lb_set_nometasync(lb_env *env, int on);
/** The message of an error code returned here. */
const char *lb_error(int rc);

/** Inserts tasks [first, first + count) in one write transaction, commit included. */
int lb_bulk_insert(lb_env *env, uint64_t first, uint64_t count);
/** Inserts task `index` in its own write transaction (one durable commit). */
int lb_insert_one(lb_env *env, uint64_t index);
/** Cursor scan of every task reading progressMinutes and taskName's length. */
int lb_scan_two(lb_env *env, uint64_t *count, int64_t *progress_sum, uint64_t *name_bytes);
/** Counts tasks with progressMinutes >= min by a full cursor scan. */
int lb_count_progress_at_least(lb_env *env, int64_t min, uint64_t *count);
/** Counts tasks whose assignee equals `name` by a range of the index. */
int lb_count_assignee(lb_env *env, const char *name, size_t len, uint64_t *count);
/** Point reads by primary key of tasks `indexes[0..n)`, summing progressMinutes. */
int lb_point_reads(lb_env *env, const uint64_t *indexes, size_t n, uint64_t *found, int64_t *progress_sum);
/** Number of entries of "tasks" (opening check: a read transaction and a stat). */
int lb_task_count(lb_env *env, uint64_t *count);

/** The 12 bytes of task i's ObjectId. */
void lb_task_id(uint64_t index, uint8_t out[12]);

#ifdef __cplusplus
}
#endif
#endif
