import Foundation

/// Whether two strings hold the same UTF-8 bytes: how the wire compares names, keys and
/// string values (not by Unicode canonical equivalence, as `==` does). Compares the
/// lengths, then the bytes in one `memcmp` — names and keys are compared in every
/// hashed set and dictionary of an integration.
func sameUTF8(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in
        b.withUTF8 { y in
            x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        }
    }
}
