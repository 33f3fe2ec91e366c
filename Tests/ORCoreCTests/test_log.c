/*
 * test_log.c — the changeset log (log.c, log_read.c): the instructions real
 * transactions record, versions, compression, trimming and holds, damaged
 * changesets, and replay into a fresh realm. Raw log entries are read through
 * the transaction's LMDB handle (txn.h); damaged changesets are re-sealed
 * with the format's checksum (log_format.h) to reach the decoder's own checks.
 */
#include "replay.h"
#include "object.h"
#include "person_fixture.h"
#include "log_format.h"

#include <stdlib.h>

/* ---- values and schema ---------------------------------------------------------- */


static bool same(orc_value a, orc_value b) { return a.type == b.type && orc_value_compare(&a, &b) == 0; }
static bool str_is(orc_value v, const char *s)
{
    return v.type == ORC_TYPE_STRING && v.string.size == strlen(s) && memcmp(v.string.data, s, v.string.size) == 0;
}
static bool name_is(const orc_instr *in, const char *s)
{
    return in->name && in->name_len == strlen(s) && memcmp(in->name, s, in->name_len) == 0;
}

/* Person (1): id pk, name, age indexed, friend -> Person, tags list<string>, nums set<int>,
 * dict dict<string?>, addr -> Address, addrs list<Address>, any mixed?, friends list<Person>.
 * Address (2, embedded): city. Note (3, no pk): text, n. */
/* Creates the schema in its own transaction (version 1 of a new file). */
static int make_schema(orc_env *env)
{
    orc_txn *txn;
    uint32_t t;
    uint16_t col;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn);
    if (rc) return rc;
    if (!rc) rc = orc_class_add(txn, "Person", ORC_CLASS_TOP_LEVEL, &t);
    if (!rc && t != PERSON) rc = -1;
    if (!rc) rc = orc_class_add(txn, "Address", ORC_CLASS_EMBEDDED, &t);
    if (!rc && t != ADDRESS) rc = -1;
    if (!rc) rc = orc_class_add(txn, "Note", ORC_CLASS_TOP_LEVEL, &t);
    if (!rc && t != NOTE) rc = -1;
    for (int i = 0; !rc && i < P_NCOLS; i++)
        if (!(rc = orc_prop_add(txn, PERSON, &person_props[i], &col)) && col != i) rc = -1;
    orc_prop_spec city = {"city", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0};
    orc_prop_spec text = {"text", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0};
    orc_prop_spec n = {"n", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0};
    if (!rc) rc = orc_prop_add(txn, ADDRESS, &city, &col);
    if (!rc) rc = orc_prop_add(txn, NOTE, &text, &col);
    if (!rc) rc = orc_prop_add(txn, NOTE, &n, &col);
    if (rc) {
        orc_txn_abort(txn);
        return rc;
    }
    return orc_txn_commit(txn, NULL);
}

static int open_env(const char *name, orc_env **env) { return orc_env_open(test_path(name), ORC_ENV_NO_SYNC, NULL, env); }

static int new_person(orc_txn *txn, int64_t id, const char *name, int64_t age, uint64_t *key)
{
    uint16_t cols[3] = {P_ID, P_NAME, P_AGE};
    orc_value vals[3] = {v_int(id), v_str(name), v_int(age)};
    return orc_obj_create(txn, PERSON, cols, vals, 3, key);
}

/* ---- reading changesets --------------------------------------------------------------- */

typedef struct cs {
    uint8_t *data;
    size_t size;
    uint64_t version;
    orc_instr *in;
    size_t n;
} cs;

static void cs_free(cs *c)
{
    free(c->data);
    free(c->in);
    memset(c, 0, sizeof *c);
}

/* Decodes a changeset held in c->data into c->in. */
static int cs_decode(cs *c)
{
    orc_changeset_iter it;
    int rc = orc_changeset_iter_init(&it, c->data, c->size);
    if (rc) return rc;
    c->version = it.version;
    size_t cap = 0;
    for (;;) {
        if (c->n == cap) {
            cap = cap ? cap * 2 : 64;
            orc_instr *a = realloc(c->in, cap * sizeof *a);
            if (!a) return ORC_ERR_NOMEM;
            c->in = a;
        }
        rc = orc_changeset_iter_next(&it, &c->in[c->n]);
        if (rc == ORC_ERR_NOT_FOUND) return ORC_OK;
        if (rc) return rc;
        c->n++;
    }
}

/* Copies the changeset of `version` out of the log and decodes it. */
static int cs_load(orc_env *env, uint64_t version, cs *c)
{
    memset(c, 0, sizeof *c);
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &txn);
    if (rc) return rc;
    const void *d;
    size_t n;
    rc = orc_log_get(txn, version, &d, &n);
    if (!rc) {
        c->data = malloc(n ? n : 1);
        if (!c->data) rc = ORC_ERR_NOMEM;
        else memcpy(c->data, d, n);
        c->size = n;
    }
    orc_txn_abort(txn);
    return rc ? rc : cs_decode(c);
}

/* The nth instruction with `op` on (table, key) (key ignored when 0). */
static const orc_instr *cs_find(const cs *c, orc_instr_op op, uint32_t table, uint64_t key, size_t nth)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->in[i].op == op && c->in[i].table == table && (!key || c->in[i].key == key) && nth-- == 0) return &c->in[i];
    return NULL;
}

static size_t cs_count(const cs *c, orc_instr_op op, uint32_t flags)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++) n += c->in[i].op == op && c->in[i].flags == flags;
    return n;
}

/* ---- instructions ------------------------------------------------------------------- */

