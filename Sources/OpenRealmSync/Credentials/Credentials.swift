import Foundation

/// How a user proves who they are to ``App/login(credentials:)``.
///
/// ```swift
/// let user = try await app.login(credentials: .emailPassword(email: "ana@example.com", password: "secret1"))
/// let guest = try await app.login(credentials: Credentials.anonymous)
/// ```
public enum Credentials: Sendable, Equatable {
    /// A new anonymous user, or the logged-in anonymous user this app already has.
    case anonymous
    /// A user registered with ``EmailPasswordAuth/registerUser(email:password:)``.
    case emailPassword(email: String, password: String)
    /// A JSON Web Token signed with a key the server is configured to trust.
    case jwt(token: String)
    /// An API key created for a user.
    case userAPIKey(String)

    /// The auth provider's name in the server's routes.
    var providerName: String {
        switch self {
        case .anonymous: return "anon-user"
        case .emailPassword: return "local-userpass"
        case .jwt: return "custom-token"
        case .userAPIKey: return "api-key"
        }
    }

    /// The login request's body.
    var loginBody: [String: Any] {
        switch self {
        case .anonymous: return [:]
        case .emailPassword(let email, let password): return ["username": email, "password": password]
        case .jwt(let token): return ["token": token]
        case .userAPIKey(let key): return ["key": key]
        }
    }
}
