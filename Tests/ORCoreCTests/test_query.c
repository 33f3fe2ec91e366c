/*
 * test_query.c — group `query`: compiled predicate programs run over real
 * realms built through the public API.
 *
 * The fixture (fx_open) has five Persons and four Dogs covering every value
 * type, lists, a set, a dictionary, links both ways and a mixed property.
 * Queries are written with the program builder below and their results are
 * printed as the fixture indexes of the matching objects ("0,3,4"), in
 * result order, so a check reads as the expected answer. Every run also
 * checks that orc_query_count agrees with orc_query_run.
 */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Program builder                                                          */
/* ------------------------------------------------------------------------ */

typedef struct prog {
    uint8_t *b;
    size_t n, cap;
} prog;

static void p_put(prog *p, const void *d, size_t n)
{
    if (p->n + n > p->cap) {
        p->cap = (p->n + n) * 2 + 64;
        p->b = realloc(p->b, p->cap);
    }
    memcpy(p->b + p->n, d, n);
    p->n += n;
}
static void p_u8(prog *p, uint8_t v) { p_put(p, &v, 1); }
static void p_le(prog *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p_u8(p, (uint8_t)(v >> (8 * i)));
}
static void p_u16(prog *p, uint16_t v) { p_le(p, v, 2); }
static void p_u32(prog *p, uint32_t v) { p_le(p, v, 4); }
static void p_u64(prog *p, uint64_t v) { p_le(p, v, 8); }

static void p_val(prog *p, orc_value v)
{
    p_u8(p, (uint8_t)v.type);
    switch (v.type) {
    case ORC_TYPE_BOOL: p_u8(p, v.boolean); break;
    case ORC_TYPE_INT: p_u64(p, (uint64_t)v.integer); break;
    case ORC_TYPE_FLOAT: { uint32_t x; memcpy(&x, &v.fnum, 4); p_u32(p, x); break; }
    case ORC_TYPE_DOUBLE: { uint64_t x; memcpy(&x, &v.dnum, 8); p_u64(p, x); break; }
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY: p_u32(p, (uint32_t)v.string.size); p_put(p, v.string.data, v.string.size); break;
    case ORC_TYPE_TIMESTAMP: p_u64(p, (uint64_t)v.timestamp.seconds); p_u32(p, (uint32_t)v.timestamp.nanoseconds); break;
    case ORC_TYPE_DECIMAL: p_u64(p, v.decimal.w[0]); p_u64(p, v.decimal.w[1]); break;
    case ORC_TYPE_OBJECT_ID: p_put(p, v.object_id, 12); break;
    case ORC_TYPE_UUID: p_put(p, v.uuid, 16); break;
    case ORC_TYPE_LINK: p_u32(p, v.link.table); p_u64(p, v.link.key); break;
    default: break;
    }
}

static void p_and(prog *p, uint32_t n) { p_u8(p, ORC_OP_AND); p_u32(p, n); }
static void p_or(prog *p, uint32_t n) { p_u8(p, ORC_OP_OR); p_u32(p, n); }
static void p_not(prog *p) { p_u8(p, ORC_OP_NOT); }
static void p_cmp(prog *p, int op, int flags, int quant)
{
    p_u8(p, ORC_OP_CMP); p_u8(p, (uint8_t)op); p_u8(p, (uint8_t)flags); p_u8(p, (uint8_t)quant);
}
static void p_path(prog *p, int nsteps) { p_u8(p, ORC_EXPR_PATH); p_u8(p, (uint8_t)nsteps); }
static void p_prop(prog *p, uint16_t col) { p_u8(p, ORC_STEP_PROP); p_u16(p, col); }
static void p_back(prog *p, uint32_t table, uint16_t col) { p_u8(p, ORC_STEP_BACKLINK); p_u32(p, table); p_u16(p, col); }
static void p_key(prog *p, const char *k) { p_u8(p, ORC_STEP_DICT_KEY); p_u32(p, (uint32_t)strlen(k)); p_put(p, k, strlen(k)); }
static void p_agg(prog *p, int agg) { p_u8(p, (uint8_t)agg); }
static void p_col(prog *p, uint16_t col) { p_path(p, 1); p_prop(p, col); p_agg(p, 0); }
static void p_const(prog *p, orc_value v) { p_u8(p, ORC_EXPR_CONST); p_val(p, v); }
static void p_list(prog *p, uint32_t n, const orc_value *v)
{
    p_u8(p, ORC_EXPR_LIST); p_u32(p, n);
    for (uint32_t i = 0; i < n; i++) p_val(p, v[i]);
}
/* CMP of a plain property with a constant */
static void cmpc(prog *p, int op, int flags, uint16_t col, orc_value v) { p_cmp(p, op, flags, 0); p_col(p, col); p_const(p, v); }
/* CMP of a one-step path with an aggregate */
static void cmpa(prog *p, int op, int quant, uint16_t col, int agg, orc_value v)
{
    p_cmp(p, op, 0, quant); p_path(p, 1); p_prop(p, col); p_agg(p, agg); p_const(p, v);
}
/* CMP of a two-step path (link then property) */
static void cmp2(prog *p, int op, int flags, int quant, uint16_t c1, uint16_t c2, int agg, orc_value v)
{
    p_cmp(p, op, flags, quant); p_path(p, 2); p_prop(p, c1); p_prop(p, c2); p_agg(p, agg); p_const(p, v);
}
static void p_limit(prog *p, uint64_t n) { p_u8(p, ORC_DESC_LIMIT); p_u64(p, n); }
/* SORT or DISTINCT over one plain property (asc < 0: DISTINCT) */
static void p_sort1(prog *p, uint16_t col, int asc)
{
    p_u8(p, asc < 0 ? ORC_DESC_DISTINCT : ORC_DESC_SORT); p_u8(p, 1);
    p_u8(p, 1); p_prop(p, col); p_u8(p, 0);
    if (asc >= 0) p_u8(p, (uint8_t)asc);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

static orc_value vn(void) { orc_value v; memset(&v, 0, sizeof v); return v; }
static orc_value vi(int64_t x) { orc_value v = vn(); v.type = ORC_TYPE_INT; v.integer = x; return v; }
static orc_value vd(double x) { orc_value v = vn(); v.type = ORC_TYPE_DOUBLE; v.dnum = x; return v; }
static orc_value vf(float x) { orc_value v = vn(); v.type = ORC_TYPE_FLOAT; v.fnum = x; return v; }
static orc_value vb(bool x) { orc_value v = vn(); v.type = ORC_TYPE_BOOL; v.boolean = x; return v; }
static orc_value vs(const char *s)
{
    orc_value v = vn(); v.type = ORC_TYPE_STRING; v.string.data = s; v.string.size = strlen(s); return v;
}
static orc_value vbin(const char *s, size_t n)
{
    orc_value v = vn(); v.type = ORC_TYPE_BINARY; v.string.data = s; v.string.size = n; return v;
}
static orc_value vts(int64_t s) { orc_value v = vn(); v.type = ORC_TYPE_TIMESTAMP; v.timestamp.seconds = s; return v; }
/* coefficient * 10^exp in BID (positive, small coefficients) */
static orc_value vdec(uint64_t coef, int exp)
{
    orc_value v = vn(); v.type = ORC_TYPE_DECIMAL; v.decimal.w[0] = coef;
    v.decimal.w[1] = (uint64_t)(6176 + exp) << 49; return v;
}
static orc_value void_(uint8_t b) { orc_value v = vn(); v.type = ORC_TYPE_OBJECT_ID; memset(v.object_id, b, 12); return v; }
static orc_value vuuid(uint8_t b) { orc_value v = vn(); v.type = ORC_TYPE_UUID; memset(v.uuid, b, 16); return v; }
static orc_value vlink(uint32_t t, uint64_t k) { orc_value v = vn(); v.type = ORC_TYPE_LINK; v.link.table = t; v.link.key = k; return v; }

/* ------------------------------------------------------------------------ */
/* Fixture                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct fx {
    orc_env *env;
    uint32_t P, D;
    uint16_t name, age, score, height, bday, bal, oid, uuid, active, data, tags, nums, dogs, best, attrs, any;
    uint16_t dname, dage, dtoys;
    uint64_t p[5], d[4];
} fx;

#define S(expr)                                                                     \
    do {                                                                            \
        int s_rc_ = (expr);                                                         \
        if (s_rc_ != ORC_OK) {                                                      \
            fprintf(stderr, "  setup: %s: %s\n", #expr, orc_last_error());          \
            return s_rc_;                                                           \
        }                                                                           \
    } while (0)

static int add_prop(orc_txn *t, uint32_t table, const char *name, orc_type type, orc_collection coll,
                    uint32_t flags, uint32_t link, uint16_t *col)
{
    orc_prop_spec s = {name, type, coll, flags, link};
    return orc_prop_add(t, table, &s, col);
}

static int push(orc_txn *t, uint32_t table, uint64_t key, uint16_t col, orc_value v)
{
    size_t n;
    int rc = orc_coll_size(t, table, key, col, &n);
    return rc ? rc : orc_list_insert(t, table, key, col, n, &v);
}

static int fx_open(fx *f)
{
    orc_txn *t;
    memset(f, 0, sizeof *f);
    S(test_open_writing(test_path("query.realm"), &f->env, &t));
    S(orc_class_add(t, "Dog", ORC_CLASS_TOP_LEVEL, &f->D));
    S(add_prop(t, f->D, "name", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &f->dname));
    S(add_prop(t, f->D, "age", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &f->dage));
    S(add_prop(t, f->D, "toys", ORC_TYPE_STRING, ORC_COLL_SET, 0, 0, &f->dtoys));
    S(orc_class_add(t, "Person", ORC_CLASS_TOP_LEVEL, &f->P));
    uint32_t P = f->P, O = ORC_PROP_OPTIONAL;
    S(add_prop(t, P, "name", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0, &f->name));
    S(add_prop(t, P, "age", ORC_TYPE_INT, ORC_COLL_NONE, O | ORC_PROP_INDEXED, 0, &f->age));
    S(add_prop(t, P, "score", ORC_TYPE_DOUBLE, ORC_COLL_NONE, 0, 0, &f->score));
    S(add_prop(t, P, "height", ORC_TYPE_FLOAT, ORC_COLL_NONE, O, 0, &f->height));
    S(add_prop(t, P, "bday", ORC_TYPE_TIMESTAMP, ORC_COLL_NONE, O, 0, &f->bday));
    S(add_prop(t, P, "bal", ORC_TYPE_DECIMAL, ORC_COLL_NONE, O, 0, &f->bal));
    S(add_prop(t, P, "oid", ORC_TYPE_OBJECT_ID, ORC_COLL_NONE, O, 0, &f->oid));
    S(add_prop(t, P, "uuid", ORC_TYPE_UUID, ORC_COLL_NONE, O, 0, &f->uuid));
    S(add_prop(t, P, "active", ORC_TYPE_BOOL, ORC_COLL_NONE, 0, 0, &f->active));
    S(add_prop(t, P, "data", ORC_TYPE_BINARY, ORC_COLL_NONE, O, 0, &f->data));
    S(add_prop(t, P, "tags", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0, &f->tags));
    S(add_prop(t, P, "nums", ORC_TYPE_INT, ORC_COLL_LIST, O, 0, &f->nums));
    S(add_prop(t, P, "dogs", ORC_TYPE_LINK, ORC_COLL_LIST, 0, f->D, &f->dogs));
    S(add_prop(t, P, "best", ORC_TYPE_LINK, ORC_COLL_NONE, O, f->D, &f->best));
    S(add_prop(t, P, "attrs", ORC_TYPE_INT, ORC_COLL_DICT, 0, 0, &f->attrs));
    S(add_prop(t, P, "any", ORC_TYPE_MIXED, ORC_COLL_NONE, O, 0, &f->any));

    static const char *const dnames[4] = {"Rex", "Fido", "rex", "Max"};
    static const int dages[4] = {3, 5, 1, 8};
    static const char *const dtoys[4][3] = {{"ball", "bone"}, {0}, {"ball"}, {"bone"}};
    for (int i = 0; i < 4; i++) {
        uint16_t cols[2] = {f->dname, f->dage};
        orc_value vals[2] = {vs(dnames[i]), vi(dages[i])};
        S(orc_obj_create(t, f->D, cols, vals, 2, &f->d[i]));
        for (int j = 0; dtoys[i][j]; j++) {
            orc_value v = vs(dtoys[i][j]);
            S(orc_set_insert(t, f->D, f->d[i], f->dtoys, &v, NULL));
        }
    }

    orc_value names[5] = {vs("Alice"), vs("bob"), vs("Carol"), vs("\xc3\x89lodie"), vs("dave")};
    orc_value ages[5] = {vi(30), vi(25), vn(), vi(40), vi(30)};
    orc_value scores[5] = {vd(1.5), vd(2.5), vd(-1), vd(0), vd(3.0)};
    orc_value heights[5] = {vf(1.6f), vn(), vf(1.8f), vf(1.7f), vn()};
    orc_value bdays[5] = {vts(1000), vts(2000), vn(), vts(500), vts(3000)};
    orc_value bals[5] = {vdec(10, 0), vdec(20, 0), vn(), vdec(155, -1), vn()};
    orc_value oids[5] = {void_(1), void_(2), vn(), void_(3), vn()};
    orc_value uuids[5] = {vuuid(1), vn(), vuuid(2), vn(), vn()};
    orc_value actives[5] = {vb(true), vb(false), vb(true), vb(false), vb(true)};
    orc_value datas[5] = {vbin("\x01\x02", 2), vn(), vbin("\x01", 1), vn(), vn()};
    orc_value anys[5] = {vi(5), vs("hello"), vn(), vd(2.5), vb(true)};
    int bests[5] = {0, -1, 2, 1, 3};
    static const char *const tags[5][4] = {{"a", "b"}, {"b"}, {0}, {"abc", "abd", "a"}, {"x"}};
    static const int nums[5][4] = {{1, 2, 3, -2}, {-1, 4, -2}, {-2}, {10, -2}, {5, 6, -2}}; /* -1 null, -2 end */
    static const int dogs[5][4] = {{0, 1, -1}, {2, -1}, {-1}, {0, -1}, {1, 2, 3, -1}};
    static const char *const akeys[5][3] = {{"x", "y"}, {"x"}, {0}, {"y"}, {"z"}};
    static const int avals[5][2] = {{1, 5}, {7}, {0}, {2}, {3}};
    for (int i = 0; i < 5; i++) {
        uint16_t cols[12] = {f->name, f->age, f->score, f->height, f->bday, f->bal, f->oid, f->uuid,
                             f->active, f->data, f->best, f->any};
        orc_value vals[12] = {names[i], ages[i], scores[i], heights[i], bdays[i], bals[i], oids[i], uuids[i],
                              actives[i], datas[i], bests[i] < 0 ? vn() : vlink(f->D, f->d[bests[i]]), anys[i]};
        S(orc_obj_create(t, P, cols, vals, 12, &f->p[i]));
        for (int j = 0; tags[i][j]; j++) S(push(t, P, f->p[i], f->tags, vs(tags[i][j])));
        for (int j = 0; nums[i][j] != -2; j++) S(push(t, P, f->p[i], f->nums, nums[i][j] < 0 ? vn() : vi(nums[i][j])));
        for (int j = 0; dogs[i][j] >= 0; j++) S(push(t, P, f->p[i], f->dogs, vlink(f->D, f->d[dogs[i][j]])));
        for (int j = 0; akeys[i][j]; j++) {
            orc_value v = vi(avals[i][j]);
            S(orc_dict_set(t, P, f->p[i], f->attrs, akeys[i][j], 1, &v));
        }
    }
    return orc_txn_commit(t, NULL);
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */
/* ------------------------------------------------------------------------ */

static char qbuf[2048];

/* Runs a program; returns the indexes in `keys` of the results, or an error description. */
static const char *run_idx(orc_txn *txn, uint32_t table, const prog *p, const uint64_t *keys, size_t nkeys)
{
    orc_query *q = NULL;
    orc_keys k = {0};
    uint64_t cnt = 0;
    int rc = orc_query_compile(txn, table, p->b, p->n, &q);
    if (rc == ORC_OK) rc = orc_query_run(txn, q, &k);
    if (rc == ORC_OK) rc = orc_query_count(txn, q, &cnt);
    orc_query_free(q);
    if (rc != ORC_OK) {
        snprintf(qbuf, sizeof qbuf, "error %s", orc_last_error());
        orc_keys_free(&k);
        return qbuf;
    }
    size_t o = 0;
    qbuf[0] = 0;
    for (size_t i = 0; i < k.count && o < sizeof qbuf - 16; i++) {
        int found = -1;
        for (size_t j = 0; j < nkeys; j++)
            if (keys[j] == k.keys[i]) found = (int)j;
        o += (size_t)snprintf(qbuf + o, sizeof qbuf - o, i ? ",%d" : "%d", found);
    }
    if (cnt != k.count) snprintf(qbuf, sizeof qbuf, "count %" PRIu64 " != run %zu", cnt, k.count);
    orc_keys_free(&k);
    return qbuf;
}

static int compile_rc(orc_txn *txn, uint32_t table, const prog *p)
{
    orc_query *q = NULL;
    int rc = orc_query_compile(txn, table, p->b, p->n, &q);
    orc_query_free(q);
    return rc;
}

/* Builds a program into `pr` and checks the Person (or Dog) indexes it returns. */
#define EXPECT_P(build, want) do { pr.n = 0; build; CHECK_STR(run_idx(txn, f.P, &pr, f.p, 5), want); } while (0)
#define EXPECT_D(build, want) do { pr.n = 0; build; CHECK_STR(run_idx(txn, f.D, &pr, f.d, 4), want); } while (0)
#define EXPECT_RC(table, build, want) do { pr.n = 0; build; CHECK_RC(compile_rc(txn, table, &pr), want); } while (0)

#define SETUP()                                                                     \
    fx f;                                                                           \
    prog pr = {0};                                                                  \
    orc_txn *txn;                                                                   \
    CHECK_OK(fx_open(&f));                                                          \
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &txn))

