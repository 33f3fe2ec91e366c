/* workload.c — the fault tests' transactions and state reader (see workload.h). */
#include "workload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEM_IDS 200
#define BIG_TEXT_MAX 9000

enum { ITEM_ID, ITEM_N, ITEM_TEXT };
enum { COMMIT_SEQ, COMMIT_DIGEST };

typedef struct tables {
    uint32_t item;
    uint32_t commit;
    uint16_t item_col[3];
    uint16_t commit_col[2];
} tables;

uint64_t fw_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

static uint64_t item_hash(int64_t id, int64_t n, const char *text, size_t len)
{
    uint64_t h = mix(mix(0x51ED27, (uint64_t)id), (uint64_t)n);
    uint64_t f = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) f = (f ^ (uint8_t)text[i]) * 1099511628211ULL;
    return mix(h, f ^ len);
}

static int find_tables(orc_txn *t, tables *out)
{
    orc_class_info item, commit;
    int rc = orc_schema_class_find(t, "Item", &item);
    if (!rc) rc = orc_schema_class_find(t, "Commit", &commit);
    if (rc) return rc;
    out->item = item.table;
    out->commit = commit.table;
    static const char *item_names[] = {"id", "n", "text"};
    static const char *commit_names[] = {"seq", "digest"};
    orc_prop_info p;
    for (int i = 0; i < 3; i++) {
        if ((rc = orc_schema_prop_find(t, item.table, item_names[i], &p))) return rc;
        out->item_col[i] = p.col;
    }
    for (int i = 0; i < 2; i++) {
        if ((rc = orc_schema_prop_find(t, commit.table, commit_names[i], &p))) return rc;
        out->commit_col[i] = p.col;
    }
    return ORC_OK;
}

static int create_schema(orc_txn *t, tables *out)
{
    uint32_t item, commit;
    uint16_t col;
    int rc = orc_class_add(t, "Item", ORC_CLASS_TOP_LEVEL, &item);
    orc_prop_spec item_props[] = {
        {"id", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0},
        {"n", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_INDEXED, 0},
        {"text", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0},
    };
    for (int i = 0; !rc && i < 3; i++) rc = orc_prop_add(t, item, &item_props[i], &col);
    if (!rc) rc = orc_class_add(t, "Commit", ORC_CLASS_TOP_LEVEL, &commit);
    orc_prop_spec commit_props[] = {
        {"seq", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0},
        {"digest", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0},
    };
    for (int i = 0; !rc && i < 2; i++) rc = orc_prop_add(t, commit, &commit_props[i], &col);
    return rc ? rc : find_tables(t, out);
}

/* The hash of the Item with primary key `id`, or 0 with *exists false. */
static int item_current(orc_txn *t, const tables *tb, int64_t id, uint64_t *key, bool *exists, uint64_t *hash)
{
    orc_value pk = {.type = ORC_TYPE_INT, .integer = id};
    int rc = orc_obj_find(t, tb->item, &pk, key);
    if (rc == ORC_ERR_NOT_FOUND) {
        *exists = false;
        *hash = 0;
        return ORC_OK;
    }
    if (rc) return rc;
    orc_value n, text;
    rc = orc_obj_get(t, tb->item, *key, tb->item_col[ITEM_N], &n);
    if (!rc) rc = orc_obj_get(t, tb->item, *key, tb->item_col[ITEM_TEXT], &text);
    if (rc) return rc;
    *exists = true;
    *hash = item_hash(id, n.integer, text.string.data, text.string.size);
    return ORC_OK;
}

static int upsert(orc_txn *t, const tables *tb, uint64_t *rng, uint64_t *digest, char *text_buf)
{
    int64_t id = 1 + (int64_t)(fw_rand(rng) % ITEM_IDS);
    int64_t n = (int64_t)(fw_rand(rng) % 1000000);
    size_t len = fw_rand(rng) % 10 == 0 ? 1000 + fw_rand(rng) % (BIG_TEXT_MAX - 1000) : fw_rand(rng) % 200;
    for (size_t i = 0; i < len; i++) text_buf[i] = (char)('a' + fw_rand(rng) % 26);
    uint64_t key, old;
    bool exists;
    int rc = item_current(t, tb, id, &key, &exists, &old);
    if (rc) return rc;
    orc_value vals[3] = {{.type = ORC_TYPE_INT, .integer = id},
                         {.type = ORC_TYPE_INT, .integer = n},
                         {.type = ORC_TYPE_STRING, .string = {text_buf, len}}};
    if (exists) {
        rc = orc_obj_set_many(t, tb->item, key, &tb->item_col[ITEM_N], &vals[1], 2);
    } else {
        rc = orc_obj_create(t, tb->item, tb->item_col, vals, 3, &key);
    }
    if (rc) return rc;
    *digest = *digest - old + item_hash(id, n, text_buf, len);
    return ORC_OK;
}

static int erase(orc_txn *t, const tables *tb, uint64_t *rng, uint64_t *digest)
{
    int64_t id = 1 + (int64_t)(fw_rand(rng) % ITEM_IDS);
    uint64_t key, old;
    bool exists;
    int rc = item_current(t, tb, id, &key, &exists, &old);
    if (rc || !exists) return rc;
    rc = orc_obj_erase(t, tb->item, key);
    if (!rc) *digest -= old;
    return rc;
}

