/*
 * replay.h — re-executing a changeset through the engine (replay.c): the replay
 * hook of map growth, in the top layer because it drives every layer below.
 */
#ifndef ORCORE_REPLAY_H
#define ORCORE_REPLAY_H

#include "txn.h"

/** Re-executes the non-derived instructions of a changeset (map growth replays the transaction). */
int log_replay(orc_txn *txn, const uint8_t *data, size_t size);

#endif /* ORCORE_REPLAY_H */
