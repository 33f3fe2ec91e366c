/*
 * fuzz_seeds.c — writes the seed corpora of the ORCore fuzz targets:
 * `fuzz_seeds DIR` fills DIR/realm-file and DIR/changeset (which must exist).
 *
 * The realm: classes Person {id: int pk, name: string indexed, age: int?,
 * score: double, born: timestamp, tags: [string], nums: set<int>,
 * attrs: dict<string, mixed>, best: Person, friends: [Person], home: Address},
 * Address (embedded) {city: string}, and Note {text: string, data: binary,
 * oid: objectId, uuid: uuid, dec: decimal128}; a handful of objects over four
 * commits, the fourth erasing an object (a free page, derived instructions);
 * then a fifth adding 150 Items {code: string pk, qty: int, label: string},
 * which read transactions read through the page walk (scan.c).
 * Written twice: as committed (realm-file/small-realm) and compacted by
 * orc_env_copy (realm-file/compact-realm; no .realm suffix, which .gitignore drops).
 * Fuzz/corpus/realm-file also keeps both as the last format 2 build wrote them
 * (*-format-2: one index entry per object, 8-byte primary-key values).
 *
 * The changesets: each version's changeset as mode 0 (`cs-vN`), as a raw and a
 * zstd log entry (mode 1, `entry-raw-vN`, `entry-zstd-vN`), and every version's
 * instructions back to back, header-less, as mode 2 (`replay-all`), which
 * replays cleanly into an empty realm. The first byte of each is the mode
 * (fuzz_changeset.c).
 */
#include "fuzz_support.h"
#include "log_format.h"

#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define OK(expr)                                                                    \
    do {                                                                            \
        int rc_ = (expr);                                                           \
        if (rc_) fuzz_fail("%s: %s", #expr, orc_last_error());                      \
    } while (0)

static orc_value v_int(int64_t i) { return (orc_value){.type = ORC_TYPE_INT, .integer = i}; }
static orc_value v_str(const char *s) { return (orc_value){.type = ORC_TYPE_STRING, .string = {s, strlen(s)}}; }

static void write_file(const char *dir, const char *name, uint8_t mode, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) fuzz_fail("cannot write %s", path);
    if (mode != 0xFF) fputc(mode, f);
    if (size && fwrite(data, 1, size, f) != size) fuzz_fail("cannot write %s", path);
    fclose(f);
}

static uint16_t prop(orc_txn *w, uint32_t table, const char *name, orc_type type, orc_collection coll,
                     uint32_t flags, uint32_t link)
{
    orc_prop_spec spec = {.name = name, .type = type, .collection = coll, .flags = flags, .link_table = link};
    uint16_t col;
    OK(orc_prop_add(w, table, &spec, &col));
    return col;
}

