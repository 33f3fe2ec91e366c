import ArgumentParser
import Foundation
import Logging
import OpenRealmServer

/// `openrealm-server serve --host 127.0.0.1 --port 9090 --data-dir ./openrealm-data [--config app.json]`,
/// and the operator commands (`backup`, `check`, `users`, `apikeys`; Operator.swift).
@main
struct OpenRealmServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openrealm-server",
        abstract: "The self-hostable OpenRealm Flexible Sync server.",
        version: OpenRealmVersion.current,
        subcommands: [Serve.self, Backup.self, Check.self, Users.self, APIKeys.self],
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve auth (HTTP) and sync (WebSocket) on one port.")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 9090

    @Option(name: .customLong("data-dir"), help: "Where the signing key and the app stores live.")
    var dataDir = "./openrealm-data"

    @Option(help: "An app configuration (JSON). Without one the server runs in development mode.")
    var config: String?

    @Option(name: .customLong("http-idle-timeout"), help: "Seconds before an idle HTTP connection is closed.")
    var httpIdleTimeout: Double = 60

    @Option(name: .customLong("sync-bind-timeout"), help: "Seconds a sync connection has to send its first bind.")
    var syncBindTimeout: Double = 30

    @Option(name: .customLong("sync-ping-interval"), help: "Seconds between WebSocket pings; an unanswered ping closes the connection at the next.")
    var syncPingInterval: Double = 30

    @Option(name: .customLong("mail-command"),
            help: "A program that sends the server's mails (confirmations, password resets), given each message on standard input, e.g. \"/usr/sbin/sendmail -t\".")
    var mailCommand: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("signing-key-file"), help: "A file holding the token signing key (32 bytes, raw or base64) instead of <data-dir>/signing.key.")
    var signingKeyFile: String?

    @Option(name: .customLong("signing-key-env"), help: "An environment variable holding the token signing key (base64 of 32 bytes) instead of <data-dir>/signing.key.")
    var signingKeyEnv: String?

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        var logger = Logger(label: "openrealm-server")
        logger.logLevel = level
        var configuration = ServerConfiguration(host: host, port: port, dataDirectory: URL(fileURLWithPath: dataDir))
        for (name, value) in [("--http-idle-timeout", httpIdleTimeout), ("--sync-bind-timeout", syncBindTimeout),
                              ("--sync-ping-interval", syncPingInterval)] where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) \(value) must be between 0 and 86400 seconds")
        }
        switch (signingKeyFile, signingKeyEnv) {
        case (let file?, nil): configuration.signingKey = .file(URL(fileURLWithPath: file))
        case (nil, let name?): configuration.signingKey = .environment(name)
        case (nil, nil): break
        case (_?, _?): throw ValidationError("give --signing-key-file or --signing-key-env, not both")
        }
        configuration.httpIdleTimeout = httpIdleTimeout
        configuration.syncBindTimeout = syncBindTimeout
        configuration.syncPingInterval = syncPingInterval
        if let mailCommand {
            configuration.mailer = try CommandMailSender(command: mailCommand)
        }
        if let config {
            configuration.app = try AppConfiguration.load(from: URL(fileURLWithPath: config))
        }
        let server = try OpenRealmServer(configuration: configuration, logger: logger)
        logger.info("starting", metadata: ["version": "\(OpenRealmVersion.current)", "data-dir": "\(dataDir)",
                                           "mode": "\(config == nil ? "development" : "configured")"])
        try await server.runService()
    }
}

