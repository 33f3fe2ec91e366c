/*
 * power.h — the shim's journal, read back, and the file a disk could hold
 * after a power cut at a point of it (power_image.c).
 *
 * THE MODEL OF THE DISK
 * A cut at record c means records 0...c-1 completed and record c (if any) was
 * in flight. Then the file holds:
 *  - every write before the last sync (fsync, fdatasync, msync) that completed
 *    before c: a sync returns only when everything written before it is on
 *    the disk;
 *  - every write through an O_DSYNC descriptor that completed before c (it
 *    returned only once its own bytes were on the disk; it orders nothing
 *    else);
 *  - any subset of the other writes — those after that sync, and the one in
 *    flight — applied in their order, each either whole or torn: only some of
 *    its 512-byte sectors (sectors of the file, aligned to offset 0) reached
 *    the disk. A sector is written whole or not at all.
 * The file's size is the end of the furthest write it holds, or, for a write
 * it lost that would have grown it, possibly that write's end with zeros (the
 * size reached the disk, the data did not).
 */
#ifndef ORC_FAULTS_POWER_H
#define ORC_FAULTS_POWER_H

#include "faultfs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pw_rec {
    uint32_t kind;        /**< FAULTFS_REC_* */
    uint32_t size;        /**< bytes (writes), mark kind (marks) */
    uint64_t offset;      /**< write offset, mark argument a */
    uint64_t value;       /**< mark argument b */
    const uint8_t *data;  /**< a write's bytes, inside the journal buffer */
} pw_rec;

typedef struct pw_journal {
    uint8_t *buf;
    pw_rec *recs;
    size_t count;
    size_t writes, dsync_writes, syncs, marks;
} pw_journal;

/** Reads a journal; a torn last record is dropped. Returns false with errno set when it cannot be read. */
bool pw_journal_load(const char *path, pw_journal *j);
void pw_journal_free(pw_journal *j);

/** How one image is made. */
typedef struct pw_cut {
    size_t cut;           /**< records 0...cut-1 completed, record `cut` in flight */
    double keep;          /**< the chance that each volatile write reached the disk */
    double tear;          /**< the chance that a write that reached it is torn */
    bool ignore_syncs;    /**< self-test: treat every write as volatile (a disk that ignores syncs) */
} pw_cut;

/** What was put in an image. */
typedef struct pw_image_stats {
    size_t durable, volatile_kept, volatile_lost, torn;
    long last_sync;       /**< index of the last sync before the cut, -1 when none */
} pw_image_stats;

/**
 * Builds the file for `cut` (randomness from `rng`) into `*buf` (grown as
 * needed; `*size` receives its length). Returns false on allocation failure.
 */
bool pw_image_build(const pw_journal *j, const pw_cut *cut, uint64_t *rng, uint8_t **buf, size_t *cap, size_t *size,
                    pw_image_stats *stats);

#endif
