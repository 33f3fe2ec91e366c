import Foundation

/// An email the server sends to a user of the email/password provider: a link (or the
/// token pair) that proves the user reads the mailbox.
public struct OutgoingMail: Sendable, Hashable {
    /// Why the mail is sent.
    public enum Purpose: String, Sendable, Hashable {
        /// Confirms the address (`confirm/send`, or registration when the app does not
        /// confirm automatically). Answered by `confirm` with the token pair.
        case confirmation
        /// Resets the password (`reset/send`). Answered by `reset` with the token pair
        /// and the new password.
        case passwordReset
    }

    public var purpose: Purpose
    /// The app the user belongs to.
    public var appId: String
    /// The normalized address.
    public var to: String
    public var subject: String
    /// The text: the app's link with `token` and `tokenId` as query items, or the two
    /// values when the app configured no link.
    public var body: String
    /// The secret half of the pair; only a SHA-256 of it is stored.
    public var token: String
    /// The id of the pair (not secret).
    public var tokenId: String

    /// The message as RFC 5322 text (what a `sendmail -t` reads on its standard input).
    public var rfc5322: String {
        "To: \(to)\r\nSubject: \(subject)\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
            body.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
    }
}

/// Sends the server's emails. The server calls it off the request (the HTTP answer does
/// not wait for it, so answers take as long whether or not an address is registered);
/// a failure is logged.
///
/// Threading: called from the server's blocking-work threads, any number at once.
public protocol MailSender: Sendable {
    /// Sends `mail`.
    ///
    /// - Throws: anything; the server logs it with the purpose and the app, never the token.
    func send(_ mail: OutgoingMail) throws
}

/// Sends mail by running a program with the message on its standard input, as
/// `--mail-command "/usr/sbin/sendmail -t"` configures it: the first word is the
/// executable (an absolute path), the others its arguments (no shell is involved).
public struct CommandMailSender: MailSender {
    public let executable: String
    public let arguments: [String]

    /// - Throws: ``ServerError`` when `command` is empty or its executable is not an
    ///   absolute path to an executable file.
    public init(command: String) throws {
        let words = command.split(separator: " ").map(String.init)
        guard let first = words.first else { throw ServerError("--mail-command is empty") }
        guard first.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: first) else {
            throw ServerError("--mail-command: '\(first)' is not an absolute path to an executable file")
        }
        executable = first
        arguments = Array(words.dropFirst())
    }

    public func send(_ mail: OutgoingMail) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // The message comes from a file, not a pipe: a program that ends without reading
        // it cannot raise SIGPIPE in the server. The file is private and unlinked at once.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-mail-\(StorageConventions.randomHex(8))").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerError("cannot make the mail's file '\(path)': \(String(cString: strerror(errno)))") }
        unlink(path)
        let message = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try message.write(contentsOf: Data(mail.rfc5322.utf8))
        try message.seek(toOffset: 0)
        process.standardInput = message
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw ServerError("'\(executable)' ended with status \(process.terminationStatus)")
        }
    }
}
