/*
 * log.c — the changeset log: recording, the changeset format, storage with
 * zstd, reading, consumer holds and trimming. Decoding (the iterator) and
 * replay live in log_read.c; both files share the format below.
 *
 * OWNS
 *   txn->changeset / txn->instr_count while a write transaction runs (the
 *   log_* calls append one instruction each), the "log" database, and the
 *   "orc.hold.<consumer>" entries of "meta".
 *
 * INVARIANTS
 *  1. Until log_commit, txn->changeset holds instructions only, no header:
 *     map growth (txn_grow) cuts it at an instruction boundary and replays the
 *     prefix, so it must stay a plain concatenation of instructions.
 *     log_commit never modifies it (a commit that fails with MAP_FULL is
 *     retried with the same buffer).
 *  2. One log entry per committed version, appended (MDB_APPEND) under the
 *     version, so the "log" database is a contiguous run of versions from the
 *     oldest one not trimmed to "orc.version" (txn.c invariant 3), or empty
 *     (KEEPING LESS below).
 *  3. Recording allocates nothing per instruction beyond buffer growth, and
 *     reads nothing but the primary key of the object an instruction names;
 *     log_create takes even that from the values it is given, so a bulk insert
 *     costs one append per object (log_create and its value encoding were
 *     about 3% of a profiled 1,000,000-object insert).
 *  4. Every stored changeset carries a checksum of its instructions: a damaged
 *     log entry is reported as ORC_ERR_CORRUPT, never decoded into other,
 *     well-formed instructions that sync or notifications would act on.
 *
 * CHANGESET (integers little-endian; "v" is an unsigned LEB128 varint, "z" a
 * zigzag varint, "val" the tagged value encoding of value.c)
 *
 *   offset  size  field
 *   0       1     magic 0xC5 (changeset format 1; never a valid op byte, so a
 *                 header-less instruction stream is told apart by its first byte)
 *   1       8     u64 version
 *   9       4     u32 instruction count (a CREATE counts once, its initial
 *                 values not at all)
 *   13      8     u64 checksum: cs_checksum(version, count, instructions)
 *   21      ...   instructions
 *
 * INSTRUCTION
 *   u8 op | u8 flags | v table | object ops: v key [| val pk] | body
 *
 *   flags  0x01 DERIVED (as ORC_INSTR_DERIVED)
 *          0x40 PK_FIRST: CREATE only; the first initial pair is the primary key
 *          0x80 HAS_PK: a tagged primary key value follows the key
 *          (ORC_INSTR_INITIAL is never stored: the iterator makes it)
 *
 *   op                  body
 *   1  CREATE           v n | (v col | val){n}          initial values
 *   2  ERASE            -
 *   3  SET              v col | val
 *   4  ADD_INT          v col | z delta
 *   5  LIST_INSERT      v col | v index | val
 *   6  LIST_SET         v col | v index | val
 *   7  LIST_ERASE       v col | v index
 *   8  LIST_MOVE        v col | v from | v to
 *   9  COLL_CLEAR       v col
 *   10 SET_INSERT       v col | val
 *   11 SET_ERASE        v col | val
 *   12 DICT_SET         v col | v klen | key | val
 *   13 DICT_ERASE       v col | v klen | key
 *   14 CREATE_EMBEDDED  v col | (u8 0 | v index) or (u8 1 | v klen | key) |
 *                       v child_table | v child_key     (table, key, pk: the parent)
 *   schema ops have no key; their body follows the table:
 *   20 ADD_CLASS        v nlen | name | u8 kind
 *   21 REMOVE_CLASS     -
 *   22 RENAME_CLASS     v nlen | name
 *   23 ADD_PROP         v col | v nlen | name | u8 type | u8 collection | v flags | v link_table
 *   24 REMOVE_PROP      v col
 *   25 RENAME_PROP      v col | v nlen | name
 *   26 SET_INDEXED      v col | v flags (ORC_PROP_INDEXED or 0)
 *   27 SET_PRIMARY_KEY  v col (0xFFFF: none)
 *   28 CLEAR_TABLE      -
 *
 *   A million-object insert of a class with an int primary key and four
 *   small columns costs about 57 bytes per object before compression.
 *
 * LOG ENTRY ("log" database)
 *   u64 BE version -> u8 codec (0 raw, 1 zstd) | u32 LE raw size | bytes
 *   Compressed when the changeset exceeds 4 KiB and zstd saves at least 1/8.
 *   Level: measured on a 57 MB changeset of 1,000,000 CREATEs of one class
 *   (int pk, string "name-<n>", int, double, bool), best of 3, one core:
 *     level  1: 56.9 MB -> 8.0 MB (14.0%), compress 98 ms, decompress 44 ms
 *     level -1: 56.9 MB -> 8.6 MB (15.1%), compress 87 ms, decompress 34 ms
 *     level -3: 56.9 MB -> 15.1 MB (26.6%), compress 71 ms, decompress 26 ms
 *     level -5: 56.9 MB -> 21.4 MB (37.5%), compress 67 ms, decompress 25 ms
 *   Level 1 is kept: -1 saves 11 ms for an 8% larger entry; the lower levels
 *   double or triple the size for 30 ms. The checksum costs 17 ms. A changeset of
 *   4 MiB or more is packed on a thread beside the commit's index flush ("PACKING
 *   BESIDE THE REST OF THE COMMIT" below): for orcore_bench's million tasks (92 MB
 *   raw, 15.5 MB packed) the packing (~180 ms on one core) runs beside the flush
 *   (~125 ms) instead of after it.
 *
 * HOLDS ("meta")
 *   "orc.hold.<consumer>" -> u64 LE version: the consumer still needs every
 *   changeset after it. Trim never removes one of those.
 *   Trims are not redone after map growth inside the same transaction (they
 *   are neither instructions nor metadata writes); the log then keeps those
 *   entries until the next trim, which loses nothing.
 *
 * KEEPING LESS (log_keeps, log_empty)
 *   An environment opened with ORC_ENV_NO_LOG stores no changeset; one opened
 *   with ORC_ENV_LEAN_LOG stores none of LEAN_MIN raw bytes or more while no
 *   consumer holds the log. Such a commit empties the log instead (invariant 2:
 *   an empty run is contiguous), so a reader asking for any version is told
 *   ORC_ERR_TRIMMED, as for a trimmed one. The instructions are still recorded
 *   (invariant 1: map growth replays them); only packing and storing are saved.
 *   A million-object insert's changeset, 92 MB raw and ~15 MB packed, was
 *   checksummed and compressed (~180 ms on one core) and written, only to be
 *   trimmed a few dozen commits later; its freed pages then stayed in LMDB's
 *   free list, whose remainder every later commit wrote back (2-3 pages more
 *   per one-object commit until it was used up).
 */
