/*
 * text.c — string predicates for queries: equality, begins / ends / contains,
 * LIKE and ordering, optionally case- and diacritic-insensitive.
 *
 * MODEL. A string is read as a sequence of UNITS. Without flags a unit is a
 * code point and the predicates reduce to byte operations (UTF-8 preserves
 * code point order and substring structure), except LIKE, whose `?` is one
 * code point. With flags, each code point c is mapped before comparing:
 *
 *   ORC_CMP_DIACRITIC_INSENSITIVE  combining marks U+0300-U+036F are dropped;
 *                                  accented Latin letters (Latin-1, Extended-A,
 *                                  common Extended-B, Latin Extended Additional)
 *                                  become their base letter, keeping case;
 *                                  Greek tonos / dialytika letters and Cyrillic
 *                                  letters with breve / diaeresis / grave /
 *                                  acute (й->и, ё->е, ...) become their base.
 *   ORC_CMP_CASE_INSENSITIVE       simple one-to-one Unicode case folding
 *                                  (CaseFolding.txt statuses C and S) for Basic
 *                                  Latin, Latin-1, Latin Extended-A and -B,
 *                                  Greek (final sigma folds to sigma), Cyrillic
 *                                  and Cyrillic Supplement, Latin Extended
 *                                  Additional. Multi-character folds (ß -> ss)
 *                                  are not applied.
 *
 * Diacritics are removed before folding; the tables cover upper and lower
 * case alike, so the result equals folding first.
 *
 * INVALID UTF-8 never stops a predicate: each byte that does not start a
 * well-formed sequence (overlong forms, surrogates and values above U+10FFFF
 * are ill-formed) is one unit on its own, U+DC00 + byte (the "surrogate
 * escape" range, which valid UTF-8 cannot produce). So a stray byte matches
 * only the same stray byte, never a real character, and no read goes past
 * the given length.
 *
 * COST. Everything streams over byte offsets without allocating: equality,
 * prefix and ordering in one pass, suffix in two passes (count, then compare
 * the tail), LIKE with the greedy star-backtracking algorithm (O(n*m) worst
 * case, never exponential). CONTAINS folds the pattern into a stack buffer
 * (heap above STACK_UNITS units) and runs Knuth-Morris-Pratt over the text
 * (O(n+m)); if that allocation fails it falls back to the quadratic scan.
 */
#include "text.h"

#include <stdlib.h>

#define TEXT_FLAGS (ORC_CMP_CASE_INSENSITIVE | ORC_CMP_DIACRITIC_INSENSITIVE)
#define STACK_UNITS 128

/* ------------------------------------------------------------------------ */
/* Tables                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct cpmap {
    uint16_t from, to;
} cpmap;

/* Case folds that no range rule in fold_cp() covers, sorted by `from`. */
static const cpmap fold_pairs[] = {
    { 0x0178, 0x00FF }, { 0x017F, 0x0073 }, { 0x0181, 0x0253 }, { 0x0182, 0x0183 }, { 0x0184, 0x0185 },
    { 0x0186, 0x0254 }, { 0x0187, 0x0188 }, { 0x0189, 0x0256 }, { 0x018A, 0x0257 }, { 0x018B, 0x018C },
    { 0x018E, 0x01DD }, { 0x018F, 0x0259 }, { 0x0190, 0x025B }, { 0x0191, 0x0192 }, { 0x0193, 0x0260 },
    { 0x0194, 0x0263 }, { 0x0196, 0x0269 }, { 0x0197, 0x0268 }, { 0x0198, 0x0199 }, { 0x019C, 0x026F },
    { 0x019D, 0x0272 }, { 0x019F, 0x0275 }, { 0x01A0, 0x01A1 }, { 0x01A2, 0x01A3 }, { 0x01A4, 0x01A5 },
    { 0x01A6, 0x0280 }, { 0x01A7, 0x01A8 }, { 0x01A9, 0x0283 }, { 0x01AC, 0x01AD }, { 0x01AE, 0x0288 },
    { 0x01AF, 0x01B0 }, { 0x01B1, 0x028A }, { 0x01B2, 0x028B }, { 0x01B3, 0x01B4 }, { 0x01B5, 0x01B6 },
    { 0x01B7, 0x0292 }, { 0x01B8, 0x01B9 }, { 0x01BC, 0x01BD }, { 0x01C4, 0x01C6 }, { 0x01C5, 0x01C6 },
    { 0x01C7, 0x01C9 }, { 0x01C8, 0x01C9 }, { 0x01CA, 0x01CC }, { 0x01CB, 0x01CC }, { 0x01F1, 0x01F3 },
    { 0x01F2, 0x01F3 }, { 0x01F4, 0x01F5 }, { 0x01F6, 0x0195 }, { 0x01F7, 0x01BF }, { 0x0220, 0x019E },
    { 0x023A, 0x2C65 }, { 0x023B, 0x023C }, { 0x023D, 0x019A }, { 0x023E, 0x2C66 }, { 0x0241, 0x0242 },
    { 0x0243, 0x0180 }, { 0x0244, 0x0289 }, { 0x0245, 0x028C }, { 0x0370, 0x0371 }, { 0x0372, 0x0373 },
    { 0x0376, 0x0377 }, { 0x037F, 0x03F3 }, { 0x0386, 0x03AC }, { 0x038C, 0x03CC }, { 0x038E, 0x03CD },
    { 0x038F, 0x03CE }, { 0x03C2, 0x03C3 }, { 0x03CF, 0x03D7 }, { 0x03D0, 0x03B2 }, { 0x03D1, 0x03B8 },
    { 0x03D5, 0x03C6 }, { 0x03D6, 0x03C0 }, { 0x03F0, 0x03BA }, { 0x03F1, 0x03C1 }, { 0x03F4, 0x03B8 },
    { 0x03F5, 0x03B5 }, { 0x03F7, 0x03F8 }, { 0x03F9, 0x03F2 }, { 0x03FA, 0x03FB }, { 0x03FD, 0x037B },
    { 0x03FE, 0x037C }, { 0x03FF, 0x037D }, { 0x1E9B, 0x1E61 }, { 0x1E9E, 0x00DF },
};

