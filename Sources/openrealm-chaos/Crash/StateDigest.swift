import OpenRealm

/// A 64-bit FNV-1a digest of every `ChaosItem` in a realm, in primary-key order.
///
/// The writer computes it inside each transaction just before committing and stores it
/// in the transaction's marker; the checker recomputes it from the reopened file. Equal
/// digests mean the file holds exactly the items of the last committed transaction.
enum StateDigest {
    /// The digest of the items `realm` sees (inside a write: including its pending writes).
    static func of(_ realm: Realm) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF
            hash &*= 0x0000_0100_0000_01B3
        }
        let items = realm.objects(ChaosItem.self).sorted { $0.id < $1.id }
        for item in items {
            mix("\(item.id)|\(item.text)|\(item.value)")
            mix(item.numbers.map(String.init).joined(separator: ","))
            mix(item.tags.joined(separator: ","))
            mix(item.friends.map { String($0.id) }.joined(separator: ","))
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
