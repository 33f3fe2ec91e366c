/*
 * collection_write.c — changing lists, sets and dictionaries.
 *
 * The record layout and invariants are in collection.c. Every mutation here
 * follows one order, so that a failure leaves either nothing changed or a
 * poisoned transaction:
 *   1. validate (coll_open, coll_check_value, index ranges): nothing changes;
 *   2. take what is needed from the old blob (link targets, a logged value)
 *      and build the new blob, while the old one is still readable;
 *   3. record the instruction (log_coll) before the change; derived ones
 *      (DERIVED flag) for removals caused by an erased link target;
 *   4. write the record (coll_store), then add the new element's backlink,
 *      then remove the old element's backlink and erase the embedded object
 *      it owned (so that erasure finds no link left to it).
 * Instructions are recorded only when something changed: a set insert of a
 * present value, a move to the same place, a clear of an empty collection
 * record nothing. A failure after step 3 poisons the transaction, except
 * ORC_ERR_MAP_FULL, which ORC_WRITE_OP answers by growing the map and
 * replaying the changeset, then running the call again.
 */
#include "collection_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/*
 * Erasing one element, in the order above, around the caller's log record:
 * elem_cut (step 2) reads the element at `pos` and its link, and builds the
 * blob without it; cut_store (step 4) takes the log record's answer `rc` and,
 * when it is OK, writes the blob, drops the link and sets *erased_out.
 */
typedef struct cut {
    orc_value old; /* the element, read from the old blob */
    linkref was;   /* its link, if it is one */
    orc_buf *out;  /* the blob without it */
} cut;

static int elem_cut(orc_txn *txn, const site *s, uint32_t pos, cut *c)
{
    int rc = coll_elem(&s->c, pos, NULL, &c->old);
    if (rc) return rc;
    coll_link_of(txn, &c->old, &c->was);
    if ((rc = coll_build_buf(txn, &c->out))) return rc;
    return coll_splice(&s->c, pos, 1, NULL, c->out);
}

static int cut_store(orc_txn *txn, int rc, uint32_t table, uint64_t key, uint16_t col, const cut *c,
                     bool *erased_out)
{
    if (!rc) rc = coll_store(txn, table, key, col, c->out);
    if (!rc) rc = coll_drop_link(txn, &c->was, table, col, key);
    if (rc) return txn_poison(txn, rc);
    if (erased_out) *erased_out = true;
    return ORC_OK;
}

/* ---- list writes ----------------------------------------------------------------- */

static int list_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value)
{
    site s;
    const orc_buf *enc;
    orc_buf *out;
    int rc = coll_open(txn, table, key, col, ORC_COLL_LIST, true, &s);
    if (rc) return rc;
    if (i > s.c.count) return coll_out_of_range(&s, i);
    if ((rc = coll_check_value(txn, &s, value, true))) return rc;
    if ((rc = coll_encode(txn, NULL, value, &enc)) || (rc = coll_build_buf(txn, &out)) ||
        (rc = coll_splice(&s.c, (uint32_t)i, 0, enc, out)))
        return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_LIST_INSERT, col, i, 0, NULL, value, false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    if (!rc && value->type == ORC_TYPE_LINK) rc = blink_add(txn, value->link.table, value->link.key, table, col, key);
    return rc ? txn_poison(txn, rc) : ORC_OK;
}

