import Foundation
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer

/// The accounts contract (``AccountStore``), asserted the same way on both stores: the
/// embedded ORCore store and PostgreSQL. A behaviour the auth service relies on that one
/// store has and the other lacks fails here, naming the store.
final class AccountStoreContractTests: PostgresTestCase {
    /// Runs `body` on a fresh store of each kind, for app `appId`.
    private func onEachStore(appId: String = "app", _ body: (String, any AccountStore) throws -> Void) throws {
        let embedded = try AppStore(appId: appId, directory: directory.appendingPathComponent(UUID().uuidString))
        try body("embedded", embedded)
        try body("postgres", PostgresAccountStore(database: try pool(makeDatabase()), appId: appId))
    }

    func testUsersAndEmailClaims() throws {
        try onEachStore { name, store in
            let alice = try XCTUnwrap(try store.createUser(provider: "local-userpass", email: "alice@example.com", passwordHash: "h1"), name)
            XCTAssertEqual(alice.id.count, 32, name)
            XCTAssertNil(try store.createUser(provider: "local-userpass", email: "alice@example.com", passwordHash: "h2"),
                         "\(name): an email is claimed once")
            let anonymous = try XCTUnwrap(try store.createUser(provider: "anon-user", email: nil, passwordHash: nil), name)
            XCTAssertEqual(try store.user(email: "alice@example.com")?.id, alice.id, name)
            XCTAssertNil(try store.user(email: "nobody@example.com"), name)
            let read = try XCTUnwrap(try store.user(id: alice.id), name)
            XCTAssertEqual(read.provider, "local-userpass", name)
            XCTAssertEqual(read.passwordHash, "h1", name)
            XCTAssertFalse(read.emailConfirmed, name)
            XCTAssertGreaterThan(read.createdAt, 0, name)
            XCTAssertEqual(Set(try store.allUsers().map(\.id)), [alice.id, anonymous.id], name)

            // An external provider's user: made on first login, its email kept up to date, never claimed.
            let external = try store.externalUser(id: "ext-1", provider: "custom-token", email: "alice@example.com")
            XCTAssertEqual(external.provider, "custom-token", name)
            XCTAssertEqual(try store.externalUser(id: "ext-1", provider: "custom-token", email: "new@example.com").email,
                           "new@example.com", name)
            XCTAssertEqual(try store.user(id: "ext-1")?.email, "new@example.com", name)
            XCTAssertEqual(try store.user(email: "alice@example.com")?.id, alice.id, "\(name): the claim stays the email user's")
        }
    }

    func testRemovingAUserFreesItsEmailDropsKeysAndRevokesTokens() throws {
        try onEachStore { name, store in
            let user = try XCTUnwrap(try store.createUser(provider: "local-userpass", email: "bob@example.com", passwordHash: "h"), name)
            try store.storeRefreshToken(RefreshTokenRecord(id: "t1", userId: user.id, expiresAt: 9_999_999_999_999, revoked: false))
            guard case .created = try store.createAPIKey(id: "k1", userId: user.id, name: "ci", keyHash: "hash-1", limit: 20) else {
                return XCTFail("\(name): the key was not created")
            }
            try store.removeUser(id: user.id)
            XCTAssertNil(try store.user(id: user.id), name)
            XCTAssertNil(try store.user(email: "bob@example.com"), name)
            XCTAssertEqual(try store.refreshToken(id: "t1")?.revoked, true, name)
            XCTAssertNil(try store.apiKey(id: "k1"), name)
            XCTAssertNil(try store.apiKey(hash: "hash-1"), name)
            XCTAssertNotNil(try store.createUser(provider: "local-userpass", email: "bob@example.com", passwordHash: "h"),
                            "\(name): the email is free again")
            try store.removeUser(id: "no-such-user")
        }
    }

    func testRefreshTokens() throws {
        try onEachStore { name, store in
            XCTAssertNil(try store.refreshToken(id: "missing"), name)
            try store.storeRefreshToken(RefreshTokenRecord(id: "t", userId: "u", expiresAt: 1234, revoked: false))
            XCTAssertEqual(try store.refreshToken(id: "t"), RefreshTokenRecord(id: "t", userId: "u", expiresAt: 1234, revoked: false), name)
            try store.revokeRefreshToken(id: "t")
            try store.revokeRefreshToken(id: "missing")
            XCTAssertEqual(try store.refreshToken(id: "t")?.revoked, true, name)
        }
    }

    func testAPIKeysNamesLimitsAndOrder() throws {
        try onEachStore { name, store in
            let user = try XCTUnwrap(try store.createUser(provider: "anon-user", email: nil, passwordHash: nil), name)
            let other = try XCTUnwrap(try store.createUser(provider: "anon-user", email: nil, passwordHash: nil), name)
            for i in 0..<3 {
                guard case .created(let key) = try store.createAPIKey(id: "k\(i)", userId: user.id, name: "key-\(i)",
                                                                     keyHash: "hash-\(i)", limit: 3) else {
                    return XCTFail("\(name): key \(i) was not created")
                }
                XCTAssertFalse(key.disabled, name)
            }
            XCTAssertEqual(try store.createAPIKey(id: "kx", userId: user.id, name: "key-0", keyHash: "hash-x", limit: 3), .nameTaken, name)
            XCTAssertEqual(try store.createAPIKey(id: "ky", userId: user.id, name: "key-9", keyHash: "hash-y", limit: 3), .tooMany, name)
            guard case .created = try store.createAPIKey(id: "k9", userId: other.id, name: "key-0", keyHash: "hash-9", limit: 3) else {
                return XCTFail("\(name): names are per user")
            }
            XCTAssertEqual(try store.apiKeys(userId: user.id).map(\.id), ["k0", "k1", "k2"], name)
            XCTAssertEqual(try store.apiKeys(userId: nil).count, 4, name)
            XCTAssertEqual(try store.apiKey(hash: "hash-1")?.id, "k1", name)
            try store.setAPIKey(id: "k1", disabled: true)
            XCTAssertEqual(try store.apiKey(id: "k1")?.disabled, true, name)
            try store.deleteAPIKey(id: "k1")
            try store.deleteAPIKey(id: "missing")
            XCTAssertNil(try store.apiKey(id: "k1"), name)
            XCTAssertEqual(try store.apiKeys(userId: user.id).map(\.id), ["k0", "k2"], name)
        }
    }

