import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `openrealm-server backup`: a copy of a data directory — the signing key and every
/// app's store — taken while a server may be running on it, that a server can start
/// from as it is.
///
/// Each store is copied with `orc_env_copy` from one read snapshot (a consistent state,
/// compacted), then opened and marked restorable (``AppStore/markAsRestorable()``: a
/// client that synced past the copy gets a client reset after a restore, instead of
/// silently missing what the restore forgot) and checked with `orc_env_check`. Apps are
/// independent of one another, so each is copied at its own moment. The whole copy is
/// written under `<destination>.partial` and renamed to `destination` only once every
/// part is written and synced: a `destination` that exists is a complete backup.
///
/// No lock is taken on the data directory: the copy only reads, and LMDB keeps a read
/// transaction consistent beside a writer in another process.
public enum DataDirectoryBackup {
    /// What one app's copy holds.
    public struct AppCopy: Sendable, Hashable {
        /// The app id.
        public var appId: String
        /// The server version the copy holds: what a restored server resumes from.
        public var serverVersion: UInt64
        /// The client files marked restorable.
        public var clientFiles: Int
        /// The size of the copy in bytes.
        public var bytes: Int64
    }

    /// What a backup wrote.
    public struct Report: Sendable, Hashable {
        /// The backup directory.
        public var destination: URL
        /// Whether the data directory's `signing.key` was copied (false when there is
        /// none: a key kept outside the data directory must be saved apart).
        public var signingKey: Bool
        /// Each app's copy, by app id.
        public var apps: [AppCopy]
    }

    /// Copies `dataDirectory` to `destination`, which must not exist.
    ///
    /// - Throws: ``ServerError`` naming what failed: a missing data directory, an
    ///   existing destination, a store that cannot be read or copied, a copy that does
    ///   not check. Nothing is left at `destination` then.
    public static func run(dataDirectory: URL, to destination: URL) throws -> Report {
        let source = DataDirectory(dataDirectory)
        try source.requireExisting()
        let fm = FileManager.default
        guard !fm.fileExists(atPath: destination.path) else {
            throw ServerError("the backup destination '\(destination.path)' already exists; name a new directory")
        }
        let staging = URL(fileURLWithPath: destination.path + ".partial")
        try DataDirectory.makeDirectories(destination.deletingLastPathComponent().path, what: "the backup's parent directory")
        // Made exclusively: two backups to one destination cannot share it.
        guard mkdir(staging.path, 0o700) == 0 else {
            if errno == EEXIST {
                throw ServerError("'\(staging.path)' exists (a backup in progress, or one that was interrupted); remove it first")
            }
            throw ServerError("cannot create '\(staging.path)': \(String(cString: strerror(errno)))")
        }
        do {
            let report = try write(source, to: staging, reportingAs: destination)
            guard rename(staging.path, destination.path) == 0 else {
                throw ServerError("cannot rename '\(staging.path)' to '\(destination.path)': \(String(cString: strerror(errno)))")
            }
            syncDirectory(destination.deletingLastPathComponent().path)
            return report
        } catch {
            try? fm.removeItem(at: staging)
            throw error
        }
    }

    private static func write(_ source: DataDirectory, to staging: URL, reportingAs destination: URL) throws -> Report {
        let target = DataDirectory(staging)
        var report = Report(destination: destination, signingKey: false, apps: [])
        // The signing key, and the key a rotation retired (its tokens are still valid).
        for name in [SigningKey.fileName, SigningKey.previousFileName] {
            let key = source.url.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: key.path) else { continue }
            try copyFile(key.path, to: staging.appendingPathComponent(name).path, mode: 0o600)
            if name == SigningKey.fileName { report.signingKey = true }
        }
        for appId in try source.appIds() {
            let directory = target.appsDirectory.appendingPathComponent(appId)
            try DataDirectory.makeDirectories(directory.path, what: "the backup's app directory")
            let copyPath = target.storePath(appId: appId)
            do {
                try StoreFile(path: source.storePath(appId: appId)).copy(to: copyPath)
            } catch {
                throw ServerError("cannot copy the store of app '\(appId)': \(error)")
            }
            let marked: (serverVersion: UInt64, files: Int)
            do {
                marked = try AppStore(appId: appId, directory: directory).markAsRestorable()
            } catch {
                throw ServerError("cannot mark the copy of app '\(appId)' as restorable: \(error)")
            }
            if let damage = try StoreFile(path: copyPath, verify: true).check() {
                throw ServerError("the copy of app '\(appId)' does not check (\(damage.problems) problem(s)): \(damage.first)")
            }
            // The copy is closed now; LMDB makes a new lock file when a server opens it.
            unlink(copyPath + "-lock")
            syncDirectory(directory.path)
            var st = stat()
            let size = stat(copyPath, &st) == 0 ? Int64(st.st_size) : 0
            report.apps.append(AppCopy(appId: appId, serverVersion: marked.serverVersion, clientFiles: marked.files, bytes: size))
        }
        syncDirectory(target.appsDirectory.path)
        syncDirectory(staging.path)
        return report
    }

    /// Copies a small file (the signing key) durably, with `mode`.
    private static func copyFile(_ from: String, to: String, mode: mode_t) throws {
        guard let data = FileManager.default.contents(atPath: from) else {
            throw ServerError("cannot read '\(from)': \(String(cString: strerror(errno)))")
        }
        let fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ServerError("cannot create '\(to)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(fd) == 0 else {
            throw ServerError("cannot write '\(to)': \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the directory's entries durable (best effort: not every file system can).
    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