TEST(log_schema_instructions)
{
    orc_env *env;
    CHECK_OK(open_env("schema.realm", &env));
    CHECK_OK(make_schema(env));
    cs c;
    CHECK_OK(cs_load(env, 1, &c));
    CHECK_EQ(c.version, 1);
    CHECK_EQ(cs_count(&c, ORC_INSTR_ADD_CLASS, 0), 3);
    CHECK_EQ(cs_count(&c, ORC_INSTR_ADD_PROP, 0), P_NCOLS + 3);
    const orc_instr *in = cs_find(&c, ORC_INSTR_ADD_CLASS, ADDRESS, 0, 0);
    CHECK(in && name_is(in, "Address") && in->kind == ORC_CLASS_EMBEDDED);
    CHECK(&c.in[0] == cs_find(&c, ORC_INSTR_ADD_CLASS, PERSON, 0, 0) && name_is(&c.in[0], "Person"));
    CHECK_EQ(c.in[0].kind, ORC_CLASS_TOP_LEVEL);
    for (int i = 0; i < P_NCOLS; i++) {
        in = cs_find(&c, ORC_INSTR_ADD_PROP, PERSON, 0, (size_t)i);
        CHECK(in && in->col == i && name_is(in, person_props[i].name));
        CHECK_EQ(in->prop_type, person_props[i].type);
        CHECK_EQ(in->collection, person_props[i].collection);
        CHECK_EQ(in->prop_flags & ~(uint32_t)ORC_PROP_OPTIONAL, person_props[i].flags & ~(uint32_t)ORC_PROP_OPTIONAL);
        CHECK_EQ(in->link_table, person_props[i].link_table);
        CHECK_EQ(in->flags, 0);
    }
    cs_free(&c);

    orc_txn *txn;
    uint32_t tmp;
    uint64_t v;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_rename(txn, NOTE, "Memo"));
    CHECK_OK(orc_prop_rename(txn, NOTE, N_TEXT, "body"));
    CHECK_OK(orc_prop_set_indexed(txn, NOTE, N_N, true));
    CHECK_OK(orc_prop_set_indexed(txn, NOTE, N_N, false));
    CHECK_OK(orc_class_set_primary_key(txn, NOTE, N_TEXT));
    CHECK_OK(orc_class_set_primary_key(txn, NOTE, -1));
    CHECK_OK(orc_prop_remove(txn, NOTE, N_N));
    CHECK_OK(orc_class_add(txn, "Tmp", ORC_CLASS_ASYMMETRIC, &tmp));
    CHECK_OK(orc_class_remove(txn, tmp));
    CHECK_OK(orc_table_clear(txn, PERSON));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_EQ(v, 2);
    CHECK_OK(cs_load(env, 2, &c));
    orc_instr_op want[] = {ORC_INSTR_RENAME_CLASS,    ORC_INSTR_RENAME_PROP,     ORC_INSTR_SET_INDEXED,
                           ORC_INSTR_SET_INDEXED,     ORC_INSTR_SET_PRIMARY_KEY, ORC_INSTR_SET_PRIMARY_KEY,
                           ORC_INSTR_REMOVE_PROP,     ORC_INSTR_ADD_CLASS,       ORC_INSTR_REMOVE_CLASS,
                           ORC_INSTR_CLEAR_TABLE};
    /* orc_class_remove may clear its table first (CLEAR_TABLE before REMOVE_CLASS): skip that one. */
    size_t kept = 0;
    for (size_t i = 0; i < c.n; i++)
        if (!(c.in[i].op == ORC_INSTR_CLEAR_TABLE && c.in[i].table == tmp)) c.in[kept++] = c.in[i];
    c.n = kept;
    CHECK_EQ(c.n, 10);
    for (size_t i = 0; i < 10; i++) CHECK_EQ(c.in[i].op, want[i]);
    CHECK(c.in[0].table == NOTE && name_is(&c.in[0], "Memo"));
    CHECK(c.in[1].table == NOTE && c.in[1].col == N_TEXT && name_is(&c.in[1], "body"));
    CHECK(c.in[2].col == N_N && c.in[2].prop_flags == ORC_PROP_INDEXED);
    CHECK(c.in[3].col == N_N && c.in[3].prop_flags == 0);
    CHECK_EQ(c.in[4].col, N_TEXT);
    CHECK_EQ(c.in[5].col, 0xFFFF);
    CHECK(c.in[6].table == NOTE && c.in[6].col == N_N);
    CHECK(c.in[7].table == tmp && name_is(&c.in[7], "Tmp") && c.in[7].kind == ORC_CLASS_ASYMMETRIC);
    CHECK_EQ(c.in[8].table, tmp);
    CHECK_EQ(c.in[9].table, PERSON);
    cs_free(&c);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(log_object_instructions)
{
    orc_env *env;
    orc_txn *txn;
    uint64_t p1, p2, note, v;
    CHECK_OK(open_env("objects.realm", &env));
    CHECK_OK(make_schema(env));

    /* create, with and without a primary key */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(new_person(txn, 1, "ann", 30, &p1));
    CHECK_OK(new_person(txn, 2, "bob", 40, &p2));
    uint16_t ncols[2] = {N_N, N_TEXT};
    orc_value nvals[2] = {v_int(7), v_str("hello")};
    CHECK_OK(orc_obj_create(txn, NOTE, ncols, nvals, 2, &note));
    CHECK_OK(orc_txn_commit(txn, &v));
    cs c;
    CHECK_OK(cs_load(env, v, &c));
    CHECK_EQ(c.n, 4 + 4 + 3); /* each CREATE, then one INITIAL SET per value */
    const orc_instr *in = &c.in[0];
    CHECK(in->op == ORC_INSTR_CREATE && in->table == PERSON && in->key == p1 && in->flags == 0);
    CHECK(in->has_pk && same(in->pk, v_int(1)) && in->index == 3);
    for (int i = 1; i <= 3; i++) {
        CHECK(c.in[i].op == ORC_INSTR_SET && c.in[i].flags == ORC_INSTR_INITIAL && c.in[i].key == p1);
        CHECK(c.in[i].has_pk && same(c.in[i].pk, v_int(1)));
    }
    CHECK(c.in[1].col == P_ID && same(c.in[1].value, v_int(1)));
    CHECK(c.in[2].col == P_NAME && str_is(c.in[2].value, "ann"));
    CHECK(c.in[3].col == P_AGE && same(c.in[3].value, v_int(30)));
    in = cs_find(&c, ORC_INSTR_CREATE, NOTE, note, 0);
    CHECK(in && !in->has_pk && in->index == 2);
    CHECK(in[1].col == N_N && same(in[1].value, v_int(7)) && !in[1].has_pk);
    CHECK(in[2].col == N_TEXT && str_is(in[2].value, "hello"));
    cs_free(&c);

    /* set, add_int, links, erase with derived nulling and list removal */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    orc_value s = v_str("anna"), l2 = v_link(PERSON, p2);
    CHECK_OK(orc_obj_set(txn, PERSON, p1, P_NAME, &s));
    CHECK_OK(orc_obj_add_int(txn, PERSON, p1, P_AGE, -5));
    CHECK_OK(orc_obj_set(txn, PERSON, p1, P_FRIEND, &l2));
    CHECK_OK(orc_list_insert(txn, PERSON, p1, P_FRIENDS, 0, &l2));
    CHECK_OK(orc_obj_set(txn, PERSON, p1, P_ANY, &l2));
    CHECK_OK(orc_obj_erase(txn, PERSON, p2));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_OK(cs_load(env, v, &c));
    in = cs_find(&c, ORC_INSTR_SET, PERSON, p1, 0);
    CHECK(in && in->col == P_NAME && str_is(in->value, "anna") && in->has_pk && same(in->pk, v_int(1)));
    in = cs_find(&c, ORC_INSTR_ADD_INT, PERSON, p1, 0);
    CHECK(in && in->col == P_AGE && in->delta == -5 && same(in->pk, v_int(1)));
    in = cs_find(&c, ORC_INSTR_SET, PERSON, p1, 1);
    CHECK(in && in->col == P_FRIEND && same(in->value, v_link(PERSON, p2)) && in->flags == 0);
    in = cs_find(&c, ORC_INSTR_LIST_INSERT, PERSON, p1, 0);
    CHECK(in && in->col == P_FRIENDS && in->index == 0 && in->value.type == ORC_TYPE_LINK && in->value.link.key == p2);
    in = cs_find(&c, ORC_INSTR_ERASE, PERSON, p2, 0);
    CHECK(in && in->flags == 0 && in->has_pk && same(in->pk, v_int(2)));
    size_t erase_at = (size_t)(in - c.in);
    /* the consequences: p1.friend and p1.any nulled, p1.friends loses its element */
    size_t nulled = 0, removed = 0;
    for (size_t i = erase_at + 1; i < c.n; i++) {
        const orc_instr *d = &c.in[i];
        CHECK(d->flags == ORC_INSTR_DERIVED && d->table == PERSON && d->key == p1 && same(d->pk, v_int(1)));
        if (d->op == ORC_INSTR_SET) {
            CHECK((d->col == P_FRIEND || d->col == P_ANY) && d->value.type == ORC_TYPE_NULL);
            nulled++;
        } else {
            CHECK(d->op == ORC_INSTR_LIST_ERASE && d->col == P_FRIENDS && d->index == 0);
            removed++;
        }
    }
    CHECK_EQ(nulled, 2);
    CHECK_EQ(removed, 1);
    cs_free(&c);

    /* list, set and dictionary operations */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    orc_value x = v_str("x"), y = v_str("y"), z = v_str("z"), five = v_int(5), dv = v_str("val");
    CHECK_OK(orc_list_insert(txn, PERSON, p1, P_TAGS, 0, &x));
    CHECK_OK(orc_list_insert(txn, PERSON, p1, P_TAGS, 1, &y));
    CHECK_OK(orc_list_set(txn, PERSON, p1, P_TAGS, 0, &z));
    CHECK_OK(orc_list_move(txn, PERSON, p1, P_TAGS, 0, 1));
    CHECK_OK(orc_list_erase(txn, PERSON, p1, P_TAGS, 0));
    CHECK_OK(orc_coll_clear(txn, PERSON, p1, P_TAGS));
    CHECK_OK(orc_set_insert(txn, PERSON, p1, P_NUMS, &five, NULL));
    CHECK_OK(orc_set_erase(txn, PERSON, p1, P_NUMS, &five, NULL));
    CHECK_OK(orc_dict_set(txn, PERSON, p1, P_DICT, "key", 3, &dv));
    CHECK_OK(orc_dict_erase(txn, PERSON, p1, P_DICT, "key", 3, NULL));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_OK(cs_load(env, v, &c));
    CHECK_EQ(c.n, 10);
    for (size_t i = 0; i < c.n; i++)
        CHECK(c.in[i].table == PERSON && c.in[i].key == p1 && c.in[i].flags == 0 && same(c.in[i].pk, v_int(1)));
    CHECK(c.in[0].op == ORC_INSTR_LIST_INSERT && c.in[0].col == P_TAGS && c.in[0].index == 0 && str_is(c.in[0].value, "x"));
    CHECK(c.in[1].op == ORC_INSTR_LIST_INSERT && c.in[1].index == 1 && str_is(c.in[1].value, "y"));
    CHECK(c.in[2].op == ORC_INSTR_LIST_SET && c.in[2].index == 0 && str_is(c.in[2].value, "z"));
    CHECK(c.in[3].op == ORC_INSTR_LIST_MOVE && c.in[3].index == 0 && c.in[3].index2 == 1);
    CHECK(c.in[4].op == ORC_INSTR_LIST_ERASE && c.in[4].index == 0);
    CHECK(c.in[5].op == ORC_INSTR_COLL_CLEAR && c.in[5].col == P_TAGS);
    CHECK(c.in[6].op == ORC_INSTR_SET_INSERT && c.in[6].col == P_NUMS && same(c.in[6].value, five));
    CHECK(c.in[7].op == ORC_INSTR_SET_ERASE && same(c.in[7].value, five));
    CHECK(c.in[8].op == ORC_INSTR_DICT_SET && c.in[8].col == P_DICT && str_is(c.in[8].dict_key, "key") &&
          str_is(c.in[8].value, "val"));
    CHECK(c.in[9].op == ORC_INSTR_DICT_ERASE && str_is(c.in[9].dict_key, "key"));
    cs_free(&c);

    /* embedded objects: created in place, edited, erased with their owner */
    uint64_t a1, a2;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_obj_create_embedded(txn, PERSON, p1, P_ADDR, 0, NULL, &a1));
    CHECK_OK(orc_obj_create_embedded(txn, PERSON, p1, P_ADDRS, 0, NULL, &a2));
    orc_value oslo = v_str("Oslo");
    CHECK_OK(orc_obj_set(txn, ADDRESS, a1, A_CITY, &oslo));
    CHECK_OK(orc_obj_erase(txn, PERSON, p1));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_OK(cs_load(env, v, &c));
    in = cs_find(&c, ORC_INSTR_CREATE_EMBEDDED, PERSON, p1, 0);
    CHECK(in && in->col == P_ADDR && in->child_table == ADDRESS && in->child_key == a1 && same(in->pk, v_int(1)));
    CHECK(in->dict_key.type == ORC_TYPE_NULL);
    in = cs_find(&c, ORC_INSTR_CREATE_EMBEDDED, PERSON, p1, 1);
    CHECK(in && in->col == P_ADDRS && in->index == 0 && in->child_key == a2);
    CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), 0);
    in = cs_find(&c, ORC_INSTR_SET, ADDRESS, a1, 0);
    CHECK(in && !in->has_pk && in->col == A_CITY && str_is(in->value, "Oslo"));
    in = cs_find(&c, ORC_INSTR_ERASE, PERSON, p1, 0);
    CHECK(in && in->flags == 0);
    in = cs_find(&c, ORC_INSTR_ERASE, ADDRESS, a1, 0);
    CHECK(in && in->flags == ORC_INSTR_DERIVED);
    in = cs_find(&c, ORC_INSTR_ERASE, ADDRESS, a2, 0);
    CHECK(in && in->flags == ORC_INSTR_DERIVED);
    cs_free(&c);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- versions and storage ---------------------------------------------------------------- */

