import Crypto
import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Confirmation of email/password addresses and password resets by mailed token pairs,
/// and `%user.email` trusted only for verified addresses.
final class EmailConfirmationTests: ServerTestCase {
    let mailer = CapturingMailer()
    static let jwtKey = "a-shared-secret-of-at-least-32-bytes!"
    let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp {
            $0.emailConfirmation.autoConfirm = false
            $0.emailConfirmation.confirmationURL = "https://app.example.com/confirm?lang=en"
            $0.customJWT = CustomJWTConfiguration(key: Self.jwtKey, audience: nil)
            $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id OR editor == %user.email",
                                                      write: "owner == %user.id OR editor == %user.email")
        }
    }

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.mailer = mailer
    }

    func register(_ email: String, _ password: String = "secret1") throws {
        let reply = try http.request("POST", "\(base)/register", json: ["email": email, "password": password])
        XCTAssertEqual(reply.status, 201, "\(reply.body)")
    }

    func login(_ email: String, _ password: String = "secret1") throws -> TestHTTP.Reply {
        try http.request("POST", "\(base)/login", json: ["username": email, "password": password])
    }

    func confirm(_ mail: OutgoingMail) throws -> TestHTTP.Reply {
        try http.request("POST", "\(base)/confirm", json: ["token": mail.token, "tokenId": mail.tokenId])
    }

    func testRegistrationMailsAConfirmationAndLoginWaitsForIt() throws {
        try register("Ann@Example.com")
        let mail = try mailer.waitForMail(to: "ann@example.com", .confirmation)
        XCTAssertTrue(mail.body.contains("https://app.example.com/confirm?lang=en&token=\(mail.token)&tokenId=\(mail.tokenId)"), mail.body)
        XCTAssertTrue(mail.rfc5322.hasPrefix("To: ann@example.com\r\nSubject: Confirm your email address\r\n"), mail.rfc5322)

        let early = try login("ann@example.com")
        XCTAssertEqual(early.status, 401)
        XCTAssertEqual(early.errorCode, "AuthError")
        XCTAssertTrue(early.message.contains("confirmation required"), early.message)
        // A wrong password says nothing about confirmation.
        XCTAssertEqual(try login("ann@example.com", "wrong-one").errorCode, "InvalidPassword")

        var forged = mail
        forged.token = String(mail.token.reversed())
        let wrong = try confirm(forged)
        XCTAssertEqual(wrong.status, 400)
        XCTAssertEqual(wrong.errorCode, "UserpassTokenInvalid")
        XCTAssertEqual(try confirm(mail).status, 200)
        XCTAssertEqual(try confirm(mail).errorCode, "UserpassTokenInvalid", "a pair works once")
        XCTAssertEqual(try login("ann@example.com").status, 200)
    }

    func testSendRoutesAnswerAlikeForRegisteredAndUnknownAddresses() throws {
        try register("bob@example.com")
        _ = try mailer.waitForMail(to: "bob@example.com", .confirmation)
        for path in ["confirm/send", "reset/send"] {
            let unknown = try http.request("POST", "\(base)/\(path)", json: ["email": "nobody@example.com"])
            let known = try http.request("POST", "\(base)/\(path)", json: ["email": "bob@example.com"])
            XCTAssertEqual(unknown.status, 200)
            XCTAssertEqual(known.status, 200)
            XCTAssertEqual(unknown.body.count, 0)
            XCTAssertEqual(known.body.count, 0)
        }
        // Only the newest confirmation pair works.
        let first = try mailer.waitForMail(to: "bob@example.com", .confirmation, index: 0)
        let second = try mailer.waitForMail(to: "bob@example.com", .confirmation, index: 1)
        _ = try mailer.waitForMail(to: "bob@example.com", .passwordReset)
        XCTAssertEqual(try confirm(first).errorCode, "UserpassTokenInvalid")
        XCTAssertEqual(try confirm(second).status, 200)
        XCTAssertFalse(mailer.sent.contains { $0.to == "nobody@example.com" })
        let malformed = try http.request("POST", "\(base)/reset/send", json: ["email": "no-at-sign"])
        XCTAssertEqual(malformed.errorCode, "BadRequest")
    }

    func testPasswordResetReplacesThePasswordConfirmsAndRevokesSessions() throws {
        try register("cat@example.com", "old-password")
        try XCTAssertEqual(confirm(mailer.waitForMail(to: "cat@example.com", .confirmation)).status, 200)
        let session = try login("cat@example.com", "old-password")
        let refresh = try XCTUnwrap(session.body["refresh_token"] as? String)

        XCTAssertEqual(try http.request("POST", "\(base)/reset/send", json: ["email": "cat@example.com"]).status, 200)
        let mail = try mailer.waitForMail(to: "cat@example.com", .passwordReset)
        let short = try http.request("POST", "\(base)/reset", json: ["token": mail.token, "tokenId": mail.tokenId, "password": "123"])
        XCTAssertEqual(short.errorCode, "BadRequest")
        let reset = try http.request("POST", "\(base)/reset", json: ["token": mail.token, "tokenId": mail.tokenId, "password": "new-password"])
        XCTAssertEqual(reset.status, 200, "\(reset.body)")
        XCTAssertEqual(try login("cat@example.com", "old-password").errorCode, "InvalidPassword")
        XCTAssertEqual(try login("cat@example.com", "new-password").status, 200)
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/auth/session", bearer: refresh).errorCode, "InvalidSession")
        // A confirmation pair is no reset pair.
        try register("dan@example.com")
        let confirmation = try mailer.waitForMail(to: "dan@example.com", .confirmation)
        let misused = try http.request("POST", "\(base)/reset",
                                       json: ["token": confirmation.token, "tokenId": confirmation.tokenId, "password": "taken-over"])
        XCTAssertEqual(misused.errorCode, "UserpassTokenInvalid")
    }

    func testExpiredPairsAreRefused() throws {
        try register("eve@example.com")
        let mail = try mailer.waitForMail(to: "eve@example.com", .confirmation)
        let store = try server.auth.apps.app("todo").storage.accounts
        let later = AuthService.now + server.configuration.app!.emailConfirmation.tokenLifetime + 1
        XCTAssertNil(try store.consumeEmailToken(id: mail.tokenId, token: mail.token, purpose: .confirmation, now: later, effect: .confirmEmail))
        // Refusing it changed nothing: the pair still works while it lives.
        XCTAssertEqual(try confirm(mail).status, 200)
    }

    func testPreComposedAndDecomposedSpellingsAreOneAccount() throws {
        let composed = "zo\u{00EB}@example.com", decomposed = "zo\u{0065}\u{0308}@EXAMPLE.com"
        try register(composed)
        let again = try http.request("POST", "\(base)/register", json: ["email": decomposed, "password": "secret2"])
        XCTAssertEqual(again.errorCode, "AccountNameInUse")
        try XCTAssertEqual(confirm(mailer.waitForMail(to: composed, .confirmation)).status, 200)
        XCTAssertEqual(try login(decomposed).status, 200)
    }

    func testAnUnknownEmailCostsAPasswordCheckLikeAWrongPassword() throws {
        try register("fay@example.com")
        let before = server.metrics.counter("openrealm_password_checks_total")
        XCTAssertEqual(try login("fay@example.com", "wrong-one").errorCode, "InvalidPassword")
        XCTAssertEqual(try login("nobody@example.com", "wrong-one").errorCode, "InvalidPassword")
        XCTAssertEqual(server.metrics.counter("openrealm_password_checks_total"), before + 2)
    }

    func testAStrangerCannotLockTheOwnerOut() throws {
        try register("gus@example.com")
        try XCTAssertEqual(confirm(mailer.waitForMail(to: "gus@example.com", .confirmation)).status, 200)
        let limit = server.configuration.app!.loginRateLimitPerEmail.burst
        var refusedStranger = false
        for _ in 0...limit {
            do {
                _ = try server.auth.login(appId: "todo", email: "gus@example.com", password: "guess-123", remoteAddress: "198.51.100.7")
            } catch {
                refusedStranger = refusedStranger || error.code == "TooManyRequests"
            }
        }
        XCTAssertTrue(refusedStranger, "the stranger's guesses are limited")
        XCTAssertEqual(try login("gus@example.com").status, 200, "the owner still logs in from their own address")
    }

    // MARK: %user.email

    func emailToken(_ email: String) throws -> String {
        try register(email)
        try XCTAssertEqual(confirm(mailer.waitForMail(to: email, .confirmation)).status, 200)
        return try XCTUnwrap(try login(email).body["access_token"] as? String)
    }

    func jwtToken(subject: String, email: String) throws -> String {
        let claims: [String: Any] = ["sub": subject, "exp": Int(Date().timeIntervalSince1970) + 600, "email": email]
        let header = JSONWebToken.base64url(try JSONSerialization.data(withJSONObject: ["alg": "HS256", "typ": "JWT"]))
        let input = header + "." + JSONWebToken.base64url(try JSONSerialization.data(withJSONObject: claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(Self.jwtKey.utf8)))
        let reply = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/custom-token/login",
                                     json: ["token": input + "." + JSONWebToken.base64url(Data(mac))])
        return try XCTUnwrap(reply.body["access_token"] as? String, "\(reply.body)")
    }

    func notes(_ token: String) throws -> [Int64] {
        let (client, _) = try boundClient(token: token)
        return createdNotes(try query(client, version: 1, ["Note": "TRUEPREDICATE"]).get())
    }

    func testEmailRulesTrustOnlyVerifiedAddresses() throws {
        let owner = try anonymousUser()
        let (writer, _) = try boundClient(token: owner.token)
        _ = try query(writer, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(writer, clientVersion: 1, PermissionTests.noteSchema + [
            PermissionTests.note(1, owner: owner.id, editor: "boss@corp.example"),
            PermissionTests.note(2, owner: owner.id, editor: ""),
            PermissionTests.note(3, owner: owner.id, editor: "hal@example.com"),
        ])
        // The identity service vouches for a custom JWT's email.
        XCTAssertEqual(try notes(try jwtToken(subject: "boss", email: "boss@corp.example")), [1])
        // Registering that email with a password proves nothing: here the user cannot
        // even log in before confirming (AutoConfirmedEmailRuleTests: where they can).
        try register("boss@corp.example")
        XCTAssertEqual(try login("boss@corp.example").errorCode, "AuthError")
        // Two anonymous users: the empty editor is nobody's email.
        XCTAssertEqual(try notes(try anonymousUser().token), [])
        // A confirmed address reads what names it.
        XCTAssertEqual(try notes(try emailToken("hal@example.com")), [3])
    }
}

