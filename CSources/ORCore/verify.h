/*
 * verify.h — structural verification of an LMDB file before LMDB maps it
 * (verify.c, verify_tree.c; the page layout is drawn at the top of verify.c).
 */
#ifndef ORCORE_VERIFY_H
#define ORCORE_VERIFY_H

#include "base.h"
#include "lmdb_page.h"

/**
 * Checks the LMDB file's structure before mdb_env_open (deep = ORC_ENV_VERIFY).
 * When `fd` is writable and only one meta page is damaged, rewrites it from
 * the intact one (see verify.c). Returns ORC_OK, ORC_ERR_CORRUPT,
 * ORC_ERR_NOT_A_REALM, ORC_ERR_NOMEM or an errno value.
 */
int verify_pages(const char *path, int fd, bool deep);

#endif /* ORCORE_VERIFY_H */
