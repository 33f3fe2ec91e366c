import Foundation

/// The client of one app on an OpenRealm sync server: logs users in and gives them
/// synced realms.
///
/// ```swift
/// let app = App(id: "todo")     // the server at OPENREALM_BASE_URL, or http://localhost:9090
/// let user = try await app.login(credentials: .anonymous)
/// var config = user.flexibleSyncConfiguration()
/// ```
///
/// There is one app state per id in a process: every `App` made with the same id shares
/// the users, the current user and the configuration. Users and their tokens are kept in
/// `<rootDirectory>/<id>/users.json`, so `currentUser` is known again after a restart,
/// without the network. An `App` may be used from any thread.
public final class App: Sendable {
    let state: AppState

    /// The app `id` on the server at `OPENREALM_BASE_URL` (else `http://localhost:9090`),
    /// or with the configuration an earlier `App(id:configuration:)` gave the id.
    public convenience init(id: String) {
        self.init(state: AppState.shared(id: id, configuration: nil))
    }

    /// The app `id` on the server `configuration` names. The configuration replaces the
    /// one the id had in this process.
    public convenience init(id: String, configuration: AppConfiguration) {
        self.init(state: AppState.shared(id: id, configuration: configuration))
    }

    init(state: AppState) {
        self.state = state
    }

    /// The app id.
    public var appId: String { state.id }

    /// The configuration in effect.
    public var configuration: AppConfiguration { state.configuration }

    /// The most recently logged-in user that is still logged in (from the cache: no network).
    public var currentUser: User? { state.currentUserId.map(state.user) }

    /// Every user this app knows on this device, logged in or not, by id.
    public var allUsers: [String: User] {
        Dictionary(uniqueKeysWithValues: state.allUserIds.map { ($0, state.user($0)) })
    }

    /// Makes `user` the current user.
    ///
    /// - Precondition: the user is logged in (switching to a logged-out user is a
    ///   programmer error: log them in again first).
    @discardableResult
    public func `switch`(to user: User) -> User {
        precondition(user.isLoggedIn, "switch(to:) needs a logged-in user: user \(user.id) is \(user.state). Log the user in first.")
        try? state.updateCache { $0.currentUserId = user.id }
        return user
    }

    /// The email/password provider: registration.
    public var emailPasswordAuth: EmailPasswordAuth { EmailPasswordAuth(state: state) }

    /// Logs in with `credentials`. Anonymous credentials reuse the app's logged-in
    /// anonymous user when there is one. The user becomes the current user.
    ///
    /// - Throws: ``AppError``: `.invalidPassword`, `.providerDisabled`, `.badRequest`,
    ///   `.httpRequestFailed` (server unreachable), ...
    public func login(credentials: Credentials) async throws -> User {
        if case .anonymous = credentials, let existing = state.allUserIds.compactMap(state.entry)
            .last(where: { $0.provider == "anon-user" && $0.state == .loggedIn }) {
            let user = state.user(existing.id)
            self.switch(to: user)
            return user
        }
        let path = "/api/client/v2.0/app/\(state.id)/auth/providers/\(credentials.providerName)/login"
        let reply = try await state.transport.send("POST", path, json: credentials.loginBody)
        guard let access = reply.body["access_token"] as? String, let refresh = reply.body["refresh_token"] as? String,
              let id = reply.body["user_id"] as? String else {
            throw AppError(.httpRequestFailed, "The login answer of \(path) lacks access_token, refresh_token or user_id.")
        }
        var email: String?
        if case .emailPassword(let e, _) = credentials {
            email = e.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping.lowercased()
        }
        return try state.recordLogin(id: id, provider: credentials.providerName, accessToken: access, refreshToken: refresh,
                                     deviceId: reply.body["device_id"] as? String, email: email)
    }

    /// Logs in with `credentials` and calls `completion` with the user or the error (on
    /// an arbitrary thread).
    @preconcurrency
    public func login(credentials: Credentials, _ completion: @escaping @Sendable (Result<User, Error>) -> Void) {
        Task {
            do { completion(.success(try await login(credentials: credentials))) } catch { completion(.failure(error)) }
        }
    }
}

/// Registration with the email/password provider.
public struct EmailPasswordAuth: Sendable {
    let state: AppState

    /// Registers a new user. Log in afterwards with `.emailPassword(email:password:)`.
    ///
    /// - Throws: ``AppError`` `.accountNameInUse` for a registered email, `.badRequest`
    ///   for an email without `@` or a password outside 6–128 characters.
    public func registerUser(email: String, password: String) async throws {
        _ = try await state.transport.send("POST", "/api/client/v2.0/app/\(state.id)/auth/providers/local-userpass/register",
                                           json: ["email": email, "password": password])
    }

    /// Registers a new user and calls `completion` with nil or the error.
    @preconcurrency
    public func registerUser(email: String, password: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete(completion) { try await registerUser(email: email, password: password) }
    }

    /// Confirms a user's address with the token pair of the mail the server sent it
    /// (the link's `token` and `tokenId` query items).
    ///
    /// - Throws: ``AppError`` `.userpassTokenInvalid` for a pair that is unknown, wrong,
    ///   already used or expired.
    public func confirmUser(_ token: String, tokenId: String) async throws {
        try await post("confirm", ["token": token, "tokenId": tokenId])
    }

    /// Confirms a user's address and calls `completion` with nil or the error.
    @preconcurrency
    public func confirmUser(_ token: String, tokenId: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete(completion) { try await confirmUser(token, tokenId: tokenId) }
    }

    /// Asks the server to mail a new confirmation to `email`. The server answers the
    /// same whether or not the address is registered.
    public func resendConfirmationEmail(_ email: String) async throws {
        try await post("confirm/send", ["email": email])
    }

    /// Asks for a new confirmation mail and calls `completion` with nil or the error.
    @preconcurrency
    public func resendConfirmationEmail(_ email: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete(completion) { try await resendConfirmationEmail(email) }
    }

    /// Asks the server to mail a password reset to `email`. The server answers the same
    /// whether or not the address is registered.
    public func sendResetPasswordEmail(_ email: String) async throws {
        try await post("reset/send", ["email": email])
    }

    /// Asks for a password reset mail and calls `completion` with nil or the error.
    @preconcurrency
    public func sendResetPasswordEmail(_ email: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete(completion) { try await sendResetPasswordEmail(email) }
    }

    /// Sets a new password with the token pair of a password reset mail. The user's
    /// refresh tokens are revoked: every device logs in again.
    ///
    /// - Throws: ``AppError`` `.userpassTokenInvalid` for a bad pair, `.badRequest` for a
    ///   password outside 6–128 characters.
    public func resetPassword(to password: String, token: String, tokenId: String) async throws {
        try await post("reset", ["password": password, "token": token, "tokenId": tokenId])
    }

    /// Sets a new password and calls `completion` with nil or the error.
    @preconcurrency
    public func resetPassword(to password: String, token: String, tokenId: String,
                              completion: @escaping @Sendable (Error?) -> Void) {
        complete(completion) { try await resetPassword(to: password, token: token, tokenId: tokenId) }
    }

    private func post(_ route: String, _ body: [String: String]) async throws {
        _ = try await state.transport.send("POST", "/api/client/v2.0/app/\(state.id)/auth/providers/local-userpass/\(route)", json: body)
    }

    private func complete(_ completion: @escaping @Sendable (Error?) -> Void, _ body: @escaping @Sendable () async throws -> Void) {
        Task {
            do { try await body(); completion(nil) } catch { completion(error) }
        }
    }
}