static void build(const char *path)
{
    orc_env *env;
    OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    orc_txn *w;
    uint32_t person, address, note;

    /* v1: the schema. */
    OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    OK(orc_class_add(w, "Person", ORC_CLASS_TOP_LEVEL, &person));
    OK(orc_class_add(w, "Address", ORC_CLASS_EMBEDDED, &address));
    OK(orc_class_add(w, "Note", ORC_CLASS_TOP_LEVEL, &note));
    uint16_t id = prop(w, person, "id", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0);
    uint16_t name = prop(w, person, "name", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_INDEXED, 0);
    uint16_t age = prop(w, person, "age", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0);
    uint16_t score = prop(w, person, "score", ORC_TYPE_DOUBLE, ORC_COLL_NONE, 0, 0);
    uint16_t born = prop(w, person, "born", ORC_TYPE_TIMESTAMP, ORC_COLL_NONE, 0, 0);
    uint16_t tags = prop(w, person, "tags", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0);
    uint16_t nums = prop(w, person, "nums", ORC_TYPE_INT, ORC_COLL_SET, 0, 0);
    uint16_t attrs = prop(w, person, "attrs", ORC_TYPE_MIXED, ORC_COLL_DICT, ORC_PROP_OPTIONAL, 0);
    uint16_t best = prop(w, person, "best", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, person);
    uint16_t friends = prop(w, person, "friends", ORC_TYPE_LINK, ORC_COLL_LIST, 0, person);
    uint16_t home = prop(w, person, "home", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, address);
    uint16_t city = prop(w, address, "city", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0);
    uint16_t text = prop(w, note, "text", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0);
    uint16_t data = prop(w, note, "data", ORC_TYPE_BINARY, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0);
    uint16_t oid = prop(w, note, "oid", ORC_TYPE_OBJECT_ID, ORC_COLL_NONE, ORC_PROP_INDEXED, 0);
    uint16_t uuid = prop(w, note, "uuid", ORC_TYPE_UUID, ORC_COLL_NONE, 0, 0);
    uint16_t dec = prop(w, note, "dec", ORC_TYPE_DECIMAL, ORC_COLL_NONE, 0, 0);
    OK(orc_txn_commit(w, NULL));

    /* v2: people with values and collections. */
    static const char *names[] = {"Ada", "Grace", "Edsger", "Barbara", "Ken"};
    uint64_t keys[5];
    OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 5; i++) {
        uint16_t cols[] = {id, name, age, score, born};
        orc_value vals[] = {v_int(i + 1), v_str(names[i]),
                            i == 2 ? (orc_value){.type = ORC_TYPE_NULL} : v_int(30 + i),
                            {.type = ORC_TYPE_DOUBLE, .dnum = 1.5 * i},
                            {.type = ORC_TYPE_TIMESTAMP, .timestamp = {1700000000 + i, 500}}};
        OK(orc_obj_create(w, person, cols, vals, 5, &keys[i]));
        orc_value t1 = v_str("swift"), t2 = v_str("lmdb");
        OK(orc_list_insert(w, person, keys[i], tags, 0, &t1));
        OK(orc_list_insert(w, person, keys[i], tags, 1, &t2));
        for (int j = 0; j <= i; j++) {
            orc_value n = v_int(j * 7);
            OK(orc_set_insert(w, person, keys[i], nums, &n, NULL));
        }
        orc_value a = v_int(i), b = v_str("x");
        OK(orc_dict_set(w, person, keys[i], attrs, "level", 5, &a));
        OK(orc_dict_set(w, person, keys[i], attrs, "mark", 4, &b));
        uint64_t child;
        OK(orc_obj_create_embedded(w, person, keys[i], home, 0, NULL, &child));
        orc_value c = v_str(i % 2 ? "Paris" : "Oslo");
        OK(orc_obj_set(w, address, child, city, &c));
    }
    for (int i = 0; i < 5; i++) {
        orc_value l = {.type = ORC_TYPE_LINK, .link = {person, keys[(i + 1) % 5]}};
        OK(orc_obj_set(w, person, keys[i], best, &l));
        OK(orc_list_insert(w, person, keys[i], friends, 0, &l));
    }
    OK(orc_txn_commit(w, NULL));

    /* v3: notes with the remaining types, one value on an overflow page. */
    OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    static char big[5000];
    memset(big, 'z', sizeof big);
    for (int i = 0; i < 3; i++) {
        uint16_t cols[] = {text, data, oid, uuid, dec};
        orc_value vals[] = {i == 2 ? (orc_value){.type = ORC_TYPE_STRING, .string = {big, sizeof big}} : v_str("note"),
                            {.type = ORC_TYPE_BINARY, .string = {"\x00\x01\x02", 3}},
                            {.type = ORC_TYPE_OBJECT_ID, .object_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, (uint8_t)i}},
                            {.type = ORC_TYPE_UUID, .uuid = {0xAA, (uint8_t)i}},
                            {.type = ORC_TYPE_DECIMAL, .decimal = {{(uint64_t)(i + 1), 0x3040000000000000ULL}}}};
        uint64_t k;
        OK(orc_obj_create(w, note, cols, vals, 5, &k));
    }
    OK(orc_txn_commit(w, NULL));

    /* v4: edits and an erase (derived instructions: the links to it). */
    OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    OK(orc_obj_add_int(w, person, keys[0], age, 1));
    OK(orc_list_move(w, person, keys[1], tags, 0, 1));
    OK(orc_obj_erase(w, person, keys[4]));
    OK(orc_txn_commit(w, NULL));

    /*
     * v5: enough Items (string primary key) for a read transaction to walk their
     * table's pages and descend their primary-key index itself (scan.c), over
     * two levels of each, rather than through LMDB's cursor and mdb_get.
     */
    OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    uint32_t item;
    OK(orc_class_add(w, "Item", ORC_CLASS_TOP_LEVEL, &item));
    uint16_t code = prop(w, item, "code", ORC_TYPE_STRING, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0);
    uint16_t qty = prop(w, item, "qty", ORC_TYPE_INT, ORC_COLL_NONE, 0, 0);
    uint16_t label = prop(w, item, "label", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0);
    for (int i = 0; i < 150; i++) {
        char c[32], l[96];
        snprintf(c, sizeof c, "item-%05d", i * 7);
        snprintf(l, sizeof l, "label of item %d, to fill a few leaves", i);
        uint16_t cols[] = {code, qty, label};
        orc_value vals[] = {v_str(c), v_int(i), v_str(l)};
        uint64_t k;
        OK(orc_obj_create(w, item, cols, vals, 3, &k));
    }
    OK(orc_txn_commit(w, NULL));
    orc_env_close(env);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR (writes DIR/realm-file and DIR/changeset)\n");
        return 2;
    }
    char path[600], copy[600], out[1024];
    snprintf(path, sizeof path, "%s/seed.realm", fuzz_dir());
    snprintf(copy, sizeof copy, "%s/compact.realm", fuzz_dir());
    build(path);

    orc_env *env;
    OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    OK(orc_env_copy(env, copy));
    orc_txn *r;
    OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    snprintf(out, sizeof out, "%s/changeset", argv[1]);
    uint8_t *all = NULL;
    size_t all_size = 0;
    for (uint64_t v = 1; v <= orc_txn_version(r); v++) {
        const void *cs;
        size_t n;
        OK(orc_log_get(r, v, &cs, &n));
        char name[64];
        snprintf(name, sizeof name, "cs-v%llu", (unsigned long long)v);
        write_file(out, name, 0, cs, n);

        uint8_t *entry = malloc(5 + ZSTD_compressBound(n));
        entry[0] = CS_CODEC_RAW;
        uint32_t raw = (uint32_t)n;
        memcpy(entry + 1, &raw, 4);
        memcpy(entry + 5, cs, n);
        snprintf(name, sizeof name, "entry-raw-v%llu", (unsigned long long)v);
        write_file(out, name, 1, entry, 5 + n);
        size_t z = ZSTD_compress(entry + 5, ZSTD_compressBound(n), cs, n, 3);
        if (ZSTD_isError(z)) fuzz_fail("zstd: %s", ZSTD_getErrorName(z));
        entry[0] = CS_CODEC_ZSTD;
        snprintf(name, sizeof name, "entry-zstd-v%llu", (unsigned long long)v);
        write_file(out, name, 1, entry, 5 + z);
        free(entry);

        all = realloc(all, all_size + n - CS_HEADER_SIZE);
        memcpy(all + all_size, (const uint8_t *)cs + CS_HEADER_SIZE, n - CS_HEADER_SIZE);
        all_size += n - CS_HEADER_SIZE;
    }
    write_file(out, "replay-all", 2, all, all_size);
    free(all);
    orc_txn_abort(r);
    orc_env_close(env);

    snprintf(out, sizeof out, "%s/realm-file", argv[1]);
    const char *files[2][2] = {{path, "small-realm"}, {copy, "compact-realm"}};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i][0], "rb");
        if (!f) fuzz_fail("cannot read %s", files[i][0]);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        uint8_t *buf = malloc((size_t)n);
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) fuzz_fail("cannot read %s", files[i][0]);
        fclose(f);
        write_file(out, files[i][1], 0xFF, buf, (size_t)n);
        free(buf);
    }
    printf("seeds written to %s/realm-file and %s/changeset\n", argv[1], argv[1]);
    return 0;
}
