import Foundation
import Logging

/// Confirmation of email/password addresses and password resets by mailed token pairs
/// (`docs/SERVER.md`, "Confirming addresses").
///
/// The `send` calls answer the same whether or not the address is registered, and mail
/// off the request, so that neither their answer nor its time tells a stranger which
/// addresses have accounts. The pairs are single-use; a new mail of the same purpose
/// replaces the last one.
extension AuthService {
    /// Mails a new confirmation pair to `email` when it belongs to an unconfirmed user.
    ///
    /// - Throws: `BadRequest` for a malformed email, `ProviderDisabled`, `TooManyRequests`
    ///   past the per-address or per-email limits, `InternalServerError` when the server
    ///   sends no mail.
    func resendConfirmation(appId: String, email rawEmail: String, remoteAddress: String?) throws(AuthError) {
        let (app, user) = try mailTarget(appId: appId, email: rawEmail, remoteAddress: remoteAddress)
        if let user, !user.emailConfirmed { mail(.confirmation, to: user, app: app) }
    }

    /// Mails a password reset pair to `email` when it belongs to a user.
    ///
    /// - Throws: as ``resendConfirmation(appId:email:remoteAddress:)``.
    func sendPasswordReset(appId: String, email rawEmail: String, remoteAddress: String?) throws(AuthError) {
        let (app, user) = try mailTarget(appId: appId, email: rawEmail, remoteAddress: remoteAddress)
        if let user { mail(.passwordReset, to: user, app: app) }
    }

    /// Confirms the address of the pair's user.
    ///
    /// - Throws: `UserpassTokenInvalid` for a pair that is unknown, wrong, used or expired.
    func confirm(appId: String, token: String, tokenId: String, remoteAddress: String?) throws(AuthError) {
        let app = try emailApp(appId)
        try limitLogin(app, remoteAddress: remoteAddress)
        let done: UserRecord?
        do {
            done = try app.accounts.consumeEmailToken(id: tokenId, token: token, purpose: .confirmation, now: Self.now,
                                                      effect: .confirmEmail)
        } catch {
            throw .internalError("cannot confirm: \(error)")
        }
        guard done != nil else { throw .userpassTokenInvalid() }
    }

    /// Sets a new password for the pair's user, confirms its address (the mail reached
    /// it) and revokes its refresh tokens.
    ///
    /// - Throws: `BadRequest` for a password outside 6–128 characters,
    ///   `UserpassTokenInvalid` for a pair that is unknown, wrong, used or expired.
    func resetPassword(appId: String, token: String, tokenId: String, password: String, remoteAddress: String?) throws(AuthError) {
        let app = try emailApp(appId)
        try limitLogin(app, remoteAddress: remoteAddress)
        let hash = try passwordHash(password)
        let done: UserRecord?
        do {
            done = try app.accounts.consumeEmailToken(id: tokenId, token: token, purpose: .passwordReset, now: Self.now,
                                                      effect: .resetPassword(hash: hash))
        } catch {
            throw .internalError("cannot reset the password: \(error)")
        }
        guard done != nil else { throw .userpassTokenInvalid() }
    }

    /// The scrypt hash of a new password.
    ///
    /// - Throws: `BadRequest` for a password outside 6–128 characters.
    func passwordHash(_ password: String) throws(AuthError) -> String {
        guard (6...128).contains(password.count) else {
            throw .badRequest("password must be between 6 and 128 characters, not \(password.count)")
        }
        do { return try hasher.hash(password) } catch { throw .internalError("cannot hash the password: \(error)") }
    }

    /// Makes a pair for `user`, stores its hash and mails it, on the mail queue: the
    /// request that asked does not wait (its answer takes as long whether or not a mail
    /// goes out). Failures are logged without the token.
    func mail(_ purpose: OutgoingMail.Purpose, to user: UserRecord, app: SyncApp) {
        guard let email = user.email else { return }
        let logger = self.logger
        let metadata: Logger.Metadata = ["app": "\(app.appId)", "purpose": "\(purpose.rawValue)"]
        guard let mailer else {
            logger.error("no mail sender is configured (--mail-command): a mail was not sent", metadata: metadata)
            return
        }
        Self.mailQueue.async {
            let settings = app.configuration.emailConfirmation
            let token = StorageConventions.randomHex(32), tokenId = StorageConventions.randomHex(12)
            do {
                try app.accounts.storeEmailToken(id: tokenId, token: token, userId: user.id, purpose: purpose, now: Self.now,
                                              expiresAt: Self.now + settings.tokenLifetime)
                try mailer.send(Self.message(purpose, to: email, appId: app.appId, token: token, tokenId: tokenId,
                                             settings: settings))
            } catch {
                logger.error("a mail was not sent", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            }
        }
    }

    /// Mails go out one at a time, off the threads that serve requests.
    private static let mailQueue = DispatchQueue(label: "openrealm-server.mail")

    private static func message(_ purpose: OutgoingMail.Purpose, to email: String, appId: String, token: String, tokenId: String,
                                settings: EmailConfirmation) -> OutgoingMail {
        let link = purpose == .confirmation ? settings.confirmationURL : settings.resetURL
        let action = purpose == .confirmation ? "confirm your email address" : "choose a new password"
        var body = "To \(action) for \(appId), "
        if let link, var components = URLComponents(string: link) {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "token", value: token),
                                                                     URLQueryItem(name: "tokenId", value: tokenId)]
            body += "open this link:\n\n\(components.string ?? link)\n"
        } else {
            body += "enter these in the app:\n\ntoken: \(token)\ntokenId: \(tokenId)\n"
        }
        body += "\nIt is valid for \(max(1, settings.tokenLifetime / 3600)) hours. If you did not ask for it, ignore this mail.\n"
        return OutgoingMail(purpose: purpose, appId: appId, to: email,
                            subject: purpose == .confirmation ? "Confirm your email address" : "Reset your password",
                            body: body, token: token, tokenId: tokenId)
    }

    private func emailApp(_ appId: String) throws(AuthError) -> SyncApp {
        let app = try apps.app(appId)
        guard app.configuration.emailPasswordAuth else { throw .providerDisabled("local-userpass") }
        return app
    }

    /// The app and the user of `email` (nil when none) for a `send` call, within the
    /// limits: per address, and per email (so that nobody can flood one mailbox).
    private func mailTarget(appId: String, email rawEmail: String, remoteAddress: String?) throws(AuthError) -> (SyncApp, UserRecord?) {
        let app = try emailApp(appId)
        guard mailer != nil else { throw .internalError("this server sends no mail (it was started without --mail-command)") }
        let email = try Self.normalizedEmail(rawEmail)
        try limitLogin(app, remoteAddress: remoteAddress)
        if let wait = try Self.wait(app, "mail:" + email, app.configuration.loginRateLimitPerEmail) {
            throw .tooManyRequests("too many mails asked for '\(email)'", retryAfter: wait)
        }
        do { return (app, try app.accounts.user(email: email)) } catch { throw .internalError("cannot read users: \(error)") }
    }
}
