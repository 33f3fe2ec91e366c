/*
 * test_check.c — orc_env_check (check.c): healthy realms after many kinds of
 * writes pass; then one kind of damage at a time, written with raw LMDB calls,
 * is reported as ORC_ERR_CORRUPT with a message naming it.
 *
 * LMDB refuses to open one file twice in a process, so the damage is done in a
 * forked child (after the test closed its environment) with plain mdb_* calls
 * on the documented layout (row.h, log_format.h).
 */
#include "object.h"
#include "person_fixture.h"
#include "log_format.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>


/* The schema of person_fixture.h, with Address.city and Note.text indexed. */

static int make_schema(orc_txn *txn)
{
    orc_prop_spec city = {"city", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0};
    orc_prop_spec text = {"text", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0};
    orc_prop_spec n = {"n", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0};
    uint32_t t;
    uint16_t col;
    int rc = orc_class_add(txn, "Person", ORC_CLASS_TOP_LEVEL, &t);
    if (!rc) rc = orc_class_add(txn, "Address", ORC_CLASS_EMBEDDED, &t);
    if (!rc) rc = orc_class_add(txn, "Note", ORC_CLASS_TOP_LEVEL, &t);
    for (int i = 0; !rc && i < P_NCOLS; i++) rc = orc_prop_add(txn, PERSON, &person_props[i], &col);
    if (!rc) rc = orc_prop_add(txn, ADDRESS, &city, &col);
    if (!rc) rc = orc_prop_add(txn, NOTE, &text, &col);
    if (!rc) rc = orc_prop_add(txn, NOTE, &n, &col);
    return rc;
}

static int new_person(orc_txn *txn, int64_t id, const char *name, int64_t age, uint64_t *key)
{
    uint16_t cols[3] = {P_ID, P_NAME, P_AGE};
    orc_value vals[3] = {v_int(id), v_str(name), v_int(age)};
    return orc_obj_create(txn, PERSON, cols, vals, 3, key);
}

/* The realm the damage tests start from: version 1 schema, 2 objects, 3 links. */
typedef struct realm {
    const char *path;
    uint64_t p[6]; /* Person keys by id 1..5 */
    uint64_t addr; /* p1's embedded address */
} realm;

static int populate(realm *r)
{
    orc_env *env;
    orc_txn *txn;
    int rc = orc_env_open(r->path, ORC_ENV_NO_SYNC, NULL, &env);
    if (rc) return rc;
    if (!(rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn))) {
        if (!(rc = make_schema(txn))) rc = orc_txn_commit(txn, NULL);
        else orc_txn_abort(txn);
    }
    if (!rc && !(rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn))) {
        static const char *names[6] = {"", "ann", "bob", "cy", "di", "ed"};
        for (int i = 1; !rc && i <= 5; i++) rc = new_person(txn, i, names[i], 20 + i, &r->p[i]);
        orc_value l2 = v_link(PERSON, r->p[2]), l3 = v_link(PERSON, r->p[3]), tag = v_str("t"), num = v_int(4);
        orc_value dv = v_str("v"), city = v_str("Oslo");
        uint16_t tc = 0;
        orc_value text = v_str("hello");
        uint64_t note;
        if (!rc) rc = orc_obj_set(txn, PERSON, r->p[1], P_FRIEND, &l2);
        if (!rc) rc = orc_list_insert(txn, PERSON, r->p[1], P_FRIENDS, 0, &l2);
        if (!rc) rc = orc_list_insert(txn, PERSON, r->p[1], P_FRIENDS, 1, &l3);
        if (!rc) rc = orc_list_insert(txn, PERSON, r->p[1], P_FRIENDS, 2, &l2);
        if (!rc) rc = orc_obj_set(txn, PERSON, r->p[2], P_ANY, &l3);
        if (!rc) rc = orc_list_insert(txn, PERSON, r->p[1], P_TAGS, 0, &tag);
        if (!rc) rc = orc_set_insert(txn, PERSON, r->p[1], P_NUMS, &num, NULL);
        if (!rc) rc = orc_dict_set(txn, PERSON, r->p[1], P_DICT, "k", 1, &dv);
        if (!rc) rc = orc_obj_create_embedded(txn, PERSON, r->p[1], P_ADDR, 0, NULL, &r->addr);
        if (!rc) rc = orc_obj_set(txn, ADDRESS, r->addr, 0, &city);
        if (!rc) rc = orc_obj_create(txn, NOTE, &tc, &text, 1, &note);
        if (!rc) rc = orc_txn_commit(txn, NULL);
        else orc_txn_abort(txn);
    }
    /* a third version, so that the log has a middle */
    if (!rc && !(rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn))) {
        orc_value name = v_str("bea");
        if (!(rc = orc_obj_set(txn, PERSON, r->p[2], P_NAME, &name))) rc = orc_txn_commit(txn, NULL);
        else orc_txn_abort(txn);
    }
    if (!rc) rc = orc_env_check(env, NULL);
    orc_env_close(env);
    return rc;
}

