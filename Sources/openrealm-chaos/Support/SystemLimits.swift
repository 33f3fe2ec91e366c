import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenRealmTestSupport

/// Process limits and figures read from the system.
enum SystemLimits {
    /// Raises the soft limit on open files to the hard limit (children inherit it) and
    /// returns the new soft limit.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }

    /// Ignores SIGPIPE, so that writing a command to a child that was just killed fails
    /// with EPIPE instead of ending this process.
    /// Also makes standard output line-buffered, so a run's figures show as they come
    /// even when the output is a pipe.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
        fflush(nil)
        setvbuf(fileStandardOutput(), nil, _IOLBF, 0)
    }

    /// The resident set size of process `pid` in bytes (`VmRSS` of `/proc/<pid>/status`),
    /// or nil when it cannot be read.
    static func residentBytes(of pid: Int32) -> Int? {
        statusBytes("VmRSS", of: pid)
    }

    /// The peak resident set size of process `pid` in bytes since it started (`VmHWM`
    /// of `/proc/<pid>/status`: the kernel's high-water mark, so no peak between two
    /// samples is missed), or nil when it cannot be read.
    static func peakResidentBytes(of pid: Int32) -> Int? {
        statusBytes("VmHWM", of: pid)
    }

    /// A `<field>: <n> kB` line of `/proc/<pid>/status`, in bytes.
    private static func statusBytes(_ field: String, of pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kilobytes = Int(parts[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// The number of open file descriptors of process `pid`, or nil.
    static func openFiles(of pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// A loopback TCP port that was free a moment ago (bound to port 0, then released).
    static func freePort() throws -> Int {
        do {
            return try freeLoopbackPort()
        } catch {
            throw ChaosFailure(.server, "No free loopback port: \(error).")
        }
    }
}

/// The C `stdout` stream that `print` writes to: its address, read from Glibc's symbol
/// table, since Swift 6 refuses a direct reference to the mutable C global.
private func fileStandardOutput() -> UnsafeMutablePointer<FILE>? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "stdout") else { return nil }
    return symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee
}
