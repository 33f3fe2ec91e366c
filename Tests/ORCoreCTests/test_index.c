/*
 * test_index.c — secondary and primary-key indexes, seen through queries.
 *
 * Every indexed property here has an unindexed twin holding the same value,
 * so each query runs twice: through the index (orc_query_used_index must say
 * so) and as a scan; both results must equal a model computed in the test
 * with orc_value_compare. Duplicates are the hard case (the engine stores
 * each duplicate as its own LMDB key, without MDB_DUPSORT), so one test keeps
 * 10,000 objects over three values and churns them. Long strings share
 * prefixes longer than the 400-byte key encoding, where equality can only be
 * decided by rechecking rows. orc_env_check runs after every phase.
 */
#include "harness.h"

#include <stdlib.h>


static orc_value v_oid(uint8_t seed)
{
    orc_value v = {.type = ORC_TYPE_OBJECT_ID};
    for (int i = 0; i < 12; i++) v.object_id[i] = (uint8_t)(seed * 37 + i);
    return v;
}
static orc_value v_uuid(uint8_t seed)
{
    orc_value v = {.type = ORC_TYPE_UUID};
    for (int i = 0; i < 16; i++) v.uuid[i] = (uint8_t)(seed * 59 + i * 3);
    return v;
}

/* ---- query programs (orcore.h "Queries") ---- */

typedef struct qb {
    uint8_t *p;
    size_t n, cap;
} qb;

static void qb_put(qb *q, const void *d, size_t n)
{
    if (q->n + n > q->cap) {
        q->cap = (q->n + n) * 2 + 64;
        q->p = realloc(q->p, q->cap);
    }
    memcpy(q->p + q->n, d, n);
    q->n += n;
}
static void qb_u8(qb *q, uint8_t v) { qb_put(q, &v, 1); }
static void qb_le(qb *q, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) qb_u8(q, (uint8_t)(v >> (8 * i)));
}
static void qb_value(qb *q, const orc_value *v)
{
    qb_u8(q, (uint8_t)v->type);
    switch (v->type) {
    case ORC_TYPE_NULL: break;
    case ORC_TYPE_BOOL: qb_u8(q, v->boolean); break;
    case ORC_TYPE_INT: qb_le(q, (uint64_t)v->integer, 8); break;
    case ORC_TYPE_FLOAT: {
        uint32_t b;
        memcpy(&b, &v->fnum, 4);
        qb_le(q, b, 4);
        break;
    }
    case ORC_TYPE_DOUBLE: {
        uint64_t b;
        memcpy(&b, &v->dnum, 8);
        qb_le(q, b, 8);
        break;
    }
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        qb_le(q, v->string.size, 4);
        qb_put(q, v->string.data, v->string.size);
        break;
    case ORC_TYPE_TIMESTAMP:
        qb_le(q, (uint64_t)v->timestamp.seconds, 8);
        qb_le(q, (uint32_t)v->timestamp.nanoseconds, 4);
        break;
    case ORC_TYPE_DECIMAL:
        qb_le(q, v->decimal.w[0], 8);
        qb_le(q, v->decimal.w[1], 8);
        break;
    case ORC_TYPE_OBJECT_ID: qb_put(q, v->object_id, 12); break;
    case ORC_TYPE_UUID: qb_put(q, v->uuid, 16); break;
    case ORC_TYPE_LINK:
        qb_le(q, v->link.table, 4);
        qb_le(q, v->link.key, 8);
        break;
    default: break;
    }
}
/* CMP op flags ANY, PATH(col), then the caller's right side. */
static void qb_cmp_path(qb *q, uint8_t op, uint8_t flags, uint16_t col)
{
    qb_u8(q, ORC_OP_CMP);
    qb_u8(q, op);
    qb_u8(q, flags);
    qb_u8(q, ORC_Q_DEFAULT);
    qb_u8(q, ORC_EXPR_PATH);
    qb_u8(q, 1);
    qb_u8(q, ORC_STEP_PROP);
    qb_le(q, col, 2);
    qb_u8(q, ORC_AGG_NONE);
}
static void qb_cmp_const(qb *q, uint8_t op, uint8_t flags, uint16_t col, const orc_value *v)
{
    qb_cmp_path(q, op, flags, col);
    qb_u8(q, ORC_EXPR_CONST);
    qb_value(q, v);
}
static void qb_cmp_list(qb *q, uint8_t op, uint16_t col, const orc_value *vals, size_t n)
{
    qb_cmp_path(q, op, 0, col);
    qb_u8(q, ORC_EXPR_LIST);
    qb_le(q, n, 4);
    for (size_t i = 0; i < n; i++) qb_value(q, &vals[i]);
}

/* Compiles and runs `q` (then empties it); `out` gets the keys, `used` whether an index served it. */
static bool run_query(orc_txn *txn, uint32_t t, qb *q, orc_keys *out, bool *used)
{
    orc_query *query;
    out->count = 0;
    int rc = orc_query_compile(txn, t, q->p, q->n, &query);
    q->n = 0;
    HOK(rc);
    rc = orc_query_run(txn, query, out);
    if (used) *used = orc_query_used_index(query);
    uint64_t count = 0;
    int rc2 = rc ? rc : orc_query_count(txn, query, &count);
    orc_query_free(query);
    HOK(rc);
    HOK(rc2);
    if (count != out->count) HFAIL("orc_query_count %" PRIu64 " but orc_query_run found %zu", count, out->count);
    return true;
}

