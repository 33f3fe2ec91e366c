/*
 * test_text.c — text.c on its own: case folding (Latin, Greek, Cyrillic),
 * diacritic removal, begins / ends / contains, LIKE, ordering, and inputs
 * that are not valid UTF-8. The randomized tests check the predicates
 * against each other (contains(s, p) == like(s, "*p*"), ...), since LIKE and
 * CONTAINS are implemented by different algorithms.
 */
#include "harness.h"
#include "text.h"

#include <stdlib.h>

enum {
    CI = ORC_CMP_CASE_INSENSITIVE,
    DI = ORC_CMP_DIACRITIC_INSENSITIVE,
    CDI = ORC_CMP_CASE_INSENSITIVE | ORC_CMP_DIACRITIC_INSENSITIVE,
};

/* NUL-terminated literals: the length is strlen's. */
static bool eq(const char *a, const char *b, unsigned f) { return text_equal(a, strlen(a), b, strlen(b), f); }
static bool begins(const char *s, const char *p, unsigned f) { return text_begins(s, strlen(s), p, strlen(p), f); }
static bool ends(const char *s, const char *p, unsigned f) { return text_ends(s, strlen(s), p, strlen(p), f); }
static bool contains(const char *s, const char *p, unsigned f) { return text_contains(s, strlen(s), p, strlen(p), f); }
static bool like(const char *s, const char *p, unsigned f) { return text_like(s, strlen(s), p, strlen(p), f); }
static int cmp(const char *a, const char *b, unsigned f)
{
    int c = text_compare(a, strlen(a), b, strlen(b), f);
    return (c > 0) - (c < 0);
}

TEST(text_case_ascii)
{
    CHECK(eq("Hello, World", "hELLO, wORLD", CI));
    CHECK(!eq("Hello, World", "hELLO, wORLD", 0));
    CHECK(eq("Hello", "Hello", 0));
    CHECK(!eq("Hello", "Hello!", CI));
    CHECK(!eq("[", "{", CI)); /* only letters fold */
    CHECK(!eq("@", "`", CI));
    CHECK(eq("", "", CDI));
    CHECK(!eq("", "a", CDI));
    /* Flags other than the two are ignored. */
    CHECK(eq("ABC", "abc", CI | 0x100));
    CHECK(!eq("ABC", "abc", 0x100));
}

TEST(text_case_latin)
{
    CHECK(eq("ÀÉÎ", "àéî", CI));
    CHECK(!eq("ÀÉÎ", "àéî", 0));
    CHECK(!eq("ÀÉÎ", "aei", CI));
    CHECK(eq("ÆØÅÞÐ", "æøåþð", CI));
    CHECK(eq("Ÿ", "ÿ", CI));               /* U+0178 folds outside its block */
    CHECK(eq("ĀĂĄĆĈŁŃŒŚŠŽ", "āăąćĉłńœśšž", CI));
    CHECK(eq("ĹĽŇ", "ĺľň", CI));           /* the odd-capital run of Extended-A */
    CHECK(eq("ſ", "s", CI));               /* long s */
    CHECK(eq("µ", "μ", CI));               /* micro sign and mu */
    CHECK(!eq("ß", "ss", CI));             /* no multi-character folds */
    CHECK(eq("ẞ", "ß", CI));
    CHECK(eq("ǄǅǆƁƏȺ", "ǆǆǆɓəⱥ", CI));     /* Extended-B irregulars */
    CHECK(eq("ǍǑȘȚ", "ǎǒșț", CI));
    CHECK(eq("ẠỆỸ", "ạệỹ", CI));
    CHECK(!eq("İ", "i", CI));              /* dotted capital I has only a multi-character fold */
    CHECK(!eq("ı", "i", CI));
}

TEST(text_case_greek)
{
    CHECK(eq("ΣΊΣΥΦΟΣ", "σίσυφος", CI)); /* final sigma folds to sigma */
    CHECK(eq("σίσυφος", "ΣΊΣΥΦΟΣ", CI));
    CHECK(!eq("ΣΊΣΥΦΟΣ", "σίσυφος", 0));
    CHECK(!eq("ΣΙΣΥΦΟΣ", "σίσυφος", CI)); /* the tonos still counts */
    CHECK(eq("ΣΙΣΥΦΟΣ", "σίσυφος", CDI));
    CHECK(eq("ΆΈΉΊΌΎΏ", "άέήίόύώ", CI));
    CHECK(eq("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", "αβγδεζηθικλμνξοπρστυφχψω", CI));
    CHECK(eq("ΪΫ", "ϊϋ", CI));
    CHECK(eq("ϐϑϕϖϰϱϵ", "βθφπκρε", CI));
    CHECK(eq("ΪΫ", "ιυ", CDI));
    CHECK(eq("ΐΰ", "ιυ", DI));
}