#include "log.h"
#include "log_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#define COMPRESS_MIN 4096
#define COMPRESS_LEVEL 1
#define COMPRESS_THREADED_MIN ((size_t)4 << 20)
#define HOLD_PREFIX "orc.hold."
#define HOLD_PREFIX_LEN 9
#define LEAN_MIN ((size_t)4 << 20)

/* ---- the checksum ------------------------------------------------------- */

/* Each step is a bijection of the running state for a fixed word, so any
 * change of a single word (any flipped byte) changes the result. */
static inline uint64_t cs_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 32);
}

uint64_t cs_checksum(uint64_t version, uint32_t count, const uint8_t *p, size_t n)
{
    uint64_t h = 0x243F6A8885A308D3ULL ^ (version * 0x9E3779B97F4A7C15ULL) ^
                 ((uint64_t)count * 0xC2B2AE3D27D4EB4FULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) h = cs_mix(h, ld64(p + i));
    uint64_t tail = 0;
    if (n > i) memcpy(&tail, p + i, n - i);
    h = cs_mix(h, tail);
    return cs_mix(h, (uint64_t)n);
}

/* ---- recording ------------------------------------------------------------ */

/* Writers into space already reserved with buf_reserve. */
static inline void w_u8(orc_buf *b, uint8_t v) { b->data[b->size++] = v; }

static inline void w_var(orc_buf *b, uint64_t v) { b->size += leb_put(b->data + b->size, v); }

static inline void w_bytes(orc_buf *b, const void *p, size_t n)
{
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
}

/* The most an instruction's op, flags, table, key and varint fields take. */
#define INSTR_FIXED_MAX (2 + 3 * CS_VARINT_MAX)

/* Undoes a half-written instruction; the transaction cannot go on without it. */
static int rec_fail(orc_txn *txn, size_t start, int rc)
{
    txn->changeset.size = start;
    return txn_poison(txn, rc);
}

static int rec_done(orc_txn *txn)
{
    if (txn->instr_count == UINT32_MAX)
        return txn_poison(txn, orc_fail(ORC_ERR_INVALID_ARG, "a transaction may record at most %u instructions",
                                        UINT32_MAX));
    txn->instr_count++;
    return ORC_OK;
}

/* Looks up the primary key of an object an instruction names (classes with one only). */
static int rec_pk(orc_txn *txn, const orc_class *c, uint64_t key, orc_value *pk, bool *has)
{
    *has = false;
    if (c->pk_col < 0) return ORC_OK;
    int rc = obj_pk(txn, c, key, pk, has);
    if (rc == ORC_ERR_NOT_FOUND) {
        /* The row is already gone (an erasure in progress): the key alone names the object. */
        *has = false;
        return ORC_OK;
    }
    return rc;
}

