import ArgumentParser
import Foundation
import Logging
import OpenRealmServer

/// `openrealm-server serve --host 127.0.0.1 --port 9090 --data-dir ./openrealm-data [--config app.json]
/// [--tls-cert cert.pem --tls-key key.pem]`
@main
struct OpenRealmServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openrealm-server",
        abstract: "The self-hostable OpenRealm Flexible Sync server.",
        subcommands: [Serve.self],
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

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain (server certificate first): serve HTTPS and WSS. Needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

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
        configuration.httpIdleTimeout = httpIdleTimeout
        configuration.syncBindTimeout = syncBindTimeout
        configuration.syncPingInterval = syncPingInterval
        if let config {
            configuration.app = try AppConfiguration.load(from: URL(fileURLWithPath: config))
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
        let server = try OpenRealmServer(configuration: configuration, logger: logger)
        logger.info("starting", metadata: ["data-dir": "\(dataDir)", "mode": "\(config == nil ? "development" : "configured")",
                                           "tls": "\(tlsCert == nil ? "off" : "on")"])
        try await server.runService()
    }
}

