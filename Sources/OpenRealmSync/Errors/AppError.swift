import Foundation

/// A failure of an ``App`` call: login, registration, token refresh, logout.
///
/// ```swift
/// do { _ = try await app.login(credentials: .emailPassword(email: e, password: p)) }
/// catch let error as AppError where error.code == .invalidPassword { ... }
/// ```
public struct AppError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What went wrong.
    public enum Code: String, Sendable, CaseIterable {
        /// Unknown email or wrong password (the server does not say which).
        case invalidPassword = "InvalidPassword"
        /// Logging in before confirming the address, where the app asks for confirmation
        /// ("confirmation required").
        case authError = "AuthError"
        /// A confirmation or password reset token pair that is unknown, wrong, used or expired.
        case userpassTokenInvalid = "UserpassTokenInvalid"
        /// Registering an email that is already registered.
        case accountNameInUse = "AccountNameInUse"
        /// A missing, malformed, badly signed or revoked token: log in again.
        case invalidSession = "InvalidSession"
        /// A token past its expiry.
        case tokenExpired = "TokenExpired"
        /// A request the server refused as malformed (a password too short, an email without `@`).
        case badRequest = "BadRequest"
        /// The server does not serve this app id.
        case appNotFound = "AppNotFound"
        /// The server has this authentication provider turned off, or does not offer it.
        case providerDisabled = "ProviderDisabled"
        /// The user has no API key with that id (another user's keys are not found either).
        case apiKeyNotFound = "APIKeyNotFound"
        /// Creating an API key with a name the user already gave one.
        case apiKeyAlreadyExists = "APIKeyAlreadyExists"
        /// Too many login attempts for this email or from this address: wait the seconds
        /// the message names (the server's `Retry-After`), then retry.
        case tooManyRequests = "TooManyRequests"
        /// The server failed.
        case internalServerError = "InternalServerError"
        /// The server could not be reached, or answered something that is not its API.
        case httpRequestFailed = "HTTPRequestFailed"
        /// The user was logged out or removed, so the call cannot use it.
        case userNotLoggedIn = "UserNotLoggedIn"
        /// A local failure (the user cache could not be written).
        case unknown = "Unknown"
    }

    /// What went wrong.
    public let code: Code
    /// A message naming the cause.
    public let message: String
    /// The HTTP status of the server's answer, when there was one.
    public let httpStatusCode: Int?

    public init(_ code: Code, _ message: String, httpStatusCode: Int? = nil) {
        self.code = code
        self.message = message
        self.httpStatusCode = httpStatusCode
    }

    public var errorCode: Int { httpStatusCode ?? 0 }
    public var description: String { "AppError(\(code.rawValue)): \(message)" }
    public var errorDescription: String? { message }
    public var localizedDescription: String { message }
}

extension AppError.Code {
    /// Lets `catch AppError.Code.invalidPassword` match an `AppError` of that code.
    public static func ~= (code: AppError.Code, error: any Error) -> Bool {
        (error as? AppError)?.code == code
    }
}