/// Apps that confirm automatically: users log in at once, and `%user.email` still
/// waits for a confirmation.
final class AutoConfirmedEmailRuleTests: ServerTestCase {
    let mailer = CapturingMailer()

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp {
            $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id OR NOT editor != %user.email",
                                                      write: "owner == %user.id")
        }
    }

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.mailer = mailer
    }

    func testAnUnconfirmedAddressMatchesNoEmailRuleEvenUnderNot() throws {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        let owner = try anonymousUser()
        let (writer, _) = try boundClient(token: owner.token)
        _ = try query(writer, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(writer, clientVersion: 1, PermissionTests.noteSchema + [
            PermissionTests.note(1, owner: owner.id, editor: "ivy@example.com"), PermissionTests.note(2, owner: owner.id, editor: ""),
        ])
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": "ivy@example.com", "password": "secret1"]).status, 201)
        XCTAssertTrue(mailer.sent.isEmpty, "no confirmation is mailed unasked")
        func visible() throws -> [Int64] {
            let login = try http.request("POST", "\(base)/login", json: ["username": "ivy@example.com", "password": "secret1"])
            let (client, _) = try boundClient(token: try XCTUnwrap(login.body["access_token"] as? String))
            return createdNotes(try query(client, version: 1, ["Note": "TRUEPREDICATE"]).get())
        }
        XCTAssertEqual(try visible(), [])
        XCTAssertEqual(try notesOfAnAnonymousUser(), [])
        XCTAssertEqual(try http.request("POST", "\(base)/confirm/send", json: ["email": "ivy@example.com"]).status, 200)
        let mail = try mailer.waitForMail(to: "ivy@example.com", .confirmation)
        XCTAssertTrue(mail.body.contains("token: \(mail.token)\ntokenId: \(mail.tokenId)"), mail.body)
        XCTAssertEqual(try http.request("POST", "\(base)/confirm", json: ["token": mail.token, "tokenId": mail.tokenId]).status, 200)
        XCTAssertEqual(try visible(), [1])
    }

    func notesOfAnAnonymousUser() throws -> [Int64] {
        let (client, _) = try boundClient(token: try anonymousUser().token)
        return createdNotes(try query(client, version: 1, ["Note": "TRUEPREDICATE"]).get())
    }
}

/// The ids of the `Note` objects a bootstrap creates, sorted.
private func createdNotes(_ instructions: [WireInstruction]) -> [Int64] {
    instructions.compactMap { if case .createObject("Note", .int(let id), _) = $0 { return id } else { return nil } }.sorted()
}

/// `--mail-command`: the message on a program's standard input.
final class CommandMailSenderTests: XCTestCase {
    func testTheMessageReachesTheProgramAndFailuresAreErrors() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-mail-\(UUID().uuidString).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        let sender = try CommandMailSender(command: "/usr/bin/tee \(file.path)")
        let mail = OutgoingMail(purpose: .confirmation, appId: "todo", to: "ann@example.com", subject: "Confirm your email address",
                                body: "token: t\ntokenId: i\n", token: "t", tokenId: "i")
        try sender.send(mail)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), mail.rfc5322)
        XCTAssertThrowsError(try CommandMailSender(command: "/bin/false").send(mail))
        XCTAssertThrowsError(try CommandMailSender(command: "sendmail -t")) { error in
            XCTAssertTrue("\(error)".contains("absolute path"), "\(error)")
        }
        XCTAssertThrowsError(try CommandMailSender(command: ""))
    }
}
