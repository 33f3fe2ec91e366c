import Crypto
import Foundation

/// The token signing key: 32 random bytes generated on the first start and kept in
/// `<data dir>/signing.key` (mode 0600), so tokens stay valid across restarts.
public enum SigningKey {
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

    /// The file of the key a rotation retired: it still verifies the tokens it signed
    /// until they expire.
    static let previousFileName = "signing.key.previous"

    /// The key a rotation retired in `directory`, or nil.
    ///
    /// - Throws: ``ServerError`` when the file exists but cannot be read or does not
    ///   hold 32 bytes.
    static func loadPrevious(in directory: URL) throws -> SymmetricKey? {
        let url = directory.appendingPathComponent(previousFileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try SmallFile.read(url, what: "the previous signing key")
        guard data.count == 32 else {
            throw ServerError("the previous signing key '\(url.path)' holds \(data.count) bytes, not 32; delete it (the tokens it signed become invalid)")
        }
        return SymmetricKey(data: data)
    }

    /// Rotates the key in `directory`: the current key becomes the previous one (an
    /// older previous key is dropped: its tokens become invalid) and a new key signs
    /// from the next start. Call with the data directory's lock held (no server runs).
    ///
    /// - Throws: ``ServerError`` when there is no key to rotate or a file cannot be
    ///   written.
    public static func rotate(in directory: URL) throws {
        let current = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: current.path) else {
            throw ServerError("there is no signing key in '\(directory.path)' to rotate (a key given by file or environment is rotated by giving the new one and --previous-signing-key-file)")
        }
        let previous = directory.appendingPathComponent(previousFileName)
        guard rename(current.path, previous.path) == 0 else {
            throw ServerError("cannot move the signing key to '\(previous.path)': \(String(cString: strerror(errno)))")
        }
        _ = try loadOrCreate(in: directory)
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