/* Appends op | flags | table | key | pk and reserves `body` more bytes. */
static int rec_head(orc_txn *txn, orc_instr_op op, uint8_t flags, uint32_t table, uint64_t key,
                    const orc_value *pk, size_t body)
{
    orc_buf *b = &txn->changeset;
    size_t need = INSTR_FIXED_MAX + body + (pk ? val_encoded_size(pk) : 0);
    int rc = buf_reserve(b, need);
    if (rc) return rc;
    w_u8(b, (uint8_t)op);
    w_u8(b, (uint8_t)(flags | (pk ? CS_F_HAS_PK : 0)));
    w_var(b, table);
    w_var(b, key);
    return pk ? val_encode(b, pk) : ORC_OK;
}

int log_create(orc_txn *txn, const orc_class *c, uint64_t key, const uint16_t *cols,
               const orc_value *vals, size_t n)
{
    orc_buf *b = &txn->changeset;
    size_t start = b->size;
    size_t pki = n;
    if (c->pk_col >= 0)
        for (size_t i = 0; i < n; i++)
            if (cols[i] == (uint16_t)c->pk_col) {
                pki = i;
                break;
            }
    /* Checked and measured first, so the record is then written in one pass. */
    size_t body = CS_VARINT_MAX;
    for (size_t i = 0; i < n; i++) {
        int rc = val_encodable(&vals[i]);
        if (rc) return rec_fail(txn, start, rc);
        body += 3 + val_encoded_size(&vals[i]);
    }
    /* A class with a primary key whose value was not given is named by null. */
    orc_value null_pk = {.type = ORC_TYPE_NULL};
    bool explicit_pk = c->pk_col >= 0 && pki == n;
    int rc = rec_head(txn, ORC_INSTR_CREATE, pki < n ? CS_F_PK_FIRST : 0, c->table, key,
                      explicit_pk ? &null_pk : NULL, body);
    if (rc) return rec_fail(txn, start, rc);
    w_var(b, n);
    if (pki < n) {
        w_var(b, cols[pki]);
        b->size += val_write(b->data + b->size, &vals[pki]);
    }
    for (size_t i = 0; i < n; i++) {
        if (i == pki) continue;
        w_var(b, cols[i]);
        b->size += val_write(b->data + b->size, &vals[i]);
    }
    return rec_done(txn);
}

int log_erase(orc_txn *txn, const orc_class *c, uint64_t key, const orc_value *pk, bool derived)
{
    size_t start = txn->changeset.size;
    orc_value found;
    bool has = false;
    int rc = ORC_OK;
    if (c->pk_col >= 0 && !pk) {
        rc = rec_pk(txn, c, key, &found, &has);
        if (rc) return rec_fail(txn, start, rc);
        if (has) pk = &found;
    } else if (c->pk_col < 0) {
        pk = NULL;
    }
    rc = rec_head(txn, ORC_INSTR_ERASE, derived ? CS_F_DERIVED : 0, c->table, key, pk, 0);
    if (rc) return rec_fail(txn, start, rc);
    return rec_done(txn);
}

int log_set(orc_txn *txn, const orc_class *c, uint64_t key, uint16_t col, const orc_value *v, bool derived)
{
    size_t start = txn->changeset.size;
    orc_value pk;
    bool has;
    int rc = rec_pk(txn, c, key, &pk, &has);
    if (!rc) rc = rec_head(txn, ORC_INSTR_SET, derived ? CS_F_DERIVED : 0, c->table, key, has ? &pk : NULL,
                           CS_VARINT_MAX + val_encoded_size(v));
    if (rc) return rec_fail(txn, start, rc);
    w_var(&txn->changeset, col);
    if ((rc = val_encode(&txn->changeset, v))) return rec_fail(txn, start, rc);
    return rec_done(txn);
}

int log_add_int(orc_txn *txn, const orc_class *c, uint64_t key, uint16_t col, int64_t delta)
{
    size_t start = txn->changeset.size;
    orc_value pk;
    bool has;
    int rc = rec_pk(txn, c, key, &pk, &has);
    if (!rc) rc = rec_head(txn, ORC_INSTR_ADD_INT, 0, c->table, key, has ? &pk : NULL, 2 * CS_VARINT_MAX);
    if (rc) return rec_fail(txn, start, rc);
    w_var(&txn->changeset, col);
    w_var(&txn->changeset, cs_zigzag(delta));
    return rec_done(txn);
}

