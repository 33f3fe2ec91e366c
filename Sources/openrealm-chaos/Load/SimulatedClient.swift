import Foundation
@_spi(SyncTransport) import OpenRealmSync
import OpenRealmWire

/// One simulated client of `load`, at the protocol level (``OpenRealmWire`` over the
/// sync client's own ``WebSocketConnection``): it binds with its access token,
/// subscribes to the ``LoadNote``s of its room, writes notes on demand and measures how
/// long other clients' notes took to arrive. Its state is touched under its lock (events
/// come on the connection's event loop; the driver reads a few figures).
final class SimulatedClient: @unchecked Sendable {
    let index: Int
    let room: Int
    private let token: String
    private let stats: LoadStats
    private let declaresSchema: Bool
    private let lock = NSLock()
    private var socket: WebSocketConnection?
    private var decoder = WireFrameDecoder()
    private var clientVersion: UInt64 = 0
    private var serverVersion: UInt64 = 0
    private var acknowledged: UInt64 = 0
    private var writes = 0
    private var closing = false
    private(set) var isSubscribed = false

    /// The class every simulated client writes and subscribes to.
    static let className = "LoadNote"

    /// The schema the first client declares (development mode takes it from clients).
    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: className, primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))),
        .addProperty(className: className, property: WirePropertySchema(name: "room", type: .int)),
        .addProperty(className: className, property: WirePropertySchema(name: "author", type: .int)),
        .addProperty(className: className, property: WirePropertySchema(name: "sentAt", type: .int)),
        .addProperty(className: className, property: WirePropertySchema(name: "text", type: .string)),
    ]

    init(index: Int, room: Int, token: String, stats: LoadStats, declaresSchema: Bool) {
        self.index = index
        self.room = room
        self.token = token
        self.stats = stats
        self.declaresSchema = declaresSchema
    }

    /// Whether the server acknowledged the schema upload (first client only).
    var schemaAcknowledged: Bool { lock.withLock { acknowledged >= 1 } }
    var subscribed: Bool { lock.withLock { isSubscribed } }

    /// Connects, binds and (once the ident arrives) subscribes.
    func start(port: Int) {
        let url = URL(string: "ws://127.0.0.1:\(port)/api/client/v2.0/app/\(SyncChaos.appId)/realm-sync")!
        let socket = WebSocketConnection(url: url, tls: nil) { [weak self] event in self?.handle(event) }
        lock.withLock { self.socket = socket }
        // A thousand clients connect at once: the server may take a while to accept them all.
        socket.connect(timeout: 30)
    }

    /// Uploads one new note to the client's room.
    func write() {
        lock.withLock {
            guard isSubscribed, let socket else { return }
            writes += 1
            clientVersion += 1
            let sentAt = Int64(DispatchTime.now().uptimeNanoseconds)
            let note = WireInstruction.createObject(className: Self.className, primaryKey: .string("n\(index)-\(writes)"), values: [
                WirePropertyValue("room", .int(Int64(room))), WirePropertyValue("author", .int(Int64(index))),
                WirePropertyValue("sentAt", .int(sentAt)), WirePropertyValue("text", .string("note \(writes) of client \(index)")),
            ])
            send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                clientVersion: clientVersion, lastIntegratedServerVersion: serverVersion,
                timestamp: WireHybridTimestamp(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000)), instructions: [note])])), on: socket)
        }
    }

    /// Closes the connection (not counted as an error).
    func stop() {
        let socket = lock.withLock { () -> WebSocketConnection? in
            closing = true
            return self.socket
        }
        socket?.close()
    }

    private func send(_ message: WireMessage, on socket: WebSocketConnection) {
        do { socket.send(try WireEncoder().encode(message)) } catch { stats.error("encode", "\(error)") }
    }

    private func handle(_ event: SyncTransportEvent) {
        lock.lock()
        defer { lock.unlock() }
        guard let socket else { return }
        switch event {
        case .opened:
            send(.bind(WireBind(session: 1, appId: SyncChaos.appId, accessToken: token)), on: socket)
        case .message(let bytes):
            do {
                for message in try decoder.feed(bytes) { receive(message, on: socket) }
            } catch {
                stats.error("decode", "client \(index): \(error)")
            }
        case .closed(let reason):
            if !closing { stats.error("closed", "client \(index): \(reason ?? "the connection closed")") }
        case .tlsFailed(let failure):
            if !closing { stats.error("closed", "client \(index): \(failure)") }
        case .upgradeRefused(let refusal):
            if !closing { stats.error("closed", "client \(index): \(refusal)") }
        }
    }

    private func receive(_ message: WireMessage, on socket: WebSocketConnection) {
        switch message {
        case .ident:
            if declaresSchema {
                clientVersion += 1
                send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                    clientVersion: clientVersion, lastIntegratedServerVersion: 0,
                    timestamp: WireHybridTimestamp(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000)),
                    instructions: Self.schema)])), on: socket)
            } else {
                subscribe(on: socket)
            }
        case .download(let download):
            serverVersion = max(serverVersion, download.progress.serverVersion)
            let wasAcknowledged = acknowledged
            acknowledged = max(acknowledged, download.progress.lastIntegratedClientVersion)
            if declaresSchema && wasAcknowledged == 0 && acknowledged >= 1 { subscribe(on: socket) }
            if download.bootstrap == .lastBatch && download.queryVersion == 1 && !isSubscribed {
                isSubscribed = true
                stats.subscribedOne()
            }
            guard download.bootstrap == .none else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            for changeset in download.changesets {
                for case .createObject(className: Self.className, primaryKey: _, values: let values) in changeset.instructions {
                    var author: Int64 = -1
                    var sentAt: Int64 = 0
                    for value in values {
                        if value.name == "author", case .int(let number) = value.value { author = number }
                        if value.name == "sentAt", case .int(let number) = value.value { sentAt = number }
                    }
                    if author != Int64(index) && sentAt > 0 {
                        stats.delivered(after: Double(now &- UInt64(sentAt)) / 1e9)
                    }
                }
            }
        case .error(let error):
            stats.error("\(error.code)", "client \(index): \(error.message)")
        case .ping(let ping):
            send(.pong(WirePong(timestamp: ping.timestamp)), on: socket)
        default:
            break
        }
    }

    private func subscribe(on socket: WebSocketConnection) {
        send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: Self.className, query: "room == \(room)")])),
             on: socket)
    }
}
