import Crypto
import Foundation

/// Where the token signing key comes from. By default it is `<data dir>/signing.key`,
/// made on the first start; an operator who keeps secrets apart from data (a secrets
/// manager, a mounted file, a systemd credential) gives it as a file or an environment
/// variable instead, and the data directory then holds no key.
///
/// A key given this way is 32 bytes: the raw bytes (a file only), or their base64
/// (`openssl rand -base64 32`), surrounding whitespace ignored.
public enum SigningKeySource: Sendable, Hashable {
    /// `<data dir>/signing.key`, created when absent.
    case dataDirectory
    /// A file holding the key; it must exist.
    case file(URL)
    /// An environment variable holding the key's base64; it must be set.
    case environment(String)

    /// The key.
    ///
    /// - Throws: ``ServerError`` naming the file (with the OS reason) or the variable,
    ///   and what is wrong with the key.
    func load(dataDirectory: URL, environment env: [String: String] = ProcessInfo.processInfo.environment) throws -> SymmetricKey {
        switch self {
        case .dataDirectory:
            return try SigningKey.loadOrCreate(in: dataDirectory)
        case .file(let url):
            let data = try SmallFile.read(url, what: "the signing key file")
            if data.count == 32 { return SymmetricKey(data: data) }
            return try Self.decode(String(decoding: data, as: UTF8.self), source: "the signing key file '\(url.path)'")
        case .environment(let name):
            guard let value = env[name] else {
                throw ServerError("the signing key's environment variable '\(name)' is not set")
            }
            return try Self.decode(value, source: "the environment variable '\(name)'")
        }
    }

    /// Where the key comes from, in words for messages.
    var origin: String {
        switch self {
        case .dataDirectory: "the data directory"
        case .file(let url): "the file '\(url.path)'"
        case .environment(let name): "the environment variable '\(name)'"
        }
    }

    private static func decode(_ text: String, source: String) throws -> SymmetricKey {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServerError("\(source) does not hold a signing key: 32 bytes, raw or in base64 (openssl rand -base64 32)")
        }
        guard bytes.count == 32 else {
            throw ServerError("\(source) holds a \(bytes.count)-byte signing key, not 32 (openssl rand -base64 32)")
        }
        return SymmetricKey(data: bytes)
    }
}
