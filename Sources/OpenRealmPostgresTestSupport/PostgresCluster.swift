import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import OpenRealmPostgres
import OpenRealmTestSupport

/// A PostgreSQL server of the tests' own: `initdb` into a temporary directory, started
/// with `pg_ctl` on a free loopback port and a Unix socket in that directory, and stopped
/// when the test process exits. One per test process; each test takes a database of its
/// own (``makeDatabase()``).
///
/// Local (socket) connections are trusted; TCP connections need the password
/// ``password`` (SCRAM). Under root (CI), the server runs as the `postgres` user, since
/// PostgreSQL refuses to run as root.
package final class PostgresCluster: @unchecked Sendable {
    package static let password = "openrealm-test-secret"
    package static let superuser = "postgres"

    package let directory: URL
    package let port: Int
    package var socketDirectory: String { directory.appendingPathComponent("socket").path }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresCluster, any Error>?

    /// The cluster of this test process, started on first use.
    ///
    /// - Throws: when PostgreSQL is not installed (`scripts/setup` installs it) or does
    ///   not start; the message names the log.
    package static func shared() throws -> PostgresCluster {
        try lock.withLock {
            if let started { return try started.get() }
            let result = Result { try PostgresCluster() }
            started = result
            if case .success(let cluster) = result {
                atexit { PostgresCluster.stopShared() }
                _ = cluster
            }
            return try result.get()
        }
    }

    private static func stopShared() {
        guard case .success(let cluster) = started else { return }
        try? Self.run(Self.binary("pg_ctl"), ["-D", cluster.dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: cluster.directory)
    }

    package var dataDirectory: String { directory.appendingPathComponent("data").path }

    private init() throws {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("openrealm-pg-\(UUID().uuidString.prefix(8))")
        let dataDirectory = directory.appendingPathComponent("data").path
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("socket"), withIntermediateDirectories: true)
        let passwordFile = directory.appendingPathComponent("pwfile")
        try Self.password.write(to: passwordFile, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            try Self.run("/bin/chown", ["-R", "postgres:postgres", directory.path], asRoot: true)
        }
        try Self.run(Self.binary("initdb"), ["-D", dataDirectory, "-U", Self.superuser, "--auth-local=trust",
                                   "--auth-host=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                                   "--locale=C.UTF-8", "--no-sync"])
        var lastError: (any Error)?
        for _ in 0..<5 {
            let candidate = try freeLoopbackPort()
            do {
                try Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-l", directory.appendingPathComponent("log").path, "-w", "-t", "60",
                                           "-o", "-p \(candidate) -k \(directory.path)/socket -c listen_addresses=127.0.0.1 -c fsync=off",
                                           "start"])
                self.directory = directory
                port = candidate
                return
            } catch {
                lastError = error   // the port was taken in between: another one
            }
        }
        throw lastError!
    }

    /// A new empty database, as a store location over the socket (as the superuser).
    package func makeDatabase() throws -> PostgresLocation {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try Self.run(Self.binary("createdb"), ["-h", socketDirectory, "-p", "\(port)", "-U", Self.superuser, String(name)])
        return try PostgresLocation(url: "postgres://\(Self.superuser)@/\(name)?host=\(socketDirectory)&port=\(port)",
                                    environment: [:])
    }

    /// The same database over TCP on loopback, with the password.
    package func tcpLocation(of location: PostgresLocation, password: String? = PostgresCluster.password) throws -> PostgresLocation {
        try PostgresLocation(url: "postgres://\(Self.superuser)@127.0.0.1:\(port)/\(location.database)?sslmode=disable",
                             environment: password.map { [PostgresLocation.passwordVariable: $0] } ?? [:])
    }

    /// Runs SQL through psql over the socket (setup that is not the code under test).
    @discardableResult
    package func psql(_ database: String, _ sql: String) throws -> String {
        try Self.run(Self.binary("psql"), ["-h", socketDirectory, "-p", "\(port)", "-U", Self.superuser, "-d", database,
                                 "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
    }

    package static func binary(_ name: String) throws -> String {
        let roots = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for root in roots {
            let path = "/usr/lib/postgresql/\(root)/bin/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ClusterError("PostgreSQL's \(name) is not installed (Debian's postgresql package; scripts/setup installs it)")
    }

    /// Runs `path` (as `postgres` when this process is root), returning its output.
    ///
    /// Spawned and reaped here rather than through `Process`: `pg_ctl start` leaves the
    /// server running with the descriptors it inherited, and `Process` then never sees
    /// its child exit. Output goes through a file for the same reason.
    @discardableResult
    private static func run(_ path: String, _ arguments: [String], asRoot: Bool = false) throws -> String {
        let command = getuid() == 0 && !asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        // Standard output is the answer; standard error, kept apart, explains a failure
        // (a tool run as `postgres` also warns there that it cannot enter this process's
        // working directory, which is none of its business).
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pg-run-\(UUID().uuidString)").path
        let errorPath = outputPath + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = command.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw ClusterError("cannot start \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw ClusterError("\((path as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed "
                + "(status \(status)): \(read(errorPath)) \(read(outputPath))")
        }
        return read(outputPath)
    }
}

package struct ClusterError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