/* ---- damage in a child process ----------------------------------------------------- */

typedef int (*damage_fn)(MDB_txn *txn, const realm *r);

/* Runs `fn` in a raw LMDB write transaction on the closed realm, in a child process. */
static int damage(const realm *r, damage_fn fn)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        MDB_env *e;
        MDB_txn *t;
        int rc = mdb_env_create(&e);
        if (rc) _exit(10);
        rc = mdb_env_set_maxdbs(e, ORC_MAX_DBS);
        if (!rc) rc = mdb_env_open(e, r->path, MDB_NOSUBDIR, 0644);
        if (!rc) rc = mdb_txn_begin(e, NULL, 0, &t);
        if (!rc) {
            rc = fn(t, r);
            if (rc) mdb_txn_abort(t);
            else rc = mdb_txn_commit(t);
        }
        mdb_env_close(e);
        _exit(rc ? 11 : 0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int dbi(MDB_txn *t, const char *name, MDB_dbi *out) { return mdb_dbi_open(t, name, 0, out); }

/*
 * Field offsets of a Person row inside its fixed area (row.h: the
 * fixed area starts after the 4-byte header and the null bitmap; widths by
 * type: int and link 8, string and mixed 2 in a narrow row, collections 0).
 */
static const size_t person_field[P_NCOLS] = {0, 8, 10, 18, 26, 26, 26, 26, 34, 34, 36};

/* Rewrites one 8-byte field (int or link) of a Person row; `expect` is the value it must hold, UINT64_MAX for any. */
static int poke_person_slot(MDB_txn *t, uint64_t key, uint16_t col, uint64_t expect, uint64_t value)
{
    MDB_dbi d;
    uint8_t kb[8];
    st64be(kb, key);
    MDB_val k = {8, kb}, v;
    int rc = dbi(t, "t1", &d);
    if (!rc) rc = mdb_get(t, d, &k, &v);
    if (rc) return rc;
    uint8_t row[4096];
    if (v.mv_size > sizeof row) return -1;
    memcpy(row, v.mv_data, v.mv_size);
    size_t ncols = ld16(row), at = 4 + (ncols + 7) / 8 + person_field[col];
    if (ld16(row + 2) != 0 || col >= ncols || at + 8 > v.mv_size) return -2; /* wide rows: not the layout we know */
    if (expect != UINT64_MAX && ld64(row + at) != expect) return -3;
    st64(row + at, value);
    v.mv_data = row;
    return mdb_put(t, d, &k, &v, 0);
}

static int del_first(MDB_txn *t, const char *name)
{
    MDB_dbi d;
    MDB_cursor *c;
    MDB_val k, v;
    int rc = dbi(t, name, &d);
    if (!rc) rc = mdb_cursor_open(t, d, &c);
    if (rc) return rc;
    rc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
    if (!rc) rc = mdb_cursor_del(c, 0);
    mdb_cursor_close(c);
    return rc;
}

static int dmg_delete_index_entry(MDB_txn *t, const realm *r) { return del_first(t, "idx"); }
static int dmg_drop_backlink(MDB_txn *t, const realm *r) { return del_first(t, "blink"); }

static int dmg_stray_pk(MDB_txn *t, const realm *r)
{
    MDB_dbi d;
    uint8_t key[8];
    MDB_val k = {6, "\x7fstray"}, v = {pk_value_put(key, r->p[1], ORC_FORMAT_VERSION), key};
    int rc = dbi(t, "p1", &d);
    return rc ? rc : mdb_put(t, d, &k, &v, 0);
}

static int dmg_row_without_index(MDB_txn *t, const realm *r) { return poke_person_slot(t, r->p[1], P_AGE, 21, 999); }
static int dmg_dangling_link(MDB_txn *t, const realm *r) { return poke_person_slot(t, r->p[1], P_FRIEND, r->p[2], 777); }

static int dmg_log_gap(MDB_txn *t, const realm *r)
{
    MDB_dbi d;
    uint8_t kb[8];
    st64be(kb, 2);
    MDB_val k = {8, kb};
    int rc = dbi(t, "log", &d);
    return rc ? rc : mdb_del(t, d, &k, NULL);
}

static int dmg_log_byte(MDB_txn *t, const realm *r)
{
    MDB_dbi d;
    uint8_t kb[8], buf[4096];
    st64be(kb, 3);
    MDB_val k = {8, kb}, v;
    int rc = dbi(t, "log", &d);
    if (!rc) rc = mdb_get(t, d, &k, &v);
    if (rc) return rc;
    if (v.mv_size > sizeof buf || ((uint8_t *)v.mv_data)[0] != CS_CODEC_RAW) return -1;
    memcpy(buf, v.mv_data, v.mv_size);
    buf[v.mv_size - 3] ^= 0x20;
    v.mv_data = buf;
    return mdb_put(t, d, &k, &v, 0);
}

static int dmg_table_count(MDB_txn *t, const realm *r)
{
    MDB_dbi d;
    MDB_val k = {10, "orc.tables"}, v;
    uint8_t buf[1024];
    int rc = dbi(t, NULL, &d); /* format 2: in the main database */
    if (!rc) rc = mdb_get(t, d, &k, &v);
    if (rc) return rc;
    if (v.mv_size > sizeof buf || v.mv_size < 4 + 16) return -1;
    memcpy(buf, v.mv_data, v.mv_size);
    st64(buf + 4 + 8, ld64(buf + 4 + 8) + 1); /* table 1's count */
    v.mv_data = buf;
    return mdb_put(t, d, &k, &v, 0);
}

static int dmg_truncate_collection(MDB_txn *t, const realm *r)
{
    MDB_dbi d;
    uint8_t kb[14];
    st32be(kb, PERSON);
    st64be(kb + 4, r->p[1]);
    st16be(kb + 12, P_FRIENDS);
    MDB_val k = {14, kb}, v;
    int rc = dbi(t, "coll", &d);
    if (!rc) rc = mdb_get(t, d, &k, &v);
    if (rc) return rc;
    v.mv_size -= 3;
    return mdb_put(t, d, &k, &v, 0);
}

static int dmg_second_owner(MDB_txn *t, const realm *r)
{
    /* p2.addr now names p1's embedded address too (row and backlink agree). */
    int rc = poke_person_slot(t, r->p[2], P_ADDR, UINT64_MAX, r->addr);
    if (rc) return rc;
    /* clear p2.addr's null bit (column 7: byte 4, bit 7) */
    MDB_dbi d, b;
    uint8_t kb[8], row[4096];
    st64be(kb, r->p[2]);
    MDB_val k = {8, kb}, v;
    if ((rc = dbi(t, "t1", &d)) || (rc = mdb_get(t, d, &k, &v))) return rc;
    if (v.mv_size > sizeof row) return -1;
    memcpy(row, v.mv_data, v.mv_size);
    row[4 + P_ADDR / 8] &= (uint8_t)~(1u << (P_ADDR % 8));
    v.mv_data = row;
    if ((rc = mdb_put(t, d, &k, &v, 0))) return rc;
    uint8_t bk[26], one[4];
    st32be(bk, ADDRESS);
    st64be(bk + 4, r->addr);
    st32be(bk + 12, PERSON);
    st16be(bk + 16, P_ADDR);
    st64be(bk + 18, r->p[2]);
    st32(one, 1);
    MDB_val bkv = {26, bk}, bv = {4, one};
    if ((rc = dbi(t, "blink", &b))) return rc;
    return mdb_put(t, b, &bkv, &bv, 0);
}

/* Builds a healthy realm, damages it, and checks the report. */
static int damaged_report(const char *name, damage_fn fn, size_t *problems, char *msg, size_t msg_size)
{
    realm r = {.path = test_path(name)};
    int rc = populate(&r);
    if (rc) return rc;
    if (damage(&r, fn)) return -100;
    orc_env *env;
    if ((rc = orc_env_open(r.path, ORC_ENV_NO_SYNC, NULL, &env))) return rc;
    rc = orc_env_check(env, problems);
    snprintf(msg, msg_size, "%s", orc_last_error());
    orc_env_close(env);
    return rc;
}

#define CHECK_DAMAGE(file, fn, text)                                                               \
    do {                                                                                           \
        size_t problems = 0;                                                                       \
        char msg[1024];                                                                            \
        CHECK_RC(damaged_report(file, fn, &problems, msg, sizeof msg), ORC_ERR_CORRUPT);          \
        CHECK(problems >= 1);                                                                      \
        if (!strstr(msg, text)) test_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", msg, text); \
    } while (0)

TEST(check_missing_index_entry) { CHECK_DAMAGE("idx.realm", dmg_delete_index_entry, "missing index entry"); }
TEST(check_stray_primary_key) { CHECK_DAMAGE("pk.realm", dmg_stray_pk, "stray primary key entry"); }
TEST(check_row_changed_without_index)
{
    CHECK_DAMAGE("row.realm", dmg_row_without_index, "table 'Person' key 1 column 'age': missing index entry");
}
TEST(check_dropped_backlink) { CHECK_DAMAGE("blink.realm", dmg_drop_backlink, "missing backlink"); }
TEST(check_dangling_link) { CHECK_DAMAGE("dangling.realm", dmg_dangling_link, "column 'friend': dangling link"); }
TEST(check_log_gap) { CHECK_DAMAGE("gap.realm", dmg_log_gap, "log: versions 2 to 2 are missing"); }
TEST(check_log_entry_damaged) { CHECK_DAMAGE("logbyte.realm", dmg_log_byte, "checksum mismatch"); }
TEST(check_table_count) { CHECK_DAMAGE("count.realm", dmg_table_count, "table state counts 6 objects"); }
TEST(check_collection_truncated) { CHECK_DAMAGE("coll.realm", dmg_truncate_collection, "column 'friends'"); }
TEST(check_embedded_second_owner) { CHECK_DAMAGE("owner.realm", dmg_second_owner, "embedded object with 2 owning links"); }

TEST(check_counts_every_problem)
{
    /* The changed age is both a missing entry (new value) and a stray one (old value). */
    size_t problems = 0;
    char msg[1024];
    CHECK_RC(damaged_report("two.realm", dmg_row_without_index, &problems, msg, sizeof msg), ORC_ERR_CORRUPT);
    CHECK_EQ(problems, 2);
    CHECK(strstr(msg, "2 problems") != NULL);
}

/* ---- random damage never crashes the checker ----------------------------------------------- */

static uint64_t chaos_seed;

static int dmg_random(MDB_txn *t, const realm *r)
{
    static const char *dbs[] = {"t1", "t2", "t3", "p1", "idx", "coll", "blink", "log"};
    uint64_t *s = &chaos_seed;
    for (int flips = 0; flips < 3; flips++) {
        MDB_dbi d;
        MDB_cursor *c;
        MDB_val k, v;
        int rc = dbi(t, dbs[test_rand(s) % 8], &d);
        if (rc) return rc;
        MDB_stat st;
        if ((rc = mdb_stat(t, d, &st))) return rc;
        if (!st.ms_entries) continue;
        if ((rc = mdb_cursor_open(t, d, &c))) return rc;
        rc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
        for (size_t skip = test_rand(s) % st.ms_entries; !rc && skip; skip--) rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        uint8_t kb[512], vb[8192];
        size_t kn = k.mv_size, vn = v.mv_size;
        if (!rc && (kn > sizeof kb || vn > sizeof vb)) rc = -1;
        if (!rc) {
            memcpy(kb, k.mv_data, kn);
            memcpy(vb, v.mv_data, vn);
        }
        mdb_cursor_close(c);
        if (rc) return rc;
        uint64_t what = test_rand(s) % 4;
        if (what == 0 || vn == 0) { /* a different key */
            if ((rc = mdb_del(t, d, &(MDB_val){kn, kb}, NULL))) return rc;
            kb[test_rand(s) % kn] ^= (uint8_t)(1 + test_rand(s) % 255);
        } else if (what == 1) { /* a shorter value */
            vn = test_rand(s) % vn;
        } else { /* flipped value bytes */
            for (int i = 0; i < 1 + (int)(test_rand(s) % 3); i++) vb[test_rand(s) % vn] ^= (uint8_t)(1 + test_rand(s) % 255);
        }
        if ((rc = mdb_put(t, d, &(MDB_val){kn, kb}, &(MDB_val){vn, vb}, 0))) return rc;
    }
    return 0;
}

TEST(check_random_damage_never_crashes)
{
    uint64_t seed = test_seed();
    size_t found = 0;
    for (int round = 0; round < 40; round++) {
        /* The child's generator state is its own copy: draw each round's seed here. */
        chaos_seed = test_rand(&seed) | 1;
        char name[32];
        snprintf(name, sizeof name, "chaos%d.realm", round);
        size_t problems = 0;
        char msg[1024];
        int rc = damaged_report(name, dmg_random, &problems, msg, sizeof msg);
        if (rc != ORC_OK && rc != ORC_ERR_CORRUPT)
            test_fail(__FILE__, __LINE__, "round %d: %s (%s)", round, orc_strerror(rc), msg);
        CHECK(rc == ORC_OK || rc == ORC_ERR_CORRUPT);
        CHECK((rc == ORC_OK) == (problems == 0));
        found += rc == ORC_ERR_CORRUPT;
    }
    CHECK(found > 0);
}

/* ---- healthy realms ---------------------------------------------------------------------- */

static int check_now(orc_env *env)
{
    size_t problems = 99;
    int rc = orc_env_check(env, &problems);
    return rc ? rc : problems ? -1 : ORC_OK;
}

TEST(check_healthy_after_many_writes)
{
    orc_env *env;
    orc_txn *txn;
    uint64_t keys[40], a, note;
    CHECK_OK(orc_env_open(test_path("healthy.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(check_now(env)); /* empty */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(make_schema(txn));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(check_now(env));

    uint64_t seed = test_seed();
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    for (int i = 0; i < 40; i++) CHECK_OK(new_person(txn, 100 + i, "p", i % 7, &keys[i]));
    for (int i = 0; i < 40; i++) {
        orc_value l = v_link(PERSON, keys[test_rand(&seed) % 40]), t = v_str(i % 2 ? "odd" : "even");
        orc_value n = v_int((int64_t)(test_rand(&seed) % 5)), d = i % 3 ? v_str("x") : v_null();
        char dk[8];
        snprintf(dk, sizeof dk, "k%d", (int)(test_rand(&seed) % 4));
        CHECK_OK(orc_obj_set(txn, PERSON, keys[i], P_FRIEND, &l));
        CHECK_OK(orc_list_insert(txn, PERSON, keys[i], P_FRIENDS, 0, &l));
        CHECK_OK(orc_list_insert(txn, PERSON, keys[i], P_FRIENDS, 0, &l));
        CHECK_OK(orc_list_insert(txn, PERSON, keys[i], P_TAGS, 0, &t));
        CHECK_OK(orc_set_insert(txn, PERSON, keys[i], P_NUMS, &n, NULL));
        CHECK_OK(orc_dict_set(txn, PERSON, keys[i], P_DICT, dk, strlen(dk), &d));
        if (i % 4 == 0) CHECK_OK(orc_obj_set(txn, PERSON, keys[i], P_ANY, &l));
        if (i % 5 == 0) CHECK_OK(orc_obj_create_embedded(txn, PERSON, keys[i], P_ADDR, 0, NULL, &a));
        if (i % 3 == 0) CHECK_OK(orc_obj_create_embedded(txn, PERSON, keys[i], P_ADDRS, 0, NULL, &a));
        orc_value city = v_str("Rome");
        if (i % 3 == 0) CHECK_OK(orc_obj_set(txn, ADDRESS, a, 0, &city));
    }
    uint16_t tc = 0;
    orc_value text = v_str("memo");
    for (int i = 0; i < 10; i++) CHECK_OK(orc_obj_create(txn, NOTE, &tc, &text, 1, &note));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(check_now(env));

    /* erasures with incoming links and owned objects, edits, moves, replaced embedded objects */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    for (int i = 0; i < 40; i += 3) CHECK_OK(orc_obj_erase(txn, PERSON, keys[i]));
    for (int i = 1; i < 40; i += 3) {
        orc_value age = v_int(1000 + i);
        CHECK_OK(orc_obj_set(txn, PERSON, keys[i], P_AGE, &age));
        CHECK_OK(orc_obj_add_int(txn, PERSON, keys[i], P_AGE, 5));
        size_t n;
        CHECK_OK(orc_coll_size(txn, PERSON, keys[i], P_FRIENDS, &n));
        if (n > 1) CHECK_OK(orc_list_move(txn, PERSON, keys[i], P_FRIENDS, 0, n - 1));
        if (n > 0) CHECK_OK(orc_list_erase(txn, PERSON, keys[i], P_FRIENDS, 0));
        CHECK_OK(orc_obj_create_embedded(txn, PERSON, keys[i], P_ADDR, 0, NULL, &a));
        orc_value none = v_null();
        if (i % 2) CHECK_OK(orc_obj_set(txn, PERSON, keys[i], P_ADDR, &none));
        CHECK_OK(orc_coll_clear(txn, PERSON, keys[i], P_ADDRS));
    }
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(check_now(env));

    /* schema changes over populated tables, a cleared table, a trimmed log */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_prop_set_indexed(txn, PERSON, P_NAME, true));
    CHECK_OK(orc_prop_set_indexed(txn, PERSON, P_AGE, false));
    CHECK_OK(orc_prop_remove(txn, PERSON, P_FRIEND));
    orc_prop_spec extra = {"extra", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_INDEXED | ORC_PROP_OPTIONAL, 0};
    uint16_t col;
    CHECK_OK(orc_prop_add(txn, PERSON, &extra, &col));
    CHECK_OK(orc_table_clear(txn, NOTE));
    uint64_t trimmed;
    CHECK_OK(orc_log_trim(txn, 2, &trimmed));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(check_now(env));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
    CHECK_OK(orc_table_clear(txn, PERSON));
    CHECK_OK(orc_txn_commit(txn, NULL));
    CHECK_OK(check_now(env));
    orc_env_close(env);
}

TEST(check_bad_arguments)
{
    size_t problems = 5;
    CHECK_RC(orc_env_check(NULL, &problems), ORC_ERR_INVALID_ARG);
    CHECK_EQ(problems, 0);
}