/* n inserts at i, i + 1, ...: the record is rebuilt once, not once per element. */
static int list_insert_many(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i,
                            const orc_value *values, size_t n)
{
    site s;
    orc_buf *out;
    if (n && !values) return orc_fail(ORC_ERR_INVALID_ARG, "no values given for %zu list inserts", n);
    int rc = coll_open(txn, table, key, col, ORC_COLL_LIST, true, &s);
    if (rc) return rc;
    if (i > s.c.count) return coll_out_of_range(&s, i);
    if (n == 0) return ORC_OK;
    if (n > UINT32_MAX - s.c.count) return orc_fail(ORC_ERR_INVALID_ARG, "the collection would exceed 4 GB");
    for (size_t j = 0; j < n; j++)
        if ((rc = coll_check_value(txn, &s, &values[j], true))) return rc;
    /* The new elements' encodings, one after another, then the pieces of the new record:
       the elements before i, the new ones, the rest. */
    orc_buf enc = {0};
    size_t count = s.c.count;
    size_t *ends = malloc(n * sizeof *ends);
    piece *ps = malloc((count + n) * sizeof *ps);
    if (!ends || !ps) {
        rc = orc_fail(ORC_ERR_NOMEM, "allocating %zu list inserts", n);
        goto out;
    }
    for (size_t j = 0; j < n && !rc; j++) {
        rc = val_encode(&enc, &values[j]);
        ends[j] = enc.size;
    }
    if (rc) goto out;
    size_t np = 0;
    for (size_t j = 0; j <= count; j++) {
        if (j == i)
            for (size_t k = 0; k < n; k++)
                ps[np++] = (piece){enc.data + (k ? ends[k - 1] : 0), ends[k] - (k ? ends[k - 1] : 0), false};
        if (j == count) break;
        size_t a, b;
        coll_bounds(&s.c, (uint32_t)j, &a, &b);
        ps[np++] = (piece){s.c.blob + a, b - a, false};
    }
    if ((rc = coll_build_buf(txn, &out)) || (rc = coll_build_pieces(ps, np, out))) goto out;
    for (size_t k = 0; k < n && !rc; k++)
        rc = log_coll(txn, s.cls, key, ORC_INSTR_LIST_INSERT, col, i + k, 0, NULL, &values[k], false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    for (size_t k = 0; k < n && !rc; k++)
        if (values[k].type == ORC_TYPE_LINK) rc = blink_add(txn, values[k].link.table, values[k].link.key, table, col, key);
    if (rc) rc = txn_poison(txn, rc);
out:
    free(ends);
    free(ps);
    buf_free(&enc);
    return rc;
}

static int list_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value)
{
    site s;
    const orc_buf *enc;
    orc_buf *out;
    orc_value old;
    linkref was;
    int rc = coll_open(txn, table, key, col, ORC_COLL_LIST, true, &s);
    if (rc) return rc;
    if (i >= s.c.count) return coll_out_of_range(&s, i);
    if ((rc = coll_check_value(txn, &s, value, true)) || (rc = coll_elem(&s.c, (uint32_t)i, NULL, &old))) return rc;
    coll_link_of(txn, &old, &was);
    if ((rc = coll_encode(txn, NULL, value, &enc)) || (rc = coll_build_buf(txn, &out)) ||
        (rc = coll_splice(&s.c, (uint32_t)i, 1, enc, out)))
        return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_LIST_SET, col, i, 0, NULL, value, false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    /* Add before removing: the same target set again never drops to a zero count. */
    if (!rc && value->type == ORC_TYPE_LINK) rc = blink_add(txn, value->link.table, value->link.key, table, col, key);
    if (!rc) rc = coll_drop_link(txn, &was, table, col, key);
    return rc ? txn_poison(txn, rc) : ORC_OK;
}

static int list_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i)
{
    site s;
    cut c;
    int rc = coll_open(txn, table, key, col, ORC_COLL_LIST, true, &s);
    if (rc) return rc;
    if (i >= s.c.count) return coll_out_of_range(&s, i);
    if ((rc = elem_cut(txn, &s, (uint32_t)i, &c))) return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_LIST_ERASE, col, i, 0, NULL, NULL, false);
    return cut_store(txn, rc, table, key, col, &c, NULL);
}

static int list_move(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t from, size_t to)
{
    site s;
    orc_buf *out;
    int rc = coll_open(txn, table, key, col, ORC_COLL_LIST, true, &s);
    if (rc) return rc;
    if (from >= s.c.count) return coll_out_of_range(&s, from);
    if (to >= s.c.count) return coll_out_of_range(&s, to);
    if (from == to) return ORC_OK; /* nothing changes, nothing to record */
    uint32_t n = s.c.count;
    piece *ps = malloc(n * sizeof *ps);
    if (!ps) return orc_fail(ORC_ERR_NOMEM, "allocating a list of %u elements", n);
    /* Element `from` leaves; the rest keep their order; it comes back at `to`. */
    size_t fs, fe;
    coll_bounds(&s.c, (uint32_t)from, &fs, &fe);
    size_t np = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j == from) continue;
        if (np == to) ps[np++] = (piece){s.c.blob + fs, fe - fs, false};
        size_t a, b;
        coll_bounds(&s.c, j, &a, &b);
        ps[np++] = (piece){s.c.blob + a, b - a, false};
    }
    if (np == to) ps[np++] = (piece){s.c.blob + fs, fe - fs, false};
    rc = coll_build_buf(txn, &out);
    if (!rc) rc = coll_build_pieces(ps, np, out);
    free(ps);
    if (rc) return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_LIST_MOVE, col, from, to, NULL, NULL, false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    return rc ? txn_poison(txn, rc) : ORC_OK;
}