static bool keys_equal(const orc_keys *a, const uint64_t *b, size_t n, const char *what)
{
    if (a->count != n) HFAIL("%s: %zu keys, want %zu", what, a->count, n);
    for (size_t i = 0; i < n; i++)
        if (a->keys[i] != b[i]) HFAIL("%s: key #%zu is %" PRIu64 ", want %" PRIu64, what, i, a->keys[i], b[i]);
    return true;
}

/* ---- the twin-column class ---- */

enum { K_INT, K_BOOL, K_STRING, K_TS, K_OID, K_UUID, K_MIXED, NKINDS };
static const orc_type kind_type[NKINDS] = {ORC_TYPE_INT, ORC_TYPE_BOOL, ORC_TYPE_STRING, ORC_TYPE_TIMESTAMP,
                                           ORC_TYPE_OBJECT_ID, ORC_TYPE_UUID, ORC_TYPE_MIXED};
static const uint32_t kind_flags[NKINDS] = {ORC_PROP_OPTIONAL, 0, ORC_PROP_OPTIONAL, 0, 0, ORC_PROP_OPTIONAL,
                                            ORC_PROP_OPTIONAL};

static char long_a[600], long_b[600], long_c[700];
#define NDOMAIN 11

/* The d-th value of a kind's domain (some kinds repeat values to fill the slots). */
static orc_value domain_value(int kind, int d)
{
    switch (kind) {
    case K_INT: {
        static const int64_t v[NDOMAIN] = {-5, -1, 0, 1, 7, INT64_MAX, INT64_MIN, 256, -256, 65536, 0};
        return d == 10 ? v_null() : v_int(v[d]);
    }
    case K_BOOL: return v_bool(d % 3 == 0);
    case K_STRING:
        switch (d) {
        case 0: return v_strn("", 0);
        case 1: return v_str("a");
        case 2: return v_str("ab");
        case 3: return v_str("B");
        case 4: return v_strn("a\0", 2);
        case 5: return v_strn(long_a, sizeof long_a);
        case 6: return v_strn(long_b, sizeof long_b);
        case 7: return v_str("\xc3\x9f"); /* ß */
        case 8: return v_strn(long_c, sizeof long_c);
        case 9: return v_str("A");
        default: return v_null();
        }
    case K_TS: {
        static const orc_timestamp v[NDOMAIN] = {{-5, -1}, {0, 0}, {0, -1}, {1, 5}, {-100, 0}, {0, 1},
                                                 {-5, 0},  {-4, -999999999}, {1700000000, 0}, {1, 4}, {0, 0}};
        return v_timestamp(v[d].seconds, v[d].nanoseconds);
    }
    case K_OID: return v_oid((uint8_t)(d % 5));
    case K_UUID: return d == 10 ? v_null() : v_uuid((uint8_t)(d % 6));
    case K_MIXED:
        switch (d) {
        case 0: return v_null();
        case 1: return v_int(5);
        case 2: return v_double(5.0);
        case 3: return v_float(5.0f);
        case 4: return v_str("5");
        case 5: return v_bool(true);
        case 6: return v_int(-3);
        case 7: return v_double(-3.5);
        case 8: return v_double(7.25); /* decimals: see index_mixed_indexed_accepts_decimal */
        case 9: return v_oid(1);
        default: return v_timestamp(5, 0);
        }
    }
    return v_null();
}

static void fill_long_strings(void)
{
    memset(long_a, 'L', sizeof long_a);
    memcpy(long_b, long_a, sizeof long_b);
    long_b[sizeof long_b - 1] = 'M'; /* differs only in the last byte, far past 400 */
    memset(long_c, 'L', sizeof long_c); /* long_a is a prefix of long_c */
}

typedef struct twins {
    uint32_t t;
    uint16_t idx[NKINDS], plain[NKINDS];
} twins;

static bool make_twins(orc_txn *w, twins *tw)
{
    HOK(orc_class_add(w, "Twins", ORC_CLASS_TOP_LEVEL, &tw->t));
    for (int k = 0; k < NKINDS; k++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", k);
        orc_prop_spec s = {.name = name, .type = kind_type[k], .flags = kind_flags[k] | ORC_PROP_INDEXED};
        HOK(orc_prop_add(w, tw->t, &s, &tw->idx[k]));
        snprintf(name, sizeof name, "p%d", k);
        s.name = name;
        s.flags = kind_flags[k];
        HOK(orc_prop_add(w, tw->t, &s, &tw->plain[k]));
    }
    return true;
}

static bool twins_set(orc_txn *w, const twins *tw, uint64_t key, int kind, int d)
{
    orc_value v = domain_value(kind, d);
    uint16_t cols[2] = {tw->idx[kind], tw->plain[kind]};
    orc_value vals[2] = {v, v};
    HOK(orc_obj_set_many(w, tw->t, key, cols, vals, 2));
    return true;
}

/* What a CMP with `op` (EQ, NE, LT, LE, GT, GE) on value `v` against `c` should give. */
static bool model_cmp(int op, const orc_value *v, const orc_value *c)
{
    int r = orc_value_compare(v, c);
    switch (op) {
    case ORC_CMP_EQ: return r == 0;
    case ORC_CMP_NE: return r != 0;
    default:
        if (v->type == ORC_TYPE_NULL || c->type == ORC_TYPE_NULL) return false;
        if (op == ORC_CMP_LT) return r < 0;
        if (op == ORC_CMP_LE) return r <= 0;
        if (op == ORC_CMP_GT) return r > 0;
        return r >= 0;
    }
}