/*
 * Base letters of U+00C0 ... U+023F, one character per code point, '.' for
 * none (from the canonical decompositions, plus the stroke letters Ø Đ Ħ Ł Ŧ
 * and Ǿ, which have none but are read as accented letters).
 */
static const char latin_base[] =
    "AAAAAA.CEEEEIIII.NOOOOO.OUUUUY..aaaaaa.ceeeeiiii.nooooo.ouuuuy.y" /* 00C0 */
    "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiI...JjKk.LlLlLl." /* 0100 */
    ".LlNnNnNn...OoOoOo..RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZz." /* 0140 */
    "................................Oo.............Uu..............." /* 0180 */
    ".............AaIiOoUuUuUuUuUu.AaAa....GgKkOoOo..j...Gg..NnAa..Oo" /* 01C0 */
    "AaAaEeEeIiIiOoOoRrRrUuUuSsTt..Hh......AaEeOoOoOoOoYy............"; /* 0200 */

/* Base letters of Latin Extended Additional, U+1E00 ... U+1EFF. */
static const char latin_ext_base[] =
    "AaBbBbBbCcDdDdDdDdDdEeEeEeEeEeFfGgHhHhHhHhHhIiIiKkKkKkLlLlLlLlMm" /* 1E00 */
    "MmMmNnNnNnNnOoOoOoOoPpPpRrRrRrRrSsSsSsSsSsTtTtTtTtUuUuUuUuUuVvVv" /* 1E40 */
    "WwWwWwWwWwXxXxYyZzZzZzhtwy......AaAaAaAaAaAaAaAaAaAaAaAaEeEeEeEe" /* 1E80 */
    "EeEeEeEeIiIiOoOoOoOoOoOoOoOoOoOoOoOoUuUuUuUuUuUuUuYyYyYyYy......"; /* 1EC0 */

