import Foundation

/// Where in-memory realms keep their data: a process-private folder in shared memory
/// (`/dev/shm`, or the temporary folder where there is none), never the user's
/// folders. The files use ORCore's no-sync mode and are deleted when the last
/// instance of the realm closes; folders of processes that died are removed on the
/// next process's first use.
enum InMemoryStore {
    private static let directory: String = {
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let prefix = "openrealm-memory-\(getuid())-"
        removeFoldersOfDeadProcesses(in: base, prefix: prefix)
        let path = (base as NSString).appendingPathComponent(prefix + "\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        return path
    }()

    static func path(for identifier: String) -> String {
        let bytes = Array(identifier.utf8)
        var name = bytes.prefix(100).map { String(format: "%02x", $0) }.joined()
        if bytes.count > 100 {
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            name += "-" + String(hash, radix: 16)
        }
        return (directory as NSString).appendingPathComponent(name + ".realm")
    }

    private static func removeFoldersOfDeadProcesses(in base: String, prefix: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: (base as NSString).appendingPathComponent(entry))
            }
        }
    }
}
