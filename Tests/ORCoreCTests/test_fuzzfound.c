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
#include "internal.h"

#include <stdlib.h>

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
