/// ORCore's string predicates (`CSources/ORCore/text.c`) in Swift, unit for unit, so that
/// the evaluator's `==[c]`, `BEGINSWITH[d]`, `LIKE`, ... select what ORCore selects.
///
/// The model is text.c's: a string is a sequence of units. Without options a unit is a
/// code point and equality, prefixes, suffixes, containment and order are byte
/// operations on the UTF-8; LIKE always reads units (its `?` is one code point). With
/// options each code point is mapped first:
///
/// - `[d]`: combining marks U+0300–U+036F are dropped; accented Latin letters (Latin-1,
///   Extended-A and -B, Latin Extended Additional, with the stroke letters Ø Đ Ħ Ł Ŧ Ǿ)
///   become their base letter, keeping case; Greek tonos / dialytika letters and
///   Cyrillic letters with breve, diaeresis, grave or acute become their base.
/// - `[c]`: simple one-to-one case folding for Basic Latin, Latin-1, Latin Extended-A
///   and -B, Greek (final sigma folds to sigma), Cyrillic and Cyrillic Supplement and
///   Latin Extended Additional. Other scripts are not folded, and multi-character
///   folds are not applied (`ß` is not `ss`), which is narrower than Unicode's full
///   case folding; the evaluator keeps ORCore's rule rather than Foundation's.
///
/// Diacritics go before folding. A byte that does not start well-formed UTF-8 is a unit
/// of its own, U+DC00 + byte, matching only the same byte (binaries reach LIKE this way).
enum QueryText {
    static let caseInsensitive: UInt8 = 0x1
    static let diacriticInsensitive: UInt8 = 0x2

    // MARK: Tables (text.c)

    /// Case folds no range rule in `fold` covers, sorted by the first code point.
    private static let foldPairs: [(UInt32, UInt32)] = [
        (0x0178, 0x00FF), (0x017F, 0x0073), (0x0181, 0x0253), (0x0182, 0x0183), (0x0184, 0x0185),
        (0x0186, 0x0254), (0x0187, 0x0188), (0x0189, 0x0256), (0x018A, 0x0257), (0x018B, 0x018C),
        (0x018E, 0x01DD), (0x018F, 0x0259), (0x0190, 0x025B), (0x0191, 0x0192), (0x0193, 0x0260),
        (0x0194, 0x0263), (0x0196, 0x0269), (0x0197, 0x0268), (0x0198, 0x0199), (0x019C, 0x026F),
        (0x019D, 0x0272), (0x019F, 0x0275), (0x01A0, 0x01A1), (0x01A2, 0x01A3), (0x01A4, 0x01A5),
        (0x01A6, 0x0280), (0x01A7, 0x01A8), (0x01A9, 0x0283), (0x01AC, 0x01AD), (0x01AE, 0x0288),
        (0x01AF, 0x01B0), (0x01B1, 0x028A), (0x01B2, 0x028B), (0x01B3, 0x01B4), (0x01B5, 0x01B6),
        (0x01B7, 0x0292), (0x01B8, 0x01B9), (0x01BC, 0x01BD), (0x01C4, 0x01C6), (0x01C5, 0x01C6),
        (0x01C7, 0x01C9), (0x01C8, 0x01C9), (0x01CA, 0x01CC), (0x01CB, 0x01CC), (0x01F1, 0x01F3),
        (0x01F2, 0x01F3), (0x01F4, 0x01F5), (0x01F6, 0x0195), (0x01F7, 0x01BF), (0x0220, 0x019E),
        (0x023A, 0x2C65), (0x023B, 0x023C), (0x023D, 0x019A), (0x023E, 0x2C66), (0x0241, 0x0242),
        (0x0243, 0x0180), (0x0244, 0x0289), (0x0245, 0x028C), (0x0370, 0x0371), (0x0372, 0x0373),
        (0x0376, 0x0377), (0x037F, 0x03F3), (0x0386, 0x03AC), (0x038C, 0x03CC), (0x038E, 0x03CD),
        (0x038F, 0x03CE), (0x03C2, 0x03C3), (0x03CF, 0x03D7), (0x03D0, 0x03B2), (0x03D1, 0x03B8),
        (0x03D5, 0x03C6), (0x03D6, 0x03C0), (0x03F0, 0x03BA), (0x03F1, 0x03C1), (0x03F4, 0x03B8),
        (0x03F5, 0x03B5), (0x03F7, 0x03F8), (0x03F9, 0x03F2), (0x03FA, 0x03FB), (0x03FD, 0x037B),
        (0x03FE, 0x037C), (0x03FF, 0x037D), (0x1E9B, 0x1E61), (0x1E9E, 0x00DF),
    ]