#define TEARDOWN()                                                                  \
    do {                                                                            \
        orc_txn_abort(txn);                                                         \
        CHECK_ENV(f.env);                                                           \
        orc_env_close(f.env);                                                       \
        free(pr.b);                                                                 \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Operators and types                                                      */
/* ------------------------------------------------------------------------ */

TEST(query_ints_and_nulls)
{
    SETUP();
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.age, vi(30)), "0,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, 0, f.age, vi(30)), "1,2,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.age, vi(30)), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_LE, 0, f.age, vi(30)), "0,1,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.age, vi(30)), "3");
    EXPECT_P(cmpc(&pr, ORC_CMP_GE, 0, f.age, vi(30)), "0,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.age, vn()), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, 0, f.age, vn()), "0,1,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.age, vn()), "");
    EXPECT_P((p_not(&pr), cmpc(&pr, ORC_CMP_LT, 0, f.age, vi(30))), "0,2,3,4");
    /* numbers across types */
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.age, vd(30.0)), "0,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.age, vd(29.5)), "0,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.age, vdec(25, 0)), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.age, vf(26.0f)), "1");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.age), p_list(&pr, 3, (orc_value[]){vi(25), vi(40), vi(99)})), "1,3");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.age), p_list(&pr, 2, (orc_value[]){vn(), vi(40)})), "2,3");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.age), p_list(&pr, 0, NULL)), "");
    EXPECT_P((p_cmp(&pr, ORC_CMP_BETWEEN, 0, 0), p_col(&pr, f.age), p_list(&pr, 2, (orc_value[]){vi(25), vi(30)})), "0,1,4");
    /* AND / OR / TRUE / FALSE, empty AND is true and empty OR false */
    EXPECT_P((p_and(&pr, 2), cmpc(&pr, ORC_CMP_GE, 0, f.age, vi(30)), cmpc(&pr, ORC_CMP_EQ, 0, f.active, vb(true))), "0,4");
    EXPECT_P((p_or(&pr, 2), cmpc(&pr, ORC_CMP_EQ, 0, f.age, vi(25)), cmpc(&pr, ORC_CMP_EQ, 0, f.age, vn())), "1,2");
    EXPECT_P(p_and(&pr, 0), "0,1,2,3,4");
    EXPECT_P(p_or(&pr, 0), "");
    EXPECT_P(p_u8(&pr, ORC_OP_TRUE), "0,1,2,3,4");
    EXPECT_P(p_u8(&pr, ORC_OP_FALSE), "");
    /* constant on the left, property on the right */
    EXPECT_P((p_cmp(&pr, ORC_CMP_LT, 0, 0), p_const(&pr, vi(30)), p_col(&pr, f.age)), "3");
    /* property against property */
    EXPECT_P((p_cmp(&pr, ORC_CMP_LT, 0, 0), p_col(&pr, f.score), p_col(&pr, f.height)), "0,2,3");
    TEARDOWN();
}

