import Foundation
import OpenRealm
import OpenRealmSyncCore
import Synchronization

/// The subscription sets of a flexible sync realm, kept inside the realm file (metadata
/// `openrealm.sync.subscriptions`, JSON) so that they survive restarts and are shared by
/// every `Realm` instance and process of the file.
///
/// Versions increase by one with every committed `update`. The latest set is what the
/// session sends to the server; older versions are kept only while their state may
/// still be asked for (a few of them).
struct SubscriptionStore: Sendable {
    static let metadataKey = "openrealm.sync.subscriptions"
    /// How many set versions the file keeps.
    static let keptVersions = 8

    struct Entry: Codable, Sendable, Equatable {
        var id: String
        var name: String?
        var className: String
        var query: String
        var createdAt: Double
        var updatedAt: Double
    }

    /// Where a set version stands, as the file stores it (the JSON strings `pending`,
    /// `complete`, `error`, `superseded`).
    enum State: String, Codable, Sendable {
        /// Committed; the server has not answered it.
        case pending
        /// The server sent everything it matches.
        case complete
        /// The server refused it (`errorMessage` says why).
        case error
        /// A later version completed, or was committed while this one was pending.
        case superseded
    }

    struct VersionRecord: Codable, Sendable {
        var version: Int64
        var state: State
        var errorMessage: String?
        var entries: [Entry]
    }

    struct Stored: Codable, Sendable {
        var sets: [VersionRecord] = [VersionRecord(version: 0, state: .complete, errorMessage: nil, entries: [])]
        var latest: VersionRecord { sets[sets.count - 1] }
        func record(_ version: Int64) -> VersionRecord? { sets.first { $0.version == version } }
        /// Whether any update was ever committed.
        var isInitialized: Bool { sets.contains { $0.version > 0 } }
    }

    let file: FileAccess

    var path: String { file.path }

    func load() -> Stored {
        (try? file.read { try $0.metaJSON(Self.metadataKey, as: Stored.self) }) ?? Stored()
    }

    /// Commits `entries` as a new version; older pending versions become superseded.
    func commit(_ entries: [Entry]) throws -> Int64 {
        let (version, _) = try file.write { txn -> Int64 in
            var stored = (try? txn.metaJSON(Self.metadataKey, as: Stored.self)) ?? Stored()
            let version = stored.latest.version + 1
            for i in stored.sets.indices where stored.sets[i].state == .pending { stored.sets[i].state = .superseded }
            stored.sets.append(VersionRecord(version: version, state: .pending, errorMessage: nil, entries: entries))
            if stored.sets.count > Self.keptVersions { stored.sets.removeFirst(stored.sets.count - Self.keptVersions) }
            try txn.setMeta(Self.metadataKey, json: stored)
            return version
        }
        return version
    }

    /// Records the server's answer for `version`: complete (older pending versions become
    /// superseded) or error with the server's message.
    func setState(_ version: Int64, complete: Bool, errorMessage: String?) throws {
        _ = try file.write { txn in
            var stored = (try? txn.metaJSON(Self.metadataKey, as: Stored.self)) ?? Stored()
            for i in stored.sets.indices {
                if stored.sets[i].version == version {
                    stored.sets[i].state = complete ? .complete : .error
                    stored.sets[i].errorMessage = errorMessage
                } else if complete, stored.sets[i].version < version, stored.sets[i].state == .pending || stored.sets[i].state == .complete {
                    stored.sets[i].state = .superseded
                }
            }
            try txn.setMeta(Self.metadataKey, json: stored)
        }
        SubscriptionWaiters.shared.resolve(path: path, version: version,
                                           error: complete ? nil : RealmError(.subscriptionFailed, errorMessage ?? "The server refused subscription set version \(version)."))
    }
}

/// Callers waiting for a subscription set version to complete (or fail), per file.
final class SubscriptionWaiters: Sendable {
    static let shared = SubscriptionWaiters()

    private struct Waiter {
        let id: UInt64
        let version: Int64
        let resume: @Sendable (Error?) -> Void
    }
    private let waiters = Mutex<(next: UInt64, byPath: [String: [Waiter]])>((0, [:]))

    /// Calls `resume` once version `version` (or a later one) of the file's subscriptions
    /// completes, or with the error when it fails. Returns an id for `cancel`.
    @discardableResult
    func wait(store: SubscriptionStore, version: Int64, _ resume: @escaping @Sendable (Error?) -> Void) -> UInt64 {
        let id = waiters.withLock { w -> UInt64 in
            w.next += 1
            w.byPath[store.path, default: []].append(Waiter(id: w.next, version: version, resume: resume))
            return w.next
        }
        // It may have resolved before the waiter was registered.
        let stored = store.load()
        if stored.sets.contains(where: { $0.version >= version && $0.state == .complete }) {
            finish(path: store.path, id: id, error: nil)
        } else if let record = stored.record(version), record.state == .error {
            finish(path: store.path, id: id, error: RealmError(.subscriptionFailed, record.errorMessage ?? "The server refused subscription set version \(version)."))
        }
        return id
    }

    /// Ends a wait without an answer (a timeout); `error` is passed to it.
    func cancel(path: String, id: UInt64, error: Error) {
        finish(path: path, id: id, error: error)
    }

    private func finish(path: String, id: UInt64, error: Error?) {
        let waiter = waiters.withLock { w -> Waiter? in
            guard let i = w.byPath[path]?.firstIndex(where: { $0.id == id }) else { return nil }
            return w.byPath[path]!.remove(at: i)
        }
        waiter?.resume(error)
    }

    func resolve(path: String, version: Int64, error: Error?) {
        let ready = waiters.withLock { w -> [Waiter] in
            let list = w.byPath[path] ?? []
            // A completed version answers the waits for it and for older versions. So
            // does a refused one: an older version still waited for never completed and
            // was superseded (only the latest set is sent), so nothing else would answer it.
            let matching = list.filter { $0.version <= version }
            w.byPath[path] = list.filter { waiter in !matching.contains { $0.id == waiter.id } }
            return matching
        }
        for waiter in ready { waiter.resume(error) }
    }

    /// Fails every wait on the file (the session stopped for good).
    func failAll(path: String, error: Error) {
        let all = waiters.withLock { w -> [Waiter] in
            defer { w.byPath[path] = nil }
            return w.byPath[path] ?? []
        }
        for waiter in all { waiter.resume(error) }
    }
}