static int coll_clear(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col)
{
    site s;
    linkvec lv = {0};
    static const orc_buf empty = {0};
    int rc = coll_open(txn, table, key, col, ORC_COLL_NONE, true, &s);
    if (rc || s.c.count == 0) return rc;
    if ((rc = coll_collect_links(txn, &s.c, &lv))) goto out;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_COLL_CLEAR, col, 0, 0, NULL, NULL, false);
    if (!rc) rc = coll_store(txn, table, key, col, &empty);
    for (size_t i = 0; !rc && i < lv.n; i++) rc = coll_drop_link(txn, &lv.v[i], table, col, key);
    if (rc) rc = txn_poison(txn, rc);
out:
    free(lv.v);
    return rc;
}

int orc_list_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value)
{
    return ORC_WRITE_OP(txn, list_insert(txn, table, key, col, i, value));
}

int orc_list_insert_many(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *values,
                         size_t n)
{
    return ORC_WRITE_OP(txn, list_insert_many(txn, table, key, col, i, values, n));
}

int orc_list_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, const orc_value *value)
{
    return ORC_WRITE_OP(txn, list_set(txn, table, key, col, i, value));
}

int orc_list_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i)
{
    return ORC_WRITE_OP(txn, list_erase(txn, table, key, col, i));
}

int orc_list_move(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t from, size_t to)
{
    return ORC_WRITE_OP(txn, list_move(txn, table, key, col, from, to));
}

int orc_coll_clear(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col)
{
    return ORC_WRITE_OP(txn, coll_clear(txn, table, key, col));
}

/* ---- set writes ------------------------------------------------------------------ */

static int set_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value,
                      bool *inserted_out)
{
    site s;
    const orc_buf *enc;
    orc_buf *out;
    uint32_t pos;
    bool found;
    if (inserted_out) *inserted_out = false;
    int rc = coll_open(txn, table, key, col, ORC_COLL_SET, true, &s);
    if (rc || (rc = coll_check_value(txn, &s, value, true)) || (rc = coll_set_search(&s.c, value, &pos, &found))) return rc;
    if (found) return ORC_OK;
    if ((rc = coll_encode(txn, NULL, value, &enc)) || (rc = coll_build_buf(txn, &out)) ||
        (rc = coll_splice(&s.c, pos, 0, enc, out)))
        return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_SET_INSERT, col, 0, 0, NULL, value, false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    if (!rc && value->type == ORC_TYPE_LINK) rc = blink_add(txn, value->link.table, value->link.key, table, col, key);
    if (rc) return txn_poison(txn, rc);
    if (inserted_out) *inserted_out = true;
    return ORC_OK;
}

static int set_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value,
                     bool *erased_out)
{
    site s;
    cut c;
    uint32_t pos;
    bool found;
    if (erased_out) *erased_out = false;
    int rc = coll_open(txn, table, key, col, ORC_COLL_SET, true, &s);
    if (rc || (rc = coll_check_value(txn, &s, value, false)) || (rc = coll_set_search(&s.c, value, &pos, &found)))
        return rc;
    if (!found) return ORC_OK;
    if ((rc = elem_cut(txn, &s, pos, &c))) return rc;
    /* The stored value is logged (it may differ in type from an equal `value`, e.g. 1 and 1.0). */
    rc = log_coll(txn, s.cls, key, ORC_INSTR_SET_ERASE, col, 0, 0, NULL, &c.old, false);
    return cut_store(txn, rc, table, key, col, &c, erased_out);
}

int orc_set_insert(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value,
                   bool *inserted_out)
{
    return ORC_WRITE_OP(txn, set_insert(txn, table, key, col, value, inserted_out));
}

int orc_set_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value, bool *erased_out)
{
    return ORC_WRITE_OP(txn, set_erase(txn, table, key, col, value, erased_out));
}

/* ---- dictionary writes ------------------------------------------------------------- */

