/*
 * test_damaged.c — damaged, truncated and foreign files (group `damaged`).
 *
 * The promise under test: no file, however damaged, crashes ORCore. A
 * foreign file is ORC_ERR_NOT_A_REALM, a damaged or truncated realm is
 * ORC_ERR_CORRUPT (with a message naming what is wrong), and a file whose
 * damage verification cannot see (a flipped byte inside a value) still opens
 * and reads without a crash. Run the group under ORC_SANITIZE=ON to turn any
 * wild read into a failure.
 *
 * One realm is built through the public API (several classes, thousands of
 * objects, lists, values on overflow pages, erased objects that leave free
 * pages) and kept for the whole run; every test damages a copy of it, always
 * while no environment has the file open (LMDB opens a file once per process).
 *
 * Most tests go through orc_env_open; the *_verify_* tests call verify_pages
 * (verify.h) directly on the same damaged files. Knowing the LMDB 0.9 layout
 * (see verify.c) lets the targeted tests damage exactly one structure.
 */
#include "harness.h"
#include "object.h"
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_MSG(needle)                                                           \
    do {                                                                            \
        if (!strstr(orc_last_error(), (needle))) {                                  \
            test_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"",            \
                      orc_last_error(), (needle));                                  \
            return;                                                                 \
        }                                                                           \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The realm every test damages                                             */
/* ------------------------------------------------------------------------ */

enum { PERSONS = 3000, ERASED = 200, NOTES = 1500, NOTES_LAST = 100, BLOBS = 30 };

typedef struct fixture {
    char path[600];
    uint64_t version;      /* the last commit */
    uint64_t notes_before; /* Note objects before the last commit */
    uint64_t notes_after;
} fixture;

static fixture fx;

static orc_value v_dbl(double d) { return (orc_value){.type = ORC_TYPE_DOUBLE, .dnum = d}; }

static bool add_prop(orc_txn *w, uint32_t table, const char *name, orc_type type, orc_collection coll,
                     uint32_t flags, uint32_t link, uint16_t *col)
{
    orc_prop_spec spec = {.name = name, .type = type, .collection = coll, .flags = flags, .link_table = link};
    HOK(orc_prop_add(w, table, &spec, col));
    return true;
}

/*
 * Person {id: int pk, name: string indexed, age: int, bio: string (every 50th
 * over 3 KB: overflow pages), friends: [Person]}; Note {text, score: double,
 * tags: [string]}; Blob {data: binary, 8 ... 40 KB}. Eight commits; the
 * seventh erases objects (free pages), the eighth adds Notes.
 */
static bool build_fixture(void)
{
    if (fx.version) return true;
    snprintf(fx.path, sizeof fx.path, "%s", test_path("damaged-base.realm"));
    orc_env *env;
    orc_txn *w;
    uint32_t person, note, blob;
    uint16_t p_id, p_name, p_age, p_bio, p_friends, n_text, n_score, n_tags, b_data;
    HOK(orc_env_open(fx.path, ORC_ENV_NO_SYNC, NULL, &env));

    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    HOK(orc_class_add(w, "Person", ORC_CLASS_TOP_LEVEL, &person));
    HOK(orc_class_add(w, "Note", ORC_CLASS_TOP_LEVEL, &note));
    HOK(orc_class_add(w, "Blob", ORC_CLASS_TOP_LEVEL, &blob));
    if (!add_prop(w, person, "id", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0, &p_id) ||
        !add_prop(w, person, "name", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0, &p_name) ||
        !add_prop(w, person, "age", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0, &p_age) ||
        !add_prop(w, person, "bio", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0, &p_bio) ||
        !add_prop(w, person, "friends", ORC_TYPE_LINK, ORC_COLL_LIST, 0, person, &p_friends) ||
        !add_prop(w, note, "text", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &n_text) ||
        !add_prop(w, note, "score", ORC_TYPE_DOUBLE, ORC_COLL_NONE, 0, 0, &n_score) ||
        !add_prop(w, note, "tags", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0, &n_tags) ||
        !add_prop(w, blob, "data", ORC_TYPE_BINARY, ORC_COLL_NONE, 0, 0, &b_data))
        return false;
    HOK(orc_txn_commit(w, NULL));

    static char bio[3200];
    for (size_t i = 0; i < sizeof bio; i++) bio[i] = (char)('a' + i % 26);
    uint64_t keys[PERSONS];
    for (int batch = 0; batch < 3; batch++) {
        HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int i = batch * 1000; i < (batch + 1) * 1000; i++) {
            char name[32];
            int nl = snprintf(name, sizeof name, "person-%05d", (i * 7919) % PERSONS);
            uint16_t cols[4] = {p_id, p_name, p_age, p_bio};
            orc_value vals[4] = {v_int(i), v_strn(name, (size_t)nl), v_int(i % 90),
                                 v_strn(bio, i % 50 == 0 ? sizeof bio : (size_t)(i % 200))};
            HOK(orc_obj_create(w, person, cols, vals, 4, &keys[i]));
        }
        HOK(orc_txn_commit(w, NULL));
    }

    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < NOTES; i++) {
        char text[64];
        int tl = snprintf(text, sizeof text, "note %d about nothing in particular", i);
        uint16_t cols[2] = {n_text, n_score};
        orc_value vals[2] = {v_strn(text, (size_t)tl), v_dbl(i * 0.5)};
        uint64_t k;
        HOK(orc_obj_create(w, note, cols, vals, 2, &k));
        for (int t = 0; t < i % 4; t++) {
            orc_value tag = v_strn("tag", 3);
            HOK(orc_list_insert(w, note, k, n_tags, (size_t)t, &tag));
        }
    }
    HOK(orc_txn_commit(w, NULL));

    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    uint64_t rnd = 12345;
    static uint8_t data[40 * 1024];
    for (int i = 0; i < BLOBS; i++) {
        size_t n = 8 * 1024 + (size_t)(test_rand(&rnd) % (32 * 1024));
        for (size_t j = 0; j < n; j++) data[j] = (uint8_t)test_rand(&rnd);
        orc_value v = v_bin(data, n);
        uint64_t k;
        HOK(orc_obj_create(w, blob, &b_data, &v, 1, &k));
    }
    HOK(orc_txn_commit(w, NULL));

    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < ERASED; i++) HOK(orc_obj_erase(w, person, keys[i * 7]));
    for (int i = 1; i < PERSONS; i += 13) {
        if (i % 7 == 0) continue;
        orc_value link = {.type = ORC_TYPE_LINK, .link = {person, keys[(i + 1) % 7 ? i + 1 : i + 2]}};
        if ((i + 2) < PERSONS) HOK(orc_list_insert(w, person, keys[i], p_friends, 0, &link));
    }
    HOK(orc_txn_commit(w, NULL));
    fx.notes_before = NOTES;

    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < NOTES_LAST; i++) {
        orc_value t = v_strn("late note", 9);
        uint64_t k;
        HOK(orc_obj_create(w, note, &n_text, &t, 1, &k));
    }
    HOK(orc_txn_commit(w, &fx.version));
    fx.notes_after = NOTES + NOTES_LAST;
    HOK(orc_env_check(env, NULL));
    orc_env_close(env);
    return true;
}

/* ------------------------------------------------------------------------ */
/* File surgery                                                             */
/* ------------------------------------------------------------------------ */

static bool copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) HFAIL("copy %s -> %s: %s", src, dst, strerror(errno));
    static uint8_t buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) HFAIL("copy: %s", strerror(errno));
    close(in);
    close(out);
    return n == 0;
}

/* A fresh copy of the fixture. */
static const char *fresh_copy(const char *name)
{
    if (!build_fixture()) return NULL;
    const char *p = test_path(name);
    return copy_file(fx.path, p) ? p : NULL;
}

static bool write_at(const char *path, uint64_t off, const void *p, size_t n)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || pwrite(fd, p, n, (off_t)off) != (ssize_t)n) HFAIL("write %s: %s", path, strerror(errno));
    close(fd);
    return true;
}

static bool read_at(const char *path, uint64_t off, void *p, size_t n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || pread(fd, p, n, (off_t)off) != (ssize_t)n) HFAIL("read %s: %s", path, strerror(errno));
    close(fd);
    return true;
}

