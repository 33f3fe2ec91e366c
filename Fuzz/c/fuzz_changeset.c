/*
 * fuzz_changeset.c — ORCore's changeset decoder (target `changeset`).
 *
 * The first byte of the input picks what the rest is:
 *   0  a stored changeset (log.c "CHANGESET"): the 21-byte header and its
 *      instructions. The header's checksum is recomputed over the fuzzed
 *      instructions before decoding, or nearly every mutation would stop at
 *      the checksum; everything else is the fuzzer's.
 *   1  a log entry ("LOG ENTRY": codec byte, raw size, raw or zstd bytes), as
 *      orc_log_get reads it: log_entry_decode, log_entry_inflate (raw size
 *      capped at 1 MiB), then the changeset it holds, checksum fixed as in 0.
 *   2  a header-less instruction stream replayed by log_replay in a write
 *      transaction of a scratch realm that is never committed (the redo path
 *      of map growth): decoding plus every engine call an instruction makes.
 * Every instruction is decoded with orc_changeset_iter_next until the end or
 * an error. Promise: ORC_ERR_CORRUPT (or, for replay, another ORCore status)
 * with a message; never a crash or a sanitizer report. Replay's id check
 * (log_read.c invariant 4) answers ORC_ERR_INTERNAL, the one status of that
 * code the target accepts.
 */
#include "fuzz_support.h"
#include "log_format.h"
#include "replay.h"

#include <string.h>

enum { MODE_CHANGESET = 0, MODE_LOG_ENTRY = 1, MODE_REPLAY = 2, MODES = 3 };
enum { MAX_INFLATED = 1 << 20 };

static volatile uint64_t sink;

static void decode(uint8_t *cs, size_t size)
{
    if (size >= CS_HEADER_SIZE)
        st64(cs + 13, cs_checksum(ld64(cs + 1), ld32(cs + 9), cs + CS_HEADER_SIZE, size - CS_HEADER_SIZE));
    orc_changeset_iter it;
    int rc = orc_changeset_iter_init(&it, cs, size);
    fuzz_expect_status(rc, "orc_changeset_iter_init");
    orc_instr in;
    while (!rc && (rc = orc_changeset_iter_next(&it, &in)) == ORC_OK) {
        if (in.value.type == ORC_TYPE_STRING || in.value.type == ORC_TYPE_BINARY)
            for (size_t i = 0; i < in.value.string.size; i++) sink += (uint8_t)in.value.string.data[i];
        if (in.dict_key.type == ORC_TYPE_STRING)
            for (size_t i = 0; i < in.dict_key.string.size; i++) sink += (uint8_t)in.dict_key.string.data[i];
        for (size_t i = 0; i < in.name_len; i++) sink += (uint8_t)in.name[i];
    }
    if (rc != ORC_ERR_NOT_FOUND) fuzz_expect_status(rc, "orc_changeset_iter_next");
}

static void log_entry(const uint8_t *e, size_t size)
{
    const uint8_t *raw;
    size_t raw_size;
    bool compressed;
    int rc = log_entry_decode(7, e, size, &raw, &raw_size, &compressed);
    fuzz_expect_status(rc, "log_entry_decode");
    if (rc) return;
    if (!compressed) {
        uint8_t *copy = malloc(raw_size ? raw_size : 1);
        memcpy(copy, raw, raw_size);
        decode(copy, raw_size);
        free(copy);
        return;
    }
    if (raw_size > MAX_INFLATED) return;
    uint8_t *dst = malloc(raw_size ? raw_size : 1);
    rc = log_entry_inflate(7, e, size, dst, raw_size);
    fuzz_expect_status(rc, "log_entry_inflate");
    if (!rc) decode(dst, raw_size);
    free(dst);
}

static orc_env *scratch;

static void replay(const uint8_t *data, size_t size)
{
    if (!scratch) {
        char path[600];
        snprintf(path, sizeof path, "%s/replay.realm", fuzz_dir());
        if (orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &scratch))
            fuzz_fail("cannot open the scratch realm: %s", orc_last_error());
    }
    orc_txn *txn;
    if (orc_txn_begin(scratch, ORC_TXN_WRITE, &txn)) fuzz_fail("cannot begin: %s", orc_last_error());
    /* log_replay decodes a stream that starts with the magic byte as a whole changeset. */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    if (size >= CS_HEADER_SIZE && copy[0] == CS_MAGIC)
        st64(copy + 13, cs_checksum(ld64(copy + 1), ld32(copy + 9), copy + CS_HEADER_SIZE, size - CS_HEADER_SIZE));
    int rc = log_replay(txn, copy, size);
    /* Replay reports an id the engine hands out that differs from the recorded one as
     * ORC_ERR_INTERNAL (for the redo log it can only mean an engine bug); here the
     * recorded ids are the fuzzer's, so that status is an expected outcome. */
    if (!(rc == ORC_ERR_INTERNAL && strstr(orc_last_error(), "where the changeset recorded")))
        fuzz_expect_status(rc, "log_replay");
    free(copy);
    orc_txn_abort(txn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const uint8_t *body = data + 1;
    size_t n = size - 1;
    switch (data[0] % MODES) {
    case MODE_CHANGESET: {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, body, n);
        decode(copy, n);
        free(copy);
        break;
    }
    case MODE_LOG_ENTRY: log_entry(body, n); break;
    case MODE_REPLAY: replay(body, n); break;
    }
    return 0;
}
