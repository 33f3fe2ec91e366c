import Foundation
import OpenRealmWire

/// Clients that bind, subscribe to the large objects and unsubscribe again and again
/// (each subscription a bootstrap of ``AbuseSchema/blobCount`` × 256 KiB), and never
/// read a byte: what the server queues for them must stay bounded, and it must close
/// them (queue full, or its drain deadline) while they are still open.
///
/// Their receive buffers are small (16 KiB), so what the server sends them stays in the
/// server. ``concurrent`` of them are open at once; each one the server ends is
/// replaced, up to ``limit`` in all. Whether the server ended one is seen without
/// reading: the server's kernel resets a connection closed with data unread, or answers
/// data sent to it after the close with a reset, and every half second each client
/// sends a protocol ping while its socket takes whole ones. Outcomes: `closed by the
/// server` (with its lifetime), `open at the end`, `could not open`.
struct NonReadingClientAttack: Attack {
    let concurrent: Int
    let limit: Int
    /// Subscription changes each client sends.
    let toggles = 40

    var name: String { "non-reading clients" }

    private final class Client {
        let socket: RawWebSocket
        let opened: Date
        /// Set once a ping went out in part: nothing more may follow it on the stream.
        var stuffed = false

        init(socket: RawWebSocket, opened: Date) {
            self.socket = socket
            self.opened = opened
        }

        /// Whether the server has closed the connection, asked with a ping while the
        /// socket takes whole ones.
        func serverClosed(ping: [UInt8]) -> Bool {
            if !stuffed {
                guard let sent = try? socket.connection.sendAvailable(ping) else { return true }
                stuffed = sent < ping.count
            }
            return socket.connection.wasReset
        }
    }

    func run(against target: AbuseTarget) {
        let ping = try! WireEncoder().encode(.ping(WirePing(timestamp: 1)))
        let pingFrame = RawWebSocket.webSocketFrame(opcode: 0x2, payload: ping)
        holdOpen(concurrent: concurrent, limit: limit, against: target, open: { self.open(target) }, ended: { client in
            let closed = client.serverClosed(ping: pingFrame)
            if closed {
                target.tally.count(name, "closed by the server")
                target.tally.lived(name, seconds: Date().timeIntervalSince(client.opened))
                client.socket.close()
            }
            return closed
        }, close: { $0.socket.close() })
    }

    private func open(_ target: AbuseTarget) -> Client? {
        let deadline = Date().addingTimeInterval(10)
        do {
            let socket = try RawWebSocket(port: target.port, path: target.syncPath, timeout: 10, receiveBuffer: 16 << 10)
            try socket.send(.bind(WireBind(session: 1, appId: target.appId, accessToken: target.token)), deadline: deadline)
            for version in 1...toggles {
                let query = version % 2 == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE"
                try socket.send(.query(WireQuery(session: 1, queryVersion: UInt64(version),
                                                 queries: [WireClassQuery(className: AbuseSchema.blobClass, query: query)])),
                                deadline: deadline)
            }
            return Client(socket: socket, opened: Date())
        } catch {
            target.tally.count(name, "could not open", detail: "\(error)")
            return nil
        }
    }
}