static bool zero_at(const char *path, uint64_t off, size_t n)
{
    uint8_t *z = calloc(1, n);
    bool ok = z && write_at(path, off, z, n);
    free(z);
    return ok;
}

static bool write_file(const char *path, const void *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, p, n) != (ssize_t)n) HFAIL("write %s: %s", path, strerror(errno));
    close(fd);
    return true;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Fields of a meta page (offsets from verify.c's layout table). */
typedef struct meta_info {
    uint32_t psize;
    uint64_t txnid[2], last_pg, main_root, free_root;
    uint16_t main_depth;
} meta_info;

enum { M_PSIZE = 40, M_FREE_ROOT = 80, M_MAIN_DEPTH = 94, M_MAIN_ROOT = 128, M_LAST_PG = 136, M_TXNID = 144 };

static bool read_meta(const char *path, meta_info *mi)
{
    uint8_t a[152], b[152];
    if (!read_at(path, 0, a, sizeof a)) return false;
    mi->psize = ld32(a + M_PSIZE);
    if (!read_at(path, mi->psize, b, sizeof b)) return false;
    mi->txnid[0] = ld64(a + M_TXNID);
    mi->txnid[1] = ld64(b + M_TXNID);
    const uint8_t *m = mi->txnid[1] > mi->txnid[0] ? b : a;
    mi->last_pg = ld64(m + M_LAST_PG);
    mi->main_root = ld64(m + M_MAIN_ROOT);
    mi->free_root = ld64(m + M_FREE_ROOT);
    mi->main_depth = ld16(m + M_MAIN_DEPTH);
    return true;
}

static int newer_slot(const meta_info *mi) { return mi->txnid[1] > mi->txnid[0]; }

/* verify_pages on a path, as env.c calls it. */
static int verify_file(const char *path, bool deep)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno;
    int rc = verify_pages(path, fd, deep);
    close(fd);
    return rc;
}

/* Opens and closes; returns the open status. */
static int try_open(const char *path, unsigned flags)
{
    orc_env *env = NULL;
    int rc = orc_env_open(path, flags, NULL, &env);
    if (rc == ORC_OK) orc_env_close(env);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Reading everything (must not crash, whatever it returns)                 */
/* ------------------------------------------------------------------------ */

static void read_everything(orc_env *env)
{
    orc_txn *r;
    if (orc_txn_begin(env, ORC_TXN_READ, &r) != ORC_OK) return;
    uint32_t nclasses = orc_schema_class_count(r);
    for (uint32_t c = 0; c < nclasses; c++) {
        orc_class_info ci;
        if (orc_schema_class_at(r, c, &ci) != ORC_OK) continue;
        orc_keys keys = {0};
        if (orc_table_keys(r, ci.table, &keys) != ORC_OK) {
            orc_keys_free(&keys);
            continue;
        }
        uint64_t count;
        (void)orc_table_count(r, ci.table, &count);
        for (size_t k = 0; k < keys.count; k++) {
            for (uint32_t p = 0; p < ci.prop_count; p++) {
                orc_prop_info pi;
                if (orc_schema_prop_at(r, ci.table, p, &pi) != ORC_OK) continue;
                orc_value v;
                if (pi.collection == ORC_COLL_NONE) {
                    if (orc_obj_get(r, ci.table, keys.keys[k], pi.col, &v) == ORC_OK &&
                        (v.type == ORC_TYPE_STRING || v.type == ORC_TYPE_BINARY)) {
                        volatile uint8_t sink = 0;
                        for (size_t i = 0; i < v.string.size; i++) sink ^= (uint8_t)v.string.data[i];
                        (void)sink;
                    }
                    continue;
                }
                size_t n = 0;
                if (orc_coll_size(r, ci.table, keys.keys[k], pi.col, &n) != ORC_OK) continue;
                for (size_t i = 0; i < n && i < 1000; i++) (void)orc_coll_get(r, ci.table, keys.keys[k], pi.col, i, &v);
            }
            uint64_t bl;
            (void)orc_obj_backlink_count(r, ci.table, keys.keys[k], &bl);
        }
        orc_keys_free(&keys);
        /* A whole-table query and an index lookup (when the class has one). */
        static const uint8_t all[] = {ORC_OP_TRUE};
        orc_query *q;
        if (orc_query_compile(r, ci.table, all, sizeof all, &q) == ORC_OK) {
            orc_keys out = {0};
            (void)orc_query_run(r, q, &out);
            orc_keys_free(&out);
            orc_query_free(q);
        }
    }
    uint64_t first = orc_log_first_version(r), last = orc_txn_version(r);
    for (uint64_t ver = first ? first : 1; ver <= last && ver < first + 64; ver++) {
        const void *data;
        size_t size;
        if (orc_log_get(r, ver, &data, &size) != ORC_OK) continue;
        orc_changeset_iter it = {0};
        orc_instr in;
        if (orc_changeset_iter_init(&it, data, size) != ORC_OK) continue;
        for (int i = 0; i < 100000 && orc_changeset_iter_next(&it, &in) == ORC_OK; i++) {
        }
    }
    orc_txn_abort(r);
}

static bool note_count(orc_env *env, uint64_t *out)
{
    orc_txn *r;
    orc_class_info ci;
    HOK(orc_txn_begin(env, ORC_TXN_READ, &r));
    int rc = orc_schema_class_find(r, "Note", &ci);
    if (!rc) rc = orc_table_count(r, ci.table, out);
    orc_txn_abort(r);
    HOK(rc);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The intact realm                                                         */
/* ------------------------------------------------------------------------ */

TEST(damaged_intact_realm_passes_every_check)
{
    CHECK(build_fixture());
    const char *p = fresh_copy("intact.realm");
    CHECK(p);
    CHECK_OK(verify_file(p, false));
    CHECK_OK(verify_file(p, true));
    orc_env *env;
    CHECK_OK(orc_env_open(p, ORC_ENV_VERIFY, NULL, &env));
    uint64_t version, notes;
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, fx.version);
    CHECK(note_count(env, &notes));
    CHECK_EQ(notes, fx.notes_after);
    CHECK_ENV(env);
    orc_env_close(env);
    CHECK_OK(try_open(p, ORC_ENV_READ_ONLY | ORC_ENV_VERIFY));
}

/* ------------------------------------------------------------------------ */
/* Truncation                                                               */
/* ------------------------------------------------------------------------ */

TEST(damaged_truncated_to_zero_opens_as_new_realm)
{
    const char *p = fresh_copy("zero-length.realm");
    CHECK(p);
    CHECK(truncate(p, 0) == 0);
    CHECK_OK(verify_file(p, true)); /* an empty file is a new file */
    orc_env *env;
    CHECK_OK(orc_env_open(p, 0, NULL, &env));
    uint64_t version;
    CHECK_OK(orc_env_version(env, &version));
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_schema_class_count(r), 0);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
    CHECK_EQ(version, 0); /* nothing of the old realm survives */
}

TEST(damaged_truncated_to_zero_read_only_fails_cleanly)
{
    const char *p = fresh_copy("zero-length-ro.realm");
    CHECK(p);
    CHECK(truncate(p, 0) == 0);
    int rc = try_open(p, ORC_ENV_READ_ONLY);
    /* Nothing to read, and a read-only handle may not create: an error, and the file is left as it was. */
    CHECK(rc != ORC_OK);
    CHECK(strlen(orc_last_error()) > 0);
    CHECK_EQ(file_size(p), 0);
}

TEST(damaged_truncated_to_half)
{
    const char *p = fresh_copy("half.realm");
    CHECK(p);
    CHECK(truncate(p, (off_t)(file_size(p) / 2)) == 0);
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("truncated: file has");
    CHECK_RC(verify_file(p, true), ORC_ERR_CORRUPT);
    CHECK_RC(try_open(p, 0), ORC_ERR_CORRUPT);
    CHECK_MSG("truncated");
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY), ORC_ERR_CORRUPT);
    CHECK_RC(try_open(p, ORC_ENV_VERIFY), ORC_ERR_CORRUPT);
    CHECK_MSG("truncated: file has");
}