int log_coll(orc_txn *txn, const orc_class *c, uint64_t key, orc_instr_op op, uint16_t col, uint64_t index,
             uint64_t index2, const orc_value *dict_key, const orc_value *v, bool derived)
{
    size_t start = txn->changeset.size;
    bool has_index = op == ORC_INSTR_LIST_INSERT || op == ORC_INSTR_LIST_SET || op == ORC_INSTR_LIST_ERASE ||
                     op == ORC_INSTR_LIST_MOVE;
    bool has_value = op == ORC_INSTR_LIST_INSERT || op == ORC_INSTR_LIST_SET || op == ORC_INSTR_SET_INSERT ||
                     op == ORC_INSTR_SET_ERASE || op == ORC_INSTR_DICT_SET;
    bool has_dkey = op == ORC_INSTR_DICT_SET || op == ORC_INSTR_DICT_ERASE;
    if (!has_index && !has_value && !has_dkey && op != ORC_INSTR_COLL_CLEAR)
        return txn_poison(txn, orc_fail(ORC_ERR_INTERNAL, "log_coll: op %d is not a collection instruction", op));
    if ((has_value && !v) || (has_dkey && (!dict_key || dict_key->type != ORC_TYPE_STRING)))
        return txn_poison(txn, orc_fail(ORC_ERR_INTERNAL, "log_coll: op %d without its value or key", op));
    orc_value pk;
    bool has;
    int rc = rec_pk(txn, c, key, &pk, &has);
    size_t body = 3 * CS_VARINT_MAX + (has_value ? val_encoded_size(v) : 0) +
                  (has_dkey ? dict_key->string.size : 0);
    if (!rc) rc = rec_head(txn, op, derived ? CS_F_DERIVED : 0, c->table, key, has ? &pk : NULL, body);
    if (rc) return rec_fail(txn, start, rc);
    orc_buf *b = &txn->changeset;
    w_var(b, col);
    if (has_index) w_var(b, index);
    if (op == ORC_INSTR_LIST_MOVE) w_var(b, index2);
    if (has_dkey) {
        w_var(b, dict_key->string.size);
        w_bytes(b, dict_key->string.data, dict_key->string.size);
    }
    if (has_value && (rc = val_encode(b, v))) return rec_fail(txn, start, rc);
    return rec_done(txn);
}

int log_create_embedded(orc_txn *txn, const orc_class *parent, uint64_t parent_key, uint16_t col,
                        uint64_t index, const orc_value *dict_key, uint32_t child_table, uint64_t child_key)
{
    size_t start = txn->changeset.size;
    bool by_key = dict_key && dict_key->type == ORC_TYPE_STRING;
    orc_value pk;
    bool has;
    int rc = rec_pk(txn, parent, parent_key, &pk, &has);
    size_t body = 1 + 4 * CS_VARINT_MAX + (by_key ? dict_key->string.size : 0);
    if (!rc) rc = rec_head(txn, ORC_INSTR_CREATE_EMBEDDED, 0, parent->table, parent_key, has ? &pk : NULL, body);
    if (rc) return rec_fail(txn, start, rc);
    orc_buf *b = &txn->changeset;
    w_var(b, col);
    if (by_key) {
        w_u8(b, 1);
        w_var(b, dict_key->string.size);
        w_bytes(b, dict_key->string.data, dict_key->string.size);
    } else {
        w_u8(b, 0);
        w_var(b, index);
    }
    w_var(b, child_table);
    w_var(b, child_key);
    return rec_done(txn);
}

int log_schema(orc_txn *txn, orc_instr_op op, uint32_t table, uint16_t col, const char *name,
               const orc_prop *prop, orc_class_kind kind)
{
    size_t start = txn->changeset.size;
    orc_buf *b = &txn->changeset;
    if (!name && prop) name = prop->name;
    bool needs_name = op == ORC_INSTR_ADD_CLASS || op == ORC_INSTR_RENAME_CLASS || op == ORC_INSTR_ADD_PROP ||
                      op == ORC_INSTR_RENAME_PROP;
    bool needs_col = op == ORC_INSTR_ADD_PROP || op == ORC_INSTR_REMOVE_PROP || op == ORC_INSTR_RENAME_PROP ||
                     op == ORC_INSTR_SET_INDEXED || op == ORC_INSTR_SET_PRIMARY_KEY;
    if (op < ORC_INSTR_ADD_CLASS || op > ORC_INSTR_CLEAR_TABLE)
        return txn_poison(txn, orc_fail(ORC_ERR_INTERNAL, "log_schema: op %d is not a schema instruction", op));
    if ((needs_name && !name) || (op == ORC_INSTR_ADD_PROP && !prop))
        return txn_poison(txn, orc_fail(ORC_ERR_INTERNAL, "log_schema: op %d without its name or property", op));
    size_t nlen = needs_name ? strlen(name) : 0;
    int rc = buf_reserve(b, 4 + 5 * CS_VARINT_MAX + nlen);
    if (rc) return rec_fail(txn, start, rc);
    w_u8(b, (uint8_t)op);
    w_u8(b, 0);
    w_var(b, table);
    if (needs_col) w_var(b, col);
    if (needs_name) {
        w_var(b, nlen);
        w_bytes(b, name, nlen);
    }
    if (op == ORC_INSTR_ADD_CLASS) w_u8(b, (uint8_t)kind);
    if (op == ORC_INSTR_ADD_PROP) {
        w_u8(b, (uint8_t)prop->type);
        w_u8(b, (uint8_t)prop->collection);
        w_var(b, prop->flags);
        w_var(b, prop->link_table);
    }
    /* SET_INDEXED records the property as it is after the change. */
    if (op == ORC_INSTR_SET_INDEXED) w_var(b, prop ? (prop->flags & ORC_PROP_INDEXED) : 0);
    return rec_done(txn);
}

