import Foundation
import NIOSSL

/// How a ``SyncSession`` reaches the server: it opens connections that carry the sync
/// protocol's binary frames (docs/PROTOCOL.md) and report what happens to them.
///
/// The session never names a socket: it asks its transport for a connection, calls
/// `connect()`, writes frames with `send`, and hears back through `onEvent` — the
/// opening, each frame from the server, and the end. The app's transport is
/// ``WebSocketTransport`` (a WebSocket over swift-nio, TLS for `wss://`); tests give a
/// session an ``InMemorySyncTransport`` and play the server's part themselves.
package protocol SyncTransport: Sendable {
    /// A connection to `url` (not opened yet). `tls` is given for `wss://` URLs.
    /// `onEvent` may be called on any thread; the session hops to its own queue.
    func connection(to url: URL, tls: SyncTransportTLS?,
                    onEvent: @escaping @Sendable (SyncTransportEvent) -> Void) -> any SyncTransportConnection
}

/// One connection a ``SyncTransport`` made. Its methods may be called from any thread.
package protocol SyncTransportConnection: AnyObject, Sendable {
    /// Opens the connection: `.opened` follows once frames can be written, or the end
    /// (`.closed`, `.tlsFailed`, `.upgradeRefused`) when it cannot be opened.
    func connect()
    /// Writes one frame; false when the connection is not open (the frame is dropped).
    @discardableResult
    func send(_ frame: [UInt8]) -> Bool
    /// Closes the connection; `.closed` is reported unless the end was reported already.
    func close()
}

/// What a connection reports. After one of the ends (`closed`, `tlsFailed`,
/// `upgradeRefused`) nothing more comes.
@_spi(SyncTransport) public enum SyncTransportEvent: Sendable {
    /// Open: frames may be written, and the session's `bind` goes first.
    case opened
    /// One frame from the server.
    case message([UInt8])
    /// The connection ended (with the reason when one is known).
    case closed(String?)
    /// The TLS handshake failed (a certificate that does not verify, a server without TLS).
    case tlsFailed(TLSFailure)
    /// The server, or a proxy before it, answered the upgrade request with another HTTP
    /// status than 101.
    case upgradeRefused(UpgradeRefusal)
}

/// The TLS settings of a `wss://` connection.
@_spi(SyncTransport) public struct SyncTransportTLS: Sendable {
    let context: NIOSSLContext
    /// The trusted roots, in words, for error messages ("the system's trust store").
    let trust: String
}

/// The app's transport: a WebSocket per connection (``WebSocketConnection``).
package struct WebSocketTransport: SyncTransport {
    package init() {}

    package func connection(to url: URL, tls: SyncTransportTLS?,
                            onEvent: @escaping @Sendable (SyncTransportEvent) -> Void) -> any SyncTransportConnection {
        WebSocketConnection(url: url, tls: tls, onEvent: onEvent)
    }
}
