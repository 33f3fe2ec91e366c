import ArgumentParser
import Foundation
import OpenRealmPostgres
import OpenRealmServer

/// `openrealm-server migrate --from DATA_DIR --to postgres://USER@HOST/DATABASE`: moves
/// the embedded store's apps and signing keys into PostgreSQL
/// (``EmbeddedStoreMigration``), so that `serve --store` takes over where
/// `serve --data-dir` stopped: clients carry on without a reset, tokens stay valid.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move a data directory's apps and signing keys into PostgreSQL (offline: stop its server first); clients carry on without a reset.")

    @Option(name: .customLong("from"), help: "The data directory to move (the embedded store of 'serve --data-dir').")
    var from: String

    @Option(name: .customLong("to"),
            help: "The PostgreSQL store: postgres://USER@HOST/DATABASE (or the environment variable OPENREALM_STORE; the password from PGPASSWORD).")
    var to: String?

    @Option(name: .customLong("app"), help: "Move only this app (repeatable); default: every app of the data directory.")
    var apps: [String] = []

    @Option(name: .customLong("signing-key-file"), help: "The server's signing key file, when it was not <data-dir>/signing.key.")
    var signingKeyFile: String?

    @Option(name: .customLong("signing-key-env"), help: "An environment variable holding the server's signing key, when it was not <data-dir>/signing.key.")
    var signingKeyEnv: String?

    @Option(name: .customLong("previous-signing-key-file"), help: "A retired signing key the server was given (repeatable): it moves as retired.")
    var previousSigningKeyFiles: [String] = []

    func run() throws {
        guard let url = StoreOption.url(option: to) else {
            throw ValidationError("give the database to move into: --to postgres://USER@HOST/DATABASE, or the environment variable "
                + StoreOption.environmentVariable)
        }
        let dataDirectory = URL(fileURLWithPath: from)
        let source: SigningKeySource
        switch (signingKeyFile, signingKeyEnv) {
        case (let file?, nil): source = .file(URL(fileURLWithPath: file))
        case (nil, let name?): source = .environment(name)
        case (nil, nil): source = .dataDirectory
        case (_?, _?): throw ValidationError("give --signing-key-file or --signing-key-env, not both")
        }
        let ring = try EmbeddedAppExport.signingKeyRing(dataDirectory: dataDirectory, source: source,
                                                        previous: previousSigningKeyFiles.map { .file(URL(fileURLWithPath: $0)) })
        try StoreOption.withPostgres(url: url, fromEnvironment: to == nil, option: "--to") { storage in
            let database = storage.database
            let report = try EmbeddedStoreMigration.run(dataDirectory: dataDirectory, appIds: apps.isEmpty ? nil : apps,
                                                        signingKeys: ring, into: database) { app in
                print(Self.describe(app))
            }
            print(report.signingKeysWritten
                ? "signing keys: \(report.signingKeys) moved (tokens issued by the embedded server verify)"
                : "signing keys: the database holds the data directory's already")
            let totals = report.apps.reduce(into: (users: 0, files: 0, entries: 0, objects: 0)) { sum, app in
                sum.users += app.users
                sum.files += app.clientFiles
                sum.entries += app.historyEntries
                sum.objects += app.objects
            }
            print("moved \(report.apps.count) app(s) from '\(dataDirectory.path)' into \(database.location): \(totals.users) user(s), "
                + "\(totals.files) client file(s), \(totals.entries) history entries, \(totals.objects) object(s); "
                + "serve them with 'openrealm-server serve --store'")
        }
    }

    static func describe(_ app: EmbeddedStoreMigration.AppReport) -> String {
        var line = "app '\(app.appId)': \(app.users) user(s), \(app.clientFiles) client file(s), \(app.historyEntries) history entries "
            + "(server version \(app.serverVersion), trimmed through \(app.historyFloor)), \(app.objects) object(s)"
        if !app.restoreMarkedFiles.isEmpty {
            line += "; \(app.restoreMarkedFiles.count) client file(s) restored from a backup and not bound since were not moved "
                + "(their clients reset): " + app.restoreMarkedFiles.map(String.init).joined(separator: ", ")
        }
        return line
    }
}