TEST(query_strings)
{
    SETUP();
    const int CI = ORC_CMP_CASE_INSENSITIVE, DI = ORC_CMP_DIACRITIC_INSENSITIVE;
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.name, vs("bob")), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.name, vs("BOB")), "");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, CI, f.name, vs("BOB")), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, CI, f.name, vs("BOB")), "0,2,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.name, vs("A")), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, CI, f.name, vs("a")), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_ENDS_WITH, 0, f.name, vs("e")), "0,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_CONTAINS, 0, f.name, vs("o")), "1,2,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_CONTAINS, CI, f.name, vs("L")), "0,2,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_LIKE, 0, f.name, vs("?a*")), "2,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_LIKE, 0, f.name, vs("*o?")), "1,2");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.name, vs("Carol")), "1,3,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.name, vs("Carol")), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, CI | DI, f.name, vs("elodie")), "3");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, DI, f.name, vs("Elo")), "3");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.name, vs("Elo")), "");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.name), p_list(&pr, 2, (orc_value[]){vs("dave"), vs("zed")})), "4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.name, vn()), "");
    TEARDOWN();
}

TEST(query_other_types)
{
    SETUP();
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.score, vi(1)), "0,1,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.score, vi(3)), "4");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.height, vd(1.65)), "2,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.height, vn()), "1,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.height, vf(1.8f)), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.bday, vts(1500)), "0,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_GE, 0, f.bday, vts(2000)), "1,4");
    EXPECT_P((p_cmp(&pr, ORC_CMP_BETWEEN, 0, 0), p_col(&pr, f.bday), p_list(&pr, 2, (orc_value[]){vts(500), vts(1000)})), "0,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.bal, vi(12)), "1,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.bal, vdec(100, -1)), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.bal, vd(16.0)), "0,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.bal, vn()), "2,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.oid, void_(1)), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.oid, void_(1)), "1,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.uuid, vuuid(2)), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, 0, f.uuid, vn()), "0,2");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.active, vb(true)), "0,2,4");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, 0, f.active, vb(true)), "1,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.data, vbin("\x01", 1)), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.data, vbin("\x01", 1)), "0,2");
    EXPECT_P(cmpc(&pr, ORC_CMP_ENDS_WITH, 0, f.data, vbin("\x02", 1)), "0");
    /* mixed: compares with whatever it holds */
    EXPECT_P(cmpc(&pr, ORC_CMP_GT, 0, f.any, vi(3)), "0");
    EXPECT_P(cmpc(&pr, ORC_CMP_LT, 0, f.any, vi(10)), "0,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.any, vs("hello")), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.any, vs("he")), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.any, vn()), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.any, vb(true)), "4");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.any, vd(2.5)), "3");
    TEARDOWN();
}

/* ------------------------------------------------------------------------ */
/* Collections, links, backlinks, SUBQUERY, dictionaries                    */
/* ------------------------------------------------------------------------ */

TEST(query_lists_and_quantifiers)
{
    SETUP();
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.tags, vs("b")), "0,1");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, ORC_Q_ANY, f.tags, 0, vs("b")), "0,1");
    EXPECT_P(cmpa(&pr, ORC_CMP_BEGINS_WITH, ORC_Q_ALL, f.tags, 0, vs("a")), "2,3");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, ORC_Q_NONE, f.tags, 0, vs("b")), "2,3,4");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.tags), p_list(&pr, 2, (orc_value[]){vs("x"), vs("abd")})), "3,4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.tags, ORC_AGG_COUNT, vi(0)), "2");
    EXPECT_P(cmpa(&pr, ORC_CMP_GE, 0, f.tags, ORC_AGG_SIZE, vi(2)), "0,3");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.nums, vn()), "1");
    EXPECT_P(cmpa(&pr, ORC_CMP_GT, ORC_Q_ALL, f.nums, 0, vi(0)), "0,2,3,4");
    EXPECT_P(cmpa(&pr, ORC_CMP_GT, 0, f.nums, ORC_AGG_SUM, vi(5)), "0,3,4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_SUM, vi(0)), "2");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_MIN, vi(1)), "0");
    EXPECT_P(cmpa(&pr, ORC_CMP_GE, 0, f.nums, ORC_AGG_MAX, vi(6)), "3,4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_AVG, vi(2)), "0");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_AVG, vd(4)), "1");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_AVG, vn()), "2");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_COUNT, vi(2)), "1,4");
    /* @size of a single string is its length in bytes */
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.name, ORC_AGG_SIZE, vi(5)), "0,2");
    /* set elements through a list of links */
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, 0, 0, f.dogs, f.dtoys, 0, vs("ball")), "0,1,3,4");
    /* a list compared with a list: any pair */
    EXPECT_P((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.tags), p_path(&pr, 2), p_prop(&pr, f.best), p_prop(&pr, f.dname), p_agg(&pr, 0)), "");
    EXPECT_P((p_cmp(&pr, ORC_CMP_LT, 0, 0), p_col(&pr, f.nums), p_path(&pr, 2), p_prop(&pr, f.dogs), p_prop(&pr, f.dage), p_agg(&pr, 0)), "0,4");
    TEARDOWN();
}

TEST(query_links_and_backlinks)
{
    SETUP();
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, 0, 0, f.best, f.dname, 0, vs("Rex")), "0");
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, 0, f.best, f.dname, 0, vs("rex")), "0,2");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.best, vn()), "1");
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, 0, 0, f.best, f.dname, 0, vn()), "1");
    EXPECT_P(cmpc(&pr, ORC_CMP_EQ, 0, f.best, vlink(f.D, f.d[2])), "2");
    EXPECT_P(cmpc(&pr, ORC_CMP_NE, 0, f.best, vlink(f.D, f.d[2])), "0,1,3,4");
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, 0, 0, f.dogs, f.dname, 0, vs("Fido")), "0,4");
    EXPECT_P(cmp2(&pr, ORC_CMP_GT, 0, 0, f.dogs, f.dage, 0, vi(4)), "0,4");
    EXPECT_P(cmp2(&pr, ORC_CMP_LT, 0, ORC_Q_ALL, f.dogs, f.dage, 0, vi(4)), "1,2,3");
    EXPECT_P(cmp2(&pr, ORC_CMP_GT, 0, 0, f.dogs, f.dage, ORC_AGG_SUM, vi(5)), "0,4");
    EXPECT_P(cmp2(&pr, ORC_CMP_EQ, 0, 0, f.dogs, f.dage, ORC_AGG_MAX, vi(8)), "4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.dogs, ORC_AGG_COUNT, vi(3)), "4");
    EXPECT_P((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.dogs), p_list(&pr, 1, (orc_value[]){vlink(f.D, f.d[3])})), "4");
    /* backlinks from Dog */
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 2), p_back(&pr, f.P, f.dogs), p_prop(&pr, f.name), p_agg(&pr, 0), p_const(&pr, vs("Alice"))), "0,1");
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, f.P, f.dogs), p_agg(&pr, ORC_AGG_COUNT), p_const(&pr, vi(2))), "0,1,2");
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, f.P, f.dogs), p_agg(&pr, ORC_AGG_COUNT), p_const(&pr, vi(1))), "3");
    EXPECT_D((p_cmp(&pr, ORC_CMP_GT, 0, 0), p_path(&pr, 2), p_back(&pr, f.P, f.best), p_prop(&pr, f.age), p_agg(&pr, 0), p_const(&pr, vi(28))), "0,1,3");
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, f.P, f.best), p_agg(&pr, 0), p_const(&pr, vlink(f.P, f.p[4]))), "3");
    /* @min / @max over timestamps reached through backlinks (Carol's bday is null) */
    EXPECT_D((p_cmp(&pr, ORC_CMP_GT, 0, 0), p_path(&pr, 2), p_back(&pr, f.P, f.best), p_prop(&pr, f.bday), p_agg(&pr, ORC_AGG_MAX), p_const(&pr, vts(600))), "0,3");
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 2), p_back(&pr, f.P, f.best), p_prop(&pr, f.bday), p_agg(&pr, ORC_AGG_MIN), p_const(&pr, vn())), "2");
    /* a path of no steps is the object itself */
    EXPECT_D((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_path(&pr, 0), p_agg(&pr, 0), p_list(&pr, 2, (orc_value[]){vlink(f.D, f.d[1]), vlink(f.D, f.d[3])})), "1,3");
    /* backlink then forward again: dogs whose owners own Max */
    EXPECT_D((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 3), p_back(&pr, f.P, f.dogs), p_prop(&pr, f.dogs), p_prop(&pr, f.dname), p_agg(&pr, 0), p_const(&pr, vs("Max"))), "1,2,3");
    TEARDOWN();
}

TEST(query_subquery_and_dictionaries)
{
    SETUP();
    /* SUBQUERY(dogs, age > 2).@count >= 2 */
    EXPECT_P((p_cmp(&pr, ORC_CMP_GE, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_prop(&pr, f.dogs), p_agg(&pr, 0),
              cmpc(&pr, ORC_CMP_GT, 0, f.dage, vi(2)), p_const(&pr, vi(2))), "0,4");
    EXPECT_P((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_prop(&pr, f.dogs), p_agg(&pr, 0),
              cmpc(&pr, ORC_CMP_GT, 0, f.dage, vi(2)), p_const(&pr, vi(0))), "1,2");
    EXPECT_P((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_prop(&pr, f.dogs), p_agg(&pr, 0),
              cmpc(&pr, ORC_CMP_EQ, 0, f.dtoys, vs("ball")), p_const(&pr, vi(1))), "0,1,3,4");
    /* nested: Dogs with an owner having two dogs older than 2 */
    EXPECT_D((p_cmp(&pr, ORC_CMP_GT, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_back(&pr, f.P, f.dogs), p_agg(&pr, 0),
              p_cmp(&pr, ORC_CMP_GE, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_prop(&pr, f.dogs), p_agg(&pr, 0),
              cmpc(&pr, ORC_CMP_GT, 0, f.dage, vi(2)), p_const(&pr, vi(2)), p_const(&pr, vi(0))), "0,1,2,3");
    /* dictionaries */
    EXPECT_P((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 2), p_prop(&pr, f.attrs), p_key(&pr, "x"), p_agg(&pr, 0), p_const(&pr, vi(1))), "0");
    EXPECT_P((p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 2), p_prop(&pr, f.attrs), p_key(&pr, "x"), p_agg(&pr, 0), p_const(&pr, vn())), "2,3,4");
    EXPECT_P((p_cmp(&pr, ORC_CMP_GT, 0, 0), p_path(&pr, 2), p_prop(&pr, f.attrs), p_key(&pr, "x"), p_agg(&pr, 0), p_const(&pr, vi(0))), "0,1");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.attrs, ORC_AGG_KEYS, vs("y")), "0,3");
    EXPECT_P(cmpa(&pr, ORC_CMP_GT, 0, f.attrs, ORC_AGG_VALUES, vi(4)), "0,1");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.attrs, ORC_AGG_COUNT, vi(1)), "1,3,4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.attrs, ORC_AGG_NONE, vi(3)), "4");
    EXPECT_P(cmpa(&pr, ORC_CMP_EQ, 0, f.attrs, ORC_AGG_SUM, vi(6)), "0");
    TEARDOWN();
}

