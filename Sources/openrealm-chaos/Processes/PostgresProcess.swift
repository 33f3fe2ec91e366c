import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL of a `--store postgres` run: `initdb` into the run's folder, started
/// with `pg_ctl` on a free loopback port and a Unix socket in that folder, and stopped
/// (or restarted) the way an operator or a crash would.
///
/// The servers reach it over the socket as the superuser (local connections are
/// trusted). Under root (CI) it runs as the `postgres` user, since PostgreSQL refuses
/// to run as root. It is the tool's own small copy of what the tests' cluster
/// (`OpenRealmPostgresTestSupport`) does, so that the chaos tool links no test target
/// and no PostgreSQL client: the servers are what speak to the database.
///
/// `pg_ctl start` detaches the postmaster, so unlike the other children it does not die
/// with `openrealm-chaos`: ``stop()`` runs at the end of every run that got so far, and
/// a run killed from outside leaves it to `pg_ctl -D <folder>/postgres/data stop`.
final class PostgresProcess {
    static let superuser = "postgres"
    static let database = "openrealm"

    let directory: URL
    /// The loopback port it listens on (a free one, chosen once; the socket is what the servers use).
    let port: Int
    private(set) var running = false
    /// How many times the database was started.
    private(set) var starts = 0

    var dataDirectory: String { directory.appendingPathComponent("data").path }
    var socketDirectory: String { directory.appendingPathComponent("socket").path }
    private var logPath: String { directory.appendingPathComponent("postgres.log").path }

    /// The store URL the servers are given (`serve --store`).
    var storeURL: String { "postgres://\(Self.superuser)@/\(Self.database)?host=\(socketDirectory)&port=\(port)" }

    /// Makes a new cluster in `folder/postgres` on a free port (does not start it).
    ///
    /// - Throws: ``ChaosFailure/Code/usage`` when PostgreSQL is not installed,
    ///   ``ChaosFailure/Code/database`` when `initdb` fails.
    init(folder: URL) throws {
        directory = folder.appendingPathComponent("postgres")
        port = try SystemLimits.freePort()
        do {
            try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        } catch {
            throw ChaosFailure(.usage, "Cannot create '\(socketDirectory)': \(error.localizedDescription)")
        }
        if getuid() == 0 {
            // The postgres user must reach its folder through the run's (root's, 0700).
            chmod(folder.path, 0o755)
            try Self.run("/bin/chown", ["-R", "\(Self.superuser):\(Self.superuser)", directory.path], asRoot: true)
        }
        try Self.run(Self.binary("initdb"), ["-D", dataDirectory, "-U", Self.superuser, "--auth-local=trust",
                                             "--auth-host=reject", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
    }

    /// Starts PostgreSQL (on the same port every time) and makes the servers' database
    /// on the first start.
    ///
    /// - Throws: ``ChaosFailure/Code/database`` naming the log when it does not start.
    func start() throws {
        do {
            // fsync stays on: an immediate shutdown must lose nothing committed.
            try Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-l", logPath, "-w", "-t", "60",
                                                 "-o", "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c max_connections=200",
                                                 "start"])
        } catch {
            throw ChaosFailure(.database, "PostgreSQL did not start (log: \(logPath)): \(error)")
        }
        running = true
        starts += 1
        if starts == 1 {
            try Self.run(Self.binary("createdb"), ["-h", socketDirectory, "-p", "\(port)", "-U", Self.superuser, Self.database])
        }
    }

    /// An immediate shutdown (`pg_ctl stop -m immediate`): every backend ends at once,
    /// without a checkpoint, as after a crash; the next start recovers from the WAL.
    func stopImmediately() throws {
        guard running else { return }
        running = false
        do {
            try Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        } catch {
            throw ChaosFailure(.database, "pg_ctl stop -m immediate failed (log: \(logPath)): \(error)")
        }
    }

    /// A fast shutdown at the end of a run (errors ignored: the run is over).
    func stop() {
        guard running else { return }
        running = false
        _ = try? Self.run(Self.binary("pg_ctl"), ["-D", dataDirectory, "-m", "fast", "-w", "stop"])
    }

    /// Runs SQL through psql over the socket; returns its unaligned output.
    @discardableResult
    func psql(_ sql: String) throws -> String {
        do {
            return try Self.run(Self.binary("psql"), ["-h", socketDirectory, "-p", "\(port)", "-U", Self.superuser, "-d", Self.database,
                                                      "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
        } catch let error as ChaosFailure {
            throw error
        } catch {
            throw ChaosFailure(.database, "psql: \(error)")
        }
    }

    /// A PostgreSQL program: Debian's newest `/usr/lib/postgresql/<version>/bin`, else PATH.
    static func binary(_ name: String) throws -> String {
        let roots = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let candidates = roots.map { "/usr/lib/postgresql/\($0)/bin" } + path.split(separator: ":").map(String.init)
        for directory in candidates where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw ChaosFailure(.usage, "PostgreSQL's \(name) is not installed (Debian's postgresql package; scripts/setup installs it).")
    }

    /// Runs `path` (as `postgres` when this process is root) to its end; returns its
    /// standard output.
    ///
    /// Spawned and reaped here rather than through `Process`: `pg_ctl start` leaves the
    /// postmaster running with the descriptors it inherited, so output goes through files.
    @discardableResult
    private static func run(_ path: String, _ arguments: [String], asRoot: Bool = false) throws -> String {
        let command = getuid() == 0 && !asRoot ? ["/usr/sbin/runuser", "-u", superuser, "--", path] + arguments : [path] + arguments
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-chaos-pg-\(UUID().uuidString)").path
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
        guard spawned == 0 else { throw ChaosFailure(.database, "cannot start \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard status & 0x7f == 0 && (status >> 8) & 0xff == 0 else {
            throw ChaosFailure(.database, "\((path as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed "
                + "(status \(status)): \(read(errorPath)) \(read(outputPath))")
        }
        return read(outputPath)
    }
}
