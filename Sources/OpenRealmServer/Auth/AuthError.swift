/// Why an auth request was refused: an HTTP status, a stable error code and a message
/// naming the cause. Sent as `{"error": message, "error_code": code}`.
///
/// | code | status | when |
/// |---|---|---|
/// | `BadRequest` | 400 | a malformed body, a bad email or password shape |
/// | `InvalidPassword` | 401 | email/password login with an unknown email or a wrong password |
/// | `AuthError` | 401 | email/password login of a user who must confirm the address first ("confirmation required") |
/// | `UserpassTokenInvalid` | 400 | `confirm` or `reset` with a token pair that is unknown, wrong, used or expired |
/// | `InvalidSession` | 401 | a missing, malformed, badly signed, revoked or wrong-kind token |
/// | `TokenExpired` | 401 | a token past its expiry |
/// | `AppNotFound` | 404 | an app id the server does not serve |
/// | `AccountNameInUse` | 409 | registering an email that is already registered |
/// | `ProviderDisabled` | 400 | an auth provider the app's configuration turned off |
/// | `APIKeyNotFound` | 404 | an API key id the user does not have (another user's keys are not found either) |
/// | `APIKeyAlreadyExists` | 409 | creating an API key with a name the user already gave a key |
/// | `TooManyRequests` | 429 | too many login attempts for an email or from an address; `Retry-After` says when to retry |
/// | `InternalServerError` | 500 | the store failed |
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The stable error code.
    public var code: String
    /// What was wrong.
    public var message: String
    /// For `TooManyRequests`: the seconds after which a retry can succeed (the
    /// `Retry-After` header).
    public var retryAfterSeconds: Int?

    public init(status: Int, code: String, _ message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code) (\(status)): \(message)" }

    static func badRequest(_ message: String) -> AuthError { AuthError(status: 400, code: "BadRequest", message) }
    static func invalidPassword(_ message: String) -> AuthError { AuthError(status: 401, code: "InvalidPassword", message) }
    static func authError(_ message: String) -> AuthError { AuthError(status: 401, code: "AuthError", message) }
    static func userpassTokenInvalid() -> AuthError {
        AuthError(status: 400, code: "UserpassTokenInvalid", "invalid token data: the token pair is unknown, used or expired")
    }
    static func invalidSession(_ message: String) -> AuthError { AuthError(status: 401, code: "InvalidSession", message) }
    static func tokenExpired(_ message: String) -> AuthError { AuthError(status: 401, code: "TokenExpired", message) }
    static func appNotFound(_ appId: String) -> AuthError { AuthError(status: 404, code: "AppNotFound", "no app '\(appId)' on this server") }
    static func accountNameInUse(_ email: String) -> AuthError {
        AuthError(status: 409, code: "AccountNameInUse", "a user with email '\(email)' is already registered")
    }
    static func providerDisabled(_ provider: String) -> AuthError {
        AuthError(status: 400, code: "ProviderDisabled", "auth provider '\(provider)' is disabled for this app")
    }
    static func apiKeyNotFound(_ id: String) -> AuthError {
        AuthError(status: 404, code: "APIKeyNotFound", "the user has no API key '\(id)'")
    }
    static func apiKeyAlreadyExists(_ name: String) -> AuthError {
        AuthError(status: 409, code: "APIKeyAlreadyExists", "the user already has an API key named '\(name)'")
    }
    static func tooManyRequests(_ message: String, retryAfter seconds: Int) -> AuthError {
        AuthError(status: 429, code: "TooManyRequests", "\(message); retry in \(seconds) s", retryAfterSeconds: seconds)
    }
    static func internalError(_ message: String) -> AuthError { AuthError(status: 500, code: "InternalServerError", message) }
}