TEST(text_case_cyrillic)
{
    CHECK(eq("ПРИВЕТ МИР", "привет мир", CI));
    CHECK(!eq("ПРИВЕТ МИР", "привет мир", 0));
    CHECK(eq("ЁЖИК ЙОД", "ёжик йод", CI));
    CHECK(eq("ЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏ", "ѐёђѓєѕіїјљњћќѝўџ", CI));
    CHECK(eq("ҐҒӀӁӐԀ", "ґғӏӂӑԁ", CI));
    CHECK(!eq("ЁЖИК", "ежик", CI));
    CHECK(eq("ЁЖИК", "ежик", CDI));
    CHECK(eq("Йод", "Иод", DI));
    CHECK(!eq("Йод", "иод", DI));
    CHECK(eq("ёлка", "елка", DI));
    CHECK(eq("Ёлка", "ЕЛКА", CDI));
}

TEST(text_diacritics)
{
    CHECK(eq("café", "cafe", DI));
    CHECK(!eq("café", "cafe", 0));
    CHECK(!eq("café", "cafe", CI));
    CHECK(!eq("CAFÉ", "cafe", DI));
    CHECK(eq("CAFÉ", "cafe", CDI));
    CHECK(eq("cafe\xcc\x81", "café", DI)); /* decomposed: e + combining acute */
    CHECK(eq("\xcc\x81", "", DI));          /* a lone combining mark disappears */
    CHECK(!eq("cafe\xcc\x81", "café", 0));
    CHECK(eq("Ångström", "Angstrom", DI));
    CHECK(eq("Łódź Øresund Đakovo", "Lodz Oresund Dakovo", DI));
    CHECK(eq("Việt Nam", "Viet Nam", DI));
    CHECK(eq("ǍǕȘȚ", "AUST", DI));
    CHECK(eq("ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝ", "AAAAAACEEEEIIIINOOOOOUUUUY", DI));
    CHECK(eq("àáâãäåçèéêëìíîïñòóôõöùúûüýÿ", "aaaaaaceeeeiiiinooooouuuuyy", DI));
    CHECK(!eq("Æ", "AE", CDI)); /* ligatures are letters, not accented letters */
}

TEST(text_begins_ends_contains)
{
    const char *s = "Crème Brûlée";
    CHECK(begins(s, "CREME", CDI));
    CHECK(!begins(s, "CREME", CI));
    CHECK(!begins(s, "CREME", DI));
    CHECK(begins(s, "Crème", 0));
    CHECK(ends(s, "BRULEE", CDI));
    CHECK(ends(s, "brûlée", CI));
    CHECK(!ends(s, "brulee", CI));
    CHECK(contains(s, "ME BR", CDI));
    CHECK(!contains(s, "me br", DI)); /* "me Br" has a capital B */
    CHECK(contains(s, "me Br", DI));
    CHECK(!contains(s, "MEB", CDI));
    /* Empty patterns and patterns longer than the string. */
    CHECK(begins(s, "", 0) && ends(s, "", CDI) && contains(s, "", CI));
    CHECK(begins("", "", CDI) && ends("", "", 0) && contains("", "", CDI));
    CHECK(!begins("ab", "abc", CDI) && !ends("bc", "abc", CDI) && !contains("ab", "abc", CDI));
    CHECK(!begins("", "a", 0) && !ends("", "a", CI) && !contains("", "a", DI));
    /* Whole-string matches and combining marks at the edges. */
    CHECK(begins("é", "É", CI) && ends("é", "É", CI) && contains("é", "É", CI));
    CHECK(ends("cafe\xcc\x81", "E", CDI));
    CHECK(ends("cafe\xcc\x81", "FÉ", CDI));
    CHECK(begins("\xcc\x81" "abc", "A", CDI));
    CHECK(contains("x", "\xcc\x81", DI)); /* the pattern is empty once marks are dropped */
    /* Without flags the byte functions must still respect the string bounds. */
    CHECK(contains("needle in a haystack", "haystack", 0));
    CHECK(!contains("needle", "needles", 0));
    CHECK(text_contains("a\0b", 3, "\0b", 2, 0));
    CHECK(text_contains("a\0B", 3, "\0b", 2, CI));
    CHECK(!text_equal("a\0b", 3, "a", 1, CDI));
}

