import Crypto
import Foundation
import Logging
import XCTest
@testable import OpenRealmServer

/// How a process holds its signing keys: the data directory's files are read once; a
/// shared store is read again, and a token with a key id the process lacks costs at
/// most one read per interval however many such tokens come.
final class TokenKeysTests: XCTestCase {
    func testMadeUpKeyIdsReadTheStoreAtMostOncePerInterval() throws {
        let store = CountingStore(rereadInterval: .seconds(3600))
        let keys = try TokenKeys(store: store, unknownKeyInterval: .seconds(3600), logger: Logger(label: "test"))
        XCTAssertEqual(store.reads, 1)
        for i in 0..<500 {
            let header = JSONWebToken.base64url(Data(#"{"alg":"HS256","kid":"made-up-\#(i)","typ":"JWT"}"#.utf8))
            XCTAssertThrowsError(try keys.verify(header + ".e30.c2ln", kind: "access", now: 0))
        }
        XCTAssertEqual(store.reads, 2, "one read for all the unknown key ids of an interval")
        // A known key id never reads.
        let token = keys.signer().sign(TokenClaims(sub: "u", aud: "a", typ: "access", iat: 0, exp: .max))
        for _ in 0..<10 { XCTAssertNoThrow(try keys.verify(token, kind: "access", now: 0)) }
        XCTAssertEqual(store.reads, 2)
    }

    func testFilesAreReadOnce() throws {
        let store = CountingStore(rereadInterval: nil)
        let keys = try TokenKeys(store: store, unknownKeyInterval: .zero, logger: Logger(label: "test"))
        let header = JSONWebToken.base64url(Data(#"{"alg":"HS256","kid":"other","typ":"JWT"}"#.utf8))
        XCTAssertThrowsError(try keys.verify(header + ".e30.c2ln", kind: "access", now: 0))
        _ = keys.signer()
        XCTAssertEqual(store.reads, 1)
    }

    /// A store that cannot be read keeps the keys held: tokens keep working.
    func testAFailedReadKeepsTheKeys() throws {
        let store = CountingStore(rereadInterval: .zero)
        let keys = try TokenKeys(store: store, logger: Logger(label: "test"))
        let token = keys.signer().sign(TokenClaims(sub: "u", aud: "a", typ: "access", iat: 0, exp: .max))
        store.failing = true
        XCTAssertNoThrow(try keys.verify(token, kind: "access", now: 0))
        XCTAssertGreaterThan(store.reads, 1, "it tried")
    }
}

private final class CountingStore: SigningKeyStore, @unchecked Sendable {
    let rereadInterval: Duration?
    private let key = SymmetricKey(size: .bits256)
    private let lock = NSLock()
    private var count = 0
    private var fails = false

    init(rereadInterval: Duration?) { self.rereadInterval = rereadInterval }

    var reads: Int { lock.withLock { count } }
    var failing: Bool {
        get { lock.withLock { fails } }
        set { lock.withLock { fails = newValue } }
    }

    func ring() throws -> SigningKeyRing {
        try lock.withLock {
            count += 1
            if fails { throw ServerError("the store is down") }
            return SigningKeyRing(current: key)
        }
    }

    func rotate() throws -> SigningKeyRing { throw ServerError("not here") }
}