/* ------------------------------------------------------------------------ */
/* Descriptors and domains                                                  */
/* ------------------------------------------------------------------------ */

TEST(query_sort_distinct_limit)
{
    SETUP();
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, 1)), "2,1,0,4,3");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, 0)), "3,0,4,1,2");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.name, 1)), "0,2,1,4,3");
    /* two keys: age ascending, then name descending */
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_SORT), p_u8(&pr, 2), p_u8(&pr, 1), p_prop(&pr, f.age), p_u8(&pr, 0),
              p_u8(&pr, 1), p_u8(&pr, 1), p_prop(&pr, f.name), p_u8(&pr, 0), p_u8(&pr, 0)), "2,1,4,0,3");
    /* a second SORT keeps the first one's order among its ties */
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.name, 0), p_sort1(&pr, f.active, 1)), "3,1,4,2,0");
    /* through a link, and by an aggregate */
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_SORT), p_u8(&pr, 1), p_u8(&pr, 2), p_prop(&pr, f.best), p_prop(&pr, f.dname),
              p_u8(&pr, 0), p_u8(&pr, 1)), "1,3,4,0,2");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_SORT), p_u8(&pr, 1), p_u8(&pr, 1), p_prop(&pr, f.dogs),
              p_u8(&pr, ORC_AGG_COUNT), p_u8(&pr, 0)), "4,0,1,3,2");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, -1)), "0,1,2,3");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.active, -1)), "0,1");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_limit(&pr, 2)), "0,1");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_limit(&pr, 0)), "");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_limit(&pr, 99)), "0,1,2,3,4");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, 1), p_limit(&pr, 2)), "2,1");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_limit(&pr, 3), p_sort1(&pr, f.age, 0)), "0,1,2");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, 0), p_sort1(&pr, f.active, -1)), "3,0");
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.active, -1), p_limit(&pr, 1)), "0");
    EXPECT_P((cmpc(&pr, ORC_CMP_NE, 0, f.age, vn()), p_sort1(&pr, f.score, 0), p_limit(&pr, 3)), "4,1,0");
    /* a DISTINCT of no paths keeps one object */
    EXPECT_P((p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_DISTINCT), p_u8(&pr, 0)), "0");
    TEARDOWN();
}

