import Crypto
import Foundation
import Logging

/// What a successful login returns (the JSON body of the login routes).
struct LoginResult: Codable, Sendable, Hashable {
    var access_token: String
    var refresh_token: String
    var user_id: String
    var device_id: String
}

/// Users, passwords and tokens, independent of HTTP: the routes in `HTTP/` call it,
/// and the sync endpoint verifies access tokens through it.
final class AuthService: Sendable {
    let apps: AppRegistry
    let tokens: TokenKeys
    let hasher: PasswordHasher
    /// Sends confirmation and reset mails; nil when the server sends none.
    let mailer: (any MailSender)?
    let logger: Logger
    /// The server's counters (password checks).
    let metrics: ServerMetrics
    /// A hash of no password, verified against when a login names an unknown email so
    /// that the answer costs what a wrong password costs (no timing oracle for which
    /// emails are registered).
    private let decoyHash: String

    init(apps: AppRegistry, signingKeys: TokenKeys, hasher: PasswordHasher,
         mailer: (any MailSender)? = nil, logger: Logger = Logger(label: "openrealm-server"),
         metrics: ServerMetrics = ServerMetrics()) {
        self.apps = apps
        self.tokens = signingKeys
        self.hasher = hasher
        self.mailer = mailer
        self.logger = logger
        self.metrics = metrics
        decoyHash = (try? hasher.hash(StorageConventions.randomHex(16))) ?? ""
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Refuses an attempt past the app's login limits: per remote address (every
    /// provider and registration), and per email for email/password logins.
    ///
    /// The per-email bucket is the email's from that address: a stranger guessing a
    /// user's password from elsewhere empties their own bucket, not the one the owner
    /// logs in with. Guessing one email from many addresses is bounded by each
    /// address's own limit.
    ///
    /// - Throws: `TooManyRequests` with the seconds to wait.
    func limitLogin(_ app: SyncApp, remoteAddress: String?, email: String? = nil) throws(AuthError) {
        let config = app.configuration
        if let remoteAddress, let wait = try Self.wait(app, "address:" + remoteAddress, config.loginRateLimitPerAddress) {
            throw .tooManyRequests("too many login attempts from \(remoteAddress)", retryAfter: wait)
        }
        if let email, let wait = try Self.wait(app, "email:\(email)\u{1F}\(remoteAddress ?? "")", config.loginRateLimitPerEmail) {
            throw .tooManyRequests("too many login attempts for '\(email)'", retryAfter: wait)
        }
    }

    /// Takes a token of `key`'s bucket: nil, or the seconds to wait. A store that cannot
    /// be read refuses the attempt (an internal error), never lets it through unlimited.
    static func wait(_ app: SyncApp, _ key: String, _ limit: RateLimit) throws(AuthError) -> Int? {
        do { return try app.loginLimiter.take(key, limit: limit) } catch {
            throw .internalError("cannot read the rate limits: \(error)")
        }
    }

    /// Logs in anonymously: a new anonymous user each time (the client reuses a logged-in one).
    func anonymousLogin(appId: String, remoteAddress: String? = nil) throws(AuthError) -> LoginResult {
        let app = try apps.app(appId)
        guard app.configuration.anonymousAuth else { throw .providerDisabled("anon-user") }
        try limitLogin(app, remoteAddress: remoteAddress)
        let user: UserRecord?
        do {
            user = try app.accounts.createUser(provider: "anon-user", email: nil, passwordHash: nil)
        } catch {
            throw .internalError("cannot store the user: \(error)")
        }
        guard let user else { throw .internalError("cannot store the user") }
        return try issue(app: app, user: user)
    }

    /// Registers an email/password user. An app that does not confirm automatically
    /// mails a confirmation (``EmailConfirmation``); either way the address is
    /// unconfirmed until the user answers one.
    ///
    /// - Throws: `BadRequest` for an email without '@' or a password outside 6–128
    ///   characters, `AccountNameInUse` for a registered email.
    func register(appId: String, email rawEmail: String, password: String, remoteAddress: String? = nil) throws(AuthError) {
        let app = try apps.app(appId)
        guard app.configuration.emailPasswordAuth else { throw .providerDisabled("local-userpass") }
        try limitLogin(app, remoteAddress: remoteAddress)
        let email = try Self.normalizedEmail(rawEmail)
        let hash = try passwordHash(password)
        let created: UserRecord?
        do {
            created = try app.accounts.createUser(provider: "local-userpass", email: email, passwordHash: hash)
        } catch {
            throw .internalError("cannot store the user: \(error)")
        }
        guard let created else { throw .accountNameInUse(email) }
        if !app.configuration.emailConfirmation.autoConfirm { mail(.confirmation, to: created, app: app) }
    }

    /// Logs in with email and password.
    ///
    /// - Throws: `InvalidPassword` for an unknown email or a wrong password (the same
    ///   message for both, so that emails cannot be probed).
    ///   `TooManyRequests` past the limits per address or per email.
    func login(appId: String, email rawEmail: String, password: String, remoteAddress: String? = nil) throws(AuthError) -> LoginResult {
        let app = try apps.app(appId)
        guard app.configuration.emailPasswordAuth else { throw .providerDisabled("local-userpass") }
        let email = try Self.normalizedEmail(rawEmail)
        try limitLogin(app, remoteAddress: remoteAddress, email: email)
        let user: UserRecord?
        do { user = try app.accounts.user(email: email) } catch { throw .internalError("cannot read users: \(error)") }
        // An unknown email is verified against the decoy, so that both answers cost a hash.
        let matches = hasher.verify(password, against: user?.passwordHash ?? decoyHash)
        metrics.increment("openrealm_password_checks_total")
        guard let user, user.passwordHash != nil, matches else {
            throw .invalidPassword("invalid email or password for '\(email)'")
        }
        if !app.configuration.emailConfirmation.autoConfirm && !user.emailConfirmed {
            throw .authError("confirmation required: confirm '\(email)' with the token pair mailed to it (or have it mailed again)")
        }
        return try issue(app: app, user: user)
    }

    /// Logs in with a JWT from the app's own identity service, verified with the
    /// configured key (``CustomJWTConfiguration``). The same `sub` is always the same user.
    ///
    /// - Throws: `ProviderDisabled` when the app has no custom JWT key, `InvalidSession`
    ///   or `TokenExpired` for a token that does not verify.
    func customJWTLogin(appId: String, token: String, remoteAddress: String? = nil) throws(AuthError) -> LoginResult {
        let app = try apps.app(appId)
        guard let settings = app.configuration.customJWT else { throw .providerDisabled("custom-token") }
        try limitLogin(app, remoteAddress: remoteAddress)
        let identity = try settings.verify(token, now: Self.now)
        let user: UserRecord
        do {
            user = try app.accounts.externalUser(id: CustomJWTConfiguration.userId(subject: identity.subject),
                                              provider: "custom-token", email: identity.email)
        } catch {
            throw .internalError("cannot store the user: \(error)")
        }
        return try issue(app: app, user: user)
    }

    /// A new access token for a valid refresh token.
    func refresh(refreshToken: String) throws(AuthError) -> String {
        let (app, claims, _) = try validRefresh(refreshToken)
        return tokens.signer().sign(accessClaims(app: app, userId: claims.sub, email: claims.email, provider: claims.provider))
    }

    /// Revokes a refresh token: it cannot refresh again. Access tokens it minted stay
    /// valid until they expire.
    func logout(refreshToken: String) throws(AuthError) {
        let (app, _, id) = try validRefresh(refreshToken)
        do { try app.accounts.revokeRefreshToken(id: id) } catch { throw .internalError("cannot revoke the token: \(error)") }
    }

    /// The claims of a valid access token, and its user.
    ///
    /// - Parameter appId: when given, the app the token must be for.
    func verifyAccess(_ token: String, appId: String? = nil) throws(AuthError) -> (TokenClaims, UserRecord) {
        let claims = try tokens.verify(token, kind: "access", now: Self.now)
        if let appId, claims.aud != appId {
            throw .invalidSession("the access token is for app '\(claims.aud)', not '\(appId)'")
        }
        let app: SyncApp
        do {
            app = try apps.app(claims.aud)
        } catch where error.code == "AppNotFound" || error.code == "BadRequest" {
            throw .invalidSession("the access token is for app '\(claims.aud)', which this server does not serve")
        }
        let user: UserRecord?
        do { user = try app.accounts.user(id: claims.sub) } catch { throw .internalError("cannot read users: \(error)") }
        guard let user else { throw .invalidSession("the access token's user '\(claims.sub)' does not exist") }
        return (claims, user)
    }

    private func validRefresh(_ token: String) throws(AuthError) -> (SyncApp, TokenClaims, String) {
        let claims = try tokens.verify(token, kind: "refresh", now: Self.now)
        guard let id = claims.jti else { throw .invalidSession("the refresh token has no id") }
        let app = try apps.app(claims.aud)
        let record: RefreshTokenRecord?
        do { record = try app.accounts.refreshToken(id: id) } catch { throw .internalError("cannot read tokens: \(error)") }
        guard let record, record.userId == claims.sub else { throw .invalidSession("the refresh token is unknown to this app") }
        guard !record.revoked else { throw .invalidSession("the refresh token was revoked by a logout; log in again") }
        return (app, claims, id)
    }

    private func accessClaims(app: SyncApp, userId: String, email: String?, provider: String?) -> TokenClaims {
        let now = Self.now
        return TokenClaims(sub: userId, aud: app.appId, typ: "access", iat: now,
                           exp: now + app.configuration.accessTokenLifetime, jti: nil, email: email, provider: provider)
    }

    func issue(app: SyncApp, user: UserRecord) throws(AuthError) -> LoginResult {
        let now = Self.now
        let id = StorageConventions.randomHex(16)
        let record = RefreshTokenRecord(id: id, userId: user.id, expiresAt: now + app.configuration.refreshTokenLifetime, revoked: false)
        do { try app.accounts.storeRefreshToken(record) } catch { throw .internalError("cannot store the token: \(error)") }
        let refresh = TokenClaims(sub: user.id, aud: app.appId, typ: "refresh", iat: now, exp: record.expiresAt,
                                  jti: id, email: user.email, provider: user.provider)
        let signer = tokens.signer()
        return LoginResult(access_token: signer.sign(accessClaims(app: app, userId: user.id, email: user.email, provider: user.provider)),
                           refresh_token: signer.sign(refresh), user_id: user.id, device_id: StorageConventions.randomHex(12))
    }

    /// The form an email is compared and stored in: trimmed, Unicode NFC (so that a
    /// precomposed and a decomposed spelling are one address), lowercased.
    static func normalizedEmail(_ email: String) throws(AuthError) -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping.lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, trimmed.utf8.count <= 254 else {
            throw .badRequest("'\(email)' is not an email address")
        }
        return trimmed
    }
}
