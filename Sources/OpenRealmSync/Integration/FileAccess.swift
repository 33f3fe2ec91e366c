import Foundation
import ORCore
import OpenRealm
import OpenRealmSyncCore

/// Transactions on a realm file the sync module keeps open, for its own state
/// (metadata) and for integrating downloads: the sync core's ``ORCoreEnvironment``
/// over the handle the file's `RealmCoordinator` owns (borrowed: the coordinator
/// closes it, once).
///
/// Commits made here are announced to the file's notifier, so `Realm` instances and
/// their observers move to the new version as they do after any other commit. An
/// ORCore failure inside a transaction (beginning, committing, or in the body) is
/// reported as a `SyncError` `.otherError` whose underlying error is the
/// ``ORCoreError``, status and all.
struct FileAccess: @unchecked Sendable {
    let coordinator: RealmCoordinator
    private let environment: ORCoreEnvironment

    init(coordinator: RealmCoordinator) {
        self.coordinator = coordinator
        environment = ORCoreEnvironment(borrowing: coordinator.env, path: coordinator.path, from: coordinator)
    }

    var path: String { coordinator.path }

    /// Runs `body` in a read transaction.
    func read<R>(_ body: (ORCoreTransaction) throws -> R) throws -> R {
        try reportingEngineFailures { try environment.read(body) }
    }

    /// Runs `body` in a write transaction and commits it; returns the body's result and
    /// the committed version. When `body` throws nothing is committed.
    func write<R>(_ body: (ORCoreTransaction) throws -> R) throws -> (R, UInt64) {
        let (result, version) = try reportingEngineFailures { try environment.writeReturningVersion(body) }
        coordinator.notifier.fileAdvanced(to: version)
        return (result, version)
    }

    /// The latest committed version (0 when it cannot be read).
    func latestVersion() -> UInt64 {
        (try? environment.committedVersion()) ?? 0
    }

    private func reportingEngineFailures<R>(_ work: () throws -> R) throws -> R {
        do {
            return try work()
        } catch let failure as ORCoreError {
            throw SyncError(.otherError, failure.message, underlyingError: failure)
        }
    }
}