/* ---- storing ----------------------------------------------------------------- */

static void header_build(uint8_t *h, uint64_t version, uint32_t count, const uint8_t *instr, size_t n)
{
    h[0] = CS_MAGIC;
    st64(h + 1, version);
    st32(h + 9, count);
    st64(h + 13, cs_checksum(version, count, instr, n));
}

/*
 * Compresses header + instructions into a malloc'ed entry; *out NULL when it does not
 * pay. Reports nothing itself (it may run on the packing thread): returns ORC_OK,
 * ORC_ERR_NOMEM, or ORC_ERR_INTERNAL with *zerr naming zstd's error.
 */
static int compress_entry(const uint8_t *header, const uint8_t *instr, size_t n, int workers, uint8_t **out,
                          size_t *out_size, const char **zerr)
{
    *out = NULL;
    size_t raw = CS_HEADER_SIZE + n;
    size_t bound = ZSTD_compressBound(raw);
    uint8_t *dst = malloc(5 + bound);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (!dst || !cc) {
        free(dst);
        ZSTD_freeCCtx(cc);
        return ORC_ERR_NOMEM;
    }
    size_t zr = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, COMPRESS_LEVEL);
    if (!ZSTD_isError(zr)) zr = ZSTD_CCtx_setPledgedSrcSize(cc, raw);
    /* a libzstd built without threads refuses the parameter: one thread does it all */
    if (!ZSTD_isError(zr) && workers > 0) (void)ZSTD_CCtx_setParameter(cc, ZSTD_c_nbWorkers, workers);
    ZSTD_outBuffer ob = {dst + 5, bound, 0};
    ZSTD_inBuffer ih = {header, CS_HEADER_SIZE, 0};
    while (!ZSTD_isError(zr) && ih.pos < ih.size) zr = ZSTD_compressStream2(cc, &ob, &ih, ZSTD_e_continue);
    ZSTD_inBuffer ib = {instr, n, 0};
    do {
        if (ZSTD_isError(zr)) break;
        zr = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
    } while (zr != 0);
    ZSTD_freeCCtx(cc);
    if (ZSTD_isError(zr)) {
        free(dst);
        *zerr = ZSTD_getErrorName(zr);
        return ORC_ERR_INTERNAL;
    }
    if (ob.pos > raw - raw / 8) {
        free(dst);
        return ORC_OK;
    }
    dst[0] = CS_CODEC_ZSTD;
    st32(dst + 1, (uint32_t)raw);
    *out = dst;
    *out_size = 5 + ob.pos;
    return ORC_OK;
}

/*
 * PACKING BESIDE THE REST OF THE COMMIT
 * A large changeset (a bulk insert: ~90 MB for a million objects) takes as long to
 * checksum and compress as the commit's index flush takes to put its entries, and
 * neither reads what the other writes: the changeset is final once the commit begins
 * (invariant 1), the flush and the metadata puts record nothing. So log_pack_start
 * runs the packing on a thread of its own while the commit flushes, and log_commit
 * waits for it. Small changesets are packed in place by log_commit; a thread that
 * cannot be started leaves the packing to log_commit too.
 */
/* A changeset's log entry in the making: its header, and its compressed form. */
typedef struct log_pack {
    uint64_t version;
    uint32_t count;
    const uint8_t *instr;
    size_t n;
    int workers;
    pthread_t thread;
    bool started, done;
    int rc;
    const char *zerr;
    uint8_t header[CS_HEADER_SIZE];
    uint8_t *packed;
    size_t packed_size;
} log_pack;

static void pack_run(log_pack *pk)
{
    header_build(pk->header, pk->version, pk->count, pk->instr, pk->n);
    pk->rc = ORC_OK;
    if (CS_HEADER_SIZE + pk->n > COMPRESS_MIN)
        pk->rc = compress_entry(pk->header, pk->instr, pk->n, pk->workers, &pk->packed, &pk->packed_size, &pk->zerr);
    pk->done = true;
}

static void *pack_thread(void *arg)
{
    pack_run(arg);
    return NULL;
}

/* An empty pack of the transaction's changeset as it stands, for `version`. */
static void pack_init(log_pack *pk, orc_txn *txn, uint64_t version)
{
    memset(pk, 0, sizeof *pk);
    pk->version = version;
    pk->count = txn->instr_count;
    pk->instr = txn->changeset.data;
    pk->n = txn->changeset.size;
}