    /// Base letters of U+00C0 ... U+023F, one per code point, "." for none.
    private static let latinBase: [UInt8] = Array((
        "AAAAAA.CEEEEIIII.NOOOOO.OUUUUY..aaaaaa.ceeeeiiii.nooooo.ouuuuy.y" + // 00C0
        "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiI...JjKk.LlLlLl." + // 0100
        ".LlNnNnNn...OoOoOo..RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZz." + // 0140
        "................................Oo.............Uu..............." + // 0180
        ".............AaIiOoUuUuUuUuUu.AaAa....GgKkOoOo..j...Gg..NnAa..Oo" + // 01C0
        "AaAaEeEeIiIiOoOoRrRrUuUuSsTt..Hh......AaEeOoOoOoOoYy............"   // 0200
    ).utf8)

    /// Base letters of Latin Extended Additional, U+1E00 ... U+1EFF.
    private static let latinExtendedBase: [UInt8] = Array((
        "AaBbBbBbCcDdDdDdDdDdEeEeEeEeEeFfGgHhHhHhHhHhIiIiKkKkKkLlLlLlLlMm" + // 1E00
        "MmMmNnNnNnNnOoOoOoOoPpPpRrRrRrRrSsSsSsSsSsTtTtTtTtUuUuUuUuUuVvVv" + // 1E40
        "WwWwWwWwWwXxXxYyZzZzZzhtwy......AaAaAaAaAaAaAaAaAaAaAaAaEeEeEeEe" + // 1E80
        "EeEeEeEeIiIiOoOoOoOoOoOoOoOoOoOoOoOoUuUuUuUuUuUuUuYyYyYyYy......"   // 1EC0
    ).utf8)

    /// Other diacritic removals (non-ASCII bases), sorted by the first code point.
    private static let stripPairs: [(UInt32, UInt32)] = [
        (0x01E2, 0x00C6), (0x01E3, 0x00E6), (0x01EE, 0x01B7), (0x01EF, 0x0292), (0x01FC, 0x00C6),
        (0x01FD, 0x00E6), (0x0386, 0x0391), (0x0388, 0x0395), (0x0389, 0x0397), (0x038A, 0x0399),
        (0x038C, 0x039F), (0x038E, 0x03A5), (0x038F, 0x03A9), (0x0390, 0x03B9), (0x03AA, 0x0399),
        (0x03AB, 0x03A5), (0x03AC, 0x03B1), (0x03AD, 0x03B5), (0x03AE, 0x03B7), (0x03AF, 0x03B9),
        (0x03B0, 0x03C5), (0x03CA, 0x03B9), (0x03CB, 0x03C5), (0x03CC, 0x03BF), (0x03CD, 0x03C5),
        (0x03CE, 0x03C9), (0x03D3, 0x03D2), (0x03D4, 0x03D2), (0x0400, 0x0415), (0x0401, 0x0415),
        (0x0403, 0x0413), (0x0407, 0x0406), (0x040C, 0x041A), (0x040D, 0x0418), (0x040E, 0x0423),
        (0x0419, 0x0418), (0x0439, 0x0438), (0x0450, 0x0435), (0x0451, 0x0435), (0x0453, 0x0433),
        (0x0457, 0x0456), (0x045C, 0x043A), (0x045D, 0x0438), (0x045E, 0x0443), (0x0476, 0x0474),
        (0x0477, 0x0475), (0x04C1, 0x0416), (0x04C2, 0x0436), (0x04D0, 0x0410), (0x04D1, 0x0430),
        (0x04D2, 0x0410), (0x04D3, 0x0430), (0x04D6, 0x0415), (0x04D7, 0x0435), (0x04DA, 0x04D8),
        (0x04DB, 0x04D9), (0x04DC, 0x0416), (0x04DD, 0x0436), (0x04DE, 0x0417), (0x04DF, 0x0437),
        (0x04E2, 0x0418), (0x04E3, 0x0438), (0x04E4, 0x0418), (0x04E5, 0x0438), (0x04E6, 0x041E),
        (0x04E7, 0x043E), (0x04EA, 0x04E8), (0x04EB, 0x04E9), (0x04EC, 0x042D), (0x04ED, 0x044D),
        (0x04EE, 0x0423), (0x04EF, 0x0443), (0x04F0, 0x0423), (0x04F1, 0x0443), (0x04F2, 0x0423),
        (0x04F3, 0x0443), (0x04F4, 0x0427), (0x04F5, 0x0447), (0x04F8, 0x042B), (0x04F9, 0x044B),
        (0x1E9B, 0x017F),
    ]

