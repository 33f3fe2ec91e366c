/* fuzz_support.c — see fuzz_support.h. */
#include "fuzz_support.h"
#include "remove_tree.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FUZZ FAILURE: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static char dir[512];

static void remove_dir(void) { remove_tree(dir); }

const char *fuzz_dir(void)
{
    if (dir[0]) return dir;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/orcore-fuzz-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir)) fuzz_fail("cannot create a scratch directory %s", dir);
    atexit(remove_dir);
    return dir;
}

void fuzz_expect_status(int rc, const char *call)
{
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("ORC_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "  %s: %s\n", call, rc ? orc_last_error() : "ok");
    if (rc == ORC_OK) return;
    if (rc == ORC_ERR_INTERNAL) fuzz_fail("%s: ORC_ERR_INTERNAL (%s)", call, orc_last_error());
    const char *msg = orc_last_error();
    if (!msg || !msg[0]) fuzz_fail("%s failed with %d and no message", call, rc);
}