static void log_pack_start(orc_txn *txn, uint64_t version, log_pack *pk)
{
    pack_init(pk, txn, version);
    if (CS_HEADER_SIZE + pk->n < COMPRESS_THREADED_MIN || CS_HEADER_SIZE + pk->n > UINT32_MAX) return;
    /* one thread packs beside the flush (workers 0): two zstd workers would only compete with it */
    pk->started = pthread_create(&pk->thread, NULL, pack_thread, pk) == 0;
}

static void log_pack_end(log_pack *pk)
{
    if (pk->started) pthread_join(pk->thread, NULL);
    pk->started = false;
    free(pk->packed);
    pk->packed = NULL;
}

static int log_commit(orc_txn *txn, uint64_t version, log_pack *pk)
{
    const uint8_t *instr = txn->changeset.data;
    size_t n = txn->changeset.size;
    size_t raw = CS_HEADER_SIZE + n;
    if (raw > UINT32_MAX)
        return txn_poison(txn, orc_fail(ORC_ERR_INVALID_ARG, "the changeset of version %llu has %zu bytes; at most %u fit",
                                        (unsigned long long)version, raw, UINT32_MAX));
    if (pk->started) {
        pthread_join(pk->thread, NULL);
        pk->started = false;
    }
    if (!pk->done || pk->version != version || pk->instr != instr || pk->n != n) {
        /* not packed beside the flush: pack here, with zstd's workers for a large one */
        free(pk->packed);
        pack_init(pk, txn, version);
        pk->workers = raw >= COMPRESS_THREADED_MIN ? 2 : 0;
        pack_run(pk);
    }
    if (pk->rc == ORC_ERR_NOMEM)
        return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "allocating %zu bytes to compress a changeset", ZSTD_compressBound(raw)));
    if (pk->rc)
        return txn_poison(txn, orc_fail(ORC_ERR_INTERNAL, "compressing a changeset: %s", pk->zerr ? pk->zerr : "unknown error"));
    const uint8_t *header = pk->header;
    uint8_t *packed = pk->packed;
    size_t packed_size = pk->packed_size;
    uint8_t kbuf[8];
    st64be(kbuf, version);
    MDB_val k = {8, kbuf};
    MDB_val v;
    int mrc;
    if (packed) {
        v.mv_size = packed_size;
        v.mv_data = packed;
        mrc = mdb_put(txn->mdb, txn->core->dbi_log, &k, &v, MDB_APPEND);
    } else {
        /* Raw: reserve the value in place, saving a copy of the whole changeset. */
        v.mv_size = 5 + raw;
        v.mv_data = NULL;
        mrc = mdb_put(txn->mdb, txn->core->dbi_log, &k, &v, MDB_APPEND | MDB_RESERVE);
        if (!mrc) {
            uint8_t *d = v.mv_data;
            d[0] = CS_CODEC_RAW;
            st32(d + 1, (uint32_t)raw);
            memcpy(d + 5, header, CS_HEADER_SIZE);
            if (n) memcpy(d + 5 + CS_HEADER_SIZE, instr, n);
        }
    }
    if (mrc == MDB_KEYEXIST)
        return txn_poison(txn, orc_fail(ORC_ERR_CORRUPT, "the log already holds version %llu or a later one",
                                        (unsigned long long)version));
    if (mrc == MDB_MAP_FULL) return orc_fail(ORC_ERR_MAP_FULL, "storing the changeset of version %llu: the map is full",
                                             (unsigned long long)version);
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "storing a changeset"));
    txn_touched(txn);
    return ORC_OK;
}

/* ---- reading ------------------------------------------------------------------ */

uint64_t orc_log_first_version(orc_txn *txn)
{
    if (!txn || !txn->mdb) return 0;
    MDB_cursor *cur;
    if (mdb_cursor_open(txn->mdb, txn->core->dbi_log, &cur)) return 0;
    MDB_val k, v;
    uint64_t first = 0;
    if (mdb_cursor_get(cur, &k, &v, MDB_FIRST) == 0 && k.mv_size == 8) first = ld64be(k.mv_data);
    mdb_cursor_close(cur);
    return first;
}

