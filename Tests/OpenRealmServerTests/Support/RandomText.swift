/// `size` pseudo-random lowercase letters from `seed` (they compress less than twofold):
/// large values that stay large on the wire, for tests of the server's byte bounds.
func randomLetters(_ size: Int, seed: UInt64) -> String {
    var state = seed &* 6364136223846793005 &+ 1442695040888963407
    return String((0..<size).map { _ -> Character in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
    })
}
