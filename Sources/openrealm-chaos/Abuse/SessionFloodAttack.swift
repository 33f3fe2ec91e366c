import Foundation
import OpenRealmWire

/// Binds in bulk, with one user's token: each bind without a file identity asks the
/// server for a new client file (a durable write) and holds a session.
///
/// - **many binds on one connection**: ``bindsPerConnection`` binds (sessions 1, 2, …)
///   sent at once on a connection, then their answers read; then the next connection.
/// - **many connections**: ``connectionsPerRound`` connections opened together, one bind
///   each, held for a second once answered, then closed; then the next round.
///
/// Outcomes per bind: `bound` (an ident), `refused: <code>` (an error for it or for the
/// connection), `no answer` (the connection closed or went quiet first), `upgrade
/// refused` / `could not connect` for connections the server did not take.
struct SessionFloodAttack: Attack {
    enum Shape: Sendable { case bindsOnOneConnection, manyConnections }

    let shape: Shape
    /// The most binds in all.
    let limit: Int
    /// Binds per second at most (on average over a connection or round).
    let perSecond: Double
    let bindsPerConnection = 100
    let connectionsPerRound = 100

    var name: String { shape == .bindsOnOneConnection ? "session flood (binds on one connection)" : "session flood (many connections)" }

    func run(against target: AbuseTarget) {
        var binds = 0
        while target.isRunning && binds < limit {
            let started = Date()
            let count = min(limit - binds, shape == .bindsOnOneConnection ? bindsPerConnection : connectionsPerRound)
            binds += count
            switch shape {
            case .bindsOnOneConnection: bindMany(count, target: target)
            case .manyConnections: connectMany(count, target: target)
            }
            target.pause(Double(count) / perSecond - Date().timeIntervalSince(started))
        }
    }

    private func bindMany(_ count: Int, target: AbuseTarget) {
        let deadline = Date().addingTimeInterval(20)
        let socket: RawWebSocket
        do {
            socket = try RawWebSocket(port: target.port, path: target.syncPath, timeout: 10)
        } catch {
            target.tally.count(name, "upgrade refused", detail: "\(error)")
            return
        }
        defer { socket.close() }
        var answered = 0
        do {
            for session in 1...count {
                try socket.send(.bind(WireBind(session: UInt64(session), appId: target.appId, accessToken: target.token)), deadline: deadline)
            }
            while answered < count {
                switch try socket.receive(deadline: deadline) {
                case .ident:
                    answered += 1
                    target.tally.count(name, "bound")
                case .error(let error) where error.session == 0:
                    // The connection is refused: every bind not answered yet with it.
                    for _ in answered..<count { target.tally.count(name, "refused: \(error.code)", detail: error.message) }
                    return
                case .error(let error):
                    answered += 1
                    target.tally.count(name, "refused: \(error.code)", detail: error.message)
                default:
                    break
                }
            }
        } catch {
            for _ in answered..<count { target.tally.count(name, "no answer", detail: "\(error)") }
        }
    }

    private func connectMany(_ count: Int, target: AbuseTarget) {
        var sockets: [RawWebSocket] = []
        defer { for socket in sockets { socket.close() } }
        for _ in 0..<count where target.isRunning {
            do {
                let socket = try RawWebSocket(port: target.port, path: target.syncPath, timeout: 10)
                try socket.send(.bind(WireBind(session: 1, appId: target.appId, accessToken: target.token)), deadline: Date().addingTimeInterval(10))
                sockets.append(socket)
            } catch let failure as RawWebSocket.Failure {
                target.tally.count(name, "upgrade refused", detail: "\(failure)")
            } catch {
                target.tally.count(name, "could not connect", detail: "\(error)")
            }
        }
        let deadline = Date().addingTimeInterval(20)
        for socket in sockets {
            do {
                let answer = try socket.waitFor(deadline: deadline) { message -> String? in
                    switch message {
                    case .ident: return "bound"
                    case .error(let error): return "refused: \(error.code)"
                    default: return nil
                    }
                }
                target.tally.count(name, answer)
            } catch {
                target.tally.count(name, "no answer", detail: "\(error)")
            }
        }
        target.pause(1)
    }
}
