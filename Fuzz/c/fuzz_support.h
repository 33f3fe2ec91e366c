/*
 * fuzz_support.h — what the ORCore fuzz targets share.
 *
 * Each target (fuzz_<name>.c) defines LLVMFuzzerTestOneInput. It is linked
 * twice (Fuzz/c/CMakeLists.txt): with libFuzzer when ORC_FUZZ=ON (clang,
 * -fsanitize=fuzzer,address,undefined) as `fuzz_<name>`, and with
 * replay_main.c in every build as `replay_<name>`, which runs the same
 * function over the files given on its command line (the committed corpus and
 * regression inputs, under CTest).
 *
 * A target never exits on bad input: it expects an ORCore error status. It
 * calls fuzz_fail (abort) only when ORCore breaks a promise of orcore.h, so
 * that libFuzzer records the input as a crash.
 */
#ifndef ORC_FUZZ_SUPPORT_H
#define ORC_FUZZ_SUPPORT_H

#include "orcore.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Reports a broken promise and aborts (libFuzzer then keeps the input). */
__attribute__((noreturn, format(printf, 1, 2))) void fuzz_fail(const char *fmt, ...);

/**
 * A private directory for the process's scratch files, created on first use
 * (under /dev/shm when it exists, else $TMPDIR or /tmp) and removed at exit.
 */
const char *fuzz_dir(void);

/**
 * Aborts unless `rc` is ORC_OK or an error with a message; ORC_ERR_INTERNAL always
 * aborts. With ORC_FUZZ_VERBOSE set in the environment, prints every status.
 */
void fuzz_expect_status(int rc, const char *call);

#endif
