import Foundation

/// The clocks a session keeps on its connection (invariants 3 and 4 of ``SyncSession``):
/// an access-token fetch is abandoned past its timeout, a socket must open and reach
/// `ident` in time, and an open connection that goes silent gets a ping, then is
/// dropped. ``verdict(now:hasConnection:bound:tokenTimeout:)`` says what is due; the
/// session acts on it.
///
/// Used on the session's queue only.
struct ConnectionDeadlines {
    /// When the access-token fetch in flight started; nil when none is.
    var tokenRequestedAt: DispatchTime?
    /// When the current connection must be open (nil once open).
    var socket: DispatchTime?
    /// When the current connection must have reached `ident` (nil once it did).
    var handshake: DispatchTime?
    /// When the server last sent anything on the current connection.
    var lastTraffic = DispatchTime.now()
    /// Whether a ping went out since that traffic.
    var pingSent = false

    /// How long the TCP connect and the upgrade together may take.
    let socketOpenTimeout: TimeInterval
    /// How long a new connection may take to reach `ident`.
    let handshakeTimeout: TimeInterval
    /// Silence after which a ping goes out.
    let keepaliveInterval: TimeInterval
    /// Further silence after which the connection is dropped.
    let keepaliveTimeout: TimeInterval

    /// What is due now.
    enum Verdict: Equatable {
        case nothing
        /// The token fetch outlived its deadline: forget it (its late answer is ignored).
        case abandonTokenFetch(reason: String)
        /// Drop the connection and reconnect.
        case dropConnection(reason: String)
        /// Send a ping (``pingSent`` is set).
        case ping
    }

    /// A connection is being opened now.
    mutating func connectionStarted(at now: DispatchTime = .now()) {
        handshake = now + handshakeTimeout
        socket = now + socketOpenTimeout
        trafficArrived(at: now)
    }

    /// The server sent something (or the connection changed state).
    mutating func trafficArrived(at now: DispatchTime = .now()) {
        lastTraffic = now
        pingSent = false
    }

    /// What is due at `now`, for a session with or without a connection, bound or not,
    /// whose access-token fetches may take `tokenTimeout` seconds.
    mutating func verdict(now: DispatchTime, hasConnection: Bool, bound: Bool, tokenTimeout: TimeInterval) -> Verdict {
        guard hasConnection else {
            if let asked = tokenRequestedAt, now > asked + tokenTimeout {
                tokenRequestedAt = nil
                return .abandonTokenFetch(reason: "no access token within \(Int(tokenTimeout)) seconds")
            }
            return .nothing
        }
        if let deadline = socket, now > deadline {
            return .dropConnection(reason: "the WebSocket did not open within \(Int(socketOpenTimeout)) seconds (TCP connect and HTTP upgrade)")
        }
        if !bound, let deadline = handshake, now > deadline {
            return .dropConnection(reason: "the server did not accept the session within \(Int(handshakeTimeout)) seconds")
        }
        guard bound else { return .nothing }
        let silent = Double(now.uptimeNanoseconds &- lastTraffic.uptimeNanoseconds) / 1e9
        if silent > keepaliveInterval + keepaliveTimeout {
            return .dropConnection(reason: "the server sent nothing for \(Int(silent)) seconds, not even a pong")
        }
        if silent > keepaliveInterval, !pingSent {
            pingSent = true
            return .ping
        }
        return .nothing
    }
}