TEST(text_contains_kmp)
{
    /* Patterns with self-overlap, where a naive restart would be wrong after a partial match. */
    CHECK(contains("aaaaab", "aaab", CI));
    CHECK(contains("aabaabaaab", "aabaaab", CI));
    CHECK(!contains("aabaabaab", "aabaaab", CI));
    CHECK(contains("ababababca", "ABABCA", CI));
    CHECK(contains("ÁÁÁÁB", "aaab", CDI));
    /* A pattern longer than the stack buffer (the heap path). */
    size_t n = 600;
    char *s = malloc(2 * n + 8), *p = malloc(2 * n + 8);
    CHECK(s && p);
    size_t sl = 0, pl = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(s + sl, "\xc3\xa1", 2); /* á */
        sl += 2;
    }
    memcpy(s + sl, "b", 1);
    sl += 1;
    for (size_t i = 0; i < 300; i++) p[pl++] = 'A';
    p[pl++] = 'B';
    bool hit = text_contains(s, sl, p, pl, CDI);
    bool miss = text_contains(s, sl - 1, p, pl, CDI); /* without the final b */
    bool plain = text_contains(s, sl, p, pl, CI);     /* á is not a */
    free(s);
    free(p);
    CHECK(hit);
    CHECK(!miss);
    CHECK(!plain);
}

TEST(text_like)
{
    CHECK(like("axxbyc", "a*b?c", 0));
    CHECK(like("abyc", "a*b?c", 0));
    CHECK(!like("abc", "a*b?c", 0));
    CHECK(!like("abyyc", "a*b?c", 0));
    CHECK(like("abbyc", "a*b?c", 0));
    CHECK(like("hello", "*llo", 0));
    CHECK(like("hello", "he*", 0));
    CHECK(like("hello", "*ell*", 0));
    CHECK(like("hello", "**h*o**", 0));
    CHECK(!like("hello", "*x*", 0));
    CHECK(!like("hello", "hello?", 0));
    CHECK(like("hello", "?????", 0));
    CHECK(!like("hello", "????", 0));
    /* Empty strings and patterns. */
    CHECK(like("", "", 0));
    CHECK(like("", "*", 0));
    CHECK(like("", "***", CDI));
    CHECK(!like("", "?", 0));
    CHECK(!like("a", "", 0));
    CHECK(like("a", "*", 0));
    CHECK(!like("ab", "abc", 0));
    CHECK(!like("ab", "abc*", 0));
    /* `?` is one code point, not one byte. */
    CHECK(like("é", "?", 0));
    CHECK(like("日本語", "?本?", 0));
    CHECK(!like("日本語", "??", 0));
    /* Folding applies to the literal parts. */
    CHECK(like("Crème Brûlée", "CREME*", CDI));
    CHECK(!like("Crème Brûlée", "CREME*", CI));
    CHECK(like("Crème Brûlée", "*b?ulee", CDI));
    CHECK(like("ΣΊΣΥΦΟΣ", "σ*ς", CI));
    /* Backtracking: the last star must absorb the right amount. */
    CHECK(like("mississippi", "*sip*", 0));
    CHECK(like("mississippi", "m*iss*ppi", 0));
    CHECK(!like("mississippi", "m*iss*ppix", 0));
    CHECK(like("abcabcabd", "*abd", 0));
    CHECK(like("aaa", "*a", 0));
    CHECK(!like("aab", "*a", 0));
}

TEST(text_like_pathological)
{
    /* Many stars against a long run that almost matches: exponential backtracking would not finish. */
    enum { N = 4000 };
    char *s = malloc(N + 1);
    CHECK(s);
    memset(s, 'a', N);
    s[N] = 0;
    bool m1 = like(s, "*a*a*a*a*a*a*a*a*a*a*a*a*b", CI);
    bool m2 = like(s, "*a*a*a*a*a*a*a*a*a*a*a*a*a", CI);
    bool m3 = like(s, "a*?*?*?*?*?*?*?*?*?*?*?*?*?*", 0);
    free(s);
    CHECK(!m1);
    CHECK(m2);
    CHECK(m3);
}