TEST(damaged_truncated_to_one_page)
{
    const char *p = fresh_copy("one-page.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    CHECK(truncate(p, mi.psize) == 0);
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("shorter than its two");
    CHECK_RC(try_open(p, 0), ORC_ERR_CORRUPT);
    CHECK_MSG("truncated");
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY), ORC_ERR_CORRUPT);
}

TEST(damaged_truncated_at_many_lengths)
{
    CHECK(build_fixture());
    uint64_t full = file_size(fx.path);
    meta_info mi;
    CHECK(read_meta(fx.path, &mi));
    /* Past two pages, every cut falls inside a page in use (a cut inside free pages at the end is valid). */
    const uint64_t lengths[] = {1,   10,   20,   100,  151,  152,  1000,  mi.psize - 1, mi.psize + 1, 2 * mi.psize - 1,
                                2 * mi.psize, full / 3, mi.main_root * mi.psize + 1,
                                mi.free_root * mi.psize + mi.psize / 2, (mi.main_root + 1) * mi.psize - 1};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        const char *p = fresh_copy("cut.realm");
        CHECK(p);
        CHECK(truncate(p, (off_t)lengths[i]) == 0);
        int rc = try_open(p, 0);
        /* The first bytes of an LMDB file are zeros (page number 0): a tiny prefix is "only zeros". */
        int want = lengths[i] < 20 ? ORC_ERR_NOT_A_REALM : ORC_ERR_CORRUPT;
        if (rc != want) {
            test_fail(__FILE__, __LINE__, "length %llu: %s, want %s (%s)", (unsigned long long)lengths[i],
                      orc_strerror(rc), orc_strerror(want), orc_last_error());
            return;
        }
        CHECK_RC(verify_file(p, true), want);
    }
}

/* ------------------------------------------------------------------------ */
/* Meta pages                                                               */
/* ------------------------------------------------------------------------ */

TEST(damaged_both_meta_pages_zeroed)
{
    const char *p = fresh_copy("no-metas.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    CHECK(zero_at(p, 0, 2 * mi.psize));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_RC(verify_file(p, true), ORC_ERR_CORRUPT);
    CHECK_RC(try_open(p, 0), ORC_ERR_CORRUPT); /* its data pages show it was an LMDB file */
    CHECK_MSG("both meta pages are damaged");
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY | ORC_ENV_VERIFY), ORC_ERR_CORRUPT);
}

/*
 * One meta page zeroed: the realm opens from the other one — at the last
 * commit when the older meta was lost, at the one before when the newer was.
 */
static void one_meta_zeroed(bool newer)
{
    const char *p = fresh_copy(newer ? "newer-meta.realm" : "older-meta.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    int slot = newer ? newer_slot(&mi) : !newer_slot(&mi);
    CHECK(zero_at(p, (uint64_t)slot * mi.psize, mi.psize));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("is intact");

    orc_env *env;
    CHECK_OK(orc_env_open(p, 0, NULL, &env));
    uint64_t version, notes;
    CHECK_OK(orc_env_version(env, &version));
    CHECK(note_count(env, &notes));
    CHECK_EQ(version, newer ? fx.version - 1 : fx.version);
    CHECK_EQ(notes, newer ? fx.notes_before : fx.notes_after);
    CHECK_ENV(env);
    /* The realm is fully usable again: commit, reopen, verify. */
    orc_txn *w;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_set(w, "after.repair", "yes", 3));
    CHECK_OK(orc_txn_commit(w, &version));
    orc_env_close(env);
    CHECK_OK(verify_file(p, true));
    CHECK_OK(orc_env_open(p, ORC_ENV_VERIFY, NULL, &env));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(damaged_older_meta_zeroed_opens_at_last_commit) { one_meta_zeroed(false); }
TEST(damaged_newer_meta_zeroed_opens_at_previous_commit) { one_meta_zeroed(true); }

TEST(damaged_one_meta_zeroed_read_only_is_corrupt)
{
    /* A read-only handle may not repair: it reports the damage. */
    const char *p = fresh_copy("meta-ro.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    CHECK(zero_at(p, mi.psize, mi.psize));
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY), ORC_ERR_CORRUPT);
    CHECK_MSG("meta page 1 is damaged");
}

/* Damaged fields of the newer meta page are meta damage too: the older one takes over. */
TEST(damaged_newer_meta_fields)
{
    struct {
        unsigned off;
        uint64_t value;
        unsigned size;
        const char *what;
    } cases[] = {
        {M_MAIN_ROOT, 1u << 30, 8, "root page"},  {M_LAST_PG, 1ull << 40, 8, "last page"},
        {M_MAIN_DEPTH, 0, 2, "depth"},             {M_PSIZE, 3000, 4, "page size"},
        {M_TXNID, 1ull << 41, 8, "txnid"},         {16, 0x12345678, 4, "magic"},
        {M_FREE_ROOT, 1, 8, "root page"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = fresh_copy("meta-field.realm");
        CHECK(p);
        meta_info mi;
        CHECK(read_meta(p, &mi));
        uint64_t at = (uint64_t)newer_slot(&mi) * mi.psize + cases[i].off, value = cases[i].value;
        if (cases[i].off == M_TXNID) value |= (uint64_t)!newer_slot(&mi); /* a txnid LMDB never puts in this slot */
        CHECK(write_at(p, at, &value, cases[i].size));
        int rc = verify_file(p, false);
        if (rc != ORC_ERR_CORRUPT || !strstr(orc_last_error(), "damaged")) {
            test_fail(__FILE__, __LINE__, "case %zu (%s): %s (%s)", i, cases[i].what, orc_strerror(rc),
                      orc_last_error());
            return;
        }
        orc_env *env;
        CHECK_OK(orc_env_open(p, ORC_ENV_VERIFY, NULL, &env));
        uint64_t version;
        CHECK_OK(orc_env_version(env, &version));
        CHECK_EQ(version, fx.version - 1);
        CHECK_ENV(env);
        orc_env_close(env);
    }
}

/*
 * Meta page 0's page size damaged to another power of two: LMDB would look for
 * meta page 1 at the wrong offset. Meta page 1, found at its own offset,
 * shows which page size is right, so meta page 0 is the damaged one and is
 * rewritten from meta page 1; the page where meta page 0 said meta page 1 was
 * is a data page and stays as it is.
 */
TEST(damaged_meta0_page_size_repaired_from_meta1)
{
    const char *p = fresh_copy("meta0-psize.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    uint32_t wrong = mi.psize * 4;
    uint8_t data_before[64], data_after[64];
    CHECK(read_at(p, wrong, data_before, sizeof data_before));
    CHECK(write_at(p, M_PSIZE, &wrong, 4));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT); /* a read-only descriptor reports it */
    CHECK_MSG("meta page 0 is damaged (its page size");
    CHECK_MSG("is intact");

    orc_env *env;
    CHECK_OK(orc_env_open(p, ORC_ENV_VERIFY, NULL, &env));
    uint64_t version;
    CHECK_OK(orc_env_version(env, &version));
    /* Meta page 1 holds the last commit when its txnid is the newer one. */
    CHECK_EQ(version, newer_slot(&mi) == 1 ? fx.version : fx.version - 1);
    CHECK_ENV(env);
    orc_env_close(env);
    CHECK(read_at(p, wrong, data_after, sizeof data_after));
    CHECK(memcmp(data_before, data_after, sizeof data_before) == 0);
    meta_info now;
    CHECK(read_meta(p, &now));
    CHECK_EQ(now.psize, mi.psize);
    CHECK_OK(verify_file(p, true));
}

/* ------------------------------------------------------------------------ */
/* Foreign files                                                            */
/* ------------------------------------------------------------------------ */

static void foreign(const char *name, const void *bytes, size_t n)
{
    const char *p = test_path(name);
    CHECK(write_file(p, bytes, n));
    CHECK_RC(try_open(p, 0), ORC_ERR_NOT_A_REALM);
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY), ORC_ERR_NOT_A_REALM);
    CHECK_RC(try_open(p, ORC_ENV_VERIFY), ORC_ERR_NOT_A_REALM);
    CHECK_RC(verify_file(p, false), ORC_ERR_NOT_A_REALM);
    CHECK_EQ(file_size(p), n); /* never modified */
}

