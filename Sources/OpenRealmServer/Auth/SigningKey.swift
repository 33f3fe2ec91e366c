import Crypto
import Foundation

/// The token signing key: 32 random bytes generated on the first start and kept in
/// `<data dir>/signing.key` (mode 0600), so tokens stay valid across restarts.
enum SigningKey {
    /// The key's file name in the data directory.
    static let fileName = "signing.key"

    /// The key in `directory`, created when absent.
    ///
    /// - Throws: ``ServerError`` when the file cannot be read or written, or does not
    ///   hold exactly 32 bytes.
    static func loadOrCreate(in directory: URL) throws -> SymmetricKey {
        let url = directory.appendingPathComponent(fileName)
        let fm = FileManager.default
        if fm.fileExists(atPath: url.path) {
            guard let data = fm.contents(atPath: url.path) else {
                throw ServerError("cannot read the signing key '\(url.path)'")
            }
            guard data.count == 32 else {
                throw ServerError("the signing key '\(url.path)' holds \(data.count) bytes, not 32; delete it to make a new one (every token becomes invalid)")
            }
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        guard fm.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ServerError("cannot write the signing key '\(url.path)'")
        }
        return key
    }
}

/// A failure to start or run the server, with a message naming the cause.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
