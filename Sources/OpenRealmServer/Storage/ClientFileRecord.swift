import Foundation
import OpenRealmWire

/// A client file identity as the store keeps it.
package struct ClientFileRecord: Sendable, Hashable {
    package var ident: UInt64
    package var salt: UInt64
    package var userId: String
    /// The highest client version of the file the server has integrated.
    package var lastIntegratedClientVersion: UInt64

    package init(ident: UInt64, salt: UInt64, userId: String, lastIntegratedClientVersion: UInt64) {
        self.ident = ident
        self.salt = salt
        self.userId = userId
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
    }
}