TEST(log_one_changeset_per_commit)
{
    orc_env *env;
    orc_txn *txn;
    uint64_t v, key;
    CHECK_OK(open_env("versions.realm", &env));
    CHECK_OK(make_schema(env));
    for (int i = 0; i < 5; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        if (i != 2) CHECK_OK(new_person(txn, i, "p", i, &key)); /* commit 2 is empty */
        CHECK_OK(orc_txn_commit(txn, &v));
        CHECK_EQ(v, 2 + i);
    }
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_EQ(orc_log_first_version(txn), 1);
    orc_txn_abort(txn);
    for (uint64_t ver = 1; ver <= 6; ver++) {
        cs c;
        CHECK_OK(cs_load(env, ver, &c));
        CHECK_EQ(c.version, ver);
        if (ver == 4) {
            CHECK_EQ(c.size, CS_HEADER_SIZE);
            CHECK_EQ(c.n, 0);
        } else if (ver > 1) {
            CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), 1);
        }
        cs_free(&c);
    }
    CHECK_ENV(env);
    orc_env_close(env);
}

/* The codec byte and raw size of a stored entry, read straight from LMDB. */
static int raw_entry(orc_env *env, uint64_t version, uint8_t *codec, uint32_t *raw_size, size_t *stored)
{
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &txn);
    if (rc) return rc;
    uint8_t kb[8];
    st64be(kb, version);
    MDB_val k = {8, kb}, d;
    rc = mdb_get(txn->mdb, txn->core->dbi_log, &k, &d);
    if (!rc && d.mv_size >= 5) {
        *codec = ((uint8_t *)d.mv_data)[0];
        *raw_size = ld32((uint8_t *)d.mv_data + 1);
        *stored = d.mv_size;
    } else if (!rc) {
        rc = -1;
    }
    orc_txn_abort(txn);
    return rc;
}

