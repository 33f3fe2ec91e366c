/*
 * test_fuzzfound.c — inputs the fuzz targets found crashing ORCore (group
 * `fuzzfound`), each fixed, kept here with the error it must now give.
 *
 * The inputs themselves live in Fuzz/regressions/<target>/ (CTest's
 * fuzz_replay_* entries also replay them through the fuzz targets); these
 * tests feed each one to the call that crashed and assert the status and the
 * message. Build with ORC_SANITIZE=ON to see the original faults return as
 * sanitizer reports if a fix is undone.
 */
#include "harness.h"
#include "replay.h"
#include "object.h"
#include "verify.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef ORC_SOURCE_DIR
#error "ORC_SOURCE_DIR must name the repository (Tests/ORCoreCTests/CMakeLists.txt)"
#endif

/* Copies Fuzz/regressions/<name> to a fresh test path (opening may write to it). */
static const char *regression_copy(const char *name)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/Fuzz/regressions/%s", ORC_SOURCE_DIR, name);
    const char *dst = test_path("regression.realm");
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    if (!in || !out) {
        if (in) fclose(in);
        return NULL;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    return dst;
}

/*
 * realm-file: a schema record whose class header is damaged (a kind or primary
 * key column out of range) after its column count was read. schema_decode's
 * cleanup walked the class's property array before it was allocated: a NULL
 * dereference on open.
 */
TEST(fuzzfound_schema_damaged_class_header_file)
{
    const char *path = regression_copy("realm-file/schema-damaged-class-header");
    CHECK(path != NULL);
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_VERIFY | ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env), ORC_ERR_SCHEMA);
    CHECK(strstr(orc_last_error(), "the stored schema is damaged") != NULL);
    CHECK(env == NULL);
}

/* The same fault, reached directly: one class with 3 columns and kind 9. */
TEST(fuzzfound_schema_damaged_class_header_record)
{
    uint8_t rec[64];
    size_t n = 0;
    uint32_t magic = 0x3153524fu, ntables = 1, pk = 0;
    uint64_t gen = 1;
    memcpy(rec + n, &magic, 4), n += 4;
    memcpy(rec + n, &gen, 8), n += 8;
    memcpy(rec + n, &ntables, 4), n += 4;
    rec[n++] = 1; /* live */
    rec[n++] = 9; /* kind: no such class kind */
    memcpy(rec + n, &pk, 4), n += 4;
    uint16_t len = 4, ncols = 3;
    memcpy(rec + n, &len, 2), n += 2;
    memcpy(rec + n, "Task", 4), n += 4;
    memcpy(rec + n, &ncols, 2), n += 2;
    orc_schema *s = NULL;
    CHECK_RC(schema_decode(rec, n, &s), ORC_ERR_SCHEMA);
    CHECK(strstr(orc_last_error(), "the stored schema is damaged") != NULL);
    CHECK(s == NULL);
}

/* ------------------------------------------------------------------------ */
/* realm-file: meta page damage LMDB acts on when it next commits           */
/* ------------------------------------------------------------------------ */

/* Whether two files hold the same bytes. */
static bool same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = false;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/*
 * Found by a CI run, 15 s into `realm-file`: meta page 0 records page size
 * 16384 (the file's pages are 4096 bytes) and its free database has flags
 * 0x810 (MDB_DUPFIXED and an unknown bit), txnid 0. LMDB reads meta page 1
 * at byte 16384, a data page, so verification called meta page 1 damaged and
 * rewrote byte 16384 from meta page 0: the realm opened empty, and its first
 * commit gave the free database a LEAF2 root whose keys LMDB copies at the
 * record's `pad` size, the page size — a 16 KiB memcpy into a 16 KiB page
 * (ASan: heap-buffer-overflow in mdb_txn_commit). Now meta page 0's page size
 * is seen to contradict meta page 1, found at byte 4096, and the flags are
 * damage too; with meta page 1's tree damaged as well, the file is refused
 * and left as it was.
 */
