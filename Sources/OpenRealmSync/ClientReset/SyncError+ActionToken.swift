import Foundation
import OpenRealm
import Synchronization

extension SyncError {
    /// Lets an app act at once on an error that needs its realm file gone: a client
    /// reset in `.manual` mode (the file is moved to a backup path) or a permission
    /// error (the file is deleted). Pass it to `SyncSession.immediatelyHandleError(_:syncManager:)`
    /// once every `Realm` of the file and everything read from them is let go; the next
    /// open of the configuration then starts a fresh file and downloads the server's state.
    ///
    /// ```swift
    /// clientResetMode: .manual(errorHandler: { error, _ in
    ///     guard let (backupPath, token) = (error as? SyncError)?.clientResetInfo() else { return }
    ///     // close the realm, then:
    ///     SyncSession.immediatelyHandleError(token, syncManager: app.syncManager)
    ///     print("the old file is at \(backupPath)")
    /// })
    /// ```
    ///
    /// A token acts once; later uses do nothing.
    public final class ActionToken: Sendable {
        /// The realm file the error concerns.
        let path: String
        /// Where the file is moved; nil to delete it.
        let backupPath: String?
        private let used = Atomic<Bool>(false)

        init(path: String, backupPath: String?) {
            self.path = path
            self.backupPath = backupPath
        }

        /// A token that moves the file at `path` into a `recovered-realms` folder beside
        /// it, under a name with the time of the reset.
        static func backingUp(_ path: String) -> ActionToken {
            let url = URL(fileURLWithPath: path)
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let name = "\(url.deletingPathExtension().lastPathComponent)-\(stamp)-\(UUID().uuidString.prefix(8)).realm"
            let backup = url.deletingLastPathComponent().appendingPathComponent("recovered-realms").appendingPathComponent(name)
            return ActionToken(path: path, backupPath: backup.path)
        }

        /// Stops the file's session, lets the next open make a new file, and moves the
        /// file aside (or deletes it). Nothing after the first call.
        ///
        /// - Throws: the file system's error when the file cannot be moved or deleted.
        func perform() throws {
            guard !used.exchange(true, ordering: .acquiringAndReleasing) else { return }
            SyncSessionRegistry.shared.remove(path: path)
            RealmCoordinator.forgetOpenFile(path)
            let files = FileManager.default
            if let backupPath {
                try files.createDirectory(atPath: (backupPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try files.moveItem(atPath: path, toPath: backupPath)
            } else if files.fileExists(atPath: path) {
                try files.removeItem(atPath: path)
            }
            // The lock file belongs to the file that was there; a new file makes its own.
            try? files.removeItem(atPath: path + "-lock")
        }
    }

    /// For a client reset error (`.clientResetError`, reported in `.manual` mode): the
    /// path the realm file will be moved to, and the token that moves it now
    /// (`SyncSession.immediatelyHandleError(_:syncManager:)`). Nil for other errors.
    public func clientResetInfo() -> (String, SyncError.ActionToken)? {
        guard code == .clientResetError, let token = actionToken, let backup = token.backupPath else { return nil }
        return (backup, token)
    }

    /// For a permission error, the token that deletes the realm file now
    /// (`SyncSession.immediatelyHandleError(_:syncManager:)`); for a client reset error,
    /// the one that moves it aside. Nil for other errors.
    public func deleteRealmUserInfo() -> SyncError.ActionToken? {
        actionToken
    }
}

extension SyncSession {
    /// Acts on an error's token at once: stops the file's session and moves the file to
    /// its backup path (a client reset) or deletes it (a permission error), so that the
    /// next open of the realm starts afresh. Call it only once every `Realm` of the file,
    /// and every object read from one, is let go. Errors of the file system are reported
    /// to `syncManager`'s error handler.
    public static func immediatelyHandleError(_ token: SyncError.ActionToken, syncManager: SyncManager) {
        do { try token.perform() } catch {
            syncManager.errorHandler?(SyncError(.otherError, "Acting on the error of '\(token.path)' failed: \(error)", underlyingError: error), nil)
        }
    }
}