static int dict_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len,
                    const orc_value *value)
{
    site s;
    const orc_buf *enc;
    orc_buf *out;
    linkref was = {0};
    uint32_t pos;
    bool found;
    int rc = coll_open(txn, table, key, col, ORC_COLL_DICT, true, &s);
    if (rc || (rc = coll_check_key(&s, dkey, dkey_len)) || (rc = coll_check_value(txn, &s, value, true)) ||
        (rc = coll_dict_search(&s.c, dkey, dkey_len, &pos, &found)))
        return rc;
    if (found) {
        orc_value old;
        if ((rc = coll_elem(&s.c, pos, NULL, &old))) return rc;
        coll_link_of(txn, &old, &was);
    }
    orc_value kv = {.type = ORC_TYPE_STRING, .string = {dkey, dkey_len}};
    if ((rc = coll_encode(txn, &kv, value, &enc)) || (rc = coll_build_buf(txn, &out)) ||
        (rc = coll_splice(&s.c, pos, found ? 1 : 0, enc, out)))
        return rc;
    rc = log_coll(txn, s.cls, key, ORC_INSTR_DICT_SET, col, 0, 0, &kv, value, false);
    if (!rc) rc = coll_store(txn, table, key, col, out);
    if (!rc && value->type == ORC_TYPE_LINK) rc = blink_add(txn, value->link.table, value->link.key, table, col, key);
    if (!rc) rc = coll_drop_link(txn, &was, table, col, key);
    return rc ? txn_poison(txn, rc) : ORC_OK;
}

static int dict_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len,
                      bool *erased_out)
{
    site s;
    cut c;
    uint32_t pos;
    bool found;
    if (erased_out) *erased_out = false;
    if (!dkey && dkey_len) return orc_fail(ORC_ERR_INVALID_ARG, "a dictionary key of %zu bytes without data", dkey_len);
    int rc = coll_open(txn, table, key, col, ORC_COLL_DICT, true, &s);
    if (rc || (rc = coll_dict_search(&s.c, dkey, dkey_len, &pos, &found))) return rc;
    if (!found) return ORC_OK; /* a key that cannot be stored is simply absent */
    if ((rc = elem_cut(txn, &s, pos, &c))) return rc;
    orc_value kv = {.type = ORC_TYPE_STRING, .string = {dkey, dkey_len}};
    rc = log_coll(txn, s.cls, key, ORC_INSTR_DICT_ERASE, col, 0, 0, &kv, NULL, false);
    return cut_store(txn, rc, table, key, col, &c, erased_out);
}

int orc_dict_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len,
                 const orc_value *value)
{
    return ORC_WRITE_OP(txn, dict_set(txn, table, key, col, dkey, dkey_len, value));
}

int orc_dict_erase(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len,
                   bool *erased_out)
{
    return ORC_WRITE_OP(txn, dict_erase(txn, table, key, col, dkey, dkey_len, erased_out));
}

/* ---- hooks for object.c ------------------------------------------------------------ */

int coll_attach(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t index, const orc_value *dict_key,
                uint32_t child_table, uint64_t child_key)
{
    site s;
    const orc_buf *enc;
    orc_buf *out;
    linkref was = {0};
    uint32_t pos;
    bool found = false;
    int rc = coll_open(txn, table, key, col, ORC_COLL_NONE, true, &s);
    if (rc) return rc;
    const orc_prop *p = s.prop;
    if (p->collection == ORC_COLL_SET || p->type != ORC_TYPE_LINK || p->link_table != child_table ||
        !coll_is_embedded(txn, child_table))
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' is not a list or dictionary of embedded objects of table %u",
                        s.cls->name, p->name, child_table);
    orc_value link = {.type = ORC_TYPE_LINK, .link = {child_table, child_key}};
    orc_value kv = {.type = ORC_TYPE_NULL};
    if (p->collection == ORC_COLL_LIST) {
        if (index > s.c.count) return coll_out_of_range(&s, index);
        pos = (uint32_t)index;
    } else {
        if (!dict_key || dict_key->type != ORC_TYPE_STRING)
            return orc_fail(ORC_ERR_INVALID_ARG, "an embedded object in dictionary '%s.%s' needs a string key",
                            s.cls->name, p->name);
        kv = *dict_key;
        if ((rc = coll_check_key(&s, kv.string.data, kv.string.size)) ||
            (rc = coll_dict_search(&s.c, kv.string.data, kv.string.size, &pos, &found)))
            return rc;
        if (found) {
            orc_value old;
            if ((rc = coll_elem(&s.c, pos, NULL, &old))) return rc;
            coll_link_of(txn, &old, &was);
        }
    }
    if ((rc = coll_encode(txn, kv.type == ORC_TYPE_STRING ? &kv : NULL, &link, &enc)) ||
        (rc = coll_build_buf(txn, &out)) || (rc = coll_splice(&s.c, pos, found ? 1 : 0, enc, out)))
        return rc;
    rc = coll_store(txn, table, key, col, out);
    if (!rc) rc = blink_add(txn, child_table, child_key, table, col, key);
    if (!rc) rc = coll_drop_link(txn, &was, table, col, key);
    return rc ? txn_poison(txn, rc) : ORC_OK;
}

