import ArgumentParser
import Foundation
import OpenRealm

/// The object the crash writer adds, updates and deletes at random.
final class ChaosItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var text: String
    @Persisted var value: Int
    @Persisted var numbers: List<Int>
    @Persisted var tags: List<String>
    @Persisted var friends: List<ChaosItem>
}

/// The marker every writer transaction adds: its id and the digest of all items as the
/// transaction commits them. Markers are never deleted, so the ids in a file run 1...n.
final class ChaosCommit: Object {
    @Persisted(primaryKey: true) var txn: Int
    @Persisted var digest: String
    @Persisted var writes: Int
}

/// How the crash run opens its realm files, in the writer and in the checker.
enum CrashRealm {
    /// A configuration of the file at `path` with the chaos model and `durability`.
    static func configuration(path: String, durability: DurabilityChoice) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                objectTypes: [ChaosItem.self, ChaosCommit.self])
        configuration.durability = durability.realmDurability
        return configuration
    }
}

/// A durability mode named on the command line.
enum DurabilityChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case full
    case skipMetaSync

    var realmDurability: Realm.Configuration.Durability {
        switch self {
        case .full: .full
        case .skipMetaSync: .skipMetaSync
        }
    }
}
