/*
 * faultfs.h — what the fault shim (faultfs.c, an LD_PRELOAD library) and the
 * fault tests (orcore_faults) share: the environment variables that drive the
 * shim, and the layout of the journal it writes.
 *
 * THE SHIM
 * It watches one file, the realm's data file, named by FAULTFS_FILE. Every
 * descriptor opened on exactly that path (open, open64, openat, openat64,
 * creat and the fortified __open_2 variants) is tracked until it is closed,
 * with whether it was opened O_DSYNC (LMDB's meta descriptor). On tracked
 * descriptors it counts OPERATIONS: each write call (write, pwrite, pwrite64,
 * writev, pwritev) and each sync call (fsync, fdatasync); msync is counted
 * too whenever a descriptor is tracked (ORCore never maps the file writable,
 * so LMDB never calls it, but a build that did would be covered). The lock
 * file and every other file pass through untouched.
 *
 *  - FAULTFS_FAIL_AT=N makes the N-th operation (1-based) fail with
 *    FAULTFS_FAIL_ERRNO (a number; EIO when unset). With FAULTFS_STICKY=1
 *    every later operation fails too (a full disk); otherwise the fault
 *    strikes once (a transient I/O error). A failing write on a plain
 *    descriptor writes nothing; a failing write on an O_DSYNC descriptor with
 *    EIO first writes (the bytes reach the page cache, then the device
 *    refuses them, as a synchronous write that fails in its flush does); a
 *    failing sync syncs nothing.
 *  - FAULTFS_JOURNAL=path makes the shim append a record for every write that
 *    reached the file (its offset and the bytes actually written) and every
 *    sync call that succeeded, in the order they returned, to that path.
 *
 * The program under the shim finds faultfs_mark() and faultfs_ops() with
 * dlsym(RTLD_DEFAULT, ...): marks put the program's own events (a commit
 * begun, a commit done) in the journal between the writes around them.
 *
 * JOURNAL RECORD (host byte order)
 *   0  4  kind     FAULTFS_REC_*
 *   4  4  size     bytes of data that follow (writes only)
 *   8  8  offset   file offset of a write; the argument of a mark
 *   16 8  value    a mark's second argument (0 otherwise)
 *   24 .. data
 */
#ifndef ORC_FAULTFS_H
#define ORC_FAULTFS_H

#include <stdint.h>

#define FAULTFS_ENV_FILE "FAULTFS_FILE"
#define FAULTFS_ENV_JOURNAL "FAULTFS_JOURNAL"
#define FAULTFS_ENV_FAIL_AT "FAULTFS_FAIL_AT"
#define FAULTFS_ENV_FAIL_ERRNO "FAULTFS_FAIL_ERRNO"
#define FAULTFS_ENV_STICKY "FAULTFS_STICKY"

enum {
    FAULTFS_REC_WRITE = 1,       /**< a write through a plain descriptor: volatile until the next sync */
    FAULTFS_REC_DSYNC_WRITE = 2, /**< a write through an O_DSYNC descriptor: durable once it returned */
    FAULTFS_REC_SYNC = 3,        /**< fsync / fdatasync / msync returned 0: everything before it is durable */
    FAULTFS_REC_MARK = 4,        /**< faultfs_mark(kind, a, b): offset = a, value = b, size = kind */
};

typedef struct faultfs_rec {
    uint32_t kind;
    uint32_t size;
    uint64_t offset;
    uint64_t value;
} faultfs_rec;

/** Mark kinds the writer uses (stored in the record's size field). */
enum {
    FAULTFS_MARK_OPENED = 1, /**< orc_env_open returned: a = 0 */
    FAULTFS_MARK_BEGIN = 2,  /**< about to call orc_txn_commit for seq a, whose marker digest is b */
    FAULTFS_MARK_DONE = 3,   /**< orc_txn_commit for seq a returned ORC_OK */
};

typedef void (*faultfs_mark_fn)(uint32_t kind, uint64_t a, uint64_t b);
typedef long (*faultfs_ops_fn)(void);

#endif
