import Foundation
import OpenRealm
import OpenRealmWire

/// What to do when the server asks for a client reset: when it can no longer continue
/// from the file's state (the file's identity is unknown to it, or the history the file
/// needs was trimmed because it stayed away too long).
///
/// The automatic modes replace the file's synced objects with the server's current
/// state, in a write transaction that observers see as any other, and keep syncing.
/// `beforeReset` is called (on the session's queue) with a frozen realm of the file
/// before the reset; `afterReset` with that frozen realm and a live realm of the file
/// after it, on the session's queue too: use the live one only inside the callback.
///
/// ```swift
/// var config = user.flexibleSyncConfiguration(clientResetMode: .recoverUnsyncedChanges(afterReset: { before, after in
///     print("reset: \(before.objects(Task.self).count) tasks before, \(after.objects(Task.self).count) after")
/// }))
/// ```
public enum ClientResetMode: @unchecked Sendable {
    /// Discard the local changes the server had not acknowledged: the file becomes the
    /// server's state.
    case discardUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Apply the unacknowledged local changes again on top of the server's state, as new
    /// local writes that upload: objects created offline come back, changes to objects
    /// the server erased are dropped, a local change to a property wins over the
    /// server's. If that fails the error is reported (`SyncError.clientResetError` to
    /// `syncManager.errorHandler`) and the changes are lost. The default.
    case recoverUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Recover as `recoverUnsyncedChanges` does; if that fails, discard silently.
    case recoverOrDiscardUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Leave the file alone: the session stops and a `SyncError` `.clientResetError` goes
    /// to `errorHandler` (when nil, to `app.syncManager.errorHandler`). The app then
    /// closes the realm, deletes (or keeps) the file and opens it again.
    case manual(errorHandler: ErrorReportingBlock? = nil)
}

/// A partition value of partition-based sync: a string, an integer, an ObjectId or a UUID.
public protocol PartitionValue: Sendable {
    /// The value as the wire encodes it.
    var _wirePartitionValue: WirePrimaryKey { get }
}

extension String: PartitionValue { public var _wirePartitionValue: WirePrimaryKey { .string(self) } }
extension Int: PartitionValue { public var _wirePartitionValue: WirePrimaryKey { .int(Int64(self)) } }
extension Int64: PartitionValue { public var _wirePartitionValue: WirePrimaryKey { .int(self) } }
extension UUID: PartitionValue { public var _wirePartitionValue: WirePrimaryKey { .uuid(WireUUID(self)) } }
extension ObjectId: PartitionValue {
    public var _wirePartitionValue: WirePrimaryKey {
        let hex = Array(stringValue.utf8)
        var bytes: [UInt8] = []
        var i = 0
        while i + 1 < hex.count {
            bytes.append(UInt8(String(decoding: hex[i...i + 1], as: UTF8.self), radix: 16) ?? 0)
            i += 2
        }
        return WireObjectId(bytes: bytes).map(WirePrimaryKey.objectId) ?? .null
    }
}

/// How a synced realm syncs: its user, and flexible sync (with its initial
/// subscriptions) or partition-based sync (with its partition value).
///
/// Reached as `config.syncConfiguration` on a configuration made by
/// `user.flexibleSyncConfiguration()` or `user.configuration(partitionValue:)`.
public struct SyncConfiguration: @unchecked Sendable {
    /// The user whose realm this is.
    public let user: User
    /// True for flexible sync, false for partition-based sync.
    public let enableFlexibleSync: Bool
    /// The partition value (partition-based sync only).
    public let partitionValue: (any PartitionValue)?
    /// What to do when the server asks for a client reset.
    public var clientResetMode: ClientResetMode
    /// Whether an asynchronous open fails on non-fatal errors too.
    public var cancelAsyncOpenOnNonFatalErrors: Bool
    /// Subscriptions added when the realm is first opened (flexible sync).
    public var initialSubscriptions: ((SyncSubscriptionSet) -> Void)?
    /// Whether `initialSubscriptions` run again every time the realm is opened in a process.
    public var rerunOnOpen: Bool

    init(user: User, flexible: Bool, partitionValue: (any PartitionValue)?, clientResetMode: ClientResetMode,
         cancelAsyncOpenOnNonFatalErrors: Bool, initialSubscriptions: ((SyncSubscriptionSet) -> Void)?, rerunOnOpen: Bool) {
        self.user = user
        enableFlexibleSync = flexible
        self.partitionValue = partitionValue
        self.clientResetMode = clientResetMode
        self.cancelAsyncOpenOnNonFatalErrors = cancelAsyncOpenOnNonFatalErrors
        self.initialSubscriptions = initialSubscriptions
        self.rerunOnOpen = rerunOnOpen
    }

    var syncMode: WireSyncMode {
        enableFlexibleSync ? .flexible : .partition(partitionValue?._wirePartitionValue ?? .null)
    }
}

extension Realm.Configuration {
    /// The sync configuration of a synced realm; nil for a local one. Setting it makes the
    /// configuration synced (and setting nil makes it local).
    public var syncConfiguration: SyncConfiguration? {
        get { sync as? SyncConfiguration }
        set { sync = newValue }
    }
}

extension User {
    /// The configuration of the user's flexible sync realm
    /// (`<root>/<app id>/<user id>/flx_sync_default.realm`).
    ///
    /// ```swift
    /// var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
    ///     subs.append(QuerySubscription<Team> { $0.teamName == "Developer Education" })
    /// }, rerunOnOpen: true)
    /// config.objectTypes = [Task.self, Team.self]
    /// ```
    public func flexibleSyncConfiguration(clientResetMode: ClientResetMode = .recoverUnsyncedChanges(),
                                          cancelAsyncOpenOnNonFatalErrors: Bool = false,
                                          initialSubscriptions: ((SyncSubscriptionSet) -> Void)? = nil,
                                          rerunOnOpen: Bool = false) -> Realm.Configuration {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("flx_sync_default.realm"))
        config.syncConfiguration = SyncConfiguration(user: self, flexible: true, partitionValue: nil, clientResetMode: clientResetMode,
                                                     cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors,
                                                     initialSubscriptions: initialSubscriptions, rerunOnOpen: rerunOnOpen)
        return config
    }

    /// The configuration of the user's flexible sync realm with initial subscriptions.
    public func flexibleSyncConfiguration(initialSubscriptions: @escaping (SyncSubscriptionSet) -> Void,
                                          rerunOnOpen: Bool = false) -> Realm.Configuration {
        flexibleSyncConfiguration(clientResetMode: .recoverUnsyncedChanges(), cancelAsyncOpenOnNonFatalErrors: false,
                                  initialSubscriptions: initialSubscriptions, rerunOnOpen: rerunOnOpen)
    }

    /// The configuration of a partition-based realm holding the objects whose partition
    /// field equals `partitionValue` (`<root>/<app id>/<user id>/<partition>.realm`).
    public func configuration<T: PartitionValue>(partitionValue: T,
                                                 clientResetMode: ClientResetMode = .recoverUnsyncedChanges(),
                                                 cancelAsyncOpenOnNonFatalErrors: Bool = false) -> Realm.Configuration {
        let name = "p_" + User.safeName("\(partitionValue._wirePartitionValue)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent(name + ".realm"))
        config.syncConfiguration = SyncConfiguration(user: self, flexible: false, partitionValue: partitionValue,
                                                     clientResetMode: clientResetMode,
                                                     cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors,
                                                     initialSubscriptions: nil, rerunOnOpen: false)
        return config
    }
}
