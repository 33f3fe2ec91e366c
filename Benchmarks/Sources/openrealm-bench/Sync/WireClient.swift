import Foundation
@_spi(SyncTransport) import OpenRealmSync
import OpenRealmWire

/// What the fan-out workload's simulated clients report, from NIO's threads.
final class FanoutRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var readyClients = 0
    private var failures: [String] = []
    private var arrivals: [UInt64] = []

    func clientReady() { lock.withLock { readyClients += 1 } }
    func clientFailed(_ reason: String) { lock.withLock { failures.append(reason) } }
    /// A download carrying changes reached a ready client at `time` (monotonic ns).
    func delivered(at time: UInt64) { lock.withLock { arrivals.append(time) } }

    var ready: Int { lock.withLock { readyClients } }
    var failed: [String] { lock.withLock { failures } }
    var arrivalCount: Int { lock.withLock { arrivals.count } }

    /// The arrival times recorded since the last call, emptied.
    func takeArrivals() -> [UInt64] {
        lock.withLock {
            defer { arrivals.removeAll(keepingCapacity: true) }
            return arrivals
        }
    }
}

/// A lean simulated sync client at the wire level, over the sync client's own
/// WebSocket (``WebSocketConnection``): one flexible-sync session bound with a new file
/// identity and one class query, then nothing but receiving downloads (each arrival is
/// reported) and answering pings. It keeps no realm, so a thousand of them fit in the
/// benchmark process. Events come on the connection's event loop, one at a time.
final class WireClient: @unchecked Sendable {
    private let setup: WireSessionSetup
    private let recorder: FanoutRecorder
    private let lock = NSLock()
    private var socket: WebSocketConnection?
    private var ready = false
    private var closing = false
    private static let session: UInt64 = 1

    private init(setup: WireSessionSetup, recorder: FanoutRecorder) {
        self.setup = setup
        self.recorder = recorder
    }

    /// Connects one client; the bind follows the WebSocket upgrade, and readiness (or
    /// failure) is reported to `recorder`.
    static func connect(host: String, port: Int, appId: String, accessToken: String, query: WireClassQuery,
                        recorder: FanoutRecorder) -> WireClient {
        let client = WireClient(setup: WireSessionSetup(appId: appId, accessToken: accessToken, query: query), recorder: recorder)
        let url = URL(string: "ws://\(host):\(port)/api/client/v2.0/app/\(appId)/realm-sync")!
        let socket = WebSocketConnection(url: url, tls: nil) { [weak client] event in client?.handle(event) }
        client.lock.withLock { client.socket = socket }
        // Clients connect in waves of fifty: the server may take a while to accept them.
        socket.connect(timeout: 30)
        return client
    }

    /// Closes the connection (not reported as a failure).
    func close() {
        let socket = lock.withLock { () -> WebSocketConnection? in
            closing = true
            return self.socket
        }
        socket?.close()
    }

    private func handle(_ event: SyncTransportEvent) {
        let received = now()
        lock.lock()
        defer { lock.unlock() }
        guard let socket else { return }
        switch event {
        case .opened:
            send(.bind(WireBind(session: Self.session, appId: setup.appId, accessToken: setup.accessToken)), on: socket)
        case .message(let bytes):
            do {
                handle(try WireFrameDecoder.decode(frame: bytes), at: received, on: socket)
            } catch {
                fail("a frame from the server does not decode: \(error)", socket)
            }
        case .closed(let reason):
            if !closing && !ready { recorder.clientFailed("the connection closed before the bootstrap: \(reason ?? "no reason given")") }
        case .tlsFailed(let failure):
            if !closing { recorder.clientFailed("\(failure)") }
        case .upgradeRefused(let refusal):
            if !closing { recorder.clientFailed("the WebSocket upgrade was refused: \(refusal)") }
        }
    }

    private func handle(_ message: WireMessage, at received: UInt64, on socket: WebSocketConnection) {
        switch message {
        case .ident:
            send(.query(WireQuery(session: Self.session, queryVersion: 1, queries: [setup.query])), on: socket)
        case .download(let download):
            if !ready {
                if download.queryVersion == 1 && download.bootstrap == .lastBatch {
                    ready = true
                    recorder.clientReady()
                }
            } else if !download.changesets.isEmpty {
                recorder.delivered(at: received)
            }
        case .error(let error):
            if error.isFatal { fail("the server ended the session: \(error.message)", socket) }
        case .ping(let ping):
            send(.pong(WirePong(timestamp: ping.timestamp)), on: socket)
        default:
            break
        }
    }

    private func send(_ message: WireMessage, on socket: WebSocketConnection) {
        do { socket.send(try WireEncoder().encode(message)) } catch { fail("cannot encode \(message.type): \(error)", socket) }
    }

    private func fail(_ reason: String, _ socket: WebSocketConnection) {
        recorder.clientFailed(reason)
        closing = true
        socket.close()
    }
}

/// What a simulated client binds with.
struct WireSessionSetup: Sendable {
    let appId: String
    let accessToken: String
    let query: WireClassQuery
}
