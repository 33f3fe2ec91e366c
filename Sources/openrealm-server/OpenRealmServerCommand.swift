import ArgumentParser
import Foundation
import Logging
import OpenRealmPostgres
import OpenRealmServer

/// `openrealm-server serve --host 127.0.0.1 --port 9090 --data-dir ./openrealm-data [--config app.json]
/// [--store postgres://USER@HOST/DATABASE (or OPENREALM_STORE) in place of --data-dir]
/// [--tls-cert cert.pem --tls-key key.pem] [--public-url URL] [--trusted-proxy CIDR ...]`, and the
/// operator commands (`backup`, `check`, `users`, `apikeys`; Operator.swift; `migrate`, Migrate.swift).
@main
struct OpenRealmServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openrealm-server",
        abstract: "The self-hostable OpenRealm Flexible Sync server.",
        version: OpenRealmVersion.current,
        subcommands: [Serve.self, Backup.self, Check.self, Users.self, APIKeys.self, RotateSigningKey.self, Schema.self, Migrate.self],
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve auth (HTTP) and sync (WebSocket) on one port.")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 9090

    @Option(name: .customLong("data-dir"), help: "Where the signing key and the app stores live (the embedded store; default ./openrealm-data).")
    var dataDir: String?

    @Option(name: .customLong("store"),
            help: "Keep everything in PostgreSQL instead: postgres://USER@HOST/DATABASE (or the environment variable OPENREALM_STORE; the password from PGPASSWORD). Several servers may serve one database.")
    var store: String?

    @Option(help: "An app configuration (JSON). Without one the server runs in development mode.")
    var config: String?

    @Option(name: .customLong("http-idle-timeout"), help: "Seconds before an idle HTTP connection is closed.")
    var httpIdleTimeout: Double = 60

    @Option(name: .customLong("sync-bind-timeout"), help: "Seconds a sync connection has to send its first bind.")
    var syncBindTimeout: Double = 30

    @Option(name: .customLong("sync-ping-interval"), help: "Seconds between WebSocket pings; an unanswered ping closes the connection at the next.")
    var syncPingInterval: Double = 30

    @Flag(name: .customLong("allow-remote-development"),
          help: "Serve development mode (no --config) on a non-loopback --host: any client may then create apps and declare their schema.")
    var allowRemoteDevelopment = false

    @Option(name: .customLong("max-development-apps"), help: "In development mode, the most apps the data directory may hold.")
    var maxDevelopmentApps = 20

    @Option(name: .customLong("mail-command"),
            help: "A program that sends the server's mails (confirmations, password resets), given each message on standard input, e.g. \"/usr/sbin/sendmail -t\".")
    var mailCommand: String?

    @Option(name: .customLong("sync-max-outbound-bytes"), help: "The most bytes waiting to be sent to one sync connection; past that it is closed (also the largest bootstrap sent in one go).")
    var syncMaxOutboundBytes: Int = 64 << 20

    @Option(name: .customLong("sync-drain-timeout"), help: "Seconds within which a frame queued for a sync connection must be written; a connection that does not drain in time is closed.")
    var syncDrainTimeout: Double = 60

    @Option(name: .customLong("sync-query-budget"), help: "Query bytes a sync connection may send at once (each query message counts at least 16 KiB).")
    var syncQueryBudget: Int = 1 << 20

    @Option(name: .customLong("sync-query-rate"), help: "Query bytes per second a sync connection's budget refills by.")
    var syncQueryRate: Int = 256 << 10

    @Option(name: .customLong("sync-query-concurrency"), help: "Query evaluations that run at once, server-wide; the others wait their turn (default: the cores, at least 2).")
    var syncQueryConcurrency: Int?

    @Option(name: .customLong("sync-max-sessions"), help: "Sessions one sync connection may have bound at once.")
    var syncMaxSessions = 64

    @Option(name: .customLong("http-max-head-bytes"), help: "The largest HTTP request head; a larger one gets 431 and the connection is closed.")
    var httpMaxHeadBytes: Int = 16 << 10

    @Option(name: .customLong("http-max-body-bytes"), help: "The largest HTTP request body; a larger one gets 413 (or is cut off) and the connection is closed.")
    var httpMaxBodyBytes: Int = 1 << 20

    @Option(name: .customLong("http-body-timeout"), help: "Seconds a request body may take after its head before the connection is closed.")
    var httpBodyTimeout: Double = 30

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain (server certificate first): serve HTTPS and WSS. Needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(name: .customLong("public-url"), help: "The URL clients reach the server at behind a reverse proxy, e.g. https://sync.example.com: what /location answers.")
    var publicURL: String?

    @Option(name: .customLong("trusted-proxy"), help: "A reverse proxy's network (CIDR, e.g. 127.0.0.1/32 or fd00::/8; repeatable): from its peers the client address is taken from X-Forwarded-For.")
    var trustedProxy: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("metrics-port"), help: "Serve /metrics on this port only, by a listener of its own (0: any free port); without it, /metrics is on --port.")
    var metricsPort: Int?

    @Option(name: .customLong("metrics-host"), help: "The address the --metrics-port listener listens on (default: --host).")
    var metricsHost: String?

    @Option(name: .customLong("signing-key-file"), help: "A file holding the token signing key (32 bytes, raw or base64) instead of <data-dir>/signing.key.")
    var signingKeyFile: String?

    @Option(name: .customLong("signing-key-env"), help: "An environment variable holding the token signing key (base64 of 32 bytes) instead of <data-dir>/signing.key.")
    var signingKeyEnv: String?

    @Option(name: .customLong("previous-signing-key-file"),
            help: "A signing key a rotation retired (repeatable): its tokens stay valid until they expire; it signs no new ones.")
    var previousSigningKeyFiles: [String] = []

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        var logger = Logger(label: "openrealm-server")
        logger.logLevel = level
        let storeURL = StoreOption.url(option: store)
        if storeURL != nil {
            // Nothing of the server's is on local disk then: say so rather than ignore an option.
            if dataDir != nil {
                throw ValidationError("--data-dir is the embedded store's: with a PostgreSQL store (--store or OPENREALM_STORE) "
                    + "the server keeps nothing on local disk")
            }
            if signingKeyFile != nil || signingKeyEnv != nil || !previousSigningKeyFiles.isEmpty {
                throw ValidationError("with a PostgreSQL store (--store or OPENREALM_STORE) the signing keys are the database's, "
                    + "shared by every server on it: --signing-key-file, --signing-key-env and --previous-signing-key-file do not apply")
            }
        }
        let dataDir = self.dataDir ?? "./openrealm-data"
        var configuration = ServerConfiguration(host: host, port: port, dataDirectory: URL(fileURLWithPath: dataDir))
        for (name, value) in [("--http-idle-timeout", httpIdleTimeout), ("--sync-bind-timeout", syncBindTimeout),
                              ("--sync-ping-interval", syncPingInterval), ("--sync-drain-timeout", syncDrainTimeout),
                              ("--http-body-timeout", httpBodyTimeout)] where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) \(value) must be between 0 and 86400 seconds")
        }
        switch (signingKeyFile, signingKeyEnv) {
        case (let file?, nil): configuration.signingKey = .file(URL(fileURLWithPath: file))
        case (nil, let name?): configuration.signingKey = .environment(name)
        case (nil, nil): break
        case (_?, _?): throw ValidationError("give --signing-key-file or --signing-key-env, not both")
        }
        configuration.previousSigningKeys = previousSigningKeyFiles.map { .file(URL(fileURLWithPath: $0)) }
        for (name, value, least) in [("--sync-max-outbound-bytes", syncMaxOutboundBytes, 1 << 20), ("--sync-query-budget", syncQueryBudget, 16 << 10),
                                     ("--sync-query-rate", syncQueryRate, 1), ("--http-max-head-bytes", httpMaxHeadBytes, 1 << 10),
                                     ("--http-max-body-bytes", httpMaxBodyBytes, 1 << 10)] where value < least {
            throw ValidationError("\(name) \(value) must be at least \(least) bytes")
        }
        configuration.httpIdleTimeout = httpIdleTimeout
        configuration.syncBindTimeout = syncBindTimeout
        configuration.syncPingInterval = syncPingInterval
        guard syncMaxSessions > 0 else { throw ValidationError("--sync-max-sessions \(syncMaxSessions) must be at least 1") }
        configuration.syncMaxSessionsPerConnection = syncMaxSessions
        if let syncQueryConcurrency {
            guard syncQueryConcurrency > 0 else { throw ValidationError("--sync-query-concurrency \(syncQueryConcurrency) must be at least 1") }
            configuration.syncQueryConcurrency = syncQueryConcurrency
        }
        configuration.allowRemoteDevelopment = allowRemoteDevelopment
        configuration.maxDevelopmentApps = maxDevelopmentApps
        if let mailCommand {
            configuration.mailer = try CommandMailSender(command: mailCommand)
        }
        configuration.syncMaxOutboundBytes = syncMaxOutboundBytes
        configuration.syncDrainTimeout = syncDrainTimeout
        configuration.syncQueryBudgetBytes = syncQueryBudget
        configuration.syncQueryBytesPerSecond = syncQueryRate
        configuration.httpMaxHeadBytes = httpMaxHeadBytes
        configuration.httpMaxBodyBytes = httpMaxBodyBytes
        configuration.httpBodyTimeout = httpBodyTimeout
        configuration.metricsPort = metricsPort
        configuration.metricsHost = metricsHost
        if let config {
            configuration.app = try ServerAppConfiguration.load(from: URL(fileURLWithPath: config))
        }
        switch (tlsCert, tlsKey) {
        case (let cert?, let key?):
            configuration.tls = ServerTLSConfiguration(certificateChainFile: URL(fileURLWithPath: cert), privateKeyFile: URL(fileURLWithPath: key))
        case (nil, nil):
            break
        case (_?, nil):
            throw ValidationError("--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, _?):
            throw ValidationError("--tls-key needs --tls-cert (the certificate chain)")
        }
        if let publicURL {
            guard let url = URL(string: publicURL) else { throw ValidationError("--public-url '\(publicURL)' is not a URL") }
            configuration.publicURL = url
        }
        do {
            configuration.trustedProxies = try trustedProxy.map(IPNetwork.init)
        } catch let error as ServerError {
            throw ValidationError(error.message)
        }
        let server: SyncServer
        var postgres: (storage: PostgresStorage, database: DatabasePool)?
        if let storeURL {
            let opened = try await StoreOption.openPostgres(url: storeURL, fromEnvironment: store == nil, logger: logger)
            postgres = opened
            let configuration = configuration
            do {
                server = try await StoreOption.offSwiftThreads { [logger] in
                    try SyncServer(configuration: configuration, storage: opened.0, logger: logger)
                }
            } catch {
                opened.0.close()
                opened.1.close()
                throw error
            }
        } else {
            server = try SyncServer(configuration: configuration, logger: logger)
        }
        defer {
            postgres?.storage.close()
            postgres?.database.close()
        }
        logger.info("starting", metadata: ["version": "\(OpenRealmVersion.current)",
                                           "store": "\(postgres.map { $0.database.location.description } ?? "embedded, data-dir \(dataDir)")",
                                           "mode": "\(config == nil ? "development" : "configured")", "tls": "\(tlsCert == nil ? "off" : "on")",
                                           "public-url": "\(publicURL ?? "none")",
                                           "trusted-proxies": "\(configuration.trustedProxies.map(\.description).joined(separator: ","))"])
        try await server.runService()
    }
}