TEST(query_domain)
{
    SETUP();
    orc_query *q;
    orc_keys k = {0};
    pr.n = 0;
    cmpc(&pr, ORC_CMP_NE, 0, f.age, vi(25));
    CHECK_OK(orc_query_compile(txn, f.P, pr.b, pr.n, &q));
    uint64_t dom[6] = {f.p[4], f.p[1], f.p[0], f.p[4], 9999999, f.p[2]};
    CHECK_OK(orc_query_set_domain(q, dom, 6));
    CHECK_OK(orc_query_run(txn, q, &k));
    /* domain order, duplicates kept, missing keys skipped, no index */
    CHECK_EQ(k.count, 4);
    CHECK(k.keys[0] == f.p[4] && k.keys[1] == f.p[0] && k.keys[2] == f.p[4] && k.keys[3] == f.p[2]);
    CHECK(!orc_query_used_index(q));
    uint64_t n;
    CHECK_OK(orc_query_count(txn, q, &n));
    CHECK_EQ(n, 4);
    /* an empty domain matches nothing; NULL restores the table */
    CHECK_OK(orc_query_set_domain(q, dom, 0));
    CHECK_OK(orc_query_count(txn, q, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(orc_query_set_domain(q, NULL, 0));
    CHECK_OK(orc_query_count(txn, q, &n));
    CHECK_EQ(n, 4);
    orc_query_free(q);

    /* sorting a domain is stable with respect to the domain's order */
    pr.n = 0;
    p_u8(&pr, ORC_OP_TRUE);
    p_sort1(&pr, f.age, 1);
    CHECK_OK(orc_query_compile(txn, f.P, pr.b, pr.n, &q));
    uint64_t dom2[4] = {f.p[4], f.p[3], f.p[0], f.p[1]};
    CHECK_OK(orc_query_set_domain(q, dom2, 4));
    k.count = 0;
    CHECK_OK(orc_query_run(txn, q, &k));
    CHECK_EQ(k.count, 4);
    CHECK(k.keys[0] == f.p[1] && k.keys[1] == f.p[4] && k.keys[2] == f.p[0] && k.keys[3] == f.p[3]);
    /* run appends */
    CHECK_OK(orc_query_run(txn, q, &k));
    CHECK_EQ(k.count, 8);
    orc_query_free(q);
    orc_keys_free(&k);
    TEARDOWN();
}

/* ------------------------------------------------------------------------ */
/* Aggregates                                                               */
/* ------------------------------------------------------------------------ */

static int agg_of(orc_txn *txn, uint32_t table, const prog *p, uint16_t col, orc_agg agg, orc_value *out)
{
    orc_query *q;
    int rc = orc_query_compile(txn, table, p->b, p->n, &q);
    if (rc != ORC_OK) return rc;
    rc = orc_query_aggregate(txn, q, col, agg, out);
    orc_query_free(q);
    return rc;
}

/* A decimal (or any number) equal to `want`: numbers compare across types. */
static bool num_eq(orc_value v, double want)
{
    orc_value w = vd(want);
    return orc_value_compare(&v, &w) == 0;
}

/* Aggregates column `col` of P over `pr` into `v`, and checks `cond` about it. */
#define EXPECT_AGG(col, agg, cond)                                                  \
    do {                                                                            \
        CHECK_OK(agg_of(txn, f.P, &pr, (col), (agg), &v));                          \
        CHECK(cond);                                                                \
    } while (0)

TEST(query_aggregate)
{
    SETUP();
    orc_value v;
    pr.n = 0;
    p_u8(&pr, ORC_OP_TRUE);
    EXPECT_AGG(f.age, ORC_AGG_SUM, v.type == ORC_TYPE_INT && v.integer == 125);
    EXPECT_AGG(f.age, ORC_AGG_MIN, v.type == ORC_TYPE_INT && v.integer == 25);
    EXPECT_AGG(f.age, ORC_AGG_MAX, v.type == ORC_TYPE_INT && v.integer == 40);
    EXPECT_AGG(f.age, ORC_AGG_AVG, v.type == ORC_TYPE_DOUBLE && v.dnum == 31.25);
    EXPECT_AGG(f.age, ORC_AGG_COUNT, v.type == ORC_TYPE_INT && v.integer == 4);
    EXPECT_AGG(f.score, ORC_AGG_SUM, v.type == ORC_TYPE_DOUBLE && v.dnum == 6.0);
    EXPECT_AGG(f.height, ORC_AGG_MIN, v.type == ORC_TYPE_FLOAT && v.fnum == 1.6f);
    EXPECT_AGG(f.height, ORC_AGG_SUM, v.type == ORC_TYPE_DOUBLE && v.dnum > 5.09 && v.dnum < 5.11);
    EXPECT_AGG(f.bal, ORC_AGG_SUM, v.type == ORC_TYPE_DECIMAL && num_eq(v, 45.5));
    EXPECT_AGG(f.bal, ORC_AGG_MAX, v.type == ORC_TYPE_DECIMAL && num_eq(v, 20));
    EXPECT_AGG(f.bday, ORC_AGG_MIN, v.type == ORC_TYPE_TIMESTAMP && v.timestamp.seconds == 500);
    EXPECT_AGG(f.bday, ORC_AGG_MAX, v.type == ORC_TYPE_TIMESTAMP && v.timestamp.seconds == 3000);
    EXPECT_AGG(f.name, ORC_AGG_COUNT, v.type == ORC_TYPE_INT && v.integer == 5);
    /* over a filter and after descriptors */
    pr.n = 0;
    cmpc(&pr, ORC_CMP_GT, 0, f.age, vi(26));
    EXPECT_AGG(f.age, ORC_AGG_SUM, v.type == ORC_TYPE_INT && v.integer == 100);
    p_sort1(&pr, f.age, 0);
    p_limit(&pr, 2);
    EXPECT_AGG(f.age, ORC_AGG_SUM, v.type == ORC_TYPE_INT && v.integer == 70);
    /* nothing matches */
    pr.n = 0;
    p_u8(&pr, ORC_OP_FALSE);
    EXPECT_AGG(f.age, ORC_AGG_SUM, v.type == ORC_TYPE_INT && v.integer == 0);
    EXPECT_AGG(f.score, ORC_AGG_SUM, v.type == ORC_TYPE_DOUBLE && v.dnum == 0);
    EXPECT_AGG(f.bal, ORC_AGG_SUM, v.type == ORC_TYPE_DECIMAL && num_eq(v, 0));
    EXPECT_AGG(f.age, ORC_AGG_AVG, v.type == ORC_TYPE_NULL);
    EXPECT_AGG(f.age, ORC_AGG_MIN, v.type == ORC_TYPE_NULL);
    EXPECT_AGG(f.age, ORC_AGG_COUNT, v.type == ORC_TYPE_INT && v.integer == 0);
    /* what cannot be aggregated */
    CHECK_RC(agg_of(txn, f.P, &pr, f.name, ORC_AGG_SUM, &v), ORC_ERR_WRONG_TYPE);
    CHECK_RC(agg_of(txn, f.P, &pr, f.bday, ORC_AGG_SUM, &v), ORC_ERR_WRONG_TYPE);
    CHECK_RC(agg_of(txn, f.P, &pr, f.nums, ORC_AGG_SUM, &v), ORC_ERR_WRONG_TYPE);
    CHECK_RC(agg_of(txn, f.P, &pr, 999, ORC_AGG_SUM, &v), ORC_ERR_NOT_FOUND);
    TEARDOWN();
}

TEST(query_aggregate_int_overflow)
{
    orc_env *env;
    orc_txn *t;
    uint32_t T;
    uint16_t c;
    prog pr = {0};
    orc_value v;
    CHECK_OK(test_open_writing(test_path("overflow.realm"), &env, &t));
    CHECK_OK(orc_class_add(t, "N", ORC_CLASS_TOP_LEVEL, &T));
    CHECK_OK(add_prop(t, T, "n", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &c));
    int64_t vals[3] = {INT64_MAX, 10, -5};
    for (int i = 0; i < 3; i++) {
        orc_value x = vi(vals[i]);
        CHECK_OK(orc_obj_create(t, T, &c, &x, 1, NULL));
    }
    /* a sum that leaves int64 continues as a double */
    p_u8(&pr, ORC_OP_TRUE);
    CHECK_OK(agg_of(t, T, &pr, c, ORC_AGG_SUM, &v));
    CHECK(v.type == ORC_TYPE_DOUBLE && v.dnum > 9.2233720368547e18 && v.dnum < 9.2233720368548e18);
    CHECK_OK(agg_of(t, T, &pr, c, ORC_AGG_MAX, &v));
    CHECK(v.type == ORC_TYPE_INT && v.integer == INT64_MAX);
    /* queries also run inside the write transaction that made the objects */
    pr.n = 0;
    cmpc(&pr, ORC_CMP_LT, 0, c, vi(0));
    CHECK_OK(agg_of(t, T, &pr, c, ORC_AGG_SUM, &v));
    CHECK(v.type == ORC_TYPE_INT && v.integer == -5);
    CHECK_OK(orc_txn_commit(t, NULL));
    orc_env_close(env);
    free(pr.b);
}

/* ------------------------------------------------------------------------ */
/* The planner                                                              */
/* ------------------------------------------------------------------------ */

#define NI 200

typedef struct ifx {
    orc_env *env;
    uint32_t T;
    uint16_t n, s, id, plain, opt, m;
} ifx;

/* Item i: n = i % 50, s = "s%02d" % (i % 30), id = 3i (primary key), plain = i % 7,
 * opt = null when i % 4 == 0 else i % 10, m = i % 10 (odd i) or "x<i % 10>" (even i). */
static int ifx_open(ifx *f)
{
    orc_txn *t;
    memset(f, 0, sizeof *f);
    S(test_open_writing(test_path("index.realm"), &f->env, &t));
    S(orc_class_add(t, "Item", ORC_CLASS_TOP_LEVEL, &f->T));
    S(add_prop(t, f->T, "id", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0, &f->id));
    S(add_prop(t, f->T, "n", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_INDEXED, 0, &f->n));
    S(add_prop(t, f->T, "s", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0, &f->s));
    S(add_prop(t, f->T, "plain", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &f->plain));
    S(add_prop(t, f->T, "opt", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_OPTIONAL | ORC_PROP_INDEXED, 0, &f->opt));
    S(add_prop(t, f->T, "m", ORC_TYPE_MIXED, ORC_COLL_NONE, ORC_PROP_OPTIONAL | ORC_PROP_INDEXED, 0, &f->m));
    for (int i = 0; i < NI; i++) {
        char s[8], m[8];
        snprintf(s, sizeof s, "s%02d", i % 30);
        snprintf(m, sizeof m, "x%d", i % 10);
        uint16_t cols[6] = {f->id, f->n, f->s, f->plain, f->opt, f->m};
        orc_value vals[6] = {vi(3 * i), vi(i % 50), vs(s), vi(i % 7), i % 4 == 0 ? vn() : vi(i % 10),
                             i % 2 ? vi(i % 10) : vs(m)};
        S(orc_obj_create(t, f->T, cols, vals, 6, NULL));
    }
    return orc_txn_commit(t, NULL);
}

/* Runs `p` and the same predicate hidden under OR(1), which the planner leaves alone: same results, in the same order. */
static const char *index_vs_scan(orc_txn *txn, uint32_t table, const prog *p, bool want_index, size_t want)
{
    prog scan = {0};
    orc_query *qi = NULL, *qs = NULL;
    orc_keys ki = {0}, ks = {0};
    uint64_t cnt = 0;
    const char *res = "ok";
    p_or(&scan, 1);
    p_put(&scan, p->b, p->n);
    int rc = orc_query_compile(txn, table, p->b, p->n, &qi);
    if (rc == ORC_OK) rc = orc_query_compile(txn, table, scan.b, scan.n, &qs);
    if (rc == ORC_OK) rc = orc_query_run(txn, qs, &ks);
    if (rc == ORC_OK) rc = orc_query_count(txn, qi, &cnt);
    if (rc == ORC_OK) rc = orc_query_run(txn, qi, &ki);
    if (rc != ORC_OK) {
        snprintf(qbuf, sizeof qbuf, "error %s", orc_last_error());
        res = qbuf;
    } else if (orc_query_used_index(qi) != want_index) {
        res = want_index ? "index not used" : "index used";
    } else if (orc_query_used_index(qs)) {
        res = "the scan used an index";
    } else if (ki.count != ks.count || (ki.count && memcmp(ki.keys, ks.keys, ki.count * sizeof *ki.keys))) {
        res = "index and scan results differ";
    } else if (ki.count != want || cnt != want) {
        snprintf(qbuf, sizeof qbuf, "%zu results (count %" PRIu64 "), want %zu", ki.count, cnt, want);
        res = qbuf;
    }
    orc_query_free(qi);
    orc_query_free(qs);
    orc_keys_free(&ki);
    orc_keys_free(&ks);
    free(scan.b);
    return res;
}

#define EXPECT_IX(build, want_index, cond)                                          \
    do {                                                                            \
        size_t want_ = 0;                                                           \
        for (int i = 0; i < NI; i++)                                                \
            if (cond) want_++;                                                      \
        pr.n = 0;                                                                   \
        build;                                                                      \
        CHECK_STR(index_vs_scan(txn, f.T, &pr, want_index, want_), "ok");           \
    } while (0)

TEST(query_index_use)
{
    ifx f;
    prog pr = {0};
    orc_txn *txn;
    CHECK_OK(ifx_open(&f));
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &txn));
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(7)), true, i % 50 == 7);
    EXPECT_IX((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.n), p_list(&pr, 4, (orc_value[]){vi(3), vi(7), vi(7), vi(150)})),
              true, i % 50 == 3 || i % 50 == 7);
    EXPECT_IX(cmpc(&pr, ORC_CMP_GT, 0, f.n, vi(45)), true, i % 50 > 45);
    EXPECT_IX(cmpc(&pr, ORC_CMP_LE, 0, f.n, vi(2)), true, i % 50 <= 2);
    EXPECT_IX((p_and(&pr, 2), cmpc(&pr, ORC_CMP_GT, 0, f.n, vi(10)), cmpc(&pr, ORC_CMP_LT, 0, f.n, vi(14))), true,
              i % 50 > 10 && i % 50 < 14);
    EXPECT_IX((p_and(&pr, 2), cmpc(&pr, ORC_CMP_GE, 0, f.n, vi(10)), cmpc(&pr, ORC_CMP_LE, 0, f.n, vi(9))), true, 0);
    EXPECT_IX((p_and(&pr, 2), cmpc(&pr, ORC_CMP_GT, 0, f.opt, vi(3)), cmpc(&pr, ORC_CMP_LE, 0, f.opt, vi(5))), true,
              i % 4 != 0 && i % 10 > 3 && i % 10 <= 5);
    EXPECT_IX((p_cmp(&pr, ORC_CMP_BETWEEN, 0, 0), p_col(&pr, f.n), p_list(&pr, 2, (orc_value[]){vi(10), vi(12)})),
              true, i % 50 >= 10 && i % 50 <= 12);
    EXPECT_IX((p_and(&pr, 3), cmpc(&pr, ORC_CMP_GE, 0, f.n, vi(5)), cmpc(&pr, ORC_CMP_LT, 0, f.n, vi(9)),
               cmpc(&pr, ORC_CMP_EQ, 0, f.plain, vi(3))), true, i % 50 >= 5 && i % 50 < 9 && i % 7 == 3);
    EXPECT_IX((p_and(&pr, 2), cmpc(&pr, ORC_CMP_EQ, 0, f.plain, vi(3)),
               (p_and(&pr, 1), cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(10)))), true, i % 50 == 10 && i % 7 == 3);
    EXPECT_IX((p_and(&pr, 2), cmpc(&pr, ORC_CMP_GT, 0, f.n, vi(40)), cmpc(&pr, ORC_CMP_EQ, 0, f.s, vs("s07"))), true,
              i % 50 > 40 && i % 30 == 7);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.s, vs("s07")), true, i % 30 == 7);
    EXPECT_IX((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.s), p_list(&pr, 2, (orc_value[]){vs("s01"), vs("s02")})),
              true, i % 30 == 1 || i % 30 == 2);
    EXPECT_IX(cmpc(&pr, ORC_CMP_GE, 0, f.s, vs("s28")), true, i % 30 >= 28);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.id, vi(51)), true, 3 * i == 51);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.id, vi(52)), true, 0);
    EXPECT_IX((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.id), p_list(&pr, 3, (orc_value[]){vi(0), vi(3), vi(1000)})),
              true, i < 2);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.opt, vi(5)), true, i % 4 != 0 && i % 10 == 5);
    EXPECT_IX(cmpc(&pr, ORC_CMP_LT, 0, f.opt, vi(2)), true, i % 4 != 0 && i % 10 < 2);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.m, vs("x4")), true, i % 2 == 0 && i % 10 == 4);
    /* counted straight off the index (one value, one range), a LIMIT capping the count */
    EXPECT_IX((cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(7)), p_limit(&pr, 3)), true, i % 50 == 7 && want_ < 3);
    EXPECT_IX((cmpc(&pr, ORC_CMP_GT, 0, f.n, vi(45)), p_limit(&pr, 4)), true, i % 50 > 45 && want_ < 4);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.s, vs("s99")), true, 0);
    /* what the planner must leave to a scan */
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.opt, vn()), false, i % 4 == 0);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.m, vi(3)), false, i % 2 == 1 && i % 10 == 3);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.n, vd(7.0)), false, i % 50 == 7);
    EXPECT_IX(cmpc(&pr, ORC_CMP_NE, 0, f.n, vi(7)), false, i % 50 != 7);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, f.s, vs("S07")), false, i % 30 == 7);
    EXPECT_IX(cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.s, vs("s0")), false, i % 30 < 10);
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.plain, vi(3)), false, i % 7 == 3);
    EXPECT_IX(cmpc(&pr, ORC_CMP_GT, 0, f.id, vi(590)), false, 3 * i > 590);
    EXPECT_IX(cmpa(&pr, ORC_CMP_EQ, ORC_Q_ALL, f.n, 0, vi(7)), false, i % 50 == 7);
    EXPECT_IX((p_not(&pr), cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(7))), false, i % 50 != 7);
    EXPECT_IX((p_or(&pr, 2), cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(1)), cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(2))), false,
              i % 50 == 1 || i % 50 == 2);
    /* descriptors after an index scan: same order as after a table scan */
    EXPECT_IX(((p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.n), p_list(&pr, 2, (orc_value[]){vi(1), vi(2)})),
               p_sort1(&pr, f.s, 0), p_limit(&pr, 5)), true, (i % 50 == 1 || i % 50 == 2) && want_ < 5);
    orc_txn_abort(txn);

    /* in a write transaction the indexes follow every write */
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_WRITE, &txn));
    orc_keys all = {0};
    CHECK_OK(orc_table_keys(txn, f.T, &all));
    CHECK_EQ(all.count, NI);
    orc_value seven = vi(7);
    CHECK_OK(orc_obj_set(txn, f.T, all.keys[0], f.n, &seven));
    CHECK_OK(orc_obj_erase(txn, f.T, all.keys[7]));
    EXPECT_IX(cmpc(&pr, ORC_CMP_EQ, 0, f.n, vi(7)), true, (i % 50 == 7 && i != 7) || i == 0);
    orc_keys_free(&all);
    CHECK_COMMIT_ENV(txn, f.env);
    orc_env_close(f.env);
    free(pr.b);
}