/* The keys whose plain-column value satisfies op against c, by reading every object. */
static bool model_keys(orc_txn *txn, const twins *tw, int kind, int op, const orc_value *c, orc_keys *out)
{
    orc_keys all = {0};
    HOK(orc_table_keys(txn, tw->t, &all));
    out->count = 0;
    for (size_t i = 0; i < all.count; i++) {
        orc_value v;
        HOK(orc_obj_get(txn, tw->t, all.keys[i], tw->plain[kind], &v));
        if (model_cmp(op, &v, c)) {
            if (out->count == out->capacity) {
                out->capacity = out->capacity * 2 + 16;
                out->keys = realloc(out->keys, out->capacity * sizeof *out->keys);
            }
            out->keys[out->count++] = all.keys[i];
        }
    }
    orc_keys_free(&all);
    return true;
}

/* One comparison through the index and through the twin scan, both against the model. */
static bool check_cmp(orc_txn *txn, const twins *tw, int kind, int op, const orc_value *c)
{
    qb q = {0};
    orc_keys via_index = {0}, via_scan = {0}, want = {0};
    bool used_idx = false, used_scan = true, ok = false;
    qb_cmp_const(&q, (uint8_t)op, 0, tw->idx[kind], c);
    if (!run_query(txn, tw->t, &q, &via_index, &used_idx)) goto out;
    qb_cmp_const(&q, (uint8_t)op, 0, tw->plain[kind], c);
    if (!run_query(txn, tw->t, &q, &via_scan, &used_scan)) goto out;
    if (!model_keys(txn, tw, kind, op, c, &want)) goto out;
    char what[64];
    snprintf(what, sizeof what, "kind %d op %d const type %d (index)", kind, op, c->type);
    if (!keys_equal(&via_index, want.keys, want.count, what)) {
        /* Name the first object the index got wrong, by its value. */
        for (size_t i = 0, j = 0; i < via_index.count || j < want.count;) {
            bool extra = j >= want.count || (i < via_index.count && via_index.keys[i] < want.keys[j]);
            bool missing = i >= via_index.count || (j < want.count && want.keys[j] < via_index.keys[i]);
            if (extra || missing) {
                uint64_t key = extra ? via_index.keys[i] : want.keys[j];
                orc_value v;
                orc_obj_get(txn, tw->t, key, tw->plain[kind], &v);
                test_fail(__FILE__, __LINE__, "  %s key %" PRIu64 ": value type %d int %" PRId64, extra ? "extra" : "missing",
                          key, v.type, v.type == ORC_TYPE_INT ? v.integer : 0);
                break;
            }
            i++;
            j++;
        }
        goto out;
    }
    snprintf(what, sizeof what, "kind %d op %d const type %d (scan)", kind, op, c->type);
    if (!keys_equal(&via_scan, want.keys, want.count, what)) goto out;
    if (used_scan) {
        test_fail(__FILE__, __LINE__, "a query on an unindexed property claims to use an index");
        goto out;
    }
    /*
     * The planner uses an index for EQ and orderings (not NE). It does not
     * (yet) for a null constant, nor for a number against a mixed property:
     * those only have to give the right answer (see the report on the planner).
     */
    bool plannable = op != ORC_CMP_NE && c->type != ORC_TYPE_NULL &&
                     !(kind == K_MIXED && (c->type == ORC_TYPE_INT || c->type == ORC_TYPE_DOUBLE ||
                                           c->type == ORC_TYPE_FLOAT || c->type == ORC_TYPE_DECIMAL));
    if (plannable && !used_idx) {
        test_fail(__FILE__, __LINE__, "kind %d op %d: the indexed query did not use the index", kind, op);
        goto out;
    }
    ok = true;
out:
    free(q.p);
    orc_keys_free(&via_index);
    orc_keys_free(&via_scan);
    orc_keys_free(&want);
    return ok;
}

static bool check_all_kinds(orc_txn *txn, const twins *tw)
{
    for (int kind = 0; kind < NKINDS; kind++) {
        for (int d = 0; d < NDOMAIN; d++) {
            orc_value c = domain_value(kind, d);
            if (!check_cmp(txn, tw, kind, ORC_CMP_EQ, &c)) HFAIL("EQ kind %d domain value %d", kind, d);
            if (kind == K_MIXED || kind == K_BOOL) continue; /* orderings across kinds are not modelled */
            if (c.type == ORC_TYPE_NULL) continue;
            static const int ops[] = {ORC_CMP_LT, ORC_CMP_LE, ORC_CMP_GT, ORC_CMP_GE, ORC_CMP_NE};
            for (size_t o = 0; o < 5; o++)
                if (!check_cmp(txn, tw, kind, ops[o], &c)) HFAIL("op %d kind %d domain value %d", ops[o], kind, d);
        }
    }
    /* Values not in any domain. */
    orc_value absent[] = {v_int(12345), v_str("zzz"), v_timestamp(99, 0), v_oid(200), v_uuid(201), v_double(5.5)};
    int absent_kind[] = {K_INT, K_STRING, K_TS, K_OID, K_UUID, K_MIXED};
    for (size_t i = 0; i < 6; i++)
        if (!check_cmp(txn, tw, absent_kind[i], ORC_CMP_EQ, &absent[i])) HFAIL("absent value %zu", i);
    return true;
}