TEST(log_big_changeset_is_compressed)
{
    enum { N = 20000 };
    orc_env *env;
    orc_txn *txn;
    uint64_t key, v_small, v_big;
    CHECK_OK(open_env("big.realm", &env));
    CHECK_OK(make_schema(env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(new_person(txn, 1, "one", 1, &key));
    CHECK_OK(orc_txn_commit(txn, &v_small));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    char text[64];
    uint16_t cols[2] = {N_TEXT, N_N};
    for (int i = 0; i < N; i++) {
        snprintf(text, sizeof text, "note number %d", i);
        orc_value vals[2] = {v_str(text), v_int(i)};
        CHECK_OK(orc_obj_create(txn, NOTE, cols, vals, 2, &key));
    }
    CHECK_OK(orc_txn_commit(txn, &v_big));

    uint8_t codec;
    uint32_t raw;
    size_t stored;
    CHECK_OK(raw_entry(env, v_small, &codec, &raw, &stored));
    CHECK_EQ(codec, CS_CODEC_RAW);
    CHECK_EQ(stored, 5 + raw);
    CHECK_OK(raw_entry(env, v_big, &codec, &raw, &stored));
    CHECK_EQ(codec, CS_CODEC_ZSTD);
    CHECK(stored < raw / 2);

    cs c;
    CHECK_OK(cs_load(env, v_big, &c));
    CHECK_EQ(c.size, raw);
    CHECK_EQ(c.n, 3 * N);
    CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), N);
    CHECK_EQ(cs_count(&c, ORC_INSTR_SET, ORC_INSTR_INITIAL), 2 * N);
    for (int i = 0; i < N; i++) {
        const orc_instr *in = &c.in[3 * i];
        snprintf(text, sizeof text, "note number %d", i);
        CHECK(in->op == ORC_INSTR_CREATE && in->table == NOTE && !in->has_pk);
        CHECK(in[1].col == N_TEXT && str_is(in[1].value, text));
        CHECK(in[2].col == N_N && same(in[2].value, v_int(i)));
    }
    cs_free(&c);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(log_trim_and_holds)
{
    orc_env *env;
    orc_txn *txn;
    uint64_t v = 0, key, trimmed;
    CHECK_OK(open_env("trim.realm", &env));
    CHECK_OK(make_schema(env));
    for (int i = 0; i < 5; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        CHECK_OK(new_person(txn, i, "p", i, &key));
        CHECK_OK(orc_txn_commit(txn, &v));
    }
    CHECK_EQ(v, 6);
    const void *d;
    size_t n;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_RC(orc_log_trim(txn, 3, &trimmed), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_log_hold(txn, "x", 3), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_log_get(txn, 0, &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_log_get(txn, 7, &d, &n), ORC_ERR_NOT_FOUND);
    orc_txn_abort(txn);

    /* without holds: everything up to the bound goes */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_RC(orc_log_hold(txn, "", 3), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_log_hold(txn, NULL, 3), ORC_ERR_INVALID_ARG);
    CHECK_OK(orc_log_trim(txn, 3, &trimmed));
    CHECK_EQ(trimmed, 3);
    CHECK_EQ(orc_log_first_version(txn), 4);
    CHECK_OK(orc_txn_commit(txn, &v)); /* 7 */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_RC(orc_log_get(txn, 1, &d, &n), ORC_ERR_TRIMMED);
    CHECK_RC(orc_log_get(txn, 3, &d, &n), ORC_ERR_TRIMMED);
    CHECK_OK(orc_log_get(txn, 4, &d, &n));
    CHECK_OK(orc_log_get(txn, 7, &d, &n));
    CHECK_RC(orc_log_get(txn, 8, &d, &n), ORC_ERR_NOT_FOUND);
    orc_txn_abort(txn);
    CHECK_ENV(env);

    /* holds: the lowest position bounds every trim */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_log_hold(txn, "sync", 5));
    CHECK_OK(orc_log_hold(txn, "notifier", 6));
    CHECK_OK(orc_log_trim(txn, 100, &trimmed));
    CHECK_EQ(trimmed, 5);
    CHECK_EQ(orc_log_first_version(txn), 6);
    CHECK_OK(orc_log_trim(txn, 100, &trimmed));
    CHECK_EQ(trimmed, 0);
    CHECK_OK(orc_txn_commit(txn, &v)); /* 8 */
    CHECK_EQ(v, 8);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_log_hold(txn, "sync", 7)); /* moves */
    CHECK_OK(orc_log_trim(txn, 100, &trimmed));
    CHECK_EQ(trimmed, 6); /* "notifier" still needs 7 and later */
    CHECK_OK(orc_log_release(txn, "notifier"));
    CHECK_OK(orc_log_release(txn, "never-held"));
    CHECK_OK(orc_log_trim(txn, 100, &trimmed));
    CHECK_EQ(trimmed, 7);
    CHECK_OK(orc_log_trim(txn, 0, &trimmed));
    CHECK_EQ(trimmed, 0);
    CHECK_OK(orc_log_release(txn, "sync"));
    CHECK_OK(orc_log_trim(txn, 100, &trimmed));
    CHECK_EQ(trimmed, 8);
    CHECK_EQ(orc_log_first_version(txn), 0);
    CHECK_OK(orc_txn_commit(txn, &v)); /* 9 */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_EQ(orc_log_first_version(txn), 9);
    CHECK_RC(orc_log_get(txn, 8, &d, &n), ORC_ERR_TRIMMED);
    CHECK_OK(orc_log_get(txn, 9, &d, &n));
    orc_txn_abort(txn);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- damaged changesets ------------------------------------------------------------------- */

/* Iterates a whole changeset: ORC_OK when it decodes to its end, else the failing status. */
static int iterate_all(const uint8_t *d, size_t n, size_t *steps)
{
    orc_changeset_iter it;
    orc_instr in;
    *steps = 0;
    int rc = orc_changeset_iter_init(&it, d, n);
    while (!rc) {
        rc = orc_changeset_iter_next(&it, &in);
        if (++*steps > n + 2) return -1; /* every instruction consumes bytes */
    }
    return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
}

static void reseal(uint8_t *d, size_t n)
{
    st64(d + 13, cs_checksum(ld64(d + 1), ld32(d + 9), d + CS_HEADER_SIZE, n - CS_HEADER_SIZE));
}

/* A changeset with every kind of object instruction. */
static int varied_changeset(orc_env *env, cs *c)
{
    orc_txn *txn;
    uint64_t p1, p2, a, v, note;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn);
    if (rc) return rc;
    orc_value l, x = v_str("x"), five = v_int(5), dv = v_str("value");
    uint16_t ncol = N_TEXT;
    orc_value nval = v_str("note");
    if (!rc) rc = new_person(txn, 1, "ann", 30, &p1);
    if (!rc) rc = new_person(txn, 2, "bob", 31, &p2);
    if (!rc) rc = orc_obj_create(txn, NOTE, &ncol, &nval, 1, &note);
    l = v_link(PERSON, p2);
    if (!rc) rc = orc_obj_set(txn, PERSON, p1, P_FRIEND, &l);
    if (!rc) rc = orc_obj_add_int(txn, PERSON, p1, P_AGE, 1000);
    if (!rc) rc = orc_list_insert(txn, PERSON, p1, P_TAGS, 0, &x);
    if (!rc) rc = orc_list_insert(txn, PERSON, p1, P_TAGS, 0, &x);
    if (!rc) rc = orc_list_move(txn, PERSON, p1, P_TAGS, 0, 1);
    if (!rc) rc = orc_list_set(txn, PERSON, p1, P_TAGS, 1, &x);
    if (!rc) rc = orc_list_erase(txn, PERSON, p1, P_TAGS, 1);
    if (!rc) rc = orc_set_insert(txn, PERSON, p1, P_NUMS, &five, NULL);
    if (!rc) rc = orc_dict_set(txn, PERSON, p1, P_DICT, "k", 1, &dv);
    if (!rc) rc = orc_dict_erase(txn, PERSON, p1, P_DICT, "k", 1, NULL);
    if (!rc) rc = orc_obj_create_embedded(txn, PERSON, p1, P_ADDRS, 0, NULL, &a);
    if (!rc) rc = orc_obj_erase(txn, PERSON, p2);
    if (!rc) rc = orc_coll_clear(txn, PERSON, p1, P_TAGS);
    if (rc) {
        orc_txn_abort(txn);
        return rc;
    }
    if ((rc = orc_txn_commit(txn, &v))) return rc;
    return cs_load(env, v, c);
}

