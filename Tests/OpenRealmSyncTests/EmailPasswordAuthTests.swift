import Foundation
import OpenRealmServer
import XCTest
import RealmSwift

/// `app.emailPasswordAuth` against a server that confirms addresses by mail: the SDK's
/// calls for confirmation and password reset, async and with completion handlers.
final class EmailPasswordAuthTests: SyncTestCase {
    let mailbox = Mailbox()

    override var serverApp: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: appId)
        config.emailConfirmation.autoConfirm = false
        return config
    }

    override var serverMailer: (any MailSender)? { mailbox }

    func testConfirmResendAndResetAsAnSDKUserCallsThem() async throws {
        let client = app.emailPasswordAuth
        let email = "skroob@example.com"
        try await client.registerUser(email: email, password: "password12345")
        do {
            _ = try await app.login(credentials: .emailPassword(email: email, password: "password12345"))
            XCTFail("login before confirming must fail")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .authError, "\(error)")
        }
        // The first mail is replaced by the one asked for again.
        let first = try await mailbox.mail(to: email, .confirmation, index: 0)
        try await client.resendConfirmationEmail(email)
        let second = try await mailbox.mail(to: email, .confirmation, index: 1)
        do {
            try await client.confirmUser(first.token, tokenId: first.tokenId)
            XCTFail("a replaced pair must be refused")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .userpassTokenInvalid)
        }
        let confirmed = expectation(description: "confirmUser's completion")
        client.confirmUser(second.token, tokenId: second.tokenId) { error in
            XCTAssertNil(error)
            confirmed.fulfill()
        }
        await fulfillment(of: [confirmed], timeout: 15)
        let user = try await app.login(credentials: .emailPassword(email: email, password: "password12345"))
        XCTAssertEqual(user.state, .loggedIn)

        let asked = expectation(description: "sendResetPasswordEmail's completion")
        client.sendResetPasswordEmail(email) { error in
            XCTAssertNil(error)
            asked.fulfill()
        }
        await fulfillment(of: [asked], timeout: 15)
        let reset = try await mailbox.mail(to: email, .passwordReset, index: 0)
        try await client.resetPassword(to: "mynewpassword12345", token: reset.token, tokenId: reset.tokenId)
        _ = try await app.login(credentials: .emailPassword(email: email, password: "mynewpassword12345"))
        do {
            _ = try await app.login(credentials: .emailPassword(email: email, password: "password12345"))
            XCTFail("the old password must be refused")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .invalidPassword)
        }
    }
}

/// Keeps the server's mails for the test to read.
final class Mailbox: MailSender, @unchecked Sendable {
    private let lock = NSLock()
    private var mails: [OutgoingMail] = []

    func send(_ mail: OutgoingMail) throws {
        lock.lock()
        mails.append(mail)
        lock.unlock()
    }

    /// The `index`-th mail of `purpose` to `address`, waiting up to 15 s for it.
    func mail(to address: String, _ purpose: OutgoingMail.Purpose, index: Int) async throws -> OutgoingMail {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let matching = sent(to: address, purpose)
            if matching.count > index { return matching[index] }
            try await _Concurrency.Task.sleep(nanoseconds: 10_000_000)
        }
        XCTFail("no \(purpose) mail #\(index) to \(address) within 15 s")
        throw CancellationError()
    }

    private func sent(to address: String, _ purpose: OutgoingMail.Purpose) -> [OutgoingMail] {
        lock.lock()
        defer { lock.unlock() }
        return mails.filter { $0.to == address && $0.purpose == purpose }
    }
}