/* IN, BETWEEN, and an AND with an indexed conjunct, compared with their scan twins. */
static bool check_compound(orc_txn *txn, const twins *tw)
{
    qb q = {0};
    orc_keys a = {0}, b = {0};
    bool used_a = false, used_b = true;
    orc_value in_ints[3] = {v_int(-5), v_int(7), v_int(256)};
    qb_cmp_list(&q, ORC_CMP_IN, tw->idx[K_INT], in_ints, 3);
    if (!run_query(txn, tw->t, &q, &a, &used_a)) return false;
    qb_cmp_list(&q, ORC_CMP_IN, tw->plain[K_INT], in_ints, 3);
    if (!run_query(txn, tw->t, &q, &b, &used_b)) return false;
    if (!keys_equal(&a, b.keys, b.count, "IN ints") || !used_a || used_b) HFAIL("IN ints: used %d/%d", used_a, used_b);
    if (a.count == 0) HFAIL("IN ints matched nothing");
    /* With a null among the values: the right answer, index or not. */
    orc_value in_null[2] = {v_int(-5), v_null()};
    qb_cmp_list(&q, ORC_CMP_IN, tw->idx[K_INT], in_null, 2);
    if (!run_query(txn, tw->t, &q, &a, NULL)) return false;
    qb_cmp_list(&q, ORC_CMP_IN, tw->plain[K_INT], in_null, 2);
    if (!run_query(txn, tw->t, &q, &b, NULL)) return false;
    if (!keys_equal(&a, b.keys, b.count, "IN {-5, null}")) return false;

    orc_value in_strs[3] = {v_strn(long_b, sizeof long_b), v_str("a"), v_strn("a\0", 2)};
    qb_cmp_list(&q, ORC_CMP_IN, tw->idx[K_STRING], in_strs, 3);
    if (!run_query(txn, tw->t, &q, &a, &used_a)) return false;
    qb_cmp_list(&q, ORC_CMP_IN, tw->plain[K_STRING], in_strs, 3);
    if (!run_query(txn, tw->t, &q, &b, &used_b)) return false;
    if (!keys_equal(&a, b.keys, b.count, "IN strings") || !used_a) HFAIL("IN strings");

    orc_value between_ts[2] = {v_timestamp(-5, 0), v_timestamp(0, 1)};
    qb_cmp_list(&q, ORC_CMP_BETWEEN, tw->idx[K_TS], between_ts, 2);
    if (!run_query(txn, tw->t, &q, &a, &used_a)) return false;
    qb_cmp_list(&q, ORC_CMP_BETWEEN, tw->plain[K_TS], between_ts, 2);
    if (!run_query(txn, tw->t, &q, &b, &used_b)) return false;
    if (!keys_equal(&a, b.keys, b.count, "BETWEEN timestamps") || !used_a) HFAIL("BETWEEN timestamps");

    /* AND(indexed string EQ "a", plain bool EQ true): the index narrows, the row check decides. */
    orc_value sa = v_str("a"), bt = v_bool(true);
    qb_u8(&q, ORC_OP_AND);
    qb_le(&q, 2, 4);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, tw->plain[K_BOOL], &bt);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, tw->idx[K_STRING], &sa);
    if (!run_query(txn, tw->t, &q, &a, &used_a)) return false;
    qb_u8(&q, ORC_OP_AND);
    qb_le(&q, 2, 4);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, tw->plain[K_BOOL], &bt);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, tw->plain[K_STRING], &sa);
    if (!run_query(txn, tw->t, &q, &b, &used_b)) return false;
    if (!keys_equal(&a, b.keys, b.count, "AND") || !used_a || used_b) HFAIL("AND: used %d/%d", used_a, used_b);

    /* Case-insensitive and prefix matches on an indexed string agree with the scan. */
    orc_value sA = v_str("A"), pre = v_strn(long_a, 450);
    qb_cmp_const(&q, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, tw->idx[K_STRING], &sA);
    if (!run_query(txn, tw->t, &q, &a, NULL)) return false;
    qb_cmp_const(&q, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, tw->plain[K_STRING], &sA);
    if (!run_query(txn, tw->t, &q, &b, NULL)) return false;
    if (!keys_equal(&a, b.keys, b.count, "EQ[c] 'A'")) return false;
    qb_cmp_const(&q, ORC_CMP_BEGINS_WITH, 0, tw->idx[K_STRING], &pre);
    if (!run_query(txn, tw->t, &q, &a, NULL)) return false;
    qb_cmp_const(&q, ORC_CMP_BEGINS_WITH, 0, tw->plain[K_STRING], &pre);
    if (!run_query(txn, tw->t, &q, &b, NULL)) return false;
    if (!keys_equal(&a, b.keys, b.count, "BEGINSWITH long prefix")) return false;
    free(q.p);
    orc_keys_free(&a);
    orc_keys_free(&b);
    return true;
}