TEST(log_damaged_changesets)
{
    orc_env *env;
    CHECK_OK(open_env("damaged.realm", &env));
    CHECK_OK(make_schema(env));
    cs c;
    CHECK_OK(varied_changeset(env, &c));
    orc_env_close(env);
    size_t n = c.size, steps;
    CHECK(n > 100);
    uint8_t *d = malloc(n);
    CHECK(d != NULL);
    CHECK_OK(iterate_all(c.data, n, &steps));

    /* Any flipped byte or cut is caught (the header's checksum, magic or size). */
    static const uint8_t masks[] = {0x01, 0x80, 0xFF, 0x10};
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(d, c.data, n);
            d[i] ^= masks[m];
            CHECK_RC(iterate_all(d, n, &steps), ORC_ERR_CORRUPT);
        }
    for (size_t cut = 0; cut < n; cut++) CHECK_RC(iterate_all(c.data, cut, &steps), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "offset") != NULL);

    /* Re-sealed, the damage reaches the decoder: it stops cleanly or decodes something else. */
    size_t corrupt = 0;
    for (size_t i = CS_HEADER_SIZE; i < n; i++)
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(d, c.data, n);
            d[i] ^= masks[m];
            reseal(d, n);
            int rc = iterate_all(d, n, &steps);
            CHECK(rc == ORC_OK || rc == ORC_ERR_CORRUPT);
            corrupt += rc == ORC_ERR_CORRUPT;
        }
    CHECK(corrupt > 0);
    /* A re-sealed cut is still caught: inside an instruction, or by the instruction count. */
    for (size_t cut = CS_HEADER_SIZE; cut < n; cut++) {
        memcpy(d, c.data, cut);
        reseal(d, cut);
        CHECK_RC(iterate_all(d, cut, &steps), ORC_ERR_CORRUPT);
    }
    /* Random bodies behind a valid header. */
    uint64_t seed = test_seed();
    uint8_t junk[256];
    for (int round = 0; round < 5000; round++) {
        size_t len = CS_HEADER_SIZE + (size_t)(test_rand(&seed) % (sizeof junk - CS_HEADER_SIZE));
        for (size_t i = 0; i < len; i++) junk[i] = (uint8_t)test_rand(&seed);
        /* Bias towards plausible ops and small varints. */
        junk[CS_HEADER_SIZE] = (uint8_t)(1 + test_rand(&seed) % 28);
        junk[0] = CS_MAGIC;
        st32(junk + 9, (uint32_t)(test_rand(&seed) % 4));
        reseal(junk, len);
        int rc = iterate_all(junk, len, &steps);
        CHECK(rc == ORC_OK || rc == ORC_ERR_CORRUPT);
    }
    free(d);
    cs_free(&c);
}