    func testMailedTokensAreUsedOnceAndOnlyWhenEverythingMatches() throws {
        try onEachStore { name, store in
            let user = try XCTUnwrap(try store.createUser(provider: "local-userpass", email: "c@example.com", passwordHash: "old"), name)
            try store.storeRefreshToken(RefreshTokenRecord(id: "rt", userId: user.id, expiresAt: 9_999_999_999_999, revoked: false))
            try store.storeEmailToken(id: "id1", token: "secret", userId: user.id, purpose: .passwordReset, now: 1000, expiresAt: 2000)
            // A miss of any kind changes nothing.
            XCTAssertNil(try store.consumeEmailToken(id: "id1", token: "wrong", purpose: .passwordReset, now: 1500,
                                                     effect: .resetPassword(hash: "new")), name)
            XCTAssertNil(try store.consumeEmailToken(id: "id1", token: "secret", purpose: .confirmation, now: 1500,
                                                     effect: .confirmEmail), name)
            XCTAssertNil(try store.consumeEmailToken(id: "id1", token: "secret", purpose: .passwordReset, now: 2000,
                                                     effect: .resetPassword(hash: "new")), "\(name): expired")
            XCTAssertEqual(try store.user(id: user.id)?.passwordHash, "old", name)
            // The match: applied once.
            XCTAssertEqual(try store.consumeEmailToken(id: "id1", token: "secret", purpose: .passwordReset, now: 1500,
                                                       effect: .resetPassword(hash: "new"))?.id, user.id, name)
            XCTAssertNil(try store.consumeEmailToken(id: "id1", token: "secret", purpose: .passwordReset, now: 1500,
                                                     effect: .resetPassword(hash: "newer")), "\(name): used once")
            let after = try XCTUnwrap(try store.user(id: user.id), name)
            XCTAssertEqual(after.passwordHash, "new", name)
            XCTAssertTrue(after.emailConfirmed, "\(name): the mail reached the address")
            XCTAssertEqual(try store.refreshToken(id: "rt")?.revoked, true, "\(name): a reset revokes the refresh tokens")

            // Only the newest pair of a purpose works.
            try store.storeEmailToken(id: "a", token: "one", userId: user.id, purpose: .confirmation, now: 1000, expiresAt: 5000)
            try store.storeEmailToken(id: "b", token: "two", userId: user.id, purpose: .confirmation, now: 1001, expiresAt: 5000)
            XCTAssertNil(try store.consumeEmailToken(id: "a", token: "one", purpose: .confirmation, now: 1002, effect: .confirmEmail), name)
            XCTAssertNotNil(try store.consumeEmailToken(id: "b", token: "two", purpose: .confirmation, now: 1002, effect: .confirmEmail), name)
        }
    }

    /// Apps in one database are apart: a user, an email claim and a key of one app are
    /// not seen by another.
    func testAppsShareADatabaseButNotAccounts() throws {
        let database = try pool(makeDatabase())
        let first = PostgresAccountStore(database: database, appId: "first")
        let second = PostgresAccountStore(database: database, appId: "second")
        let user = try XCTUnwrap(try first.createUser(provider: "local-userpass", email: "d@example.com", passwordHash: "h"))
        XCTAssertNil(try second.user(id: user.id))
        XCTAssertNil(try second.user(email: "d@example.com"))
        XCTAssertNotNil(try second.createUser(provider: "local-userpass", email: "d@example.com", passwordHash: "h"))
        XCTAssertEqual(try first.allUsers().count, 1)
    }

    /// Two processes creating keys for one user at once cannot pass the limit together:
    /// the user's row serializes them. (A trigger slows each insert down, so that
    /// without that lock the creations would overlap between counting and committing.)
    func testConcurrentKeyCreationsKeepTheLimit() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        let one = try pool(location)
        let two = try pool(location)
        try cluster.psql(location.database, """
            CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.1); RETURN NEW; END $$;
            CREATE TRIGGER slow BEFORE INSERT ON openrealm_api_keys FOR EACH ROW EXECUTE FUNCTION slow_insert();
            """)
        let stores = [PostgresAccountStore(database: one, appId: "app"), PostgresAccountStore(database: two, appId: "app")]
        let user = try XCTUnwrap(try stores[0].createUser(provider: "anon-user", email: nil, passwordHash: nil))
        let created = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            if case .created? = try? stores[i % 2].createAPIKey(id: "k\(i)", userId: user.id, name: "n\(i)", keyHash: "h\(i)", limit: 5) {
                created.add()
            }
        }
        XCTAssertEqual(created.value, 5)
        XCTAssertEqual(try stores[1].apiKeys(userId: user.id).count, 5)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
