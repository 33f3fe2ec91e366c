import Foundation

/// An `openrealm-server serve` child on a fixed loopback port with its own data
/// directory (or a PostgreSQL store it shares with other servers), which can be killed
/// and started again on the same port and data.
final class ServerProcess {
    let executable: URL
    let port: Int
    let dataDirectory: URL
    private let logDirectory: URL
    /// Whether the server runs without `--config` (development mode: any app id).
    private let developmentMode: Bool
    /// More `serve` options, after the ones every run gives.
    private let extraArguments: [String]
    /// `serve --store` in place of `--data-dir`: the PostgreSQL store's URL.
    let storeURL: String?
    /// Names its log files (`<name>-<start>.log`), so that several servers share a folder.
    let name: String
    private(set) var child: ChildProcess?
    /// How many times the server was started.
    private(set) var starts = 0

    /// Prepares (does not start) a server. `executable` defaults to the built
    /// `openrealm-server` beside this executable. It serves ``configuration``, or with
    /// `developmentMode` no configuration at all; `extraArguments` are added to `serve`.
    /// With `storeURL` it serves that PostgreSQL store instead of `dataDirectory`.
    init(executable: URL?, dataDirectory: URL, logDirectory: URL, developmentMode: Bool = false, extraArguments: [String] = [],
         storeURL: String? = nil, name: String = "server") throws {
        if let executable {
            self.executable = executable
        } else {
            guard let me = Bundle.main.executableURL else {
                throw ChaosFailure(.usage, "Cannot find this executable's path to find openrealm-server beside it.")
            }
            self.executable = me.deletingLastPathComponent().appendingPathComponent("openrealm-server")
        }
        guard FileManager.default.isExecutableFile(atPath: self.executable.path) else {
            throw ChaosFailure(.usage, "No openrealm-server executable at '\(self.executable.path)' (build it, or pass --server).")
        }
        self.dataDirectory = dataDirectory
        self.logDirectory = logDirectory
        self.developmentMode = developmentMode
        self.extraArguments = extraArguments
        self.storeURL = storeURL
        self.name = name
        port = try SystemLimits.freePort()
    }

    /// The server's pid (0 when not running).
    var pid: Int32 { child?.pid ?? 0 }

    /// The HTTP client of the server's port.
    var http: LoopbackHTTP { LoopbackHTTP(port: port) }

    /// The base URL clients use.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server and waits until `/health` answers. It logs at `error`, or at the
    /// level in `OPENREALM_CHAOS_SERVER_LOG_LEVEL` (`debug` to see every connection).
    ///
    /// - Throws: ``ChaosFailure/Code/server`` when it exits or does not answer in time.
    func start(timeout: TimeInterval = 60) throws {
        starts += 1
        let log = logDirectory.appendingPathComponent("\(name)-\(starts % 4).log")
        let configuration = developmentMode ? [] : ["--config", try writeConfiguration().path]
        let store = storeURL.map { ["--store", $0] } ?? ["--data-dir", dataDirectory.path]
        let child = try ChildProcess(name: "the server", executable: executable,
                                     arguments: ["serve", "--host", "127.0.0.1", "--port", String(port)] + store
                                         + configuration
                                         + ["--log-level", ProcessInfo.processInfo.environment["OPENREALM_CHAOS_SERVER_LOG_LEVEL"] ?? "error"]
                                         + extraArguments,
                                     errorLog: log, code: .server)
        self.child = child
        let deadline = Date().addingTimeInterval(timeout)
        while !http.isHealthy(timeout: 2) {
            guard child.isRunning else {
                throw ChaosFailure(.server, "the server exited (start \(starts)) before answering /health: \(child.errorTail)")
            }
            guard Date() < deadline else {
                child.kill()
                throw ChaosFailure(.server, "the server did not answer /health within \(Int(timeout)) s (start \(starts)).")
            }
            usleep(10_000)
        }
    }

    /// The app configuration every run serves: the chaos app in development mode (the
    /// schema comes from the clients), open to every user, with login rate limits far above what a run
    /// needs. Every client logs in from 127.0.0.1, and a run logs in thousands of times
    /// (each restarted client, each simulated client), far past the defaults (a burst of
    /// 100 per address, 10 per email).
    static var configuration: [String: Any] { [
        "appId": SyncChaos.appId,
        "developmentMode": true,
        "auth": ["anonymous": true, "emailPassword": true],
        "rules": ["*": ["read": "TRUEPREDICATE", "write": "TRUEPREDICATE"]],
        "rateLimits": [
            "loginPerAddress": ["burst": 1_000_000, "perMinute": 1_000_000],
            "loginPerEmail": ["burst": 1_000_000, "perMinute": 1_000_000],
        ],
    ] }

    /// Writes ``configuration`` into the log directory; returns its path.
    private func writeConfiguration() throws -> URL {
        let file = logDirectory.appendingPathComponent("app.json")
        do {
            try JSONSerialization.data(withJSONObject: Self.configuration, options: [.sortedKeys]).write(to: file)
        } catch {
            throw ChaosFailure(.server, "Cannot write the server's app configuration to '\(file.path)': \(error)")
        }
        return file
    }

    /// Sends SIGKILL and waits for the process to end.
    ///
    /// - Throws: ``ChaosFailure/Code/server`` when the server had exited by itself.
    func kill() throws {
        guard let child else { return }
        self.child = nil
        guard child.kill() else {
            throw ChaosFailure(.server, "the server had exited by itself before the kill: \(child.errorTail)")
        }
    }

    /// Stops the server gracefully (SIGTERM), killing it after `timeout` seconds.
    func stop(timeout: TimeInterval = 15) {
        guard let child else { return }
        self.child = nil
        Glibc.kill(child.pid, SIGTERM)
        _ = child.finish(timeout: timeout)
    }

    /// Registers an email/password user (201, or 409 when it exists already).
    func register(email: String, password: String, appId: String) throws {
        let reply = try http.request("POST", "/api/client/v2.0/app/\(appId)/auth/providers/local-userpass/register",
                                     json: ["email": email, "password": password], timeout: 30)
        guard reply.status == 201 || reply.status == 409 else {
            throw ChaosFailure(.server, "registering \(email) answered \(reply.status): \(reply.body)")
        }
    }

    /// The store file of `appId`.
    func storePath(appId: String) -> String {
        dataDirectory.appendingPathComponent("apps").appendingPathComponent(appId).appendingPathComponent("server.realm").path
    }

    /// Runs `orc_env_check` on the store of `appId` (call it while the server is down).
    ///
    /// - Throws: ``ChaosFailure/Code/engineCheck`` naming the problem.
    func checkStore(appId: String) throws {
        try EngineCheck.run(path: storePath(appId: appId))
    }
}
