import Foundation

/// Where the server's PostgreSQL store is, and how to talk to it, read from a
/// `postgres://` URL in the form libpq and `psql` accept:
///
/// ```text
/// postgres://openrealm@db.internal:5432/openrealm?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem
/// postgres://openrealm@/openrealm?host=/var/run/postgresql          (a Unix socket directory)
/// ```
///
/// The password may be in the URL, but is better given by `PGPASSWORD` in the environment
/// so that it is not on a command line. Query parameters:
///
/// | parameter | meaning | default |
/// |---|---|---|
/// | `host` | a Unix socket directory (starts with `/`), in place of the URL's host | — |
/// | `port` | the port (of the socket, too), in place of the URL's | 5432 |
/// | `sslmode` | `disable`, `prefer`, `require` (encrypted, not verified), `verify-ca`, `verify-full` | `prefer` (as libpq) |
/// | `sslrootcert` | PEM file of the CAs that `verify-ca` / `verify-full` trust | the system's |
/// | `connect_timeout` | seconds to wait for a connection | 10 |
/// | `statement_timeout` | milliseconds a statement may run before PostgreSQL cancels it | 30000 |
/// | `pool_max` | most connections this process opens | 20 |
/// | `application_name` | the name `pg_stat_activity` shows | `openrealm-server` |
///
/// An unknown parameter or an invalid value is refused by name, so a mistyped option
/// is not silently ignored.
package struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is encrypted (libpq's `sslmode`).
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// A TCP host and port, or a Unix socket.
    package enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file (`<directory>/.s.PGSQL.<port>`).
        case socket(path: String)
    }

    package var endpoint: Endpoint
    package var username: String
    package var password: String?
    package var database: String
    package var tls: TLSMode = .prefer
    /// The CA file for `verify-ca` / `verify-full`; nil: the system's trust roots.
    package var rootCertificatePath: String?
    package var connectTimeout: Duration = .seconds(10)
    package var statementTimeout: Duration = .seconds(30)
    package var maximumConnections = 20
    package var applicationName = "openrealm-server"

    /// The environment variable that gives the password (as libpq reads it).
    package static let passwordVariable = "PGPASSWORD"

    /// Reads `url`; the password comes from the URL or, when it has none, from
    /// `PGPASSWORD` in `environment`.
    ///
    /// - Throws: ``PostgresStoreError`` `invalidLocation` naming what is wrong (never
    ///   echoing a password).
    package init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresStoreError(.invalidLocation, "the store '\(Self.redacted(text))' is not a postgres:// URL")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresStoreError(.invalidLocation, "the store URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresStoreError(.invalidLocation, "the store URL names no database (postgres://USER@HOST/DATABASE)")
        }
        username = user.removingPercentEncoding ?? user
        self.database = database.removingPercentEncoding ?? database
        password = components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment[Self.passwordVariable]
        var port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw PostgresStoreError(.invalidLocation, "the store URL's port \(port) is out of range")
        }
        var socketDirectory: String?
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "host":
                guard value.hasPrefix("/") else {
                    throw PostgresStoreError(.invalidLocation, "the store URL's host parameter must be a socket directory (an absolute path)")
                }
                socketDirectory = value
            case "port":
                port = try Self.positive(item.name, value, in: 1...65535)
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw PostgresStoreError(.invalidLocation, "sslmode '\(value)' is not one of "
                        + TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                tls = mode
            case "sslrootcert":
                rootCertificatePath = value
            case "connect_timeout":
                connectTimeout = .seconds(try Self.positive(item.name, value, in: 1...3600))
            case "statement_timeout":
                statementTimeout = .milliseconds(try Self.positive(item.name, value, in: 1...86_400_000))
            case "pool_max":
                maximumConnections = try Self.positive(item.name, value, in: 1...1000)
            case "application_name":
                applicationName = value
            default:
                throw PostgresStoreError(.invalidLocation, "the store URL's parameter '\(item.name)' is not known")
            }
        }
        if let socketDirectory {
            endpoint = .socket(path: socketDirectory + "/.s.PGSQL.\(port)")
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw PostgresStoreError(.invalidLocation, "the store URL names no host (or a socket directory with ?host=/path)")
            }
            endpoint = .tcp(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        }
        if rootCertificatePath != nil, tls != .verifyCA, tls != .verifyFull {
            throw PostgresStoreError(.invalidLocation, "sslrootcert is used only with sslmode=verify-ca or verify-full")
        }
    }

    /// The database as messages name it: user, endpoint and database, never the password.
    package var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
        case .socket(let path):
            return "postgres://\(username)@/\(database) (socket \(path))"
        }
    }

    private static func positive(_ name: String, _ value: String, in range: ClosedRange<Int>) throws -> Int {
        guard let n = Int(value), range.contains(n) else {
            throw PostgresStoreError(.invalidLocation, "the store URL's \(name) '\(value)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    /// `text` with any password replaced, for messages about a URL that did not parse.
    private static func redacted(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@"), let schemeEnd = text.range(of: "://")?.upperBound,
              schemeEnd < at, let colon = text[schemeEnd..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
