/// The message type byte of a frame header. The raw values are part of the protocol.
public enum WireMessageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Client → server: start a session (``WireBind``).
    case bind = 1
    /// Server → client: the answer to a bind (``WireIdent``).
    case ident = 2
    /// Client → server: a new subscription set version (``WireQuery``).
    case query = 3
    /// Client → server: local changesets (``WireUpload``).
    case upload = 4
    /// Server → client: server changesets and progress (``WireDownload``).
    case download = 5
    /// Either way: a request the server echoes once everything before it was handled (``WireMark``).
    case mark = 6
    /// Either way: an error (``WireErrorMessage``).
    case error = 7
    /// Either way: a keep-alive probe (``WirePing``).
    case ping = 8
    /// Either way: the answer to a ping (``WirePong``).
    case pong = 9
    /// Client → server: end a session (``WireUnbind``).
    case unbind = 10

    /// The lowercase name used in `docs/PROTOCOL.md` and in error messages.
    public var description: String {
        switch self {
        case .bind: return "bind"
        case .ident: return "ident"
        case .query: return "query"
        case .upload: return "upload"
        case .download: return "download"
        case .mark: return "mark"
        case .error: return "error"
        case .ping: return "ping"
        case .pong: return "pong"
        case .unbind: return "unbind"
        }
    }
}