int log_entry_decode(uint64_t version, const uint8_t *e, size_t size, const uint8_t **raw_out, size_t *raw_size,
                     bool *compressed)
{
    if (size < 5)
        return orc_fail(ORC_ERR_CORRUPT, "the log entry of version %llu has %zu bytes, less than its 5-byte header",
                        (unsigned long long)version, size);
    uint32_t raw = ld32(e + 1);
    *raw_size = raw;
    *compressed = false;
    if (e[0] == CS_CODEC_RAW) {
        if (raw != size - 5)
            return orc_fail(ORC_ERR_CORRUPT, "the log entry of version %llu says %u bytes but holds %zu",
                            (unsigned long long)version, raw, size - 5);
        *raw_out = e + 5;
        return ORC_OK;
    }
    if (e[0] != CS_CODEC_ZSTD)
        return orc_fail(ORC_ERR_CORRUPT, "the log entry of version %llu has unknown codec %u",
                        (unsigned long long)version, e[0]);
    unsigned long long fcs = ZSTD_getFrameContentSize(e + 5, size - 5);
    if (fcs != raw)
        return orc_fail(ORC_ERR_CORRUPT, "the compressed log entry of version %llu says %u bytes, its frame %s",
                        (unsigned long long)version, raw,
                        fcs == ZSTD_CONTENTSIZE_ERROR ? "is unreadable" : "disagrees");
    *compressed = true;
    *raw_out = NULL;
    return ORC_OK;
}

int log_entry_inflate(uint64_t version, const uint8_t *e, size_t size, uint8_t *dst, size_t raw)
{
    size_t zr = ZSTD_decompress(dst, raw, e + 5, size - 5);
    if (ZSTD_isError(zr) || zr != raw)
        return orc_fail(ORC_ERR_CORRUPT, "the log entry of version %llu does not decompress: %s",
                        (unsigned long long)version, ZSTD_isError(zr) ? ZSTD_getErrorName(zr) : "size mismatch");
    return ORC_OK;
}

int orc_log_get(orc_txn *txn, uint64_t version, const void **data_out, size_t *size_out)
{
    if (!txn || !data_out || !size_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_log_get needs a transaction and out pointers");
    if (!txn->mdb) return orc_fail(ORC_ERR_BAD_TXN, "the transaction has ended");
    if (version == 0 || version > txn->version)
        return orc_fail(ORC_ERR_NOT_FOUND, "version %llu is not committed (this transaction reads version %llu)",
                        (unsigned long long)version, (unsigned long long)txn->version);
    uint8_t kbuf[8];
    st64be(kbuf, version);
    MDB_val k = {8, kbuf}, v;
    int mrc = mdb_get(txn->mdb, txn->core->dbi_log, &k, &v);
    if (mrc == MDB_NOTFOUND) {
        uint64_t first = orc_log_first_version(txn);
        if (first == 0 || version < first)
            return orc_fail(ORC_ERR_TRIMMED, "the changeset of version %llu was trimmed (the log starts at %llu)",
                            (unsigned long long)version, (unsigned long long)first);
        return orc_fail(ORC_ERR_CORRUPT, "the log has no entry for version %llu between %llu and %llu",
                        (unsigned long long)version, (unsigned long long)first, (unsigned long long)txn->version);
    }
    if (mrc) return orc_fail_mdb(mrc, "reading the log");
    const uint8_t *raw;
    size_t raw_size;
    bool compressed;
    int rc = log_entry_decode(version, v.mv_data, v.mv_size, &raw, &raw_size, &compressed);
    if (rc) return rc;
    if (compressed) {
        uint8_t *dst = malloc(raw_size ? raw_size : 1);
        if (!dst) return orc_fail(ORC_ERR_NOMEM, "allocating %zu bytes for the changeset of version %llu", raw_size,
                                  (unsigned long long)version);
        if ((rc = log_entry_inflate(version, v.mv_data, v.mv_size, dst, raw_size))) {
            free(dst);
            return rc;
        }
        if ((rc = txn_keep(txn, dst))) return rc; /* txn_keep frees dst on failure */
        raw = dst;
    }
    *data_out = raw;
    *size_out = raw_size;
    return ORC_OK;
}

/* ---- holds and trimming ------------------------------------------------------------ */

static int hold_name(const char *consumer, char *name)
{
    size_t n = consumer ? strlen(consumer) : 0;
    if (n == 0 || n > ORC_MAX_NAME)
        return orc_fail(ORC_ERR_INVALID_ARG, "a log consumer's name has 1 to %d bytes", ORC_MAX_NAME);
    memcpy(name, HOLD_PREFIX, HOLD_PREFIX_LEN);
    memcpy(name + HOLD_PREFIX_LEN, consumer, n + 1);
    return ORC_OK;
}

int orc_log_hold(orc_txn *txn, const char *consumer, uint64_t version)
{
    char name[HOLD_PREFIX_LEN + ORC_MAX_NAME + 1];
    int rc = txn_require_write(txn);
    if (!rc) rc = hold_name(consumer, name);
    if (rc) return rc;
    uint8_t v[8];
    st64(v, version);
    return ORC_WRITE_OP(txn, meta_put(txn, name, v, 8));
}

int orc_log_release(orc_txn *txn, const char *consumer)
{
    char name[HOLD_PREFIX_LEN + ORC_MAX_NAME + 1];
    int rc = txn_require_write(txn);
    if (!rc) rc = hold_name(consumer, name);
    if (rc) return rc;
    return ORC_WRITE_OP(txn, meta_del(txn, name));
}

/* Lowers *limit to every consumer's position. */
static int holds_min(orc_txn *txn, uint64_t *limit)
{
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_meta, &cur);
    if (mrc) return orc_fail_mdb(mrc, "opening a cursor on the metadata");
    MDB_val k = {HOLD_PREFIX_LEN, HOLD_PREFIX}, v;
    int rc = ORC_OK;
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); mrc == 0; mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size < HOLD_PREFIX_LEN || memcmp(k.mv_data, HOLD_PREFIX, HOLD_PREFIX_LEN) != 0) break;
        if (v.mv_size != 8) {
            rc = orc_fail(ORC_ERR_CORRUPT, "the log hold '%.*s' has %zu bytes, not 8", (int)k.mv_size,
                          (const char *)k.mv_data, v.mv_size);
            break;
        }
        uint64_t pos = ld64(v.mv_data);
        if (pos < *limit) *limit = pos;
    }
    if (!rc && mrc && mrc != MDB_NOTFOUND) rc = orc_fail_mdb(mrc, "reading log holds");
    mdb_cursor_close(cur);
    return rc;
}