TEST(log_iterator_edges)
{
    orc_changeset_iter it;
    orc_instr in;
    memset(&it, 0, sizeof it);
    CHECK_RC(orc_changeset_iter_next(&it, &in), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_changeset_iter_init(NULL, "", 0), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_changeset_iter_init(&it, NULL, 5), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_changeset_iter_init(&it, "", 0), ORC_ERR_CORRUPT);
    uint8_t h[CS_HEADER_SIZE] = {CS_MAGIC};
    st64(h + 1, 42);
    reseal(h, sizeof h);
    CHECK_OK(orc_changeset_iter_init(&it, h, sizeof h));
    CHECK_EQ(it.version, 42);
    CHECK_RC(orc_changeset_iter_next(&it, &in), ORC_ERR_NOT_FOUND);
    st32(h + 9, 1); /* announces an instruction it lacks */
    reseal(h, sizeof h);
    CHECK_OK(orc_changeset_iter_init(&it, h, sizeof h));
    CHECK_RC(orc_changeset_iter_next(&it, &in), ORC_ERR_CORRUPT);

    orc_env *env;
    orc_txn *txn;
    const void *d;
    size_t n;
    CHECK_OK(open_env("edges.realm", &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    CHECK_EQ(orc_log_first_version(txn), 0);
    CHECK_RC(orc_log_get(txn, 1, &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_RC(orc_log_get(txn, 1, NULL, &n), ORC_ERR_INVALID_ARG);
    orc_txn_abort(txn);
    CHECK_EQ(orc_log_first_version(NULL), 0);
    orc_env_close(env);
}

/* ---- replay ------------------------------------------------------------------------------- */

static int values_equal(orc_txn *ta, orc_txn *tb, uint32_t t, uint64_t k, const orc_prop_info *p)
{
    orc_value a, b;
    int rc;
    if (p->collection == ORC_COLL_NONE) {
        if ((rc = orc_obj_get(ta, t, k, p->col, &a)) || (rc = orc_obj_get(tb, t, k, p->col, &b))) return rc;
        return same(a, b) ? ORC_OK : -1;
    }
    size_t na, nb;
    if ((rc = orc_coll_size(ta, t, k, p->col, &na)) || (rc = orc_coll_size(tb, t, k, p->col, &nb))) return rc;
    if (na != nb) return -2;
    for (size_t i = 0; i < na; i++) {
        if ((rc = orc_coll_get(ta, t, k, p->col, i, &a)) || (rc = orc_coll_get(tb, t, k, p->col, i, &b))) return rc;
        if (!same(a, b)) return -3;
        if (p->collection == ORC_COLL_DICT) {
            if ((rc = orc_dict_key_at(ta, t, k, p->col, i, &a)) || (rc = orc_dict_key_at(tb, t, k, p->col, i, &b)))
                return rc;
            if (!same(a, b)) return -4;
        }
    }
    return ORC_OK;
}

/* Compares two realms' schemas, keys and every value; ORC_OK when equal. */
static int realms_equal(orc_env *ea, orc_env *eb)
{
    orc_txn *ta, *tb;
    int rc = orc_txn_begin(ea, ORC_TXN_READ, &ta);
    if (rc) return rc;
    if ((rc = orc_txn_begin(eb, ORC_TXN_READ, &tb))) {
        orc_txn_abort(ta);
        return rc;
    }
    uint32_t nc = orc_schema_class_count(ta);
    if (nc != orc_schema_class_count(tb)) rc = -10;
    for (uint32_t i = 0; !rc && i < nc; i++) {
        orc_class_info ca, cb;
        if ((rc = orc_schema_class_at(ta, i, &ca)) || (rc = orc_schema_class_at(tb, i, &cb))) break;
        if (ca.table != cb.table || strcmp(ca.name, cb.name) || ca.pk_col != cb.pk_col || ca.prop_count != cb.prop_count) {
            rc = -11;
            break;
        }
        orc_keys ka = {0}, kb = {0};
        if (!(rc = orc_table_keys(ta, ca.table, &ka)) && !(rc = orc_table_keys(tb, cb.table, &kb)))
            if (ka.count != kb.count || (ka.count && memcmp(ka.keys, kb.keys, ka.count * sizeof *ka.keys))) rc = -12;
        for (uint32_t j = 0; !rc && j < ca.prop_count; j++) {
            orc_prop_info pa, pb;
            if ((rc = orc_schema_prop_at(ta, ca.table, j, &pa)) || (rc = orc_schema_prop_at(tb, cb.table, j, &pb))) break;
            if (pa.col != pb.col || strcmp(pa.name, pb.name) || pa.type != pb.type || pa.flags != pb.flags) rc = -13;
            for (size_t r = 0; !rc && r < ka.count; r++) rc = values_equal(ta, tb, ca.table, ka.keys[r], &pa);
        }
        orc_keys_free(&ka);
        orc_keys_free(&kb);
    }
    orc_txn_abort(ta);
    orc_txn_abort(tb);
    return rc;
}

static int replay_into(orc_env *env, const uint8_t *data, size_t size, uint64_t *version)
{
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn);
    if (rc) return rc;
    if ((rc = log_replay(txn, data, size))) {
        orc_txn_abort(txn);
        return rc;
    }
    return orc_txn_commit(txn, version);
}

/* The same instructions (op, flags, object, column), ignoring pointers. */
static bool same_instructions(const cs *a, const cs *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++) {
        const orc_instr *x = &a->in[i], *y = &b->in[i];
        if (x->op != y->op || x->flags != y->flags || x->table != y->table || x->key != y->key || x->col != y->col ||
            x->index != y->index || x->has_pk != y->has_pk || !same(x->value, y->value) || x->child_key != y->child_key)
            return false;
    }
    return true;
}

TEST(log_replay_into_fresh_realm)
{
    orc_env *a, *b, *c;
    CHECK_OK(open_env("replay-a.realm", &a));
    CHECK_OK(make_schema(a));
    cs data;
    CHECK_OK(varied_changeset(a, &data));
    /* a second data transaction on top: sets, mixed links, a dictionary of values */
    orc_txn *txn;
    uint64_t p3, v;
    CHECK_OK(orc_txn_begin(a, ORC_TXN_WRITE, &txn));
    CHECK_OK(new_person(txn, 3, "cy", 50, &p3));
    orc_value l = v_link(PERSON, p3), s = v_str("s"), nul = v_null(), six = v_int(6);
    CHECK_OK(orc_obj_set(txn, PERSON, p3, P_ANY, &l));
    CHECK_OK(orc_list_insert(txn, PERSON, p3, P_FRIENDS, 0, &l));
    CHECK_OK(orc_set_insert(txn, PERSON, p3, P_NUMS, &six, NULL));
    CHECK_OK(orc_dict_set(txn, PERSON, p3, P_DICT, "a", 1, &s));
    CHECK_OK(orc_dict_set(txn, PERSON, p3, P_DICT, "b", 1, &nul));
    uint64_t emb;
    CHECK_OK(orc_obj_create_embedded(txn, PERSON, p3, P_ADDR, 0, NULL, &emb));
    orc_value city = v_str("Bergen");
    CHECK_OK(orc_obj_set(txn, ADDRESS, emb, A_CITY, &city));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_ENV(a);
    cs schema, more;
    CHECK_OK(cs_load(a, 1, &schema));
    CHECK_OK(cs_load(a, v, &more));

    /* b: whole changesets; c: the data as header-less instruction streams */
    CHECK_OK(open_env("replay-b.realm", &b));
    CHECK_OK(open_env("replay-c.realm", &c));
    uint64_t vb, vc;
    CHECK_OK(replay_into(b, schema.data, schema.size, &vb));
    CHECK_OK(replay_into(b, data.data, data.size, &vb));
    CHECK_OK(replay_into(b, more.data, more.size, &vb));
    CHECK_OK(replay_into(c, schema.data, schema.size, &vc));
    CHECK_OK(replay_into(c, data.data + CS_HEADER_SIZE, data.size - CS_HEADER_SIZE, &vc));
    CHECK_OK(replay_into(c, more.data + CS_HEADER_SIZE, more.size - CS_HEADER_SIZE, &vc));
    CHECK_EQ(vb, v);
    CHECK_EQ(vc, v);
    CHECK_OK(realms_equal(a, b));
    CHECK_OK(realms_equal(a, c));
    CHECK_ENV(b);
    CHECK_ENV(c);

    /* Replaying records the same instructions, derived ones included. */
    for (uint64_t ver = 1; ver <= v; ver++) {
        cs x, y;
        CHECK_OK(cs_load(a, ver, &x));
        CHECK_OK(cs_load(b, ver, &y));
        CHECK(same_instructions(&x, &y));
        cs_free(&x);
        cs_free(&y);
    }
    cs_free(&schema);
    cs_free(&data);
    cs_free(&more);
    orc_env_close(a);
    orc_env_close(b);
    orc_env_close(c);
}

TEST(log_replay_detects_diverging_ids)
{
    orc_env *a, *d;
    CHECK_OK(open_env("diverge-a.realm", &a));
    CHECK_OK(make_schema(a));
    cs schema, data;
    CHECK_OK(cs_load(a, 1, &schema));
    CHECK_OK(varied_changeset(a, &data));
    orc_env_close(a);

    /* A class already at table 1: the replayed classes get other ids. */
    CHECK_OK(open_env("diverge-d.realm", &d));
    orc_txn *txn;
    uint32_t t;
    CHECK_OK(orc_txn_begin(d, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_add(txn, "Other", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_txn_commit(txn, NULL));
    uint64_t v;
    CHECK_RC(replay_into(d, schema.data, schema.size, &v), ORC_ERR_INTERNAL);
    CHECK(strstr(orc_last_error(), "table id") != NULL);
    /* Data whose objects already exist cannot be replayed twice. */
    orc_env *e;
    CHECK_OK(open_env("diverge-e.realm", &e));
    CHECK_OK(replay_into(e, schema.data, schema.size, &v));
    CHECK_OK(replay_into(e, data.data, data.size, &v));
    CHECK(replay_into(e, data.data, data.size, &v) != ORC_OK);
    CHECK_ENV(e);
    /* A damaged changeset is refused before anything runs. */
    data.data[data.size / 2] ^= 0x40;
    CHECK_RC(replay_into(e, data.data, data.size, &v), ORC_ERR_CORRUPT);
    cs_free(&schema);
    cs_free(&data);
    orc_env_close(d);
    orc_env_close(e);
}

TEST(log_replay_after_map_growth)
{
    /* A 1 MB map outgrown inside one transaction: the engine replays the
     * header-less changeset recorded so far after each growth. */
    enum { N = 3000 };
    orc_env *env;
    orc_txn *txn;
    orc_env_options opt = {.initial_map_size = 1 << 20};
    CHECK_OK(orc_env_open(test_path("grow.realm"), ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(make_schema(env));
    uint64_t keys[N], a, v;
    char name[32];
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "person %d with a longer name", i);
        CHECK_OK(new_person(txn, i, name, i % 50, &keys[i]));
        int friend = (i / 2) % 10 == 8 ? i : i / 2; /* never an erased one */
        orc_value tag = v_str(name), l = v_link(PERSON, keys[friend]), city = v_str("Lima");
        CHECK_OK(orc_list_insert(txn, PERSON, keys[i], P_TAGS, 0, &tag));
        CHECK_OK(orc_list_insert(txn, PERSON, keys[i], P_FRIENDS, 0, &l));
        CHECK_OK(orc_dict_set(txn, PERSON, keys[i], P_DICT, name, strlen(name), &tag));
        CHECK_OK(orc_obj_create_embedded(txn, PERSON, keys[i], P_ADDRS, 0, NULL, &a));
        CHECK_OK(orc_obj_set(txn, ADDRESS, a, A_CITY, &city));
        if (i % 10 == 9) CHECK_OK(orc_obj_erase(txn, PERSON, keys[i - 1]));
    }
    CHECK_OK(orc_txn_commit(txn, &v));
    orc_env_info info;
    CHECK_OK(orc_env_info_get(env, &info));
    CHECK(info.map_size > (size_t)opt.initial_map_size);

    cs c;
    CHECK_OK(cs_load(env, v, &c));
    CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), N);
    CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE_EMBEDDED, 0), N);
    CHECK_EQ(cs_count(&c, ORC_INSTR_ERASE, 0), N / 10);
    for (size_t i = 0, creates = 0; i < c.n; i++)
        if (c.in[i].op == ORC_INSTR_CREATE) CHECK_EQ(c.in[i].key, keys[creates++]);
    cs_free(&c);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    uint64_t count;
    CHECK_OK(orc_table_count(txn, PERSON, &count));
    CHECK_EQ(count, N - N / 10);
    CHECK_OK(orc_table_count(txn, ADDRESS, &count));
    CHECK_EQ(count, N - N / 10);
    orc_value got;
    CHECK_OK(orc_obj_get(txn, PERSON, keys[N - 1], P_NAME, &got));
    snprintf(name, sizeof name, "person %d with a longer name", N - 1);
    CHECK(str_is(got, name));
    orc_txn_abort(txn);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(log_replay_schema_changes)
{
    orc_env *a, *b;
    orc_txn *txn;
    uint64_t p1, p2, note, v;
    uint32_t tmp;
    CHECK_OK(open_env("schema-a.realm", &a));
    CHECK_OK(make_schema(a));
    CHECK_OK(orc_txn_begin(a, ORC_TXN_WRITE, &txn));
    CHECK_OK(new_person(txn, 1, "ann", 30, &p1));
    CHECK_OK(new_person(txn, 2, "bob", 30, &p2));
    orc_value l = v_link(PERSON, p2), text = v_str("t");
    uint16_t tc = N_TEXT, col;
    CHECK_OK(orc_obj_set(txn, PERSON, p1, P_FRIEND, &l));
    CHECK_OK(orc_obj_create(txn, NOTE, &tc, &text, 1, &note));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(orc_txn_begin(a, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_class_rename(txn, NOTE, "Memo"));
    CHECK_OK(orc_prop_rename(txn, PERSON, P_NAME, "label"));
    CHECK_OK(orc_prop_set_indexed(txn, PERSON, P_NAME, true));
    CHECK_OK(orc_prop_set_indexed(txn, PERSON, P_AGE, false));
    CHECK_OK(orc_prop_remove(txn, PERSON, P_FRIEND));
    CHECK_OK(orc_class_set_primary_key(txn, NOTE, N_TEXT));
    orc_prop_spec extra = {"extra", ORC_TYPE_STRING, ORC_COLL_LIST, ORC_PROP_OPTIONAL, 0};
    CHECK_OK(orc_prop_add(txn, NOTE, &extra, &col));
    CHECK_OK(orc_class_add(txn, "Tmp", ORC_CLASS_TOP_LEVEL, &tmp));
    CHECK_OK(orc_obj_create(txn, tmp, NULL, NULL, 0, &note));
    CHECK_OK(orc_class_remove(txn, tmp));
    CHECK_OK(orc_table_clear(txn, PERSON));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_ENV(a);

    CHECK_OK(open_env("schema-b.realm", &b));
    for (uint64_t ver = 1; ver <= v; ver++) {
        cs c;
        uint64_t got;
        CHECK_OK(cs_load(a, ver, &c));
        CHECK_OK(replay_into(b, c.data, c.size, &got));
        CHECK_EQ(got, ver);
        cs_free(&c);
    }
    CHECK_OK(realms_equal(a, b));
    CHECK_OK(orc_txn_begin(b, ORC_TXN_READ, &txn));
    orc_class_info ci;
    CHECK_OK(orc_schema_class_find(txn, "Memo", &ci));
    CHECK_EQ(ci.pk_col, N_TEXT);
    CHECK_RC(orc_schema_class_find(txn, "Tmp", &ci), ORC_ERR_NOT_FOUND);
    orc_txn_abort(txn);
    CHECK_ENV(b);
    orc_env_close(a);
    orc_env_close(b);
}

/* orc_list_insert_many: the list, the backlinks and the changeset are those of the
   same inserts one by one; a refused value changes nothing; replaying the log rebuilds it. */
TEST(log_list_insert_many_is_single_inserts)
{
    orc_env *a, *b, *c;
    CHECK_OK(open_env("many-a.realm", &a));
    CHECK_OK(open_env("many-b.realm", &b));
    CHECK_OK(make_schema(a));
    CHECK_OK(make_schema(b));
    uint64_t va = 0, vb = 0;
    for (int e = 0; e < 2; e++) {
        orc_env *env = e ? b : a;
        orc_txn *txn;
        uint64_t p[4];
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        for (int i = 0; i < 4; i++) CHECK_OK(new_person(txn, i + 1, "p", 20 + i, &p[i]));
        orc_value links[3] = {v_link(PERSON, p[1]), v_link(PERSON, p[2]), v_link(PERSON, p[1])};
        orc_value tags[4] = {v_str("x"), v_str("y"), v_str("z"), v_str("w")};
        if (!e) {
            CHECK_OK(orc_list_insert_many(txn, PERSON, p[0], P_FRIENDS, 0, links, 3));
            CHECK_OK(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 0, tags, 2));
            CHECK_OK(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 1, tags + 2, 2)); /* in the middle */
            CHECK_OK(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 4, tags, 0));     /* nothing */
            /* Refused: a bad value anywhere in the batch, a position past the end. */
            orc_value bad[2] = {v_str("ok"), v_int(7)};
            CHECK_RC(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 0, bad, 2), ORC_ERR_WRONG_TYPE);
            CHECK_RC(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 5, tags, 1), ORC_ERR_OUT_OF_RANGE);
            CHECK_RC(orc_list_insert_many(txn, PERSON, p[0], P_TAGS, 0, NULL, 1), ORC_ERR_INVALID_ARG);
        } else {
            for (int i = 0; i < 3; i++) CHECK_OK(orc_list_insert(txn, PERSON, p[0], P_FRIENDS, i, &links[i]));
            for (int i = 0; i < 2; i++) CHECK_OK(orc_list_insert(txn, PERSON, p[0], P_TAGS, i, &tags[i]));
            for (int i = 0; i < 2; i++) CHECK_OK(orc_list_insert(txn, PERSON, p[0], P_TAGS, 1 + i, &tags[2 + i]));
        }
        size_t n;
        CHECK_OK(orc_coll_size(txn, PERSON, p[0], P_TAGS, &n));
        CHECK_EQ(n, 4);
        const char *want[4] = {"x", "z", "w", "y"};
        for (size_t i = 0; i < 4; i++) {
            orc_value got;
            CHECK_OK(orc_coll_get(txn, PERSON, p[0], P_TAGS, i, &got));
            CHECK(str_is(got, want[i]));
        }
        uint64_t count;
        CHECK_OK(orc_obj_backlink_count(txn, PERSON, p[1], &count)); /* objects, not links */
        CHECK_EQ(count, 1);
        CHECK_OK(orc_obj_backlink_count(txn, PERSON, p[3], &count));
        CHECK_EQ(count, 0);
        CHECK_OK(orc_txn_commit(txn, e ? &vb : &va));
    }
    CHECK_EQ(va, vb);
    CHECK_OK(realms_equal(a, b));
    cs x, y, schema;
    CHECK_OK(cs_load(a, va, &x));
    CHECK_OK(cs_load(b, vb, &y));
    CHECK(same_instructions(&x, &y));
    CHECK_EQ(cs_count(&x, ORC_INSTR_LIST_INSERT, 0), 7);
    /* Replayed into a fresh file, the log rebuilds the lists. */
    CHECK_OK(open_env("many-c.realm", &c));
    CHECK_OK(cs_load(a, 1, &schema));
    uint64_t vc;
    CHECK_OK(replay_into(c, schema.data, schema.size, &vc));
    CHECK_OK(replay_into(c, x.data, x.size, &vc));
    CHECK_OK(realms_equal(a, c));
    CHECK_ENV(a);
    CHECK_ENV(c);
    cs_free(&x);
    cs_free(&y);
    cs_free(&schema);
    orc_env_close(a);
    orc_env_close(b);
    orc_env_close(c);
}