/* Other diacritic removals (non-ASCII bases), sorted by `from`. */
static const cpmap strip_pairs[] = {
    { 0x01E2, 0x00C6 }, { 0x01E3, 0x00E6 }, { 0x01EE, 0x01B7 }, { 0x01EF, 0x0292 }, { 0x01FC, 0x00C6 },
    { 0x01FD, 0x00E6 }, { 0x0386, 0x0391 }, { 0x0388, 0x0395 }, { 0x0389, 0x0397 }, { 0x038A, 0x0399 },
    { 0x038C, 0x039F }, { 0x038E, 0x03A5 }, { 0x038F, 0x03A9 }, { 0x0390, 0x03B9 }, { 0x03AA, 0x0399 },
    { 0x03AB, 0x03A5 }, { 0x03AC, 0x03B1 }, { 0x03AD, 0x03B5 }, { 0x03AE, 0x03B7 }, { 0x03AF, 0x03B9 },
    { 0x03B0, 0x03C5 }, { 0x03CA, 0x03B9 }, { 0x03CB, 0x03C5 }, { 0x03CC, 0x03BF }, { 0x03CD, 0x03C5 },
    { 0x03CE, 0x03C9 }, { 0x03D3, 0x03D2 }, { 0x03D4, 0x03D2 }, { 0x0400, 0x0415 }, { 0x0401, 0x0415 },
    { 0x0403, 0x0413 }, { 0x0407, 0x0406 }, { 0x040C, 0x041A }, { 0x040D, 0x0418 }, { 0x040E, 0x0423 },
    { 0x0419, 0x0418 }, { 0x0439, 0x0438 }, { 0x0450, 0x0435 }, { 0x0451, 0x0435 }, { 0x0453, 0x0433 },
    { 0x0457, 0x0456 }, { 0x045C, 0x043A }, { 0x045D, 0x0438 }, { 0x045E, 0x0443 }, { 0x0476, 0x0474 },
    { 0x0477, 0x0475 }, { 0x04C1, 0x0416 }, { 0x04C2, 0x0436 }, { 0x04D0, 0x0410 }, { 0x04D1, 0x0430 },
    { 0x04D2, 0x0410 }, { 0x04D3, 0x0430 }, { 0x04D6, 0x0415 }, { 0x04D7, 0x0435 }, { 0x04DA, 0x04D8 },
    { 0x04DB, 0x04D9 }, { 0x04DC, 0x0416 }, { 0x04DD, 0x0436 }, { 0x04DE, 0x0417 }, { 0x04DF, 0x0437 },
    { 0x04E2, 0x0418 }, { 0x04E3, 0x0438 }, { 0x04E4, 0x0418 }, { 0x04E5, 0x0438 }, { 0x04E6, 0x041E },
    { 0x04E7, 0x043E }, { 0x04EA, 0x04E8 }, { 0x04EB, 0x04E9 }, { 0x04EC, 0x042D }, { 0x04ED, 0x044D },
    { 0x04EE, 0x0423 }, { 0x04EF, 0x0443 }, { 0x04F0, 0x0423 }, { 0x04F1, 0x0443 }, { 0x04F2, 0x0423 },
    { 0x04F3, 0x0443 }, { 0x04F4, 0x0427 }, { 0x04F5, 0x0447 }, { 0x04F8, 0x042B }, { 0x04F9, 0x044B },
    { 0x1E9B, 0x017F },
};

static uint32_t map_lookup(const cpmap *m, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].from == c) return m[mid].to;
        if (m[mid].from < c) lo = mid + 1;
        else hi = mid;
    }
    return c;
}

#define EVEN_UP(c) (((c) & 1) ? (c) : (c) + 1) /* pairs with the capital on the even code point */
#define ODD_UP(c) (((c) & 1) ? (c) + 1 : (c))  /* pairs with the capital on the odd code point */

static uint32_t fold_cp(uint32_t c)
{
    if (c < 0x80) return c - 'A' < 26 ? c + 32 : c;
    if (c < 0x100) {
        if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
        return c == 0xB5 ? 0x3BC : c; /* micro sign folds to mu */
    }
    if (c < 0x180) {
        if ((c < 0x130) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return EVEN_UP(c);
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return ODD_UP(c);
    } else if (c < 0x250) {
        if (c >= 0x1CD && c <= 0x1DC) return ODD_UP(c);
        if ((c >= 0x1DE && c <= 0x1EF) || (c >= 0x1F8 && c <= 0x21F) || (c >= 0x222 && c <= 0x233) ||
            (c >= 0x246 && c <= 0x24F))
            return EVEN_UP(c);
    } else if (c < 0x370) {
        return c == 0x345 ? 0x3B9 : c;
    } else if (c < 0x400) {
        if (c >= 0x388 && c <= 0x38A) return c + 37;
        if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
        if (c >= 0x3D8 && c <= 0x3EF) return EVEN_UP(c);
    } else if (c < 0x530) {
        if (c < 0x410) return c + 80;
        if (c < 0x430) return c + 32;
        if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || c >= 0x4D0) return EVEN_UP(c);
        if (c >= 0x4C1 && c <= 0x4CE) return ODD_UP(c);
        return c == 0x4C0 ? 0x4CF : c;
    } else if (c >= 0x1E00 && c <= 0x1EFF) {
        if (c <= 0x1E95 || c >= 0x1EA0) return EVEN_UP(c);
    } else {
        return c;
    }
    return map_lookup(fold_pairs, sizeof fold_pairs / sizeof fold_pairs[0], c);
}

