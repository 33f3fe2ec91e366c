import Crypto
import Foundation
import Logging
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer

/// Signing keys on both stores: one first key, rotations keeping one retired key; and
/// on PostgreSQL, one key for processes starting together and a rotation that reaches
/// a running process without a restart.
final class SigningKeyStoreTests: PostgresTestCase {
    func testTheFirstKeyStaysAndARotationKeepsOneRetiredKey() throws {
        let stores: [(String, any SigningKeyStore)] = [
            ("files", ConfiguredSigningKeys(source: .dataDirectory, dataDirectory: try made(directory))),
            ("postgres", PostgresSigningKeys(database: try pool(try makeDatabase()))),
        ]
        for (name, store) in stores {
            let first = try store.ring()
            XCTAssertEqual(first.previous.count, 0, name)
            XCTAssertEqual(bytes(try store.ring().current), bytes(first.current), "\(name): read again, the same key")
            let second = try store.rotate()
            XCTAssertNotEqual(bytes(second.current), bytes(first.current), name)
            XCTAssertEqual(second.previous.map(bytes), [bytes(first.current)], "\(name): the old key verifies")
            let third = try store.rotate()
            XCTAssertEqual(third.previous.map(bytes), [bytes(second.current)], "\(name): one retired key is kept")
            XCTAssertEqual(bytes(try store.ring().current), bytes(third.current), name)
        }
    }

    /// Six processes starting on an empty database at once make one key between them.
    func testProcessesStartingTogetherMakeOneKey() throws {
        let location = try makeDatabase()
        let stores = try (0..<6).map { _ in PostgresSigningKeys(database: try pool(location)) }
        let keys = Keys()
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            if let ring = try? stores[i].ring() { keys.add(bytes(ring.current)) }
        }
        XCTAssertEqual(keys.all.count, 6, "every process read a ring")
        XCTAssertEqual(Set(keys.all).count, 1, "one key for all")
        XCTAssertEqual(try PostgresCluster.shared().psql(location.database, "SELECT count(*) FROM openrealm_signing_keys"), "1")
    }

    /// A rotation made elsewhere (another process, `rotate-signing-key`): a running
    /// process verifies the new key's tokens at once, still verifies its own earlier
    /// tokens, and signs with the new key once it reads the keys again.
    func testARotationReachesARunningProcess() throws {
        let location = try makeDatabase()
        let running = try TokenKeys(store: PostgresSigningKeys(database: try pool(location), rereadInterval: .milliseconds(200)),
                                    logger: Logger(label: "test"))
        let before = running.signer().sign(claims())
        let rotated = try PostgresSigningKeys(database: try pool(location)).rotate()
        let byNewKey = JSONWebToken(rotated).sign(claims())
        XCTAssertNoThrow(try running.verify(byNewKey, kind: "access", now: 0), "a token of the new key verifies at once")
        XCTAssertNoThrow(try running.verify(before, kind: "access", now: 0), "the retired key still verifies")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, JSONWebToken.keyId(ofToken: running.signer().sign(claims())) != JSONWebToken.keyId(rotated.current) {
            usleep(20_000)
        }
        XCTAssertEqual(JSONWebToken.keyId(ofToken: running.signer().sign(claims())), JSONWebToken.keyId(rotated.current),
                       "the running process signs with the new key")
    }

    private func claims() -> TokenClaims {
        TokenClaims(sub: "user", aud: "app", typ: "access", iat: 0, exp: Int64.max, jti: nil, email: nil, provider: nil)
    }

    private func made(_ url: URL) throws -> URL {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

private func bytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }

private final class Keys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [Data] = []
    func add(_ key: Data) { lock.withLock { keys.append(key) } }
    var all: [Data] { lock.withLock { keys } }
}