TEST(index_every_indexable_type_matches_scan)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("twins.realm"));
    fill_long_strings();
    uint64_t rng = test_seed();
    orc_env *env;
    orc_txn *w, *r;
    twins tw;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_twins(w, &tw));
    for (int i = 0; i < 400; i++) {
        uint64_t k;
        CHECK_OK(orc_obj_create(w, tw.t, NULL, NULL, 0, &k));
        for (int kind = 0; kind < NKINDS; kind++) CHECK(twins_set(w, &tw, k, kind, (int)(test_rand(&rng) % NDOMAIN)));
    }
    /* Queries inside the write transaction see its index changes. */
    CHECK(check_all_kinds(w, &tw));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(check_all_kinds(r, &tw));
    CHECK(check_compound(r, &tw));
    orc_txn_abort(r);

    /* Churn: updates, erases, creates; then an aborted churn that must leave no trace. */
    for (int round = 0; round < 3; round++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        orc_keys keys = {0};
        CHECK_OK(orc_table_keys(w, tw.t, &keys));
        for (int i = 0; i < 300; i++) {
            uint64_t k = keys.keys[test_rand(&rng) % keys.count];
            if (!orc_obj_exists(w, tw.t, k)) continue;
            uint64_t op = test_rand(&rng) % 10;
            if (op == 0) {
                CHECK_OK(orc_obj_erase(w, tw.t, k));
            } else if (op == 1) {
                uint64_t nk;
                CHECK_OK(orc_obj_create(w, tw.t, NULL, NULL, 0, &nk));
                for (int kind = 0; kind < NKINDS; kind++)
                    CHECK(twins_set(w, &tw, nk, kind, (int)(test_rand(&rng) % NDOMAIN)));
            } else {
                CHECK(twins_set(w, &tw, k, (int)(test_rand(&rng) % NKINDS), (int)(test_rand(&rng) % NDOMAIN)));
            }
        }
        orc_keys_free(&keys);
        if (round == 2) {
            orc_txn_abort(w);
        } else {
            CHECK(check_all_kinds(w, &tw));
            CHECK_OK(orc_txn_commit(w, NULL));
        }
        CHECK_ENV(env);
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK(check_all_kinds(r, &tw));
        CHECK(check_compound(r, &tw));
        orc_txn_abort(r);
    }
    /* After reopening. */
    orc_env_close(env);
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(check_all_kinds(r, &tw));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ---- heavy duplicates, against an in-memory model ---- */

#define DUP_N 10000
static const char *dup_string(int v)
{
    static char long_s[3][520];
    if (!long_s[0][0]) {
        for (int i = 0; i < 3; i++) {
            memset(long_s[i], 'd', 510);
            long_s[i][510] = (char)('0' + i);
            long_s[i][511] = 0;
        }
    }
    return long_s[v];
}

typedef struct dup_model {
    uint64_t keys[DUP_N * 2];
    int8_t v[DUP_N * 2], s[DUP_N * 2]; /* -1: erased */
    size_t n;
} dup_model;

static bool dup_check(orc_txn *txn, uint32_t t, uint16_t cv, uint16_t cs, const dup_model *m)
{
    static uint64_t want[DUP_N * 2];
    qb q = {0};
    orc_keys got = {0};
    bool used = false;
    for (int which = 0; which < 2; which++) {
        for (int val = 0; val < 3; val++) {
            size_t n = 0;
            for (size_t i = 0; i < m->n; i++)
                if ((which ? m->s[i] : m->v[i]) == val) want[n++] = m->keys[i];
            orc_value c = which ? v_str(dup_string(val)) : v_int(val);
            qb_cmp_const(&q, ORC_CMP_EQ, 0, which ? cs : cv, &c);
            if (!run_query(txn, t, &q, &got, &used)) return false;
            char what[48];
            snprintf(what, sizeof what, "%s == %d", which ? "s" : "v", val);
            if (!keys_equal(&got, want, n, what)) return false;
            if (!used) HFAIL("%s did not use the index", what);
            /* NE: everything else that is alive. */
            n = 0;
            for (size_t i = 0; i < m->n; i++)
                if (m->v[i] >= 0 && (which ? m->s[i] : m->v[i]) != val) want[n++] = m->keys[i];
            qb_cmp_const(&q, ORC_CMP_NE, 0, which ? cs : cv, &c);
            if (!run_query(txn, t, &q, &got, NULL)) return false;
            if (!keys_equal(&got, want, n, "NE")) return false;
        }
    }
    /* IN (0, 2) and v >= 1 on the int column. */
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i] == 0 || m->v[i] == 2) want[n++] = m->keys[i];
    orc_value in[2] = {v_int(2), v_int(0)};
    qb_cmp_list(&q, ORC_CMP_IN, cv, in, 2);
    if (!run_query(txn, t, &q, &got, &used)) return false;
    if (!keys_equal(&got, want, n, "v IN {2, 0}") || !used) HFAIL("IN used index %d", used);
    n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i] >= 1) want[n++] = m->keys[i];
    orc_value one = v_int(1);
    qb_cmp_const(&q, ORC_CMP_GE, 0, cv, &one);
    if (!run_query(txn, t, &q, &got, &used)) return false;
    if (!keys_equal(&got, want, n, "v >= 1") || !used) HFAIL("GE used index %d", used);
    free(q.p);
    orc_keys_free(&got);
    return true;
}

static bool dup_set(orc_txn *w, uint32_t t, uint16_t cv, uint16_t cs, dup_model *m, size_t i, int v, int s)
{
    uint16_t cols[2] = {cv, cs};
    orc_value vals[2] = {v_int(v), s >= 0 ? v_str(dup_string(s)) : v_int(0)}; /* -1: column not set */
    if (v < 0) {
        HOK(orc_obj_set(w, t, m->keys[i], cs, &vals[1]));
        m->s[i] = (int8_t)s;
        return true;
    }
    if (s < 0) {
        HOK(orc_obj_set(w, t, m->keys[i], cv, &vals[0]));
        m->v[i] = (int8_t)v;
        return true;
    }
    HOK(orc_obj_set_many(w, t, m->keys[i], cols, vals, 2));
    m->v[i] = (int8_t)v;
    m->s[i] = (int8_t)s;
    return true;
}

static void dup_churn_model(dup_model *m, uint64_t *rng, int ops, int *kind, size_t *idx, int *a, int *b)
{
    for (int j = 0; j < ops; j++) {
        kind[j] = (int)(test_rand(rng) % 20);
        idx[j] = test_rand(rng) % m->n;
        a[j] = (int)(test_rand(rng) % 3);
        b[j] = (int)(test_rand(rng) % 3);
    }
}