TEST(damaged_text_file_is_not_a_realm)
{
    char text[10000];
    size_t n = 0;
    while (n + 40 < sizeof text) n += (size_t)snprintf(text + n, sizeof text - n, "line %zu of a plain text file\n", n);
    foreign("text.realm", text, n);
    CHECK_MSG("text");
    foreign("short-text.realm", "hello\n", 6);
}

TEST(damaged_random_bytes_are_not_a_realm)
{
    uint64_t seed = test_seed();
    static uint8_t buf[64 * 1024];
    const size_t sizes[] = {1, 7, 100, 4096, 8192, 12345, sizeof buf};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t i = 0; i < sizes[s]; i++) buf[i] = (uint8_t)test_rand(&seed);
        buf[0] |= 1; /* not a run of zeros */
        buf[0] |= 0x80; /* and not text */
        foreign("random.realm", buf, sizes[s]);
    }
}

TEST(damaged_sqlite_file_is_not_a_realm)
{
    static uint8_t db[8192];
    memcpy(db, "SQLite format 3", 16);
    db[16] = 0x10; /* page size 4096, as SQLite writes it */
    db[18] = db[19] = 1;
    foreign("sqlite.realm", db, sizeof db);
    CHECK_MSG("SQLite");
}

TEST(damaged_zero_bytes_are_not_a_realm)
{
    static uint8_t zeros[3 * 4096 + 17];
    foreign("zeros.realm", zeros, sizeof zeros);
    CHECK_MSG("zero bytes");
    foreign("zero-byte.realm", zeros, 1);
}

