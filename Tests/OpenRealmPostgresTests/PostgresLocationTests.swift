import XCTest
@testable import OpenRealmPostgres

/// Reading the store URL: what an operator writes, and what is refused by name.
final class PostgresLocationTests: XCTestCase {
    func testATCPLocationWithOptions() throws {
        let location = try PostgresLocation(
            url: "postgres://openrealm@db.internal:6543/realm?sslmode=verify-full&sslrootcert=/etc/ca.pem&connect_timeout=3"
                + "&statement_timeout=1500&pool_max=8&application_name=edge-1",
            environment: ["PGPASSWORD": "from-env"])
        XCTAssertEqual(location.endpoint, .tcp(host: "db.internal", port: 6543))
        XCTAssertEqual(location.username, "openrealm")
        XCTAssertEqual(location.password, "from-env")
        XCTAssertEqual(location.database, "realm")
        XCTAssertEqual(location.tls, .verifyFull)
        XCTAssertEqual(location.rootCertificatePath, "/etc/ca.pem")
        XCTAssertEqual(location.connectTimeout, .seconds(3))
        XCTAssertEqual(location.statementTimeout, .milliseconds(1500))
        XCTAssertEqual(location.maximumConnections, 8)
        XCTAssertEqual(location.applicationName, "edge-1")
        XCTAssertEqual(location.description, "postgres://openrealm@db.internal:6543/realm")
    }

    func testDefaultsSocketsAndPasswords() throws {
        let plain = try PostgresLocation(url: "postgresql://me@localhost/app", environment: [:])
        XCTAssertEqual(plain.endpoint, .tcp(host: "localhost", port: 5432))
        XCTAssertEqual(plain.tls, .prefer)
        XCTAssertNil(plain.password)
        XCTAssertEqual(plain.statementTimeout, .seconds(30))

        let socket = try PostgresLocation(url: "postgres://me@/app?host=/var/run/postgresql&port=5433", environment: [:])
        XCTAssertEqual(socket.endpoint, .socket(path: "/var/run/postgresql/.s.PGSQL.5433"))

        let inURL = try PostgresLocation(url: "postgres://me:p%40ss@[::1]:5432/app", environment: ["PGPASSWORD": "env"])
        XCTAssertEqual(inURL.password, "p@ss", "the URL's password wins over the environment's")
        XCTAssertEqual(inURL.endpoint, .tcp(host: "::1", port: 5432))
        XCTAssertFalse(inURL.description.contains("p@ss"))
        XCTAssertEqual(inURL.description, "postgres://me@[::1]:5432/app")
    }

    func testMistakesAreRefusedByName() {
        let cases: [(String, String)] = [
            ("mysql://me@host/db", "not a postgres:// URL"),
            ("postgres://host/db", "names no user"),
            ("postgres://me@host", "names no database"),
            ("postgres://me@host/db?sslmode=sometimes", "sslmode 'sometimes'"),
            ("postgres://me@host/db?sslmod=require", "parameter 'sslmod' is not known"),
            ("postgres://me@host/db?pool_max=0", "pool_max '0'"),
            ("postgres://me@host/db?host=relative/dir", "socket directory"),
            ("postgres://me@host/db?sslrootcert=/ca.pem", "sslrootcert is used only with"),
        ]
        for (url, expected) in cases {
            XCTAssertThrowsError(try PostgresLocation(url: url, environment: [:]), url) { error in
                XCTAssertEqual((error as? PostgresStoreError)?.kind, .invalidLocation, url)
                XCTAssertTrue("\(error)".contains(expected), "\(url): \(error)")
            }
        }
        XCTAssertThrowsError(try PostgresLocation(url: "mysql://me:topsecret@host/db", environment: [:])) { error in
            XCTAssertFalse("\(error)".contains("topsecret"), "\(error)")
        }
    }
}
