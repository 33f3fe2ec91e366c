import Foundation
import XCTest
@testable import OpenRealmServer

/// A ``MailSender`` that keeps the mails the server sends, for tests to read.
final class CapturingMailer: MailSender, @unchecked Sendable {
    private let condition = NSCondition()
    private var mails: [OutgoingMail] = []

    func send(_ mail: OutgoingMail) throws {
        condition.lock()
        mails.append(mail)
        condition.broadcast()
        condition.unlock()
    }

    /// Every mail sent so far.
    var sent: [OutgoingMail] {
        condition.lock()
        defer { condition.unlock() }
        return mails
    }

    /// Waits (at most `timeout` seconds) for the `index`-th mail of `purpose` to `address`.
    func waitForMail(to address: String, _ purpose: OutgoingMail.Purpose, index: Int = 0, timeout: Double = 10,
                     file: StaticString = #filePath, line: UInt = #line) throws -> OutgoingMail {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let matching = mails.filter { $0.to == address && $0.purpose == purpose }
            if matching.count > index { return matching[index] }
            guard condition.wait(until: deadline) else {
                XCTFail("no \(purpose) mail #\(index) to \(address) within \(timeout) s", file: file, line: line)
                throw CancellationError()
            }
        }
    }
}