TEST(fuzzfound_meta_page_size_and_free_database_flags_file)
{
    const char *path = regression_copy("realm-file/meta-page-size-and-free-database-flags");
    CHECK(path != NULL);
    char src[1024];
    snprintf(src, sizeof src, "%s/Fuzz/regressions/realm-file/meta-page-size-and-free-database-flags", ORC_SOURCE_DIR);
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_VERIFY | ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "meta page 0 is damaged (its page size 16384 disagrees with meta page 1") != NULL);
    CHECK(env == NULL);
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(env == NULL);
    CHECK(same_bytes(path, src)); /* no "repair" wrote a meta page over a data page */
}

enum { META_FREE_FLAGS = 44, META_MAIN_FLAGS = 92, META_PSIZE = 40, META_TXNID = 144 };

/* A realm of three commits (schema, 200 objects, 100 of them erased: free pages). */
static bool make_realm(const char *path, uint64_t *version)
{
    orc_env *env;
    orc_txn *w;
    uint32_t table;
    uint16_t col;
    orc_env_delete_files(path);
    HOK(test_open_writing(path, &env, &w));
    HOK(orc_class_add(w, "Item", ORC_CLASS_TOP_LEVEL, &table));
    orc_prop_spec spec = {.name = "name", .type = ORC_TYPE_STRING};
    HOK(orc_prop_add(w, table, &spec, &col));
    HOK(orc_txn_commit(w, NULL));
    uint64_t keys[200];
    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 200; i++) {
        orc_value v = v_str("an item with a name long enough to fill some pages");
        HOK(orc_obj_create(w, table, &col, &v, 1, &keys[i]));
    }
    HOK(orc_txn_commit(w, NULL));
    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 200; i += 2) HOK(orc_obj_erase(w, table, keys[i]));
    HOK(orc_txn_commit(w, version));
    orc_env_close(env);
    return true;
}

static bool patch16(const char *path, uint64_t off, uint16_t value)
{
    int fd = open(path, O_WRONLY);
    bool ok = fd >= 0 && pwrite(fd, &value, 2, (off_t)off) == 2;
    if (fd >= 0) close(fd);
    if (!ok) HFAIL("patching %s at %llu", path, (unsigned long long)off);
    return true;
}

static bool read_meta_u64(const char *path, uint64_t off, uint64_t *out)
{
    int fd = open(path, O_RDONLY);
    bool ok = fd >= 0 && pread(fd, out, 8, (off_t)off) == 8;
    if (fd >= 0) close(fd);
    if (!ok) HFAIL("reading %s at %llu", path, (unsigned long long)off);
    return true;
}

/* Writes one commit and checks the realm, through a fresh handle. */
static bool write_and_check(const char *path)
{
    orc_env *env;
    orc_txn *w;
    orc_class_info cls;
    uint64_t key;
    HOK(orc_env_open(path, ORC_ENV_VERIFY | ORC_ENV_NO_SYNC, NULL, &env));
    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    HOK(orc_schema_class_find(w, "Item", &cls));
    orc_value v = v_str("after");
    uint16_t col = 0;
    orc_prop_info prop;
    HOK(orc_schema_prop_find(w, cls.table, "name", &prop));
    col = prop.col;
    HOK(orc_obj_create(w, cls.table, &col, &v, 1, &key));
    HOK(orc_txn_commit(w, NULL));
    HOK(orc_env_check(env, NULL));
    orc_env_close(env);
    int fd = open(path, O_RDONLY);
    if (fd < 0) HFAIL("opening %s", path);
    int rc = verify_pages(path, fd, true);
    close(fd);
    HOK(rc);
    return true;
}

/*
 * The flag damage on its own, in both meta pages of a healthy realm: the free
 * database marked MDB_DUPFIXED. Before the check, the realm opened, and a
 * commit that found the free database empty wrote page-size keys into a page.
 */