TEST(text_compare)
{
    CHECK_EQ(cmp("a", "B", 0), 1); /* byte order: 'B' < 'a' */
    CHECK_EQ(cmp("a", "B", CI), -1);
    CHECK_EQ(cmp("abc", "ABC", CI), 0);
    CHECK_EQ(cmp("abc", "ABC", 0), 1);
    CHECK_EQ(cmp("ab", "abc", CI), -1);
    CHECK_EQ(cmp("abc", "ab", 0), 1);
    CHECK_EQ(cmp("", "", CDI), 0);
    CHECK_EQ(cmp("", "a", CDI), -1);
    CHECK_EQ(cmp("É", "e", CDI), 0);
    CHECK_EQ(cmp("É", "f", CDI), -1);
    CHECK_EQ(cmp("é", "f", 0), 1);
    CHECK_EQ(cmp("ÉCOLE", "ecole", CI), 1); /* é (U+00E9) sorts after e */
    CHECK_EQ(cmp("Я", "а", CI), 1);
    CHECK_EQ(text_compare("a\0b", 3, "a\0c", 3, 0) < 0, 1);
    CHECK_EQ(text_compare("a\0B", 3, "a\0b", 3, CI), 0);
}

TEST(text_invalid_utf8)
{
    /* Stray and truncated bytes are units of their own; nothing reads past the end. */
    CHECK(eq("\xff\xfe", "\xff\xfe", CDI));
    CHECK(!eq("\xff", "\xfe", CDI));
    CHECK(!eq("\xe9", "é", CDI));    /* a Latin-1 byte is not the character */
    CHECK(!eq("\xe9", "\xc9", CI));  /* and does not fold */
    CHECK(!eq("\xc0\xaf", "/", CDI)); /* overlong */
    CHECK(!eq("\xe0\x81\x81", "a", CDI)); /* overlong 'A' */
    CHECK(like("\xe0\x81\x81", "???", 0) && !like("\xe0\x81\x81", "?", 0));
    CHECK(!like("\xc3\xa9", "*\xa9", 0)); /* a stray byte in a pattern never matches inside a character */
    CHECK(!contains("\xc3\xa9", "\xa9", CI));
    CHECK(!eq("\xed\xa0\x80", "\xed\xa0\x81", CDI)); /* encoded surrogates: three stray bytes each */
    CHECK(like("\xed\xa0\x80", "???", 0));
    CHECK(like("\xc3", "?", CI));    /* a lead byte at the end */
    CHECK(like("\xe2\x82", "??", CI));
    CHECK(like("a\xe2\x82", "A*", CI));
    CHECK(text_equal("\xe2\x82", 2, "\xe2\x82\xac", 2, CDI)); /* bounds are the lengths */
    CHECK(!text_equal("\xe2\x82\xac", 2, "\xe2\x82\xac", 3, CDI));
    CHECK(begins("\xf4\x90\x80\x80x", "\xf4", CI)); /* above U+10FFFF */
    CHECK(ends("x\xf0\x9f", "\x9f", CDI));
    CHECK(contains("ab\xff" "cd", "B\xff" "C", CI));

    /* Random bytes through every predicate. */
    uint64_t rng = test_seed();
    static const unsigned flag_sets[] = { 0, CI, DI, CDI };
    for (int i = 0; i < 3000; i++) {
        char a[24], b[24];
        size_t an = test_rand(&rng) % sizeof a, bn = test_rand(&rng) % 8;
        for (size_t k = 0; k < an; k++) a[k] = (char)test_rand(&rng);
        for (size_t k = 0; k < bn; k++) b[k] = (char)test_rand(&rng);
        /* Copies on the heap of exactly the given size, so that AddressSanitizer catches overreads. */
        char *ha = malloc(an ? an : 1), *hb = malloc(bn ? bn : 1);
        CHECK(ha && hb);
        memcpy(ha, a, an);
        memcpy(hb, b, bn);
        unsigned f = flag_sets[i % 4];
        bool self_eq = text_equal(ha, an, ha, an, f);
        bool self_like = text_like(ha, an, ha, an, f); /* any string matches itself as a pattern */
        bool self_contains = text_contains(ha, an, ha, an, f);
        int self_cmp = text_compare(ha, an, ha, an, f);
        bool e = text_equal(ha, an, hb, bn, f);
        int c = text_compare(ha, an, hb, bn, f), rc = text_compare(hb, bn, ha, an, f);
        bool bg = text_begins(ha, an, hb, bn, f), en = text_ends(ha, an, hb, bn, f);
        bool ct = text_contains(ha, an, hb, bn, f), lk = text_like(ha, an, hb, bn, f);
        free(ha);
        free(hb);
        CHECK(self_eq && self_like && self_contains && self_cmp == 0);
        CHECK_EQ(e, c == 0);
        CHECK_EQ((c > 0) - (c < 0), (rc < 0) - (rc > 0));
        CHECK(!(e && !(bg && en && ct)));
        CHECK(!(bg && !ct) && !(en && !ct));
        (void)lk;
    }
}