    private static func lookup(_ table: [(UInt32, UInt32)], _ c: UInt32) -> UInt32 {
        var lo = 0, hi = table.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if table[mid].0 == c { return table[mid].1 }
            if table[mid].0 < c { lo = mid + 1 } else { hi = mid }
        }
        return c
    }

    /// The capital on the even code point, the small letter on the odd one.
    private static func evenUp(_ c: UInt32) -> UInt32 { c & 1 == 1 ? c : c + 1 }
    /// The capital on the odd code point, the small letter on the even one.
    private static func oddUp(_ c: UInt32) -> UInt32 { c & 1 == 1 ? c + 1 : c }

    /// `fold_cp`: the simple case fold of `c` (within the ranges above).
    static func fold(_ c: UInt32) -> UInt32 {
        if c < 0x80 { return c &- 0x41 < 26 ? c + 32 : c }
        if c < 0x100 {
            if c >= 0xC0 && c <= 0xDE && c != 0xD7 { return c + 32 }
            return c == 0xB5 ? 0x3BC : c // the micro sign folds to mu
        }
        if c < 0x180 {
            if c < 0x130 || (0x132...0x137).contains(c) || (0x14A...0x177).contains(c) { return evenUp(c) }
            if (0x139...0x148).contains(c) || (0x179...0x17E).contains(c) { return oddUp(c) }
        } else if c < 0x250 {
            if (0x1CD...0x1DC).contains(c) { return oddUp(c) }
            if (0x1DE...0x1EF).contains(c) || (0x1F8...0x21F).contains(c) || (0x222...0x233).contains(c)
                || (0x246...0x24F).contains(c) {
                return evenUp(c)
            }
        } else if c < 0x370 {
            return c == 0x345 ? 0x3B9 : c
        } else if c < 0x400 {
            if (0x388...0x38A).contains(c) { return c + 37 }
            if (0x391...0x3AB).contains(c) && c != 0x3A2 { return c + 32 }
            if (0x3D8...0x3EF).contains(c) { return evenUp(c) }
        } else if c < 0x530 {
            if c < 0x410 { return c + 80 }
            if c < 0x430 { return c + 32 }
            if (0x460...0x481).contains(c) || (0x48A...0x4BF).contains(c) || c >= 0x4D0 { return evenUp(c) }
            if (0x4C1...0x4CE).contains(c) { return oddUp(c) }
            return c == 0x4C0 ? 0x4CF : c
        } else if c >= 0x1E00 && c <= 0x1EFF {
            if c <= 0x1E95 || c >= 0x1EA0 { return evenUp(c) }
        } else {
            return c
        }
        return lookup(foldPairs, c)
    }

    /// `strip_cp`: `c` without its diacritic.
    static func strip(_ c: UInt32) -> UInt32 {
        if c < 0xC0 { return c }
        if c < 0x240 {
            let b = latinBase[Int(c - 0xC0)]
            if b != UInt8(ascii: ".") { return UInt32(b) }
        } else if c >= 0x1E00 && c <= 0x1EFF {
            let b = latinExtendedBase[Int(c - 0x1E00)]
            if b != UInt8(ascii: ".") { return UInt32(b) }
        }
        return lookup(stripPairs, c)
    }

    // MARK: Units

    /// `utf8_next`: the code point at `s[i]`, advancing `i`; an ill-formed byte is U+DC00 + byte.
    static func nextCodePoint(_ s: [UInt8], _ i: inout Int) -> UInt32 {
        let k = i
        let b0 = s[k]
        if b0 < 0x80 {
            i = k + 1
            return UInt32(b0)
        }
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        let length: Int
        var cp: UInt32
        if b0 >= 0xC2 && b0 <= 0xDF {
            length = 2
            cp = UInt32(b0 & 0x1F)
        } else if b0 >= 0xE0 && b0 <= 0xEF {
            length = 3
            cp = UInt32(b0 & 0x0F)
            if b0 == 0xE0 { lo = 0xA0 } else if b0 == 0xED { hi = 0x9F } // no overlong forms, no surrogates
        } else if b0 >= 0xF0 && b0 <= 0xF4 {
            length = 4
            cp = UInt32(b0 & 0x07)
            if b0 == 0xF0 { lo = 0x90 } else if b0 == 0xF4 { hi = 0x8F } // no overlong forms, nothing above U+10FFFF
        } else {
            i = k + 1
            return 0xDC00 | UInt32(b0)
        }
        guard s.count - k >= length else {
            i = k + 1
            return 0xDC00 | UInt32(b0)
        }
        for j in 1..<length {
            let c = s[k + j]
            guard c >= lo && c <= hi else {
                i = k + 1
                return 0xDC00 | UInt32(b0)
            }
            lo = 0x80
            hi = 0xBF
            cp = cp << 6 | UInt32(c & 0x3F)
        }
        i = k + length
        return cp
    }

    /// The units of `s` read with `flags` (`unit_next` to the end).
    static func units(_ s: [UInt8], _ flags: UInt8) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            var c = nextCodePoint(s, &i)
            if flags & diacriticInsensitive != 0 {
                if c >= 0x300 && c <= 0x36F { continue }
                c = strip(c)
            }
            if flags & caseInsensitive != 0 { c = fold(c) }
            out.append(c)
        }
        return out
    }

    // MARK: Predicates

    private static func hasFlags(_ flags: UInt8) -> Bool { flags & (caseInsensitive | diacriticInsensitive) != 0 }

    /// `text_equal`.
    static func equal(_ a: [UInt8], _ b: [UInt8], _ flags: UInt8) -> Bool {
        if a == b { return true }
        guard hasFlags(flags) else { return false }
        return units(a, flags) == units(b, flags)
    }

    /// `text_begins`: `s` starts with `p`.
    static func begins(_ s: [UInt8], _ p: [UInt8], _ flags: UInt8) -> Bool {
        if p.count <= s.count && s.starts(with: p) { return true }
        guard hasFlags(flags) else { return false }
        return units(s, flags).starts(with: units(p, flags))
    }

    /// `text_ends`: `s` ends with `p`.
    static func ends(_ s: [UInt8], _ p: [UInt8], _ flags: UInt8) -> Bool {
        if p.count <= s.count && s[(s.count - p.count)...].elementsEqual(p) { return true }
        guard hasFlags(flags) else { return false }
        let us = units(s, flags), up = units(p, flags)
        return up.count <= us.count && us[(us.count - up.count)...].elementsEqual(up)
    }

    /// `text_contains`: `p` occurs in `s` (an empty `p` always does).
    static func contains(_ s: [UInt8], _ p: [UInt8], _ flags: UInt8) -> Bool {
        if p.isEmpty { return true }
        guard hasFlags(flags) else { return occurs(p, in: s) }
        return occurs(units(p, flags), in: units(s, flags))
    }

    /// Whether `p` occurs in `s` (true for an empty `p`).
    private static func occurs<T: Equatable>(_ p: [T], in s: [T]) -> Bool {
        if p.isEmpty { return true }
        if p.count > s.count { return false }
        var i = 0
        while i + p.count <= s.count {
            if s[i] == p[0] && s[i..<(i + p.count)].elementsEqual(p) { return true }
            i += 1
        }
        return false
    }

    /// `text_like`: `*` any run of units, `?` one unit, anything else itself (greedy,
    /// remembering only the last star, as text.c does).
    static func like(_ s: [UInt8], _ pattern: [UInt8], _ flags: UInt8) -> Bool {
        let x = units(s, flags), p = units(pattern, flags)
        let star = UInt32(UInt8(ascii: "*")), question = UInt32(UInt8(ascii: "?"))
        var si = 0, pi = 0, starAt = -1, mark = 0
        while si < x.count {
            let sc = x[si]
            let pc: UInt32? = pi < p.count ? p[pi] : nil
            if pc == star {
                starAt = pi + 1
                mark = si
                pi += 1
            } else if let pc, pc == question || pc == sc {
                si += 1
                pi += 1
            } else if starAt >= 0 {
                pi = starAt
                mark += 1 // the star takes one more unit
                si = mark
            } else {
                return false
            }
        }
        while pi < p.count {
            if p[pi] != star { return false }
            pi += 1
        }
        return true
    }

    /// `text_compare`: -1, 0 or 1; without options the bytes' order, with them the units'
    /// (a string that ends first sorts first).
    static func compare(_ a: [UInt8], _ b: [UInt8], _ flags: UInt8) -> Int {
        guard hasFlags(flags) else { return compareBytes(a, b) }
        let x = units(a, flags), y = units(b, flags)
        for (xc, yc) in zip(x, y) where xc != yc { return xc < yc ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    /// memcmp order, a prefix first.
    static func compareBytes<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> Int where A.Element == UInt8, B.Element == UInt8 {
        var i = a.makeIterator(), j = b.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
