import Crypto
import Foundation

/// The master keys of the server's tokens (``JSONWebToken``): the current one, which
/// signs, and the ones a rotation retired, which still verify the tokens they signed
/// until those expire.
package struct SigningKeyRing: Sendable {
    /// The master that signs.
    package var current: SymmetricKey
    /// Retired masters, newest first: they verify, they never sign.
    package var previous: [SymmetricKey]

    package init(current: SymmetricKey, previous: [SymmetricKey] = []) {
        self.current = current
        self.previous = previous
    }
}

/// Where the signing keys live. A server on one data directory keeps them in files (or
/// is given them by file or environment: ``ConfiguredSigningKeys``); processes sharing
/// a database keep them there (`OpenRealmPostgres`), so that a token one process signed
/// verifies at every other and a rotation reaches them all without a restart.
package protocol SigningKeyStore: Sendable {
    /// The ring as stored now; a store that holds no key yet makes the first one (once,
    /// whichever process asks first).
    ///
    /// - Throws: the store's error, naming what could not be read or made.
    func ring() throws -> SigningKeyRing

    /// Makes a new current key; the current one joins the retired ones.
    ///
    /// - Returns: the ring after the rotation.
    /// - Throws: the store's error; ``ServerError`` when the keys are given from
    ///   outside and are rotated by giving new ones.
    func rotate() throws -> SigningKeyRing

    /// How often a running process reads the ring again to take up a rotation made
    /// elsewhere; nil when the ring cannot change under a running server.
    var rereadInterval: Duration? { get }
}

/// The signing keys as the server's configuration gives them: `<data dir>/signing.key`
/// (with `signing.key.previous` after a rotation), or a file or environment variable,
/// plus the retired keys given by file.
package struct ConfiguredSigningKeys: SigningKeyStore {
    let source: SigningKeySource
    let previousSources: [SigningKeySource]
    let dataDirectory: URL

    package init(source: SigningKeySource, previous: [SigningKeySource] = [], dataDirectory: URL) {
        self.source = source
        previousSources = previous
        self.dataDirectory = dataDirectory
    }

    package func ring() throws -> SigningKeyRing {
        let current = try source.load(dataDirectory: dataDirectory)
        var previous = try previousSources.map { try $0.load(dataDirectory: dataDirectory) }
        if source == .dataDirectory, let retired = try SigningKey.loadPrevious(in: dataDirectory) {
            previous.insert(retired, at: 0)
        }
        return SigningKeyRing(current: current, previous: previous)
    }

    package func rotate() throws -> SigningKeyRing {
        guard source == .dataDirectory else {
            throw ServerError("the signing key is given by \(source.origin); rotate it by giving the new key and the old one with --previous-signing-key-file")
        }
        try SigningKey.rotate(in: dataDirectory)
        return try ring()
    }

    /// Never: the keys are rotated with the server stopped (`rotate-signing-key` holds
    /// the data directory's lock) or by giving new ones at the next start.
    package var rereadInterval: Duration? { nil }
}