int fw_commit(orc_env *env, uint64_t *rng, uint64_t seq, uint64_t *digest_out,
              void (*before_commit)(uint64_t seq, uint64_t digest, void *ctx), void *ctx)
{
    static char text_buf[BIG_TEXT_MAX];
    orc_txn *t;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &t);
    if (rc) return rc;
    tables tb;
    rc = find_tables(t, &tb);
    if (rc == ORC_ERR_NOT_FOUND && seq == 1) rc = create_schema(t, &tb);
    uint64_t digest = 0;
    if (!rc && seq > 1) {
        orc_value pk = {.type = ORC_TYPE_INT, .integer = (int64_t)seq - 1}, d;
        uint64_t key;
        rc = orc_obj_find(t, tb.commit, &pk, &key);
        if (!rc) rc = orc_obj_get(t, tb.commit, key, tb.commit_col[COMMIT_DIGEST], &d);
        if (!rc) digest = (uint64_t)d.integer;
    }
    int nops = fw_rand(rng) % 15 == 0 ? 60 : 1 + (int)(fw_rand(rng) % 6);
    for (int i = 0; !rc && i < nops; i++) {
        rc = fw_rand(rng) % 10 < 7 ? upsert(t, &tb, rng, &digest, text_buf) : erase(t, &tb, rng, &digest);
    }
    if (!rc) {
        orc_value vals[2] = {{.type = ORC_TYPE_INT, .integer = (int64_t)seq},
                             {.type = ORC_TYPE_INT, .integer = (int64_t)digest}};
        uint64_t key;
        rc = orc_obj_create(t, tb.commit, tb.commit_col, vals, 2, &key);
    }
    if (rc) {
        orc_txn_abort(t);
        return rc;
    }
    *digest_out = digest;
    if (before_commit) before_commit(seq, digest, ctx);
    return orc_txn_commit(t, NULL);
}

static int state_fail(char *why, size_t n, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int state_fail(char *why, size_t n, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return rc;
}

int fw_read_state(orc_env *env, fw_state *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    why[0] = 0;
    orc_txn *t;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &t);
    if (rc) return state_fail(why, why_size, rc, "beginning a read: %s", orc_last_error());
    tables tb;
    rc = find_tables(t, &tb);
    if (rc == ORC_ERR_NOT_FOUND) {
        /* Before the first transaction: no class at all. */
        out->whole = orc_schema_class_count(t) == 0;
        orc_txn_abort(t);
        if (!out->whole) snprintf(why, why_size, "the schema is there only in part");
        return ORC_OK;
    }
    if (rc) goto read_failed;
    uint64_t commits = 0, max_seq = 0, digest = 0;
    orc_keys keys = {0};
    rc = orc_table_keys(t, tb.commit, &keys);
    for (size_t i = 0; !rc && i < keys.count; i++) {
        orc_value s, d;
        rc = orc_obj_get(t, tb.commit, keys.keys[i], tb.commit_col[COMMIT_SEQ], &s);
        if (!rc) rc = orc_obj_get(t, tb.commit, keys.keys[i], tb.commit_col[COMMIT_DIGEST], &d);
        if (rc) break;
        commits++;
        if ((uint64_t)s.integer > max_seq) {
            max_seq = (uint64_t)s.integer;
            digest = (uint64_t)d.integer;
        }
    }
    orc_keys_free(&keys);
    if (rc) goto read_failed;
    uint64_t items_digest = 0, items = 0;
    rc = orc_table_keys(t, tb.item, &keys);
    for (size_t i = 0; !rc && i < keys.count; i++) {
        orc_value id, n, text;
        rc = orc_obj_get(t, tb.item, keys.keys[i], tb.item_col[ITEM_ID], &id);
        if (!rc) rc = orc_obj_get(t, tb.item, keys.keys[i], tb.item_col[ITEM_N], &n);
        if (!rc) rc = orc_obj_get(t, tb.item, keys.keys[i], tb.item_col[ITEM_TEXT], &text);
        if (rc) break;
        items++;
        items_digest += item_hash(id.integer, n.integer, text.string.data, text.string.size);
    }
    orc_keys_free(&keys);
    if (rc) goto read_failed;
    orc_txn_abort(t);
    out->seq = max_seq;
    out->digest = digest;
    out->items = items;
    out->whole = false;
    if (commits != max_seq)
        return state_fail(why, why_size, ORC_OK, "%llu Commits but the highest seq is %llu (a gap)",
                          (unsigned long long)commits, (unsigned long long)max_seq);
    if (max_seq == 0 && items != 0)
        return state_fail(why, why_size, ORC_OK, "%llu Items but no Commit", (unsigned long long)items);
    if (items_digest != digest)
        return state_fail(why, why_size, ORC_OK,
                          "the %llu Items' digest %016llx differs from Commit %llu's %016llx (a partial transaction)",
                          (unsigned long long)items, (unsigned long long)items_digest, (unsigned long long)max_seq,
                          (unsigned long long)digest);
    out->whole = true;
    return ORC_OK;

read_failed:
    snprintf(why, why_size, "reading the file: %s", orc_last_error());
    orc_txn_abort(t);
    return rc;
}

int fw_commit_digest(orc_env *env, uint64_t seq, uint64_t *digest_out)
{
    orc_txn *t;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &t);
    if (rc) return rc;
    tables tb;
    rc = find_tables(t, &tb);
    orc_value pk = {.type = ORC_TYPE_INT, .integer = (int64_t)seq}, d;
    uint64_t key;
    if (!rc) rc = orc_obj_find(t, tb.commit, &pk, &key);
    if (!rc) rc = orc_obj_get(t, tb.commit, key, tb.commit_col[COMMIT_DIGEST], &d);
    if (!rc) *digest_out = (uint64_t)d.integer;
    orc_txn_abort(t);
    return rc;
}
