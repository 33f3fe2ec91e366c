import OpenRealm

/// A 64-bit FNV-1a digest of every `ChaosItem` in a realm, in primary-key order.
///
/// The writer computes it inside each transaction just before committing and stores it
/// in the transaction's marker; the checker recomputes it from the reopened file. Equal
/// digests mean the file holds exactly the items of the last committed transaction.
enum StateDigest {
    /// The digest of the items `realm` sees (inside a write: including its pending writes).
    static func of(_ realm: Realm) -> String {
        var digest = TextDigest()
        let items = realm.objects(ChaosItem.self).sorted { $0.id < $1.id }
        for item in items {
            digest.mix("\(item.id)|\(item.text)|\(item.value)")
            digest.mix(item.numbers.map(String.init).joined(separator: ","))
            digest.mix(item.tags.joined(separator: ","))
            digest.mix(item.friends.map { String($0.id) }.joined(separator: ","))
        }
        return digest.hex
    }
}