/*
 * Changesets of 4 MiB and more are packed on a thread beside the commit's index flush
 * (log.c, "PACKING BESIDE THE REST OF THE COMMIT"). Each transaction here records one
 * (Note.n indexed, so the flush has a million-entry's share of work) in a map that
 * starts at 1 MiB, so commits also run out of map: the pack of the failed attempt is
 * waited for and dropped, and the retry packs again. Every changeset must decode to
 * what was written, and orc_env_check must find every index entry.
 */
TEST(log_large_changesets_pack_beside_the_flush)
{
    orc_env *env;
    orc_txn *txn;
    orc_env_options opt = {.initial_map_size = 1 << 20};
    CHECK_OK(orc_env_open(test_path("packed.realm"), ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(make_schema(env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_prop_set_indexed(txn, NOTE, N_N, true));
    CHECK_OK(orc_txn_commit(txn, NULL));
    int grew_in_commit = 0;
    char text[64];
    uint16_t cols[2] = {N_TEXT, N_N};
    for (int round = 0; round < 4; round++) {
        int n = 150000 + round * 23000;
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        for (int i = 0; i < n; i++) {
            snprintf(text, sizeof text, "round %d note number %d", round, i);
            orc_value vals[2] = {v_str(text), v_int(i % 97)};
            CHECK_OK(orc_obj_create(txn, NOTE, cols, vals, 2, NULL));
        }
        orc_env_info before, after;
        CHECK_OK(orc_env_info_get(env, &before));
        uint64_t v;
        CHECK_OK(orc_txn_commit(txn, &v));
        CHECK_OK(orc_env_info_get(env, &after));
        grew_in_commit += after.map_size > before.map_size;

        uint8_t codec;
        uint32_t raw;
        size_t stored;
        CHECK_OK(raw_entry(env, v, &codec, &raw, &stored));
        CHECK(raw >= 4u << 20);
        CHECK_EQ(codec, CS_CODEC_ZSTD);
        cs c;
        CHECK_OK(cs_load(env, v, &c));
        CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), (size_t)n);
        for (int i = 0; i < n; i += 997) {
            const orc_instr *in = &c.in[3 * i];
            snprintf(text, sizeof text, "round %d note number %d", round, i);
            CHECK(in->op == ORC_INSTR_CREATE && in[1].col == N_TEXT && str_is(in[1].value, text));
            CHECK(in[2].col == N_N && same(in[2].value, v_int(i % 97)));
        }
        cs_free(&c);
    }
    /* the map starts small and the index entries are put at commit: some commit outgrew it */
    CHECK(grew_in_commit > 0);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Adds `n` notes in one transaction (a changeset of 4 MiB or more from n = 150000). */
static int add_notes(orc_env *env, int n, const char *tag, uint64_t *version)
{
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn);
    char text[64];
    uint16_t cols[2] = {N_TEXT, N_N};
    for (int i = 0; !rc && i < n; i++) {
        snprintf(text, sizeof text, "%s note number %d", tag, i);
        orc_value vals[2] = {v_str(text), v_int(i)};
        rc = orc_obj_create(txn, NOTE, cols, vals, 2, NULL);
    }
    if (rc) {
        orc_txn_abort(txn);
        return rc;
    }
    return orc_txn_commit(txn, version);
}

static int log_state(orc_env *env, uint64_t version, uint64_t *first)
{
    orc_txn *txn;
    const void *d;
    size_t n;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &txn);
    if (rc) return rc;
    *first = orc_log_first_version(txn);
    rc = orc_log_get(txn, version, &d, &n);
    orc_txn_abort(txn);
    return rc;
}