/* ------------------------------------------------------------------------ */
/* Bad programs                                                             */
/* ------------------------------------------------------------------------ */

TEST(query_wrong_types)
{
    SETUP();
    const uint32_t P = f.P, D = f.D;
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.age, vs("x")), ORC_ERR_WRONG_TYPE);
    CHECK(strstr(orc_last_error(), "Person.age") != NULL);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_GT, 0, f.name, vi(5)), ORC_ERR_WRONG_TYPE);
    CHECK(strstr(orc_last_error(), "Person.name") != NULL);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.age, vs("a")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_CONTAINS, 0, f.name, vi(1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_LT, 0, f.active, vb(true)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.bday, vi(5)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.oid, vuuid(1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.data, vs("x")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.best, vlink(P, f.p[0])), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_LT, 0, f.best, vlink(D, f.d[0])), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_BEGINS_WITH, 0, f.any, vi(5)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.age), p_list(&pr, 2, (orc_value[]){vi(1), vs("x")})), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.age), p_col(&pr, f.name)), ORC_ERR_WRONG_TYPE);
    /* paths that cannot be walked */
    EXPECT_RC(P, cmp2(&pr, ORC_CMP_EQ, 0, 0, f.name, f.name, 0, vs("x")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmp2(&pr, ORC_CMP_EQ, 0, 0, f.any, f.name, 0, vs("x")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmp2(&pr, ORC_CMP_EQ, 0, 0, f.best, 999, 0, vs("x")), ORC_ERR_NOT_FOUND);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, P, f.dogs), p_agg(&pr, 0), p_const(&pr, vn())), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(D, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, P, f.name), p_agg(&pr, 0), p_const(&pr, vn())), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 2), p_prop(&pr, f.tags), p_key(&pr, "x"), p_agg(&pr, 0), p_const(&pr, vn())), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_key(&pr, "x"), p_agg(&pr, 0), p_const(&pr, vn())), ORC_ERR_WRONG_TYPE);
    /* aggregates that do not apply */
    EXPECT_RC(P, cmpa(&pr, ORC_CMP_EQ, 0, f.tags, ORC_AGG_SUM, vi(1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpa(&pr, ORC_CMP_EQ, 0, f.tags, ORC_AGG_KEYS, vs("x")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpa(&pr, ORC_CMP_EQ, 0, f.age, ORC_AGG_COUNT, vi(1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpa(&pr, ORC_CMP_EQ, 0, f.bday, ORC_AGG_AVG, vi(1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, cmpa(&pr, ORC_CMP_EQ, 0, f.nums, ORC_AGG_SUM, vs("x")), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_u8(&pr, ORC_EXPR_SUBQUERY), p_u8(&pr, 1), p_prop(&pr, f.tags), p_agg(&pr, 0),
                  p_u8(&pr, ORC_OP_TRUE), p_const(&pr, vi(0))), ORC_ERR_WRONG_TYPE);
    /* descriptors need one value per object */
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.tags, 1)), ORC_ERR_WRONG_TYPE);
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_DISTINCT), p_u8(&pr, 1), p_u8(&pr, 2), p_prop(&pr, f.dogs), p_prop(&pr, f.dname), p_u8(&pr, 0)), ORC_ERR_WRONG_TYPE);
    /* what does not exist */
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, 999, vi(1)), ORC_ERR_NOT_FOUND);
    EXPECT_RC(D, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_back(&pr, 999, 0), p_agg(&pr, 0), p_const(&pr, vn())), ORC_ERR_NOT_FOUND);
    EXPECT_RC(999, p_u8(&pr, ORC_OP_TRUE), ORC_ERR_NOT_FOUND);
    /* what is fine */
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.any, vs("x")), ORC_OK);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.age, vn()), ORC_OK);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0, f.bal, vf(1.0f)), ORC_OK);
    TEARDOWN();
}

/* A program using every construct (and every value type) and no descriptors. */
static void full_program(prog *p, const fx *f)
{
    p_and(p, 5);
    p_cmp(p, ORC_CMP_IN, 0, 0); p_col(p, f->age); p_list(p, 2, (orc_value[]){vi(30), vn()});
    p_or(p, 2);
    cmpc(p, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, f->name, vs("alice"));
    p_not(p);
    p_cmp(p, ORC_CMP_BETWEEN, 0, 0); p_col(p, f->bday); p_list(p, 2, (orc_value[]){vts(0), vts(10)});
    p_cmp(p, ORC_CMP_GE, 0, 0); p_u8(p, ORC_EXPR_SUBQUERY); p_u8(p, 1); p_prop(p, f->dogs); p_agg(p, 0);
    cmpc(p, ORC_CMP_EQ, ORC_CMP_CASE_INSENSITIVE, f->dname, vs("rex")); p_const(p, vi(1));
    p_cmp(p, ORC_CMP_EQ, 0, ORC_Q_ANY); p_path(p, 2); p_prop(p, f->attrs); p_key(p, "x"); p_agg(p, 0); p_const(p, vi(1));
    p_cmp(p, ORC_CMP_IN, 0, 0); p_col(p, f->any);
    p_list(p, 12, (orc_value[]){vn(), vb(true), vi(5), vf(1.5f), vd(2.5), vs("s"), vbin("b", 1), vts(7), vdec(3, 0),
                                void_(1), vuuid(1), vlink(f->D, f->d[0])});
}

TEST(query_malformed)
{
    SETUP();
    const uint32_t P = f.P;
    /* a valid program cut anywhere is malformed, never a crash */
    full_program(&pr, &f);
    CHECK_STR(run_idx(txn, P, &pr, f.p, 5), "0");
    size_t full = pr.n;
    for (size_t cut = 0; cut < full; cut++) {
        orc_query *q = NULL;
        int rc = orc_query_compile(txn, P, pr.b, cut, &q);
        if (rc != ORC_ERR_QUERY) fprintf(stderr, "  cut at %zu of %zu\n", cut, full);
        CHECK_RC(rc, ORC_ERR_QUERY);
        CHECK(q == NULL);
        CHECK(strstr(orc_last_error(), "byte") != NULL);
    }
    /* with descriptors, a cut between two descriptors is a valid shorter program */
    size_t bounds[4];
    bounds[0] = pr.n;
    p_sort1(&pr, f.age, 1);
    bounds[1] = pr.n;
    p_sort1(&pr, f.active, -1);
    bounds[2] = pr.n;
    p_limit(&pr, 3);
    bounds[3] = pr.n;
    for (size_t cut = full; cut <= pr.n; cut++) {
        bool boundary = cut == bounds[0] || cut == bounds[1] || cut == bounds[2] || cut == bounds[3];
        CHECK_RC(compile_rc(txn, P, &(prog){pr.b, cut, 0}), boundary ? ORC_OK : ORC_ERR_QUERY);
    }

    /* random damage: compile and, when it compiles, run; nothing may crash */
    uint64_t st = test_seed();
    prog m = {0};
    for (int round = 0; round < 3000; round++) {
        m.n = 0;
        p_put(&m, pr.b, pr.n);
        int edits = 1 + (int)(test_rand(&st) % 3);
        for (int e = 0; e < edits; e++) m.b[test_rand(&st) % m.n] = (uint8_t)test_rand(&st);
        orc_query *q = NULL;
        int rc = orc_query_compile(txn, P, m.b, m.n, &q);
        if (rc == ORC_OK) {
            orc_keys k = {0};
            uint64_t n;
            orc_value v;
            CHECK_OK(orc_query_run(txn, q, &k));
            CHECK_OK(orc_query_count(txn, q, &n));
            CHECK_OK(orc_query_aggregate(txn, q, f.age, ORC_AGG_SUM, &v));
            orc_keys_free(&k);
            orc_query_free(q);
        } else {
            CHECK(rc == ORC_ERR_QUERY || rc == ORC_ERR_WRONG_TYPE || rc == ORC_ERR_NOT_FOUND);
            CHECK(q == NULL);
        }
    }
    free(m.b);

    /* one by one */
    const int Q = ORC_ERR_QUERY;
    EXPECT_RC(P, (void)0, Q);                                            /* empty */
    EXPECT_RC(P, p_u8(&pr, 0x00), Q);
    EXPECT_RC(P, p_u8(&pr, 0x07), Q);
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, 0x99)), Q);         /* trailing bytes */
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_OP_TRUE)), Q);  /* two predicates */
    EXPECT_RC(P, p_and(&pr, 0xFFFFFFFFu), Q);
    EXPECT_RC(P, (p_and(&pr, 3), p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_OP_TRUE)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_IN, 0, 0), p_col(&pr, f.age), p_u8(&pr, ORC_EXPR_LIST), p_u32(&pr, 1000000000)), Q);
    EXPECT_RC(P, cmpc(&pr, 0, 0, f.age, vi(1)), Q);
    EXPECT_RC(P, cmpc(&pr, 13, 0, f.age, vi(1)), Q);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_EQ, 0x04, f.age, vi(1)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 4), p_col(&pr, f.age), p_const(&pr, vi(1))), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.age), p_u8(&pr, 0x14)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.any), p_u8(&pr, ORC_EXPR_CONST), p_u8(&pr, ORC_TYPE_MIXED)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.any), p_u8(&pr, ORC_EXPR_CONST), p_u8(&pr, 200)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.active), p_u8(&pr, ORC_EXPR_CONST), p_u8(&pr, ORC_TYPE_BOOL), p_u8(&pr, 2)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.name), p_u8(&pr, ORC_EXPR_CONST), p_u8(&pr, ORC_TYPE_STRING), p_u32(&pr, 50), p_put(&pr, "abc", 3)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_u8(&pr, 3), p_u16(&pr, f.age), p_agg(&pr, 0), p_const(&pr, vi(1))), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 1), p_prop(&pr, f.age), p_agg(&pr, 9), p_const(&pr, vi(1))), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_path(&pr, 255), p_prop(&pr, f.age), p_agg(&pr, 0), p_const(&pr, vi(1))), Q);
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_sort1(&pr, f.age, 2)), Q);
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, 0x23)), Q);
    EXPECT_RC(P, (p_u8(&pr, ORC_OP_TRUE), p_u8(&pr, ORC_DESC_SORT), p_u8(&pr, 200)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_list(&pr, 1, (orc_value[]){vi(1)}), p_col(&pr, f.age)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_EQ, 0, 0), p_col(&pr, f.age), p_list(&pr, 1, (orc_value[]){vi(1)})), Q);
    EXPECT_RC(P, cmpc(&pr, ORC_CMP_IN, 0, f.age, vi(1)), Q);
    EXPECT_RC(P, (p_cmp(&pr, ORC_CMP_BETWEEN, 0, 0), p_col(&pr, f.age), p_list(&pr, 3, (orc_value[]){vi(1), vi(2), vi(3)})), Q);
    /* nesting: 64 levels are fine, 65 are not; SUBQUERY counts as a level */
    pr.n = 0;
    for (int i = 0; i < 63; i++) p_not(&pr);
    p_u8(&pr, ORC_OP_TRUE);
    CHECK_RC(compile_rc(txn, P, &pr), ORC_OK);
    pr.n = 0;
    for (int i = 0; i < 64; i++) p_not(&pr);
    p_u8(&pr, ORC_OP_TRUE);
    CHECK_RC(compile_rc(txn, P, &pr), Q);
    CHECK(strstr(orc_last_error(), "64") != NULL);
    pr.n = 0;
    for (int i = 0; i < 62; i++) p_not(&pr);
    p_cmp(&pr, ORC_CMP_EQ, 0, 0); p_u8(&pr, ORC_EXPR_SUBQUERY); p_u8(&pr, 1); p_prop(&pr, f.dogs); p_agg(&pr, 0);
    p_not(&pr); p_u8(&pr, ORC_OP_TRUE); p_const(&pr, vi(0));
    CHECK_RC(compile_rc(txn, P, &pr), Q);
    CHECK_RC(orc_query_compile(txn, P, NULL, 4, &(orc_query *){NULL}), ORC_ERR_INVALID_ARG);
    TEARDOWN();
}

