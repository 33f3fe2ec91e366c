/*
 * text.h — string matching for queries (text.c): case folding, diacritic removal, LIKE.
 */
#ifndef ORCORE_TEXT_H
#define ORCORE_TEXT_H

#include "base.h"

/* ------------------------------------------------------------------------ */
/* text.c                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * String predicates with ORC_CMP_* flags: equality, begins / ends / contains,
 * LIKE with * and ?, and ordering (for case-insensitive < >). UTF-8 in, no
 * allocation for inputs up to a few KB.
 */
bool text_equal(const char *a, size_t an, const char *b, size_t bn, unsigned flags);
bool text_begins(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_ends(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_contains(const char *s, size_t sn, const char *p, size_t pn, unsigned flags);
bool text_like(const char *s, size_t sn, const char *pattern, size_t pn, unsigned flags);
int text_compare(const char *a, size_t an, const char *b, size_t bn, unsigned flags);

#endif /* ORCORE_TEXT_H */