TEST(index_heavy_duplicates)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("dups.realm"));
    static dup_model m, saved;
    uint64_t rng = test_seed();
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cv, cs;
    m.n = 0;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Dup", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec sv = {.name = "v", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    orc_prop_spec ss = {.name = "s", .type = ORC_TYPE_STRING, .flags = ORC_PROP_INDEXED};
    CHECK_OK(orc_prop_add(w, t, &sv, &cv));
    CHECK_OK(orc_prop_add(w, t, &ss, &cs));
    for (size_t i = 0; i < DUP_N; i++) {
        int v = (int)(test_rand(&rng) % 3), s = (int)(test_rand(&rng) % 3);
        uint16_t cols[2] = {cv, cs};
        orc_value vals[2] = {v_int(v), v_str(dup_string(s))};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &m.keys[m.n]));
        m.v[m.n] = (int8_t)v;
        m.s[m.n] = (int8_t)s;
        m.n++;
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(dup_check(r, t, cv, cs, &m));
    orc_txn_abort(r);

    static int kind[3000], a[3000], b[3000];
    static size_t idx[3000];
    for (int round = 0; round < 4; round++) {
        bool abort_it = round == 2;
        if (abort_it) saved = m;
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        dup_churn_model(&m, &rng, 3000, kind, idx, a, b);
        for (int j = 0; j < 3000; j++) {
            size_t i = idx[j];
            if (m.v[i] < 0) continue; /* erased */
            if (kind[j] < 2) {
                CHECK_OK(orc_obj_erase(w, t, m.keys[i]));
                m.v[i] = m.s[i] = -1;
            } else if (kind[j] < 3 && m.n < DUP_N * 2) {
                uint16_t cols[2] = {cv, cs};
                orc_value vals[2] = {v_int(a[j]), v_str(dup_string(b[j]))};
                CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &m.keys[m.n]));
                m.v[m.n] = (int8_t)a[j];
                m.s[m.n] = (int8_t)b[j];
                m.n++;
            } else if (kind[j] < 8) {
                CHECK(dup_set(w, t, cv, cs, &m, i, a[j], -1));
            } else if (kind[j] < 12) {
                CHECK(dup_set(w, t, cv, cs, &m, i, -1, b[j]));
            } else if (kind[j] < 16) {
                CHECK(dup_set(w, t, cv, cs, &m, i, a[j], b[j]));
            } else {
                /* Set to the value it already has: the index must not gain a second entry. */
                CHECK(dup_set(w, t, cv, cs, &m, i, m.v[i], m.s[i]));
            }
        }
        if (round == 1) CHECK(dup_check(w, t, cv, cs, &m)); /* inside the write transaction */
        if (abort_it) {
            orc_txn_abort(w);
            m = saved;
        } else {
            CHECK_OK(orc_txn_commit(w, NULL));
        }
        CHECK_ENV(env);
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK(dup_check(r, t, cv, cs, &m));
        uint64_t count;
        CHECK_OK(orc_table_count(r, t, &count));
        size_t alive = 0;
        for (size_t i = 0; i < m.n; i++) alive += m.v[i] >= 0;
        CHECK_EQ(count, alive);
        orc_txn_abort(r);
    }

    /* Erase every object of value 1, then all of value 0: the index empties value by value. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int val = 1; val >= 0; val--) {
        for (size_t i = 0; i < m.n; i++) {
            if (m.v[i] != val) continue;
            CHECK_OK(orc_obj_erase(w, t, m.keys[i]));
            m.v[i] = m.s[i] = -1;
        }
        CHECK(dup_check(w, t, cv, cs, &m));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(dup_check(r, t, cv, cs, &m));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(index_added_after_data)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t ci, cs, cnew;
    uint64_t keys[1000];
    CHECK_OK(orc_env_open(test_path("late.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Late", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec si = {.name = "i", .type = ORC_TYPE_INT};
    orc_prop_spec ss = {.name = "s", .type = ORC_TYPE_STRING, .flags = ORC_PROP_OPTIONAL};
    CHECK_OK(orc_prop_add(w, t, &si, &ci));
    CHECK_OK(orc_prop_add(w, t, &ss, &cs));
    for (int i = 0; i < 1000; i++) {
        char s[16];
        snprintf(s, sizeof s, "s%d", i % 13);
        uint16_t cols[2] = {ci, cs};
        orc_value vals[2] = {v_int(i % 10), v_str(s)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, (i % 7) ? 2 : 1, &keys[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));

    qb q = {0};
    orc_keys got = {0};
    bool used;
    /* Before: a scan. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value three = v_int(3);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, ci, &three);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(!used);
    CHECK_EQ(got.count, 100);
    orc_txn_abort(r);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_prop_set_indexed(w, t, ci, true));
    CHECK_OK(orc_prop_set_indexed(w, t, cs, true));
    /* A new indexed property over existing objects: all of them hold 0. */
    orc_prop_spec sn = {.name = "n", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    CHECK_OK(orc_prop_add(w, t, &sn, &cnew));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    qb_cmp_const(&q, ORC_CMP_EQ, 0, ci, &three);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(used);
    CHECK_EQ(got.count, 100);
    for (size_t i = 0; i < got.count; i++) CHECK_EQ(got.keys[i], keys[3 + 10 * i]);
    orc_value s5 = v_str("s5"), nul = v_null(), zero = v_int(0);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, cs, &s5);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(used);
    size_t want = 0;
    for (int i = 0; i < 1000; i++) want += (i % 13 == 5) && (i % 7);
    CHECK_EQ(got.count, want);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, cs, &nul);
    CHECK(run_query(r, t, &q, &got, &used)); /* a null constant: right answer required, index optional */
    CHECK_EQ(got.count, 143); /* i % 7 == 0 for i < 1000 */
    qb_cmp_const(&q, ORC_CMP_EQ, 0, cnew, &zero);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(used);
    CHECK_EQ(got.count, 1000);
    orc_txn_abort(r);

    /* Writes after the index exists; then drop it and get the same answers by scanning. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 1000; i += 2) {
        orc_value v = v_int(i);
        CHECK_OK(orc_obj_set(w, t, keys[i], cnew, &v));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cnew, &zero);
        CHECK(run_query(r, t, &q, &got, &used));
        CHECK_EQ(used, pass == 0);
        CHECK_EQ(got.count, 501); /* odd i plus i = 0 */
        orc_value v500 = v_int(500), lo = v_int(100), hi = v_int(200);
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cnew, &v500);
        CHECK(run_query(r, t, &q, &got, &used));
        CHECK_EQ(got.count, 1);
        CHECK_EQ(got.keys[0], keys[500]);
        orc_value range[2] = {lo, hi};
        qb_cmp_list(&q, ORC_CMP_BETWEEN, cnew, range, 2);
        CHECK(run_query(r, t, &q, &got, &used));
        CHECK_EQ(got.count, 51);
        orc_txn_abort(r);
        if (pass == 0) {
            CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
            CHECK_OK(orc_prop_set_indexed(w, t, cnew, false));
            CHECK_OK(orc_txn_commit(w, NULL));
            CHECK_ENV(env);
        }
    }
    free(q.p);
    orc_keys_free(&got);
    orc_env_close(env);
}

