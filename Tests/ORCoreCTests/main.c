/* main.c — runs the registered C tests (see harness.h). */
#include "harness.h"
#include "remove_tree.h"

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

const char *test_dir(void) { return tmpdir; }

const char *test_path(const char *name)
{
    static char paths[64][600];
    char *p = paths[path_counter % 64];
    snprintf(p, 600, "%s/%d-%s", tmpdir, path_counter, name);
    path_counter++;
    return p;
}

bool test_keys_equal(const orc_keys *got, const uint64_t *want, size_t n, const char *what)
{
    if (got->count != n) HFAIL("%s: %zu keys, want %zu", what, got->count, n);
    for (size_t i = 0; i < n; i++)
        if (got->keys[i] != want[i]) HFAIL("%s: key #%zu is %" PRIu64 ", want %" PRIu64, what, i, got->keys[i], want[i]);
    return true;
}

int test_open_writing(const char *path, orc_env **env, orc_txn **w)
{
    int rc = orc_env_open(path, ORC_ENV_NO_SYNC, NULL, env);
    return rc ? rc : orc_txn_begin(*env, ORC_TXN_WRITE, w);
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

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = " timed out (deadlock?)\n";
    if (write(2, current_name, strlen(current_name)) < 0 || write(2, msg, sizeof msg - 1) < 0) _exit(1);
    _exit(1);
}

void test_guard(unsigned seconds)
{
    signal(SIGALRM, on_alarm);
    alarm(seconds);
}

pid_t test_fork_with_pipes(int down[2], int up[2])
{
    if (pipe(down) != 0) return -1;
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) { /* the parent's side; after a failed fork, both sides' */
        close(down[0]);
        close(up[1]);
    }
    if (pid <= 0) { /* the child's side */
        close(down[1]);
        close(up[0]);
    }
    return pid;
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