TEST(fuzzfound_free_database_flags_refused)
{
    const char *path = test_path("free-flags.realm");
    uint64_t version;
    CHECK(make_realm(path, &version));
    uint64_t psize = 0;
    CHECK(read_meta_u64(path, META_PSIZE, &psize));
    psize &= 0xffffffffu;
    for (int slot = 0; slot < 2; slot++)
        CHECK(patch16(path, slot * psize + META_FREE_FLAGS, MDB_INTEGERKEY | MDB_NOSUBDIR | MDB_DUPFIXED));
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "its free database has flags 0x4018") != NULL);
    CHECK(env == NULL);
    CHECK_RC(orc_env_open(path, ORC_ENV_READ_ONLY | ORC_ENV_VERIFY, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(env == NULL);

    /* No key-layout flag of the free database passes, nor a missing MDB_INTEGERKEY. */
    const uint16_t bad_flags[] = {MDB_NOSUBDIR, MDB_INTEGERKEY | MDB_DUPSORT, MDB_INTEGERKEY | MDB_REVERSEKEY,
                                  MDB_INTEGERKEY | 0x800};
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
        for (int slot = 0; slot < 2; slot++) CHECK(patch16(path, slot * psize + META_FREE_FLAGS, bad_flags[i]));
        CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env), ORC_ERR_CORRUPT);
        CHECK(strstr(orc_last_error(), "its free database has flags") != NULL);
    }
    /* What LMDB writes passes: MDB_INTEGERKEY with or without the environment's bits. */
    const uint16_t good_flags[] = {MDB_INTEGERKEY, MDB_INTEGERKEY | MDB_NOSUBDIR, MDB_INTEGERKEY | MDB_FIXEDMAP};
    for (size_t i = 0; i < sizeof good_flags / sizeof good_flags[0]; i++) {
        for (int slot = 0; slot < 2; slot++) CHECK(patch16(path, slot * psize + META_FREE_FLAGS, good_flags[i]));
        CHECK(write_and_check(path));
    }
}

/* Only the newer meta page damaged: the realm opens from the older one, and writes. */
TEST(fuzzfound_free_database_flags_in_the_newer_meta_repaired)
{
    const char *path = test_path("free-flags-newer.realm");
    uint64_t version;
    CHECK(make_realm(path, &version));
    uint64_t psize = 0, txnid[2];
    CHECK(read_meta_u64(path, META_PSIZE, &psize));
    psize &= 0xffffffffu;
    CHECK(read_meta_u64(path, META_TXNID, &txnid[0]));
    CHECK(read_meta_u64(path, psize + META_TXNID, &txnid[1]));
    int newer = txnid[1] > txnid[0];
    CHECK(patch16(path, (uint64_t)newer * psize + META_FREE_FLAGS, MDB_INTEGERKEY | MDB_NOSUBDIR | MDB_DUPFIXED));
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_READ_ONLY, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "is intact") != NULL);
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    uint64_t now;
    CHECK_OK(orc_env_version(env, &now));
    CHECK_EQ(now, version - 1);
    orc_env_close(env);
    CHECK(write_and_check(path));
}

/*
 * The same overflow through the main database: marked MDB_DUPFIXED (which
 * LMDB accepts only with MDB_DUPSORT) and empty, its first record — ORCore's
 * "meta" database, created on open — would go into a LEAF2 root.
 */
TEST(fuzzfound_main_database_dupfixed_refused)
{
    const char *path = test_path("main-dupfixed.mdb");
    orc_env_delete_files(path);
    MDB_env *e;
    MDB_txn *t;
    MDB_dbi d;
    MDB_val key = {3, "key"}, val = {5, "value"};
    CHECK(mdb_env_create(&e) == 0);
    CHECK(mdb_env_open(e, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_dbi_open(t, NULL, 0, &d) == 0);
    CHECK(mdb_put(t, d, &key, &val, 0) == 0);
    CHECK(mdb_txn_commit(t) == 0);
    CHECK(mdb_txn_begin(e, NULL, 0, &t) == 0);
    CHECK(mdb_del(t, d, &key, NULL) == 0);
    CHECK(mdb_txn_commit(t) == 0);
    mdb_env_close(e);
    uint64_t psize = 0;
    CHECK(read_meta_u64(path, META_PSIZE, &psize));
    psize &= 0xffffffffu;
    for (int slot = 0; slot < 2; slot++) CHECK(patch16(path, slot * psize + META_MAIN_FLAGS, MDB_DUPFIXED));
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env), ORC_ERR_CORRUPT);
    CHECK(strstr(orc_last_error(), "its main database has flags 0x10") != NULL);
    CHECK(env == NULL);
    /* With MDB_DUPSORT it is a valid LMDB file, just not a realm. */
    for (int slot = 0; slot < 2; slot++)
        CHECK(patch16(path, slot * psize + META_MAIN_FLAGS, MDB_DUPSORT | MDB_DUPFIXED));
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env), ORC_ERR_NOT_A_REALM);
}