static uint32_t strip_cp(uint32_t c)
{
    if (c < 0xC0) return c;
    if (c < 0x240) {
        char b = latin_base[c - 0xC0];
        if (b != '.') return (uint8_t)b;
    } else if (c >= 0x1E00 && c <= 0x1EFF) {
        char b = latin_ext_base[c - 0x1E00];
        if (b != '.') return (uint8_t)b;
    }
    return map_lookup(strip_pairs, sizeof strip_pairs / sizeof strip_pairs[0], c);
}

/* ------------------------------------------------------------------------ */
/* Decoding                                                                 */
/* ------------------------------------------------------------------------ */

/* Decodes the code point at s[*i] (*i < n), advancing *i; see INVALID UTF-8 above. */
static uint32_t utf8_next(const uint8_t *s, size_t n, size_t *i)
{
    size_t k = *i, len;
    uint8_t b0 = s[k], lo = 0x80, hi = 0xBF;
    uint32_t cp;
    if (b0 < 0x80) {
        *i = k + 1;
        return b0;
    }
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;      /* no overlong forms */
        else if (b0 == 0xED) hi = 0x9F; /* no surrogates */
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;      /* no overlong forms */
        else if (b0 == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        goto invalid;
    }
    if (n - k < len) goto invalid;
    for (size_t j = 1; j < len; j++) {
        uint8_t c = s[k + j];
        if (c < lo || c > hi) goto invalid;
        lo = 0x80;
        hi = 0xBF;
        cp = (cp << 6) | (c & 0x3F);
    }
    *i = k + len;
    return cp;
invalid:
    *i = k + 1;
    return 0xDC00u | b0;
}

/* A string and the flags its units are read with. */
typedef struct tstr {
    const uint8_t *s;
    size_t n;
    unsigned flags;
} tstr;

static tstr mkstr(const char *s, size_t n, unsigned flags)
{
    tstr t = { (const uint8_t *)s, s ? n : 0, flags & TEXT_FLAGS };
    return t;
}

/* The unit starting at byte offset *pos (skipping dropped marks), advancing *pos; -1 at the end. */
static int32_t unit_next(const tstr *t, size_t *pos)
{
    while (*pos < t->n) {
        uint32_t c = utf8_next(t->s, t->n, pos);
        if (t->flags & ORC_CMP_DIACRITIC_INSENSITIVE) {
            if (c >= 0x300 && c <= 0x36F) continue;
            c = strip_cp(c);
        }
        if (t->flags & ORC_CMP_CASE_INSENSITIVE) c = fold_cp(c);
        return (int32_t)c;
    }
    return -1;
}

static size_t unit_count(const tstr *t)
{
    size_t pos = 0, n = 0;
    while (unit_next(t, &pos) >= 0) n++;
    return n;
}

/* Whether p's units equal s's units from byte offset `pos` on (all of s's when `whole`). */
static bool match_from(const tstr *s, size_t pos, const tstr *p, bool whole)
{
    size_t ppos = 0;
    for (;;) {
        int32_t pc = unit_next(p, &ppos);
        if (pc < 0) return !whole || unit_next(s, &pos) < 0;
        if (unit_next(s, &pos) != pc) return false;
    }
}

/* ------------------------------------------------------------------------ */
/* Predicates                                                               */
/* ------------------------------------------------------------------------ */

