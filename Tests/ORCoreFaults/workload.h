/*
 * workload.h — the transactions the fault tests' writer commits, and how a
 * checker reads back what a file holds.
 *
 * Two classes:
 *   Item   { id: int (primary key), n: int (indexed), text: string }
 *   Commit { seq: int (primary key), digest: int }
 * Transaction `seq` upserts and erases a few random Items (one in fifteen
 * upserts 60, some texts are several KB so that LMDB writes overflow pages)
 * and creates Commit{seq, digest}: the digest of every Item as the
 * transaction leaves them (a sum of per-item hashes, kept up to date from the
 * previous Commit's digest). The first transaction also creates the schema.
 *
 * So a file tells by itself which transaction it holds and whether it holds
 * all of it: the Commits must run 1...v without a gap, and the Items' digest
 * must equal Commit v's. A write of a later transaction, or one missing from
 * an earlier one, changes the Items' digest.
 */
#ifndef ORC_FAULTS_WORKLOAD_H
#define ORC_FAULTS_WORKLOAD_H

#include "orcore.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a file holds, as fw_read_state found it. */
typedef struct fw_state {
    uint64_t seq;     /**< the highest Commit's seq (0: no Commit, and no Item) */
    uint64_t digest;  /**< that Commit's digest (0 when seq is 0) */
    uint64_t items;   /**< Items in the file */
    bool whole;       /**< Commits 1...seq and nothing else, and the Items' digest is Commit seq's */
} fw_state;

/** A small seeded generator (xorshift64*); never 0. */
uint64_t fw_rand(uint64_t *state);

/**
 * Commits transaction `seq` (the file must hold seq - 1). `digest_out`
 * receives the digest of its Commit; `before_commit` (may be NULL) is called
 * with it just before orc_txn_commit. Returns orc_txn_commit's status, or the
 * status of the first call that failed (the transaction is then aborted).
 */
int fw_commit(orc_env *env, uint64_t *rng, uint64_t seq, uint64_t *digest_out,
              void (*before_commit)(uint64_t seq, uint64_t digest, void *ctx), void *ctx);

/**
 * Reads the file's state and whether it is whole (Commits 1...seq all there
 * and nothing else, the Items' digest equal to Commit seq's); when it is not,
 * `why` says how. Returns ORC_OK, or the status of a read that failed (its
 * message in `why`).
 */
int fw_read_state(orc_env *env, fw_state *out, char *why, size_t why_size);

/** Commit `seq`'s digest in the file; ORC_ERR_NOT_FOUND when it has none. */
int fw_commit_digest(orc_env *env, uint64_t seq, uint64_t *digest_out);

#endif