static uint64_t note_count(orc_env *env)
{
    orc_txn *txn;
    uint64_t count = UINT64_MAX;
    if (orc_txn_begin(env, ORC_TXN_READ, &txn)) return count;
    if (orc_table_count(txn, NOTE, &count)) count = UINT64_MAX;
    orc_txn_abort(txn);
    return count;
}

TEST(log_no_log_keeps_nothing)
{
    enum { BIG = 150000 };
    orc_env *env;
    orc_txn *txn;
    uint64_t v, first, key;
    TEST_PATH(path, "nolog.realm");
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(make_schema(env));
    CHECK_OK(add_notes(env, 3, "kept", &v));
    CHECK_OK(log_state(env, v, &first));
    CHECK_EQ(first, 1);
    orc_env_close(env);

    /* Reopened without a log, in a 1 MB map that the big commit outgrows (replayed). */
    orc_env_options opt = {.initial_map_size = 1 << 20};
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_LOG, &opt, &env));
    CHECK_OK(log_state(env, v, &first)); /* what the earlier open kept stays until a commit */
    uint64_t before = v;
    CHECK_OK(add_notes(env, BIG, "big", &v));
    CHECK_EQ(v, before + 1);
    CHECK_RC(log_state(env, v, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(first, 0);
    CHECK_RC(log_state(env, before, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(note_count(env), BIG + 3);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(new_person(txn, 7, "seven", 70, &key));
    CHECK_OK(orc_txn_commit(txn, &v));
    CHECK_RC(log_state(env, v, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(first, 0);
    CHECK_ENV(env);
    orc_env_close(env);

    /* Opened again with a log: commits are kept from there on, data intact. */
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(add_notes(env, 1, "again", &v));
    CHECK_OK(log_state(env, v, &first));
    CHECK_EQ(first, v);
    CHECK_EQ(note_count(env), BIG + 4);

    /* The choice is the handle's: a second handle without a log, on the same environment. */
    orc_env *bare;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_LOG, NULL, &bare));
    CHECK_OK(add_notes(env, 1, "kept", &v));
    CHECK_OK(log_state(env, v, &first));
    CHECK_EQ(first, v - 1);
    CHECK_OK(add_notes(bare, 1, "bare", &v));
    CHECK_RC(log_state(env, v, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(first, 0);
    CHECK_OK(add_notes(env, 1, "kept", &v));
    CHECK_OK(log_state(bare, v, &first));
    CHECK_EQ(first, v);
    orc_env_close(bare);
    CHECK_EQ(note_count(env), BIG + 7);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
    orc_value got;
    CHECK_OK(orc_obj_get(txn, PERSON, key, P_NAME, &got));
    CHECK(str_is(got, "seven"));
    orc_txn_abort(txn);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(log_lean_log_keeps_large_changesets_only_when_held)
{
    enum { BIG = 150000 };
    orc_env *env;
    orc_txn *txn;
    uint64_t v_small, v_big, v, first;
    CHECK_OK(orc_env_open(test_path("lean.realm"), ORC_ENV_NO_SYNC | ORC_ENV_LEAN_LOG, NULL, &env));
    CHECK_OK(make_schema(env));
    CHECK_OK(add_notes(env, 1000, "small", &v_small)); /* ~40 KB: kept, as always */
    CHECK_OK(log_state(env, v_small, &first));
    CHECK_EQ(first, 1);

    /* Large and nobody holds the log: not kept, and the log is emptied. */
    CHECK_OK(add_notes(env, BIG, "big", &v_big));
    CHECK_RC(log_state(env, v_big, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(first, 0);
    CHECK_RC(log_state(env, v_small, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(note_count(env), BIG + 1000);
    CHECK_OK(add_notes(env, 1, "after", &v));
    CHECK_OK(log_state(env, v, &first));
    CHECK_EQ(first, v);

    /* Held: the large one is kept whole. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_log_hold(txn, "sync", v));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(add_notes(env, BIG, "held", &v_big));
    cs c;
    CHECK_OK(cs_load(env, v_big, &c));
    CHECK_EQ(cs_count(&c, ORC_INSTR_CREATE, 0), (size_t)BIG);
    cs_free(&c);
    CHECK_OK(log_state(env, v, &first));
    CHECK_EQ(first, v);

    /* Released: the next large one empties the log again. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_log_release(txn, "sync"));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(add_notes(env, BIG, "released", &v_big));
    CHECK_RC(log_state(env, v_big, &first), ORC_ERR_TRIMMED);
    CHECK_EQ(first, 0);
    CHECK_EQ(note_count(env), 3 * BIG + 1001);
    CHECK_ENV(env);
    orc_env_close(env);
}