TEST(query_schema_change)
{
    SETUP();
    orc_query *q;
    uint64_t n;
    orc_txn *w;
    pr.n = 0;
    cmpc(&pr, ORC_CMP_EQ, 0, f.age, vi(30));
    CHECK_OK(orc_query_compile(txn, f.P, pr.b, pr.n, &q));
    CHECK_OK(orc_query_count(txn, q, &n));
    CHECK_EQ(n, 2);
    orc_txn_abort(txn);
    /* the same schema in a later transaction: fine */
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &txn));
    CHECK_OK(orc_query_count(txn, q, &n));
    CHECK_EQ(n, 2);
    orc_txn_abort(txn);
    /* a schema change, seen inside the writing transaction and after it */
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_WRITE, &w));
    uint16_t col;
    CHECK_OK(add_prop(w, f.P, "extra", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &col));
    CHECK_RC(orc_query_count(w, q, &n), ORC_ERR_SCHEMA);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &txn));
    orc_keys k = {0};
    CHECK_RC(orc_query_run(txn, q, &k), ORC_ERR_SCHEMA);
    CHECK_EQ(k.count, 0);
    orc_value v;
    CHECK_RC(orc_query_aggregate(txn, q, f.age, ORC_AGG_SUM, &v), ORC_ERR_SCHEMA);
    orc_query_free(q);
    CHECK_STR(run_idx(txn, f.P, &pr, f.p, 5), "0,4");
    TEARDOWN();
}

/* ------------------------------------------------------------------------ */
/* Randomized: predicates against a model                                   */
/* ------------------------------------------------------------------------ */

#define RN 300
static const char *const RSTR[] = {"", "a", "ab", "abc", "b", "ba", "B", "Ab", "aB"};
#define NRSTR 9

typedef struct robj {
    bool alive;
    uint64_t key;
    int64_t a;               /* int, never null */
    bool bnull;
    int64_t b;               /* optional int */
    int s;                   /* index into RSTR */
} robj;

typedef struct rnode {
    int kind;                /* ORC_OP_AND / OR / NOT / CMP */
    int nk;
    struct rnode *kid[3];
    int field, op, flags, nc;
    bool cnull[3];
    int64_t c[3];            /* ints, or RSTR indexes */
} rnode;

static rnode rpool[4096];
static int rpool_n;

static rnode *rgen(uint64_t *st, int depth)
{
    rnode *n = &rpool[rpool_n++];
    memset(n, 0, sizeof *n);
    int r = (int)(test_rand(st) % 10);
    if (depth > 0 && r < 4) {
        n->kind = r < 2 ? ORC_OP_AND : r == 2 ? ORC_OP_OR : ORC_OP_NOT;
        n->nk = n->kind == ORC_OP_NOT ? 1 : 1 + (int)(test_rand(st) % 3);
        for (int i = 0; i < n->nk; i++) n->kid[i] = rgen(st, depth - 1);
        return n;
    }
    n->kind = ORC_OP_CMP;
    n->field = (int)(test_rand(st) % 3);
    if (n->field < 2) {
        static const int ops[] = {ORC_CMP_EQ, ORC_CMP_NE, ORC_CMP_LT, ORC_CMP_LE, ORC_CMP_GT, ORC_CMP_GE, ORC_CMP_IN, ORC_CMP_BETWEEN};
        n->op = ops[test_rand(st) % 8];
        n->nc = n->op == ORC_CMP_IN ? (int)(test_rand(st) % 4) : n->op == ORC_CMP_BETWEEN ? 2 : 1;
        for (int i = 0; i < n->nc; i++) {
            n->c[i] = (int64_t)(test_rand(st) % 12) - 1;
            n->cnull[i] = n->field == 1 && n->op != ORC_CMP_BETWEEN && test_rand(st) % 6 == 0;
        }
    } else {
        static const int ops[] = {ORC_CMP_EQ, ORC_CMP_NE, ORC_CMP_LT, ORC_CMP_GE, ORC_CMP_BEGINS_WITH,
                                  ORC_CMP_ENDS_WITH, ORC_CMP_CONTAINS, ORC_CMP_IN};
        n->op = ops[test_rand(st) % 8];
        n->nc = n->op == ORC_CMP_IN ? (int)(test_rand(st) % 4) : 1;
        bool textop = n->op >= ORC_CMP_BEGINS_WITH && n->op <= ORC_CMP_CONTAINS;
        for (int i = 0; i < n->nc; i++) n->c[i] = textop ? 1 + (int)(test_rand(st) % (NRSTR - 1)) : (int)(test_rand(st) % NRSTR);
        if ((n->op == ORC_CMP_EQ || n->op == ORC_CMP_NE || textop) && test_rand(st) % 4 == 0)
            n->flags = ORC_CMP_CASE_INSENSITIVE;
    }
    return n;
}