static int trim_body(orc_txn *txn, uint64_t upto, uint64_t *trimmed)
{
    *trimmed = 0;
    uint64_t limit = upto;
    int rc = holds_min(txn, &limit);
    if (rc || limit == 0) return rc;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_log, &cur);
    if (mrc) return orc_fail_mdb(mrc, "opening a cursor on the log");
    MDB_val k, v;
    /* Re-seek the first entry after each delete: LMDB 0.9's cursor position
     * after mdb_cursor_del at a page end is a known trap. */
    while ((mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST)) == 0) {
        if (k.mv_size != 8) {
            rc = orc_fail(ORC_ERR_CORRUPT, "a log key has %zu bytes, not 8", k.mv_size);
            break;
        }
        uint64_t ver = ld64be(k.mv_data);
        if (ver > limit) break;
        if ((mrc = mdb_cursor_del(cur, 0))) break;
        *trimmed = ver;
    }
    mdb_cursor_close(cur);
    if (!rc && mrc && mrc != MDB_NOTFOUND) {
        rc = mrc == MDB_MAP_FULL ? orc_fail(ORC_ERR_MAP_FULL, "trimming the log: the map is full")
                                 : txn_poison(txn, orc_fail_mdb(mrc, "trimming the log"));
    }
    if (*trimmed) txn_touched(txn);
    return rc;
}

static int log_keeps(orc_txn *txn, bool *keep)
{
    unsigned flags = txn->env->flags; /* the handle's: a choice of its opener, not of the file */
    *keep = true;
    if (flags & ORC_ENV_NO_LOG) {
        *keep = false;
    } else if ((flags & ORC_ENV_LEAN_LOG) && CS_HEADER_SIZE + txn->changeset.size >= LEAN_MIN) {
        uint64_t limit = UINT64_MAX;
        int rc = holds_min(txn, &limit);
        if (rc) return rc;
        *keep = limit != UINT64_MAX;
    }
    return ORC_OK;
}

static int log_empty(orc_txn *txn)
{
    /* The database's record answers "empty?" (every commit of a store without a log asks) */
    MDB_stat st;
    int mrc = mdb_stat(txn->mdb, txn->core->dbi_log, &st);
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "reading the log's record"));
    if (st.ms_entries == 0) return ORC_OK;
    /* mdb_drop(.., 0) frees the pages of the whole tree without a delete per entry */
    mrc = mdb_drop(txn->mdb, txn->core->dbi_log, 0);
    if (mrc == MDB_MAP_FULL) return orc_fail(ORC_ERR_MAP_FULL, "emptying the log: the map is full");
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "emptying the log"));
    txn_touched(txn);
    return ORC_OK;
}

int log_store_changeset(orc_txn *txn, uint64_t version, txn_commit_body body)
{
    log_pack pk;
    bool keep;
    int rc = log_keeps(txn, &keep);
    if (rc) return rc;
    if (keep) log_pack_start(txn, version, &pk);
    rc = body(txn, version);
    if (!keep) return rc ? rc : log_empty(txn);
    if (!rc) rc = log_commit(txn, version, &pk);
    log_pack_end(&pk);
    return rc;
}

int orc_log_trim(orc_txn *txn, uint64_t upto, uint64_t *trimmed_upto_out)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    uint64_t trimmed = 0;
    rc = ORC_WRITE_OP(txn, trim_body(txn, upto, &trimmed));
    if (trimmed_upto_out) *trimmed_upto_out = rc ? 0 : trimmed;
    return rc;
}
