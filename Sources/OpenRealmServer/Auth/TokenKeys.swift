import Crypto
import Foundation
import Logging
import Synchronization

/// The signing keys one process signs and verifies tokens with, read from their store
/// and read again so that a rotation made elsewhere (another process on the same
/// database, `rotate-signing-key`) is taken up without a restart:
///
/// - every ``SigningKeyStore/rereadInterval``, when a token is signed or verified;
/// - at once when a token names a key id the ring does not hold (a process that
///   rotated signs with a key the others have not read yet) — at most once per
///   `unknownKeyInterval`, so that a flood of tokens with made-up key ids costs one
///   read of the store per interval, not one per token.
///
/// A failed read keeps the ring held and is logged: tokens keep working with the keys
/// the process has. A store whose ring cannot change under a running server (the data
/// directory's files) is read once.
final class TokenKeys: Sendable {
    private struct State {
        var tokens: JSONWebToken
        var readAt: ContinuousClock.Instant
        var unknownKeyReadAt: ContinuousClock.Instant?
    }

    private let store: any SigningKeyStore
    private let state: Mutex<State>
    private let refreshInterval: Duration?
    private let unknownKeyInterval: Duration
    private let logger: Logger

    /// Reads the ring once.
    ///
    /// - Throws: the store's error when the first read fails (the server does not start
    ///   without keys).
    convenience init(store: any SigningKeyStore, unknownKeyInterval: Duration = .seconds(1), logger: Logger) throws {
        self.init(store: store, ring: try store.ring(), unknownKeyInterval: unknownKeyInterval, logger: logger)
    }

    /// One key that signs and verifies and never changes (tests and tools).
    convenience init(key: SymmetricKey) {
        let ring = SigningKeyRing(current: key)
        self.init(store: FixedSigningKeys(fixed: ring), ring: ring, logger: Logger(label: "openrealm-server"))
    }

    private init(store: any SigningKeyStore, ring: SigningKeyRing, unknownKeyInterval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        refreshInterval = store.rereadInterval
        self.unknownKeyInterval = unknownKeyInterval
        self.logger = logger
        state = Mutex(State(tokens: JSONWebToken(ring), readAt: .now))
    }

    /// The tokens to sign with: the ring as last read, read again when it is old.
    func signer() -> JSONWebToken {
        current(unknownKeyId: nil)
    }

    /// The claims of `token`, verified with the ring; a key id the ring lacks reads the
    /// store again first (see the type's notes for the bound).
    func verify(_ token: String, kind: String, now: Int64) throws(AuthError) -> TokenClaims {
        // A ring that is never read again needs no key id: the header is read once, by
        // the verification itself.
        let keyId = refreshInterval == nil ? nil : JSONWebToken.keyId(ofToken: token)
        return try current(unknownKeyId: keyId).verify(token, kind: kind, now: now)
    }

    private func current(unknownKeyId: String?) -> JSONWebToken {
        guard let refreshInterval else { return state.withLock { $0.tokens } }
        let now = ContinuousClock.now
        let due: Bool = state.withLock { state in
            if now - state.readAt >= refreshInterval { return true }
            guard let kid = unknownKeyId, !state.tokens.holds(keyId: kid) else { return false }
            if let last = state.unknownKeyReadAt, now - last < unknownKeyInterval { return false }
            state.unknownKeyReadAt = now
            return true
        }
        if due { read(at: now) }
        return state.withLock { $0.tokens }
    }

    /// Reads the store outside the lock (it may be a database round trip); concurrent
    /// readers each read, the last to finish wins, and all read the same store.
    private func read(at now: ContinuousClock.Instant) {
        do {
            let ring = try store.ring()
            state.withLock { state in
                state.tokens = JSONWebToken(ring)
                state.readAt = now
            }
        } catch {
            logger.warning("cannot read the signing keys; keeping the ones held", metadata: ["error": "\(error)"])
            state.withLock { $0.readAt = now }
        }
    }
}

/// A ring that never changes.
private struct FixedSigningKeys: SigningKeyStore {
    let fixed: SigningKeyRing
    func ring() throws -> SigningKeyRing { fixed }
    func rotate() throws -> SigningKeyRing { throw ServerError("these signing keys are fixed") }
    var rereadInterval: Duration? { nil }
}
