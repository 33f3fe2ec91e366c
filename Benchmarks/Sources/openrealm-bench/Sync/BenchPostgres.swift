import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The benchmark's own PostgreSQL: `initdb` into a temporary directory, started with
/// `pg_ctl` listening on a Unix socket only (no TCP port), with PostgreSQL's default
/// durability (`fsync` and `synchronous_commit` on, as the embedded store's commits are
/// durable), stopped at the end. Each sync setup takes a new database of it.
///
/// Run as root (a CI machine), the cluster belongs to the `postgres` user, since
/// PostgreSQL refuses to run as root.
final class BenchPostgres {
    let directory: URL
    private let port = 5432
    private var databases = 0

    var dataDirectory: String { directory.appendingPathComponent("data").path }
    var socketDirectory: String { directory.appendingPathComponent("socket").path }

    /// Whether PostgreSQL's programs are installed (Debian's `postgresql` package).
    static var isInstalled: Bool { (try? binary("initdb")) != nil }

    /// Makes and starts the cluster (up to a minute).
    ///
    /// - Throws: ``BenchError`` naming the program that failed and its output.
    init() throws {
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("openrealm-bench-pg-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("socket"), withIntermediateDirectories: true)
        if getuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", directory.path], asRoot: true) }
        try Self.run(Self.binary("initdb"), ["-D", dataDirectory, "-U", "postgres", "--auth-local=trust", "-E", "UTF8",
                                             "--locale=C.UTF-8"])
        try Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-l", directory.appendingPathComponent("log").path, "-w", "-t", "60",
                                             "-o", "-p \(port) -k \(socketDirectory) -c listen_addresses=''", "start"])
    }

    /// A new empty database, as the URL a server opens it by (over the socket).
    func makeDatabase() throws -> String {
        databases += 1
        let name = "bench\(databases)"
        try Self.run(Self.binary("createdb"), ["-h", socketDirectory, "-p", "\(port)", "-U", "postgres", name])
        return "postgres://postgres@/\(name)?host=\(socketDirectory)&port=\(port)"
    }

    /// The CPU time PostgreSQL has used so far (the postmaster and every process it
    /// started: the servers' connections, the WAL writer, the checkpointer), in
    /// nanoseconds. A connection that ended takes its time with it; the servers' pools
    /// keep theirs open.
    func cpuNanoseconds() -> UInt64 {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0) }) else { return 0 }
        var total = cpuTime(pid: postmaster)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), parent(of: pid) == postmaster else { continue }
            total += cpuTime(pid: pid)
        }
        return total
    }

    /// Stops the cluster at once and removes its files.
    func stop() {
        _ = try? Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Field 4 of `/proc/PID/stat`.
    private func parent(of pid: Int32) -> Int32? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    static func binary(_ name: String) throws -> String {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for version in versions where FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/\(name)") {
            return "/usr/lib/postgresql/\(version)/bin/\(name)"
        }
        throw BenchError("PostgreSQL's \(name) is not installed (Debian's postgresql package)")
    }

    /// Runs a program to its end (as `postgres` when this process is root), its output
    /// in a file: `pg_ctl start` leaves the server holding the descriptors it inherited,
    /// so a pipe would never close.
    @discardableResult
    private static func run(_ path: String, _ arguments: [String], asRoot: Bool = false) throws -> Int32 {
        let command = getuid() == 0 && !asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-bench-pg-\(UUID().uuidString)").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0 else { throw BenchError("cannot start \(command[0])") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw BenchError("\((path as NSString).lastPathComponent) failed (status \(status)): \(text)")
        }
        return status
    }
}