/* A random string of units from a small alphabet (ASCII, accented, Greek, Cyrillic, a mark, a stray byte). */
static size_t rand_text(uint64_t *rng, char *out, size_t max_units)
{
    static const char *units[] = { "a", "A", "b", "\xc3\xa1" /* á */, "\xc3\x81" /* Á */, "\xcf\x83" /* σ */,
                                   "\xcf\x82" /* ς */, "\xd0\x81" /* Ё */, "\xd0\xb5" /* е */,
                                   "\xcc\x81" /* combining acute */, "\xff" };
    size_t n = test_rand(rng) % (max_units + 1), len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *u = units[test_rand(rng) % (sizeof units / sizeof units[0])];
        size_t ul = strlen(u);
        memcpy(out + len, u, ul);
        len += ul;
    }
    return len;
}

TEST(text_random_consistency)
{
    uint64_t rng = test_seed();
    static const unsigned flag_sets[] = { 0, CI, DI, CDI };
    for (int i = 0; i < 20000; i++) {
        char s[64], p[32], pat[40];
        size_t sn = rand_text(&rng, s, 12), pn = rand_text(&rng, p, 3);
        unsigned f = flag_sets[i % 4];
        /* contains(s, p) == like(s, "*p*"); begins == like(s, "p*"); ends == like(s, "*p"). */
        pat[0] = '*';
        memcpy(pat + 1, p, pn);
        pat[pn + 1] = '*';
        bool ct = text_contains(s, sn, p, pn, f), lct = text_like(s, sn, pat, pn + 2, f);
        bool bg = text_begins(s, sn, p, pn, f), lbg = text_like(s, sn, pat + 1, pn + 1, f);
        bool en = text_ends(s, sn, p, pn, f), len_ = text_like(s, sn, pat, pn + 1, f);
        bool e = text_equal(s, sn, p, pn, f), le = text_like(s, sn, p, pn, f);
        int c = text_compare(s, sn, p, pn, f);
        if (ct != lct || bg != lbg || en != len_ || e != le || e != (c == 0)) {
            test_fail(__FILE__, __LINE__,
                      "flags %u, s \"%.*s\", p \"%.*s\": contains %d/%d begins %d/%d ends %d/%d equal %d/%d/%d", f,
                      (int)sn, s, (int)pn, p, ct, lct, bg, lbg, en, len_, e, le, c);
            return;
        }
    }
    /* Long runs over a two-letter alphabet: the patterns overlap themselves in many ways. */
    for (int i = 0; i < 20000; i++) {
        char s[40], p[12], pat[14];
        size_t sn = test_rand(&rng) % sizeof s, pn = 1 + test_rand(&rng) % (sizeof p - 1);
        for (size_t k = 0; k < sn; k++) s[k] = "aAb"[test_rand(&rng) % 3];
        for (size_t k = 0; k < pn; k++) p[k] = "aAb"[test_rand(&rng) % (k % 4 == 3 ? 3 : 2)];
        pat[0] = '*';
        memcpy(pat + 1, p, pn);
        pat[pn + 1] = '*';
        unsigned f = i % 2 ? CI : 0;
        if (text_contains(s, sn, p, pn, f) != text_like(s, sn, pat, pn + 2, f)) {
            test_fail(__FILE__, __LINE__, "flags %u: contains(\"%.*s\", \"%.*s\") disagrees with LIKE", f, (int)sn, s,
                      (int)pn, p);
            return;
        }
    }
}