static void remit(prog *p, const rnode *n, const uint16_t cols[3])
{
    if (n->kind != ORC_OP_CMP) {
        if (n->kind == ORC_OP_NOT) p_not(p);
        else if (n->kind == ORC_OP_AND) p_and(p, (uint32_t)n->nk);
        else p_or(p, (uint32_t)n->nk);
        for (int i = 0; i < n->nk; i++) remit(p, n->kid[i], cols);
        return;
    }
    orc_value v[3];
    for (int i = 0; i < n->nc; i++)
        v[i] = n->field == 2 ? vs(RSTR[n->c[i]]) : n->cnull[i] ? vn() : vi(n->c[i]);
    p_cmp(p, n->op, n->flags, 0);
    p_col(p, cols[n->field]);
    if (n->op == ORC_CMP_IN || n->op == ORC_CMP_BETWEEN) p_list(p, (uint32_t)n->nc, v);
    else p_const(p, v[0]);
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool s_eq(const char *x, const char *y, bool ci)
{
    if (strlen(x) != strlen(y)) return false;
    for (; *x; x++, y++)
        if (ci ? lower(*x) != lower(*y) : *x != *y) return false;
    return true;
}

static bool s_at(const char *s, size_t at, const char *p, bool ci)
{
    size_t pn = strlen(p);
    if (at + pn > strlen(s)) return false;
    for (size_t i = 0; i < pn; i++)
        if (ci ? lower(s[at + i]) != lower(p[i]) : s[at + i] != p[i]) return false;
    return true;
}

static bool m_int(int op, bool xnull, int64_t x, bool cnull, int64_t c)
{
    if (op == ORC_CMP_EQ) return cnull ? xnull : !xnull && x == c;
    if (op == ORC_CMP_NE) return !(cnull ? xnull : !xnull && x == c);
    if (xnull || cnull) return false;
    switch (op) {
    case ORC_CMP_LT: return x < c;
    case ORC_CMP_LE: return x <= c;
    case ORC_CMP_GT: return x > c;
    default: return x >= c;
    }
}

static bool m_str(int op, bool ci, const char *x, const char *c)
{
    switch (op) {
    case ORC_CMP_EQ: return s_eq(x, c, ci);
    case ORC_CMP_NE: return !s_eq(x, c, ci);
    case ORC_CMP_LT: return strcmp(x, c) < 0;
    case ORC_CMP_GE: return strcmp(x, c) >= 0;
    case ORC_CMP_BEGINS_WITH: return s_at(x, 0, c, ci);
    case ORC_CMP_ENDS_WITH: return strlen(x) >= strlen(c) && s_at(x, strlen(x) - strlen(c), c, ci);
    default:
        for (size_t i = 0; i + strlen(c) <= strlen(x); i++)
            if (s_at(x, i, c, ci)) return true;
        return false;
    }
}

static bool m_eval(const rnode *n, const robj *o)
{
    switch (n->kind) {
    case ORC_OP_AND:
        for (int i = 0; i < n->nk; i++)
            if (!m_eval(n->kid[i], o)) return false;
        return true;
    case ORC_OP_OR:
        for (int i = 0; i < n->nk; i++)
            if (m_eval(n->kid[i], o)) return true;
        return false;
    case ORC_OP_NOT:
        return !m_eval(n->kid[0], o);
    default:
        break;
    }
    if (n->field == 2) {
        const char *x = RSTR[o->s];
        if (n->op == ORC_CMP_IN) {
            for (int i = 0; i < n->nc; i++)
                if (s_eq(x, RSTR[n->c[i]], false)) return true;
            return false;
        }
        return m_str(n->op, n->flags != 0, x, RSTR[n->c[0]]);
    }
    bool xnull = n->field == 1 && o->bnull;
    int64_t x = n->field == 0 ? o->a : o->b;
    if (n->op == ORC_CMP_IN) {
        for (int i = 0; i < n->nc; i++)
            if (m_int(ORC_CMP_EQ, xnull, x, n->cnull[i], n->c[i])) return true;
        return false;
    }
    if (n->op == ORC_CMP_BETWEEN) return !xnull && x >= n->c[0] && x <= n->c[1];
    return m_int(n->op, xnull, x, n->cnull[0], n->c[0]);
}

static void rset(robj *o, uint64_t *st)
{
    o->a = (int64_t)(test_rand(st) % 10);
    o->bnull = test_rand(st) % 6 == 0;
    o->b = (int64_t)(test_rand(st) % 10);
    o->s = (int)(test_rand(st) % NRSTR);
}

static int rwrite(orc_txn *t, uint32_t T, const uint16_t cols[3], robj *o, bool create)
{
    orc_value vals[3] = {vi(o->a), o->bnull ? vn() : vi(o->b), vs(RSTR[o->s])};
    if (create) return orc_obj_create(t, T, cols, vals, 3, &o->key);
    return orc_obj_set_many(t, T, o->key, cols, vals, 3);
}

/* Runs `rounds` random predicates; returns how many used an index, or -1 after a failed check. */
static int rrounds(orc_txn *txn, uint32_t T, const uint16_t cols[3], const robj *objs, uint64_t *st, int rounds)
{
    int used = 0;
    prog p = {0};
    for (int r = 0; r < rounds; r++) {
        rpool_n = 0;
        rnode *root;
        if (test_rand(st) % 2) { /* a top-level AND, where the planner looks */
            root = &rpool[rpool_n++];
            memset(root, 0, sizeof *root);
            root->kind = ORC_OP_AND;
            root->nk = 1 + (int)(test_rand(st) % 3);
            for (int i = 0; i < root->nk; i++) root->kid[i] = rgen(st, i == 0 ? 0 : 2);
        } else {
            root = rgen(st, 3);
        }
        p.n = 0;
        remit(&p, root, cols);
        orc_query *q;
        orc_keys k = {0};
        uint64_t cnt;
        int rc = orc_query_compile(txn, T, p.b, p.n, &q);
        if (rc == ORC_OK) rc = orc_query_run(txn, q, &k);
        if (rc == ORC_OK) rc = orc_query_count(txn, q, &cnt);
        if (rc != ORC_OK) {
            test_fail(__FILE__, __LINE__, "round %d: %s", r, orc_last_error());
            free(p.b);
            return -1;
        }
        used += orc_query_used_index(q);
        orc_query_free(q);
        size_t j = 0, got = k.count;
        bool ok = cnt == k.count;
        for (int i = 0; ok && i < RN; i++) {
            if (!objs[i].alive || !m_eval(root, &objs[i])) continue;
            ok = j < k.count && k.keys[j] == objs[i].key;
            j++;
        }
        ok = ok && j == k.count;
        orc_keys_free(&k);
        if (!ok) {
            test_fail(__FILE__, __LINE__, "round %d: %zu results, the model has %zu", r, got, j);
            free(p.b);
            return -1;
        }
    }
    free(p.b);
    return used;
}

TEST(query_random)
{
    orc_env *env;
    orc_txn *t;
    uint32_t T;
    uint16_t cols[3];
    static robj objs[RN];
    uint64_t st = test_seed();
    CHECK_OK(test_open_writing(test_path("random.realm"), &env, &t));
    CHECK_OK(orc_class_add(t, "R", ORC_CLASS_TOP_LEVEL, &T));
    CHECK_OK(add_prop(t, T, "a", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &cols[0]));
    CHECK_OK(add_prop(t, T, "b", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0, &cols[1]));
    CHECK_OK(add_prop(t, T, "s", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &cols[2]));
    for (int i = 0; i < RN; i++) {
        objs[i].alive = true;
        rset(&objs[i], &st);
        CHECK_OK(rwrite(t, T, cols, &objs[i], true));
    }
    CHECK_OK(orc_txn_commit(t, NULL));

    /* without indexes */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &t));
    int used = rrounds(t, T, cols, objs, &st, 200);
    orc_txn_abort(t);
    CHECK(used == 0);

    /* with indexes on every property, after some updates and erasures */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &t));
    for (int c = 0; c < 3; c++) CHECK_OK(orc_prop_set_indexed(t, T, cols[c], true));
    for (int i = 0; i < 40; i++) {
        robj *o = &objs[test_rand(&st) % RN];
        if (!o->alive) continue;
        if (i % 3 == 0) {
            CHECK_OK(orc_obj_erase(t, T, o->key));
            o->alive = false;
        } else {
            rset(o, &st);
            CHECK_OK(rwrite(t, T, cols, o, false));
        }
    }
    used = rrounds(t, T, cols, objs, &st, 100); /* inside the write transaction */
    CHECK(used > 0);
    CHECK_OK(orc_txn_commit(t, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &t));
    used = rrounds(t, T, cols, objs, &st, 200);
    orc_txn_abort(t);
    CHECK(used > 0);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* ------------------------------------------------------------------------ */
/* A larger table: the scan and count paths                                 */
/* ------------------------------------------------------------------------ */

TEST(query_count_large)
{
    orc_env *env;
    orc_txn *t;
    uint32_t T;
    uint16_t c;
    prog pr = {0};
    const int N = 24000; /* 200 cycles of 0 ... 119 */
    CHECK_OK(test_open_writing(test_path("large.realm"), &env, &t));
    CHECK_OK(orc_class_add(t, "Task", ORC_CLASS_TOP_LEVEL, &T));
    CHECK_OK(add_prop(t, T, "progressMinutes", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &c));
    for (int i = 0; i < N; i++) {
        orc_value v = vi(i % 120);
        CHECK_OK(orc_obj_create(t, T, &c, &v, 1, NULL));
    }
    CHECK_OK(orc_txn_commit(t, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &t));
    orc_query *q;
    uint64_t n;
    orc_value v;
    cmpc(&pr, ORC_CMP_GE, 0, c, vi(60));
    CHECK_OK(orc_query_compile(t, T, pr.b, pr.n, &q));
    CHECK_OK(orc_query_count(t, q, &n));
    CHECK_EQ(n, N / 2);
    CHECK(!orc_query_used_index(q));
    CHECK_OK(orc_query_aggregate(t, q, c, ORC_AGG_SUM, &v));
    CHECK(v.type == ORC_TYPE_INT && v.integer == (int64_t)(N / 120) * (60 + 119) * 60 / 2);
    orc_query_free(q);
    p_limit(&pr, 7);
    CHECK_OK(orc_query_compile(t, T, pr.b, pr.n, &q));
    CHECK_OK(orc_query_count(t, q, &n));
    CHECK_EQ(n, 7);
    orc_keys k = {0};
    CHECK_OK(orc_query_run(t, q, &k));
    CHECK_EQ(k.count, 7);
    orc_keys_free(&k);
    orc_query_free(q);
    pr.n = 0;
    p_u8(&pr, ORC_OP_TRUE);
    CHECK_OK(orc_query_compile(t, T, pr.b, pr.n, &q));
    CHECK_OK(orc_query_count(t, q, &n));
    CHECK_EQ(n, N);
    orc_query_free(q);
    orc_txn_abort(t);
    orc_env_close(env);
    free(pr.b);
}

/*
 * The scan's int probe (query_eval.c) against a plain evaluation, on every
 * comparison and the constants at and next to the ends of int64: the values
 * include both ends, nulls (the general way) and objects from before a second
 * int column was added (their rows hold fewer columns: the general way too).
 */
TEST(query_int_scan_extremes)
{
    orc_env *env;
    orc_txn *t;
    uint32_t T;
    uint16_t a, b;
    prog pr = {0};
    const int64_t vals[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, 60, INT64_MAX - 1, INT64_MAX};
    const int NV = (int)(sizeof vals / sizeof vals[0]);
    CHECK_OK(test_open_writing(test_path("extremes.realm"), &env, &t));
    CHECK_OK(orc_class_add(t, "R", ORC_CLASS_TOP_LEVEL, &T));
    CHECK_OK(add_prop(t, T, "a", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0, &a));
    /* rows of one column: b is added after them */
    for (int i = 0; i < NV; i++) {
        orc_value v = vi(vals[i]);
        CHECK_OK(orc_obj_create(t, T, &a, &v, 1, NULL));
    }
    CHECK_OK(add_prop(t, T, "b", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0, &b));
    for (int i = 0; i <= NV; i++) {
        orc_value v[2] = {i < NV ? vi(vals[i]) : vn(), i < NV ? vi(vals[NV - 1 - i]) : vn()};
        uint16_t cols[2] = {a, b};
        CHECK_OK(orc_obj_create(t, T, cols, v, 2, NULL));
    }
    CHECK_OK(orc_txn_commit(t, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &t));
    const int ops[] = {ORC_CMP_EQ, ORC_CMP_NE, ORC_CMP_LT, ORC_CMP_LE, ORC_CMP_GT, ORC_CMP_GE};
    for (int oi = 0; oi < 6; oi++)
        for (int ci = 0; ci < NV; ci++) {
            int64_t c = vals[ci];
            /* expected: column a holds vals twice plus one null; b holds vals once, then
             * nulls (the NV old rows read b as null, and the last row's b is null) */
            uint64_t want_a = 0, want_b = 0;
            for (int i = 0; i < NV; i++) {
                int64_t x = vals[i];
                bool m = ops[oi] == ORC_CMP_EQ ? x == c : ops[oi] == ORC_CMP_NE ? x != c : ops[oi] == ORC_CMP_LT ? x < c
                       : ops[oi] == ORC_CMP_LE ? x <= c : ops[oi] == ORC_CMP_GT ? x > c : x >= c;
                want_a += m ? 2 : 0;
                want_b += m ? 1 : 0;
            }
            /* null != any int; null matches no ordering */
            if (ops[oi] == ORC_CMP_NE) {
                want_a += 1;
                want_b += (uint64_t)NV + 1;
            }
            for (int col = 0; col < 2; col++) {
                orc_query *q;
                uint64_t n;
                orc_keys k = {0};
                pr.n = 0;
                cmpc(&pr, ops[oi], 0, col ? b : a, vi(c));
                CHECK_OK(orc_query_compile(t, T, pr.b, pr.n, &q));
                CHECK_OK(orc_query_count(t, q, &n));
                CHECK_OK(orc_query_run(t, q, &k));
                if (n != (col ? want_b : want_a) || k.count != n)
                    test_fail(__FILE__, __LINE__, "op %d constant %lld column %c: count %llu, run %zu, want %llu",
                              ops[oi], (long long)c, col ? 'b' : 'a', (unsigned long long)n, k.count,
                              (unsigned long long)(col ? want_b : want_a));
                orc_keys_free(&k);
                orc_query_free(q);
            }
        }
    orc_txn_abort(t);
    orc_env_close(env);
    free(pr.b);
}
