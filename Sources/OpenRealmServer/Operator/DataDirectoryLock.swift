import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive lock of a data directory: `flock` on `<data dir>/openrealm.lock`, held by
/// a running server (``SyncServer/run()``) and by the offline operator commands
/// (`check`, `users`, `apikeys`) for as long as they work on the directory.
///
/// A second holder is refused at once with a message naming the directory and, from
/// what the holder wrote into the file, its process id and command. The kernel drops
/// the lock when its holder exits, however it exits, so a crashed server leaves
/// nothing to clean up; the file itself stays.
///
/// `backup` takes no lock: it only reads, through LMDB read transactions, which LMDB
/// keeps consistent beside a writer in another process (docs/SERVER.md, "Backup").
///
/// Threading: one holder per instance; ``release()`` may be called from any thread.
/// `flock` locks belong to an open file description, so two holders in one process
/// exclude each other as two processes do.
public final class DataDirectoryLock: @unchecked Sendable {
    /// The lock file's name inside the data directory.
    public static let fileName = "openrealm.lock"

    /// The data directory it locks.
    public let directory: URL
    private let lock = NSLock()
    private var descriptor: Int32

    /// Locks `directory` for `holder` (e.g. `"serve"`, `"check"`), which is written into
    /// the lock file for the message a refused second holder prints.
    ///
    /// - Throws: ``ServerError`` when another holder has the directory ("in use by ..."),
    ///   or the lock file cannot be opened (naming the OS reason).
    public init(directory: URL, holder: String) throws {
        self.directory = directory
        let path = directory.appendingPathComponent(Self.fileName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServerError("cannot open the lock file '\(path)' of the data directory: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let owner = Self.readHolder(fd)
            close(fd)
            if reason == EWOULDBLOCK {
                let who = owner.isEmpty ? "another openrealm-server process" : owner
                throw ServerError("the data directory '\(directory.path)' is in use by \(who); stop it first, or use another --data-dir")
            }
            throw ServerError("cannot lock the data directory '\(directory.path)': \(String(cString: strerror(reason)))")
        }
        descriptor = fd
        let note = "openrealm-server \(holder) (pid \(getpid()))\n"
        if ftruncate(fd, 0) == 0 {
            _ = note.withCString { pwrite(fd, $0, strlen($0), 0) }
        }
    }

    deinit {
        release()
    }

    /// Unlocks the directory; later calls do nothing.
    public func release() {
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0 else { return }
        // Closing the descriptor drops the flock; the file stays for the next holder.
        close(descriptor)
        descriptor = -1
    }

    /// What the holder wrote into the lock file (trimmed), or "" when unreadable.
    private static func readHolder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return "" }
        return String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