static bool same_bytes(const char *a, const char *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

bool text_equal(const char *a, size_t an, const char *b, size_t bn, unsigned flags)
{
    if (an == bn && same_bytes(a, b, an)) return true;
    if (!(flags & TEXT_FLAGS)) return false;
    tstr x = mkstr(a, an, flags), y = mkstr(b, bn, flags);
    return match_from(&x, 0, &y, true);
}

bool text_begins(const char *s, size_t sn, const char *p, size_t pn, unsigned flags)
{
    if (pn <= sn && same_bytes(s, p, pn)) return true;
    if (!(flags & TEXT_FLAGS)) return false;
    tstr x = mkstr(s, sn, flags), y = mkstr(p, pn, flags);
    return match_from(&x, 0, &y, false);
}

bool text_ends(const char *s, size_t sn, const char *p, size_t pn, unsigned flags)
{
    if (pn <= sn && same_bytes(s + (sn - pn), p, pn)) return true;
    if (!(flags & TEXT_FLAGS)) return false;
    tstr x = mkstr(s, sn, flags), y = mkstr(p, pn, flags);
    size_t ns = unit_count(&x), np = unit_count(&y), pos = 0;
    if (np > ns) return false;
    for (size_t i = 0; i < ns - np; i++) unit_next(&x, &pos);
    return match_from(&x, pos, &y, true);
}

/* The quadratic scan: try a match at every unit of s. */
static bool contains_naive(const tstr *s, const tstr *p)
{
    size_t pos = 0;
    for (;;) {
        if (match_from(s, pos, p, false)) return true;
        if (unit_next(s, &pos) < 0) return false;
    }
}

bool text_contains(const char *s, size_t sn, const char *p, size_t pn, unsigned flags)
{
    if (pn == 0) return true;
    if (!(flags & TEXT_FLAGS)) return pn <= sn && s && memmem(s, sn, p, pn) != NULL;
    tstr x = mkstr(s, sn, flags), y = mkstr(p, pn, flags);
    size_t m = unit_count(&y);
    if (m == 0) return true; /* only dropped marks */

    int32_t stack_pat[STACK_UNITS];
    size_t stack_fail[STACK_UNITS];
    int32_t *pat = stack_pat;
    size_t *fail = stack_fail;
    void *heap = NULL;
    if (m > STACK_UNITS) {
        heap = m < SIZE_MAX / (sizeof *pat + sizeof *fail) ? malloc(m * (sizeof *pat + sizeof *fail)) : NULL;
        if (!heap) return contains_naive(&x, &y);
        fail = heap;
        pat = (int32_t *)(fail + m);
    }
    size_t pos = 0;
    for (size_t i = 0; i < m; i++) pat[i] = unit_next(&y, &pos);

    /* fail[i]: the length of the longest proper border of pat[0..i]. */
    fail[0] = 0;
    for (size_t i = 1, k = 0; i < m; i++) {
        while (k > 0 && pat[i] != pat[k]) k = fail[k - 1];
        if (pat[i] == pat[k]) k++;
        fail[i] = k;
    }
    bool found = false;
    size_t j = 0;
    int32_t c;
    pos = 0;
    while ((c = unit_next(&x, &pos)) >= 0) {
        while (j > 0 && pat[j] != c) j = fail[j - 1];
        if (pat[j] == c) j++;
        if (j == m) {
            found = true;
            break;
        }
    }
    free(heap);
    return found;
}

/*
 * LIKE: `*` any run of units, `?` one unit, anything else itself. Greedy
 * matching that remembers only the last star: on a mismatch the star absorbs
 * one more unit of s and matching resumes after it. An earlier star never
 * needs revisiting, because the last star can absorb anything an earlier one
 * could, which bounds the work by O(len(s) * len(pattern)).
 */
bool text_like(const char *s, size_t sn, const char *pattern, size_t pn, unsigned flags)
{
    tstr x = mkstr(s, sn, flags), p = mkstr(pattern, pn, flags);
    size_t si = 0, pi = 0, star = SIZE_MAX, mark = 0;
    for (;;) {
        size_t snext = si, pnext = pi;
        int32_t sc = unit_next(&x, &snext);
        if (sc < 0) break;
        int32_t pc = unit_next(&p, &pnext);
        if (pc == '*') {
            star = pnext;
            mark = si;
            pi = pnext;
        } else if (pc >= 0 && (pc == '?' || pc == sc)) {
            si = snext;
            pi = pnext;
        } else if (star != SIZE_MAX) {
            pi = star;
            unit_next(&x, &mark); /* the star takes one more unit */
            si = mark;
        } else {
            return false;
        }
    }
    /* s is used up: what is left of the pattern must be stars. */
    for (;;) {
        int32_t pc = unit_next(&p, &pi);
        if (pc < 0) return true;
        if (pc != '*') return false;
    }
}

int text_compare(const char *a, size_t an, const char *b, size_t bn, unsigned flags)
{
    if (!(flags & TEXT_FLAGS)) {
        size_t n = an < bn ? an : bn;
        int c = n ? memcmp(a, b, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return an < bn ? -1 : an > bn;
    }
    tstr x = mkstr(a, an, flags), y = mkstr(b, bn, flags);
    size_t xp = 0, yp = 0;
    for (;;) {
        int32_t xc = unit_next(&x, &xp), yc = unit_next(&y, &yp);
        if (xc != yc) return xc < yc ? -1 : 1; /* the end (-1) sorts first */
        if (xc < 0) return 0;
    }
}
