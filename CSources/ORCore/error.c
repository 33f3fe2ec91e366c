/*
 * error.c — status codes, their names, and the calling thread's last failure.
 *
 * Every failing ORCore call goes through orc_fail(), which leaves the code and
 * a message (prefixed with the code's name) in thread-local storage, so that
 * the API stays a plain `int` status while callers can still tell the user
 * what was wrong. LMDB codes are mapped here and nowhere else.
 */
#include "base.h"

#include <lmdb.h>
#include <pthread.h>

#include <errno.h>
#include <stdio.h>
#include <zstd.h>

static __thread int last_status;
static __thread char last_message[1024];
/* A message orc_fail_later left to write: its literals and a copy of its name. */
static __thread const char *later_before, *later_after;
static __thread char later_name[256];

static const struct {
    int code;
    const char *text;
} codes[] = {
    {ORC_ERR_NOT_FOUND, "ORC_ERR_NOT_FOUND: not found"},
    {ORC_ERR_EXISTS, "ORC_ERR_EXISTS: already exists"},
    {ORC_ERR_INVALID_ARG, "ORC_ERR_INVALID_ARG: invalid argument"},
    {ORC_ERR_WRONG_TYPE, "ORC_ERR_WRONG_TYPE: wrong type"},
    {ORC_ERR_NOT_NULLABLE, "ORC_ERR_NOT_NULLABLE: property is not optional"},
    {ORC_ERR_READ_ONLY, "ORC_ERR_READ_ONLY: write in a read-only transaction or environment"},
    {ORC_ERR_CORRUPT, "ORC_ERR_CORRUPT: the file is damaged"},
    {ORC_ERR_NOT_A_REALM, "ORC_ERR_NOT_A_REALM: not a realm file"},
    {ORC_ERR_FORMAT_VERSION, "ORC_ERR_FORMAT_VERSION: unsupported file format version"},
    {ORC_ERR_SCHEMA, "ORC_ERR_SCHEMA: schema error"},
    {ORC_ERR_MAP_FULL, "ORC_ERR_MAP_FULL: the database map could not grow"},
    {ORC_ERR_BUSY, "ORC_ERR_BUSY: resource busy"},
    {ORC_ERR_QUERY, "ORC_ERR_QUERY: malformed query"},
    {ORC_ERR_OUT_OF_RANGE, "ORC_ERR_OUT_OF_RANGE: index out of range"},
    {ORC_ERR_TRIMMED, "ORC_ERR_TRIMMED: log entry was trimmed"},
    {ORC_ERR_BAD_TXN, "ORC_ERR_BAD_TXN: transaction is not usable"},
    {ORC_ERR_NOMEM, "ORC_ERR_NOMEM: out of memory"},
    {ORC_ERR_EMBEDDED, "ORC_ERR_EMBEDDED: embedded object ownership violated"},
    {ORC_ERR_INCOMPATIBLE_LOCK, "ORC_ERR_INCOMPATIBLE_LOCK: incompatible lock file"},
    {ORC_ERR_INTERNAL, "ORC_ERR_INTERNAL: internal error"},
};

const char *orc_strerror(int status)
{
    if (status == ORC_OK) return "ORC_OK: success";
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i].code == status) return codes[i].text;
    if (status > 0) return strerror(status);
    return "unknown ORCore status";
}

/* The code's name: the text up to the colon. */
static size_t code_name(int code, char *out, size_t cap)
{
    const char *t = orc_strerror(code);
    const char *colon = (code <= ORC_ERR_LAST && code >= ORC_ERR_FIRST) ? strchr(t, ':') : NULL;
    if (colon) return (size_t)snprintf(out, cap, "%.*s: ", (int)(colon - t), t);
    return (size_t)snprintf(out, cap, "errno %d (%s): ", code, t);
}

int orc_fail(int code, const char *fmt, ...)
{
    later_before = NULL;
    size_t n = code_name(code, last_message, sizeof last_message);
    if (n >= sizeof last_message) n = sizeof last_message - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message + n, sizeof last_message - n, fmt, ap);
    va_end(ap);
    last_status = code;
    return code;
}

int orc_fail_mdb(int rc, const char *what)
{
    switch (rc) {
    case MDB_SUCCESS: return ORC_OK;
    case MDB_NOTFOUND: return orc_fail(ORC_ERR_NOT_FOUND, "%s: not found", what);
    case MDB_KEYEXIST: return orc_fail(ORC_ERR_EXISTS, "%s: key exists", what);
    case MDB_MAP_FULL: return orc_fail(ORC_ERR_MAP_FULL, "%s: the map is full", what);
    case MDB_READERS_FULL: return orc_fail(ORC_ERR_BUSY, "%s: the reader table is full", what);
    case MDB_DBS_FULL: return orc_fail(ORC_ERR_SCHEMA, "%s: too many named databases", what);
    case MDB_INVALID: return orc_fail(ORC_ERR_NOT_A_REALM, "%s: not an LMDB file", what);
    case MDB_VERSION_MISMATCH: return orc_fail(ORC_ERR_FORMAT_VERSION, "%s: LMDB version mismatch", what);
    case MDB_INCOMPATIBLE: return orc_fail(ORC_ERR_CORRUPT, "%s: database flags are incompatible", what);
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND: return orc_fail(ORC_ERR_CORRUPT, "%s: %s", what, mdb_strerror(rc));
    case MDB_BAD_RSLOT:
    case MDB_BAD_TXN: return orc_fail(ORC_ERR_BAD_TXN, "%s: %s", what, mdb_strerror(rc));
    case MDB_TXN_FULL: return orc_fail(ORC_ERR_MAP_FULL, "%s: the transaction is too large", what);
    case MDB_BAD_VALSIZE: return orc_fail(ORC_ERR_INVALID_ARG, "%s: key or value size out of range", what);
    case MDB_PANIC:
        /*
         * LMDB stops an environment after a write of a meta page failed (an
         * I/O error, a full disk). The file is intact — the previous commit's
         * meta page still stands — so this is not ORC_ERR_CORRUPT, which
         * would say the file is damaged and invite deleting it.
         */
        return orc_fail(EIO,
                        "%s: an earlier write to the file failed (an I/O error or a full disk) and the environment "
                        "stopped; close every handle on the file and open it again",
                        what);
    case MDB_MAP_RESIZED: return orc_fail(ORC_ERR_BUSY, "%s: the map was resized by another process", what);
    default:
        if (rc > 0) return orc_fail(rc, "%s: %s", what, strerror(rc));
        return orc_fail(ORC_ERR_INTERNAL, "%s: %s", what, mdb_strerror(rc));
    }
}

int orc_fail_later(int code, const char *before, const char *name, const char *after)
{
    size_t n = strlen(name);
    if (n >= sizeof later_name) n = sizeof later_name - 1;
    memcpy(later_name, name, n);
    later_name[n] = '\0';
    later_before = before;
    later_after = after;
    last_status = code;
    return code;
}

const char *orc_last_error(void)
{
    if (later_before) orc_fail(last_status, "%s%s%s", later_before, later_name, later_after);
    return last_status ? last_message : "";
}

int orc_last_status(void) { return last_status; }

static char version_text[128];

static void version_fill(void)
{
    int major, minor, patch;
    mdb_version(&major, &minor, &patch);
    unsigned z = ZSTD_versionNumber();
    snprintf(version_text, sizeof version_text, "ORCore 0.1.0 (LMDB %d.%d.%d, zstd %u.%u.%u)", major, minor, patch,
             z / 10000, (z / 100) % 100, z % 100);
}

const char *orc_version_string(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, version_fill);
    return version_text;
}
