import Foundation
import RealmSwift

/// One write of a synced chaos client: client `client`'s transaction `seq`.
///
/// Its id (`<client>-<seq>`) is unique, so the writes of every client can be counted.
final class ChaosNote: Object {
    @Persisted(primaryKey: true) var _id: String
    @Persisted var client: String
    @Persisted var seq: Int
    @Persisted var text: String
    /// How many later transactions changed `text`.
    @Persisted var edits: Int
}

/// The log of one client (`_id` is the client's name): every transaction appends its
/// `seq`. A list append is not idempotent, so a changeset applied twice shows as a
/// repeated entry, one lost as a gap: the log must read exactly 1, 2, ..., n.
final class ChaosLog: Object {
    @Persisted(primaryKey: true) var _id: String
    @Persisted var entries: List<Int>
}

/// The shared settings of synced chaos clients.
enum SyncChaos {
    /// The app id every synced chaos run uses (development mode).
    static let appId = "chaos"
    /// The password of every chaos user.
    static let password = "chaos-password"

    /// The email of client `name`'s user.
    static func email(of name: String) -> String { "\(name)@chaos.example.com" }
}