TEST(index_long_strings_with_common_prefixes)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cs, cp;
    enum { NV = 16 };
    static char store[NV][2100];
    orc_value vals[NV];
    size_t lens[NV];
    /* 450-byte common prefix P, then variants; lengths around the 400-byte encoding limit. */
    char P[450];
    memset(P, 'p', sizeof P);
    int n = 0;
    static const char *tails[] = {"", "a", "b", "ab", "a\0", "\0", "\0\0"};
    static const size_t tail_len[] = {0, 1, 1, 2, 2, 1, 2};
    for (int i = 0; i < 7; i++, n++) {
        memcpy(store[n], P, sizeof P);
        memcpy(store[n] + sizeof P, tails[i], tail_len[i]);
        lens[n] = sizeof P + tail_len[i];
    }
    for (int len = 398; len <= 402; len++, n++) { /* 'q' runs that differ only in length */
        memset(store[n], 'q', (size_t)len);
        lens[n] = (size_t)len;
    }
    memset(store[n], 'p', 2000); /* a 2000-byte string starting with P */
    lens[n++] = 2000;
    memset(store[n], 'p', 2000);
    store[n][1999] = 'z';
    lens[n++] = 2000;
    memcpy(store[n], "a\0b", 3);
    lens[n++] = 3;
    memcpy(store[n], "a", 1);
    lens[n++] = 1;
    CHECK_EQ(n, NV);
    for (int i = 0; i < NV; i++) vals[i] = v_strn(store[i], lens[i]);

    CHECK_OK(orc_env_open(test_path("longstr.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "S", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec ss = {.name = "s", .type = ORC_TYPE_STRING, .flags = ORC_PROP_INDEXED};
    orc_prop_spec sp = {.name = "plain", .type = ORC_TYPE_STRING};
    CHECK_OK(orc_prop_add(w, t, &ss, &cs));
    CHECK_OK(orc_prop_add(w, t, &sp, &cp));
    static uint64_t keys[NV * 3];
    static int val_of[NV * 3];
    for (int i = 0; i < NV * 3; i++) {
        val_of[i] = (i * 7) % NV;
        uint16_t cols[2] = {cs, cp};
        orc_value v2[2] = {vals[val_of[i]], vals[val_of[i]]};
        CHECK_OK(orc_obj_create(w, t, cols, v2, 2, &keys[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);

    qb q = {0};
    orc_keys got = {0}, scan = {0};
    bool used;
    for (int phase = 0; phase < 2; phase++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        for (int v = 0; v < NV; v++) {
            uint64_t want[NV * 3];
            size_t nw = 0;
            for (int i = 0; i < NV * 3; i++)
                if (val_of[i] == v) want[nw++] = keys[i];
            qb_cmp_const(&q, ORC_CMP_EQ, 0, cs, &vals[v]);
            CHECK(run_query(r, t, &q, &got, &used));
            CHECK(used);
            char what[32];
            snprintf(what, sizeof what, "long string %d", v);
            CHECK(keys_equal(&got, want, nw, what));
            /* Orderings agree with a scan and the model. */
            static const int ops[] = {ORC_CMP_LT, ORC_CMP_LE, ORC_CMP_GT, ORC_CMP_GE};
            for (int o = 0; o < 4; o++) {
                nw = 0;
                for (int i = 0; i < NV * 3; i++)
                    if (val_of[i] >= 0 && model_cmp(ops[o], &vals[val_of[i]], &vals[v])) want[nw++] = keys[i];
                qb_cmp_const(&q, (uint8_t)ops[o], 0, cs, &vals[v]);
                CHECK(run_query(r, t, &q, &got, &used));
                CHECK(keys_equal(&got, want, nw, "ordering via index"));
                qb_cmp_const(&q, (uint8_t)ops[o], 0, cp, &vals[v]);
                CHECK(run_query(r, t, &q, &scan, NULL));
                CHECK(keys_equal(&scan, want, nw, "ordering via scan"));
            }
        }
        /* A prefix of P alone is no value; a 450-byte P + "c" is absent. */
        char absent[451];
        memcpy(absent, P, sizeof P);
        absent[450] = 'c';
        orc_value va = v_strn(absent, 451);
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cs, &va);
        CHECK(run_query(r, t, &q, &got, &used));
        CHECK_EQ(got.count, 0);
        va = v_strn(P, 420);
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cs, &va);
        CHECK(run_query(r, t, &q, &got, &used));
        CHECK_EQ(got.count, 0);
        qb_cmp_const(&q, ORC_CMP_BEGINS_WITH, 0, cs, &va);
        CHECK(run_query(r, t, &q, &got, NULL));
        qb_cmp_const(&q, ORC_CMP_BEGINS_WITH, 0, cp, &va);
        CHECK(run_query(r, t, &q, &scan, NULL));
        CHECK(keys_equal(&got, scan.keys, scan.count, "BEGINSWITH P[:420]"));
        CHECK(got.count > 0);
        orc_txn_abort(r);

        if (phase == 0) {
            /* Move objects between long siblings; erase some. */
            CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
            for (int i = 0; i < NV * 3; i += 2) {
                int nv = (val_of[i] + 1) % NV;
                uint16_t cols[2] = {cs, cp};
                orc_value v2[2] = {vals[nv], vals[nv]};
                CHECK_OK(orc_obj_set_many(w, t, keys[i], cols, v2, 2));
                val_of[i] = nv;
            }
            for (int i = 1; i < NV * 3; i += 5) {
                CHECK_OK(orc_obj_erase(w, t, keys[i]));
                val_of[i] = -1;
            }
            CHECK_OK(orc_txn_commit(w, NULL));
            CHECK_ENV(env);
        }
    }
    free(q.p);
    orc_keys_free(&got);
    orc_keys_free(&scan);
    orc_env_close(env);
}

TEST(index_primary_key_serves_queries)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cid, cv;
    uint64_t keys[300];
    CHECK_OK(orc_env_open(test_path("pkq.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "P", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec sid = {.name = "_id", .type = ORC_TYPE_INT, .flags = ORC_PROP_PRIMARY_KEY};
    orc_prop_spec sv = {.name = "v", .type = ORC_TYPE_INT};
    CHECK_OK(orc_prop_add(w, t, &sid, &cid));
    CHECK_OK(orc_prop_add(w, t, &sv, &cv));
    for (int i = 0; i < 300; i++) {
        uint16_t cols[2] = {cid, cv};
        orc_value vals[2] = {v_int(1000 - i * 7), v_int(i)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &keys[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    qb q = {0};
    orc_keys got = {0};
    bool used;
    orc_value k = v_int(1000 - 42 * 7);
    qb_cmp_const(&q, ORC_CMP_EQ, 0, cid, &k);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(used);
    CHECK_EQ(got.count, 1);
    CHECK_EQ(got.keys[0], keys[42]);
    orc_value in[3] = {v_int(1000), v_int(1000 - 299 * 7), v_int(3)};
    qb_cmp_list(&q, ORC_CMP_IN, cid, in, 3);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK(used);
    CHECK_EQ(got.count, 2);
    CHECK_EQ(got.keys[0], keys[0]);
    CHECK_EQ(got.keys[1], keys[299]);
    /* A range over the primary key: ids below 0 are i > 142. */
    orc_value zero = v_int(0);
    qb_cmp_const(&q, ORC_CMP_LT, 0, cid, &zero);
    CHECK(run_query(r, t, &q, &got, &used));
    CHECK_EQ(got.count, 300 - 143);
    for (size_t i = 0; i < got.count; i++) CHECK_EQ(got.keys[i], keys[143 + i]); /* key order */
    free(q.p);
    orc_keys_free(&got);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/*
 * A mixed property may hold a value of any type, indexed or not; numbers of
 * every kind that are equal by value must be found by one equality query.
 */
TEST(index_mixed_indexed_accepts_decimal)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cm, cp;
    uint64_t k[5];
    CHECK_OK(orc_env_open(test_path("mixdec.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "M", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec sm = {.name = "m", .type = ORC_TYPE_MIXED, .flags = ORC_PROP_OPTIONAL | ORC_PROP_INDEXED};
    orc_prop_spec sp = {.name = "p", .type = ORC_TYPE_MIXED, .flags = ORC_PROP_OPTIONAL};
    CHECK_OK(orc_prop_add(w, t, &sm, &cm));
    CHECK_OK(orc_prop_add(w, t, &sp, &cp));
    orc_value vals[5] = {v_int(5), v_double(5.0), v_float(5.0f), v_decimal(5, 0x3040000000000000ULL),
                         v_decimal(50, 0x303E000000000000ULL) /* 5.0 */};
    for (int i = 0; i < 5; i++) {
        uint16_t cols[2] = {cm, cp};
        orc_value v2[2] = {vals[i], vals[i]};
        CHECK_OK(orc_obj_create(w, t, cols, v2, 2, &k[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    qb q = {0};
    orc_keys got = {0};
    for (int i = 0; i < 5; i++) {
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cm, &vals[i]);
        CHECK(run_query(r, t, &q, &got, NULL));
        CHECK(keys_equal(&got, k, 5, "mixed == 5 (indexed)"));
        qb_cmp_const(&q, ORC_CMP_EQ, 0, cp, &vals[i]);
        CHECK(run_query(r, t, &q, &got, NULL));
        CHECK(keys_equal(&got, k, 5, "mixed == 5 (scan)"));
    }
    free(q.p);
    orc_keys_free(&got);
    orc_txn_abort(r);
    orc_env_close(env);
}
