/* main.c — runs the registered C tests (see harness.h). */
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TESTS 1024

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int ntests;
static int current_failed;
static const char *current_name;
static char tmpdir[512];
static int path_counter;

void test_register(const char *name, test_fn fn)
{
    if (ntests < MAX_TESTS) {
        tests[ntests].name = name;
        tests[ntests].fn = fn;
        ntests++;
    }
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    current_failed = 1;
    fprintf(stderr, "  FAIL %s (%s:%d): ", current_name, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* SIGALRM in a guarded test: it hung. Only async-signal-safe calls. */
static void on_guard_alarm(int sig)
{
    (void)sig;
    static const char head[] = "  FAIL ", tail[] = ": timed out (deadlock?)\n";
    if (write(2, head, sizeof head - 1) < 0 || write(2, current_name, strlen(current_name)) < 0
        || write(2, tail, sizeof tail - 1) < 0) _exit(1);
    _exit(1);
}

void test_guard(unsigned seconds)
{
    signal(SIGALRM, on_guard_alarm);
    alarm(seconds);
}

const char *test_dir(void) { return tmpdir; }

const char *test_path(const char *name)
{
    static char paths[64][600];
    char *p = paths[path_counter % 64];
    snprintf(p, 600, "%s/%d-%s", tmpdir, path_counter, name);
    path_counter++;
    return p;
}

uint64_t test_seed(void)
{
    const char *s = getenv("ORC_TEST_SEED");
    if (s) return strtoull(s, NULL, 0);
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = current_name; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ULL;
    return h | 1;
}

uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
        else unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int matches(const char *name, int argc, char **argv)
{
    if (argc <= 1) return 1;
    for (int i = 1; i < argc; i++)
        if (strncmp(name, argv[i], strlen(argv[i])) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/orcore-tests-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (!matches(tests[i].name, argc, argv)) continue;
        current_name = tests[i].name;
        current_failed = 0;
        tests[i].fn();
        printf("%s %s\n", current_failed ? "FAIL" : "ok  ", tests[i].name);
        fflush(stdout);
        if (current_failed) failed++;
        else passed++;
    }
    if (!getenv("ORC_TEST_KEEP")) remove_tree(tmpdir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : (passed ? 0 : 3);
}