TEST(damaged_lmdb_file_without_realm_metadata)
{
    /* A valid LMDB file written by raw LMDB calls: verification passes, env.c says it is no realm. */
    const char *p = test_path("raw.mdb");
    MDB_env *e;
    MDB_txn *t;
    MDB_dbi d;
    CHECK(mdb_env_create(&e) == 0);
    CHECK(mdb_env_set_maxdbs(e, 4) == 0);
    CHECK(mdb_env_open(e, p, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_dbi_open(t, NULL, 0, &d) == 0);
    for (int i = 0; i < 500; i++) {
        char k[32];
        MDB_val key = {(size_t)snprintf(k, sizeof k, "key%05d", i), k}, val = {5, "value"};
        CHECK(mdb_put(t, d, &key, &val, 0) == 0);
    }
    CHECK(mdb_txn_commit(t) == 0);
    mdb_env_close(e);
    CHECK_OK(verify_file(p, true));
    CHECK_RC(try_open(p, 0), ORC_ERR_NOT_A_REALM);
    CHECK_RC(try_open(p, ORC_ENV_READ_ONLY), ORC_ERR_NOT_A_REALM);

    /* Named databases, none of them ORCore's. */
    const char *q = test_path("raw-named.mdb");
    CHECK(mdb_env_create(&e) == 0);
    CHECK(mdb_env_set_maxdbs(e, 4) == 0);
    CHECK(mdb_env_open(e, q, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_dbi_open(t, "things", MDB_CREATE, &d) == 0);
    MDB_val key = {3, "abc"}, val = {3, "def"};
    CHECK(mdb_put(t, d, &key, &val, 0) == 0);
    CHECK(mdb_txn_commit(t) == 0);
    mdb_env_close(e);
    CHECK_OK(verify_file(q, true));
    CHECK_RC(try_open(q, 0), ORC_ERR_NOT_A_REALM);
}

/* ------------------------------------------------------------------------ */
/* Damaged pages                                                            */
/* ------------------------------------------------------------------------ */

/* Flips a bit in page `pg`: in its header, a node header, the offset array or anywhere. */
static bool flip_in_page(const char *path, const meta_info *mi, uint64_t pg, uint64_t *rnd)
{
    uint8_t *page = malloc(mi->psize);
    if (!page) HFAIL("out of memory");
    if (!read_at(path, pg * mi->psize, page, mi->psize)) {
        free(page);
        return false;
    }
    unsigned lower = ld16(page + 12), off = (unsigned)(test_rand(rnd) % mi->psize);
    bool node_page = (ld16(page + 10) == 0x01 || ld16(page + 10) == 0x02) && lower > 16 && lower <= mi->psize;
    switch (test_rand(rnd) % 4) {
    case 0: off = (unsigned)(test_rand(rnd) % 16); break;
    case 1:
        if (node_page) {
            unsigned i = (unsigned)(test_rand(rnd) % ((lower - 16) / 2)), at = ld16(page + 16 + 2 * i);
            if (at + 8 <= mi->psize) off = at + (unsigned)(test_rand(rnd) % 8);
        }
        break;
    case 2:
        if (node_page) off = 16 + (unsigned)(test_rand(rnd) % (lower - 16));
        break;
    default: break;
    }
    uint8_t b = page[off] ^ (uint8_t)(1u << (test_rand(rnd) % 8));
    free(page);
    return write_at(path, pg * mi->psize + off, &b, 1);
}

TEST(damaged_flipped_bits_never_crash)
{
    CHECK(build_fixture());
    uint64_t rnd = test_seed();
    int opened = 0, corrupt = 0, other = 0;
    for (int round = 0; round < 60; round++) {
        const char *p = fresh_copy("flipped.realm");
        CHECK(p);
        meta_info mi;
        CHECK(read_meta(p, &mi));
        int flips = 1 + (int)(test_rand(&rnd) % 4);
        for (int f = 0; f < flips; f++) {
            /* Half the flips land in the two trees every open reads first. */
            uint64_t pg = test_rand(&rnd) % 2 ? 2 + test_rand(&rnd) % (mi.last_pg - 1)
                                              : (test_rand(&rnd) % 2 ? mi.main_root : mi.free_root);
            CHECK(flip_in_page(p, &mi, pg, &rnd));
        }
        int vrc = verify_file(p, true);
        orc_env *env = NULL;
        int rc = orc_env_open(p, ORC_ENV_VERIFY, NULL, &env);
        if (rc == ORC_OK) {
            CHECK_OK(vrc); /* the open verified the same file */
            opened++;
            size_t problems;
            (void)orc_env_check(env, &problems);
            read_everything(env);
            orc_env_close(env);
        } else if (rc == ORC_ERR_CORRUPT) {
            corrupt++;
            CHECK(strlen(orc_last_error()) > 20);
        } else {
            /* A flip inside ORCore's own metadata values: still a clean error. */
            other++;
            if (rc != ORC_ERR_NOT_A_REALM && rc != ORC_ERR_FORMAT_VERSION && rc != ORC_ERR_SCHEMA) {
                test_fail(__FILE__, __LINE__, "round %d: %s (%s)", round, orc_strerror(rc), orc_last_error());
                return;
            }
        }
    }
    CHECK(corrupt > 0);
    CHECK_EQ(opened + corrupt + other, 60);
}

/* The header of page `pg` of a copy, for targeted damage. */
static bool page_header(const char *path, const meta_info *mi, uint64_t pg, uint8_t h[16])
{
    return read_at(path, pg * mi->psize, h, 16);
}

/* The root of the named database `name`: the main database is one leaf in the fixture. */
static bool named_root(const char *path, const meta_info *mi, const char *name, uint64_t *root, uint16_t *depth)
{
    if (mi->main_depth != 1) HFAIL("the fixture's main database has depth %u", mi->main_depth);
    uint8_t *page = malloc(mi->psize);
    if (!page || !read_at(path, mi->main_root * mi->psize, page, mi->psize)) {
        free(page);
        HFAIL("reading the main root");
    }
    unsigned n = (ld16(page + 12) - 16u) / 2;
    size_t len = strlen(name);
    bool found = false;
    for (unsigned i = 0; i < n && !found; i++) {
        const uint8_t *nd = page + ld16(page + 16 + 2 * i);
        if (ld16(nd + 6) == len && memcmp(nd + 8, name, len) == 0 && (ld16(nd + 4) & 0x02)) {
            *depth = ld16(nd + 8 + len + 6);
            *root = ld64(nd + 8 + len + 40);
            found = true;
        }
    }
    free(page);
    if (!found) HFAIL("no database '%s' in the main database", name);
    return true;
}

TEST(damaged_verify_targeted_structures)
{
    /* Each case damages one structure; the shallow check sees the roots, the deep check the rest. */
    const char *p;
    meta_info mi;
    uint8_t h[16];

    /* Main root: a dirty bit (LMDB would then write into its read-only map). */
    CHECK((p = fresh_copy("t-dirty.realm")) && read_meta(p, &mi) && page_header(p, &mi, mi.main_root, h));
    st16(h + 10, (uint16_t)(ld16(h + 10) | 0x10));
    CHECK(write_at(p, mi.main_root * mi.psize, h, 16));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("flags");
    CHECK_RC(try_open(p, 0), ORC_ERR_CORRUPT);

    /* Main root: labelled with another page number. */
    CHECK((p = fresh_copy("t-label.realm")) && read_meta(p, &mi) && page_header(p, &mi, mi.main_root, h));
    st64(h, mi.main_root + 1);
    CHECK(write_at(p, mi.main_root * mi.psize, h, 16));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("labelled");

    /* Free root: lower past upper. */
    CHECK((p = fresh_copy("t-bounds.realm")) && read_meta(p, &mi) && page_header(p, &mi, mi.free_root, h));
    st16(h + 12, (uint16_t)(ld16(h + 14) + 2));
    CHECK(write_at(p, mi.free_root * mi.psize, h, 16));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("bounds");

    /* A table's branch page pointing at itself: a cycle only the deep check sees. */
    uint64_t root;
    uint16_t depth;
    CHECK((p = fresh_copy("t-cycle.realm")) && read_meta(p, &mi) && named_root(p, &mi, "t1", &root, &depth));
    CHECK(depth >= 2);
    uint8_t *page = malloc(mi.psize);
    CHECK(page && read_at(p, root * mi.psize, page, mi.psize));
    uint8_t *node = page + ld16(page + 16 + 2 * 1);
    st16(node, (uint16_t)root);
    st16(node + 2, (uint16_t)(root >> 16));
    st16(node + 4, (uint16_t)(root >> 32));
    bool wrote = write_at(p, root * mi.psize, page, mi.psize);
    free(page);
    CHECK(wrote);
    CHECK_OK(verify_file(p, false));
    CHECK_RC(verify_file(p, true), ORC_ERR_CORRUPT);
    CHECK_MSG("reached twice");
    CHECK_RC(try_open(p, ORC_ENV_VERIFY), ORC_ERR_CORRUPT);

    /* A named database's record claiming one entry more than its tree holds. */
    CHECK((p = fresh_copy("t-count.realm")) && read_meta(p, &mi));
    page = malloc(mi.psize);
    CHECK(page && read_at(p, mi.main_root * mi.psize, page, mi.psize));
    node = page + ld16(page + 16); /* the first named database */
    uint8_t *rec = node + 8 + ld16(node + 6);
    st64(rec + 32, ld64(rec + 32) + 1);
    wrote = write_at(p, mi.main_root * mi.psize, page, mi.psize);
    free(page);
    CHECK(wrote);
    CHECK_RC(verify_file(p, true), ORC_ERR_CORRUPT);
    CHECK_MSG("entries");

    /* A page listed free while in use: LMDB would hand it out again and overwrite live data. */
    CHECK((p = fresh_copy("t-free.realm")) && read_meta(p, &mi) && named_root(p, &mi, "t1", &root, &depth));
    page = malloc(mi.psize);
    CHECK(page && read_at(p, mi.free_root * mi.psize, page, mi.psize));
    bool patched = false;
    if (ld16(page + 10) == 0x02) {
        unsigned n = (ld16(page + 12) - 16u) / 2;
        for (unsigned i = 0; i < n && !patched; i++) {
            uint8_t *nd = page + ld16(page + 16 + 2 * i);
            if (ld16(nd + 4) == 0 && ld64(nd + 8 + 8) >= 1) {
                st64(nd + 8 + 8, 1);         /* the record now lists one page: */
                st64(nd + 8 + 8 + 8, root); /* the table's root */
                patched = true;
            }
        }
    }
    wrote = patched && write_at(p, mi.free_root * mi.psize, page, mi.psize);
    free(page);
    CHECK(patched); /* the fixture's free database is one leaf of inline records */
    CHECK(wrote);
    CHECK_OK(verify_file(p, false));
    CHECK_RC(verify_file(p, true), ORC_ERR_CORRUPT);
    CHECK_MSG("in use and also listed in the free database");
    /* Opened without ORC_ENV_VERIFY it opens; orc_env_check then walks the pages and reports it. */
    orc_env *env;
    CHECK_OK(orc_env_open(p, ORC_ENV_READ_ONLY, NULL, &env));
    size_t problems = 0;
    int crc = orc_env_check(env, &problems);
    orc_env_close(env);
    CHECK_RC(crc, ORC_ERR_CORRUPT);
    CHECK_MSG("in use and also listed in the free database");
    CHECK_EQ(problems, 1);
}

/* ------------------------------------------------------------------------ */
/* The scan's page walk on damaged pages                                    */
/* ------------------------------------------------------------------------ */

/* Where the targeted damage goes in t1 (Person): its root, first leaf, and a row on overflow pages. */
typedef struct person_tree {
    uint64_t root, first_leaf, big_leaf;
    uint16_t depth;
    unsigned big_node; /* index of an F_BIGDATA node in big_leaf */
} person_tree;

static bool child_of(const char *path, const meta_info *mi, uint64_t pg, unsigned i, uint64_t *child)
{
    uint8_t *page = malloc(mi->psize);
    if (!page || !read_at(path, pg * mi->psize, page, mi->psize)) {
        free(page);
        HFAIL("reading page %llu", (unsigned long long)pg);
    }
    const uint8_t *nd = page + ld16(page + 16 + 2 * i);
    *child = (uint64_t)ld16(nd) | (uint64_t)ld16(nd + 2) << 16 | (uint64_t)ld16(nd + 4) << 32;
    free(page);
    return true;
}

/* The leaves under a branch page one level above them: finds the first with an F_BIGDATA row. */
static bool find_person_tree(const char *path, const meta_info *mi, person_tree *t)
{
    memset(t, 0, sizeof *t);
    if (!named_root(path, mi, "t1", &t->root, &t->depth)) return false;
    if (t->depth != 2) HFAIL("the fixture's Person tree has depth %u, not 2", t->depth);
    uint8_t *root = malloc(mi->psize), *leaf = malloc(mi->psize);
    bool ok = root && leaf && read_at(path, t->root * mi->psize, root, mi->psize);
    unsigned n = ok ? (ld16(root + 12) - 16u) / 2 : 0;
    for (unsigned i = 0; ok && i < n && !t->big_leaf; i++) {
        uint64_t pg;
        ok = child_of(path, mi, t->root, i, &pg) && read_at(path, pg * mi->psize, leaf, mi->psize);
        if (!ok) break;
        if (i == 0) t->first_leaf = pg;
        unsigned m = (ld16(leaf + 12) - 16u) / 2;
        for (unsigned j = 0; j < m && !t->big_leaf; j++)
            if (ld16(leaf + ld16(leaf + 16 + 2 * j) + 4) == 0x01) {
                t->big_leaf = pg;
                t->big_node = j;
            }
    }
    free(root);
    free(leaf);
    if (ok && !t->big_leaf) HFAIL("no Person row on overflow pages");
    return ok;
}

/* Applies `edit` to page `pg` of a fresh copy. */
typedef void (*page_edit)(uint8_t *page, const person_tree *t, const meta_info *mi);
static const char *damage_page(const char *name, bool big, page_edit edit, meta_info *mi, person_tree *t)
{
    const char *p = fresh_copy(name);
    if (!p || !read_meta(p, mi) || !find_person_tree(p, mi, t)) return NULL;
    uint64_t pg = big ? t->big_leaf : t->first_leaf;
    uint8_t *page = malloc(mi->psize);
    bool ok = page && read_at(p, pg * mi->psize, page, mi->psize);
    if (ok) {
        edit(page, t, mi);
        ok = write_at(p, pg * mi->psize, page, mi->psize);
    }
    free(page);
    return ok ? p : NULL;
}

static uint8_t *node0(uint8_t *page) { return page + ld16(page + 16); }
static void e_bounds(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(pg + 12, (uint16_t)(ld16(pg + 14) + 2)); }
static void e_label(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)mi; st64(pg, t->first_leaf + 1); }
static void e_offset(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(pg + 16, 18); }
static void e_ksize(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(node0(pg) + 6, 7); }
static void e_flags(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(node0(pg) + 4, 0x02); }
static void e_dsize(uint8_t *pg, const person_tree *t, const meta_info *mi)
{
    (void)t;
    st16(node0(pg), (uint16_t)mi->psize);
}
static void e_overflow(uint8_t *pg, const person_tree *t, const meta_info *mi)
{
    (void)mi;
    uint8_t *nd = pg + ld16(pg + 16 + 2 * t->big_node);
    st64(nd + 8 + 8, t->root); /* a branch page, not an overflow run */
}

/*
 * Opens a damaged copy without ORC_ENV_VERIFY (the damage is in data pages it does not
 * read) and begins a read transaction; `ci` is Person's class.
 */
static bool open_person(const char *p, orc_env **env, orc_txn **r, orc_class_info *ci)
{
    if (!p) HFAIL("no damaged copy");
    HOK(orc_env_open(p, ORC_ENV_READ_ONLY, NULL, env));
    int rc = orc_txn_begin(*env, ORC_TXN_READ, r);
    if (!rc && (rc = orc_schema_class_find(*r, "Person", ci))) orc_txn_abort(*r);
    if (rc) orc_env_close(*env);
    HOK(rc);
    return true;
}

/* Scans Person in a damaged copy: the scan reports the damage, with `needle` in its message. */
static void scan_reports(const char *p, const char *needle)
{
    orc_env *env;
    orc_txn *r;
    orc_class_info ci;
    CHECK(open_person(p, &env, &r, &ci));
    static const uint8_t all[] = {ORC_OP_TRUE};
    orc_query *q;
    orc_keys out = {0};
    CHECK_OK(orc_query_compile(r, ci.table, all, sizeof all, &q));
    int rc = orc_query_run(r, q, &out);
    orc_keys_free(&out);
    orc_query_free(q);
    orc_txn_abort(r);
    orc_env_close(env);
    CHECK_RC(rc, ORC_ERR_CORRUPT);
    CHECK_MSG("table 1's rows are damaged");
    CHECK_MSG(needle);
}

/*
 * Reads Person's objects by key (the row reader's descents and steps) and one after
 * another (orc_obj_next): each read succeeds, finds nothing or reports the damage,
 * and the damaged page is met at least once.
 */
static void reads_report(const char *p)
{
    orc_env *env;
    orc_txn *r;
    orc_class_info ci;
    CHECK(open_person(p, &env, &r, &ci));
    int corrupt = 0, other = 0;
    for (uint64_t key = 1; key <= PERSONS + 1; key++) {
        orc_value v;
        int rc = orc_obj_get(r, ci.table, key, 0, &v);
        if (rc == ORC_ERR_CORRUPT) corrupt++;
        else if (rc != ORC_OK && rc != ORC_ERR_NOT_FOUND) other++;
    }
    uint64_t k = 0;
    int rc;
    size_t steps = 0;
    while ((rc = orc_obj_next(r, ci.table, k, &k)) == ORC_OK && steps < 2 * PERSONS) steps++;
    orc_txn_abort(r);
    orc_env_close(env);
    CHECK_EQ(other, 0);
    CHECK(corrupt > 0);
    CHECK_RC(rc, ORC_ERR_CORRUPT);
}

/*
 * In a read transaction a scan reads the table's pages itself (scan.c); LMDB's
 * cursor, which the walk replaces, would follow most of these into wild reads.
 * Each case damages one field of Person's tree; the scan reports it.
 */
TEST(damaged_scan_walk_reports_damaged_pages)
{
    meta_info mi;
    person_tree t;
    scan_reports(damage_page("s-bounds.realm", false, e_bounds, &mi, &t), "damaged node table");
    scan_reports(damage_page("s-label.realm", false, e_label, &mi, &t), "is not the leaf page");
    scan_reports(damage_page("s-offset.realm", false, e_offset, &mi, &t), "node outside its node area");
    scan_reports(damage_page("s-ksize.realm", false, e_ksize, &mi, &t), "not 8 bytes");
    scan_reports(damage_page("s-flags.realm", false, e_flags, &mi, &t), "not a row");
    scan_reports(damage_page("s-dsize.realm", false, e_dsize, &mi, &t), "runs past the page");
    scan_reports(damage_page("s-overflow.realm", true, e_overflow, &mi, &t), "overflow run");
    reads_report(damage_page("r-bounds.realm", false, e_bounds, &mi, &t));
    reads_report(damage_page("r-label.realm", false, e_label, &mi, &t));
    reads_report(damage_page("r-offset.realm", false, e_offset, &mi, &t));
    reads_report(damage_page("r-ksize.realm", false, e_ksize, &mi, &t));
    reads_report(damage_page("r-flags.realm", false, e_flags, &mi, &t));
    reads_report(damage_page("r-dsize.realm", false, e_dsize, &mi, &t));
    reads_report(damage_page("r-overflow.realm", true, e_overflow, &mi, &t));

    /* a branch page naming a child far past the end of the file: no read there */
    const char *p = fresh_copy("s-far.realm");
    CHECK(p && read_meta(p, &mi) && find_person_tree(p, &mi, &t));
    uint8_t *page = malloc(mi.psize);
    CHECK(page && read_at(p, t.root * mi.psize, page, mi.psize));
    uint8_t *nd = page + ld16(page + 16 + 2 * 1);
    uint64_t far = (uint64_t)1 << 40;
    st16(nd, (uint16_t)far);
    st16(nd + 2, (uint16_t)(far >> 16));
    st16(nd + 4, (uint16_t)(far >> 32));
    bool wrote = write_at(p, t.root * mi.psize, page, mi.psize);
    free(page);
    CHECK(wrote);
    scan_reports(p, "is not the leaf page");
    reads_report(p);

    /* the record counting one row more, and one fewer, than the tree holds */
    for (int delta = -1; delta <= 1; delta += 2) {
        p = fresh_copy("s-count.realm");
        CHECK(p && read_meta(p, &mi));
        page = malloc(mi.psize);
        CHECK(page && read_at(p, mi.main_root * mi.psize, page, mi.psize));
        unsigned n = (ld16(page + 12) - 16u) / 2;
        bool patched = false;
        for (unsigned i = 0; i < n && !patched; i++) {
            nd = page + ld16(page + 16 + 2 * i);
            if (ld16(nd + 6) == 2 && memcmp(nd + 8, "t1", 2) == 0) {
                uint8_t *rec = nd + 8 + 2;
                st64(rec + 32, ld64(rec + 32) + (uint64_t)(int64_t)delta);
                patched = true;
            }
        }
        wrote = patched && write_at(p, mi.main_root * mi.psize, page, mi.psize);
        free(page);
        CHECK(wrote);
        scan_reports(p, delta > 0 ? "are missing" : "more rows than");
    }
}

/* Every page of Person's tree: the root, its leaves, and the overflow runs their rows name. */
static bool person_pages(const char *path, const meta_info *mi, const person_tree *t, uint64_t *pages, size_t *n, size_t cap)
{
    uint8_t *root = malloc(mi->psize), *leaf = malloc(mi->psize);
    bool ok = root && leaf && read_at(path, t->root * mi->psize, root, mi->psize);
    *n = 0;
    if (ok) pages[(*n)++] = t->root;
    unsigned nodes = ok ? (ld16(root + 12) - 16u) / 2 : 0;
    for (unsigned i = 0; ok && i < nodes; i++) {
        uint64_t pg;
        ok = child_of(path, mi, t->root, i, &pg) && read_at(path, pg * mi->psize, leaf, mi->psize);
        if (!ok || *n == cap) break;
        pages[(*n)++] = pg;
        unsigned m = (ld16(leaf + 12) - 16u) / 2;
        for (unsigned j = 0; j < m && *n < cap; j++) {
            const uint8_t *nd = leaf + ld16(leaf + 16 + 2 * j);
            if (ld16(nd + 4) == 0x01) pages[(*n)++] = ld64(nd + 8 + 8);
        }
    }
    free(root);
    free(leaf);
    return ok;
}

static bool find_pk_tree(const char *path, const meta_info *mi, person_tree *t, uint64_t *pages, size_t *np, size_t cap);

/* A fresh copy with 1-4 random bits flipped in Person's tree (pages and overflow runs) or, with `pk`, its primary-key index. */
static const char *flipped_copy(const char *name, bool pk, uint64_t *rnd)
{
    meta_info mi;
    person_tree t;
    uint64_t pages[256];
    size_t np = 0;
    const char *p = fresh_copy(name);
    if (!p || !read_meta(p, &mi)) return NULL;
    if (pk ? !find_pk_tree(p, &mi, &t, pages, &np, 256)
           : !find_person_tree(p, &mi, &t) || !person_pages(p, &mi, &t, pages, &np, 256))
        return NULL;
    int flips = 1 + (int)(test_rand(rnd) % 4);
    for (int f = 0; f < flips; f++)
        if (!flip_in_page(p, &mi, pages[test_rand(rnd) % np], rnd)) return NULL;
    return p;
}

/*
 * Random bits flipped in Person's tree (its branch and leaf pages and overflow runs)
 * in even rounds, in its primary-key index in odd ones, in a file opened without
 * ORC_ENV_VERIFY: every read of the table and every lookup by primary key in a read
 * transaction goes through ORCore's own walks (scan.c), which must answer each with a
 * status — a row, none, or the damage — and never read outside the map (run under
 * ORC_SANITIZE=ON).
 */
TEST(damaged_scan_walk_survives_flipped_bits)
{
    CHECK(build_fixture());
    uint64_t rnd = test_seed() ^ 0xf11b;
    int corrupt[2] = {0, 0};
    for (int round = 0; round < 120; round++) {
        bool pk = round % 2;
        const char *p = flipped_copy(pk ? "pk-flipped.realm" : "walk-flipped.realm", pk, &rnd);
        CHECK(p);
        orc_env *env;
        orc_txn *r;
        orc_class_info ci;
        CHECK(open_person(p, &env, &r, &ci));
        bool saw_corrupt = false;
        static const uint8_t all[] = {ORC_OP_TRUE};
        orc_query *q;
        CHECK_OK(orc_query_compile(r, ci.table, all, sizeof all, &q));
        orc_keys keys = {0};
        int rc = orc_query_run(r, q, &keys);
        saw_corrupt |= rc == ORC_ERR_CORRUPT;
        orc_keys_free(&keys);
        orc_query_free(q);
        for (uint64_t key = 0; key <= PERSONS + 1; key++) {
            orc_value v;
            for (uint16_t col = 0; col < 4; col++) {
                rc = orc_obj_get(r, ci.table, key, col, &v);
                if (rc == ORC_OK && v.type == ORC_TYPE_STRING) {
                    volatile uint8_t sink = 0;
                    for (size_t i = 0; i < v.string.size; i++) sink ^= (uint8_t)v.string.data[i];
                    (void)sink;
                }
                saw_corrupt |= rc == ORC_ERR_CORRUPT;
            }
        }
        uint64_t k = 0;
        size_t steps = 0;
        while ((rc = orc_obj_next(r, ci.table, k, &k)) == ORC_OK && steps++ < 2 * PERSONS) {
        }
        saw_corrupt |= rc == ORC_ERR_CORRUPT;
        for (int64_t id = -1; id <= PERSONS + 1; id++) {
            orc_value v = v_int(id);
            rc = orc_obj_find(r, ci.table, &v, &k);
            if (rc != ORC_OK && rc != ORC_ERR_NOT_FOUND && rc != ORC_ERR_CORRUPT) {
                test_fail(__FILE__, __LINE__, "round %d, id %lld: %s (%s)", round, (long long)id, orc_strerror(rc),
                          orc_last_error());
                break;
            }
            saw_corrupt |= rc == ORC_ERR_CORRUPT;
        }
        orc_txn_abort(r);
        orc_env_close(env);
        corrupt[pk] += saw_corrupt;
    }
    CHECK(corrupt[0] > 0 && corrupt[1] > 0);
}

/* ------------------------------------------------------------------------ */
/* The primary-key index's own descent on damaged pages                     */
/* ------------------------------------------------------------------------ */

/* Person's primary-key index ("p1", depth 2 in the fixture): its root, first leaf, and every page. */
static bool find_pk_tree(const char *path, const meta_info *mi, person_tree *t, uint64_t *pages, size_t *np, size_t cap)
{
    memset(t, 0, sizeof *t);
    if (!named_root(path, mi, "p1", &t->root, &t->depth)) return false;
    if (t->depth != 2) HFAIL("the fixture's primary-key index has depth %u, not 2", t->depth);
    uint8_t *root = malloc(mi->psize);
    bool ok = root && read_at(path, t->root * mi->psize, root, mi->psize);
    unsigned n = ok ? (ld16(root + 12) - 16u) / 2 : 0;
    *np = 0;
    if (ok) pages[(*np)++] = t->root;
    for (unsigned i = 0; ok && i < n && *np < cap; i++) {
        uint64_t pg;
        ok = child_of(path, mi, t->root, i, &pg);
        if (ok && i == 0) t->first_leaf = pg;
        if (ok) pages[(*np)++] = pg;
    }
    free(root);
    return ok;
}

/* Applies `edit` to the first leaf (or the root) of Person's primary-key index in a fresh copy. */
static const char *damage_pk_page(const char *name, bool root, page_edit edit)
{
    meta_info mi;
    person_tree t;
    uint64_t pages[64];
    size_t np;
    const char *p = fresh_copy(name);
    if (!p || !read_meta(p, &mi) || !find_pk_tree(p, &mi, &t, pages, &np, 64)) return NULL;
    uint64_t pg = root ? t.root : t.first_leaf;
    uint8_t *page = malloc(mi.psize);
    bool ok = page && read_at(p, pg * mi.psize, page, mi.psize);
    if (ok) {
        edit(page, &t, &mi);
        ok = write_at(p, pg * mi.psize, page, mi.psize);
    }
    free(page);
    return ok ? p : NULL;
}

static void e_pk_ksize(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; st16(node0(pg) + 6, (uint16_t)mi->psize); }
static void e_pk_dsize(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(node0(pg), 7); }
static void e_pk_bigdata(uint8_t *pg, const person_tree *t, const meta_info *mi) { (void)t; (void)mi; st16(node0(pg) + 4, 0x01); }
static void e_pk_far(uint8_t *pg, const person_tree *t, const meta_info *mi)
{
    (void)t;
    (void)mi;
    uint8_t *nd = pg + ld16(pg + 16 + 2 * 1);
    uint64_t far = (uint64_t)1 << 40;
    st16(nd, (uint16_t)far);
    st16(nd + 2, (uint16_t)(far >> 16));
    st16(nd + 4, (uint16_t)(far >> 32));
}

/*
 * Looks up every Person id (and a few beyond) in a read transaction: each lookup
 * finds its object, finds none, or reports the damage — at least one does, naming
 * the primary-key index and `needle`.
 */
static void finds_report(const char *p, const char *needle)
{
    orc_env *env;
    orc_txn *r;
    orc_class_info ci;
    CHECK(open_person(p, &env, &r, &ci));
    int corrupt = 0, other = 0;
    char first[512] = "";
    for (int64_t id = -2; id <= PERSONS + 2; id++) {
        orc_value v = v_int(id), out;
        uint64_t key;
        int rc = orc_obj_find(r, ci.table, &v, &key);
        if (rc == ORC_OK) rc = orc_obj_get(r, ci.table, key, 2, &out);
        if (rc == ORC_ERR_CORRUPT && !corrupt++) snprintf(first, sizeof first, "%s", orc_last_error());
        else if (rc != ORC_OK && rc != ORC_ERR_NOT_FOUND && rc != ORC_ERR_CORRUPT) other++;
    }
    orc_txn_abort(r);
    orc_env_close(env);
    CHECK_EQ(other, 0);
    CHECK(corrupt > 0);
    if (!strstr(first, "table 1's primary-key index is damaged") || !strstr(first, needle))
        test_fail(__FILE__, __LINE__, "message \"%s\" lacks the index or \"%s\"", first, needle);
}

/*
 * In a read transaction a primary-key lookup descends the index itself (scan.c,
 * FINDING PRIMARY KEYS), where mdb_get would follow damage into wild reads. Each
 * case damages one field of Person's index, in a file opened without ORC_ENV_VERIFY.
 */
TEST(damaged_pk_walk_reports_damaged_pages)
{
    CHECK(build_fixture());
    finds_report(damage_pk_page("k-bounds.realm", false, e_bounds), "damaged node table");
    finds_report(damage_pk_page("k-label.realm", false, e_label), "is not the leaf page");
    finds_report(damage_pk_page("k-offset.realm", false, e_offset), "node outside its node area");
    finds_report(damage_pk_page("k-ksize.realm", false, e_pk_ksize), "key running past its page");
    finds_report(damage_pk_page("k-dsize.realm", false, e_pk_dsize), "whose value is not an object key");
    finds_report(damage_pk_page("k-bigdata.realm", false, e_pk_bigdata), "whose value is not an object key");
    finds_report(damage_pk_page("k-root-bounds.realm", true, e_bounds), "damaged node table");
    finds_report(damage_pk_page("k-root-far.realm", true, e_pk_far), "is not the leaf page");
}

/* ------------------------------------------------------------------------ */
/* A valid file may end before its last page                                */
/* ------------------------------------------------------------------------ */

/*
 * LMDB never writes pages that a transaction allocated and freed again, so a
 * valid file can be shorter than last_pg + 1 pages when its last pages are
 * free (mdb_env_copy allows for this). Built with raw LMDB: a 1 MiB value at
 * the end of the file, deleted, then small commits that move the free
 * database's pages down; the file is then cut where a short file would end.
 */
TEST(damaged_verify_accepts_free_pages_past_the_end)
{
    const char *p = test_path("tail.mdb");
    MDB_env *e;
    MDB_txn *t;
    MDB_dbi d;
    static char big[1 << 20];
    CHECK(mdb_env_create(&e) == 0);
    CHECK(mdb_env_set_mapsize(e, 64u << 20) == 0);
    CHECK(mdb_env_open(e, p, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_dbi_open(t, NULL, 0, &d) == 0);
    for (int i = 0; i < 10; i++) {
        char k[16];
        MDB_val key = {(size_t)snprintf(k, sizeof k, "k%08d", i), k}, val = {200, big};
        CHECK(mdb_put(t, d, &key, &val, 0) == 0);
    }
    CHECK(mdb_txn_commit(t) == 0);
    MDB_val bk = {3, "big"}, bv = {sizeof big, big};
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_put(t, d, &bk, &bv, 0) == 0);
    CHECK(mdb_txn_commit(t) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_del(t, d, &bk, NULL) == 0);
    CHECK(mdb_txn_commit(t) == 0);
    for (int r = 0; r < 6; r++) {
        char k[16];
        MDB_val key = {(size_t)snprintf(k, sizeof k, "k%08d", r), k}, val = {200, big};
        CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
        CHECK(mdb_put(t, d, &key, &val, 0) == 0);
        CHECK(mdb_txn_commit(t) == 0);
    }
    mdb_env_close(e);

    meta_info mi;
    CHECK(read_meta(p, &mi));
    CHECK_EQ(file_size(p), (mi.last_pg + 1) * mi.psize);
    /* Find the shortest length verification accepts; the free run is ~256 pages. */
    const char *q = test_path("tail-cut.mdb");
    uint64_t cut = 0;
    for (uint64_t k = 1; k <= mi.last_pg; k++) {
        CHECK(copy_file(p, q));
        CHECK(truncate(q, (off_t)((mi.last_pg + 1 - k) * mi.psize)) == 0);
        if (verify_file(q, false) != ORC_OK) break;
        CHECK_OK(verify_file(q, true));
        cut = k;
    }
    CHECK(cut >= 200);
    CHECK_RC(verify_file(q, false), ORC_ERR_CORRUPT); /* one page more is one page too many */
    CHECK_MSG("truncated");

    /* At the accepted length LMDB reads and writes the file as usual. */
    CHECK(truncate(p, (off_t)((mi.last_pg + 1 - cut) * mi.psize)) == 0);
    CHECK(mdb_env_create(&e) == 0);
    CHECK(mdb_env_set_mapsize(e, 64u << 20) == 0);
    CHECK(mdb_env_open(e, p, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_dbi_open(t, NULL, 0, &d) == 0);
    MDB_stat st;
    CHECK(mdb_stat(t, d, &st) == 0);
    CHECK_EQ(st.ms_entries, 10);
    MDB_val bv2 = {sizeof big / 2, big};
    int prc = mdb_put(t, d, &bk, &bv2, 0); /* reuses the free pages past the end */
    if (prc) test_fail(__FILE__, __LINE__, "mdb_put: %s", mdb_strerror(prc));
    CHECK(prc == 0);
    CHECK(mdb_txn_commit(t) == 0);
    mdb_env_close(e);
    CHECK_OK(verify_file(p, true));
}

/* ------------------------------------------------------------------------ */
/* Repair and other processes                                               */
/* ------------------------------------------------------------------------ */

TEST(damaged_verify_repairs_a_meta_page_only_through_a_writable_descriptor)
{
    const char *p = fresh_copy("repair.realm");
    CHECK(p);
    meta_info mi;
    CHECK(read_meta(p, &mi));
    int slot = !newer_slot(&mi);
    CHECK(zero_at(p, (uint64_t)slot * mi.psize, 64));

    /* A read-only descriptor reports the damage and writes nothing. */
    uint8_t before[152], after[152];
    CHECK(read_at(p, (uint64_t)slot * mi.psize, before, sizeof before));
    CHECK_RC(verify_file(p, false), ORC_ERR_CORRUPT);
    CHECK_MSG("is intact");
    CHECK(read_at(p, (uint64_t)slot * mi.psize, after, sizeof after));
    CHECK(memcmp(before, after, sizeof before) == 0);

    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK_OK(verify_pages(p, fd, true));
    close(fd);
    CHECK_OK(verify_file(p, true));
    meta_info now;
    CHECK(read_meta(p, &now));
    CHECK_EQ(now.txnid[!slot], mi.txnid[!slot]);
    CHECK_EQ(now.txnid[slot], mi.txnid[!slot] - 1);
    orc_env *env;
    CHECK_OK(orc_env_open(p, ORC_ENV_VERIFY | ORC_ENV_READ_ONLY, NULL, &env));
    uint64_t version;
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, fx.version);
    orc_env_close(env);
}

/* A meta page damaged while another process has the realm open is not repaired under its feet. */
TEST(damaged_verify_leaves_a_file_open_elsewhere_alone)
{
    const char *p = fresh_copy("repair-busy.realm");
    CHECK(p);
    int to_child[2], to_parent[2];
    pid_t pid = test_fork_with_pipes(to_child, to_parent);
    CHECK(pid >= 0);
    if (pid == 0) {
        orc_env *env;
        char ok = orc_env_open(p, 0, NULL, &env) == ORC_OK ? 'y' : 'n';
        if (write(to_parent[1], &ok, 1) != 1) _exit(2);
        char c;
        if (read(to_child[0], &c, 1) < 0) _exit(2); /* until the parent is done (or gone) */
        if (ok == 'y') orc_env_close(env);
        _exit(0);
    }
    char ok = 'n';
    CHECK(read(to_parent[0], &ok, 1) == 1);
    bool child_open = ok == 'y';

    meta_info mi;
    bool damaged = read_meta(p, &mi) && zero_at(p, (uint64_t)!newer_slot(&mi) * mi.psize, 64);
    int fd = open(p, O_RDWR);
    int rc_busy = fd >= 0 ? verify_pages(p, fd, false) : errno;

    char c = 'x';
    if (write(to_child[1], &c, 1) != 1) test_fail(__FILE__, __LINE__, "signalling the child");
    close(to_child[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    close(to_parent[0]);
    CHECK(child_open);
    CHECK(damaged);
    CHECK_EQ(rc_busy, ORC_ERR_CORRUPT);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Now that nobody has it open, the repair goes ahead. */
    CHECK_OK(verify_pages(p, fd, false));
    close(fd);
    CHECK_OK(verify_file(p, true));
}
