import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who listens on a TCP port, for the message of a server that cannot bind it: the
/// listening socket's inode from `/proc/net/tcp` and `tcp6`, then the process whose
/// descriptors hold that socket. Linux only; nil when the port's owner cannot be seen
/// (another user's process, another network namespace, no `/proc`).
enum PortOwner {
    /// `"pid 1234 (nginx)"`, or nil.
    static func describe(port: Int) -> String? {
        let inodes = listeningInodes(port: port)
        guard !inodes.isEmpty, let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for pid in pids where Int32(pid) != nil {
            let fdDirectory = "/proc/\(pid)/fd"
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { continue }
            for fd in fds {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(fd)"),
                      target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) else { continue }
                return "pid \(pid) (\(name(of: pid)))"
            }
        }
        return nil
    }

    /// The program's name: its command line's first word (`comm` is cut at 15 bytes).
    private static func name(of pid: String) -> String {
        if let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
           let first = data.split(separator: 0).first, !first.isEmpty {
            return (String(decoding: first, as: UTF8.self) as NSString).lastPathComponent
        }
        return (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    /// The inodes of the sockets listening on `port`, IPv4 and IPv6.
    private static func listeningInodes(port: Int) -> Set<String> {
        let hexPort = String(format: "%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A", fields[1].hasSuffix(":" + hexPort) else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        return inodes
    }
}
