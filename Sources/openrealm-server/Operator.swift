import ArgumentParser
import Foundation
import Logging
import OpenRealmServer

// The operator commands: thin shells over the library's `Operator/` types, which the
// tests call directly. Each prints what it did; a failure is an error naming the cause
// and a non-zero exit status.

/// The data directory option every operator command takes.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The server's data directory.")
    var dataDir = "./openrealm-data"

    var url: URL { URL(fileURLWithPath: dataDir) }

    /// Runs `body` holding the data directory's lock as `holder` (no server or other
    /// command may hold it), after checking that the directory exists.
    func whileLocked<T>(as holder: String, _ body: () throws -> T) throws -> T {
        try DataDirectory(url).requireExisting()
        let lock = try DataDirectoryLock(directory: url, holder: holder)
        defer { lock.release() }
        return try body()
    }
}

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the data directory (signing key, every app store) to a new directory; works while a server runs.")

    @OptionGroup var data: DataDirectoryOption

    @Option(help: "The backup directory to create (it must not exist).")
    var to: String

    func run() throws {
        let report = try DataDirectoryBackup.run(dataDirectory: data.url, to: URL(fileURLWithPath: to))
        print("backup of '\(data.dataDir)' written to '\(report.destination.path)'")
        print(report.signingKey ? "signing.key: copied" : "signing.key: none in the data directory (keep the key given by file or environment apart)")
        for app in report.apps {
            print("app '\(app.appId)': server version \(app.serverVersion), \(app.clientFiles) client file(s), \(app.bytes) bytes")
        }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify every app store of a data directory (orc_env_check); exit status 1 when anything is damaged.")

    @OptionGroup var data: DataDirectoryOption

    func run() throws {
        try data.whileLocked(as: "check") {
            let report = try DataDirectoryCheck.run(dataDirectory: data.url)
            print(report.text)
            if !report.isHealthy { throw ExitCode(1) }
        }
    }
}

/// The PostgreSQL store option of the commands that also work there (``StoreOption``).
struct StoreURLOption: ParsableArguments {
    @Option(name: .customLong("store"),
            help: "The PostgreSQL store instead of --data-dir: postgres://USER@HOST/DATABASE (or OPENREALM_STORE; the password from PGPASSWORD). Works beside running servers.")
    var store: String?

    /// The URL given by `--store` or the environment; nil: the data directory.
    var url: String? { StoreOption.url(option: store) }
}

/// The options of the commands that work on one app's accounts.
struct AppOption: ParsableArguments {
    @OptionGroup var data: DataDirectoryOption
    @OptionGroup var store: StoreURLOption

    @Option(help: "The app id.")
    var app: String

    /// Runs `body` with the app's administration open, and closes it after: on the data
    /// directory (held meanwhile), or on PostgreSQL.
    func withAdministration<T>(_ body: (AppAdministration) throws -> T) throws -> T {
        if let url = store.url {
            return try StoreOption.withPostgres(url: url, fromEnvironment: store.store == nil) { storage in
                try body(try AppAdministration(storage: storage, appId: app))
            }
        }
        let admin = try AppAdministration(dataDirectory: data.url, appId: app)
        defer { admin.close() }
        return try body(admin)
    }
}

/// A time in milliseconds since the epoch, as ISO 8601.
private func timestamp(_ milliseconds: Int64) -> String {
    ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}

struct Users: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or remove an app's users (offline on a data directory; on PostgreSQL, --store, beside running servers).",
        subcommands: [List.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users: id, provider, email, created.")

        @OptionGroup var app: AppOption

        func run() throws {
            try app.withAdministration { admin in
                for user in try admin.users() {
                    print([user.id, user.provider, user.email ?? "-", timestamp(user.createdAt)].joined(separator: "\t"))
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user and its API keys; its refresh tokens are revoked and its access tokens refused.")

        @OptionGroup var app: AppOption

        @Argument(help: "The user's id or email.")
        var user: String

        func run() throws {
            try app.withAdministration { admin in
                let removed = try admin.removeUser(user)
                print("removed user \(removed.id)\(removed.email.map { " (\($0))" } ?? "") from app '\(admin.appId)'")
            }
        }
    }
}

struct APIKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikeys",
        abstract: "List or revoke an app's user API keys (offline on a data directory; on PostgreSQL, --store, beside running servers).",
        subcommands: [List.self, Revoke.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the API keys: id, user, name, enabled or disabled, created.")

        @OptionGroup var app: AppOption

        @Option(help: "Only this user's keys (a user id).")
        var user: String?

        func run() throws {
            try app.withAdministration { admin in
                for key in try admin.apiKeys(userId: user) {
                    print([key.id, key.userId, key.name, key.disabled ? "disabled" : "enabled", timestamp(key.createdAt)].joined(separator: "\t"))
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an API key: it no longer logs in.")

        @OptionGroup var app: AppOption

        @Argument(help: "The key's id (from 'apikeys list').")
        var id: String

        func run() throws {
            try app.withAdministration { admin in
                let key = try admin.revokeAPIKey(id: id)
                print("revoked API key \(key.id) ('\(key.name)') of user \(key.userId) in app '\(admin.appId)'")
            }
        }
    }
}

struct RotateSigningKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-signing-key",
        abstract: "Make a new token signing key in the data directory (offline) or the PostgreSQL store (--store); the old one still verifies its tokens until they expire.")

    @OptionGroup var data: DataDirectoryOption
    @OptionGroup var store: StoreURLOption

    func run() throws {
        if let url = store.url {
            // Every server on the database signs with the new key within a minute (at once
            // when it meets a token of it); the previous one verifies until its tokens expire.
            _ = try StoreOption.withPostgres(url: url, fromEnvironment: store.store == nil) { try $0.signingKeys.rotate() }
            print("the database's signing key: new; the previous key verifies the tokens it signed until they expire")
            return
        }
        try data.whileLocked(as: "rotate-signing-key") { try SigningKey.rotate(in: data.url) }
        print("signing.key: new; the previous key is signing.key.previous and verifies the tokens it signed until they expire")
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or extend an app's synced schema, in the app configuration's \"schema\" format (offline on a data directory; on PostgreSQL, --store, beside running servers).",
        subcommands: [Show.self, Apply.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the stored schema as JSON: the value of the configuration's \"schema\" key.")

        @OptionGroup var app: AppOption

        func run() throws {
            try app.withAdministration { admin in
                print(try admin.schema().jsonText())
            }
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the classes and properties of a schema file the store lacks (additive; a conflicting definition is refused).")

        @OptionGroup var app: AppOption

        @Option(help: "The schema file: what 'schema show' prints, or an app configuration with a \"schema\".")
        var file: String

        func run() throws {
            let schema = try AppSchema.load(from: URL(fileURLWithPath: file))
            try app.withAdministration { admin in
                let added = try admin.applySchema(schema)
                print(added.isEmpty ? "app '\(admin.appId)': the store already has this schema"
                    : "app '\(admin.appId)': added \(added.joined(separator: ", "))")
            }
        }
    }
}
