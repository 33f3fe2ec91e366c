/// One message of the sync protocol. ``WireEncoder`` turns it into a frame and
/// ``WireFrameDecoder`` turns frames back into messages.
///
/// Which side sends what, and when, is in `docs/PROTOCOL.md` §6.
public enum WireMessage: Sendable, Hashable {
    /// Client → server: start a session.
    case bind(WireBind)
    /// Server → client: the answer to a bind.
    case ident(WireIdent)
    /// Client → server: a new subscription set version.
    case query(WireQuery)
    /// Client → server: local changesets.
    case upload(WireUpload)
    /// Server → client: server changesets and progress.
    case download(WireDownload)
    /// Either way: a mark request (client) or its echo (server).
    case mark(WireMark)
    /// Either way: an error.
    case error(WireErrorMessage)
    /// Either way: a keep-alive probe.
    case ping(WirePing)
    /// Either way: the answer to a ping.
    case pong(WirePong)
    /// Client → server: end a session.
    case unbind(WireUnbind)

    /// The message type byte of the message's frame.
    public var type: WireMessageType {
        switch self {
        case .bind: return .bind
        case .ident: return .ident
        case .query: return .query
        case .upload: return .upload
        case .download: return .download
        case .mark: return .mark
        case .error: return .error
        case .ping: return .ping
        case .pong: return .pong
        case .unbind: return .unbind
        }
    }

    /// The session the message belongs to; nil for ping and pong, which belong to the
    /// connection. An error of session 0 is about the whole connection.
    public var session: UInt64? {
        switch self {
        case .bind(let m): return m.session
        case .ident(let m): return m.session
        case .query(let m): return m.session
        case .upload(let m): return m.session
        case .download(let m): return m.session
        case .mark(let m): return m.session
        case .error(let m): return m.session
        case .unbind(let m): return m.session
        case .ping, .pong: return nil
        }
    }
}

/// A client file's identity, assigned by the server on the first bind and kept in the
/// realm file: `ident` names the file in the server's history (the origin of its
/// changesets), `salt` is a secret that proves a later bind comes from the same file.
public struct WireFileIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The file's number, unique per server; never 0 (0 names the server itself).
    public var ident: UInt64
    /// A random secret the server checks on every bind.
    public var salt: UInt64

    /// The identity `ident` with `salt`.
    public init(ident: UInt64, salt: UInt64) {
        self.ident = ident
        self.salt = salt
    }

    public var description: String { "file \(ident)" }
}
