/*
 * replay.c — re-executing a changeset through the engine (log_replay): map growth
 * replays the transaction's own changeset (the replay hook, layers.c), and tests and
 * the fuzzer replay recorded ones. Above every layer it drives: objects, collections
 * and the schema calls of orcore.h.
 *
 * INVARIANT (log_read.c, 4): replay runs only instructions a caller made (DERIVED
 * and INITIAL ones are consequences the engine derives again) and checks that every
 * key, table id and column id the engine hands out equals the recorded one.
 */
#include "replay.h"

#include "log_format.h"
#include "object.h"

#include <stdio.h>
#include <stdlib.h>

static int copy_name(const orc_instr *in, char *name)
{
    if (in->name_len > ORC_MAX_NAME || memchr(in->name, 0, in->name_len))
        return orc_fail(ORC_ERR_CORRUPT, "a recorded name has a NUL byte or more than %d bytes", ORC_MAX_NAME);
    memcpy(name, in->name, in->name_len);
    name[in->name_len] = 0;
    return ORC_OK;
}

static int id_mismatch(const char *what, uint64_t got, uint64_t recorded)
{
    return orc_fail(ORC_ERR_INTERNAL, "replay produced %s %llu where the changeset recorded %llu", what,
                    (unsigned long long)got, (unsigned long long)recorded);
}

static int replay_create(orc_txn *txn, const orc_instr *in, const uint16_t *cols, const orc_value *vals, size_t n)
{
    int rc;
    const orc_class *c = schema_class_req(txn, in->table, &rc);
    if (!c) return rc;
    /* An embedded object comes into being through its CREATE_EMBEDDED. */
    if (c->kind == ORC_CLASS_EMBEDDED) return ORC_OK;
    uint32_t before = txn->instr_count;
    uint64_t got = 0;
    if ((rc = obj_create_internal(txn, in->table, in->key, cols, vals, n, &got))) return rc;
    if (got != in->key) return id_mismatch("object key", got, in->key);
    /* obj_create_internal may leave the recording to its public caller. */
    if (txn->instr_count == before) {
        if (!(c = schema_class_req(txn, in->table, &rc))) return rc;
        rc = log_create(txn, c, in->key, cols, vals, n);
    }
    return rc;
}

static int replay_schema(orc_txn *txn, const orc_instr *in)
{
    char name[ORC_MAX_NAME + 1];
    int rc = ORC_OK;
    if (in->name && (rc = copy_name(in, name))) return rc;
    switch (in->op) {
    case ORC_INSTR_ADD_CLASS: {
        uint32_t t = 0;
        if (!(rc = orc_class_add(txn, name, in->kind, &t)) && t != in->table) rc = id_mismatch("table id", t, in->table);
        return rc;
    }
    case ORC_INSTR_REMOVE_CLASS: return orc_class_remove(txn, in->table);
    case ORC_INSTR_RENAME_CLASS: return orc_class_rename(txn, in->table, name);
    case ORC_INSTR_ADD_PROP: {
        orc_prop_spec spec = {name, in->prop_type, in->collection, in->prop_flags, in->link_table};
        uint16_t col = 0;
        if (!(rc = orc_prop_add(txn, in->table, &spec, &col)) && col != in->col) rc = id_mismatch("column id", col, in->col);
        return rc;
    }
    case ORC_INSTR_REMOVE_PROP: return orc_prop_remove(txn, in->table, in->col);
    case ORC_INSTR_RENAME_PROP: return orc_prop_rename(txn, in->table, in->col, name);
    case ORC_INSTR_SET_INDEXED: return orc_prop_set_indexed(txn, in->table, in->col, (in->prop_flags & ORC_PROP_INDEXED) != 0);
    case ORC_INSTR_SET_PRIMARY_KEY:
        return orc_class_set_primary_key(txn, in->table, in->col == UINT16_MAX ? -1 : (int32_t)in->col);
    case ORC_INSTR_CLEAR_TABLE: return orc_table_clear(txn, in->table);
    default: return orc_fail(ORC_ERR_CORRUPT, "instruction op %d cannot be replayed", in->op);
    }
}

