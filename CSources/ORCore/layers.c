/*
 * layers.c — the end-of-transaction work of the layers above txn.c, handed to it.
 *
 * txn.c runs this table (txn.h, HOOKS) and names no layer above it: this file, in
 * the top layer, is the one place that knows them all. Order matters where it is
 * given: the read cursor closes before the append cursors (as LMDB saw them opened),
 * and a commit flushes the deferred index entries before txn.c writes its records.
 */
#include "object.h"
#include "replay.h"

static const txn_layer_hooks layers[] = {
    {.layer = "object reads", .close = obj_read_close, .reset = obj_read_reset},
    {.layer = "objects", .close = obj_append_forget},
    {.layer = "collections", .reset = coll_cache_free},
    {.layer = "indexes", .reset = idx_forget, .flush = idx_flush},
};

const txn_hooks orc_txn_hooks = {
    .layers = layers,
    .nlayers = sizeof layers / sizeof layers[0],
    .store_changeset = log_store_changeset,
    .replay = log_replay,
};