static bool is_link_to(const orc_value *v, uint32_t ttable, uint64_t tkey)
{
    return v->type == ORC_TYPE_LINK && v->link.table == ttable && v->link.key == tkey;
}

int coll_remove_links(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, uint32_t ttable, uint64_t tkey)
{
    const orc_class *cls;
    const orc_prop *p;
    collref c;
    orc_buf *out, nullenc = {0};
    piece *ps = NULL;
    uint32_t *hits = NULL, nhits = 0;
    int rc = coll_resolve(txn, table, col, ORC_COLL_NONE, &cls, &p);
    if (rc || (rc = coll_load_prop(txn, cls, p, key, false, &c)) || c.count == 0 || !prop_may_link(p)) return rc;

    hits = malloc(c.count * sizeof *hits);
    if (!hits) return orc_fail(ORC_ERR_NOMEM, "allocating %u positions", c.count);
    for (uint32_t i = 0; i < c.count; i++) {
        orc_value v;
        if ((rc = coll_elem(&c, i, NULL, &v))) goto done;
        if (is_link_to(&v, ttable, tkey)) hits[nhits++] = i;
    }
    if (nhits == 0) goto done;

    /* Build the new blob while the old one is readable; pieces point into it. */
    orc_value null_value = {.type = ORC_TYPE_NULL};
    ps = malloc(((size_t)c.count + nhits) * sizeof *ps);
    if (!ps) {
        rc = orc_fail(ORC_ERR_NOMEM, "allocating a collection of %u elements", c.count);
        goto done;
    }
    if ((rc = val_encode(&nullenc, &null_value)) || (rc = coll_build_buf(txn, &out))) goto done;
    size_t np = 0;
    for (uint32_t i = 0, h = 0; i < c.count; i++) {
        size_t a, b;
        coll_bounds(&c, i, &a, &b);
        bool hit = h < nhits && hits[h] == i;
        if (hit) h++;
        if (!hit) {
            ps[np++] = (piece){c.blob + a, b - a, false};
        } else if (p->collection == ORC_COLL_DICT) {
            /* Realm keeps the key and nulls the value. */
            size_t pos = a;
            orc_value k;
            if (val_decode(c.blob, b, &pos, &k) != ORC_OK) {
                rc = coll_corrupt(cls, p, key, "a key is damaged", i);
                goto done;
            }
            ps[np++] = (piece){c.blob + a, pos - a, false};
            ps[np++] = (piece){nullenc.data, nullenc.size, true};
        }
    }
    if ((rc = coll_build_pieces(ps, np, out))) goto done;

    /* Record (derived) before writing, as every mutation here does; lists from the highest index down. */
    for (uint32_t h = nhits; !rc && h-- > 0;) {
        uint32_t i = hits[h];
        orc_value k, v;
        if ((rc = coll_elem(&c, i, &k, &v))) break;
        if (p->collection == ORC_COLL_LIST)
            rc = log_coll(txn, cls, key, ORC_INSTR_LIST_ERASE, col, i, 0, NULL, NULL, true);
        else if (p->collection == ORC_COLL_SET)
            rc = log_coll(txn, cls, key, ORC_INSTR_SET_ERASE, col, 0, 0, NULL, &v, true);
        else
            rc = log_coll(txn, cls, key, ORC_INSTR_DICT_SET, col, 0, 0, &k, &null_value, true);
    }
    if (!rc) rc = coll_store(txn, table, key, col, out);
    for (uint32_t h = 0; !rc && h < nhits; h++) rc = blink_remove(txn, ttable, tkey, table, col, key);
    if (rc) rc = txn_poison(txn, rc);
done:
    buf_free(&nullenc);
    free(ps);
    free(hits);
    return rc;
}

int coll_erase_object(orc_txn *txn, const orc_class *c, uint64_t key)
{
    static const orc_buf empty = {0};
    for (uint16_t col = 0; col < c->ncols; col++) {
        const orc_prop *p = class_prop(c, col);
        if (!p || p->collection == ORC_COLL_NONE) continue;
        collref cr;
        linkvec lv = {0};
        int rc = coll_load_prop(txn, c, p, key, false, &cr);
        if (rc) return rc;
        if (cr.count == 0) continue;
        /* Links first: the blob is gone once the record is deleted. */
        rc = coll_collect_links(txn, &cr, &lv);
        if (!rc) rc = coll_store(txn, c->table, key, col, &empty);
        for (size_t i = 0; !rc && i < lv.n; i++) rc = coll_drop_link(txn, &lv.v[i], c->table, col, key);
        free(lv.v);
        if (rc) return txn_poison(txn, rc);
    }
    return ORC_OK;
}