static int replay_one(orc_txn *txn, const orc_instr *in)
{
    uint32_t t = in->table;
    uint64_t k = in->key;
    uint16_t col = in->col;
    const orc_value *dk = in->dict_key.type == ORC_TYPE_STRING ? &in->dict_key : NULL;
    switch (in->op) {
    case ORC_INSTR_ERASE: return orc_obj_erase(txn, t, k);
    case ORC_INSTR_SET: return orc_obj_set(txn, t, k, col, &in->value);
    case ORC_INSTR_ADD_INT: return orc_obj_add_int(txn, t, k, col, in->delta);
    case ORC_INSTR_LIST_INSERT: return orc_list_insert(txn, t, k, col, (size_t)in->index, &in->value);
    case ORC_INSTR_LIST_SET: return orc_list_set(txn, t, k, col, (size_t)in->index, &in->value);
    case ORC_INSTR_LIST_ERASE: return orc_list_erase(txn, t, k, col, (size_t)in->index);
    case ORC_INSTR_LIST_MOVE: return orc_list_move(txn, t, k, col, (size_t)in->index, (size_t)in->index2);
    case ORC_INSTR_COLL_CLEAR: return orc_coll_clear(txn, t, k, col);
    case ORC_INSTR_SET_INSERT: return orc_set_insert(txn, t, k, col, &in->value, NULL);
    case ORC_INSTR_SET_ERASE: return orc_set_erase(txn, t, k, col, &in->value, NULL);
    case ORC_INSTR_DICT_SET: return orc_dict_set(txn, t, k, col, dk->string.data, dk->string.size, &in->value);
    case ORC_INSTR_DICT_ERASE: return orc_dict_erase(txn, t, k, col, dk->string.data, dk->string.size, NULL);
    case ORC_INSTR_CREATE_EMBEDDED: {
        uint64_t child = 0;
        int rc = orc_obj_create_embedded(txn, t, k, col, (size_t)in->index, dk, &child);
        if (!rc && child != in->child_key) rc = id_mismatch("embedded object key", child, in->child_key);
        return rc;
    }
    default: return replay_schema(txn, in);
    }
}

int log_replay(orc_txn *txn, const uint8_t *data, size_t size)
{
    int rc = txn_require_write(txn);
    if (rc || size == 0) return rc;
    if (!data) return orc_fail(ORC_ERR_INVALID_ARG, "log_replay: no data");
    /* Replaying records into txn->changeset, which may move: never read from it. */
    uint8_t *copy = NULL;
    const orc_buf *own = &txn->changeset;
    if (own->data && data < own->data + own->cap && data + size > own->data) {
        if (!(copy = malloc(size))) return orc_fail(ORC_ERR_NOMEM, "copying a changeset of %zu bytes to replay", size);
        memcpy(copy, data, size);
        data = copy;
    }
    orc_changeset_iter it;
    if (data[0] == CS_MAGIC) rc = orc_changeset_iter_init(&it, data, size);
    else log_iter_bare(&it, data, size);

    uint16_t *cols = NULL;
    orc_value *vals = NULL;
    size_t cap = 0;
    uint32_t seq = 0;
    orc_instr in;
    while (!rc) {
        rc = orc_changeset_iter_next(&it, &in);
        if (rc == ORC_ERR_NOT_FOUND) {
            rc = ORC_OK;
            break;
        }
        if (rc) break;
        seq++;
        size_t n = 0;
        if (in.op == ORC_INSTR_CREATE) {
            if (it.pending > cap) {
                size_t ncap = it.pending;
                uint16_t *c2 = realloc(cols, ncap * sizeof *c2);
                if (c2) cols = c2;
                orc_value *v2 = c2 ? realloc(vals, ncap * sizeof *v2) : NULL;
                if (v2) vals = v2;
                if (!c2 || !v2) {
                    rc = orc_fail(ORC_ERR_NOMEM, "allocating %zu initial values to replay", ncap);
                    break;
                }
                cap = ncap;
            }
            orc_instr set;
            while (!rc && it.pending) {
                if (!(rc = orc_changeset_iter_next(&it, &set))) {
                    cols[n] = set.col;
                    vals[n++] = set.value;
                }
            }
            if (rc) break;
        }
        if (in.flags & (ORC_INSTR_DERIVED | ORC_INSTR_INITIAL)) continue;
        rc = in.op == ORC_INSTR_CREATE ? replay_create(txn, &in, cols, vals, n) : replay_one(txn, &in);
        if (rc) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", orc_last_error());
            rc = orc_fail(rc, "replaying instruction %u (op %d, table %u, key %llu): %s", seq, (int)in.op, in.table,
                          (unsigned long long)in.key, msg);
        }
    }
    free(cols);
    free(vals);
    free(copy);
    return rc;
}
