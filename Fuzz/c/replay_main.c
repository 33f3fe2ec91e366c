/*
 * replay_main.c — runs a fuzz target's LLVMFuzzerTestOneInput over files
 * without libFuzzer: `replay_<target> PATH...`, each PATH a file or a
 * directory of files (not recursive). Prints how many inputs ran; exits 1 if a
 * path cannot be read, and aborts (as the target does) on a broken promise.
 */
#include "fuzz_support.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "out of memory reading %s\n", path);
        return -1;
    }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    int inputs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) < 0) return 1;
            inputs++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        if (n < 0) {
            fprintf(stderr, "cannot list %s\n", argv[i]);
            return 1;
        }
        for (int j = 0; j < n; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[j]->d_name);
            struct stat fst;
            if (names[j]->d_name[0] != '.' && stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
                if (run_file(path) < 0) return 1;
                inputs++;
            }
            free(names[j]);
        }
        free(names);
    }
    printf("%d inputs replayed without a failure\n", inputs);
    return 0;
}
